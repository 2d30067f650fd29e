//! TOML syntax errors said in the scenario's words.
//!
//! The TOML parser reports a table written twice (`[flow]` ... `[flow]`,
//! the usual slip for `[[flow]]`) as a bare "duplicate key" at the second
//! header and again at every key the second table repeats. This turns that
//! into one error naming the table, the line of its first header and the
//! `[[flow]]` fix, and names the key of a key set twice.

/// A syntax error: where (byte offset), the key it concerns ("" if none),
/// and the message.
pub(crate) type Explained = (Option<usize>, String, String);

/// The parser's errors, with duplicate tables and keys explained and the
/// echoes of a duplicate table (its repeated keys) left out.
pub(crate) fn explain(text: &str, errors: Vec<(Option<usize>, String)>) -> Vec<Explained> {
    let mut out = Vec::new();
    // Lines of the headers reported as duplicates: keys under them repeat
    // the first table's keys only because the table is repeated.
    let mut duplicate_headers: Vec<usize> = Vec::new();
    for (offset, msg) in errors {
        let Some(at) = offset.filter(|_| msg.starts_with("duplicate key")) else {
            out.push((offset, String::new(), msg));
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let line_no = text[..at.min(text.len())].matches('\n').count();
        let line = lines.get(line_no).map_or("", |l| l.trim());
        if let Some(name) = header_name(line) {
            duplicate_headers.push(line_no);
            let first = lines[..line_no]
                .iter()
                .position(|l| header_name(l.trim()).as_deref() == Some(name.as_str()));
            let first = first.map_or(String::new(), |i| format!(" (first on line {})", i + 1));
            let message = if line.starts_with("[[") {
                format!(
                    "[[{name}]] follows a [{name}] table{first}; \
                     write every entry as [[{name}]]"
                )
            } else {
                format!(
                    "duplicate table [{name}]{first}; for several entries \
                     write each as [[{name}]] (an array of tables)"
                )
            };
            out.push((Some(at), name, message));
            continue;
        }
        let header = lines[..line_no]
            .iter()
            .rposition(|l| header_name(l.trim()).is_some());
        if header.is_some_and(|h| duplicate_headers.contains(&h)) {
            continue;
        }
        let key = line.split('=').next().unwrap_or("").trim().to_string();
        let table = header.and_then(|h| header_name(lines[h].trim()));
        let scope = table
            .as_ref()
            .map_or("the top level".to_string(), |t| format!("[{t}]"));
        let message = format!("duplicate key `{key}`: it is already set in {scope}");
        let dotted = table.map_or(key.clone(), |t| format!("{t}.{key}"));
        out.push((Some(at), dotted, message));
    }
    out
}

/// `flow` for a `[flow]` or `[[flow]]` header line (comments allowed after).
fn header_name(line: &str) -> Option<String> {
    let inner = line.strip_prefix('[')?;
    let inner = inner.strip_prefix('[').unwrap_or(inner);
    let end = inner.find(']')?;
    let name: String = inner[..end]
        .split('.')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(".");
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use crate::scenario::load_str;
    use std::path::Path;

    fn errors(text: &str) -> Vec<String> {
        let e = load_str(text, "s.toml", Path::new("."), &[]).unwrap_err();
        e.errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_table_written_twice_is_one_error_naming_the_array_fix() {
        let text = "[sim]\nduration = \"1s\"\n[flow]\nname = \"a\"\nstart = \"0s\"\n\
                    [flow]\nname = \"b\"\nstart = \"1s\"\n";
        let errors = errors(text);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with(
                "s.toml:6:2: flow: TOML syntax: duplicate table [flow] (first on line 3)"
            ),
            "{}",
            errors[0]
        );
        assert!(
            errors[0].contains("write each as [[flow]]"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn a_key_written_twice_is_named_with_its_table() {
        let errors = errors("[sim]\nduration = \"1s\"\nduration = \"2s\"\n");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(
            errors[0],
            "s.toml:3:1: sim.duration: TOML syntax: duplicate key `duration`: \
             it is already set in [sim]"
        );
    }

    #[test]
    fn header_names_are_read_from_both_kinds_of_header() {
        assert_eq!(super::header_name("[flow] # x").as_deref(), Some("flow"));
        assert_eq!(super::header_name("[[ flow ]]").as_deref(), Some("flow"));
        assert_eq!(super::header_name("[ a . b ]").as_deref(), Some("a.b"));
        assert_eq!(super::header_name("name = 1"), None);
    }
}
