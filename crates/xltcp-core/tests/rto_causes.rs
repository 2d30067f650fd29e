//! The RTO causes in `summary.json` (`sim::rto_cause`): they add up to the
//! RTO count on every shipped scenario that has timeouts, and they say
//! what paper 000's mechanisms act on: without CR-aware TCP the standard
//! family's timeouts are the primary user's; CR-aware TCP removes them; a
//! lossless hop with no primary user has none to explain.

use std::path::PathBuf;
use xltcp_core::scenario::load_file;
use xltcp_core::sim::rto_cause::RtoCauses;
use xltcp_core::sim::{run, RunOptions};

fn causes(path: &str, sets: &[&str], seed: u64) -> Vec<(u64, RtoCauses)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = load_file(&root.join(path), &sets).unwrap_or_else(|e| panic!("{path}: {e}"));
    let r = run(
        &s,
        RunOptions {
            seed: Some(seed),
            ..RunOptions::default()
        },
    )
    .unwrap();
    r.flows
        .iter()
        .map(|f| {
            (
                f.rto_count,
                f.rto_causes.expect("the simulator writes the causes"),
            )
        })
        .collect()
}

#[test]
fn causes_add_up_to_the_rto_count() {
    let short = ["sim.duration=\"120s\""];
    let mut seen = 0;
    for path in [
        "byun2016/newreno.toml",
        "byun2016/paper/tcp-lr-cr.toml",
        "byun2016/paper/phy-lr.toml",
        "pu-blockage.toml",
        "lossy-last-hop.toml",
        "kim-chung/snoop-down.toml",
        "dsasync/regular-up.toml",
    ] {
        for seed in 1..=2 {
            for (rtos, c) in causes(path, &short, seed) {
                assert_eq!(c.total(), rtos, "{path} seed {seed}: {c:?}");
                seen += rtos;
            }
        }
    }
    assert!(seen > 50, "too few timeouts to check: {seen}");
}

#[test]
fn without_cr_the_primary_user_causes_the_timeouts_and_cr_removes_them() {
    let short = ["sim.duration=\"200s\""];
    let (mut plain, mut blocked_plain, mut blocked_cr) = (0, 0, 0);
    for seed in 1..=3 {
        let (rtos, c) = causes("byun2016/newreno.toml", &short, seed)[0];
        plain += rtos;
        blocked_plain += c.blockage;
        blocked_cr += causes("byun2016/newreno-cr.toml", &short, seed)[0]
            .1
            .blockage;
    }
    assert!(plain >= 20, "{plain}");
    assert!(
        blocked_plain * 10 >= plain * 9,
        "{blocked_plain} of {plain}"
    );
    assert!(
        blocked_cr * 3 <= blocked_plain,
        "{blocked_cr} vs {blocked_plain}"
    );
}

#[test]
fn a_lost_ack_and_a_lost_segment_are_told_apart() {
    // Only ACKs lost (the uplink carries them in a download), heavily: the
    // receiver holds every segment the sender times out on.
    let acks = [
        "sim.duration=\"60s\"",
        "wireless.loss.up={model=\"iid\",p=0.5}",
        "wireless.loss.down={model=\"iid\",p=0.0}",
    ];
    let (_, c) = causes("lossy-last-hop.toml", &acks, 1)[0];
    assert!(c.lost_ack > 0, "{c:?}");
    assert_eq!(c.lost_segment + c.lost_retransmission, 0, "{c:?}");
    // Only data lost: no timeout is blamed on an ACK.
    let data = [
        "sim.duration=\"60s\"",
        "wireless.loss.down={model=\"iid\",p=0.2}",
        "wireless.loss.up={model=\"iid\",p=0.0}",
    ];
    let (_, c) = causes("lossy-last-hop.toml", &data, 1)[0];
    assert!(c.lost_segment + c.lost_retransmission > 0, "{c:?}");
    assert_eq!(c.lost_ack + c.blockage, 0, "{c:?}");
}
