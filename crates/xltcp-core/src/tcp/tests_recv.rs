//! Scripted tests of the receive side: delayed and immediate ACKs, SACK
//! blocks, the advertised window, zero window and window updates.

use super::fixture::*;
use super::{Config, Profile};
use crate::time::Time;

fn sacked(
    mut seg: crate::wire::Segment,
    blocks: &[(crate::wire::SeqNum, crate::wire::SeqNum)],
) -> crate::wire::Segment {
    seg.options.sack = blocks_of(blocks);
    seg
}

#[test]
fn delayed_ack_on_the_second_full_segment() {
    let mut ep = established(cfg());
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.poll_timeout(), Some(ms(400)));
    assert_eq!(ep.readable(), 1000);
    send!(ep, ms(250), peer(r(1000), s(0), 1000));
    // Right edge kept: 64000 - 2000 unread.
    expect!(ep, ms(250), ours(s(0), r(2000), 0, 62_000));
    expect_nothing!(ep, ms(250));
    assert_eq!(ep.poll_timeout(), None);
}

#[test]
fn delayed_ack_timer_fires_after_the_timeout() {
    let mut ep = established(cfg());
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    ep.handle_timeout(ms(399));
    expect_nothing!(ep, ms(399));
    ep.handle_timeout(ms(400));
    expect!(ep, ms(400), ours(s(0), r(1000), 0, 63_000));
    assert_eq!(ep.stats().acks_sent, 2, "handshake ACK and this one");
}

#[test]
fn no_delay_with_one_segment_per_ack() {
    let mut ep = established(Config {
        delayed_ack_segments: 1,
        ..cfg()
    });
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    expect!(ep, ms(200), ours(s(0), r(1000), 0, 63_000));
}

#[test]
fn ns3_profile_acks_the_first_data_segment_at_once() {
    let mut ep = established(Config {
        profile: Profile::Ns3,
        ..cfg()
    });
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    expect!(ep, ms(200), ours(s(0), r(1000), 0, 63_000));
    send!(ep, ms(210), peer(r(1000), s(0), 1000));
    expect_nothing!(ep, ms(210));
}

#[test]
fn immediate_ack_out_of_order_and_on_gap_fill() {
    let mut ep = established(sack_cfg());
    send!(ep, ms(200), peer(r(1000), s(0), 1000));
    expect!(
        ep,
        ms(200),
        sacked(ours(s(0), r(0), 0, WIN), &[(r(1000), r(2000))])
    );
    assert_eq!(ep.stats().out_of_order_segments, 1);
    assert_eq!(ep.readable(), 0);
    // Filling the gap: immediate ACK for both, no SACK block left.
    send!(ep, ms(210), peer(r(0), s(0), 1000));
    expect!(ep, ms(210), ours(s(0), r(2000), 0, 62_000));
    assert_eq!(ep.readable(), 2000);
}

#[test]
fn immediate_ack_for_a_duplicate_segment() {
    let mut ep = established(cfg());
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    send!(ep, ms(201), peer(r(1000), s(0), 1000));
    let _ = recv!(ep, ms(201));
    send!(ep, ms(300), peer(r(0), s(0), 1000));
    expect!(ep, ms(300), ours(s(0), r(2000), 0, 62_000));
    assert_eq!(ep.stats().duplicate_bytes_received, 1000);
}

#[test]
fn sack_blocks_most_recent_first_at_most_four() {
    let mut ep = established(sack_cfg());
    let mut expected: Vec<(crate::wire::SeqNum, crate::wire::SeqNum)> = Vec::new();
    for (i, k) in [1000u32, 3000, 5000, 7000, 9000].into_iter().enumerate() {
        let t = ms(200 + i as u64);
        send!(ep, t, peer(r(k), s(0), 1000));
        expected.insert(0, (r(k), r(k + 1000)));
        expected.truncate(4);
        expect!(ep, t, sacked(ours(s(0), r(0), 0, WIN), &expected));
    }
    // r(4000) joins 3000..4000 and 5000..6000: that block comes first, then
    // the most recently reported ones, 1000..2000 included again.
    send!(ep, ms(300), peer(r(4000), s(0), 1000));
    let blocks = [
        (r(3000), r(6000)),
        (r(9000), r(10_000)),
        (r(7000), r(8000)),
        (r(1000), r(2000)),
    ];
    expect!(ep, ms(300), sacked(ours(s(0), r(0), 0, WIN), &blocks));
    // The gap at r(0) fills: RCV.NXT moves to r(2000), no trigger block.
    send!(ep, ms(310), peer(r(0), s(0), 1000));
    let blocks = [(r(3000), r(6000)), (r(9000), r(10_000)), (r(7000), r(8000))];
    expect!(ep, ms(310), sacked(ours(s(0), r(2000), 0, 62_000), &blocks));
}

