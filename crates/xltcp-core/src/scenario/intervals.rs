//! Blocked-interval files for `availability.model = "file"`: one
//! "start end" pair per line, in seconds ("1.5") or with a unit ("1500ms");
//! `#` starts a comment; blank lines are skipped. Intervals are half-open
//! [start, end), sorted and disjoint (touching is allowed).

use std::path::Path;

use super::units::parse_duration;
use crate::time::Dur;

/// Most lines an interval file may have (keeps memory bounded).
const MAX_LINES: usize = 1_000_000;

/// Reads and checks the interval file at `path`.
pub(crate) fn read_intervals(path: &Path) -> Result<Vec<(Dur, Dur)>, String> {
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
            return Err((
                n,
                format!("expected \"start end\" (two times), got \"{content}\""),
            ));
        };
        let start = parse_time(a).map_err(|e| (n, e))?;
        let end = parse_time(b).map_err(|e| (n, e))?;
        if start >= end {
            return Err((
                n,
                format!("the interval {a} {b} is empty (start must be before end)"),
            ));
        }
        if let Some(&(_, prev_end)) = out.last() {
            if start < prev_end {
                return Err((n, format!("starts at {a}, before the previous interval ends: intervals must be sorted and disjoint")));
            }
        }
        out.push((start, end));
    }
    Ok(out)
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
}
