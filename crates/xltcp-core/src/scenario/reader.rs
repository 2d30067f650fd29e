//! Typed reading of one table: each getter marks its key as known, converts
//! the value, records a diagnostic on failure and returns the default so
//! that one pass finds every problem. `finish` reports the unknown keys.

use super::diag::{did_you_mean, line_col, Diagnostic, Location};
use super::tree::{Entry, Loc, Node, Table, Val};
use super::units;
use crate::time::Dur;

/// The loading context: where the text came from, and the problems found.
pub(crate) struct Cx<'a> {
    pub origin: &'a str,
    pub text: &'a str,
    pub errors: Vec<Diagnostic>,
    /// The files the scenario extends (`extends = "base.toml"`): origin,
    /// text, and the offset their locations start at (past the scenario's
    /// own text and each other's, so one offset names one file).
    pub bases: Vec<(String, String, usize)>,
    /// When set, every table's keys as the loader asked for them: table
    /// path (array entries as `[]`) -> key -> whether the file wrote it.
    /// The scenario reference and schema are made from this.
    pub keys: Option<std::collections::BTreeMap<String, std::collections::BTreeMap<String, bool>>>,
}

impl Cx<'_> {
    /// Records the text of a file the scenario extends; returns the offset
    /// its locations are shifted by.
    pub fn add_base(&mut self, origin: String, text: String) -> usize {
        let start = self
            .bases
            .last()
            .map_or(self.text.len() + 1, |(_, t, s)| s + t.len() + 1);
        self.bases.push((origin, text, start));
        start
    }

    /// Records a problem with `key` at `loc`.
    pub fn err(&mut self, loc: &Loc, key: &str, message: impl Into<String>, allowed: Option<&str>) {
        let mut origin = self.origin;
        let location = match loc {
            Loc::At(offset) => {
                let base = self.bases.iter().rev().find(|(_, _, s)| offset >= s);
                let (line, col) = match base {
                    Some((o, text, start)) => {
                        origin = o;
                        line_col(text, offset - start)
                    }
                    None => line_col(self.text, *offset),
                };
                Location::File { line, col }
            }
            Loc::Set => Location::Override,
            Loc::Nowhere => Location::Whole,
        };
        self.errors.push(Diagnostic {
            origin: origin.to_string(),
            location,
            key: key.to_string(),
            message: message.into(),
            allowed: allowed.map(str::to_string),
        });
    }
}

/// An empty table, for absent ones.
static EMPTY: Table = Table::new();

/// A table being read.
pub(crate) struct Tab<'t> {
    /// Dotted path of the table ("" for the root).
    pub path: String,
    /// Where the table is (its header or first key), or `Nowhere` if absent.
    pub loc: Loc,
    entries: &'t Table,
    known: Vec<&'static str>,
    /// Written as a table (absent tables and non-table values are not).
    present: bool,
    /// The key that selects what the table describes (`model`, `kind`) is
    /// missing or wrong, so which other keys belong here is unknown: they
    /// are not reported as unknown (one error, not one per key).
    unselected: bool,
}

/// Keys that select what their table describes; the table's other keys
/// depend on their value.
pub(crate) const SELECTORS: &[&str] = &["model", "kind"];

