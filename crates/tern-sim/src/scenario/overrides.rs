//! `--set KEY=VALUE` overrides, applied to the TOML document before it is read.
//!
//! Keys are dotted paths; an element of an array of tables is picked by its
//! `name` (`links.access.rate`, `flows.bulk.app.size`), never by position, so
//! an override keeps meaning the same thing when the file is edited.
//! A value is read as TOML when it parses as a TOML value (`3`, `true`,
//! `"x"`, `{ kind = "codel" }`) and as a plain string otherwise (`5Mbps`).

use super::{render_path, Origin, PathSeg, ScenarioError};
use toml_edit::{DocumentMut, Item, TableLike, Value};

fn override_error(key: &str, message: String) -> ScenarioError {
    ScenarioError {
        origin: Origin::Override,
        key: key.to_owned(),
        message,
    }
}

/// Applies `overrides` in order; returns the rendered key paths they set (e.g.
/// `links[0].rate`) with the keys as written (`links.access.rate`), so later errors on
/// them can be blamed on `--set` under the user's key.
pub(super) fn apply(
    doc: &mut DocumentMut,
    overrides: &[(String, String)],
) -> Result<Vec<(String, String)>, ScenarioError> {
    let mut set = Vec::with_capacity(overrides.len());
    for (key, text) in overrides {
        let segs: Vec<&str> = key.split('.').collect();
        if segs.iter().any(|s| s.trim().is_empty()) {
            return Err(override_error(
                key,
                "expected a dotted key like links.access.rate".into(),
            ));
        }
        let value = text
            .parse::<Value>()
            .unwrap_or_else(|_| Value::from(text.as_str()));
        let mut path = Vec::new();
        set_in(doc.as_table_mut(), &segs, value, &mut path, key)?;
        set.push((render_path(&path), key.clone()));
    }
    Ok(set)
}

fn set_in(
    table: &mut dyn TableLike,
    segs: &[&str],
    value: Value,
    path: &mut Vec<PathSeg>,
    key: &str,
) -> Result<(), ScenarioError> {
    let Some((&head, rest)) = segs.split_first() else {
        return Ok(());
    };
    path.push(PathSeg::Key(head.to_owned()));
    if rest.is_empty() {
        table.insert(head, Item::Value(value));
        return Ok(());
    }
    if table.get(head).is_none() {
        table.insert(head, Item::Value(Value::InlineTable(Default::default())));
    }
    let item = table.get_mut(head).expect("inserted above");
    if item.is_table_like() {
        let inner = item.as_table_like_mut().expect("checked table-like");
        return set_in(inner, rest, value, path, key);
    }
    let mut elements: Vec<&mut dyn TableLike> = match item {
        Item::ArrayOfTables(a) => a.iter_mut().map(|t| t as &mut dyn TableLike).collect(),
        Item::Value(Value::Array(a)) => a
            .iter_mut()
            .filter_map(|v| v.as_inline_table_mut().map(|t| t as &mut dyn TableLike))
            .collect(),
        _ => {
            return Err(override_error(
                key,
                format!(
                    "{} is a single value, it has no key {:?}",
                    render_path(path),
                    rest[0]
                ),
            ))
        }
    };
    let (&name, rest) = rest.split_first().expect("rest is not empty");
    let names: Vec<String> = elements
        .iter()
        .filter_map(|t| t.get("name").and_then(Item::as_str).map(str::to_owned))
        .collect();
    let Some(index) = elements
        .iter()
        .position(|t| t.get("name").and_then(Item::as_str) == Some(name))
    else {
        return Err(override_error(
            key,
            format!(
                "no element named {name:?} in {} (names there: {})",
                render_path(path),
                names.join(", ")
            ),
        ));
    };
    if rest.is_empty() {
        return Err(override_error(
            key,
            format!("{name:?} is a whole element; name the key to set, like {key}.rate"),
        ));
    }
    path.push(PathSeg::Index(index));
    set_in(elements.swap_remove(index), rest, value, path, key)
}
