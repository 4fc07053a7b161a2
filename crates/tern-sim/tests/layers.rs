//! No import runs back up the layers (docs/design.md, "Which way the slices' parts point").
//!
//! Reads every `.rs` file under `src/`, finds each `crate::<module>` path it uses (in `use`
//! statements, grouped `use crate::{a, b::c}` included, and inline, `$crate::` in macros
//! too, and `super::` paths made crate paths), maps the file and the path to their layers and fails, naming the file, the line and
//! the path, when a path names a higher layer than its file's. Comments and string literals
//! are not read. A macro variable in a path (`$crate::transport::$slice::spec::Spec`)
//! stands for one segment; a path that starts with one (a list's callback, `$crate::$then!`)
//! or repeats one (`$($m)::+`) is not followed past it; a macro invoked as `crate::name!` counts at the highest layer
//! its own body names, so a list that only calls back (`with_transports!`, `with_links!`)
//! costs nothing and a generator counts where its paths point.
//!
//! A slice's lower-layer parts count at their own layer, wherever the path meets them: a
//! `spec.rs` in a slice (`transport/<kind>/`, `cellular/<kind>/`) is the scenario layer, a
//! `summary.rs` there the summary layer, a `wire.rs` the net layer, and every `records.rs` the trace layer. Such a file is
//! held to its layer like any other, so it may import only that layer and those below.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, lowest first, each with the module paths it holds (the longest prefix wins).
const LAYERS: &[(&str, &[&str])] = &[
    ("engine", &["engine", "heap"]),
    ("radio", &["radio"]),
    ("trace", &["trace"]),
    ("scenario", &["scenario"]),
    ("tracelink", &["tracelink"]),
    ("summary", &["summary"]),
    ("net", &["net"]),
    (
        "capture",
        &[
            "trace::pcap",
            "trace::capture",
            "trace::addr",
            "trace::qlog",
        ],
    ),
    ("app", &["app"]),
    ("link", &["link"]),
    ("cellular", &["cellular"]),
    ("wifi", &["wifi"]),
    ("transport", &["transport"]),
    ("mech", &["mech"]),
    ("emu", &["emu"]),
    ("world", &["world", ""]),
];

/// The families whose folders are slices, and the part files that count at a lower layer.
const SLICE_FAMILIES: &[&str] = &["transport", "cellular", "link"];
const SLICE_PARTS: &[(&str, &str)] = &[
    ("spec", "scenario"),
    ("summary", "summary"),
    ("wire", "net"),
];

/// Imports that still run upward, each with why; empty when the rule holds everywhere.
/// An entry that no longer occurs fails the test too, so the list only shrinks.
const KNOWN: &[(&str, &str)] = &[];

fn rank(name: &str) -> usize {
    LAYERS
        .iter()
        .position(|(n, _)| *n == name)
        .expect("a layer of the list")
}

/// The layer of a module path (`["transport", "tcp", "spec"]`).
fn layer_of(path: &[&str]) -> usize {
    if path.contains(&"records") {
        return rank("trace");
    }
    if path.len() >= 3 && SLICE_FAMILIES.contains(&path[0]) {
        if let Some((_, l)) = SLICE_PARTS.iter().find(|(p, _)| *p == path[2]) {
            return rank(l);
        }
    }
    let joined = path.join("::");
    let mut best: Option<(usize, usize)> = None;
    for (i, (_, prefixes)) in LAYERS.iter().enumerate() {
        for p in *prefixes {
            let hit = p.is_empty() || joined == *p || joined.starts_with(&format!("{p}::"));
            if hit && best.is_none_or(|(len, _)| p.len() > len) {
                best = Some((p.len(), i));
            }
        }
    }
    best.expect("the crate root is a layer").1
}

