//! `[hosts]`: the hosts' stack latency.

use std::path::Path;
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions, Summary};

fn run(file: &str, seed: u64, sets: &[&str]) -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(file);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = scenario::load_file(&path, &sets).unwrap();
    let options = RunOptions {
        seed: Some(seed),
        ..RunOptions::default()
    };
    sim::run(&s, options).unwrap()
}

/// A window too small to queue anything: the round trip is the path's.
const NO_QUEUE: &[&str] = &[
    "sim.duration=\"20s\"",
    "wireless.loss.down.p=0",
    "tcp.snd_buffer=\"4KiB\"",
];

#[test]
fn each_host_adds_its_stack_delay_to_the_round_trip() {
    let plain = run("lossy-last-hop.toml", 1, NO_QUEUE);
    let mut sets = NO_QUEUE.to_vec();
    sets.push("hosts.stack_delay=\"5ms\"");
    let slow = run("lossy-last-hop.toml", 1, &sets);
    for s in [&plain, &slow] {
        assert!(s.accounting.balances(), "{:?}", s.accounting);
    }
    let srtt = |s: &Summary| s.flows[0].final_srtt_s.expect("sampled");
    // The data waits at the sender's stack and the ACK at the receiver's.
    let added = srtt(&slow) - srtt(&plain);
    assert!(
        (added - 0.010).abs() < 0.001,
        "{} -> {}",
        srtt(&plain),
        srtt(&slow)
    );
    assert!(slow.flows[0].goodput_bps < plain.flows[0].goodput_bps);
}

#[test]
fn jittered_stack_latency_is_deterministic_and_keeps_every_packet() {
    let sets = [
        "sim.duration=\"10s\"",
        "hosts.stack_delay=\"20us\"",
        "hosts.stack_jitter=\"2ms\"",
    ];
    let a = run("lossy-last-hop.toml", 3, &sets);
    let b = run("lossy-last-hop.toml", 3, &sets);
    assert!(a.accounting.balances(), "{:?}", a.accounting);
    let json = |s: &Summary| serde_json::to_string(s).unwrap();
    assert_eq!(json(&a), json(&b));
    let c = run("lossy-last-hop.toml", 4, &sets);
    assert_ne!(json(&a), json(&c));
}

/// Collided frames over frames sent, both ways, summed over seeds 1-10.
fn collisions(sets: &[&str]) -> f64 {
    let (mut collided, mut sent) = (0, 0);
    for seed in 1..=10 {
        let s = run("byun2016/paper/phy-lr.toml", seed, sets);
        let h = s.lrwpan().expect("802.15.4 hop");
        collided += h.up.collided + h.down.collided;
        sent += h.up.frames_sent + h.down.frames_sent;
    }
    collided as f64 / sent as f64
}

#[test]
fn a_stack_latency_moves_the_paper_familys_sender_onto_its_peers_slots() {
    // Hosts that answer in the same instant keep the sender's 802.15.4
    // backoff slots at one offset from the BS's; 20-80 us of latency, as
    // the emulator's Linux hosts take, makes more of their frames collide
    // (seeds 1-10: 8.2 % against 9.7 %).
    let mut sets = vec!["sim.duration=\"60s\""];
    sets.extend(scenario::AS_LINUX);
    let at_once = collisions(&sets);
    sets.extend(scenario::EMULATED_HOSTS);
    let linux_like = collisions(&sets);
    assert!(linux_like > at_once + 0.01, "{at_once} -> {linux_like}");
}
