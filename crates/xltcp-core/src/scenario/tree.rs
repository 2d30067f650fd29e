//! The parsed document as an owned tree that remembers where each key and
//! value came from (a byte offset in the file, or a `--set` override), and
//! the application of `--set KEY=VALUE` overrides to it.
//!
//! Override keys are dotted paths; a `[[flow]]` entry is addressed by its
//! index from 0 (`flow.0.start=1s`) and `*` addresses every entry
//! (`flow.*.tcp.sack=false`). Quoted keys are not supported. The value is
//! read as a TOML value when it is one (`0.05`, `false`, `"x"`, `[1, 2]`),
//! else taken as a string, so `sim.duration=10s` works unquoted.

use std::collections::BTreeMap;

use toml::de::{DeTable, DeValue};

/// Where a key or value came from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Loc {
    /// Byte offset in the scenario text.
    At(usize),
    /// A `--set` override.
    Set,
    /// Nowhere in particular (an absent table).
    Nowhere,
}

/// A value with its location.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub loc: Loc,
    pub val: Val,
}

/// A key with the location of the key itself, and its value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub key_loc: Loc,
    pub node: Node,
}

/// A table: keys in sorted order (diagnostics are sorted by location anyway).
pub(crate) type Table = BTreeMap<String, Entry>;

/// A TOML value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Str(String),
    Int(i128),
    Float(f64),
    Bool(bool),
    /// A value no key accepts (a datetime); the name is for messages.
    Other(&'static str),
    Array(Vec<Node>),
    Table(Table),
}

impl Val {
    /// "a string", "an integer", ... for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Str(_) => "a string",
            Val::Int(_) => "an integer",
            Val::Float(_) => "a float",
            Val::Bool(_) => "a boolean",
            Val::Other(name) => name,
            Val::Array(_) => "an array",
            Val::Table(_) => "a table",
        }
    }
}

/// Converts a parsed TOML value (with spans) into a [`Node`]; `set` marks
/// every location as coming from an override.
fn convert(v: &toml::Spanned<DeValue<'_>>, set: bool) -> Node {
    let loc = if set {
        Loc::Set
    } else {
        Loc::At(v.span().start)
    };
    let val = match v.get_ref() {
        DeValue::String(s) => Val::Str(s.to_string()),
        DeValue::Integer(i) => match i128::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => Val::Int(n),
            Err(_) => Val::Other("an out-of-range integer"),
        },
        DeValue::Float(f) => Val::Float(parse_float(f.as_str())),
        DeValue::Boolean(b) => Val::Bool(*b),
        DeValue::Datetime(_) => Val::Other("a datetime"),
        DeValue::Array(a) => Val::Array(a.iter().map(|e| convert(e, set)).collect()),
        DeValue::Table(t) => Val::Table(convert_table(t, set)),
    };
    Node { loc, val }
}

/// A TOML float's text as f64 ("inf", "+inf", "-inf", "nan" included).
fn parse_float(text: &str) -> f64 {
    let t = text.replace('_', "");
    match t.trim_start_matches(['+', '-']) {
        "nan" => f64::NAN,
        "inf" if t.starts_with('-') => f64::NEG_INFINITY,
        "inf" => f64::INFINITY,
        _ => t.parse().unwrap_or(f64::NAN),
    }
}

fn convert_table(t: &DeTable<'_>, set: bool) -> Table {
    t.iter()
        .map(|(k, v)| {
            let key_loc = if set {
                Loc::Set
            } else {
                Loc::At(k.span().start)
            };
            let entry = Entry {
                key_loc,
                node: convert(v, set),
            };
            (k.get_ref().to_string(), entry)
        })
        .collect()
}

/// Parses a whole document. `Err` holds (byte offset, message) per syntax error.
pub(crate) fn parse_document(text: &str) -> Result<Node, Vec<(Option<usize>, String)>> {
    let (doc, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .map(|e| (e.span().map(|s| s.start), e.message().trim().to_string()))
            .collect());
    }
    Ok(Node {
        loc: Loc::At(doc.span().start),
        val: Val::Table(convert_table(doc.get_ref(), false)),
    })
}

/// Parses the value of an override: a TOML value if it is one, else a string.
fn parse_override_value(text: &str) -> Node {
    match DeValue::parse(text) {
        Ok(v) => convert(&v, true),
        Err(_) => Node {
            loc: Loc::Set,
            val: Val::Str(text.trim().to_string()),
        },
    }
}

/// One `--set KEY=VALUE` override, split and checked for shape.
#[derive(Clone, Debug)]
pub(crate) struct Override {
    /// The key as written.
    pub key: String,
    path: Vec<String>,
    value: Node,
}

/// Splits `KEY=VALUE`; `Err` is (key or whole text, message).
pub(crate) fn parse_override(text: &str) -> Result<Override, (String, String)> {
    let Some((key, value)) = text.split_once('=') else {
        return Err((
            text.trim().to_string(),
            format!("expected KEY=VALUE (e.g. sim.duration=10s), got \"{text}\""),
        ));
    };
    let key = key.trim().to_string();
    let path: Vec<String> = key.split('.').map(|s| s.trim().to_string()).collect();
    if path.iter().any(String::is_empty) {
        return Err((key, "empty part in a dotted key".to_string()));
    }
    Ok(Override {
        key,
        path,
        value: parse_override_value(value),
    })
}

