//! SNACK (the reconstruction), segment by segment, in both directions.

use super::*;
use crate::schemes::snoop::tests::{ack, data, s};
use crate::wire::TcpFlags;

const MSS: u32 = 1000;

fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

fn index(seq: SeqNum) -> u32 {
    (seq - s(0)) as u32 / MSS
}

/// The data segments (by index) emitted since the last call.
fn emitted(a: &mut impl Agent) -> Vec<u32> {
    std::iter::from_fn(|| a.poll_action())
        .map(|x| match x {
            Action::Emit {
                packet,
                via: Via::Air,
            } => {
                assert!(packet.meta.forged && packet.meta.retransmission);
                index(packet.tcp.seq)
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

/// The MH's ACK of everything before `k` with SACK blocks of segments
/// `[a, b)`.
fn sack_ack(k: u32, blocks: &[(u32, u32)]) -> Packet {
    let mut p = ack(k);
    for &(a, b) in blocks {
        p.tcp.options.sack.push(SackBlock {
            left: s(a),
            right: s(b),
        });
    }
    p
}

fn down(bs: &mut SnackBs, now: Time, ks: impl IntoIterator<Item = u32>) {
    for k in ks {
        assert_eq!(bs.on_packet(now, Tap::BsDown, &mut data(k)), Verdict::Pass);
    }
}

fn up(bs: &mut SnackBs, now: Time, mut p: Packet) -> Verdict {
    bs.on_packet(now, Tap::BsUp, &mut p)
}

/// Segments 0..n sent down, 0 acknowledged.
fn sent(n: u32) -> SnackBs {
    let mut bs = SnackBs::new();
    down(&mut bs, ms(0), 0..n);
    assert_eq!(up(&mut bs, ms(10), ack(1)), Verdict::Pass);
    bs
}

#[test]
fn a_lost_segment_goes_again_on_the_first_dupack() {
    let mut bs = sent(5);
    assert_eq!(
        up(&mut bs, ms(11), sack_ack(1, &[(2, 3)])),
        Verdict::Consume
    );
    assert_eq!(emitted(&mut bs), vec![1]);
    // Within one local timeout it is not sent again; dupACKs still kept.
    assert_eq!(
        up(&mut bs, ms(12), sack_ack(1, &[(2, 4)])),
        Verdict::Consume
    );
    assert_eq!(
        up(&mut bs, ms(13), sack_ack(1, &[(2, 5)])),
        Verdict::Consume
    );
    assert!(emitted(&mut bs).is_empty());
    assert_eq!(up(&mut bs, ms(20), ack(5)), Verdict::Pass);
    assert_eq!(bs.cached_now(), 0);
    let st = bs.counters();
    assert_eq!(st.reconstruction, RECONSTRUCTION);
    assert_eq!(st.cache.local_retransmissions.snack, 1);
    assert_eq!(st.cache.dupacks_suppressed, 3);
    assert_eq!(st.holes_reported, 3);
}

#[test]
fn a_lost_ack_is_covered_by_the_next_one() {
    let mut bs = SnackBs::new();
    down(&mut bs, ms(0), 0..4);
    assert_eq!(up(&mut bs, ms(10), ack(4)), Verdict::Pass);
    assert_eq!(bs.cached_now(), 0);
    assert!(emitted(&mut bs).is_empty());
    assert_eq!(bs.poll_timeout(), None);
}

#[test]
fn a_lost_local_retransmission_goes_again_after_a_local_timeout() {
    let mut bs = sent(4);
    assert_eq!(
        up(&mut bs, ms(11), sack_ack(1, &[(2, 3)])),
        Verdict::Consume
    );
    assert_eq!(emitted(&mut bs), vec![1]);
    // Lost again. One sample of 10 ms: timeout 928.75 ms.
    let timeout = Dur::from_micros(928_750);
    let later = ms(11) + timeout;
    assert_eq!(
        up(&mut bs, ms(12), sack_ack(1, &[(2, 4)])),
        Verdict::Consume
    );
    assert!(emitted(&mut bs).is_empty());
    assert_eq!(up(&mut bs, later, sack_ack(1, &[(2, 4)])), Verdict::Consume);
    assert_eq!(emitted(&mut bs), vec![1]);
    // With no dupACK at all, the timer sends it.
    let due = bs.poll_timeout().unwrap();
    assert_eq!(due, later + timeout);
    bs.on_timeout(due);
    assert_eq!(emitted(&mut bs), vec![1]);
    let st = bs.counters().cache.local_retransmissions;
    assert_eq!((st.snack, st.timer), (2, 1));
}

#[test]
fn a_burst_of_three_goes_again_in_one_round() {
    let mut bs = sent(8); // 1, 2, 3 lost
    assert_eq!(
        up(&mut bs, ms(11), sack_ack(1, &[(4, 5)])),
        Verdict::Consume
    );
    assert_eq!(emitted(&mut bs), vec![1, 2, 3]);
    // The MH's later dupACKs name the same holes: kept, nothing resent.
    assert_eq!(
        up(&mut bs, ms(12), sack_ack(1, &[(4, 8)])),
        Verdict::Consume
    );
    assert!(emitted(&mut bs).is_empty());
    assert_eq!(up(&mut bs, ms(20), ack(8)), Verdict::Pass);
    assert_eq!(bs.counters().cache.local_retransmissions.snack, 3);
}

#[test]
fn reordered_data_counts_as_sent_this_round() {
    let mut bs = SnackBs::new();
    down(&mut bs, ms(0), [0, 2, 1]); // 1 reaches the BS after 2
    assert_eq!(up(&mut bs, ms(10), ack(1)), Verdict::Pass);
    // The MH got 2 before 1, which is still on its way: below the highest
    // data seen, 1 went out this round, so it is not sent again.
    assert_eq!(
        up(&mut bs, ms(11), sack_ack(1, &[(2, 3)])),
        Verdict::Consume
    );
    assert!(emitted(&mut bs).is_empty());
    assert_eq!(up(&mut bs, ms(12), ack(3)), Verdict::Pass);
}

#[test]
fn a_hole_the_bs_never_had_is_the_senders() {
    let mut bs = SnackBs::new();
    down(&mut bs, ms(0), [0, 2, 3]); // 1 lost before the BS
    assert_eq!(up(&mut bs, ms(10), ack(1)), Verdict::Pass);
    let dup = sack_ack(1, &[(2, 3)]);
    let mut seen = dup;
    assert_eq!(bs.on_packet(ms(11), Tap::BsUp, &mut seen), Verdict::Pass);
    assert_eq!(seen, dup, "forwarded with its SACK blocks untouched");
    assert!(emitted(&mut bs).is_empty());
    assert_eq!(bs.counters().cache.dupacks_forwarded, 1);
}

/// Uplink segment `k` from the MH, as the BS sees it.
fn updata(k: u32) -> Packet {
    let mut p = data(k);
    std::mem::swap(&mut p.src, &mut p.dst);
    std::mem::swap(&mut p.tcp.src_port, &mut p.tcp.dst_port);
    p
}

/// The FH's ACK of uplink data before `k`, as the MH sees it.
fn fh_ack(k: u32) -> Packet {
    let mut p = ack(k);
    std::mem::swap(&mut p.src, &mut p.dst);
    std::mem::swap(&mut p.tcp.src_port, &mut p.tcp.dst_port);
    p
}

/// The SNACKs emitted: (ACK number, SACK blocks) by segment index.
fn snacks(bs: &mut SnackBs) -> Vec<(u32, Vec<(u32, u32)>)> {
    std::iter::from_fn(|| bs.poll_action())
        .map(|x| match x {
            Action::Emit {
                packet,
                via: Via::Air,
            } => {
                assert!(packet.meta.forged && packet.tcp.payload_len == 0);
                assert_eq!((packet.src, packet.dst), (updata(0).dst, updata(0).src));
                let blocks = packet.tcp.options.sack.as_slice();
                let blocks = blocks.iter().map(|b| (index(b.left), index(b.right)));
                (index(packet.tcp.ack), blocks.collect())
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
fn uplink_holes_go_to_the_mh_in_one_snack_and_again_while_open() {
    let mut bs = SnackBs::new();
    let mut syn = updata(0);
    syn.tcp.seq = s(0) - 1;
    syn.tcp.flags = TcpFlags::SYN;
    syn.tcp.payload_len = 0;
    assert_eq!(up(&mut bs, ms(0), syn), Verdict::Pass);
    for k in [0, 2] {
        assert_eq!(up(&mut bs, ms(1), updata(k)), Verdict::Pass);
    }
    // The SNACK names the missing block: segment 1.
    assert_eq!(snacks(&mut bs), vec![(1, vec![(1, 2)])]);
    // A new hole: only it is named (1 was asked for just now).
    assert_eq!(up(&mut bs, ms(2), updata(4)), Verdict::Pass);
    assert_eq!(snacks(&mut bs), vec![(3, vec![(3, 4)])]);
    // Data in order names nothing.
    assert_eq!(up(&mut bs, ms(3), updata(5)), Verdict::Pass);
    assert!(snacks(&mut bs).is_empty());
    // Both still open one local timeout later (1.1 s before any sample).
    let due = bs.poll_timeout().unwrap();
    assert_eq!(due, ms(1100) + Dur::from_millis(2));
    bs.on_timeout(due);
    assert_eq!(snacks(&mut bs), vec![(1, vec![(1, 2), (3, 4)])]);
    // Both holes filled: the next expiry sends nothing.
    for k in [1, 3] {
        assert_eq!(up(&mut bs, due, updata(k)), Verdict::Pass);
    }
    bs.on_timeout(bs.poll_timeout().unwrap());
    assert!(snacks(&mut bs).is_empty());
    assert_eq!(bs.counters().snacks_sent, 3);
}

#[test]
fn snack_tcp_resends_every_named_hole_and_keeps_their_dupacks_from_tcp() {
    let mut mh = SnackTcp::new();
    for k in 0..6 {
        assert_eq!(
            mh.on_packet(ms(0), Tap::HostOut, &mut updata(k)),
            Verdict::Pass
        );
    }
    assert_eq!(
        mh.on_packet(ms(5), Tap::HostIn, &mut fh_ack(1)),
        Verdict::Pass
    );
    // The BS lacks 1 and 3: the SNACK names them.
    let mut snack = fh_ack(1);
    snack.meta.forged = true;
    for (a, b) in [(1, 2), (3, 4)] {
        snack.tcp.options.sack.push(SackBlock {
            left: s(a),
            right: s(b),
        });
    }
    assert_eq!(
        mh.on_packet(ms(6), Tap::HostIn, &mut snack),
        Verdict::Consume
    );
    assert_eq!(emitted(&mut mh), vec![1, 3]);
    // The FH's dupACKs for the holes never reach TCP.
    assert_eq!(
        mh.on_packet(ms(7), Tap::HostIn, &mut fh_ack(1)),
        Verdict::Consume
    );
    assert_eq!(
        mh.on_packet(ms(8), Tap::HostIn, &mut fh_ack(3)),
        Verdict::Pass
    );
    assert_eq!(
        mh.on_packet(ms(9), Tap::HostIn, &mut fh_ack(3)),
        Verdict::Consume
    );
    assert_eq!(
        mh.on_packet(ms(10), Tap::HostIn, &mut fh_ack(6)),
        Verdict::Pass
    );
    // A dupACK with no hole named is TCP's.
    assert_eq!(
        mh.on_packet(ms(11), Tap::HostIn, &mut fh_ack(6)),
        Verdict::Pass
    );
    let st = mh.counters();
    assert_eq!((st.snacks_received, st.holes_reported), (1, 2));
    assert_eq!(st.cache.local_retransmissions.snack, 2);
    assert_eq!(
        (st.cache.dupacks_suppressed, st.cache.dupacks_forwarded),
        (2, 1)
    );
}

#[test]
fn snack_tcp_leaves_its_own_queue_drops_to_tcp() {
    use crate::schemes::NodeSignal;
    use crate::signal::{Signal, UndeliveredReason};
    let mut mh = SnackTcp::new();
    for k in 0..3 {
        mh.on_packet(ms(0), Tap::HostOut, &mut updata(k));
    }
    let full = NodeSignal {
        signal: Signal::Undelivered { frame: 1 },
        reason: Some(UndeliveredReason::QueueFull),
        packet: Some(updata(1)),
        delays: None,
        iface: 0,
    };
    assert!(mh.on_signal(ms(1), &full));
    let mut snack = fh_ack(1);
    snack.meta.forged = true;
    snack.tcp.options.sack.push(SackBlock {
        left: s(1),
        right: s(2),
    });
    assert_eq!(
        mh.on_packet(ms(2), Tap::HostIn, &mut snack),
        Verdict::Consume
    );
    assert!(emitted(&mut mh).is_empty(), "no copy: congestion is TCP's");
    assert_eq!(
        mh.on_packet(ms(3), Tap::HostIn, &mut fh_ack(1)),
        Verdict::Pass
    );
    assert_eq!(
        mh.on_packet(ms(4), Tap::HostIn, &mut fh_ack(1)),
        Verdict::Pass
    );
    assert_eq!(mh.counters().cache.cache_drops, 1);
}
