//! Blocked intervals: files for `availability.model = "file"` (one
//! "start end" pair per line, in seconds ("1.5") or with a unit ("1500ms");
//! `#` starts a comment; blank lines are skipped) and inline lists for
//! `model = "intervals"` (`intervals = [["1s", "2.5s"], ...]`). Intervals
//! are half-open [start, end), sorted and disjoint (touching is allowed).

use std::path::Path;

use super::tree::Val;
use super::units::parse_duration;
use crate::time::Dur;

/// Most lines an interval file may have (keeps memory bounded).
const MAX_LINES: usize = 1_000_000;

/// Largest interval file read (bytes).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads and checks the interval file at `path`.
pub(crate) fn read_intervals(path: &Path) -> Result<Vec<(Dur, Dur)>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read \"{}\": {e}", path.display()))?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        let why = "not a regular file of at most 64 MiB";
        return Err(format!("cannot read \"{}\": {why}", path.display()));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read \"{}\": {e}", path.display()))?;
    parse_intervals(&text).map_err(|(line, msg)| format!("{}:{line}: {msg}", path.display()))
}

/// One time: plain seconds, or a duration with a unit.
fn parse_time(word: &str) -> Result<Dur, String> {
    let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_digit() || c == '.');
    if plain {
        parse_duration(&format!("{word}s"))
    } else {
        parse_duration(word)
    }
}

/// Parses interval text; `Err` is (1-based line, message).
pub(crate) fn parse_intervals(text: &str) -> Result<Vec<(Dur, Dur)>, (usize, String)> {
    let mut out: Vec<(Dur, Dur)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if n > MAX_LINES {
            return Err((n, format!("more than {MAX_LINES} lines")));
        }
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let words: Vec<&str> = content.split_whitespace().collect();
        let [a, b] = words[..] else {
            let msg = format!("expected \"start end\" (two times), got \"{content}\"");
            return Err((n, msg));
        };
        push_checked(&mut out, a, b).map_err(|e| (n, e))?;
    }
    Ok(out)
}

/// Appends [a, b) to `out` after checking it is non-empty and after the last one.
fn push_checked(out: &mut Vec<(Dur, Dur)>, a: &str, b: &str) -> Result<(), String> {
    let start = parse_time(a)?;
    let end = parse_time(b)?;
    if start >= end {
        return Err(format!(
            "the interval {a} {b} is empty (start must be before end)"
        ));
    }
    if let Some(&(_, prev_end)) = out.last() {
        if start < prev_end {
            return Err(format!(
                "starts at {a}, before the previous interval ends: intervals must be sorted and disjoint"
            ));
        }
    }
    out.push((start, end));
    Ok(())
}

/// An inline list `[["1s", "2.5s"], ...]` (numbers are seconds). The outer
/// `Err` is a type error; the inner one a broken rule.
pub(crate) fn from_val(val: &Val) -> Result<Result<Vec<(Dur, Dur)>, String>, String> {
    let expected = "expected a list of [start, end] pairs like [[\"1s\", \"2.5s\"]]";
    let Val::Array(items) = val else {
        return Err(format!("{expected}, got {}", val.type_name()));
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let pair = match &item.val {
            Val::Array(p) if p.len() == 2 => [&p[0].val, &p[1].val].map(time_word),
            other => return Err(format!("{expected}; entry {i} is {}", other.type_name())),
        };
        let [Some(a), Some(b)] = pair else {
            return Err(format!("{expected}; entry {i} is not two times"));
        };
        if let Err(e) = push_checked(&mut out, &a, &b) {
            return Ok(Err(format!("entry {i}: {e}")));
        }
    }
    Ok(Ok(out))
}

/// A time in an inline list as the text `parse_time` reads.
fn time_word(v: &Val) -> Option<String> {
    match v {
        Val::Str(s) => Some(s.clone()),
        Val::Int(n) if *n >= 0 => Some(n.to_string()),
        Val::Float(f) if f.is_finite() && *f >= 0.0 => Some(format!("{f}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pairs_comments_and_units() {
        let text = "# blocked\n1 2.5\n\n  3 3500ms # short\n3.5 4\n";
        let expect = vec![
            (Dur::from_secs(1), Dur::from_millis(2500)),
            (Dur::from_secs(3), Dur::from_millis(3500)),
            (Dur::from_millis(3500), Dur::from_secs(4)),
        ];
        assert_eq!(parse_intervals(text), Ok(expect));
        assert_eq!(parse_intervals(""), Ok(vec![]));
    }

    #[test]
    fn refuses_bad_lines() {
        assert_eq!(parse_intervals("1 2\n3").unwrap_err().0, 2);
        assert_eq!(parse_intervals("2 1").unwrap_err().0, 1);
        assert_eq!(parse_intervals("1 1").unwrap_err().0, 1);
        let overlap = parse_intervals("1 3\n2 4").unwrap_err();
        assert_eq!(overlap.0, 2);
        assert!(overlap.1.contains("sorted and disjoint"));
        assert_eq!(parse_intervals("5 6\n1 2").unwrap_err().0, 2);
        assert!(parse_intervals("-1 2").is_err());
        assert!(parse_intervals("1 x").is_err());
        assert!(parse_intervals("1 2 3").is_err());
    }

    #[test]
    fn inline_lists() {
        let doc = super::super::tree::parse_document(
            "a = [[1, \"2.5s\"], [3.5, 4]]\nb = [[2, 1]]\nc = [1]",
        )
        .unwrap();
        let Val::Table(t) = doc.val else { panic!() };
        let expect = vec![
            (Dur::from_secs(1), Dur::from_millis(2500)),
            (Dur::from_millis(3500), Dur::from_secs(4)),
        ];
        assert_eq!(from_val(&t["a"].node.val), Ok(Ok(expect)));
        assert!(from_val(&t["b"].node.val)
            .unwrap()
            .unwrap_err()
            .starts_with("entry 0: the interval 2 1 is empty"));
        assert!(from_val(&t["c"].node.val)
            .unwrap_err()
            .contains("entry 0 is an integer"));
    }
}
