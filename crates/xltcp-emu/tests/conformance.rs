//! One conformance suite, two engines: each scenario below runs on the
//! simulator and on the emulator, and the same body checks the same
//! properties of both results:
//!
//! - conservation: every packet that entered the hop was delivered,
//!   dropped with a reason, or is still in flight;
//! - goodput under the oracle bound of the scenario;
//! - blockages honoured: no frame starts on the air while the hop is
//!   blocked (read from the wireless capture);
//! - the loss and blockage pattern is the seed's (same blocked time), and
//!   both engines compute the same oracle bound for it.
//!
//! A scheme joins by adding a `conformance!` line with its scenario. The
//! emulator half needs root, /dev/net/tun, `ip netns` and iperf3, and is
//! skipped with the reason printed elsewhere.

mod support;

use std::path::PathBuf;
use support::{emu_or_skip, pcap_records, scenario};
use xltcp_core::net::availability::Availability;
use xltcp_core::rng::stream;
use xltcp_core::scenario::Scenario;
use xltcp_core::sim::{self, Accounting};
use xltcp_core::time::Time;

/// What both engines report that the properties need.
#[derive(Debug)]
struct Outcome {
    engine: &'static str,
    /// (goodput, oracle, measurement window in seconds) per flow.
    flows: Vec<(f64, f64, f64)>,
    accounting: Accounting,
    blocked_s: f64,
    wireless_pcap: PathBuf,
}

fn out_dir(name: &str, engine: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "xltcp-conformance-{}-{name}-{engine}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run_sim(s: &Scenario, seed: u64, name: &str, label: &str) -> Outcome {
    let mut s = s.clone();
    s.output.pcap = true;
    let dir = out_dir(name, label);
    let sum = sim::run(
        &s,
        sim::RunOptions {
            seed: Some(seed),
            out_dir: Some(&dir),
            ..Default::default()
        },
    )
    .expect("sim runs");
    Outcome {
        engine: "sim",
        flows: sum
            .flows
            .iter()
            .map(|f| (f.goodput_bps, f.oracle_bps, sum.duration_s))
            .collect(),
        accounting: sum.accounting,
        blocked_s: sum.hop.blocked_s,
        wireless_pcap: dir.join("pcap/wireless.pcap"),
    }
}

fn run_emu(s: &Scenario, seed: u64, name: &str) -> Outcome {
    let dir = out_dir(name, "emu");
    let opts = xltcp_emu::EmuOptions {
        seed: Some(seed),
        out_dir: Some(&dir),
        ..Default::default()
    };
    let sum = xltcp_emu::run(s, opts).expect("emulation runs");
    assert!(sum.emu.warnings.is_empty(), "{:?}", sum.emu.warnings);
    let window = |i: usize| {
        sum.duration_s
            .max(s.flows[i].start.as_secs_f64() + sum.emu.app_seconds[i])
    };
    Outcome {
        engine: "emu",
        flows: sum
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| (f.goodput_bps, f.oracle_bps, window(i)))
            .collect(),
        accounting: sum.accounting,
        blocked_s: sum.hop.blocked_s,
        wireless_pcap: dir.join("pcap/wireless.pcap"),
    }
}

/// The blocked intervals of the seed, replayed from the availability
/// process's own stream (nanoseconds).
fn blocked_intervals(s: &Scenario, seed: u64) -> Vec<(u64, u64)> {
    let end = (Time::ZERO + s.sim.duration).as_nanos();
    let mut a = Availability::new(
        &s.wireless.availability,
        stream(seed, "wireless.availability"),
    );
    let (mut t, mut out) = (0u64, Vec::new());
    while t < end {
        let next = a.next_change().as_nanos().min(end);
        if a.blocked() {
            out.push((t, next));
        }
        t = next;
        if t < end {
            a.advance();
        }
    }
    out
}

