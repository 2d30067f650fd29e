//! Loader tests of `[wireless] kind = "wifi"`.

use std::path::{Path, PathBuf};

use super::*;
use crate::radio::wifi::{Accounting, ErrorModel, PowerProfile, Preamble, Rate, Standard};
use crate::time::Dur;

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
    assert_eq!(spec(&a).snr, SnrSpec::Fixed(40.0));
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
            "wireless.scheduler=\"pf\"",
            "wireless.pf_time_constant=\"50ms\"",
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
            snr: SnrSpec::Fixed(8.5),
            stations: Vec::new(),
            dsa: None,
            power: PowerProfile {
                tx_w: 1.2,
                rx_w: 0.9,
                idle_w: 0.8,
                sleep_w: 0.05,
            },
            battery_j: Some(100.0),
            loss_per_packet: true,
            battery_off: false,
            energy_accounting: Accounting::Time,
            snr_report: None,
            scheduler: ApScheduler::ProportionalFair {
                time_constant: Dur::from_millis(50),
            },
        }
    );
    assert_eq!(s.wireless.loss_down, LossSpec::Iid { p: 0.01 });
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
}

#[test]
fn the_energy_models_are_read_and_echoed() {
    for (model, accounting) in [
        ("time", Accounting::Time),
        ("per_packet", Accounting::PerPacket),
        ("ns2", Accounting::NS2),
    ] {
        let s = load(WIFI, &[&format!("wireless.energy.model=\"{model}\"")]).unwrap();
        assert_eq!(spec(&s).energy_accounting, accounting, "{model}");
        let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
        assert_eq!(again, s, "{model}");
    }
    let e = all_errors(WIFI, &["wireless.energy.model=\"ns3\""]);
    assert!(e.contains("\"time\", \"per_packet\", \"ns2\""), "{e}");
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
            "wireless.scheduler=\"edf\"",
            "wireless.pf_time_constant=\"0s\"",
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
        "wireless.scheduler: expected one of \"fifo\", \"rr\", \"pf\"",
        "wireless.pf_time_constant: must be longer than 0",
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

const CELL: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
kind = "wifi"
standard = "11a"

[wireless.snr]
mean_db = 18
shadowing_db = 4
shadowing_time = "2s"
fading = "rician"
k_db = 6
coherence = "20ms"

[[wireless.station]]
host = "far"
snr_db = 9

[[wireless.station]]
host = "walker"
snr = { trace = "walk.txt" }

[[flow]]
name = "a"
host = "far"

[[flow]]
name = "b"
host = "walker"

[[flow]]
name = "c"
"#;

/// A directory holding `walk.txt` (a two-point SNR trace).
fn trace_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xltcp-snr-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("walk.txt"), "# t snr\n0 25\n5s, 3.5\n").unwrap();
    dir
}

