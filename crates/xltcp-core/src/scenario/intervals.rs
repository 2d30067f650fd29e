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

/// The text of a scenario's side file: a regular file of at most
/// [`super::files::MAX_TRACE_BYTES`].
pub(crate) fn read_side_file(path: &Path) -> Result<String, String> {
    super::files::read_named(path, super::files::MAX_TRACE_BYTES)
}

/// Reads and checks the interval file at `path`.
pub(crate) fn read_intervals(path: &Path) -> Result<Vec<(Dur, Dur)>, String> {
    let text = read_side_file(path)?;
    parse_intervals(&text).map_err(|(line, msg)| format!("{}:{line}: {msg}", path.display()))
}

/// Reads and checks the SNR trace at `path`.
pub(crate) fn read_snr_trace(path: &Path) -> Result<Vec<(Dur, f64)>, String> {
    let text = read_side_file(path)?;
    parse_snr_trace(&text).map_err(|(line, msg)| format!("{}:{line}: {msg}", path.display()))
}

/// Parses an SNR trace: one "time snr_db" pair per line (whitespace or a
/// comma between them; times as in interval files), times non-decreasing,
/// at least one point. `Err` is (1-based line, message).
pub(crate) fn parse_snr_trace(text: &str) -> Result<Vec<(Dur, f64)>, (usize, String)> {
    let mut out: Vec<(Dur, f64)> = Vec::new();
    let mut last = 0;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        last = n;
        if n > MAX_LINES {
            return Err((n, format!("more than {MAX_LINES} lines")));
        }
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let words: Vec<&str> = content
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let [t, db] = words[..] else {
            let msg =
                format!("expected \"time snr_db\" (a time and a number in dB), got \"{content}\"");
            return Err((n, msg));
        };
        let at = parse_time(t).map_err(|e| (n, e))?;
        let db: f64 = match db.parse::<f64>() {
            Ok(x) if x.is_finite() => x,
            _ => return Err((n, format!("\"{db}\" is not an SNR in dB (a finite number)"))),
        };
        if out.last().is_some_and(|&(prev, _)| at < prev) {
            return Err((
                n,
                format!("time {t} is before the previous point: times must not decrease"),
            ));
        }
        out.push((at, db));
    }
    if out.is_empty() {
        return Err((last.max(1), "no (time, snr_db) point".to_string()));
    }
    Ok(out)
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
    fn snr_traces() {
        let text = "# time snr_db\n0 20\n1.5, 12.5\n1500ms -3 # a fade\n";
        let expect = vec![
            (Dur::ZERO, 20.0),
            (Dur::from_millis(1500), 12.5),
            (Dur::from_millis(1500), -3.0),
        ];
        assert_eq!(parse_snr_trace(text), Ok(expect));
        assert_eq!(parse_snr_trace("2 1\n1 1").unwrap_err().0, 2);
        assert_eq!(parse_snr_trace("1 x").unwrap_err().0, 1);
        assert_eq!(parse_snr_trace("1 inf").unwrap_err().0, 1);
        assert_eq!(parse_snr_trace("1").unwrap_err().0, 1);
        assert!(parse_snr_trace("# nothing\n")
            .unwrap_err()
            .1
            .contains("no (time"));
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
