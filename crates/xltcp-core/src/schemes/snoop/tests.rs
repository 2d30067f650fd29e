//! Snoop, segment by segment: what it forwards, suppresses and sends again.

use super::*;
use crate::wire::{PacketMeta, Segment, TcpFlags, TcpOptions};
use std::net::Ipv4Addr;

const ISS: u32 = 5000;
const MSS: u32 = 1000;

/// Sequence number of the first byte of segment `k`.
pub(crate) fn s(k: u32) -> SeqNum {
    SeqNum(ISS + 1 + k * MSS)
}

/// Data segment `k` from the fixed host toward the mobile host.
pub(crate) fn data(k: u32) -> Packet {
    Packet {
        src: Ipv4Addr::new(10, 1, 0, 1),
        dst: Ipv4Addr::new(10, 2, 0, 1),
        ip_id: k as u16,
        ttl: 64,
        tcp: Segment {
            src_port: 5201,
            dst_port: 49152,
            seq: s(k),
            ack: SeqNum(1),
            flags: TcpFlags::ACK,
            window: 1000,
            options: TcpOptions::default(),
            payload_len: MSS,
        },
        meta: PacketMeta {
            flow: 0,
            uid: u64::from(k),
            retransmission: false,
            forged: false,
            iface: 0,
            ..PacketMeta::default()
        },
    }
}

/// The mobile host's ACK of everything before segment `k`.
pub(crate) fn ack(k: u32) -> Packet {
    let mut p = data(0);
    std::mem::swap(&mut p.src, &mut p.dst);
    p.tcp = Segment {
        src_port: 49152,
        dst_port: 5201,
        seq: SeqNum(1),
        ack: s(k),
        flags: TcpFlags::ACK,
        window: 1000,
        options: TcpOptions::default(),
        payload_len: 0,
    };
    p
}

fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