impl<'t> Tab<'t> {
    /// Reads the root table.
    pub fn root(node: &'t Node) -> Tab<'t> {
        let entries = match &node.val {
            Val::Table(t) => t,
            _ => &EMPTY,
        };
        Tab {
            path: String::new(),
            loc: node.loc.clone(),
            entries,
            known: Vec::new(),
            present: true,
            unselected: false,
        }
    }

    /// Reads the table at `node`, reporting a non-table value.
    pub fn of(cx: &mut Cx, path: String, node: &'t Node) -> Tab<'t> {
        let (entries, present) = match &node.val {
            Val::Table(t) => (t, true),
            other => {
                let msg = format!("expected a table, got {}", other.type_name());
                cx.err(&node.loc, &path, msg, None);
                (&EMPTY, false)
            }
        };
        Tab {
            path,
            loc: node.loc.clone(),
            entries,
            known: Vec::new(),
            present,
            unselected: false,
        }
    }

    /// The dotted name of `key` in this table.
    pub fn key(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// Whether this table was written (in the file or by `--set`) as a table.
    pub fn exists(&self) -> bool {
        self.present
    }

    /// The raw value of `key`, marking it known.
    pub fn get(&mut self, key: &'static str) -> Option<&'t Node> {
        self.known.push(key);
        self.entries.get(key).map(|e: &'t Entry| &e.node)
    }

    /// Where `key`'s value is, or the table if the key is absent.
    pub fn loc_of(&self, key: &str) -> Loc {
        self.entries
            .get(key)
            .map_or_else(|| self.loc.clone(), |e| e.node.loc.clone())
    }

    /// Whether `key` is written in this table.
    pub fn has(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// The sub-table `key` (an empty one if absent).
    pub fn table(&mut self, cx: &mut Cx, key: &'static str) -> Tab<'t> {
        let path = self.key(key);
        match self.get(key) {
            Some(node) => Tab::of(cx, path, node),
            None => Tab {
                path,
                loc: Loc::Nowhere,
                entries: &EMPTY,
                known: Vec::new(),
                present: false,
                unselected: false,
            },
        }
    }

    /// The entries of the array of tables `key` (`[[key]]`): none when
    /// absent, and none with an error naming it when it is not an array.
    pub fn tables(&mut self, cx: &mut Cx, key: &'static str) -> &'t [Node] {
        match self.get(key) {
            None => &[],
            Some(Node {
                val: Val::Array(items),
                ..
            }) => items,
            Some(node) => {
                let name = self.key(key);
                let msg = format!(
                    "expected [[{name}]] entries (an array of tables), got {}",
                    node.val.type_name()
                );
                cx.err(&node.loc, &name, msg, Some(&format!("[[{name}]] tables")));
                &[]
            }
        }
    }

    /// Reads `key` with `conv`, or `default` when absent or wrong.
    pub fn read<T>(
        &mut self,
        cx: &mut Cx,
        key: &'static str,
        default: T,
        conv: impl FnOnce(&Val) -> Result<T, String>,
    ) -> T {
        self.read_opt(cx, key, conv).unwrap_or(default)
    }

    /// Reads `key` with `conv`; `None` when absent or wrong.
    pub fn read_opt<T>(
        &mut self,
        cx: &mut Cx,
        key: &'static str,
        conv: impl FnOnce(&Val) -> Result<T, String>,
    ) -> Option<T> {
        let node = self.get(key)?;
        match conv(&node.val) {
            Ok(v) => Some(v),
            Err(msg) => {
                cx.err(&node.loc, &self.key(key), msg, None);
                self.unselected |= SELECTORS.contains(&key);
                None
            }
        }
    }

    /// Reads a required `key`; reports it missing with an example.
    pub fn required<T>(
        &mut self,
        cx: &mut Cx,
        key: &'static str,
        example: &str,
        conv: impl FnOnce(&Val) -> Result<T, String>,
    ) -> Option<T> {
        if !self.has(key) {
            self.known.push(key);
            self.unselected |= SELECTORS.contains(&key);
            let msg = format!("missing; it is required (e.g. {key} = {example})");
            cx.err(&self.loc, &self.key(key), msg, None);
            return None;
        }
        self.read_opt(cx, key, conv)
    }

    /// Reports a rule broken by `key` (at its value, or the table if absent).
    pub fn invalid(&self, cx: &mut Cx, key: &str, message: impl Into<String>, allowed: &str) {
        cx.err(&self.loc_of(key), &self.key(key), message, Some(allowed));
    }

    /// Reports every key nobody asked for, with a suggestion when one is
    /// close; none when the table's selector (`model`, `kind`) was wrong.
    pub fn finish(self, cx: &mut Cx) {
        if let Some(keys) = cx.keys.as_mut() {
            let path: Vec<&str> = self
                .path
                .split('.')
                .map(|s| if s.parse::<usize>().is_ok() { "[]" } else { s })
                .collect();
            let table = keys.entry(path.join(".").replace(".[]", "[]")).or_default();
            for key in &self.known {
                *table.entry(key.to_string()).or_default() |= self.entries.contains_key(*key);
            }
        }
        if self.unselected {
            return;
        }
        for (key, entry) in self.entries {
            if self.known.contains(&key.as_str()) {
                continue;
            }
            let mut msg = String::from("unknown key");
            if let Some(s) = did_you_mean(key, &self.known) {
                msg.push_str(&format!("; did you mean `{s}`?"));
            }
            let mut allowed = self.known.clone();
            allowed.sort_unstable();
            allowed.dedup();
            let allowed = if allowed.is_empty() {
                "no keys here".to_string()
            } else {
                allowed.join(", ")
            };
            cx.err(&entry.key_loc, &self.key(key), msg, Some(&allowed));
        }
    }
}

/// Says what a bare number should have looked like.
fn bare_number(val: &Val, what: &str, example: &str, units: &str) -> String {
    let n = match val {
        Val::Int(i) => i.to_string(),
        Val::Float(f) => f.to_string(),
        _ => String::new(),
    };
    format!(
        "expected {what} like \"{example}\" ({units}), got the bare number {n}; \
         write it as a quoted string with a unit"
    )
}

/// "expected X, got a boolean" for a value of the wrong type.
fn wrong_type(val: &Val, what: &str) -> String {
    format!("expected {what}, got {}", val.type_name())
}

/// A duration string.
pub(crate) fn dur(val: &Val) -> Result<Dur, String> {
    match val {
        Val::Str(s) => units::parse_duration(s),
        Val::Int(_) | Val::Float(_) => Err(bare_number(
            val,
            "a duration",
            "20ms",
            "units: ns, us, ms, s, min, h",
        )),
        _ => Err(wrong_type(val, "a duration like \"20ms\"")),
    }
}

/// The least period of a timer the scenario sets (`sample_interval`,
/// `snr_report`, DSA sensing, `switch_every`, a blockage's `on` and `off`)
/// and of a process's steps (fading `coherence`): each period is an event
/// or a draw, so a period of nanoseconds would make a run take minutes per
/// simulated second. A microsecond keeps it to about a million per
/// simulated second (a fraction of a second of wall time).
pub(crate) const MIN_PERIOD: Dur = Dur::from_micros(1);

/// A period's message when it is shorter than `min`.
fn too_short(text: &str, min: Dur) -> String {
    format!(
        "must be at least {}, got \"{text}\" (each period is a step of the simulation: a \
         shorter one would make the run crawl)",
        units::format_duration(min)
    )
}

/// A duration of at least `min`: the period of a timer.
pub(crate) fn dur_at_least(min: Dur) -> impl FnOnce(&Val) -> Result<Dur, String> {
    move |val| {
        let what = format!("a duration of at least {}", units::format_duration(min));
        match val {
            Val::Str(s) => {
                let d = units::parse_duration(s)?;
                if d < min {
                    return Err(too_short(s, min));
                }
                Ok(d)
            }
            Val::Int(_) | Val::Float(_) => Err(bare_number(
                val,
                &what,
                "100ms",
                "units: ns, us, ms, s, min, h",
            )),
            _ => Err(wrong_type(val, &format!("{what} like \"100ms\""))),
        }
    }
}

/// A period (fixed, or the mean of an exponential) of at least `min`.
pub(crate) fn period_at_least(min: Dur) -> impl FnOnce(&Val) -> Result<super::Period, String> {
    move |val| {
        let what = format!("a period of at least {}", units::format_duration(min));
        match val {
            Val::Str(s) => {
                let p = units::parse_period(s)?;
                let (super::Period::Exp(d) | super::Period::Fixed(d)) = p;
                if d < min {
                    return Err(too_short(s, min));
                }
                Ok(p)
            }
            Val::Int(_) | Val::Float(_) => Err(bare_number(
                val,
                &what,
                "exp(4s)",
                "exponential exp(MEAN) or fixed, with a duration unit",
            )),
            _ => Err(wrong_type(
                val,
                &format!("{what} like \"exp(4s)\" or \"4s\""),
            )),
        }
    }
}

/// A rate string, in bit/s.
pub(crate) fn rate(val: &Val) -> Result<u64, String> {
    match val {
        Val::Str(s) => units::parse_rate(s),
        Val::Int(_) | Val::Float(_) => Err(bare_number(
            val,
            "a rate",
            "10Mbps",
            "units: bps, kbps, Mbps, Gbps",
        )),
        _ => Err(wrong_type(val, "a rate like \"10Mbps\"")),
    }
}

/// A size: a string with a unit, or an integer of bytes.
pub(crate) fn size(val: &Val) -> Result<u64, String> {
    match val {
        Val::Str(s) => units::parse_size(s),
        Val::Int(n) => {
            u64::try_from(*n).map_err(|_| format!("expected a size in bytes >= 0, got {n}"))
        }
        _ => Err(wrong_type(val, "a size like \"1448B\" or \"4MiB\"")),
    }
}

/// A queue limit string.
pub(crate) fn queue(val: &Val) -> Result<super::QueueLimit, String> {
    match val {
        Val::Str(s) => units::parse_queue(s),
        Val::Int(_) | Val::Float(_) => Err(bare_number(
            val,
            "a queue limit",
            "100p",
            "packets: p; or a size: B, KiB, MiB...",
        )),
        _ => Err(wrong_type(val, "a queue limit like \"100p\" or \"256KiB\"")),
    }
}

/// A probability: a number, or a string "1%".
pub(crate) fn prob(val: &Val) -> Result<f64, String> {
    let p = match val {
        Val::Float(f) => *f,
        Val::Int(i) => *i as f64,
        Val::Str(s) => units::parse_probability(s)?,
        _ => return Err(wrong_type(val, "a probability like 0.01 or \"1%\"")),
    };
    if p.is_nan() || p.is_infinite() {
        return Err(format!("expected a finite probability, got {p}"));
    }
    Ok(p)
}

/// A finite number.
pub(crate) fn number(val: &Val) -> Result<f64, String> {
    match val {
        Val::Float(f) if f.is_finite() => Ok(*f),
        Val::Float(f) => Err(format!("expected a finite number, got {f}")),
        Val::Int(i) => Ok(*i as f64),
        _ => Err(wrong_type(val, "a number")),
    }
}

/// A boolean.
pub(crate) fn boolean(val: &Val) -> Result<bool, String> {
    match val {
        Val::Bool(b) => Ok(*b),
        _ => Err(wrong_type(val, "true or false")),
    }
}

/// An integer in `lo..=hi`.
pub(crate) fn int_in(lo: i128, hi: i128) -> impl FnOnce(&Val) -> Result<i128, String> {
    move |val| match val {
        Val::Int(n) if (lo..=hi).contains(n) => Ok(*n),
        Val::Int(n) => Err(format!("expected an integer in {lo}..={hi}, got {n}")),
        _ => Err(wrong_type(val, &format!("an integer in {lo}..={hi}"))),
    }
}

/// A seed: an integer >= 0, or a string of digits for seeds above 2^63 - 1
/// (TOML integers are signed 64-bit).
pub(crate) fn seed(val: &Val) -> Result<u64, String> {
    let parsed = match val {
        Val::Int(n) => u64::try_from(*n).ok(),
        Val::Str(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| match val {
        Val::Int(n) => format!("expected a seed in 0..=18446744073709551615, got {n}"),
        Val::Str(s) => format!("expected a seed in 0..=18446744073709551615, got \"{s}\""),
        other => wrong_type(other, "an integer seed"),
    })
}

/// A string.
pub(crate) fn string(val: &Val) -> Result<String, String> {
    match val {
        Val::Str(s) => Ok(s.clone()),
        _ => Err(wrong_type(val, "a string")),
    }
}

/// One of `options` (a string), as its value.
pub(crate) fn choice<T: Copy>(
    options: &'static [(&'static str, T)],
) -> impl FnOnce(&Val) -> Result<T, String> {
    move |val| {
        let names: Vec<String> = options.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        let names = names.join(", ");
        match val {
            Val::Str(s) => options
                .iter()
                .find(|(n, _)| n == s)
                .map(|(_, v)| *v)
                .ok_or_else(|| format!("expected one of {names}, got \"{s}\"")),
            _ => Err(wrong_type(val, &format!("one of {names}"))),
        }
    }
}
