//! Makes the source this crate compiles: noq-proto 1.4.0 as published on crates.io, with the
//! unified diffs in `patches/` applied in the order of their names.
//!
//! 1. The published crate comes from Cargo itself: a throw-away manifest in `OUT_DIR` that
//!    depends on `noq-proto = "=1.4.0"` is resolved with `cargo metadata` (offline first,
//!    from what Cargo already downloaded and checked against the registry's checksum; online
//!    otherwise), which names the folder Cargo unpacked the crate into. `TERN_NOQ_PROTO_SRC`
//!    names that folder instead, for a machine that has the crate but no registry.
//! 2. Its `src/` is copied to `OUT_DIR/noq-proto/src` and each patch applied exactly: every
//!    hunk's context and removed lines must be found as they are (no fuzz), else the build
//!    stops and says which hunk, so a patch that no longer fits is never applied half-way.
//! 3. The crate-level attributes and docs at the head of `lib.rs` are removed, as `src/lib.rs`
//!    here states them and includes the rest (`include!` takes items only).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const NAME: &str = "noq-proto";
const VERSION: &str = "1.4.0";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=patches");
    println!("cargo:rerun-if-env-changed=TERN_NOQ_PROTO_SRC");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let published = match env::var_os("TERN_NOQ_PROTO_SRC") {
        Some(dir) => PathBuf::from(dir),
        None => published_source(&out),
    };
    let src = out.join(NAME).join("src");
    let _ = fs::remove_dir_all(&src);
    copy_dir(&published.join("src"), &src);

    let mut patches: Vec<PathBuf> = fs::read_dir("patches")
        .expect("the patches folder")
        .map(|e| e.expect("a readable folder").path())
        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
        .collect();
    patches.sort();
    for patch in &patches {
        let diff = fs::read_to_string(patch).expect("a readable patch");
        if let Err(e) = apply(&src, &diff) {
            panic!("{}: {e}", patch.display());
        }
    }

    let lib = src.join("lib.rs");
    let text = fs::read_to_string(&lib).expect("the crate's lib.rs");
    fs::write(&lib, without_crate_attributes(&text)).expect("OUT_DIR is writable");
}

/// The folder Cargo unpacked the published crate into.
fn published_source(out: &Path) -> PathBuf {
    let dir = out.join("published");
    fs::create_dir_all(&dir).expect("OUT_DIR is writable");
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"tern-published-noq-proto\"\nversion = \"0.0.0\"\n\
             edition = \"2021\"\npublish = false\n[lib]\npath = \"lib.rs\"\n\
             [dependencies]\n{NAME} = {{ version = \"={VERSION}\", default-features = false }}\n\
             [workspace]\n"
        ),
    )
    .expect("OUT_DIR is writable");
    fs::write(dir.join("lib.rs"), "").expect("OUT_DIR is writable");
    // The workspace's lock file, so that the resolution picks the versions already fetched.
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    if !dir.join("Cargo.lock").exists() {
        let _ = fs::copy(lock, dir.join("Cargo.lock"));
    }
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut errors = String::new();
    for offline in [true, false] {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(dir.join("Cargo.toml"));
        if offline {
            cmd.arg("--offline");
        }
        let output = cmd.output().expect("cargo runs");
        if output.status.success() {
            let json = String::from_utf8(output.stdout).expect("cargo writes UTF-8");
            let manifest = manifest_path(&json).expect("cargo metadata names the crate");
            return Path::new(&manifest)
                .parent()
                .expect("a manifest is in a folder")
                .to_owned();
        }
        errors.push_str(&String::from_utf8_lossy(&output.stderr));
    }
    panic!("cannot get {NAME} {VERSION} from Cargo (set TERN_NOQ_PROTO_SRC):\n{errors}");
}

