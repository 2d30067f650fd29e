//! Loader tests of the caching schemes' `[[agent]]` entries (`snoop`,
//! `c_snoop`, `snack`).

use std::path::Path;

use super::*;

const WIFI: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
kind = "wifi"
standard = "11b"

[[flow]]
name = "mh"
direction = "down"
"#;

const P2P: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
rate = "10Mbps"
delay = "1ms"

[[flow]]
name = "mh"
"#;

fn load(base: &str, agents: &str) -> Result<Scenario, ScenarioError> {
    load_str(&format!("{base}\n{agents}"), "t.toml", Path::new("."), &[])
}

fn errors(base: &str, agents: &str) -> String {
    match load(base, agents) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn snoop_runs_at_the_bs_on_any_hop_and_echoes_back() {
    for base in [WIFI, P2P] {
        let s = load(base, "[[agent]]\nscheme = \"snoop\"\nat = \"bs\"\n").unwrap();
        assert_eq!(
            s.agents,
            vec![AgentSpec {
                scheme: AgentScheme::Snoop,
                at: AgentPlace::Bs
            }]
        );
        let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
        assert_eq!(again, s);
    }
}

#[test]
fn snoop_elsewhere_is_an_error() {
    for at in ["", "at = \"hosts\"\n", "at = \"mh\"\n"] {
        let e = errors(WIFI, &format!("[[agent]]\nscheme = \"snoop\"\n{at}"));
        assert!(
            e.contains("agent.0.at: snoop runs at the base station") && e.contains("at = \"bs\""),
            "{at}: {e}"
        );
    }
    let e = errors(
        WIFI,
        "[[agent]]\nscheme = \"snoop\"\nat = \"bs\"\nsize = 5\n",
    );
    assert!(e.contains("agent.0.size"), "{e}");
}

#[test]
fn c_snoop_runs_at_the_bs_and_hosts_of_a_reporting_hop() {
    let text = "[[agent]]\nscheme = \"c_snoop\"\nat = \"bs\"\n\n[[agent]]\nscheme = \"c_snoop\"\nat = \"mh\"\n";
    let s = load(WIFI, text).unwrap();
    let at: Vec<_> = s.agents.iter().map(|a| (&a.scheme, &a.at)).collect();
    assert_eq!(
        at,
        vec![
            (&AgentScheme::CSnoop, &AgentPlace::Bs),
            (&AgentScheme::CSnoop, &AgentPlace::Host("mh".into()))
        ]
    );
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
    let e = errors(P2P, "[[agent]]\nscheme = \"c_snoop\"\n");
    assert!(
        e.contains("agent.0.scheme: c_snoop needs the MAC's delivery reports")
            && e.contains("[wireless] kind = \"wifi\" or \"lrwpan\""),
        "{e}"
    );
}

#[test]
fn snack_runs_at_both_ends_and_needs_sack() {
    let text = "[[agent]]\nscheme = \"snack\"\nat = \"bs\"\n\n[[agent]]\nscheme = \"snack\"\n";
    let s = load(P2P, text).unwrap();
    assert_eq!(s.agents[0].scheme, AgentScheme::Snack);
    assert_eq!(s.agents[1].at, AgentPlace::Hosts);
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
    let e = errors(&format!("[tcp]\nsack = false\n{P2P}"), text);
    assert!(
        e.contains("agent.0.scheme: snack reads the mobile host's SACK blocks, but flow mh has sack = false")
            && e.contains("[tcp] sack = true"),
        "{e}"
    );
}
