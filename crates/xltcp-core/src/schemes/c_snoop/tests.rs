//! C-Snoop, segment by segment: what each delivery report and ACK does.

use super::*;
use crate::schemes::snoop::tests::{ack, data, s};
use crate::signal::MacDelays;

const MSS: u32 = 1000;

fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

/// The segments (by index) emitted since the last call, all onto the air
/// as forged retransmissions, with whether ahead of the MAC queue.
fn emitted_via(a: &mut CSnoop) -> Vec<(u32, bool)> {
    std::iter::from_fn(|| a.poll_action())
        .map(|x| match x {
            Action::Emit { packet, via } => {
                assert!(packet.meta.forged && packet.meta.retransmission);
                assert!(matches!(via, Via::Air | Via::AirFirst));
                ((packet.tcp.seq - s(0)) as u32 / MSS, via == Via::AirFirst)
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

/// The segments (by index) emitted since the last call.
fn emitted(a: &mut CSnoop) -> Vec<u32> {
    emitted_via(a).into_iter().map(|(k, _)| k).collect()
}

/// The MAC's `delivered` for `p`, queued 1 ms and sent in 1 ms
/// (`W_RTT` = 2 ms).
fn delivered(p: Packet) -> NodeSignal {
    NodeSignal {
        signal: Signal::Delivered { frame: 0 },
        reason: None,
        packet: Some(p),
        delays: Some(MacDelays {
            queue: Dur::from_millis(1),
            tx: Dur::from_millis(1),
            attempts: 1,
        }),
        iface: 0,
    }
}

fn undelivered(p: Packet, reason: UndeliveredReason) -> NodeSignal {
    NodeSignal {
        signal: Signal::Undelivered { frame: 0 },
        reason: Some(reason),
        packet: Some(p),
        delays: None,
        iface: 0,
    }
}

/// The BS's agent after segments `0..n` went down.
fn bs_sent(n: u32) -> CSnoop {
    let mut c = CSnoop::at_bs();
    for k in 0..n {
        assert_eq!(c.on_packet(ms(0), Tap::BsDown, &mut data(k)), Verdict::Pass);
    }
    c
}

fn report(c: &mut CSnoop, now: Time, sig: NodeSignal) {
    assert!(c.on_signal(now, &sig));
}

fn lost(c: &mut CSnoop, now: Time, k: u32) {
    report(c, now, undelivered(data(k), UndeliveredReason::RetryLimit));
}

fn up(c: &mut CSnoop, now: Time, k: u32) -> Verdict {
    c.on_packet(now, Tap::BsUp, &mut ack(k))
}

#[test]
fn a_lost_segment_goes_again_when_the_next_one_is_delivered() {
    let mut c = bs_sent(4);
    report(&mut c, ms(1), delivered(data(0)));
    // W_RTT 2 ms: SW_RTT 2 ms, RW_RTT 1 ms, timer 6 ms.
    assert_eq!(c.timer(), Dur::from_millis(6));
    lost(&mut c, ms(2), 1);
    assert_eq!(c.poll_timeout(), Some(ms(8)));
    assert!(emitted(&mut c).is_empty());
    report(&mut c, ms(3), delivered(data(2)));
    assert_eq!(
        emitted_via(&mut c),
        vec![(1, true)],
        "priority retransmission"
    );
    assert_eq!(c.poll_timeout(), None, "its timer is off");
    report(&mut c, ms(4), delivered(data(1)));
    assert_eq!(c.cached_now(), 1); // segment 3, still in the MAC
    assert_eq!(up(&mut c, ms(5), 4), Verdict::Pass);
    assert_eq!(c.cached_now(), 0);
    let st = c.counters();
    assert_eq!(st.cached, 4);
    assert_eq!(st.local_retransmissions.delivered_priority, 1);
    assert_eq!(st.local_retransmissions.total(), 1);
}

#[test]
fn with_nothing_else_delivered_the_timer_sends_it() {
    let mut c = bs_sent(2);
    report(&mut c, ms(1), delivered(data(0)));
    lost(&mut c, ms(2), 1);
    c.on_timeout(ms(7)); // early: nothing
    assert!(emitted(&mut c).is_empty());
    c.on_timeout(ms(8));
    assert_eq!(emitted_via(&mut c), vec![(1, false)], "behind the queue");
    assert_eq!(c.poll_timeout(), None);
    assert_eq!(c.counters().local_retransmissions.undelivered, 1);
}

#[test]
fn a_lost_tcp_ack_needs_nothing_and_a_lost_mac_ack_is_cancelled_by_the_tcp_ack() {
    let mut c = bs_sent(3);
    report(&mut c, ms(1), delivered(data(0)));
    report(&mut c, ms(2), delivered(data(1)));
    // The TCP ACK of 0 and 1 is lost on the air: nothing was cached anyway.
    assert_eq!(c.cached_now(), 1);
    // Segment 2 arrived but every MAC-ACK was lost: `undelivered`.
    lost(&mut c, ms(3), 2);
    assert!(c.poll_timeout().is_some());
    // The receiver's TCP ACK covers it before the timer: no retransmission.
    assert_eq!(up(&mut c, ms(4), 3), Verdict::Pass);
    assert_eq!(c.poll_timeout(), None);
    c.on_timeout(ms(100));
    assert!(emitted(&mut c).is_empty());
    assert_eq!(c.counters().local_retransmissions.total(), 0);
}

#[test]
fn a_lost_retransmission_is_lost_again_and_sent_again() {
    let mut c = bs_sent(3);
    report(&mut c, ms(1), delivered(data(0)));
    assert_eq!(up(&mut c, ms(1), 1), Verdict::Pass);
    lost(&mut c, ms(2), 1);
    c.on_timeout(ms(8));
    assert_eq!(emitted(&mut c), vec![1]);
    // The receiver got 2: its dupACK asks for 1, under local repair.
    report(&mut c, ms(9), delivered(data(2)));
    assert!(emitted(&mut c).is_empty(), "1 is in the MAC, not lost");
    assert_eq!(up(&mut c, ms(10), 1), Verdict::Consume);
    // The local retransmission is given up too, then sent a third time.
    lost(&mut c, ms(11), 1);
    let due = c.poll_timeout().unwrap();
    c.on_timeout(due);
    assert_eq!(emitted(&mut c), vec![1]);
    report(&mut c, due + Dur::from_millis(1), delivered(data(1)));
    assert_eq!(c.cached_now(), 0);
    // A dupACK sent before the repair landed is still kept from the sender.
    assert_eq!(up(&mut c, due + Dur::from_millis(2), 1), Verdict::Consume);
    assert_eq!(up(&mut c, due + Dur::from_millis(3), 3), Verdict::Pass);
    let st = c.counters();
    assert_eq!(st.local_retransmissions.undelivered, 2);
    assert_eq!((st.dupacks_suppressed, st.dupacks_forwarded), (2, 0));
}

#[test]
fn a_burst_of_three_goes_again_in_one_round() {
    let mut c = bs_sent(5);
    report(&mut c, ms(1), delivered(data(0)));
    for k in 1..=3 {
        lost(&mut c, ms(1 + u64::from(k)), k);
    }
    report(&mut c, ms(5), delivered(data(4)));
    // Each goes to the head of the MAC queue: highest first, so 1 leads.
    assert_eq!(emitted_via(&mut c), vec![(3, true), (2, true), (1, true)]);
    assert_eq!(c.counters().local_retransmissions.delivered_priority, 3);
}

#[test]
fn reordered_data_is_cached_in_order_and_its_dupacks_go_on() {
    let mut c = CSnoop::at_bs();
    for k in [0, 2, 1] {
        assert_eq!(c.on_packet(ms(0), Tap::BsDown, &mut data(k)), Verdict::Pass);
    }
    for k in [0, 2, 1] {
        report(&mut c, ms(1), delivered(data(k)));
    }
    assert!(emitted(&mut c).is_empty());
    assert_eq!(up(&mut c, ms(2), 1), Verdict::Pass);
    // The MH got 2 before 1: a dupACK not about a local repair.
    assert_eq!(up(&mut c, ms(3), 1), Verdict::Pass);
    assert_eq!(up(&mut c, ms(4), 3), Verdict::Pass);
    assert_eq!(c.counters().dupacks_forwarded, 1);
}

#[test]
fn a_full_mac_queue_is_congestion_left_to_tcp() {
    let mut c = bs_sent(2);
    report(
        &mut c,
        ms(1),
        undelivered(data(1), UndeliveredReason::QueueFull),
    );
    report(&mut c, ms(2), delivered(data(0)));
    assert!(emitted(&mut c).is_empty());
    assert_eq!(c.poll_timeout(), None);
    assert_eq!(c.counters().cache_drops, 1);
}

#[test]
fn local_tries_are_bounded() {
    let mut c = bs_sent(1);
    for _ in 0..MAX_LOCAL_RXMIT {
        lost(&mut c, ms(1), 0);
        c.on_timeout(ms(1000));
        assert_eq!(emitted(&mut c), vec![0]);
    }
    lost(&mut c, ms(1001), 0);
    assert_eq!(c.poll_timeout(), None);
    assert_eq!(c.cached_now(), 0);
    assert_eq!(c.counters().cache_drops, 1);
}

#[test]
fn only_lost_segments_to_the_delivered_destination_go_again() {
    let mut c = bs_sent(2);
    let mut other = data(5);
    other.dst = std::net::Ipv4Addr::new(10, 2, 0, 2);
    other.tcp.dst_port = 49153;
    c.on_packet(ms(0), Tap::BsDown, &mut other);
    lost(&mut c, ms(1), 0);
    report(&mut c, ms(2), delivered(other));
    assert!(emitted(&mut c).is_empty(), "another receiver");
    report(&mut c, ms(3), delivered(data(1)));
    assert_eq!(emitted(&mut c), vec![0]);
}

#[test]
fn the_hosts_agent_caches_its_uplink_data() {
    let mut c = CSnoop::at_host();
    for k in 0..3 {
        assert_eq!(
            c.on_packet(ms(0), Tap::HostOut, &mut data(k)),
            Verdict::Pass
        );
    }
    // Downlink-side taps are not its data.
    assert_eq!(c.on_packet(ms(0), Tap::BsDown, &mut data(7)), Verdict::Pass);
    assert_eq!(c.cached_now(), 3);
    lost(&mut c, ms(1), 0);
    report(&mut c, ms(2), delivered(data(1)));
    assert_eq!(emitted(&mut c), vec![0]);
    // The fixed host's ACK arrives at the MH and cleans the cache.
    assert_eq!(c.on_packet(ms(3), Tap::HostIn, &mut ack(1)), Verdict::Pass);
    assert_eq!(c.cached_now(), 1);
}
