//! The catalogue of scenario keys, made by asking the loader itself, so
//! that the scenario reference (`docs/scenario-reference.md`) and the JSON
//! Schema shipped for editors cannot drift from what `load_file` accepts.
//!
//! Starting from some scenario files, every table the loader reads records
//! the keys it asked for. Each key is then probed with a value of the wrong
//! type; the loader's own message says what it expects ("a duration like
//! \"20ms\"", "one of \"iid\", \"gilbert\"", "an integer in 1..=10000").
//! Keys that select a variant (`model`, `kind`) are set to each of their
//! values in turn, which reveals the keys of every variant. A key's default
//! is its value in the scenario echo of a valid file that does not set it.
//! A key added to the loader appears here with no other change, once some
//! file, or some variant of one, reaches the table that reads it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::load::{load_recording, KeyRecord};
use super::{echo, Location};

/// One key of a scenario file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyInfo {
    /// The table, dotted; `[]` marks an array of tables (`flow[]`); "" for
    /// the top level.
    pub table: String,
    /// The key.
    pub key: String,
    /// What the loader expects, in its words ("a rate like \"10Mbps\"").
    pub expects: String,
    /// The allowed values, for a key that takes one of a few.
    pub allowed: Vec<String>,
    /// The value when the key is left out, as the echo writes it, if a
    /// valid file showed it.
    pub default: Option<serde_json::Value>,
}

/// The most file-and-overrides combinations explored.
const MAX_CONTEXTS: usize = 4000;

/// A file with overrides.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Context {
    file: PathBuf,
    overrides: Vec<String>,
}

struct Explorer {
    texts: BTreeMap<PathBuf, String>,
}

impl Explorer {
    fn load(&self, c: &Context, extra: Option<&str>, record: bool) -> super::load::Loaded {
        let text = &self.texts[&c.file];
        let mut overrides = c.overrides.clone();
        overrides.extend(extra.map(str::to_string));
        let origin = c.file.display().to_string();
        let dir = c.file.parent().unwrap_or(Path::new("."));
        load_recording(text, &origin, dir, &overrides, record)
    }
}

/// `table.key` as an override path, array entries as their first (`flow.0`).
fn override_path(table: &str, key: &str) -> String {
    let table = table.replace("[]", ".0");
    if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    }
}

/// What the loader says `path` expects, from its complaint about a wrong value.
fn probe(ex: &Explorer, c: &Context, path: &str) -> Option<String> {
    for wrong in ["true", "\"\\u0001\"", "[[1]]"] {
        let (result, _) = ex.load(c, Some(&format!("{path}={wrong}")), false);
        let Err(e) = result else { continue };
        let said = e.errors.iter().find(|d| {
            d.key == path && d.location == Location::Override && d.message.starts_with("expected ")
        });
        if let Some(d) = said {
            let text = d.message.trim_start_matches("expected ");
            let text = text.rsplit_once(", got").map_or(text, |(a, _)| a);
            return Some(text.to_string());
        }
    }
    None
}

/// `"a", "b"` of an "one of ..." expectation.
fn choices(expects: &str) -> Vec<String> {
    match expects.strip_prefix("one of ") {
        Some(list) => list
            .split(", ")
            .map(|s| s.trim().trim_matches('"').to_string())
            .collect(),
        None => Vec::new(),
    }
}

/// The value at `table.key` of an echo.
fn lookup<'a>(
    echo: &'a serde_json::Value,
    table: &str,
    key: &str,
) -> Option<&'a serde_json::Value> {
    let mut v = echo;
    for part in table.split('.').filter(|s| !s.is_empty()) {
        let (name, array) = match part.strip_suffix("[]") {
            Some(name) => (name, true),
            None => (part, false),
        };
        v = v.get(name)?;
        if array {
            v = v.get(0)?;
        }
    }
    v.get(key)
}

/// Every key the loader reads, explored from `files`.
pub fn catalog(files: &[PathBuf]) -> std::io::Result<Vec<KeyInfo>> {
    let mut ex = Explorer {
        texts: BTreeMap::new(),
    };
    for f in files {
        let text = super::files::read_named(f, super::files::MAX_SCENARIO_BYTES)
            .map_err(std::io::Error::other)?;
        ex.texts.insert(f.clone(), text);
    }
    let mut queue: Vec<Context> = files
        .iter()
        .map(|f| Context {
            file: f.clone(),
            overrides: Vec::new(),
        })
        .collect();
    let mut seen: BTreeSet<Context> = queue.iter().cloned().collect();
    // (table, key) -> the first context that reached it.
    let mut keys: BTreeMap<(String, String), Context> = BTreeMap::new();
    let mut expects: BTreeMap<(String, String), Option<String>> = BTreeMap::new();
    // The echoed value of a key left out; `None` once two files disagree
    // (a default that depends on the file, like `name`).
    let mut defaults: BTreeMap<(String, String), Option<serde_json::Value>> = BTreeMap::new();
    while let Some(c) = queue.pop() {
        let (result, record) = ex.load(&c, None, true);
        let record: KeyRecord = record.unwrap_or_default();
        let echoed = result.ok().map(|s| echo(&s));
        for (table, entries) in &record {
            for (key, written) in entries {
                let id = (table.clone(), key.clone());
                if let (Some(e), false, true) = (&echoed, written, c.overrides.is_empty()) {
                    let value = lookup(e, table, key).cloned();
                    let agreed = defaults.entry(id.clone()).or_insert_with(|| value.clone());
                    if *agreed != value {
                        *agreed = None;
                    }
                }
                if keys.contains_key(&id) {
                    continue;
                }
                keys.insert(id.clone(), c.clone());
                let path = override_path(table, key);
                let said = probe(&ex, &c, &path);
                if super::reader::SELECTORS.contains(&key.as_str()) {
                    for value in choices(said.as_deref().unwrap_or("")) {
                        let mut next = c.clone();
                        next.overrides.push(format!("{path}=\"{value}\""));
                        if seen.len() < MAX_CONTEXTS && seen.insert(next.clone()) {
                            queue.push(next);
                        }
                    }
                }
                expects.insert(id, said);
            }
        }
    }
    Ok(keys
        .into_keys()
        .map(|id| {
            let said = expects.get(&id).cloned().flatten();
            KeyInfo {
                allowed: choices(said.as_deref().unwrap_or("")),
                expects: said.unwrap_or_else(|| "any value".to_string()),
                default: defaults.get(&id).cloned().flatten(),
                table: id.0,
                key: id.1,
            }
        })
        .collect())
}
