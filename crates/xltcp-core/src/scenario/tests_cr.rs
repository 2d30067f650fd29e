//! Loader tests of the cognitive-radio keys: `[wireless] kind = "lrwpan"`,
//! `[schemes]`, `[pu_detection]`.

use std::path::{Path, PathBuf};

use super::*;
use crate::time::Dur;

const LRWPAN: &str = r#"
[tcp]
mss = "76B"

[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
kind = "lrwpan"

[[flow]]
direction = "up"
"#;

fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, "t.toml", Path::new("."), &sets)
}

fn errors(text: &str, sets: &[&str]) -> Vec<String> {
    match load(text, sets) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.errors.iter().map(|d| d.to_string()).collect(),
    }
}

#[test]
fn lrwpan_defaults() {
    let s = load(LRWPAN, &[]).unwrap();
    assert_eq!(s.wireless.kind, HopKind::Lrwpan(LrwpanSpec::default()));
    assert_eq!(s.wireless.link.rate_bps, 250_000);
    assert_eq!(s.wireless.link.delay, Dur::ZERO);
    assert_eq!(s.schemes, SchemesSpec::default());
    assert_eq!(s.pu_detection, PuDetectionSpec::default());
    assert_eq!(s.pu_detection.t_idle, Dur::from_secs(1));
}

#[test]
fn every_key_is_read() {
    let s = load(
        LRWPAN,
        &[
            "wireless.layout=\"paper\"",
            "wireless.snr_db=2.5",
            "wireless.max_frame_retries=5",
            "wireless.max_csma_backoffs=3",
            "wireless.min_be=2",
            "wireless.max_be=6",
            "schemes.cr_aware=true",
            "schemes.local_recovery=\"tcp\"",
            "schemes.cr_max_freeze=\"12s\"",
            "schemes.cr_probe_interval=\"500ms\"",
            "schemes.cr_access_failures=3",
            "schemes.lr_buffer=16",
            "schemes.mac_hold=true",
            "pu_detection.t_idle=\"100ms\"",
            "pu_detection.signalling_delay=\"20ms\"",
            "pu_detection.missed_detection=0.1",
        ],
    )
    .unwrap();
    assert_eq!(
        s.wireless.kind,
        HopKind::Lrwpan(LrwpanSpec {
            layout: LayoutPreset::Paper,
            snr_db: Some(2.5),
            max_frame_retries: 5,
            max_csma_backoffs: 3,
            min_be: 2,
            max_be: 6,
        })
    );
    assert_eq!(
        s.schemes,
        SchemesSpec {
            cr_aware: true,
            local_recovery: LocalRecoverySpec::Tcp,
            cr_max_freeze: Dur::from_secs(12),
            cr_probe_interval: Dur::from_millis(500),
            cr_access_failures: 3,
            lr_buffer: 16,
            mac_hold: true,
        }
    );
    assert_eq!(
        s.pu_detection,
        PuDetectionSpec {
            t_idle: Dur::from_millis(100),
            signalling_delay: Dur::from_millis(20),
            missed_detection: 0.1,
        }
    );
    // The echo carries every value and loads back the same.
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
}

#[test]
fn rules_are_checked() {
    let e = errors(
        LRWPAN,
        &[
            "wireless.rate=\"1Mbps\"",
            "wireless.queue=\"4KiB\"",
            "tcp.mss=\"100B\"",
            "wireless.min_be=6",
            "wireless.max_be=4",
            "pu_detection.t_idle=\"0s\"",
            "pu_detection.missed_detection=1.5",
            "schemes.cr_probe_interval=\"0s\"",
            "schemes.local_recovery=\"link\"",
        ],
    );
    let all = e.join("\n");
    for needle in [
        "wireless.rate: an 802.15.4 O-QPSK PHY runs at 250 kb/s",
        "wireless.queue: an 802.15.4 MAC queue counts frames",
        "wireless.layout: [tcp] mss = 100 B does not fit",
        "wireless.min_be: is larger than max_be",
        "pu_detection.t_idle: must be longer than 0",
        "pu_detection.missed_detection",
        "schemes.cr_probe_interval: must be longer than 0",
        "schemes.local_recovery: expected one of \"none\", \"phy\", \"tcp\", \"bs_reports\"",
    ] {
        assert!(all.contains(needle), "missing {needle:?} in\n{all}");
    }
}

#[test]
fn snr_and_loss_tables_are_exclusive() {
    let e = errors(
        LRWPAN,
        &[
            "wireless.snr_db=3",
            "wireless.loss.up.model=\"iid\"",
            "wireless.loss.up.p=0.1",
        ],
    );
    assert!(e.iter().any(|m| m.contains("cannot be combined")), "{e:?}");
}

