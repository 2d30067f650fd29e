//! The loader never panics: arbitrary text, token soup, random mutations of
//! a valid scenario, random overrides. Every input gives `Ok` or `Err`, and
//! every `Err` has at least one diagnostic.

use std::path::Path;

use proptest::prelude::*;

use super::*;

const VALID: &str = include_str!("../../../../scenarios/demo.toml");

/// Pieces a scenario is made of, to build near-valid documents.
const TOKENS: &[&str] = &[
    "\n",
    " ",
    "=",
    "[",
    "]",
    "[[flow]]\n",
    "[flow.tcp]\n",
    "[sim]\n",
    "[tcp]\n",
    "[wired]\n",
    "[wireless]\n",
    "[wireless.loss.down]\n",
    "[wireless.availability]\n",
    "[output]\n",
    "duration",
    "rate",
    "delay",
    "queue",
    "model",
    "p",
    "mean_loss",
    "mean_burst",
    "on",
    "off",
    "count",
    "size",
    "app",
    "mss",
    "min_rto",
    "max_rto",
    "name",
    "start",
    "file",
    "\"10ms\"",
    "\"10Mbps\"",
    "\"100p\"",
    "\"exp(4s)\"",
    "\"iid\"",
    "\"gilbert\"",
    "\"onoff\"",
    "\"file\"",
    "\"bulk\"",
    "0.5",
    "1.0",
    "3",
    "-1",
    "0",
    "1e400",
    "nan",
    "inf",
    "true",
    "\"1%\"",
    "99999999999999999999",
    "\"\"",
    "{",
    "}",
    ",",
    "#",
    "\"",
    "'",
    "\u{e9}",
    "\u{1F600}",
];

/// Values of every type and unit, valid and not.
const VALUES: &[&str] = &[
    "\"10ms\"",
    "\"0s\"",
    "\"10Mbps\"",
    "\"0bps\"",
    "\"100p\"",
    "\"0p\"",
    "\"1KiB\"",
    "\"exp(4s)\"",
    "\"iid\"",
    "\"gilbert\"",
    "\"onoff\"",
    "\"intervals\"",
    "\"file\"",
    "\"always\"",
    "\"bulk\"",
    "\"up\"",
    "\"1%\"",
    "\"4MiB\"",
    "0.5",
    "0.99",
    "1.0",
    "3",
    "-1",
    "0",
    "100000",
    "nan",
    "inf",
    "true",
    "false",
    "\"\"",
    "[]",
    "[[1, 2]]",
    "{}",
    "1979-05-27",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|t| t.concat())
}

/// One edit of a text: delete, insert or replace a span at a char boundary.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    Replace(usize, usize, String),
    DuplicateLine(usize),
    /// Replace the value of the n-th `key = value` line.
    ReplaceValue(usize, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    let text = prop_oneof![
        prop::sample::select(TOKENS).prop_map(str::to_string),
        "\\PC{0,6}",
    ];
    prop_oneof![
        (any::<usize>(), 0usize..20).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), text.clone()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 0usize..10, text).prop_map(|(a, n, t)| Edit::Replace(a, n, t)),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), prop::sample::select(VALUES))
            .prop_map(|(n, v)| Edit::ReplaceValue(n, v.to_string())),
    ]
}

fn boundary(s: &str, at: usize) -> usize {
    let mut i = at % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(s: &mut String, e: &Edit) {
    match e {
        Edit::Delete(a, n) | Edit::Replace(a, n, _) => {
            let start = boundary(s, *a);
            let end = boundary(s, start + n.min(&(s.len() - start)));
            let end = end.max(start);
            let with = match e {
                Edit::Replace(_, _, t) => t.as_str(),
                _ => "",
            };
            s.replace_range(start..end, with);
        }
        Edit::Insert(a, t) => {
            let at = boundary(s, *a);
            s.insert_str(at, t);
        }
        Edit::ReplaceValue(n, v) => {
            let lines: Vec<String> = s.lines().map(str::to_string).collect();
            let kv: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].contains(" = "))
                .collect();
            if let Some(&i) = kv.get(n % kv.len().max(1)) {
                let key = lines[i].split(" = ").next().unwrap_or("");
                let mut out = lines.clone();
                out[i] = format!("{key} = {v}");
                *s = out.join("\n");
            }
        }
        Edit::DuplicateLine(a) => {
            let lines: Vec<&str> = s.lines().collect();
            if !lines.is_empty() {
                let l = lines[a % lines.len()].to_string();
                let at = boundary(s, *a);
                s.insert_str(at, &format!("\n{l}\n"));
            }
        }
    }
}

fn check(text: &str, sets: &[String]) {
    match load_str(text, "p.toml", Path::new("."), sets) {
        Ok(s) => {
            // Whatever loads, echoes, and its echo loads back to the same.
            let again = load_str(&to_toml(&s), "p.toml", Path::new("."), &[]);
            assert_eq!(again.as_ref(), Ok(&s), "{}", to_toml(&s));
            assert!(!s.flows.is_empty());
        }
        Err(e) => {
            assert!(!e.errors.is_empty());
            let _ = e.to_string();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC*") {
        check(&text, &[]);
    }

    #[test]
    fn token_soup_never_panics(text in token_soup()) {
        check(&text, &[]);
    }

    #[test]
    fn mutated_scenarios_never_panic(edits in prop::collection::vec(edit(), 1..6)) {
        let mut text = VALID.to_string();
        for e in &edits {
            apply(&mut text, e);
        }
        check(&text, &[]);
    }

    #[test]
    fn random_overrides_never_panic(
        sets in prop::collection::vec(
            (
                prop::sample::select(&[
                    "sim.duration", "sim.seed", "tcp.mss", "tcp.sack", "flow.0.count", "flow.*.size",
                    "flow.9.app", "flow", "wireless", "wireless.loss.down.p", "wireless.loss.up",
                    "wireless.availability.model", "wireless.availability.file", "x.y.z", "", ".", "*",
                    "flow.0.tcp.min_rto", "output.pcap_snaplen", "name",
                ][..]),
                prop_oneof![prop::sample::select(TOKENS).prop_map(str::to_string), "\\PC{0,8}"],
            ),
            0..5,
        )
    ) {
        let sets: Vec<String> = sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
        check(VALID, &sets);
    }
}

#[test]
fn the_unmutated_scenario_is_valid() {
    check(VALID, &[]);
    assert!(load_str(VALID, "p.toml", Path::new("."), &[]).is_ok());
}
