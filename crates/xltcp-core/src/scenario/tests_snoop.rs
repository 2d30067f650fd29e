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

#[test]
fn the_kim_chung_presets_round_trip_and_differ_only_in_agents_direction_and_sack() {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/kim-chung");
    let tcp_down = load_file(&dir.join("tcp-down.toml"), &[]).unwrap();
    for d in ["down", "up"] {
        for v in ["tcp", "snoop", "snack", "c-snoop"] {
            let name = format!("{v}-{d}");
            let mut s = load_file(&dir.join(format!("{name}.toml")), &[]).unwrap();
            let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
            assert_eq!(again, s, "{name}");
            assert_eq!(s.sim.duration, crate::time::Dur::from_secs(100), "{name}");
            let HopKind::Wifi(w) = &s.wireless.kind else {
                panic!("{name}: not wifi");
            };
            assert_eq!(
                (w.power.tx_w, w.power.rx_w, w.battery_j),
                (0.6, 0.3, Some(100.0))
            );
            assert_eq!((w.retry_short, w.power.idle_w), (7, 0.0), "{name}");
            assert!(w.loss_per_packet, "{name}");
            // Energy as ns-2.35's WirelessPhy charges it, a dead radio off.
            assert_eq!(
                w.energy_accounting,
                crate::radio::wifi::Accounting::NS2,
                "{name}"
            );
            assert!(w.battery_off, "{name}");
            let burst = LossSpec::Gilbert {
                mean_loss: 0.05,
                mean_burst: 3.0,
                steps: LossSteps::Own,
            };
            // The paper's link loses bursts both ways (its ACKs too).
            assert_eq!(s.wireless.loss_down, burst, "{name}");
            assert_eq!(s.wireless.loss_up, burst, "{name}");
            // Apart from the agents, the direction and SNACK's SACK: the same.
            s.agents.clear();
            s.name = tcp_down.name.clone();
            s.flows[0].direction = Direction::Down;
            if v == "snack" {
                assert!(s.tcp.sack && s.flows[0].tcp.sack, "{name}");
                s.tcp.sack = false;
                s.flows[0].tcp.sack = false;
            }
            assert_eq!(s, tcp_down, "{name}");
        }
    }
}

#[test]
fn clamp_and_l2clamp_load_echo_and_check_their_keys() {
    use crate::schemes::clamp::ClampConfig;
    let s = load(
        WIFI,
        "[[agent]]\nscheme = \"l2clamp\"\ntarget_delay = \"20ms\"\ntau = \"3000B\"\n",
    )
    .unwrap();
    let cfg = ClampConfig {
        target_delay: crate::time::Dur::from_millis(20),
        tau: 3000,
        ..ClampConfig::default()
    };
    assert_eq!(s.agents[0].scheme, AgentScheme::L2Clamp(cfg));
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
    let c = load(WIFI, "[[agent]]\nscheme = \"clamp\"\n").unwrap();
    assert_eq!(
        c.agents[0].scheme,
        AgentScheme::Clamp(ClampConfig::default())
    );
    let e = errors(WIFI, "[[agent]]\nscheme = \"clamp\"\nat = \"bs\"\n");
    assert!(
        e.contains("agent.0.at: clamp runs at wireless hosts"),
        "{e}"
    );
    let e = errors(P2P, "[[agent]]\nscheme = \"l2clamp\"\n");
    assert!(e.contains("l2clamp needs the 802.11 hop"), "{e}");
    let e = errors(
        WIFI,
        "[[agent]]\nscheme = \"clamp\"\ntau = \"0B\"\nmin_window = 0\n",
    );
    assert!(e.contains("agent.0.tau: must be above 0"), "{e}");
    assert!(e.contains("agent.0.min_window"), "{e}");
}
