//! The 802.15.4 hop in the world, CR-aware TCP and local recovery in whole
//! runs: MAC retries and CSMA-CA under a primary user, accounting, the
//! oracle bound, determinism, the signal trace and the missed-signal
//! fallbacks.

use std::path::Path;
use xltcp_core::scenario::{self, Scenario};
use xltcp_core::signal::{Signal, SignalLog};
use xltcp_core::sim::{self, RunOptions, Summary};

/// An uplink bulk flow from the wireless host over the 802.15.4 hop with
/// the paper's frame layout; no loss, no PU unless a test adds them.
const BASE: &str = r#"
[sim]
duration = "30s"

[tcp]
recovery = "newreno"
sack = false
mss = "94B"
initial_window = 4
rcv_buffer = "2KiB"
snd_buffer = "2KiB"

[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
kind = "lrwpan"
layout = "paper"

[[flow]]
name = "st"
direction = "up"
app = "bulk"
"#;

fn load(overrides: &[&str]) -> Scenario {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    scenario::load_str(BASE, "test.toml", Path::new("."), &o).unwrap_or_else(|e| panic!("{e}"))
}

fn run(s: &Scenario, seed: u64) -> Summary {
    let s = sim::run(
        s,
        RunOptions {
            seed: Some(seed),
            ..RunOptions::default()
        },
    )
    .expect("run");
    assert!(s.accounting.balances(), "{:?}", s.accounting);
    for f in &s.flows {
        assert!(f.goodput_bps <= f.oracle_bps, "{f:?}");
    }
    s
}

/// A 10 s blockage from 5 s to 15 s (PU on).
const BLOCK_5_15: &str = "wireless.availability.model=\"intervals\"";
const BLOCK_5_15_LIST: &str = "wireless.availability.intervals=[[\"5s\", \"15s\"]]";

#[test]
fn lossless_hop_carries_data_near_its_oracle_capacity() {
    let s = run(&load(&[]), 1);
    let f = &s.flows[0];
    let hop = s.lrwpan().expect("lrwpan counters");
    // No loss and no PU: every frame arrives on its first try unless two
    // stations collide; nothing is dropped.
    assert_eq!(hop.up.lost + hop.down.lost, 0);
    assert_eq!(hop.up.pu_destroyed + hop.down.pu_destroyed, 0);
    // Only contention with the BS costs attempts: a frame retried after
    // collisions, rarely four times or five busy CCAs in a row.
    assert!(
        hop.up.drop_retry_limit + hop.up.drop_channel_access <= 5,
        "{hop:?}"
    );
    assert!(hop.up.collided > 0);
    assert!(
        hop.up.frames_sent <= hop.up.offered + hop.up.collided,
        "{hop:?}"
    );
    assert_eq!(hop.up.duplicates, 0, "no ACK is lost without loss");
    assert_eq!(f.rto_count, 0);
    // Two contending stations reach roughly 90 % of the formula.
    assert!(
        f.efficiency > 0.8 && f.efficiency <= 1.0,
        "{}",
        f.efficiency
    );
}

#[test]
fn frame_loss_is_repaired_by_mac_retries_and_lost_acks_give_duplicates() {
    let s = run(
        &load(&[
            "wireless.loss.up.model=\"iid\"",
            "wireless.loss.up.p=0.2",
            "wireless.loss.down.model=\"iid\"",
            "wireless.loss.down.p=0.2",
        ]),
        3,
    );
    let up = s.lrwpan().unwrap().up;
    assert!(up.lost > 0);
    // Each lost data frame or MAC ACK costs one more attempt (collisions too).
    assert!(up.frames_sent > up.offered + up.lost);
    // A data frame whose MAC ACK was lost is received again: rejected by
    // its sequence number, not passed up twice.
    assert!(up.duplicates > 0);
    let settled = up.arrived
        + up.drop_retry_limit
        + up.drop_channel_access
        + up.drop_queue_full
        + up.drop_too_long;
    assert!(up.offered - settled <= s.accounting.in_flight, "{up:?}");
    assert!(up.drop_retry_limit > 0, "p = 0.2 twice over four tries");
}

#[test]
fn a_pu_blocks_every_cca_and_the_mac_gives_frames_up_without_cr() {
    let s = run(&load(&[BLOCK_5_15, BLOCK_5_15_LIST]), 1);
    let hop = s.lrwpan().unwrap();
    assert!(hop.up.drop_channel_access > 0, "{hop:?}");
    let f = &s.flows[0];
    // Plain TCP times out again and again during the 10 s blockage
    // (RTO 1, 2, 4 s ...).
    assert!(f.rto_count >= 3, "rto {}", f.rto_count);
    assert!(s.cr_aware().is_none());
}

#[test]
fn cr_aware_tcp_freezes_for_the_blockage_and_times_out_never() {
    let s = run(
        &load(&[BLOCK_5_15, BLOCK_5_15_LIST, "schemes.cr_aware=true"]),
        1,
    );
    let f = &s.flows[0];
    assert_eq!(f.rto_count, 0);
    let cr = s.cr_aware().expect("cr counters");
    assert_eq!(
        (cr.pu_starts, cr.pu_stops, cr.freezes, cr.resumes),
        (1, 1, 1, 1)
    );
    // Frozen from the onset (5 s) to t_idle (1 s) after the end (16 s).
    assert_eq!(cr.frozen_ns, 11_000_000_000);
    assert_eq!(cr.watchdog_resumes + cr.probe_resumes, 0);
    let signals = s.signals.unwrap();
    // Published at the BS and the host; delivered at the host only.
    assert_eq!(signals.published["pu_start"], 2);
    assert_eq!(signals.delivered["pu_start"], 1);
    assert_eq!(signals.delivered["pu_stop"], 1);
    let plain = run(&load(&[BLOCK_5_15, BLOCK_5_15_LIST]), 1);
    assert!(f.bytes_delivered > plain.flows[0].bytes_delivered);
}

#[test]
fn missed_pu_start_falls_back_on_channel_access_failures() {
    let s = run(
        &load(&[
            BLOCK_5_15,
            BLOCK_5_15_LIST,
            "schemes.cr_aware=true",
            "pu_detection.missed_detection=1",
        ]),
        1,
    );
    let cr = s.cr_aware().unwrap();
    assert_eq!(cr.pu_starts, 0, "the detector heard nothing");
    assert!(cr.access_failure_freezes >= 1);
    // Probing every second: about ten probes over the 10 s blockage.
    assert!((8..=11).contains(&cr.probe_resumes), "{cr:?}");
    let f = &s.flows[0];
    // No exponential back-off: at most the RTO of the first frames.
    assert!(f.rto_count <= 1, "rto {}", f.rto_count);
    let plain = run(&load(&[BLOCK_5_15, BLOCK_5_15_LIST]), 1);
    assert!(
        f.bytes_delivered >= plain.flows[0].bytes_delivered,
        "fallback {} < plain {}",
        f.bytes_delivered,
        plain.flows[0].bytes_delivered
    );
}

#[test]
fn missing_pu_stop_ends_at_the_watchdog() {
    // The detector needs 20 s of silence: its pu_stop would come at 35 s,
    // after the run; the watchdog resumes after 3 s of freeze and again
    // whenever it refreezes.
    let s = run(
        &load(&[
            BLOCK_5_15,
            BLOCK_5_15_LIST,
            "schemes.cr_aware=true",
            "schemes.cr_max_freeze=\"3s\"",
            "pu_detection.t_idle=\"20s\"",
        ]),
        1,
    );
    let cr = s.cr_aware().unwrap();
    assert_eq!((cr.pu_starts, cr.pu_stops), (1, 0));
    assert_eq!(cr.watchdog_resumes, 1);
    // After the watchdog the PU is still on: the fallback on access
    // failures keeps the sender probing instead of backing off.
    assert!(cr.access_failure_freezes >= 1, "{cr:?}");
    let f = &s.flows[0];
    assert!(f.rto_count <= 1, "rto {}", f.rto_count);
    assert!(f.bytes_delivered > 100_000, "{}", f.bytes_delivered);
}

#[test]
fn local_recovery_reports_gaps_and_the_sender_repairs_them() {
    for (lr, link, tcp) in [("phy", true, false), ("tcp", false, true)] {
        let s = run(
            &load(&[
                &format!("schemes.local_recovery=\"{lr}\""),
                "schemes.cr_aware=true",
                "wireless.availability.model=\"onoff\"",
                "wireless.availability.on=\"exp(3s)\"",
                "wireless.availability.off=\"exp(3s)\"",
                "sim.duration=\"120s\"",
            ]),
            2,
        );
        let lr_stats = s.local_recovery().expect("lr counters");
        assert!(lr_stats.reports_sent > 0, "{lr}: {lr_stats:?}");
        assert!(lr_stats.reports_received > 0);
        assert!(lr_stats.reports_received <= lr_stats.reports_sent);
        assert_eq!(lr_stats.link_resends > 0, link, "{lr}: {lr_stats:?}");
        assert_eq!(
            lr_stats.tcp_retransmit_requests > 0,
            tcp,
            "{lr}: {lr_stats:?}"
        );
    }
}

#[test]
fn same_seed_same_summary_other_seed_differs() {
    let sc = load(&[
        "schemes.cr_aware=true",
        "schemes.local_recovery=\"tcp\"",
        "wireless.loss.up.model=\"iid\"",
        "wireless.loss.up.p=0.1",
        "wireless.availability.model=\"onoff\"",
        "wireless.availability.on=\"exp(4s)\"",
        "wireless.availability.off=\"exp(4s)\"",
    ]);
    let a = serde_json::to_string(&run(&sc, 5)).unwrap();
    let b = serde_json::to_string(&run(&sc, 5)).unwrap();
    let c = serde_json::to_string(&run(&sc, 6)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn pu_schedule_is_the_same_whatever_the_scheme() {
    let on = [
        "wireless.availability.model=\"onoff\"",
        "wireless.availability.on=\"exp(4s)\"",
        "wireless.availability.off=\"exp(4s)\"",
    ];
    let plain = run(&load(&on), 9);
    let mut with = on.to_vec();
    with.push("schemes.cr_aware=true");
    with.push("schemes.local_recovery=\"phy\"");
    let cr = run(&load(&with), 9);
    assert_eq!(plain.hop, cr.hop);
    assert_eq!(plain.flows[0].oracle_bps, cr.flows[0].oracle_bps);
}

#[test]
fn signals_are_traced_to_signals_jsonl() {
    let dir = std::env::temp_dir().join(format!("xltcp-cr-signals-{}", std::process::id()));
    let sc = load(&[
        BLOCK_5_15,
        BLOCK_5_15_LIST,
        "schemes.cr_aware=true",
        "output.timeseries=false",
    ]);
    sim::run(
        &sc,
        RunOptions {
            seed: Some(1),
            out_dir: Some(&dir),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let text = std::fs::read_to_string(dir.join("signals.jsonl")).unwrap();
    let log = SignalLog::from_jsonl(&text).unwrap();
    let pu: Vec<(u64, u32, Signal)> = log
        .records()
        .iter()
        .filter(|r| matches!(r.signal, Signal::PuStart | Signal::PuStop))
        .map(|r| (r.at.as_nanos(), r.node, r.signal))
        .collect();
    assert_eq!(
        pu,
        vec![
            (5_000_000_000, 1, Signal::PuStart),
            (16_000_000_000, 1, Signal::PuStop)
        ]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn p2p_scenarios_report_no_lrwpan_fields() {
    let text = BASE.replace(
        "kind = \"lrwpan\"\nlayout = \"paper\"",
        "rate = \"1Mbps\"\ndelay = \"1ms\"",
    );
    let sc = scenario::load_str(&text, "t.toml", Path::new("."), &[]).unwrap();
    let s = run(&sc, 1);
    assert!(s.lrwpan().is_none() && s.signals.is_none() && s.cr_aware().is_none());
    let json = serde_json::to_value(&s).unwrap();
    assert!(json.get("lrwpan").is_none());
    assert!(json["scenario"].get("schemes").is_none());
}

#[test]
fn two_downlink_flows_share_the_hop_and_balance() {
    let text = BASE.replace(
        "[[flow]]\nname = \"st\"\ndirection = \"up\"\napp = \"bulk\"",
        "[[flow]]\nname = \"sh\"\ndirection = \"down\"\napp = \"bulk\"\ncount = 2",
    );
    let sc = scenario::load_str(
        &text,
        "t.toml",
        Path::new("."),
        &[
            "schemes.cr_aware=true".to_string(),
            "wireless.availability.model=\"onoff\"".to_string(),
            "wireless.availability.on=\"exp(4s)\"".to_string(),
            "wireless.availability.off=\"exp(2s)\"".to_string(),
        ],
    )
    .unwrap();
    let s = run(&sc, 4);
    assert_eq!(s.flows.len(), 2);
    for f in &s.flows {
        assert!(f.bytes_delivered > 10_000, "{f:?}");
    }
    let hop = s.lrwpan().unwrap();
    assert!(hop.down.arrived > hop.up.arrived, "data goes down, ACKs up");
    // Each wireless host's detector and the BS's publish the PU.
    let pub_starts = s.signals.unwrap().published["pu_start"];
    assert_eq!(pub_starts % 3, 0, "{pub_starts}");
}

#[test]
fn snr_loss_is_bit_errors_of_each_frame() {
    // 802.15.4 Annex E: a 133-byte PPDU (127-byte MPDU) is lost with
    // probability 0.158 at 0 dB and 0.0136 at 1 dB.
    for (db, lo, hi) in [(0.0, 0.13, 0.19), (1.0, 0.008, 0.02)] {
        let s = run(&load(&[&format!("wireless.snr_db={db}")]), 2);
        let up = s.lrwpan().unwrap().up;
        let attempts = up.frames_sent - up.collided;
        let share = up.lost as f64 / attempts as f64;
        assert!(share > lo && share < hi, "{db} dB: {share} {up:?}");
    }
    let lossless = run(&load(&["wireless.snr_db=10.0"]), 2)
        .lrwpan()
        .unwrap()
        .up;
    assert_eq!(lossless.lost, 0);
}

#[test]
fn pcap_of_the_air_is_written() {
    let dir = std::env::temp_dir().join(format!("xltcp-cr-pcap-{}", std::process::id()));
    let sc = load(&["output.pcap=true", "sim.duration=\"3s\""]);
    sim::run(
        &sc,
        RunOptions {
            seed: Some(1),
            out_dir: Some(&dir),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let air = std::fs::metadata(dir.join("pcap").join("wireless.pcapng")).unwrap();
    assert!(air.len() > 10_000, "{}", air.len());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn signalling_delay_postpones_the_freeze_and_the_mac_fallback_covers_it() {
    let s = run(
        &load(&[
            BLOCK_5_15,
            BLOCK_5_15_LIST,
            "schemes.cr_aware=true",
            "pu_detection.signalling_delay=\"300ms\"",
        ]),
        1,
    );
    let cr = s.cr_aware().unwrap();
    assert_eq!((cr.pu_starts, cr.pu_stops), (1, 1));
    // In the 300 ms before pu_start, frames fail at the MAC; two in a row
    // freeze TCP early, and pu_start then takes that freeze over.
    assert_eq!(cr.freezes, 1, "{cr:?}");
    assert!(cr.frozen_ns >= 10_700_000_000 && cr.frozen_ns <= 11_000_000_000);
    assert_eq!(s.flows[0].rto_count, 0);
}

mod bound {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

        /// Whatever the loss, PU activity and schemes: goodput within the
        /// oracle bound, packets accounted for (checked by `run`).
        #[test]
        fn goodput_within_the_bound(
            seed in 0u64..1000,
            p in 0.0f64..0.3,
            on in 1u64..8,
            off in 1u64..8,
            cr in any::<bool>(),
            lr in 0usize..3,
            up in any::<bool>(),
        ) {
            let lr = ["none", "phy", "tcp"][lr];
            let dir = if up { "up" } else { "down" };
            let sets = [
                "sim.duration=\"20s\"".to_string(),
                "wireless.loss.up.model=\"iid\"".to_string(),
                format!("wireless.loss.up.p={p}"),
                "wireless.loss.down.model=\"iid\"".to_string(),
                format!("wireless.loss.down.p={p}"),
                "wireless.availability.model=\"onoff\"".to_string(),
                format!("wireless.availability.on=\"exp({on}s)\""),
                format!("wireless.availability.off=\"exp({off}s)\""),
                format!("schemes.cr_aware={cr}"),
                format!("schemes.local_recovery=\"{lr}\""),
                format!("flow.0.direction=\"{dir}\""),
            ];
            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
            let s = run(&load(&sets), seed);
            prop_assert!(s.flows[0].efficiency <= 1.0);
        }
    }
}

#[test]
fn writing_traces_does_not_change_the_results_and_links_show_the_air() {
    let sc = load(&[
        BLOCK_5_15,
        BLOCK_5_15_LIST,
        "schemes.cr_aware=true",
        "schemes.local_recovery=\"phy\"",
        "output.pcap=true",
    ]);
    let dir = std::env::temp_dir().join(format!("xltcp-cr-traces-{}", std::process::id()));
    let with = sim::run(
        &sc,
        RunOptions {
            seed: Some(3),
            out_dir: Some(&dir),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let without = run(&sc, 3);
    let strip = |s: &Summary| {
        let mut v = serde_json::to_value(s).unwrap();
        v["wall_seconds"] = 0.into();
        v
    };
    assert_eq!(strip(&with), strip(&without));
    std::fs::remove_dir_all(&dir).ok();
    // The wireless directions report the air's counters.
    let up = without.links.iter().find(|l| l.name == "air-bs").unwrap();
    let hop = without.lrwpan().unwrap().up;
    assert_eq!(up.stats.transmitted, hop.frames_sent);
    assert_eq!(up.stats.drops.blocked, hop.drop_channel_access);
    assert!(up.stats.bytes_transmitted >= 133 * hop.frames_sent / 2);
    assert!(up.stats.max_queue > 0);
}
