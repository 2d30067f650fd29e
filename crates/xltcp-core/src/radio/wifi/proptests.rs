//! Property tests: several DCF stations on the test medium, under any
//! traffic script, random losses and any access mode, keep their
//! accounting and timing invariants.

use super::tests_medium::Net;
use super::*;
use crate::rng::stream;
use crate::time::{Dur, Time};
use proptest::prelude::*;
use rand::RngExt;
use std::collections::BTreeMap;

/// One packet: sent `gap_us` after the previous one, from one station to
/// another (indices taken modulo the station count).
#[derive(Clone, Debug)]
struct Send {
    gap_us: u64,
    from: usize,
    to_offset: usize,
    ip_bytes: u32,
}

fn send() -> impl Strategy<Value = Send> {
    let gap = prop_oneof![Just(0u64), 0u64..3_000];
    (gap, 0usize..8, 1usize..8, 20u32..2_000).prop_map(|(gap_us, from, to_offset, ip_bytes)| Send {
        gap_us,
        from,
        to_offset,
        ip_bytes,
    })
}

fn config(b11: bool, rts: u8, arf: bool, queue_limit: usize) -> DcfConfig {
    let rate = if b11 { Rate::Cck11 } else { Rate::Ofdm36 };
    DcfConfig {
        rts_threshold: match rts {
            0 => 0,
            1 => 800,
            _ => u32::MAX,
        },
        rate_control: if arf {
            RateControl::Arf(ArfConfig::starting_at(rate))
        } else {
            RateControl::Fixed(rate)
        },
        queue_limit,
        ..DcfConfig::new(rate)
    }
}

/// Checks the outcome of a drained run.
fn check(net: &Net, sent: &BTreeMap<u64, usize>, limits: (u8, u8)) {
    // Every enqueued frame ends in exactly one Delivered or Undelivered
    // event at its sender.
    let mut outcome: BTreeMap<u64, usize> = BTreeMap::new();
    let mut received: BTreeMap<u64, usize> = BTreeMap::new();
    let mut last = Time::ZERO;
    for &(t, i, e) in &net.events {
        assert!(t >= last, "events out of order");
        last = t;
        match e {
            MacEvent::Delivered {
                frame, attempts, ..
            } => {
                assert_eq!(sent.get(&frame), Some(&i));
                assert!(attempts >= 1 && attempts <= limits.0.max(limits.1));
                *outcome.entry(frame).or_default() += 1;
            }
            MacEvent::Undelivered { frame, .. } => {
                assert_eq!(sent.get(&frame), Some(&i));
                *outcome.entry(frame).or_default() += 1;
            }
            MacEvent::Received { frame, .. } => *received.entry(frame).or_default() += 1,
            MacEvent::Duplicate { frame, .. } => {
                assert!(
                    received.contains_key(&frame),
                    "duplicate before the original"
                );
            }
        }
    }
    for id in sent.keys() {
        assert_eq!(outcome.get(id), Some(&1), "frame {id}");
    }
    // A frame is passed up at most once, and a delivered one exactly once.
    assert!(received.values().all(|&n| n == 1));
    for &(_, _, e) in &net.events {
        if let MacEvent::Delivered { frame, .. } = e {
            assert_eq!(
                received.get(&frame),
                Some(&1),
                "delivered {frame} never received"
            );
        }
    }
    // No station overlaps its own transmissions.
    let mut busy_until: BTreeMap<u16, Time> = BTreeMap::new();
    for tx in &net.started {
        let until = busy_until.entry(tx.from.0).or_insert(Time::ZERO);
        assert!(
            tx.start >= *until,
            "{tx:?} overlaps the station's previous one"
        );
        *until = tx.end();
    }
    for m in &net.macs {
        let s = m.stats();
        assert_eq!(
            s.enqueued,
            s.delivered + s.short_retry_drops + s.long_retry_drops,
            "station {:?}",
            m.addr()
        );
        assert!(m.is_idle() && m.queue_len() == 0);
        assert_eq!(m.cw(), m.config().cw_min, "CW reset after success or drop");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn dcf_invariants_hold_under_any_script(
        script in prop::collection::vec(send(), 1..60),
        stations in 2usize..6,
        b11 in any::<bool>(),
        rts in 0u8..3,
        arf in any::<bool>(),
        queue_limit in 0usize..8,
        loss_permille in 0u32..400,
        seed in any::<u64>(),
    ) {
        let config = config(b11, rts, arf, queue_limit);
        let mut net = Net::new(stations, config, seed);
        let mut loss = stream(seed, "prop.loss");
        net.lose = Box::new(move |_| loss.random_range(0..1000u32) < loss_permille);
        let mut sent = BTreeMap::new();
        for s in &script {
            let until = net.now + Dur::from_micros(s.gap_us);
            net.run(until);
            let from = s.from % stations;
            let to = (from + s.to_offset % (stations - 1).max(1)) % stations;
            let to = if to == from { (from + 1) % stations } else { to };
            let id = net.send(from, to, s.ip_bytes);
            sent.insert(id, from);
        }
        net.run(Time::NEVER);
        check(&net, &sent, (config.short_retry_limit, config.long_retry_limit));
    }

    /// Same seed, same script: the same run.
    #[test]
    fn dcf_runs_are_deterministic(seed in any::<u64>(), n in 2usize..5) {
        let run = || {
            let mut net = Net::new(n, config(false, 2, false, 50), seed);
            for i in 1..n {
                for _ in 0..20 {
                    net.send(i, 0, 1200);
                }
            }
            net.run(Time::NEVER);
            net.started.clone()
        };
        prop_assert_eq!(run(), run());
    }
}
