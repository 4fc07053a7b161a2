//! Named TCP host profiles (`transport = { kind = "tcp", profile = "linux-6" }`): a versioned
//! set of TCP settings of a real host, every key with its source.
//!
//! A profile is resolved on the TOML text, before serde reads the scenario: each key the
//! profile sets is written into the flow's `transport` table unless the scenario wrote it
//! there itself. So a key in the scenario overrides the profile, a key neither sets keeps
//! `TcpSpec`'s serde default, and serde reads profile values exactly as it reads a user's
//! (one parser, one set of checks, the same error messages). The profile's name stays in
//! the table: a resolved scenario (`tern validate`, a run's `scenario.toml`) shows every
//! value and the name, and reading it again resolves to the same thing, since every key is
//! then written out.
//!
//! The tables are in `hosts.rs` (Linux, Android, the RFCs) and `others.rs` (Windows, macOS,
//! the BSDs, ns-3); `tern schema` lists them (see [`schema`]).

mod hosts;
mod others;

use super::PathSeg;
use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toml_edit::{DocumentMut, Item, TableLike, Value};

/// One key a profile sets: its TOML value and where the value comes from.
#[derive(Clone, Copy, Debug)]
pub struct ProfileKey {
    /// A key of `TcpSpec`, e.g. `min_rto`.
    pub key: &'static str,
    /// Its value as TOML, e.g. `"200ms"` with the quotes.
    pub value: &'static str,
    /// The kernel source file and symbol, sysctl default, vendor document or RFC; or "not
    /// documented" and why the value is what it is.
    pub source: &'static str,
}

/// Shorthand for the tables.
const fn key(key: &'static str, value: &'static str, source: &'static str) -> ProfileKey {
    ProfileKey { key, value, source }
}

/// A named host profile.
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    pub name: &'static str,
    /// The host, its version, and what is approximated.
    pub description: &'static str,
    /// A profile whose keys this one starts from (its own keys replace those).
    pub inherits: Option<&'static str>,
    pub keys: &'static [ProfileKey],
}

/// Every profile, in the order `tern schema` lists them.
pub const PROFILES: [&Profile; 9] = [
    &hosts::RFC,
    &hosts::LINUX_3_13,
    &hosts::LINUX_6,
    &hosts::ANDROID,
    &others::WINDOWS10_1607,
    &others::MACOS_10_11,
    &others::FREEBSD_2_2_8,
    &others::BSD_4_4_LITE,
    &others::NS3,
];

/// The profiles' names, as serde lists them in an error.
pub const NAMES: &[&str] = &[
    "rfc",
    "linux-3.13",
    "linux-6",
    "android",
    "windows10-1607",
    "macos-10.11",
    "freebsd-2.2.8",
    "4.4bsd-lite",
    "ns3",
];

/// The profile named `name`.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().copied().find(|p| p.name == name)
}

impl Profile {
    /// Every key the profile sets, inherited ones included, each once.
    pub fn resolved_keys(&self) -> Vec<ProfileKey> {
        let mut keys: Vec<ProfileKey> = self
            .inherits
            .and_then(find)
            .map(Profile::resolved_keys)
            .unwrap_or_default();
        for k in self.keys {
            match keys.iter_mut().find(|o| o.key == k.key) {
                Some(old) => *old = *k,
                None => keys.push(*k),
            }
        }
        keys
    }
}

/// A TCP profile's name in a scenario: one of [`NAMES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpProfile(pub &'static str);

impl Serialize for TcpProfile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for TcpProfile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        find(&name)
            .map(|p| TcpProfile(p.name))
            .ok_or_else(|| serde::de::Error::unknown_variant(&name, NAMES))
    }
}

/// The JSON Schema of `profile`: one entry per profile with its description and its keys,
/// each with its value and source (`x-keys`).
pub fn schema(_gen: &mut SchemaGenerator) -> Schema {
    let one_of: Vec<serde_json::Value> = PROFILES
        .iter()
        .map(|p| {
            let keys: serde_json::Map<String, serde_json::Value> = p
                .resolved_keys()
                .iter()
                .map(|k| {
                    let value: toml::Value =
                        toml::from_str::<toml::Table>(&format!("v = {}", k.value))
                            .expect("profile values are TOML")["v"]
                            .clone();
                    let entry = serde_json::json!({ "value": value, "source": k.source });
                    (k.key.to_owned(), entry)
                })
                .collect();
            serde_json::json!({
                "const": p.name,
                "description": p.description,
                "x-keys": keys,
            })
        })
        .collect();
    serde_json::from_value(serde_json::json!({
        "type": "string",
        "description": "A named host profile: its keys are filled in where the transport does not write them.",
        "oneOf": one_of,
    }))
    .expect("a JSON Schema")
}

/// Fills in the keys of every TCP transport's profile in `doc`, where the transport does not
/// set them. A `profile` that names no profile is an error at its key path, with the names.
pub(crate) fn resolve(doc: &mut DocumentMut) -> Result<(), (Vec<PathSeg>, String)> {
    let Some(flows) = doc.get_mut("flows") else {
        return Ok(());
    };
    let each = |i: usize, flow: &mut dyn TableLike| {
        let path = |key: &str| {
            let keys = ["flows", "transport", key].map(|k| PathSeg::Key(k.into()));
            vec![
                keys[0].clone(),
                PathSeg::Index(i),
                keys[1].clone(),
                keys[2].clone(),
            ]
        };
        match flow.get_mut("transport") {
            Some(Item::Table(t)) => fill(t).map_err(|m| (path("profile"), m)),
            Some(Item::Value(Value::InlineTable(t))) => fill(t).map_err(|m| (path("profile"), m)),
            _ => Ok(()),
        }
    };
    match flows {
        Item::ArrayOfTables(a) => a.iter_mut().enumerate().try_for_each(|(i, t)| each(i, t)),
        Item::Value(Value::Array(a)) => a.iter_mut().enumerate().try_for_each(|(i, v)| match v {
            Value::InlineTable(t) => each(i, t),
            _ => Ok(()),
        }),
        _ => Ok(()),
    }
}

/// One transport table: its profile's keys where it has none, if it is TCP.
fn fill(t: &mut dyn TableLike) -> Result<(), String> {
    if t.get("kind").and_then(Item::as_str) != Some("tcp") {
        return Ok(());
    }
    let Some(named) = t.get("profile") else {
        return Ok(());
    };
    let names = NAMES
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let profile = match named.as_str() {
        Some(name) => find(name)
            .ok_or_else(|| format!("unknown TCP profile `{name}`, expected one of {names}"))?,
        None => return Err(format!("expected a TCP profile's name, one of {names}")),
    };
    for k in profile.resolved_keys() {
        if t.get(k.key).is_none() {
            let value: Value = k.value.parse().expect("profile values are TOML");
            t.insert(k.key, Item::Value(value));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