#[test]
fn three_sack_blocks_with_timestamps() {
    let c = Config {
        timestamps: true,
        ..sack_cfg()
    };
    let mut sa = syn_ack(&c);
    sa.options.timestamps = Some((777, 0));
    let mut ep = super::Endpoint::new(c, LP, RP, ISS);
    ep.connect(ms(0));
    let _ = recv!(ep, ms(0));
    send!(ep, ms(100), sa);
    let ack = recv!(ep, ms(100)).segment;
    assert_eq!(ack.options.timestamps, Some((100, 777)));
    assert_eq!(ep.smss(), 1000, "the MSS is the payload, options aside");
    assert_eq!(
        ep.srtt(),
        Some(crate::time::Dur::from_millis(100)),
        "TSecr echoes TSval 0 of the SYN"
    );
    for (i, k) in [1000u32, 3000, 5000, 7000].into_iter().enumerate() {
        let mut seg = peer(r(k), s(0), 100);
        seg.options.timestamps = Some((800 + i as u32, 100));
        send!(ep, ms(200), seg);
        let a = recv!(ep, ms(200)).segment;
        assert_eq!(a.options.sack.len(), (i + 1).min(3));
        assert_eq!(
            a.options.timestamps,
            Some((200, 777)),
            "out of order: TS.Recent kept"
        );
    }
}

#[test]
fn zero_window_keeps_the_edge_and_opens_after_reads() {
    let mut ep = established(Config {
        rcv_buffer: 4000,
        ..cfg()
    });
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    send!(ep, ms(201), peer(r(1000), s(0), 1000));
    expect!(ep, ms(201), ours(s(0), r(2000), 0, 2000));
    send!(ep, ms(202), peer(r(2000), s(0), 1000));
    send!(ep, ms(203), peer(r(3000), s(0), 1000));
    expect!(ep, ms(203), ours(s(0), r(4000), 0, 0));
    // A probe beyond the zero window: dropped, counted, answered.
    send!(ep, ms(300), peer(r(4000), s(0), 1));
    expect!(ep, ms(300), ours(s(0), r(4000), 0, 0));
    assert_eq!(ep.stats().dropped_out_of_window, 1);
    // Reads below the update threshold send nothing (receiver SWS).
    assert_eq!(ep.read(500), 500);
    expect_nothing!(ep, ms(310));
    assert_eq!(ep.read(500), 500);
    expect_nothing!(ep, ms(320));
    // Opening by 2 MSS (= half the buffer) sends a window update.
    assert_eq!(ep.read(1000), 1000);
    expect!(ep, ms(330), ours(s(0), r(4000), 0, 2000));
    assert_eq!(ep.stats().bytes_delivered, 2000);
}

#[test]
fn window_is_never_shrunk_by_scaling_rounding() {
    let c = Config {
        window_scale: true,
        rcv_buffer: 100_000,
        ..cfg()
    };
    let mut ep = Endpoint::new(c.clone(), LP, RP, ISS);
    ep.connect(ms(0));
    let syn = recv!(ep, ms(0)).segment;
    assert_eq!(syn.options.window_scale, Some(1));
    assert_eq!(syn.window, 65_535);
    send!(ep, ms(100), syn_ack(&c));
    // 100000 >> 1.
    assert_eq!(recv!(ep, ms(100)).segment.window, 50_000);
    // 999 bytes arrive: the edge stays; 99001 is odd, so the field rounds up.
    send!(ep, ms(200), peer(r(0), s(0), 999));
    ep.handle_timeout(ms(400));
    let a = recv!(ep, ms(400)).segment;
    assert_eq!(a.ack, r(999));
    assert_eq!(a.window, 49_501);
    assert!(r(999) + 2 * 49_501 >= r(0) + 100_000);
    let _ = Time::ZERO;
}

use super::Endpoint;