/// The module path of a source file (`src/transport/tcp/spec.rs` → `transport::tcp::spec`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// `text` with comments and string and char literals blanked (lines kept).
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend(s.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }))
    };
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, &b[i..end]);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
            blank(&mut out, &b[i..end]);
            i = end;
        } else if b[i] == b'"' {
            let raw = i > 0 && b[i - 1] == b'r';
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' && !raw { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&mut out, &b[i..end]);
            i = end;
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('a', '\n', '\''); a lifetime has no closing quote.
            let end = b[i + 2..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(b.len(), |p| i + 3 + p);
            blank(&mut out, &b[i..end]);
            i = end;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 boundaries of ASCII delimiters")
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// One use of a crate path: its line and its segments (a `$`-segment stops it); `macro_`
/// when it ends in `!` (a macro invoked by its crate path).
struct Use {
    line: usize,
    segments: Vec<String>,
    macro_: bool,
}

/// Reads a path's segments from `s` at `i` (after `crate::`); grouped uses expand.
fn read_paths(s: &[u8], mut i: usize, prefix: Vec<String>, line: usize, out: &mut Vec<Use>) {
    let mut segs = prefix;
    loop {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < s.len() && s[i] == b'{' {
            // A group: each item at depth one is a path of its own under `segs`.
            let mut depth = 0;
            let mut start = i + 1;
            let mut j = i;
            while j < s.len() {
                match s[j] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            read_paths(s, start, segs.clone(), line, out);
                            return;
                        }
                    }
                    b',' if depth == 1 => {
                        read_paths(s, start, segs.clone(), line, out);
                        start = j + 1;
                    }
                    _ => {}
                }
                j += 1;
            }
            return;
        }
        let start = i;
        // A macro variable (`$slice`) stands for one segment: read on past it.
        if i + 1 < s.len() && s[i] == b'$' && is_ident(s[i + 1]) {
            i += 1;
        }
        while i < s.len() && is_ident(s[i]) {
            i += 1;
        }
        if i == start {
            // `self`, `*`, `$var` or nothing: the path ends here.
            if !segs.is_empty() {
                out.push(Use {
                    line,
                    segments: segs,
                    macro_: false,
                });
            }
            return;
        }
        let seg = String::from_utf8_lossy(&s[start..i]).to_string();
        if seg == "self" {
            out.push(Use {
                line,
                segments: segs,
                macro_: false,
            });
            return;
        }
        segs.push(seg);
        if i < s.len() && s[i] == b'!' {
            out.push(Use {
                line,
                segments: segs,
                macro_: true,
            });
            return;
        }
        if s[i..].starts_with(b"::") {
            i += 2;
        } else {
            out.push(Use {
                line,
                segments: segs,
                macro_: false,
            });
            return;
        }
    }
}

/// Every crate path used in `text` (already stripped).
fn uses(text: &str) -> Vec<Use> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("crate::") {
        let at = from + p;
        from = at + 7;
        if at > 0 && is_ident(s[at - 1]) {
            continue;
        }
        let line = text[..at].matches('\n').count() + 1;
        read_paths(s, at + 7, Vec::new(), line, &mut out);
    }
    out
}

