//! Paper 004's presets (`scenarios/l2clamp/`): NewReno, CLAMP and L2-CLAMP
//! over an 802.11b AP with one queue per receiver and a proportional-fair
//! scheduler, four flows to three receivers. Short runs (30 s) of each:
//! what the schemes must do whatever the numbers (the reproduction,
//! `xltcp reproduce l2clamp`, measures them over seeds).

use std::path::Path;
use xltcp_core::scenario;
use xltcp_core::sim::output::Output;
use xltcp_core::sim::{Summary, World};

fn run(name: &str, sets: &[&str], seed: u64) -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/l2clamp")
        .join(format!("{name}.toml"));
    let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    sets.push("sim.duration=\"30s\"".into());
    let s = scenario::load_file(&path, &sets).unwrap();
    let mut w = World::new(s, seed, Output::none());
    assert!(w.run(None));
    let sum = w.summary(serde_json::Value::Null);
    assert!(sum.accounting.balances(), "{name}");
    sum
}

fn goodputs(s: &Summary) -> Vec<f64> {
    s.flows.iter().map(|f| f.goodput_bps).collect()
}

fn uplink_frames(s: &Summary) -> u64 {
    s.wifi().unwrap().up.frames_sent
}

#[test]
fn l2clamp_keeps_the_receivers_acks_off_the_air() {
    let clamp = run("clamp", &[], 1);
    let l2 = run("l2clamp", &[], 1);
    let (c, l) = (uplink_frames(&clamp), uplink_frames(&l2));
    assert!(c > 1000, "{c}");
    assert!((l as f64) <= 0.1 * c as f64, "uplink frames {l} vs {c}");
    // Every flow still moves data, and the cell carries at least as much.
    let g = goodputs(&l2);
    assert!(g.iter().all(|&x| x > 50_000.0), "{g:?}");
    let total = |s: &Summary| goodputs(s).iter().sum::<f64>();
    assert!(
        total(&l2) >= total(&clamp),
        "{:?} {:?}",
        g,
        goodputs(&clamp)
    );
}

/// Every receiver at 30 dB without fading (the presets' channels differ).
const EQUAL: [&str; 3] = [
    "wireless.station.0.snr={ mean_db = 30 }",
    "wireless.station.1.snr={ mean_db = 30 }",
    "wireless.station.2.snr={ mean_db = 30 }",
];

#[test]
fn pf_shares_the_aps_frames_among_equal_receivers() {
    let s = run("newreno", &EQUAL, 2);
    let sched = s.wifi().unwrap().scheduler.as_ref().unwrap();
    let frames = &sched.frames;
    assert_eq!(frames.len(), 3);
    let mean = frames.iter().sum::<u64>() as f64 / 3.0;
    for &f in frames {
        assert!((f as f64 - mean).abs() < 0.05 * mean, "{frames:?}");
    }
    assert_eq!(sched.queue.len(), 30, "one queue sample a second");
}

#[test]
fn pf_carries_more_than_round_robin_where_the_receivers_channels_differ() {
    // The presets' receivers (16.5, 10.5 and 7 dB, Rayleigh fading): PF
    // serves a receiver at a peak of its channel, round robin in turn.
    let total = |sched: &str| -> f64 {
        (1..=3)
            .map(|seed| {
                let set = format!("wireless.scheduler=\"{sched}\"");
                goodputs(&run("newreno", &[set.as_str()], seed))
                    .iter()
                    .sum::<f64>()
            })
            .sum()
    };
    let (pf, rr) = (total("pf"), total("rr"));
    assert!(pf > 1.05 * rr, "pf {pf} rr {rr}");
    // With equal channels PF has nothing to choose from.
    let equal = |sched: &str| -> f64 {
        let set = format!("wireless.scheduler=\"{sched}\"");
        let mut sets: Vec<&str> = EQUAL.to_vec();
        sets.push(set.as_str());
        goodputs(&run("newreno", &sets, 1)).iter().sum::<f64>()
    };
    let (pf, rr) = (equal("pf"), equal("rr"));
    assert!((pf - rr).abs() < 0.03 * rr, "pf {pf} rr {rr}");
}

#[test]
fn the_schedulers_are_deterministic_and_fifo_is_the_default() {
    let a = run("clamp", &["wireless.scheduler=\"rr\""], 3);
    let b = run("clamp", &["wireless.scheduler=\"rr\""], 3);
    assert_eq!(goodputs(&a), goodputs(&b));
    let fifo = run("newreno", &["wireless.scheduler=\"fifo\""], 3);
    assert!(fifo.wifi().unwrap().scheduler.is_none());
}

#[test]
fn l2clamp_recovers_packets_the_mac_gives_up_through_the_receivers_duplicates() {
    // Each downlink packet lost on every MAC attempt with probability 5 %:
    // the BS discards their ACKs, the receivers' duplicate ACKs pass and
    // the senders retransmit; the BS never runs ahead of the receivers.
    let sets = [
        "wireless.loss_per=\"packet\"",
        "wireless.loss.down.p=0.05",
        "wireless.loss.up.p=0",
    ];
    let s = run("l2clamp", &sets, 4);
    let l2 = s.agents.0.iter().find_map(|(_, a)| match a {
        xltcp_core::schemes::AgentStats::L2Clamp(x) => Some(*x),
        _ => None,
    });
    let l2 = l2.expect("an l2clamp section");
    assert!(l2.acks_discarded > 20, "{l2:?}");
    assert!(l2.duplicates_passed > 20, "{l2:?}");
    assert_eq!(l2.ack_ahead_max_bytes, 0);
    assert!(s.flows.iter().all(|f| f.fast_retransmits > 0));
    let g = goodputs(&s);
    assert!(g.iter().all(|&x| x > 50_000.0), "{g:?}");
}