mod reassembly_model {
    //! Any arrival order of a stream's segments, with duplicates, delivers
    //! it whole; every SACK block lies in received, unacknowledged data; the
    //! first block holds the segment that triggered the ACK.
    use super::super::fixture::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_arrival_order_reassembles(
            order in Just((0u32..20).collect::<Vec<_>>()).prop_shuffle(),
            dups in proptest::collection::vec(0u32..20, 0..10),
        ) {
            let mut ep = established(sack_cfg());
            let mut got = [false; 20];
            let arrivals: Vec<u32> = order.iter().copied().chain(dups).collect();
            for (i, &k) in arrivals.iter().enumerate() {
                let t = ms(200 + i as u64);
                send!(ep, t, peer(r(1000 * k), s(0), 1000));
                got[k as usize] = true;
                while let Some(tx) = ep.poll_transmit(t) {
                    let seg = tx.segment;
                    let blocks = seg.options.sack.as_slice();
                    for b in blocks {
                        prop_assert!(b.left >= seg.ack && b.left < b.right);
                        let (l, r_) = ((b.left - r(0)) / 1000, (b.right - r(0)) / 1000);
                        for j in l..r_ {
                            prop_assert!(got[j as usize]);
                        }
                    }
                    let seq = r(1000 * k);
                    if seq > seg.ack {
                        let first = blocks[0];
                        prop_assert!(first.left <= seq && seq < first.right);
                    }
                }
            }
            prop_assert_eq!(ep.rcv_nxt(), r(20_000));
            prop_assert_eq!(ep.readable(), 20_000);
            prop_assert!(ep.ooo.is_empty());
        }
    }
}

#[test]
fn dsack_reports_a_duplicate_first_then_forgets_it() {
    let dsack_cfg = || Config {
        dsack: true,
        ..sack_cfg()
    };
    // Below RCV.NXT: the duplicate alone.
    let mut ep = established(dsack_cfg());
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    send!(ep, ms(201), peer(r(1000), s(0), 1000));
    let _ = recv!(ep, ms(201));
    send!(ep, ms(300), peer(r(0), s(0), 1000));
    expect!(
        ep,
        ms(300),
        sacked(ours(s(0), r(2000), 0, 62_000), &[(r(0), r(1000))])
    );
    send!(ep, ms(310), peer(r(2000), s(0), 1000));
    send!(ep, ms(311), peer(r(3000), s(0), 1000));
    expect!(ep, ms(311), ours(s(0), r(4000), 0, 60_000));
    // Out of order, received twice: the duplicate, then the block holding it.
    let mut ep = established(dsack_cfg());
    send!(ep, ms(200), peer(r(1000), s(0), 2000));
    let _ = recv!(ep, ms(200));
    send!(ep, ms(210), peer(r(2000), s(0), 1000));
    expect!(
        ep,
        ms(210),
        sacked(
            ours(s(0), r(0), 0, WIN),
            &[(r(2000), r(3000)), (r(1000), r(3000))]
        )
    );
    // Without DSACK, the same duplicate adds no block.
    let mut ep = established(sack_cfg());
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    send!(ep, ms(201), peer(r(1000), s(0), 1000));
    let _ = recv!(ep, ms(201));
    send!(ep, ms(300), peer(r(0), s(0), 1000));
    expect!(ep, ms(300), ours(s(0), r(2000), 0, 62_000));
}

/// Whether a 1000-byte segment at `seq` arriving at `at` is ACKed at once.
fn acked_at_once(ep: &mut super::Endpoint, seq: u32, at: Time) -> bool {
    send!(ep, at, peer(r(seq), s(0), 1000));
    ep.poll_transmit(at).is_some()
}

/// [`acked_at_once`] for the segments `ks` (the k-th at 1000·k), the k-th
/// arriving at `from_ms` + k ms.
fn acked_each(ep: &mut super::Endpoint, ks: std::ops::Range<u32>, from_ms: u64) -> Vec<bool> {
    ks.map(|k| acked_at_once(ep, 1000 * k, ms(from_ms + u64::from(k))))
        .collect()
}

#[test]
fn quick_acks_after_the_first_data_and_after_a_duplicate() {
    let mut ep = established(Config {
        quickacks: 4,
        ..cfg()
    });
    // The first data: each of the next four segments ACKed at once, then
    // every second one again.
    let got = acked_each(&mut ep, 0..7, 200);
    assert_eq!(got, [true, true, true, true, false, true, false]);
    // A wholly duplicate segment: ACKed at once, and three quick ACKs more.
    assert!(acked_at_once(&mut ep, 0, ms(300)));
    let got = acked_each(&mut ep, 7..12, 300);
    assert_eq!(got, [true, true, true, false, true]);
    // Without quick ACKs, every second segment only.
    let mut ep = established(cfg());
    let got = acked_each(&mut ep, 0..4, 200);
    assert_eq!(got, [false, true, false, true]);
}

#[test]
fn quick_acks_again_after_a_gap_longer_than_the_rto() {
    let mut ep = established(Config {
        quickacks: 2,
        ..cfg()
    });
    let got = acked_each(&mut ep, 0..4, 200);
    assert_eq!(got, [true, true, false, true]);
    // Data again 10 s later, well past the RTO: quick ACKs again.
    let got = acked_each(&mut ep, 4..8, 10_000);
    assert_eq!(got, [true, true, false, true]);
}