/// The `manifest_path` of the registry's `noq-proto` 1.4.0 in `cargo metadata`'s output: the
/// first after the package's `id` (a package's fields come before the next package's).
fn manifest_path(json: &str) -> Option<String> {
    let id = format!("#{NAME}@{VERSION}\"");
    let at = json.find(&id)?;
    const KEY: &str = "\"manifest_path\":\"";
    let start = at + json[at..].find(KEY)? + KEY.len();
    let len = json[start..].find('"')?;
    Some(json[start..start + len].replace("\\\\", "\\"))
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("OUT_DIR is writable");
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("a readable folder");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("OUT_DIR is writable");
        }
    }
}

/// Applies unified diff `diff`, whose paths are `a/<path>` and `b/<path>` relative to the
/// crate's root (`root` is its `src`), hunk by hunk in order.
fn apply(root: &Path, diff: &str) -> Result<(), String> {
    let base = root.parent().expect("src is in a folder");
    let mut lines = diff.lines();
    let mut file: Option<(PathBuf, Vec<String>, usize)> = None;
    while let Some(line) = lines.next() {
        if let Some(path) = line.strip_prefix("+++ b/") {
            if let Some(done) = file.take() {
                write(done);
            }
            let path = base.join(path.trim_end());
            let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let text = text.lines().map(str::to_owned).collect();
            file = Some((path, text, 0));
        } else if let Some(header) = line.strip_prefix("@@ -") {
            let (path, text, cursor) = file.as_mut().ok_or("a hunk before its file")?;
            let (old_count, new_count) = counts(header).ok_or(format!("bad hunk {line}"))?;
            let (mut old, mut new) = (Vec::new(), Vec::new());
            while old.len() < old_count || new.len() < new_count {
                let l = lines.next().ok_or(format!("{line}: the diff ends early"))?;
                match l.split_at_checked(1).unwrap_or((" ", "")) {
                    (" ", rest) => {
                        old.push(rest.to_owned());
                        new.push(rest.to_owned());
                    }
                    ("-", rest) => old.push(rest.to_owned()),
                    ("+", rest) => new.push(rest.to_owned()),
                    ("\\", _) => {}
                    _ => return Err(format!("{line}: unexpected line {l:?}")),
                }
            }
            let at = (*cursor..=text.len().saturating_sub(old.len()))
                .find(|&i| text[i..i + old.len()] == old[..])
                .ok_or(format!("{}: hunk {line} does not fit", path.display()))?;
            text.splice(at..at + old.len(), new.iter().cloned());
            *cursor = at + new.len();
        }
    }
    if let Some(done) = file {
        write(done);
    }
    Ok(())
}

/// The old and new line counts of a hunk header's tail `l,s +l,s @@`.
fn counts(header: &str) -> Option<(usize, usize)> {
    let (old, rest) = header.split_once(" +")?;
    let new = rest.split_once(" @@")?.0;
    let count = |range: &str| match range.split_once(',') {
        Some((_, n)) => n.parse().ok(),
        None => Some(1),
    };
    Some((count(old)?, count(new)?))
}

fn write((path, text, _): (PathBuf, Vec<String>, usize)) {
    let mut out = text.join("\n");
    out.push('\n');
    fs::write(path, out).expect("OUT_DIR is writable");
}

/// `lib.rs` without its leading inner doc comments, comments and `#![...]` attributes.
fn without_crate_attributes(text: &str) -> String {
    let mut lines = text.lines().peekable();
    let mut depth = 0i32;
    while let Some(line) = lines.peek() {
        let t = line.trim();
        if depth > 0 || t.starts_with("#![") {
            depth += t.matches('[').count() as i32 - t.matches(']').count() as i32;
        } else if !(t.is_empty() || t.starts_with("//")) {
            break;
        }
        lines.next();
    }
    let rest: Vec<&str> = lines.collect();
    assert!(
        rest.iter().all(|l| !l.trim_start().starts_with("#![")),
        "lib.rs has crate attributes after its head"
    );
    rest.join("\n") + "\n"
}