/// The segments (by index) of the packets emitted since the last call.
fn emitted(a: &mut impl Agent) -> Vec<u32> {
    std::iter::from_fn(|| a.poll_action())
        .map(|x| match x {
            Action::Emit {
                packet,
                via: Via::Air,
            } => {
                assert!(packet.meta.forged && packet.meta.retransmission);
                (packet.tcp.seq - s(0)) as u32 / MSS
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

/// Segments `ks` go down through the BS at `now`; all are forwarded.
fn down(sn: &mut Snoop, now: Time, ks: impl IntoIterator<Item = u32>) {
    for k in ks {
        assert_eq!(sn.on_packet(now, Tap::BsDown, &mut data(k)), Verdict::Pass);
    }
}

/// The MH's ACK for segment `k` comes up at `now`: the verdict.
fn up(sn: &mut Snoop, now: Time, k: u32) -> Verdict {
    sn.on_packet(now, Tap::BsUp, &mut ack(k))
}

/// A connection with segments 0..n sent and segment 0 acknowledged.
fn sent(n: u32) -> Snoop {
    let mut sn = Snoop::new();
    down(&mut sn, ms(0), 0..n);
    assert_eq!(up(&mut sn, ms(10), 1), Verdict::Pass);
    sn
}

const F: Verdict = Verdict::Pass;
const S: Verdict = Verdict::Consume;

#[test]
fn a_lost_segment_is_sent_again_on_the_second_dupack() {
    let mut sn = sent(6); // segment 1 lost on the air; 2..5 make dupACKs
    assert_eq!(up(&mut sn, ms(11), 1), F, "first dupACK: forwarded");
    assert!(emitted(&mut sn).is_empty());
    assert_eq!(up(&mut sn, ms(12), 1), S, "second: local retransmission");
    assert_eq!(emitted(&mut sn), vec![1]);
    // Four segments above the hole, two dupACKs seen: two more expected.
    assert_eq!(up(&mut sn, ms(13), 1), S);
    assert_eq!(up(&mut sn, ms(14), 1), S);
    assert!(emitted(&mut sn).is_empty());
    // The retransmission arrives: everything is acknowledged.
    assert_eq!(up(&mut sn, ms(20), 6), F);
    assert_eq!(sn.cached_now(), 0);
    assert_eq!(sn.poll_timeout(), None);
    let c = sn.counters();
    assert_eq!(c.cached, 6);
    assert_eq!(c.local_retransmissions.dupack, 1);
    assert_eq!(c.local_retransmissions.total(), 1);
    assert_eq!((c.dupacks_suppressed, c.dupacks_forwarded), (3, 1));
}

#[test]
fn a_lost_ack_is_covered_by_the_next_one() {
    let mut sn = Snoop::new();
    down(&mut sn, ms(0), 0..4);
    // The ACK of segment 1 is lost on the air; the ACK of 3 arrives.
    assert_eq!(up(&mut sn, ms(10), 4), F);
    assert_eq!(sn.cached_now(), 0);
    assert!(emitted(&mut sn).is_empty());
    assert_eq!(sn.poll_timeout(), None);
    // A late copy of an old ACK is forwarded (ns-2), not taken as a dupACK.
    assert_eq!(up(&mut sn, ms(11), 2), F);
    assert_eq!(sn.counters().dupacks_forwarded, 0);
}

#[test]
fn a_lost_local_retransmission_is_repaired_by_the_timer() {
    let mut sn = sent(4); // segment 1 lost; 2 and 3 make dupACKs
    assert_eq!(up(&mut sn, ms(11), 1), F);
    assert_eq!(up(&mut sn, ms(12), 1), S);
    assert_eq!(emitted(&mut sn), vec![1]);
    // The retransmission is lost too. Two segments above the hole, two
    // dupACKs seen: none expected. New data makes two more dupACKs: the
    // first is forwarded, the second finds the segment already resent.
    down(&mut sn, ms(13), [4, 5]);
    assert_eq!(up(&mut sn, ms(14), 1), F);
    assert_eq!(up(&mut sn, ms(15), 1), F);
    assert!(emitted(&mut sn).is_empty());
    // The timer (armed at the retransmission, 12 ms) sends it again. After
    // one sample of 10 ms from 100 ms / 250 ms: srtt 88.75 ms, rttvar
    // 210 ms: timeout 928.75 ms.
    let due = sn.poll_timeout().unwrap();
    assert_eq!(due, ms(12) + Dur::from_micros(928_750));
    sn.on_timeout(ms(12) + Dur::from_micros(928_749)); // early: nothing
    assert!(emitted(&mut sn).is_empty());
    sn.on_timeout(due);
    assert_eq!(emitted(&mut sn), vec![1]);
    assert_eq!(sn.counters().local_retransmissions.timer, 1);
    assert_eq!(up(&mut sn, due + Dur::from_millis(5), 6), F);
    assert_eq!(sn.cached_now(), 0);
}

#[test]
fn a_burst_of_three_is_repaired_one_segment_per_round() {
    let mut sn = sent(8); // 1, 2, 3 lost; 4..7 make four dupACKs
    assert_eq!(up(&mut sn, ms(11), 1), F);
    assert_eq!(up(&mut sn, ms(12), 1), S);
    assert_eq!(emitted(&mut sn), vec![1]);
    // Six segments above the hole, two dupACKs seen: four expected.
    assert_eq!(up(&mut sn, ms(13), 1), S);
    assert_eq!(up(&mut sn, ms(14), 1), S);
    // Segment 1 arrives: a partial new ACK (the hole moves to 2).
    assert_eq!(up(&mut sn, ms(20), 2), F);
    assert!(emitted(&mut sn).is_empty());
    // New data from the sender makes dupACKs for 2: one round again.
    down(&mut sn, ms(21), [8, 9]);
    assert_eq!(up(&mut sn, ms(22), 2), F);
    assert_eq!(up(&mut sn, ms(23), 2), S);
    assert_eq!(emitted(&mut sn), vec![2]);
    assert_eq!(up(&mut sn, ms(30), 3), F);
    down(&mut sn, ms(31), [10, 11]);
    assert_eq!(up(&mut sn, ms(32), 3), F);
    assert_eq!(up(&mut sn, ms(33), 3), S);
    assert_eq!(emitted(&mut sn), vec![3]);
    assert_eq!(up(&mut sn, ms(40), 12), F);
    assert_eq!(sn.cached_now(), 0);
    let c = sn.counters();
    assert_eq!(c.local_retransmissions.dupack, 3);
    assert_eq!((c.dupacks_suppressed, c.dupacks_forwarded), (5, 3));
}

#[test]
fn reordered_data_is_left_to_the_sender() {
    let mut sn = Snoop::new();
    // Segment 1 reaches the BS after 2 and 3: below the highest data seen,
    // so marked as the sender's.
    down(&mut sn, ms(0), [0, 2, 3, 1]);
    assert_eq!(up(&mut sn, ms(10), 1), F);
    // The MH got 2 and 3 before 1: two dupACKs, both forwarded.
    assert_eq!(up(&mut sn, ms(11), 1), F);
    assert_eq!(up(&mut sn, ms(12), 1), F);
    assert!(emitted(&mut sn).is_empty());
    assert_eq!(up(&mut sn, ms(13), 4), F);
    assert_eq!(sn.counters().dupacks_forwarded, 2);
    assert_eq!(sn.counters().local_retransmissions.total(), 0);
}

#[test]
fn a_dupack_for_an_uncached_segment_is_forwarded() {
    let mut sn = Snoop::new();
    down(&mut sn, ms(0), [0, 2, 3]); // 1 lost before the BS (congestion)
    assert_eq!(up(&mut sn, ms(10), 1), F);
    for t in 11..14 {
        assert_eq!(up(&mut sn, ms(t), 1), F);
    }
    assert!(emitted(&mut sn).is_empty());
    // The sender's fast retransmission is cached and forwarded.
    down(&mut sn, ms(20), [1]);
    assert_eq!(sn.counters().cached, 4);
}

#[test]
fn the_senders_retransmission_of_a_cached_segment_is_marked() {
    let mut sn = sent(4);
    down(&mut sn, ms(11), [1]); // the sender timed out and resent 1
    assert_eq!(sn.counters().sender_retransmissions, 1);
    assert_eq!(up(&mut sn, ms(12), 1), F);
    assert_eq!(
        up(&mut sn, ms(13), 1),
        F,
        "sender-retransmitted: its dupACKs go on"
    );
    assert!(emitted(&mut sn).is_empty());
}

#[test]
fn the_timer_resends_only_what_the_mh_asks_for_and_gives_up_after_ten() {
    let mut sn = sent(3);
    let mut now = ms(10);
    for n in 1..=u64::from(MAX_LOCAL_RXMIT) {
        now = sn.poll_timeout().unwrap();
        sn.on_timeout(now);
        assert_eq!(emitted(&mut sn), vec![1], "round {n}");
    }
    // The eleventh expiry sends nothing and leaves the timer off.
    let due = sn.poll_timeout().unwrap();
    assert!(due > now);
    sn.on_timeout(due);
    assert!(emitted(&mut sn).is_empty());
    assert_eq!(sn.poll_timeout(), None);
    assert_eq!(
        sn.counters().local_retransmissions.timer,
        u64::from(MAX_LOCAL_RXMIT)
    );
}

#[test]
fn a_full_cache_forwards_uncached_and_counts() {
    let mut sn = Snoop::new();
    let n = CACHE_LIMIT as u32;
    down(&mut sn, ms(0), 0..n + 3);
    assert_eq!(sn.cached_now(), CACHE_LIMIT);
    assert_eq!(sn.counters().cache_full, 3);
    assert_eq!(sn.counters().cached, u64::from(n));
}

#[test]
fn connections_are_kept_apart_and_uplink_data_passes() {
    let mut sn = sent(3);
    let mut other = data(1);
    other.tcp.src_port = 5202;
    assert_eq!(sn.on_packet(ms(1), Tap::BsDown, &mut other), F);
    assert_eq!(sn.cached_now(), 3);
    // Uplink data (from the MH) is not cached.
    let mut updata = data(7);
    std::mem::swap(&mut updata.src, &mut updata.dst);
    assert_eq!(sn.on_packet(ms(2), Tap::BsUp, &mut updata), F);
    assert_eq!(sn.cached_now(), 3);
}

#[test]
fn a_segment_dropped_at_the_full_mac_queue_is_left_to_tcp() {
    use crate::signal::{Signal, UndeliveredReason};
    let mut sn = sent(4);
    let full = NodeSignal {
        signal: Signal::Undelivered { frame: 9 },
        reason: Some(UndeliveredReason::QueueFull),
        packet: Some(data(1)),
        delays: None,
        iface: 0,
    };
    assert!(sn.on_signal(ms(10), &full));
    assert_eq!(sn.counters().cache_drops, 1);
    assert_eq!(sn.cached_now(), 2);
    // Its dupACKs go to the sender, whose congestion control must see them.
    for t in 11..14 {
        assert_eq!(up(&mut sn, ms(t), 1), F);
    }
    assert!(emitted(&mut sn).is_empty());
    // A retry-limit report is a wireless loss: Snoop leaves it to dupACKs.
    let retry = NodeSignal {
        reason: Some(UndeliveredReason::RetryLimit),
        packet: Some(data(2)),
        ..full
    };
    assert!(!sn.on_signal(ms(15), &retry));
    assert_eq!(sn.cached_now(), 2);
}
