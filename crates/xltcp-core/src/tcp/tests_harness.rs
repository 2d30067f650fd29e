//! End-to-end tests over the two-endpoint harness, and the transfer property test.

use super::harness::{Dir, Harness};
use super::{Config, Recovery, State};
use crate::time::{Dur, Time};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn cfg(recovery: Recovery) -> Config {
    Config {
        recovery,
        rcv_buffer: 256 * 1024,
        ..Config::default()
    }
}

fn transfer(
    recovery: Recovery,
    bytes: u64,
    drops: BTreeSet<u64>,
    ack_drops: BTreeSet<u64>,
) -> Harness {
    let loss = Box::new(
        move |dir: Dir, n: u64, _s: &crate::wire::Segment| match dir {
            Dir::AtoB => drops.contains(&n),
            Dir::BtoA => ack_drops.contains(&n),
        },
    );
    let mut h = Harness::new(cfg(recovery), cfg(recovery), Dur::from_millis(20), loss);
    h.to_write = bytes;
    h.close_when_done = true;
    h.run(Time::ZERO + Dur::from_secs(4000));
    h
}

#[test]
fn lossless_transfer_completes_and_closes() {
    for rec in [Recovery::NewReno, Recovery::Sack] {
        let h = transfer(rec, 1_000_000, BTreeSet::new(), BTreeSet::new());
        assert_eq!(h.read, 1_000_000);
        assert_eq!(h.a.stats().retransmissions, 0);
        assert_eq!(h.a.stats().rto_count, 0);
        assert_eq!(h.a.state(), State::Closed, "TIME-WAIT ended");
        assert_eq!(h.b.state(), State::Closed);
        assert_eq!(h.a.stats().bytes_acked, 1_000_000);
        assert!(h.a.srtt().is_some());
    }
}

#[test]
fn single_loss_is_repaired_by_fast_retransmit() {
    for rec in [Recovery::NewReno, Recovery::Sack] {
        let h = transfer(rec, 300_000, BTreeSet::from([20]), BTreeSet::new());
        assert_eq!(h.read, 300_000);
        assert_eq!(h.a.stats().fast_retransmits, 1, "{rec:?}");
        assert_eq!(h.a.stats().rto_count, 0, "{rec:?}");
        assert_eq!(h.a.stats().retransmissions, 1, "{rec:?}");
    }
}

#[test]
fn first_data_segment_loss_fast_retransmits() {
    // Segment 0 is the SYN; the handshake ACK rides on the first data segment.
    for rec in [Recovery::NewReno, Recovery::Sack] {
        let h = transfer(rec, 100_000, BTreeSet::from([1]), BTreeSet::new());
        assert_eq!(h.read, 100_000);
        assert_eq!(h.a.stats().fast_retransmits, 1, "{rec:?}");
        assert_eq!(h.a.stats().rto_count, 0, "{rec:?}");
    }
}

#[test]
fn burst_loss_sack_repairs_in_one_recovery() {
    let drops: BTreeSet<u64> = (30..36).collect();
    let h = transfer(Recovery::Sack, 300_000, drops, BTreeSet::new());
    assert_eq!(h.read, 300_000);
    assert_eq!(h.a.stats().rto_count, 0);
    assert_eq!(h.a.stats().fast_retransmits, 1);
    assert_eq!(h.a.stats().retransmissions, 6);
}

fn loss_sets() -> impl Strategy<Value = (BTreeSet<u64>, BTreeSet<u64>)> {
    (
        proptest::collection::btree_set(0u64..400, 0..25),
        proptest::collection::btree_set(0u64..300, 0..15),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn transfer_completes_in_order_under_any_loss(
        (drops, ack_drops) in loss_sets(),
        sack in any::<bool>(),
        bytes in 1u64..400_000,
    ) {
        let rec = if sack { Recovery::Sack } else { Recovery::NewReno };
        let h = transfer(rec, bytes, drops, ack_drops);
        prop_assert_eq!(h.read, bytes);
        prop_assert_eq!(h.a.stats().bytes_acked, bytes);
        prop_assert_eq!(h.b.stats().bytes_delivered, bytes);
    }
}
