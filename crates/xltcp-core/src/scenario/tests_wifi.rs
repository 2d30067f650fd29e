//! Loader tests of `[wireless] kind = "wifi"`.

use std::path::{Path, PathBuf};

use super::*;
use crate::radio::wifi::{ErrorModel, PowerProfile, Preamble, Rate, Standard};

const WIFI: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
kind = "wifi"
standard = "11b"

[[flow]]
direction = "down"
"#;

fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, "t.toml", Path::new("."), &sets)
}

fn all_errors(text: &str, sets: &[&str]) -> String {
    match load(text, sets) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.to_string(),
    }
}

fn spec(s: &Scenario) -> &WifiSpec {
    match &s.wireless.kind {
        HopKind::Wifi(w) => w,
        k => panic!("{k:?}"),
    }
}

#[test]
fn wifi_defaults_are_the_standards() {
    let s = load(WIFI, &[]).unwrap();
    assert_eq!(*spec(&s), WifiSpec::new(Standard::B11));
    assert_eq!(spec(&s).rate, Rate::Cck11);
    assert_eq!(s.wireless.link.rate_bps, 11_000_000);
    assert_eq!(s.wireless.link.queue, QueueLimit::Packets(100));
    let a = load(WIFI, &["wireless.standard=\"11a\""]).unwrap();
    assert_eq!(spec(&a).rate, Rate::Ofdm54);
    assert_eq!(spec(&a).snr_db, 40.0);
}

#[test]
fn every_wifi_key_is_read_and_echoed() {
    let s = load(
        WIFI,
        &[
            "wireless.rate=\"5.5Mbps\"",
            "wireless.rate_control=\"arf\"",
            "wireless.preamble=\"short\"",
            "wireless.rts_threshold=500",
            "wireless.retry_short=5",
            "wireless.retry_long=3",
            "wireless.error_model=\"yans\"",
            "wireless.snr_db=8.5",
            "wireless.queue=\"20p\"",
            "wireless.energy.tx_w=1.2",
            "wireless.energy.rx_w=0.9",
            "wireless.energy.idle_w=0.8",
            "wireless.energy.sleep_w=0.05",
            "wireless.energy.battery_j=100",
            "wireless.loss.down.model=\"iid\"",
            "wireless.loss.down.p=0.01",
            "wireless.loss_per=\"packet\"",
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        *spec(&s),
        WifiSpec {
            standard: Standard::B11,
            rate: Rate::Cck5_5,
            arf: true,
            preamble: Preamble::Short,
            rts_threshold: Some(500),
            retry_short: 5,
            retry_long: 3,
            error_model: ErrorModel::Yans,
            snr_db: 8.5,
            power: PowerProfile {
                tx_w: 1.2,
                rx_w: 0.9,
                idle_w: 0.8,
                sleep_w: 0.05,
            },
            battery_j: Some(100.0),
            loss_per_packet: true,
        }
    );
    assert_eq!(s.wireless.loss_down, LossSpec::Iid { p: 0.01 });
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
}

#[test]
fn wifi_rules_are_checked() {
    let all = all_errors(
        WIFI,
        &[
            "wireless.rate=\"24Mbps\"",
            "wireless.queue=\"4KiB\"",
            "wireless.retry_long=0",
            "wireless.energy.tx_w=-1",
            "wireless.energy.battery_j=0",
            "wireless.error_model=\"ber\"",
        ],
    );
    for needle in [
        "wireless.rate: 24Mbps is not a data rate of 802.11b",
        "\"1Mbps\", \"2Mbps\", \"5.5Mbps\", \"11Mbps\"",
        "wireless.queue: an 802.11 MAC queue counts frames",
        "wireless.retry_long",
        "wireless.energy.tx_w: must be a power in watts",
        "wireless.energy.battery_j: must be an energy in joules",
        "wireless.error_model: expected one of \"nist\", \"yans\"",
    ] {
        assert!(all.contains(needle), "missing {needle:?} in\n{all}");
    }
    let a = all_errors(
        WIFI,
        &["wireless.standard=\"11a\"", "wireless.preamble=\"short\""],
    );
    assert!(
        a.contains("wireless.preamble: 802.11a has one PLCP format"),
        "{a}"
    );
    let none = all_errors(&WIFI.replace("standard = \"11b\"\n", ""), &[]);
    assert!(none.contains("wireless.standard: missing"), "{none}");
}

#[test]
fn wifi_keys_are_unknown_on_other_hops() {
    let p2p = WIFI.replace("kind = \"wifi\"\nstandard = \"11b\"", "rate = \"1Mbps\"");
    let all = all_errors(&p2p, &["wireless.snr_db=3", "wireless.energy.tx_w=1"]);
    assert!(all.contains("wireless.snr_db: unknown key"), "{all}");
    assert!(all.contains("wireless.energy: unknown key"), "{all}");
}

#[test]
fn the_wifi_scenario_round_trips() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let s = load_file(&dir.join("wifi-11a.toml"), &[]).unwrap();
    assert_eq!(spec(&s).rate, Rate::Ofdm24);
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
}
