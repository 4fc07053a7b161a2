//! Scenario errors: they name the file, the line, the key, and what was expected.

use std::fmt;

/// Where a bad value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The scenario file, at a 1-based line when it is known.
    File { name: String, line: Option<usize> },
    /// A `--set KEY=VALUE` override.
    Override,
}

/// A problem with a scenario, found before the run starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub origin: Origin,
    /// Dotted key path, e.g. `links[0].rate`; empty for whole-file problems.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Origin::File {
                name,
                line: Some(line),
            } => write!(f, "{name}:{line}: ")?,
            Origin::File { name, line: None } => write!(f, "{name}: ")?,
            Origin::Override => f.write_str("--set ")?,
        }
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}
