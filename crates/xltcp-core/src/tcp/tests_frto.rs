//! Scripted tests of F-RTO (RFC 5682 §2): a spurious timeout undone, a
//! real one recovered conventionally, and the cases that skip detection.

use super::fixture::*;
use super::{Config, CongestionState, Endpoint, Frto};

/// Ten segments out and no ACK until the timeout fires; returns right
/// after the retransmission of the first segment.
fn timed_out(frto: bool) -> Endpoint {
    let mut ep = established(Config { frto, ..cfg() });
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    assert_eq!(ep.cwnd(), 10_000);
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert_eq!(ep.stats().rto_count, 1);
    let rtx = recv!(ep, t);
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment, ours(s(0), r(0), 1000, WIN));
    expect_nothing!(ep, t);
    assert_eq!(ep.cwnd(), 1000);
    ep
}

#[test]
fn an_ack_of_segments_never_resent_declares_the_timeout_spurious_and_undoes_it() {
    let mut ep = timed_out(true);
    let ssthresh_after_rto = ep.ssthresh();
    assert!(ssthresh_after_rto < 10_000);
    // Step 2b: the first ACK covers the retransmitted segment and one
    // more: two new segments go out, whatever cwnd says.
    send!(ep, ms(2000), peer(r(0), s(2000), 0));
    expect!(ep, ms(2000), ours(s(10_000), r(0), 1000, WIN));
    expect!(ep, ms(2000), ours(s(11_000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(2000));
    assert_eq!(ep.frto, Frto::Second);
    // Step 3b: the next ACK acknowledges segments sent before the timeout
    // and never resent: spurious. cwnd and ssthresh come back.
    send!(ep, ms(2010), peer(r(0), s(4000), 0));
    assert_eq!(ep.stats().spurious_rtos, 1);
    assert_eq!(ep.frto, Frto::Off);
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    assert!(ep.cwnd() >= 10_000, "cwnd {}", ep.cwnd());
    assert!(ep.ssthresh() > ssthresh_after_rto);
    // New data goes on from SND.MAX: nothing before it is resent.
    let next = recv!(ep, ms(2010));
    assert!(!next.retransmission);
    assert_eq!(next.segment.seq, s(12_000));
}

#[test]
fn a_duplicate_ack_after_the_new_segments_means_a_real_loss() {
    let mut ep = timed_out(true);
    send!(ep, ms(2000), peer(r(0), s(2000), 0));
    expect!(ep, ms(2000), ours(s(10_000), r(0), 1000, WIN));
    expect!(ep, ms(2000), ours(s(11_000), r(0), 1000, WIN));
    // Step 3a: a duplicate ACK (the new segment arrived above a hole).
    send!(ep, ms(2010), peer(r(0), s(2000), 0));
    assert_eq!(ep.stats().spurious_rtos, 0);
    assert_eq!(ep.frto, Frto::Off);
    assert!(ep.cwnd() <= 3000);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
    // Going back N from the first unacknowledged segment.
    let rtx = recv!(ep, ms(2010));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.seq, s(2000));
}

#[test]
fn a_first_ack_that_is_a_duplicate_or_covers_only_the_resent_segment_skips_detection() {
    // A duplicate ACK first (step 2a).
    let mut ep = timed_out(true);
    send!(ep, ms(2000), peer(r(0), s(0), 0));
    assert_eq!(ep.frto, Frto::Off);
    expect_nothing!(ep, ms(2000));
    // Short of the retransmitted segment's end is impossible with whole
    // segments; an ACK of exactly the resent segment advances past it and
    // is step 2b. One up to everything outstanding is step 2a.
    let mut ep = timed_out(true);
    send!(ep, ms(2000), peer(r(0), s(10_000), 0));
    assert_eq!(ep.frto, Frto::Off);
    assert_eq!(ep.stats().spurious_rtos, 0);
}

#[test]
fn without_new_data_to_send_detection_is_skipped() {
    let mut ep = established(Config {
        frto: true,
        ..cfg()
    });
    ep.write(10_000);
    send_segments(&mut ep, ms(100), 0, 10);
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert!(recv!(ep, t).retransmission);
    send!(ep, ms(2000), peer(r(0), s(2000), 0));
    assert_eq!(ep.frto, Frto::Off);
    // Conventional: go back N with the slow-start window.
    let rtx = recv!(ep, ms(2000));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.seq, s(2000));
}