/// A 1000-byte segment at `seq` with PSH.
fn pushed(seq: u32) -> crate::wire::Segment {
    let mut seg = peer(r(seq), s(0), 1000);
    seg.flags |= crate::wire::TcpFlags::PSH;
    seg
}

#[test]
fn ack_pushed_acks_the_end_of_a_write_at_once() {
    let mut ep = established(Config {
        ack_pushed: true,
        ..cfg()
    });
    // Full segments without PSH: every second one.
    assert_eq!(acked_each(&mut ep, 0..2, 200), [false, true]);
    // One with PSH: at once.
    send!(ep, ms(202), pushed(2000));
    expect!(ep, ms(202), ours(s(0), r(3000), 0, 61_000));
    // A segment shorter than the largest seen: at once as well.
    send!(ep, ms(203), peer(r(3000), s(0), 500));
    expect!(ep, ms(203), ours(s(0), r(3500), 0, 60_500));
    // Without the rule, PSH changes nothing.
    let mut ep = established(cfg());
    send!(ep, ms(200), pushed(0));
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.poll_timeout(), Some(ms(400)));
}

#[test]
fn delayed_ack_ato_follows_the_arrivals_as_linux() {
    let mut ep = established(Config {
        delayed_ack_ato: true,
        ..cfg()
    });
    // The first data: 40 ms.
    send!(ep, ms(200), peer(r(0), s(0), 1000));
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.poll_timeout(), Some(ms(240)));
    ep.handle_timeout(ms(240));
    let _ = recv!(ep, ms(240));
    // The timer fired: 80 ms next (below the SRTT of 100 ms).
    send!(ep, ms(300), peer(r(1000), s(0), 1000));
    assert_eq!(ep.poll_timeout(), Some(ms(380)));
    // Segments 10 ms apart: 80/2 + 20 = 60 ms, then 60/2 + 20 = 50 ms.
    send!(ep, ms(310), peer(r(2000), s(0), 1000));
    let _ = recv!(ep, ms(310));
    send!(ep, ms(320), peer(r(3000), s(0), 1000));
    assert_eq!(ep.poll_timeout(), Some(ms(370)));
}

#[test]
fn snd_buffer_auto_keeps_twice_cwnd_written() {
    let mut ep = established(Config {
        snd_buffer_auto: true,
        ..cfg()
    });
    // cwnd 10 segments of 1000 B: 20 000 B may be written.
    assert_eq!(ep.write(100_000), 20_000);
    assert_eq!(ep.write(1), 0);
    // Without, the whole send buffer.
    let mut ep = established(cfg());
    assert_eq!(ep.write(100_000), ep.config().snd_buffer.min(100_000));
}

#[test]
fn snd_buffer_auto_writes_into_a_full_buffer_once_two_segments_are_free() {
    for auto in [true, false] {
        let mut ep = established(Config {
            snd_buffer_auto: auto,
            snd_buffer: 20_000,
            ..cfg()
        });
        assert_eq!(ep.write(100_000), 20_000);
        send_segments(&mut ep, ms(100), 0, 10);
        // One segment acknowledged: 1000 B free.
        send!(ep, ms(200), peer(r(0), s(1000), 0));
        let one = ep.write(100_000);
        // A second: 2000 B free with the rule, 1000 B without.
        send!(ep, ms(201), peer(r(0), s(2000), 0));
        let two = ep.write(100_000);
        assert_eq!((one, two), if auto { (0, 2000) } else { (1000, 1000) });
        // A write that does not fill the buffer is taken whole.
        send!(ep, ms(202), peer(r(0), s(3000), 0));
        assert_eq!(ep.write(400), 400);
    }
}

#[test]
fn ack_window_growth_acks_each_segment_while_the_window_grows() {
    let c = Config {
        rcv_buffer: 1_000_000,
        ..cfg()
    };
    let grows = Config {
        ack_window_growth: true,
        ..c
    };
    // Segments of 1000 B a millisecond apart. The threshold starts at
    // 65 000 B, 536 B below the first buffer's window: one growth, one
    // quick ACK. The 65th segment ends the first window received (65 ms,
    // the receiver's round trip); read at once, it grows the buffer to
    // the 1 MB allowed, and each segment after grows the threshold again.
    let got = acked_each(&mut established(grows), 0..100, 200);
    assert!(got[0]);
    let every_second = |ks: std::ops::Range<usize>| ks.map(|k| k % 2 == 0).collect::<Vec<_>>();
    assert_eq!(got[1..66], every_second(1..66)[..]);
    assert!(got[66..].iter().all(|&a| a));
    // Without: every second segment throughout.
    let got = acked_each(&mut established(c), 0..100, 200);
    assert_eq!(
        got,
        every_second(0..100).iter().map(|&e| !e).collect::<Vec<_>>()
    );
}
