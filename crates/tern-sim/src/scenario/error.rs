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

/// A deserializer's message in a user's words: the Rust type it expected (`expected u32`)
/// becomes the range of values it takes.
pub(crate) fn plain_words(message: &str) -> String {
    const TYPES: [(&str, &str); 9] = [
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number from 0 to 9223372036854775807"),
        ("usize", "a whole number from 0 to 9223372036854775807"),
        ("i32", "a whole number from -2147483648 to 2147483647"),
        ("i64", "a whole number"),
        ("f32", "a number"),
        ("f64", "a number"),
    ];
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(pos) = rest.find("expected ") {
        let (head, tail) = rest.split_at(pos + "expected ".len());
        out.push_str(head);
        let len = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        let word = &tail[..len];
        out.push_str(
            TYPES
                .iter()
                .find(|(t, _)| *t == word)
                .map_or(word, |(_, w)| w),
        );
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// The key of `table` a deserializer's `message` is about, when the message names a value
/// but no key: a table of one of several kinds (`transport = { kind = "tcp", cc = "bbr" }`)
/// is read whole, so its errors point at the table. The key is the one holding the value
/// the message quotes (`unknown variant `bbr``, `got "10 parsecs"`), or the unknown or
/// conflicting field it names (a link with two technologies' tables); none when no single key fits.
pub(crate) fn culprit(message: &str, table: &toml::Table) -> Option<String> {
    let quoted = |open: &str, close: char| {
        let start = message.find(open)? + open.len();
        let len = message[start..].find(close)?;
        Some(message[start..start + len].to_owned())
    };
    if let Some(field) = ["unknown field `", "conflicting field `"]
        .iter()
        .find(|p| message.starts_with(*p))
        .and_then(|p| quoted(p, '`'))
    {
        return table.contains_key(&field).then_some(field);
    }
    let value = quoted("unknown variant `", '`').or_else(|| quoted("got \"", '"'))?;
    let mut keys = table
        .iter()
        .filter(|(k, v)| *k != "kind" && v.as_str() == Some(value.as_str()))
        .map(|(k, _)| k.clone());
    let key = keys.next()?;
    keys.next().is_none().then_some(key)
}

#[cfg(test)]
mod tests {
    use super::{culprit, plain_words};

    #[test]
    fn the_key_a_message_quotes_is_found() {
        let table: toml::Table =
            toml::from_str("kind = \"tcp\"\ncc = \"bbr\"\nrate = \"9 parsecs\"").unwrap();
        let variant = "unknown variant `bbr`, expected one of `newreno`, `cubic`";
        assert_eq!(culprit(variant, &table).as_deref(), Some("cc"));
        let unit = "expected a data rate like \"10Mbps\", got \"9 parsecs\"";
        assert_eq!(culprit(unit, &table).as_deref(), Some("rate"));
        assert_eq!(
            culprit("unknown field `cc`, expected `kind`", &table).as_deref(),
            Some("cc")
        );
        // The kind is not a culprit of its own message; an unknown value names nothing.
        assert_eq!(
            culprit("unknown variant `tcp`, expected `udp`", &table),
            None
        );
        assert_eq!(
            culprit("unknown variant `reno`, expected `cubic`", &table),
            None
        );
    }

    #[test]
    fn rust_types_become_ranges() {
        assert_eq!(
            plain_words("invalid value: integer `-1`, expected u32"),
            "invalid value: integer `-1`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_words("invalid type: string \"x\", expected f64"),
            "invalid type: string \"x\", expected a number"
        );
        // A word that only starts like a type is left alone.
        assert_eq!(plain_words("expected u8x"), "expected u8x");
    }
}
