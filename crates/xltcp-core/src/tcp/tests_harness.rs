//! End-to-end tests over the two-endpoint harness, and the transfer property test.

use super::harness::{Dir, Harness};
use super::{Config, FrtoVariant, Recovery, RttSampling, State};
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

fn drop_sets(drops: BTreeSet<u64>, ack_drops: BTreeSet<u64>) -> super::harness::LossFn {
    Box::new(
        move |dir: Dir, n: u64, _s: &crate::wire::Segment| match dir {
            Dir::AtoB => drops.contains(&n),
            Dir::BtoA => ack_drops.contains(&n),
        },
    )
}

fn transfer(
    recovery: Recovery,
    bytes: u64,
    drops: BTreeSet<u64>,
    ack_drops: BTreeSet<u64>,
) -> Harness {
    let loss = drop_sets(drops, ack_drops);
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
        assert_eq!(h.a.srtt(), Some(Dur::from_millis(40)));
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
    let h = transfer(Recovery::Sack, 300_000, drops.clone(), BTreeSet::new());
    assert_eq!(h.read, 300_000);
    assert_eq!(h.a.stats().rto_count, 0);
    assert_eq!(h.a.stats().fast_retransmits, 1);
    assert_eq!(h.a.stats().retransmissions, 6);
    // NewReno repairs one hole per RTT, with the same bytes delivered.
    let n = transfer(Recovery::NewReno, 300_000, drops, BTreeSet::new());
    assert_eq!(n.read, 300_000);
    assert_eq!(n.a.stats().fast_retransmits, 1);
    assert!(n.now > h.now, "NewReno takes longer than SACK");
}