/// The properties every engine must show on every scenario.
fn check_properties(s: &Scenario, seed: u64, o: &Outcome) {
    let e = o.engine;
    assert!(
        o.accounting.balances(),
        "{e}: conservation {:?}",
        o.accounting
    );
    assert!(o.accounting.injected > 0, "{e}: nothing sent");
    let t = s.sim.duration.as_secs_f64();
    for (i, &(goodput, oracle, window)) in o.flows.iter().enumerate() {
        assert!(goodput > 0.0, "{e}: flow {i} delivered nothing");
        // In-order bytes by the end over the duration, under the bound.
        let bound = oracle * window / t * (1.0 + 1e-9);
        assert!(
            goodput <= bound,
            "{e}: flow {i} goodput {goodput} above the oracle {oracle} (window {window} s)"
        );
    }
    let blocked = blocked_intervals(s, seed);
    let expected_blocked: u64 = blocked.iter().map(|(a, b)| b - a).sum();
    assert!(
        (o.blocked_s - expected_blocked as f64 / 1e9).abs() < 1e-6,
        "{e}: blocked {} s, the seed's schedule {} ns",
        o.blocked_s,
        expected_blocked
    );
    let records = pcap_records(&o.wireless_pcap);
    assert!(!records.is_empty(), "{e}: nothing on the air");
    for (at, _) in &records {
        let inside = blocked.iter().find(|(a, b)| a < at && at < b);
        assert!(
            inside.is_none(),
            "{e}: a frame started at {at} ns inside the blockage {inside:?}"
        );
    }
}

fn conformance_sim(name: &str, text: &str) {
    let s = scenario(text);
    let o = run_sim(&s, 7, name, "sim");
    check_properties(&s, 7, &o);
    let _ = std::fs::remove_dir_all(out_dir(name, "sim"));
}

fn conformance_emu(name: &str, text: &str) {
    let Some(_one) = emu_or_skip(name) else {
        return;
    };
    let s = scenario(text);
    let o = run_emu(&s, 7, name);
    check_properties(&s, 7, &o);
    // Same scenario and seed, same hop: the engines agree on the bound.
    let reference = run_sim(&s, 7, name, "sim-reference");
    for (i, (e, r)) in o.flows.iter().zip(&reference.flows).enumerate() {
        assert!(
            (e.1 - r.1).abs() <= 1e-9 * r.1,
            "flow {i}: emu oracle {} sim oracle {}",
            e.1,
            r.1
        );
    }
    let _ = std::fs::remove_dir_all(out_dir(name, "emu"));
    let _ = std::fs::remove_dir_all(out_dir(name, "sim-reference"));
}

/// Adds a scenario to the suite: one test per engine.
macro_rules! conformance {
    ($name:ident, $text:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::{BASE, LOSSY_BLOCKED};
            #[test]
            fn sim() {
                super::conformance_sim(stringify!($name), $text);
            }
            #[test]
            fn emu() {
                super::conformance_emu(stringify!($name), $text);
            }
        }
    };
}

const BASE: &str = r#"
[sim]
duration = "4s"
[wired]
rate = "100Mbps"
delay = "5ms"
[wireless]
rate = "10Mbps"
delay = "5ms"
"#;

const LOSSY_BLOCKED: &str = r#"
[sim]
duration = "4s"
[wired]
rate = "100Mbps"
delay = "5ms"
[wireless]
rate = "10Mbps"
delay = "5ms"
[wireless.loss.down]
model = "iid"
p = 0.02
[wireless.availability]
model = "onoff"
on = "900ms"
off = "300ms"
[[flow]]
"#;

conformance!(lossless_download, &format!("{BASE}\n[[flow]]\n"));
conformance!(lossy_blocked_download, LOSSY_BLOCKED);
conformance!(
    two_flows_both_ways,
    &format!("{BASE}\n[[flow]]\n[[flow]]\ndirection = \"up\"\nstart = \"1s\"\n")
);

#[test]
fn the_seeds_schedule_is_replayed_exactly() {
    let s = scenario(LOSSY_BLOCKED);
    let b = blocked_intervals(&s, 7);
    assert_eq!(b[0], (900_000_000, 1_200_000_000));
    assert_eq!(b.len(), 3);
}
