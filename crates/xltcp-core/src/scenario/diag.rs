//! Diagnostics: every problem found in a scenario, with where it is, which
//! key, what is wrong and what is allowed.

use std::fmt;

/// Where a problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// In the scenario file, 1-based line and column (in characters).
    File {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        col: usize,
    },
    /// In a `--set KEY=VALUE` override (the key is the diagnostic's key).
    Override,
    /// The scenario as a whole (a missing key or table, no flows).
    Whole,
}

/// One problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file the scenario came from (its path or the origin given to `load_str`).
    pub origin: String,
    /// Where in it.
    pub location: Location,
    /// The dotted key, e.g. `wireless.loss.down.p` or `flow.0.size`; empty
    /// for syntax errors.
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// What would be accepted, when that can be said in a few words.
    pub allowed: Option<String>,
}

impl fmt::Display for Diagnostic {
    /// `FILE:LINE:COL: KEY: message (allowed: ...)`, or `--set KEY: ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Location::File { line, col } => write!(f, "{}:{line}:{col}: ", self.origin)?,
            Location::Override => write!(f, "--set ")?,
            Location::Whole => write!(f, "{}: ", self.origin)?,
        }
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        write!(f, "{}", self.message)?;
        if let Some(allowed) = &self.allowed {
            write!(f, " (allowed: {allowed})")?;
        }
        Ok(())
    }
}

/// Why a scenario could not be loaded: every problem found in one pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The problems, in the order they were found (file order, mostly).
    pub errors: Vec<Diagnostic>,
}

impl fmt::Display for ScenarioError {
    /// One diagnostic per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// 1-based (line, column in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Edit distance between two short strings, counting a swap of two
/// neighbouring characters as one edit (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The known key closest to `unknown`, if it is close enough to be a typo.
pub(crate) fn did_you_mean<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    if unknown.chars().count() > 64 {
        return None;
    }
    let lower = unknown.to_lowercase();
    known
        .iter()
        .map(|k| (edit_distance(&lower, k), *k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(1))
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_formats() {
        let mut d = Diagnostic {
            origin: "demo.toml".into(),
            location: Location::File { line: 3, col: 7 },
            key: "wireless.loss.down.p".into(),
            message: "must be below 1, got 1.5".into(),
            allowed: Some("0 <= p < 1".into()),
        };
        assert_eq!(
            d.to_string(),
            "demo.toml:3:7: wireless.loss.down.p: must be below 1, got 1.5 (allowed: 0 <= p < 1)"
        );
        d.location = Location::Override;
        d.allowed = None;
        assert_eq!(
            d.to_string(),
            "--set wireless.loss.down.p: must be below 1, got 1.5"
        );
        d.location = Location::Whole;
        d.key.clear();
        assert_eq!(d.to_string(), "demo.toml: must be below 1, got 1.5");
    }

    #[test]
    fn line_and_column() {
        let t = "a = 1\nbé = 2\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, 10), (2, 4)); // after "bé " (é is 2 bytes)
        assert_eq!(line_col(t, 999), (3, 1));
        assert_eq!(line_col(t, 8), (2, 2)); // inside é: backs up to its start
    }

    #[test]
    fn suggestions() {
        let known = ["duration", "seed", "sample_interval"];
        assert_eq!(did_you_mean("duraton", &known), Some("duration"));
        assert_eq!(did_you_mean("Seed", &known), Some("seed"));
        assert_eq!(did_you_mean("colour", &known), None);
        assert_eq!(did_you_mean("strat", &["start", "name"]), Some("start"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