#[test]
fn slow_reader_forces_zero_window_probes() {
    let small = Config {
        rcv_buffer: 8 * 1448,
        ..cfg(Recovery::Sack)
    };
    let mut h = Harness::new(
        cfg(Recovery::Sack),
        small,
        Dur::from_millis(5),
        drop_sets(BTreeSet::new(), BTreeSet::new()),
    );
    h.to_write = 200_000;
    h.read_period = Some(Dur::from_secs(2));
    h.read_chunk = 4 * 1448;
    h.run(Time::ZERO + Dur::from_secs(4000));
    assert_eq!(h.read, 200_000);
    assert!(h.a.stats().zero_window_probes > 0);
    assert_eq!(h.a.stats().rto_count, 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn bidirectional_transfer_completes_under_loss(
        (drops, ack_drops) in loss_sets(),
        sack in any::<bool>(),
        ts in any::<bool>(),
        a_bytes in 1u64..150_000,
        b_bytes in 1u64..150_000,
    ) {
        let c = variant(sack, ts, 2, false, false, false);
        let mut h = Harness::new(c.clone(), c, Dur::from_millis(15), drop_sets(drops, ack_drops));
        h.to_write = a_bytes;
        h.to_write_b = b_bytes;
        h.close_when_done = true;
        h.run(Time::ZERO + Dur::from_secs(20_000));
        prop_assert_eq!(h.read, a_bytes);
        prop_assert_eq!(h.read_a, b_bytes);
        prop_assert_eq!(h.a.state(), State::Closed);
        prop_assert_eq!(h.b.state(), State::Closed);
    }
}

fn loss_sets() -> impl Strategy<Value = (BTreeSet<u64>, BTreeSet<u64>)> {
    (
        proptest::collection::btree_set(0u64..400, 0..25),
        proptest::collection::btree_set(0u64..300, 0..15),
    )
}

fn variant(sack: bool, ts: bool, delack: u32, small: bool, frto: bool, rack: bool) -> Config {
    Config {
        recovery: if sack {
            Recovery::Sack
        } else {
            Recovery::NewReno
        },
        timestamps: ts,
        delayed_ack_segments: delack,
        rcv_buffer: if small { 6000 } else { 256 * 1024 },
        frto,
        // The Linux-like variant: Linux's F-RTO and Eifel undo beside RACK.
        frto_variant: if rack {
            FrtoVariant::Linux
        } else {
            FrtoVariant::Rfc5682
        },
        eifel: rack,
        rack,
        tlp: rack,
        prr: rack,
        rtt_sampling: if rack {
            RttSampling::EveryAck
        } else {
            RttSampling::Timed
        },
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn transfer_completes_in_order_under_any_loss(
        (drops, ack_drops) in loss_sets(),
        sack in any::<bool>(),
        ts in any::<bool>(),
        delack in 1u32..4,
        small in any::<bool>(),
        frto in any::<bool>(),
        rack in any::<bool>(),
        slow_reader in any::<bool>(),
        bytes in 1u64..300_000,
    ) {
        let run = || {
            let c = variant(sack, ts, delack, small, frto, rack);
            let loss = drop_sets(drops.clone(), ack_drops.clone());
            let mut h = Harness::new(c.clone(), c, Dur::from_millis(20), loss);
            h.to_write = bytes;
            h.close_when_done = true;
            if slow_reader {
                h.read_period = Some(Dur::from_millis(300));
                h.read_chunk = 3000;
            }
            h.run(Time::ZERO + Dur::from_secs(20_000));
            h
        };
        let h = run();
        prop_assert_eq!(h.read, bytes);
        prop_assert_eq!(h.a.stats().bytes_acked, bytes);
        prop_assert_eq!(h.b.stats().bytes_delivered, bytes);
        prop_assert_eq!(h.a.state(), State::Closed);
        // Determinism: the same inputs give the same run.
        let again = run();
        prop_assert_eq!(again.a.stats(), h.a.stats());
        prop_assert_eq!(again.b.stats(), h.b.stats());
        prop_assert_eq!(again.now, h.now);
    }
}

mod fuzz {
    //! Arbitrary segments never panic an endpoint, in any state.
    use super::super::fixture::*;
    use super::super::Endpoint;
    use crate::time::Dur;
    use crate::wire::{SackBlock, SackBlocks, Segment, SeqNum, TcpFlags, TcpOptions};
    use proptest::prelude::*;

    fn any_segment() -> impl Strategy<Value = Segment> {
        (
            (
                any::<u32>(),
                any::<u32>(),
                -3000i32..30_000,
                -3000i32..30_000,
            ),
            (
                any::<u8>(),
                any::<u16>(),
                prop_oneof![0u32..3000, any::<u32>()],
            ),
            (
                any::<bool>(),
                proptest::collection::vec((-2000i32..20_000, 0u32..5000), 0..5),
            ),
            (
                proptest::option::of(any::<u16>()),
                proptest::option::of(any::<u8>()),
            ),
        )
            .prop_map(
                |((rs, ra, near_seq, near_ack), (flags, window, len), (near, sack), (mss, ws))| {
                    let (seq, ack) = if near {
                        (r(0) + near_seq as u32, s(0) + near_ack as u32)
                    } else {
                        (SeqNum(rs), SeqNum(ra))
                    };
                    let mut blocks = SackBlocks::new();
                    for (l, n) in sack {
                        let left = s(0) + l as u32;
                        blocks.push(SackBlock {
                            left,
                            right: left + n,
                        });
                    }
                    Segment {
                        src_port: RP,
                        dst_port: LP,
                        seq,
                        ack,
                        flags: TcpFlags(flags),
                        window,
                        options: TcpOptions {
                            mss,
                            window_scale: ws,
                            sack_permitted: flags & 1 == 0,
                            sack: blocks,
                            timestamps: None,
                        },
                        payload_len: len,
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        #[test]
        fn arbitrary_input_never_panics(
            segs in proptest::collection::vec(any_segment(), 1..40),
            sack in any::<bool>(),
            listen in any::<bool>(),
        ) {
            let mut ep = if listen {
                let mut ep = Endpoint::new(sack_cfg(), LP, RP, ISS);
                ep.listen();
                ep
            } else {
                established(if sack { sack_cfg() } else { cfg() })
            };
            ep.write(50_000);
            let mut t = ms(100);
            for (i, seg) in segs.iter().enumerate() {
                t += Dur::from_millis(37);
                ep.handle_segment(t, seg);
                while ep.poll_transmit(t).is_some() {}
                if i % 3 == 0 {
                    if let Some(d) = ep.poll_timeout() {
                        t = t.max(d);
                        ep.handle_timeout(t);
                        while ep.poll_transmit(t).is_some() {}
                    }
                }
                let _ = ep.read(1000);
                prop_assert!(ep.snd_una() <= ep.snd_max());
                while ep.poll_event().is_some() {}
            }
        }
    }
}