#[test]
fn lrwpan_keys_are_unknown_on_a_p2p_hop() {
    let p2p = LRWPAN.replace("kind = \"lrwpan\"", "rate = \"1Mbps\"\ndelay = \"1ms\"");
    let e = errors(&p2p, &["wireless.layout=\"paper\""]);
    assert!(
        e.iter().any(|m| m.contains("wireless.layout: unknown key")),
        "{e:?}"
    );
}

#[test]
fn the_byun2016_presets_round_trip() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/byun2016");
    for name in [
        "newreno",
        "phy-lr",
        "tcp-lr",
        "newreno-cr",
        "phy-lr-cr",
        "tcp-lr-cr",
    ] {
        let s = load_file(&dir.join(format!("{name}.toml")), &[]).unwrap();
        let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
        assert_eq!(again, s, "{name}");
    }
}

#[test]
fn a_flow_mss_too_large_for_the_frame_is_an_error() {
    let text = format!("{LRWPAN}[flow.tcp]\nmss = \"90B\"\n");
    let e = errors(&text, &[]);
    assert!(
        e.iter()
            .any(|m| m.contains("flow flow0: mss = 90 B does not fit")),
        "{e:?}"
    );
    let ok = format!("{LRWPAN}[flow.tcp]\nmss = \"70B\"\n");
    if let Err(e) = load(&ok, &[]) {
        panic!("{e}");
    }
}

const P2P_UP: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
rate = "1Mbps"
delay = "1ms"

[[flow]]
direction = "up"
"#;

#[test]
fn bs_reports_run_on_the_p2p_hop() {
    let s = load(P2P_UP, &["schemes.local_recovery=\"bs_reports\""]).unwrap();
    assert_eq!(s.schemes.local_recovery, LocalRecoverySpec::BsReports);
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
    // And on the 802.15.4 hop.
    let s = load(LRWPAN, &["schemes.local_recovery=\"bs_reports\""]).unwrap();
    assert_eq!(s.schemes.local_recovery, LocalRecoverySpec::BsReports);
}

#[test]
fn sender_agents_still_need_the_radio() {
    for set in ["schemes.local_recovery=\"tcp\"", "schemes.cr_aware=true"] {
        let e = errors(P2P_UP, &[set]).join("\n");
        assert!(
            e.contains("needs the 802.15.4 hop") && e.contains("[wireless] kind = \"lrwpan\""),
            "{set}: {e}"
        );
    }
}

#[test]
fn bs_reports_need_sack_and_an_uplink_flow() {
    let e = errors(
        P2P_UP,
        &["schemes.local_recovery=\"bs_reports\"", "tcp.sack=false"],
    )
    .join("\n");
    assert!(
        e.contains("schemes.local_recovery: \"bs_reports\" reaches the sender's TCP as SACK blocks, but flow flow0 has sack = false")
            && e.contains("[tcp] sack = true"),
        "{e}"
    );
    let down = P2P_UP.replace("direction = \"up\"", "direction = \"down\"");
    let e = errors(&down, &["schemes.local_recovery=\"bs_reports\""]).join("\n");
    assert!(e.contains("no flow is uplink"), "{e}");
}

#[test]
fn agent_entries_are_checked() {
    let bad = r#"
[[agent]]
scheme = "lr_bs"

[[agent]]
scheme = "cr_aware"
at = "bs"

[[agent]]
scheme = "snoopy"

[[agent]]
scheme = "lr_sender"
at = "nobody"
mode = "link"

[[agent]]
at = "bs"
"#;
    let text = format!("{LRWPAN}\n{bad}");
    let e = load_str(&text, "a.toml", Path::new("."), &[]).unwrap_err();
    let all = e.to_string();
    for needle in [
        "agent.0.at: lr_bs runs at the base station",
        "agent.1.at: cr_aware runs at wireless hosts",
        "agent.2.scheme: expected one of \"cr_aware\", \"lr_bs\", \"lr_sender\", \"dsasync\", \"snoop\", \"c_snoop\", \"snack\"",
        "agent.3.at: no wireless host is called \"nobody\"",
        "agent.3.mode: expected one of \"phy\", \"tcp\"",
        "agent.4.scheme: missing",
    ] {
        assert!(all.contains(needle), "missing {needle:?} in\n{all}");
    }
}

#[test]
fn agent_entries_need_the_lrwpan_hop_and_echo_back() {
    let p2p = "[wired]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[wireless]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\n[[agent]]\nscheme = \"cr_aware\"\n";
    let e = load_str(p2p, "a.toml", Path::new("."), &[]).unwrap_err();
    assert!(e
        .to_string()
        .contains("agent.0.scheme: cr_aware needs the 802.15.4 hop"));
    let text = format!("{LRWPAN}\n[[agent]]\nscheme = \"lr_sender\"\nmode = \"phy\"\nbuffer = 8\n");
    let s = load_str(&text, "a.toml", Path::new("."), &[]).unwrap();
    assert_eq!(
        s.agents[0].scheme,
        AgentScheme::LrSender {
            mode: LocalRecoverySpec::Phy,
            buffer: 8
        }
    );
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
}