/// Applies `ov` to the document; `Err` is a message about the key.
pub(crate) fn apply_override(root: &mut Node, ov: &Override) -> Result<(), String> {
    set_path(root, &ov.path, 0, &ov.value)
}

fn set_path(node: &mut Node, path: &[String], depth: usize, value: &Node) -> Result<(), String> {
    let Some(seg) = path.get(depth) else {
        *node = value.clone();
        return Ok(());
    };
    let prefix = || path[..depth].join(".");
    let last = depth + 1 == path.len();
    match &mut node.val {
        Val::Table(t) => {
            if seg == "*" || seg.parse::<usize>().is_ok() {
                return Err(format!("`{}` is a table, not a list", prefix()));
            }
            let entry = t.entry(seg.clone()).or_insert_with(|| Entry {
                key_loc: Loc::Set,
                node: Node {
                    loc: Loc::Set,
                    val: Val::Table(Table::new()),
                },
            });
            if !last && !matches!(entry.node.val, Val::Table(_) | Val::Array(_)) {
                return Err(format!(
                    "`{}` is a value, not a table",
                    path[..=depth].join(".")
                ));
            }
            set_path(&mut entry.node, path, depth + 1, value)
        }
        Val::Array(items) => {
            if seg == "*" {
                for item in items.iter_mut() {
                    set_path(item, path, depth + 1, value)?;
                }
                return Ok(());
            }
            let len = items.len();
            let item = seg
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get_mut(i))
                .ok_or_else(|| {
                    format!(
                        "`{}` has {len} entries: address one by its index from 0 (`{}.0`) or all with `*`, got `{seg}`",
                        prefix(),
                        prefix()
                    )
                })?;
            set_path(item, path, depth + 1, value)
        }
        _ => Err(format!("`{}` is a value, not a table", prefix())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        parse_document(text).unwrap()
    }

    fn get<'a>(n: &'a Node, key: &str) -> &'a Node {
        let Val::Table(t) = &n.val else {
            panic!("not a table")
        };
        &t[key].node
    }

    #[test]
    fn keeps_locations() {
        let text = "[sim]\nduration = \"10s\"\n";
        let d = doc(text);
        let sim = get(&d, "sim");
        let Val::Table(t) = &sim.val else { panic!() };
        assert_eq!(t["duration"].key_loc, Loc::At(6));
        assert_eq!(t["duration"].node.loc, Loc::At(17));
        assert_eq!(t["duration"].node.val, Val::Str("10s".into()));
    }

    #[test]
    fn syntax_errors_have_offsets() {
        let errs = parse_document("[sim\nx = 1").unwrap_err();
        assert!(!errs.is_empty());
        assert!(errs[0].0.is_some());
    }

    #[test]
    fn override_values_are_toml_or_strings() {
        let ov = |s: &str| parse_override(s).unwrap().value.val;
        assert_eq!(ov("a=0.05"), Val::Float(0.05));
        assert_eq!(ov("a=false"), Val::Bool(false));
        assert_eq!(ov("a=\"x\""), Val::Str("x".into()));
        assert_eq!(ov("a=10s"), Val::Str("10s".into()));
        assert_eq!(ov("a=7"), Val::Int(7));
        assert_eq!(ov("a=exp(4s)"), Val::Str("exp(4s)".into()));
        assert!(parse_override("novalue").is_err());
        assert!(parse_override("a..b=1").is_err());
    }

    #[test]
    fn overrides_create_replace_and_address_arrays() {
        let mut d = doc("[sim]\nseed = 1\n[[flow]]\napp = \"bulk\"\n[[flow]]\n");
        apply_override(&mut d, &parse_override("sim.seed=2").unwrap()).unwrap();
        apply_override(&mut d, &parse_override("wireless.loss.down.p=0.5").unwrap()).unwrap();
        apply_override(&mut d, &parse_override("flow.1.start=1s").unwrap()).unwrap();
        apply_override(&mut d, &parse_override("flow.*.app=file").unwrap()).unwrap();
        let sim = get(&d, "sim");
        assert_eq!(get(sim, "seed").val, Val::Int(2));
        assert_eq!(get(sim, "seed").loc, Loc::Set);
        let p = get(get(get(get(&d, "wireless"), "loss"), "down"), "p");
        assert_eq!(p.val, Val::Float(0.5));
        let Val::Array(flows) = &get(&d, "flow").val else {
            panic!()
        };
        assert_eq!(get(&flows[1], "start").val, Val::Str("1s".into()));
        assert_eq!(get(&flows[0], "app").val, Val::Str("file".into()));
        assert_eq!(get(&flows[1], "app").val, Val::Str("file".into()));
    }

    #[test]
    fn override_path_errors() {
        let mut d = doc("[sim]\nseed = 1\n[[flow]]\n");
        let err =
            |d: &mut Node, s: &str| apply_override(d, &parse_override(s).unwrap()).unwrap_err();
        assert_eq!(
            err(&mut d, "sim.seed.x=1"),
            "`sim.seed` is a value, not a table"
        );
        assert_eq!(err(&mut d, "sim.0=1"), "`sim` is a table, not a list");
        assert_eq!(
            err(&mut d, "flow.3.app=bulk"),
            "`flow` has 1 entries: address one by its index from 0 (`flow.0`) or all with `*`, got `3`"
        );
    }
}
