//! Scripted tests of the cross-layer hooks: freeze / resume (CR-aware
//! TCP) and `retransmit_range` (TCP local recovery), segment by segment.

use super::fixture::*;
use super::*;
use crate::time::Dur;

/// Established, 4000 B written at 200 ms: segments 0..4000 in flight.
fn four_in_flight() -> Endpoint {
    let mut ep = established(cfg());
    ep.write(4000);
    send_segments(&mut ep, ms(200), 0, 4);
    ep
}

#[test]
fn no_rto_fires_while_frozen_and_resume_retransmits_the_oldest_at_once() {
    let mut ep = four_in_flight();
    assert_eq!(
        ep.poll_timeout(),
        Some(ms(1200)),
        "RTO armed at 200 + 1000 ms"
    );
    let (cwnd, ssthresh, rto) = (ep.cwnd(), ep.ssthresh(), ep.rto());
    ep.freeze(ms(300));
    assert!(ep.is_frozen());
    assert_eq!(
        ep.poll_timeout(),
        None,
        "the retransmission timer is cancelled"
    );
    // A long blockage: the old deadline and many RTOs pass, nothing fires.
    for t in [1200, 2200, 5000, 9000] {
        ep.handle_timeout(ms(t));
        expect_nothing!(ep, ms(t));
    }
    assert_eq!(ep.stats().rto_count, 0);
    // New data written meanwhile is not sent either.
    ep.write(2000);
    expect_nothing!(ep, ms(9000));
    ep.resume(ms(10_000));
    assert!(!ep.is_frozen());
    assert_eq!((ep.cwnd(), ep.ssthresh(), ep.rto()), (cwnd, ssthresh, rto));
    // Paper 000 §3: the oldest unacknowledged segment goes at once,
    let t = recv!(ep, ms(10_000));
    assert!(t.retransmission);
    assert_eq!(t.segment, ours(s(0), r(0), 1000, WIN));
    // and the timer runs again with the frozen RTO.
    assert_eq!(ep.poll_timeout(), Some(ms(10_000) + rto));
    // Then the data written during the freeze, as cwnd allows.
    expect!(ep, ms(10_000), ours(s(4000), r(0), 1000, WIN));
    expect!(ep, ms(10_000), ours(s(5000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(10_000));
    assert_eq!(ep.stats().rto_count, 0);
}

#[test]
fn acks_arriving_during_the_freeze_do_not_change_cwnd_ssthresh_or_rto() {
    let mut ep = four_in_flight();
    let (cwnd, ssthresh, rto) = (ep.cwnd(), ep.ssthresh(), ep.rto());
    ep.freeze(ms(250));
    // An ACK of two segments (in flight before the blockage) arrives late,
    // with a 3 s RTT sample that would move the RTO.
    send!(ep, ms(3200), peer(r(0), s(2000), 0));
    expect_nothing!(ep, ms(3200));
    assert_eq!(ep.snd_una(), s(2000), "the data is acknowledged");
    assert_eq!(ep.poll_timeout(), None, "still no timer while frozen");
    ep.resume(ms(4000));
    assert_eq!((ep.cwnd(), ep.ssthresh(), ep.rto()), (cwnd, ssthresh, rto));
    let t = recv!(ep, ms(4000));
    assert_eq!((t.segment.seq, t.retransmission), (s(2000), true));
}

#[test]
fn resume_with_nothing_outstanding_sends_new_data_and_no_retransmission() {
    let mut ep = established(cfg());
    ep.freeze(ms(150));
    ep.write(1000);
    expect_nothing!(ep, ms(150));
    ep.resume(ms(900));
    let t = recv!(ep, ms(900));
    assert_eq!((t.segment.seq, t.retransmission), (s(0), false));
    assert_eq!(ep.poll_timeout(), Some(ms(900) + Dur::from_secs(1)));
}

#[test]
fn freeze_twice_keeps_the_first_snapshot_and_resume_twice_is_a_noop() {
    let mut ep = four_in_flight();
    let cwnd = ep.cwnd();
    ep.freeze(ms(250));
    ep.freeze(ms(260));
    ep.resume(ms(500));
    assert_eq!(ep.cwnd(), cwnd);
    let _ = recv!(ep, ms(500));
    ep.resume(ms(600));
    expect_nothing!(ep, ms(600));
}

#[test]
fn retransmit_range_sends_each_segment_of_the_range_whatever_cwnd_says() {
    let mut ep = four_in_flight();
    // cwnd is full (4 segments in flight); a report marks 1000..3000 lost.
    ep.retransmit_range(s(1000), s(3000));
    for k in [1000, 2000] {
        let t = recv!(ep, ms(300));
        assert!(t.retransmission);
        assert_eq!(t.segment, ours(s(k), r(0), 1000, WIN));
    }
    expect_nothing!(ep, ms(300));
    assert_eq!(ep.stats().retransmissions, 2);
}

#[test]
fn retransmit_range_is_clipped_to_what_is_outstanding() {
    let mut ep = four_in_flight();
    send!(ep, ms(300), peer(r(0), s(1000), 0));
    let _ = ep.poll_transmit(ms(300)); // new data the ACK allows
                                       // Below SND.UNA and beyond SND.MAX is never sent.
    ep.retransmit_range(s(0), s(1500));
    let t = recv!(ep, ms(301));
    assert_eq!((t.segment.seq, t.segment.payload_len), (s(1000), 500));
    ep.retransmit_range(s(90_000), s(91_000));
    expect_nothing!(ep, ms(302));
}