#[test]
fn snr_processes_traces_and_stations_load_and_round_trip() {
    let dir = trace_dir("ok");
    let s = load_str(CELL, "cell.toml", &dir, &[]).unwrap();
    let w = spec(&s);
    let process = SnrSpec::Process {
        mean_trace: None,
        mean_db: 18.0,
        shadowing_db: 4.0,
        shadowing_time: Some(Dur::from_secs(2)),
        fading: Fading::Rician { k: 10f64.powf(0.6) },
        coherence: Dur::from_millis(20),
    };
    assert_eq!(w.snr, process);
    assert_eq!(w.snr_of("c"), &process);
    assert_eq!(w.snr_of("far"), &SnrSpec::Fixed(9.0));
    let SnrSpec::Trace { path, points } = w.snr_of("walker") else {
        panic!("{:?}", w.snr_of("walker"));
    };
    assert_eq!(path, "walk.txt");
    let t = |s: u64| crate::time::Time::ZERO + Dur::from_secs(s);
    assert_eq!(&points[..], &[(t(0), 25.0), (t(5), 3.5)]);
    let again = load_str(&to_toml(&s), "echo.toml", &dir, &[]).unwrap();
    assert_eq!(again, s);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn snr_mistakes_name_the_key() {
    let dir = trace_dir("bad");
    let errors = |sets: &[&str]| -> String {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        match load_str(CELL, "cell.toml", &dir, &sets) {
            Ok(_) => panic!("expected errors for {sets:?}"),
            Err(e) => e.to_string(),
        }
    };
    let cases: &[(&[&str], &str)] = &[
        (&["wireless.snr_db=3"], "wireless.snr: give either snr_db"),
        (
            &["wireless.snr.fading=\"rayleigh\""],
            "wireless.snr.k_db: is the Rician K factor",
        ),
        (
            &["wireless.snr.fading=\"fast\""],
            "wireless.snr.fading: expected one of \"none\", \"rayleigh\", \"rician\"",
        ),
        (
            &["wireless.snr.coherence=\"0s\""],
            "wireless.snr.coherence: must be at least 1us",
        ),
        (
            &["wireless.snr.shadowing_db=-1"],
            "wireless.snr.shadowing_db: must be a standard deviation",
        ),
        (
            &["wireless.snr.trace=\"walk.txt\""],
            "wireless.snr.mean_db: does not go with trace",
        ),
        (
            &["wireless.snr.trace=\"nope.txt\"", "wireless.snr.mean_db=1"],
            "nope.txt",
        ),
        (
            &["wireless.station.0.host=\"walker\""],
            "host \"walker\" already has a [[wireless.station]] entry",
        ),
        (
            &["wireless.station.0.host=\"nobody\""],
            "wireless.station.0.host: no wireless host is named \"nobody\"",
        ),
        (
            &["wireless.station.0.snr_dB=1"],
            "wireless.station.0.snr_dB: unknown key",
        ),
    ];
    for (sets, needle) in cases {
        let all = errors(sets);
        assert!(
            all.contains(needle),
            "{sets:?}: missing {needle:?} in\n{all}"
        );
    }
    let no_k = CELL.replace("k_db = 6\n", "");
    let all = load_str(&no_k, "cell.toml", &dir, &[])
        .unwrap_err()
        .to_string();
    assert!(
        all.contains("wireless.snr.fading: Rician fading needs its K factor"),
        "{all}"
    );
    std::fs::write(dir.join("walk.txt"), "0 25\n1s 20 dB\n").unwrap();
    let all = load_str(CELL, "cell.toml", &dir, &[])
        .unwrap_err()
        .to_string();
    assert!(
        all.contains("walk.txt:2: expected \"time snr_db\""),
        "{all}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn dsa_keys_load_echo_and_name_their_mistakes() {
    let sets = [
        "wireless.dsa.node_sensing_every=\"500ms\"",
        "wireless.dsa.node_sensing_for=\"25ms\"",
        "wireless.dsa.switch_at=[\"5s\", \"9s\"]",
        "wireless.dsa.channels=[\"11Mbps\", \"2Mbps\"]",
    ];
    let s = load(WIFI, &sets).unwrap_or_else(|e| panic!("{e}"));
    let d = spec(&s).dsa.clone().unwrap();
    assert_eq!(
        d.node_sensing,
        Some((Dur::from_millis(500), Dur::from_millis(25)))
    );
    assert_eq!(d.switch_at, vec![Dur::from_secs(5), Dur::from_secs(9)]);
    assert_eq!(d.channels, vec![Rate::Cck11, Rate::Dsss2]);
    assert_eq!(d.switch_delay, Dur::from_millis(100));
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
    let cases: &[(&[&str], &str)] = &[
        (
            &["wireless.dsa.node_sensing_every=\"500ms\""],
            "wireless.dsa.node_sensing_for: missing",
        ),
        (
            &[
                "wireless.dsa.cell_sensing_every=\"1s\"",
                "wireless.dsa.cell_sensing_for=\"2s\"",
            ],
            "wireless.dsa.cell_sensing_for: must be shorter than its period",
        ),
        (
            &["wireless.dsa.switch_at=[\"9s\", \"5s\"]"],
            "wireless.dsa.switch_at: times must increase",
        ),
        (
            &[
                "wireless.dsa.switch_at=[\"5s\"]",
                "wireless.dsa.switch_every=\"exp(10s)\"",
            ],
            "wireless.dsa.switch_every: give switches either at times",
        ),
        (
            &["wireless.dsa.channels=[\"24Mbps\"]"],
            "wireless.dsa.channels: 24Mbps is not a data rate of the standard",
        ),
        (&["wireless.dsa.sense=1"], "wireless.dsa.sense: unknown key"),
    ];
    for (sets, needle) in cases {
        let all = all_errors(WIFI, sets);
        assert!(
            all.contains(needle),
            "{sets:?}: missing {needle:?} in\n{all}"
        );
    }
}

#[test]
fn dsasync_needs_the_wifi_hop_and_the_bs() {
    let agent = format!("{WIFI}\n[[agent]]\nscheme = \"dsasync\"\nat = \"bs\"\nb_low = \"1MB\"\n");
    let s = load(&agent, &[]).unwrap_or_else(|e| panic!("{e}"));
    let AgentScheme::DsaSync(c) = s.agents[0].scheme else {
        panic!("{:?}", s.agents)
    };
    assert_eq!((c.b_low, c.b_high), (1_000_000, 500_000_000));
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
    let hosts = all_errors(&agent, &["agent.0.at=\"hosts\""]);
    assert!(
        hosts.contains("dsasync runs at the base station"),
        "{hosts}"
    );
    let p2p = agent.replace("kind = \"wifi\"\nstandard = \"11b\"", "rate = \"1Mbps\"");
    let all = all_errors(&p2p, &[]);
    assert!(all.contains("dsasync needs the 802.11 hop"), "{all}");
    let bad = all_errors(&agent, &["agent.0.b_high=\"100B\""]);
    assert!(bad.contains("need b_low < b_high <= buffer"), "{bad}");
    let bad = all_errors(&agent, &["agent.0.smoothing=\"fast\""]);
    assert!(bad.contains("agent.0.smoothing: expected one of"), "{bad}");
}

#[test]
fn a_chain_stepped_by_both_directions_is_for_the_p2p_hop_only() {
    let gilbert = [
        "wireless.loss.down.model=\"gilbert\"",
        "wireless.loss.down.mean_loss=0.05",
        "wireless.loss.down.mean_burst=3",
        "wireless.loss.down.steps=\"both\"",
    ];
    let all = all_errors(WIFI, &gilbert);
    assert!(all.contains("wireless.loss.down.steps"), "{all}");
    assert!(all.contains("kind = \"p2p\""), "{all}");
    let p2p = WIFI.replace(
        "kind = \"wifi\"\nstandard = \"11b\"",
        "rate = \"1Mbps\"\ndelay = \"1ms\"",
    );
    let s = load(&p2p, &gilbert).unwrap();
    assert_eq!(
        s.wireless.loss_down,
        LossSpec::Gilbert {
            mean_loss: 0.05,
            mean_burst: 3.0,
            steps: LossSteps::Both,
        }
    );
    // The default, and the echo names the key only when it is not.
    let own = load(&p2p, &gilbert[..3]).unwrap();
    assert!(matches!(
        own.wireless.loss_down,
        LossSpec::Gilbert {
            steps: LossSteps::Own,
            ..
        }
    ));
    assert!(!echo(&own).to_string().contains("steps"));
    assert!(echo(&s).to_string().contains("\"steps\":\"both\""));
    let again = load(&to_toml(&s), &[]).unwrap();
    assert_eq!(again.wireless.loss_down, s.wireless.loss_down);
}