#[test]
fn a_repeated_timeout_in_rto_recovery_does_not_start_detection() {
    let mut ep = timed_out(true);
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert_eq!(ep.stats().rto_count, 2);
    assert_eq!(ep.frto, Frto::Off);
}

#[test]
fn without_frto_the_same_ack_goes_back_n() {
    let mut ep = timed_out(false);
    send!(ep, ms(2000), peer(r(0), s(2000), 0));
    // Slow start after the timeout: cwnd 2000, both resent from s(2000).
    let a = recv!(ep, ms(2000));
    let b = recv!(ep, ms(2000));
    assert!(a.retransmission && b.retransmission);
    assert_eq!((a.segment.seq, b.segment.seq), (s(2000), s(3000)));
    assert_eq!(ep.stats().spurious_rtos, 0);
}

/// As [`timed_out`] with timestamps on (the peer's SYN-ACK offers them):
/// ten segments stamped 100 ms, the first resent at 1100 ms.
fn timed_out_with_timestamps(eifel: bool) -> Endpoint {
    let c = Config {
        timestamps: true,
        eifel,
        ..cfg()
    };
    let mut syn_ack = syn_ack(&c);
    syn_ack.options.timestamps = Some((7, 0));
    let mut ep = Endpoint::new(c, LP, RP, ISS);
    ep.connect(ms(0));
    assert!(recv!(ep, ms(0)).segment.flags.syn());
    send!(ep, ms(100), syn_ack);
    recv!(ep, ms(100));
    ep.write(40_000);
    for k in 0..10 {
        let seg = recv!(ep, ms(100)).segment;
        assert_eq!(seg.seq, s(1000 * k));
        assert_eq!(seg.options.timestamps.map(|t| t.0), Some(100));
    }
    let t = ep.poll_timeout().unwrap();
    assert_eq!(t, ms(1100));
    ep.handle_timeout(t);
    let rtx = recv!(ep, t);
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.options.timestamps.map(|t| t.0), Some(1100));
    ep
}

/// A peer ACK echoing `tsecr`.
fn ack_echoing(ack: u32, tsecr: u32) -> crate::wire::Segment {
    let mut seg = peer(r(0), s(ack), 0);
    seg.options.timestamps = Some((8, tsecr));
    seg
}

#[test]
fn eifel_undoes_a_timeout_whose_ack_echoes_the_original() {
    let mut ep = timed_out_with_timestamps(true);
    // The ACK echoes 100 ms, the originals' stamp: they were only late.
    send!(ep, ms(1150), ack_echoing(2000, 100));
    assert_eq!(ep.stats().spurious_rtos, 1);
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    assert!(ep.cwnd() >= 10_000, "cwnd {}", ep.cwnd());
    // New data from SND.MAX: nothing before it is resent.
    let next = recv!(ep, ms(1150));
    assert!(!next.retransmission);
    assert_eq!(next.segment.seq, s(10_000));
}

#[test]
fn eifel_keeps_a_timeout_whose_ack_echoes_the_retransmission() {
    let mut ep = timed_out_with_timestamps(true);
    send!(ep, ms(1150), ack_echoing(1000, 1100));
    assert_eq!(ep.stats().spurious_rtos, 0);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
    let next = recv!(ep, ms(1150));
    assert!(next.retransmission);
    assert_eq!(next.segment.seq, s(1000));
    // Without Eifel the echo of the original changes nothing either.
    let mut ep = timed_out_with_timestamps(false);
    send!(ep, ms(1150), ack_echoing(2000, 100));
    assert_eq!(ep.stats().spurious_rtos, 0);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
}