/// The byte ranges of the inline modules (`mod tests { … }`) in `text` (already stripped).
fn inline_modules(text: &str) -> Vec<(usize, usize)> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("mod ") {
        let at = from + p;
        from = at + 4;
        if at > 0 && is_ident(s[at - 1]) {
            continue;
        }
        let mut i = at + 4;
        while i < s.len() && (is_ident(s[i]) || s[i].is_ascii_whitespace()) {
            i += 1;
        }
        if i >= s.len() || s[i] != b'{' {
            continue;
        }
        let mut depth = 0;
        for (k, &c) in s[i..].iter().enumerate() {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((i, i + k));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Every `super::` path in `text` (already stripped) of the file whose module is `module`,
/// made a crate path: each `super` leaves an inline module the use sits in, then the file's
/// module.
fn super_uses(text: &str, module: &[String]) -> Vec<Use> {
    let s = text.as_bytes();
    let inline = inline_modules(text);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("super::") {
        let at = from + p;
        from = at + 7;
        if at > 0 && (is_ident(s[at - 1]) || s[at - 1] == b':') {
            continue;
        }
        let mut depth = inline.iter().filter(|(a, b)| *a < at && at < *b).count();
        let mut base = module.to_vec();
        let mut i = at;
        while s[i..].starts_with(b"super::") {
            if depth > 0 {
                depth -= 1;
            } else {
                base.pop();
            }
            i += 7;
        }
        let line = text[..at].matches('\n').count() + 1;
        read_paths(s, i, base, line, &mut out);
    }
    out
}

/// The `macro_rules!` names defined in `text`, each with the body that follows.
fn macros(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("macro_rules!") {
        let at = from + p + "macro_rules!".len();
        let rest = text[at..].trim_start();
        let name: String = rest
            .bytes()
            .take_while(|&c| is_ident(c))
            .map(char::from)
            .collect();
        let open = at + text[at..].find('{').unwrap_or(0);
        let mut depth = 0;
        let mut end = open;
        for (k, c) in text[open..].bytes().enumerate() {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((name, text[open..end].to_string()));
        from = end.max(at);
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The upward imports of the crate's sources: `(file, line, path, from layer, to layer)`.
fn upward(src: &Path) -> Vec<(String, usize, String, &'static str, &'static str)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let texts: Vec<(String, Vec<String>, String)> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(src).unwrap();
            let text = strip(&std::fs::read_to_string(f).unwrap());
            (rel.display().to_string(), module_of(rel), text)
        })
        .collect();
    // A macro's layer: the highest its body's own crate paths name (a list names none).
    let mut macro_layer: BTreeMap<String, usize> = BTreeMap::new();
    for (_, _, text) in &texts {
        for (name, body) in macros(text) {
            let top = uses(&body)
                .iter()
                .filter(|u| !u.macro_ && !u.segments[0].starts_with('$'))
                .map(|u| layer_of(&u.segments.iter().map(String::as_str).collect::<Vec<_>>()))
                .max();
            if let Some(l) = top {
                macro_layer.insert(name, l);
            }
        }
    }
    let mut found = Vec::new();
    for (rel, module, text) in &texts {
        let own = layer_of(&module.iter().map(String::as_str).collect::<Vec<_>>());
        for u in uses(text).into_iter().chain(super_uses(text, module)) {
            if u.segments.is_empty() || u.segments[0].starts_with('$') {
                // `$crate::$then!`, a list's callback: the caller's generator is checked.
                continue;
            }
            let to = if u.macro_ && u.segments.len() == 1 {
                match macro_layer.get(&u.segments[0]) {
                    Some(&l) => l,
                    None => continue,
                }
            } else {
                layer_of(&u.segments.iter().map(String::as_str).collect::<Vec<_>>())
            };
            if to > own {
                let path = format!(
                    "crate::{}{}",
                    u.segments.join("::"),
                    if u.macro_ { "!" } else { "" }
                );
                found.push((rel.clone(), u.line, path, LAYERS[own].0, LAYERS[to].0));
            }
        }
    }
    found
}

#[test]
fn no_import_runs_back_up_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = upward(&src);
    let mut unexpected = Vec::new();
    let mut seen = vec![false; KNOWN.len()];
    for (file, line, path, from, to) in &found {
        let known = KNOWN
            .iter()
            .position(|(f, p)| f == file && path.starts_with(p));
        match known {
            Some(k) => seen[k] = true,
            None => unexpected.push(format!("{file}:{line}: {path} ({from} → {to})")),
        }
    }
    let stale: Vec<_> = KNOWN
        .iter()
        .zip(&seen)
        .filter(|(_, s)| !**s)
        .map(|((f, p), _)| format!("{f}: {p}"))
        .collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "imports that run back up the layers ({}):\n{}\nknown exceptions that no longer occur:\n{}",
        unexpected.len(),
        unexpected.join("\n"),
        stale.join("\n")
    );
}

#[test]
fn the_scanner_reads_grouped_inline_and_macro_paths() {
    let text = strip(
        "use crate::{a::B, c::{d, e::F}};\n// crate::hidden::X\nlet x = \"crate::no\";\n\
         let y = crate::g::h(1); $crate::with_x!{}\n$crate::t::$s::spec::S\n",
    );
    let got: Vec<(usize, String, bool)> = uses(&text)
        .into_iter()
        .map(|u| (u.line, u.segments.join("::"), u.macro_))
        .collect();
    let want = [
        (1, "a::B", false),
        (1, "c::d", false),
        (1, "c::e::F", false),
        (4, "g::h", false),
        (4, "with_x", true),
        (5, "t::$s::spec::S", false),
    ];
    let want: Vec<(usize, String, bool)> = want
        .iter()
        .map(|(l, p, m)| (*l, p.to_string(), *m))
        .collect();
    assert_eq!(got, want);
    assert_eq!(layer_of(&["transport", "tcp", "spec"]), rank("scenario"));
    assert_eq!(layer_of(&["transport", "tcp", "records"]), rank("trace"));
    assert_eq!(layer_of(&["transport", "tcp"]), rank("transport"));
    assert_eq!(layer_of(&["trace", "pcap"]), rank("capture"));
    assert_eq!(layer_of(&["trace", "sink"]), rank("trace"));
    assert_eq!(layer_of(&[]), rank("world"));
    assert_eq!(
        layer_of(&["transport", "$s", "spec", "S"]),
        rank("scenario")
    );
}
