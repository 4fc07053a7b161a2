//! Scenario files: reading, overriding and checking them.
//!
//! `crate::load` turns TOML text plus `--set` overrides into a checked [`Scenario`];
//! every error it returns names the file, line and key (see [`ScenarioError`]). This
//! module is the bottom of the crate: it describes scenarios and imports no model.

mod check_transport;
mod check_wifi;
mod error;
mod overrides;
pub(crate) mod rules;
pub mod schema;
pub mod tcp_profile;
pub mod units;
mod validate;

pub use check_transport::CheckCx;
pub use error::{Origin, ScenarioError};
pub use schema::*;
pub use validate::MAX_REAL_NODES;

use toml_edit::{ImDocument, Item, Value};

/// One segment of a key path: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PathSeg {
    Key(String),
    Index(usize),
}

/// Renders a path as `links[0].queue.limit`.
pub(crate) fn render_path(path: &[PathSeg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            PathSeg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// 1-based line of byte offset `pos` in `text`.
fn line_of(text: &str, pos: usize) -> usize {
    text[..pos.min(text.len())].matches('\n').count() + 1
}

/// The source text and name of a scenario, used to point errors at lines.
pub(crate) struct Source<'a> {
    pub name: &'a str,
    pub text: &'a str,
    /// The parsed document, for line numbers: parsed at the first error only (a large
    /// scenario's document costs several times its text in memory).
    doc: std::cell::OnceCell<Option<ImDocument<&'a str>>>,
    /// The `--set` overrides applied: (the path they set, e.g. `links[0].rate`, and the
    /// key the user wrote, e.g. `links.access.rate`). Errors under them blame `--set`.
    overridden: Vec<(String, String)>,
}

impl<'a> Source<'a> {
    fn new(name: &'a str, text: &'a str, overridden: Vec<(String, String)>) -> Self {
        Source {
            name,
            text,
            doc: std::cell::OnceCell::new(),
            overridden,
        }
    }

    /// The line where the value at `path` starts, walking down as far as the
    /// path exists in the file (so a missing key points at its table).
    pub fn line_of_path(&self, path: &[PathSeg]) -> Option<usize> {
        /// A position in the parsed document.
        #[derive(Clone, Copy)]
        enum At<'d> {
            Table(&'d toml_edit::Table),
            Item(&'d Item),
            Value(&'d Value),
        }
        let doc = self
            .doc
            .get_or_init(|| ImDocument::parse(self.text).ok())
            .as_ref()?;
        let mut at = At::Table(doc.as_table());
        let mut best = None;
        for seg in path {
            let next = match (at, seg) {
                (At::Table(t), PathSeg::Key(k)) => t.get(k).map(At::Item),
                (At::Item(Item::Table(t)), PathSeg::Key(k)) => t.get(k).map(At::Item),
                (At::Item(Item::ArrayOfTables(a)), PathSeg::Index(i)) => a.get(*i).map(At::Table),
                (At::Item(Item::Value(v)) | At::Value(v), _) => match (v, seg) {
                    (Value::InlineTable(t), PathSeg::Key(k)) => t.get(k).map(At::Value),
                    (Value::Array(a), PathSeg::Index(i)) => a.get(*i).map(At::Value),
                    _ => None,
                },
                _ => None,
            };
            let Some(next) = next else { break };
            let span = match next {
                At::Table(t) => t.span(),
                At::Item(i) => i.span(),
                At::Value(v) => v.span(),
            };
            if let Some(span) = span {
                best = Some(line_of(self.text, span.start));
            }
            at = next;
        }
        best
    }

    /// An error at `path`: in the file, at the line where the key is, or on the `--set`
    /// override that set it, under the key the user wrote.
    pub fn error(&self, path: &[PathSeg], message: impl Into<String>) -> ScenarioError {
        let rendered = render_path(path);
        let under = |set: &str| {
            rendered
                .strip_prefix(set)
                .filter(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
        };
        if let Some((user, rest)) = self
            .overridden
            .iter()
            .rev()
            .find_map(|(set, user)| Some((user, under(set)?)))
        {
            return ScenarioError {
                origin: Origin::Override,
                key: format!("{user}{rest}"),
                message: message.into(),
            };
        }
        ScenarioError {
            origin: Origin::File {
                name: self.name.to_owned(),
                line: self.line_of_path(path),
            },
            key: render_path(path),
            message: message.into(),
        }
    }
}

/// Reads a scenario from TOML `text` (named `name` in errors), applies the
/// `overrides` (`("links.access.rate", "5Mbps")`, elements of arrays picked by
/// their `name`), and checks it: first its own checks, then `models` (the checks
/// that need the models, which live above this module: see `crate::load`).
/// `seed`, when given, replaces `sim.seed`.
pub(crate) fn load_with(
    name: &str,
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
    models: impl FnOnce(&Scenario, &Source) -> Result<(), ScenarioError>,
) -> Result<Scenario, ScenarioError> {
    // Without overrides the text is deserialized as it is; with them it is edited first.
    let not_toml = |e: toml_edit::TomlError| ScenarioError {
        origin: Origin::File {
            name: name.to_owned(),
            line: e.span().map(|s| line_of(text, s.start)),
        },
        key: String::new(),
        message: format!("not valid TOML: {}", e.message()),
    };
    // A TCP profile's keys are written into the text too (`tcp_profile`): only a text that
    // names a profile, or is edited anyway, is parsed for it.
    let (edited, overridden, profiles) = if overrides.is_empty() && !text.contains("profile") {
        (std::borrow::Cow::Borrowed(text), Vec::new(), Ok(()))
    } else {
        let mut doc: toml_edit::DocumentMut = text.parse().map_err(not_toml)?;
        let overridden = overrides::apply(&mut doc, overrides)?;
        let profiles = tcp_profile::resolve(&mut doc);
        (
            std::borrow::Cow::Owned(doc.to_string()),
            overridden,
            profiles,
        )
    };
    let source = Source::new(name, text, overridden);
    profiles.map_err(|(path, message)| source.error(&path, message))?;
    let de = toml::Deserializer::new(&edited);
    let mut scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        // Not TOML at all: say so, at the line of the syntax error.
        if let Err(syntax) = text.parse::<toml_edit::DocumentMut>() {
            return not_toml(syntax);
        }
        let mut path = convert_path(e.path());
        let message = error::plain_words(e.inner().message());
        if let Some(key) = table_at(&edited, &path).and_then(|t| error::culprit(&message, &t)) {
            path.push(PathSeg::Key(key));
        }
        source.error(&path, message)
    })?;
    resolve_trace_files(&mut scenario, name);
    if let Some(seed) = seed {
        // A resolved scenario is TOML again, whose integers are signed 64-bit.
        if seed > i64::MAX as u64 {
            return Err(ScenarioError {
                origin: Origin::Override,
                key: "sim.seed".into(),
                message: format!("expected a seed from 0 to {}, got {seed}", i64::MAX),
            });
        }
        scenario.sim.seed = seed;
    }
    validate::check(&scenario, &source)?;
    models(&scenario, &source)?;
    Ok(scenario)
}

/// Makes every relative trace file name relative to the folder of the scenario file
/// `name` (as written in the file) and absolute, so that the resolved scenario names the
/// same file wherever it is run from.
fn resolve_trace_files(scenario: &mut Scenario, name: &str) {
    let folder = std::path::Path::new(name)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    for link in &mut scenario.links {
        let reverse = link.reverse.as_mut().and_then(|r| r.trace.as_mut());
        for spec in link.trace.as_mut().into_iter().chain(reverse) {
            if let Some(file) = spec.file_mut() {
                let joined = folder.join(&*file);
                let absolute = std::path::absolute(&joined).unwrap_or(joined);
                *file = absolute.to_string_lossy().into_owned();
            }
        }
    }
}

/// The resolved scenario as TOML: every default filled in, with the seed and
/// the Tern version, so that a run can be repeated exactly.
pub fn resolved_toml(scenario: &Scenario) -> String {
    let mut s = scenario.clone();
    s.sim.tern_version = Some(env!("CARGO_PKG_VERSION").to_owned());
    let body = toml::to_string(&s).expect("a scenario always serializes");
    format!(
        "# Resolved by Tern {}: run it again with `tern run` on this file.\n{body}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The scenario format as a JSON Schema document.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).expect("schema serializes")
}

/// The table at `path` in the scenario `text`, if there is one there.
fn table_at(text: &str, path: &[PathSeg]) -> Option<toml::Table> {
    let mut here = toml::Value::Table(toml::from_str(text).ok()?);
    for seg in path {
        here = match (seg, here) {
            (PathSeg::Key(k), toml::Value::Table(mut t)) => t.remove(k)?,
            (PathSeg::Index(i), toml::Value::Array(mut a)) if *i < a.len() => a.swap_remove(*i),
            _ => return None,
        };
    }
    match here {
        toml::Value::Table(t) => Some(t),
        _ => None,
    }
}

fn convert_path(path: &serde_path_to_error::Path) -> Vec<PathSeg> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|seg| match seg {
            Segment::Map { key } => Some(PathSeg::Key(key.clone())),
            Segment::Seq { index } => Some(PathSeg::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}
