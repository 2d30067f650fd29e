//! Scripted tests of F-RTO (RFC 5682 §2 and §3, and Linux's variant): a
//! spurious timeout undone, a real one recovered conventionally, and the
//! cases that skip detection.

use super::fixture::*;
use super::{Config, CongestionState, Endpoint, Frto, FrtoVariant};

/// Ten segments out and no ACK until the timeout fires; returns right
/// after the retransmission of the first segment.
fn timed_out(frto: bool) -> Endpoint {
    timed_out_with(Config { frto, ..cfg() })
}

/// As [`timed_out`], configured by `c`.
fn timed_out_with(c: Config) -> Endpoint {
    let mut ep = established(c);
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

/// The timeout was found spurious and undone: the Open state, cwnd back
/// to the ten segments before it.
fn undone_to_the_window_before(ep: &Endpoint) {
    assert_eq!(ep.stats().spurious_rtos, 1);
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    assert!(ep.cwnd() >= 10_000, "cwnd {}", ep.cwnd());
}

#[test]
fn an_ack_of_segments_never_resent_declares_the_timeout_spurious_and_undoes_it() {
    let mut ep = timed_out(true);
    let ssthresh_after_rto = ep.ssthresh();
    assert!(ssthresh_after_rto < 10_000);
    // Step 2b: the first ACK covers the retransmitted segment and one
    // more: two new segments go out, whatever cwnd says.
    send!(ep, ms(2000), peer(r(0), s(2000), 0));
    two_new_segments(&mut ep, ms(2000));
    expect_nothing!(ep, ms(2000));
    assert_eq!(ep.frto, Frto::Second);
    // Step 3b: the next ACK acknowledges segments sent before the timeout
    // and never resent: spurious. cwnd and ssthresh come back.
    send!(ep, ms(2010), peer(r(0), s(4000), 0));
    undone_to_the_window_before(&ep);
    assert_eq!(ep.frto, Frto::Off);
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
    two_new_segments(&mut ep, ms(2000));
    // Step 3a: a duplicate ACK (the new segment arrived above a hole).
    send!(ep, ms(2010), peer(r(0), s(2000), 0));
    a_real_loss_goes_back_n(&mut ep, ms(2010));
}

/// Step 2b's two new segments, at `t`.
fn two_new_segments(ep: &mut Endpoint, t: crate::time::Time) {
    expect!(ep, t, ours(s(10_000), r(0), 1000, WIN));
    expect!(ep, t, ours(s(11_000), r(0), 1000, WIN));
}

/// Step 3a's outcome: not spurious, cwnd at most 3 SMSS, going back N
/// from the first unacknowledged segment (2000) at `t`.
fn a_real_loss_goes_back_n(ep: &mut Endpoint, t: crate::time::Time) {
    assert_eq!(ep.stats().spurious_rtos, 0);
    assert_eq!(ep.frto, Frto::Off);
    assert!(ep.cwnd() <= 3000);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
    let rtx = recv!(ep, t);
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
    stamped_ten_timed_out(Config { eifel, ..cfg() })
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
    undone_to_the_window_before(&ep);
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

/// F-RTO's SACK-enhanced variant (RFC 5682 §3) on a SACK connection.
fn sack_frto() -> Config {
    Config {
        frto: true,
        ..sack_cfg()
    }
}

/// Linux's F-RTO, with or without SACK.
fn linux_frto(c: Config) -> Config {
    Config {
        frto: true,
        frto_variant: FrtoVariant::Linux,
        ..c
    }
}

#[test]
fn sack_enhanced_duplicate_acks_in_step_2_wait_and_a_sack_of_data_never_resent_shows_it_spurious() {
    let mut ep = timed_out_with(sack_frto());
    // Step 2: a duplicate ACK before the resent segment's ACK only feeds
    // the scoreboard (the basic algorithm would give up here).
    send!(ep, ms(1500), sack_ack(s(0), &[(s(3000), s(4000))]));
    assert!(matches!(ep.frto, Frto::First { .. }));
    expect_nothing!(ep, ms(1500));
    // Step 2b: the ACK of the resent segment (and one more) sends two new.
    send!(ep, ms(2000), sack_ack(s(2000), &[(s(3000), s(4000))]));
    two_new_segments(&mut ep, ms(2000));
    assert_eq!(ep.frto, Frto::Second);
    // Step 3b: a duplicate ACK that SACKs data below `recover` sent before
    // the timeout and never resent: spurious.
    send!(ep, ms(2010), sack_ack(s(2000), &[(s(3000), s(5000))]));
    undone_to_the_window_before(&ep);
}

#[test]
fn sack_enhanced_sacks_of_the_new_segments_alone_mean_a_real_loss() {
    let mut ep = timed_out_with(sack_frto());
    send!(ep, ms(2000), sack_ack(s(2000), &[]));
    two_new_segments(&mut ep, ms(2000));
    // Step 3a: only a new segment arrived above the hole.
    send!(ep, ms(2010), sack_ack(s(2000), &[(s(10_000), s(11_000))]));
    a_real_loss_goes_back_n(&mut ep, ms(2010));
}

#[test]
fn blocks_sacked_before_the_timeout_are_not_new_acknowledgements() {
    let c = Config {
        limited_transmit: false,
        ..sack_frto()
    };
    let mut ep = established(c);
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    // One duplicate ACK SACKing the sixth segment, then nothing.
    send!(ep, ms(500), sack_ack(s(0), &[(s(5000), s(6000))]));
    expect_nothing!(ep, ms(500));
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert!(recv!(ep, t).retransmission);
    // The resent segment's ACK names no block (a receiver names at most
    // three or four, the most recent first).
    send!(ep, ms(2000), sack_ack(s(2000), &[]));
    two_new_segments(&mut ep, ms(2000));
    // The block known before the timeout, reported again beside a new
    // segment, acknowledges nothing new below `recover`: a real loss.
    send!(
        ep,
        ms(2010),
        sack_ack(s(2000), &[(s(10_000), s(11_000)), (s(5000), s(6000))])
    );
    assert_eq!(ep.stats().spurious_rtos, 0);
    assert_eq!(ep.frto, Frto::Off);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
}

#[test]
fn linux_an_ack_beyond_the_resent_segment_shows_the_timeout_spurious_at_once() {
    // The ACK covers the resent segment and one never resent: undone
    // before any new data is sent (RFC 5682 would send two and wait).
    let mut ep = timed_out_with(linux_frto(cfg()));
    send!(ep, ms(2000), peer(r(0), s(2000), 0));
    undone_to_the_window_before(&ep);
    assert_eq!(ep.frto, Frto::Off);
    let next = recv!(ep, ms(2000));
    assert!(!next.retransmission);
    assert_eq!(next.segment.seq, s(10_000));
    // An ACK of exactly the resent segment is step 2b, as in the RFC; a
    // duplicate ACK before it (no SACK here) leaves detection waiting.
    let mut ep = timed_out_with(linux_frto(cfg()));
    send!(ep, ms(1500), peer(r(0), s(0), 0));
    assert!(matches!(ep.frto, Frto::First { .. }));
    send!(ep, ms(2000), peer(r(0), s(1000), 0));
    assert_eq!(ep.frto, Frto::Second);
    two_new_segments(&mut ep, ms(2000));
    send!(ep, ms(2010), peer(r(0), s(2000), 0));
    assert_eq!(ep.stats().spurious_rtos, 1);
}

#[test]
fn linux_detection_runs_on_a_repeated_timeout_and_restores_the_first_ones_window() {
    let mut ep = timed_out_with(linux_frto(sack_cfg()));
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert_eq!(ep.stats().rto_count, 2);
    assert!(matches!(ep.frto, Frto::First { .. }));
    assert!(recv!(ep, t).retransmission);
    // The originals were only late: the second timeout is undone too, to
    // the window before the first.
    send!(
        ep,
        t + crate::time::Dur::from_millis(50),
        sack_ack(s(4000), &[])
    );
    undone_to_the_window_before(&ep);
    // The RFC's variant does not start on the repeated timeout.
    let mut ep = timed_out_with(sack_frto());
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert_eq!(ep.frto, Frto::Off);
}

#[test]
fn union_len_counts_overlaps_once_and_clips_to_the_range() {
    let a = [(s(0), s(10)), (s(20), s(30))];
    let b = [(s(5), s(25)), (s(40), s(50))];
    assert_eq!(super::recovery::union_len(&a, &b, s(0), s(100)), 30 + 10);
    assert_eq!(super::recovery::union_len(&a, &b, s(8), s(45)), 22 + 5);
    assert_eq!(super::recovery::union_len(&[], &b, s(0), s(100)), 30);
    assert_eq!(super::recovery::union_len(&a, &[], s(30), s(100)), 0);
}

#[test]
fn a_hole_left_after_an_undo_is_repaired_by_fast_retransmit_not_the_timer() {
    // The segments at 1000 and 2000 were lost, those after them only
    // delayed. The ACK of the resent first segment SACKs originals: the
    // timeout is undone, with two segments SACKed above the hole.
    let mut ep = timed_out_with(linux_frto(sack_cfg()));
    send!(ep, ms(2000), sack_ack(s(1000), &[(s(3000), s(5000))]));
    assert_eq!(ep.stats().spurious_rtos, 1);
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    while ep.poll_transmit(ms(2000)).is_some() {}
    // The next duplicate ACK shows three segments SACKed above the hole:
    // fast retransmit at once (the timeout's `recover` no longer holds it).
    send!(ep, ms(2010), sack_ack(s(1000), &[(s(3000), s(6000))]));
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    let rtx = recv!(ep, ms(2010));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.seq, s(1000));
}

#[test]
fn an_undo_gives_the_scoreboard_back_what_was_sacked_before_the_timeout() {
    let c = Config {
        limited_transmit: false,
        ..linux_frto(sack_cfg())
    };
    let mut ep = established(c);
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    // Before the timeout: two segments SACKed above the holes (not enough
    // for fast retransmit).
    send!(ep, ms(500), sack_ack(s(0), &[(s(5000), s(7000))]));
    assert_eq!(ep.congestion_state(), CongestionState::Disorder);
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert!(recv!(ep, t).retransmission);
    // The resent segment's ACK SACKs one more original: undone, and with
    // the blocks known before the timeout three segments sit above the
    // hole at 1000: fast recovery starts with this ACK.
    send!(ep, ms(2000), sack_ack(s(1000), &[(s(3000), s(4000))]));
    assert_eq!(ep.stats().spurious_rtos, 1);
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    let rtx = recv!(ep, ms(2000));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.seq, s(1000));
}
