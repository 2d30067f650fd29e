//! Scripted tests of RACK, the Tail Loss Probe (RFC 8985), RTT samples
//! from every ACK (`rack.rs`) and Proportional Rate Reduction (RFC 6937).

use super::fixture::*;
use super::{Config, CongestionState, Endpoint, PrrVariant, RackVariant, RttSampling, Timer};
use crate::time::Dur;

fn rack_cfg() -> Config {
    Config {
        rack: true,
        ..sack_cfg()
    }
}

/// Ten segments of 1000 B sent at 100 ms (SRTT 100 ms from the handshake).
fn ten_out(c: Config) -> Endpoint {
    let mut ep = established(c);
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    ep
}

#[test]
fn one_sack_above_a_hole_marks_it_lost_once_the_reordering_window_passes() {
    let mut ep = ten_out(rack_cfg());
    // Segment 1 SACKed at 200 ms: segment 0, sent at the same time, is lost
    // once RACK.rtt (100 ms) + reo_wnd (min_RTT/4 = 25 ms) have passed
    // since it was sent: at 225 ms. One SACK is no DupThresh.
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(2000))]));
    // Limited Transmit sends one new segment.
    expect!(ep, ms(200), ours(s(10_000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.congestion_state(), CongestionState::Disorder);
    assert_eq!(ep.timers.get(Timer::Rack), Some(ms(225)));
    assert_eq!(ep.poll_timeout(), Some(ms(225)));
    ep.handle_timeout(ms(225));
    let rtx = recv!(ep, ms(225));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.seq, s(0));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    assert_eq!(ep.stats().rack_marked_lost, 1);
    assert_eq!(ep.stats().fast_retransmits, 1);
}

#[test]
fn without_rack_one_sack_waits_for_dupthresh() {
    let mut ep = ten_out(sack_cfg());
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(2000))]));
    expect!(ep, ms(200), ours(s(10_000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.poll_timeout(), Some(ms(1100)), "only the RTO");
    expect_nothing!(ep, ms(225));
}

#[test]
fn a_lost_retransmission_is_found_and_resent_again_before_the_rto() {
    let mut ep = ten_out(rack_cfg());
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(2000))]));
    expect!(ep, ms(200), ours(s(10_000), r(0), 1000, WIN));
    ep.handle_timeout(ms(225));
    assert_eq!(recv!(ep, ms(225)).segment.seq, s(0));
    expect_nothing!(ep, ms(225));
    // Segments 1-10 (sent before the retransmission) SACKed: the hole at
    // 0 is in flight again, cwnd (5000) lets four new segments out.
    send!(ep, ms(300), sack_ack(s(0), &[(s(1000), s(11_000))]));
    for k in 11..15 {
        expect!(ep, ms(300), ours(s(1000 * k), r(0), 1000, WIN));
    }
    expect_nothing!(ep, ms(300));
    // The new segments, sent after the retransmission, are SACKed and the
    // retransmission is not: lost again (reo_wnd is 0 in recovery).
    send!(ep, ms(400), sack_ack(s(0), &[(s(1000), s(15_000))]));
    let again = recv!(ep, ms(400));
    assert!(again.retransmission);
    assert_eq!(again.segment.seq, s(0));
    assert_eq!(ep.stats().rack_marked_lost, 2);
    assert_eq!(ep.stats().rto_count, 0);
    // It arrives: recovery ends.
    send!(ep, ms(500), peer(r(0), s(15_000), 0));
    assert_eq!(ep.congestion_state(), CongestionState::Open);
}

#[test]
fn reordering_seen_keeps_a_reordering_window_in_recovery() {
    let mut ep = ten_out(rack_cfg());
    // Segment 2 SACKed, then segment 1 (never resent) below it: reordering.
    send!(ep, ms(200), sack_ack(s(0), &[(s(2000), s(3000))]));
    send!(ep, ms(201), sack_ack(s(0), &[(s(1000), s(3000))]));
    assert!(ep.rack.reord);
}

#[test]
fn a_tail_loss_probe_resends_the_last_segment_before_the_rto() {
    let mut ep = established(Config {
        tlp: true,
        ..sack_cfg()
    });
    ep.write(5000);
    send_segments(&mut ep, ms(100), 0, 5);
    // PTO = 2 SRTT = 200 ms after the last new segment, before the RTO.
    assert_eq!(ep.timers.get(Timer::Tlp), Some(ms(300)));
    // Segments 0-3 acknowledged at 200 ms; segment 4 is lost. One segment
    // outstanding: PTO = 2 SRTT + 200 ms.
    send!(ep, ms(200), peer(r(0), s(4000), 0));
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.poll_timeout(), Some(ms(600)));
    ep.handle_timeout(ms(600));
    let probe = recv!(ep, ms(600));
    assert!(probe.retransmission);
    assert_eq!(without_psh(probe.segment), ours(s(4000), r(0), 1000, WIN));
    assert_eq!(ep.stats().tlp_probes, 1);
    assert_eq!(ep.timers.get(Timer::Rto), Some(ms(1600)));
    send!(ep, ms(700), peer(r(0), s(5000), 0));
    assert_eq!(ep.stats().rto_count, 0);
    // The ACK that goes beyond the probe tells it repaired a loss: cwnd halved.
    let cwnd = ep.cwnd();
    ep.write(1000);
    expect!(ep, ms(700), ours(s(5000), r(0), 1000, WIN));
    send!(ep, ms(800), peer(r(0), s(6000), 0));
    assert_eq!(ep.stats().tlp_loss_repairs, 1);
    assert!(ep.cwnd() <= cwnd / 2 + 1000, "{} from {cwnd}", ep.cwnd());
}

#[test]
fn with_unsent_data_the_probe_is_a_new_segment_whatever_cwnd_says() {
    let mut ep = established(Config {
        tlp: true,
        ..sack_cfg()
    });
    ep.write(20_000);
    send_segments(&mut ep, ms(100), 0, 10);
    ep.handle_timeout(ms(300));
    let probe = recv!(ep, ms(300));
    assert!(!probe.retransmission);
    assert_eq!(probe.segment.seq, s(10_000));
    expect_nothing!(ep, ms(300));
    // Its ACK ends the episode with no reduction.
    let cwnd = ep.cwnd();
    send!(ep, ms(400), peer(r(0), s(11_000), 0));
    assert_eq!(ep.tlp.end, None);
    assert_eq!(ep.stats().tlp_loss_repairs, 0);
    assert!(ep.cwnd() >= cwnd);
}

#[test]
fn a_duplicate_ack_after_the_probe_means_both_copies_arrived() {
    let mut ep = established(Config {
        tlp: true,
        ..sack_cfg()
    });
    ep.write(5000);
    send_segments(&mut ep, ms(100), 0, 5);
    ep.handle_timeout(ms(300));
    assert!(recv!(ep, ms(300)).retransmission);
    send!(ep, ms(350), peer(r(0), s(5000), 0));
    send!(ep, ms(400), peer(r(0), s(5000), 0));
    assert_eq!(ep.tlp.end, None);
    assert_eq!(ep.stats().tlp_loss_repairs, 0);
}

#[test]
fn no_probe_without_sack_or_outside_the_open_state() {
    let mut ep = established(Config { tlp: true, ..cfg() });
    ep.write(5000);
    send_segments(&mut ep, ms(100), 0, 5);
    assert_eq!(ep.timers.get(Timer::Tlp), None);
    let mut ep = ten_out(Config {
        tlp: true,
        ..sack_cfg()
    });
    // A SACK: Disorder, and segments delivered out of order.
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(2000))]));
    while ep.poll_transmit(ms(200)).is_some() {}
    assert_eq!(ep.timers.get(Timer::Tlp), None);
}

/// Ten segments timed out at 1100 ms, the first resent; the RTO backed
/// off to 2 s. Then the originals of 1-9 are SACKed at 1150 ms.
fn sacked_after_timeout(rtt_sampling: RttSampling) -> Endpoint {
    let mut ep = ten_out(Config {
        rtt_sampling,
        ..sack_cfg()
    });
    ep.handle_timeout(ms(1100));
    assert!(recv!(ep, ms(1100)).retransmission);
    assert_eq!(ep.rto(), Dur::from_secs(2));
    send!(ep, ms(1150), sack_ack(s(0), &[(s(1000), s(10_000))]));
    ep
}

#[test]
fn every_ack_sampling_ends_the_back_off_with_a_sack_of_data_never_resent() {
    let ep = sacked_after_timeout(RttSampling::EveryAck);
    // Sample 1050 ms: SRTT 218.75 ms, RTTVAR 275 ms, RTO 1.31875 s.
    assert_eq!(ep.srtt(), Some(Dur::from_micros(218_750)));
    assert_eq!(ep.rto(), Dur::from_micros(1_318_750));
    // Timed: no segment is timed after a timeout, the back-off stays.
    let ep = sacked_after_timeout(RttSampling::Timed);
    assert_eq!(ep.srtt(), Some(Dur::from_millis(100)));
    assert_eq!(ep.rto(), Dur::from_secs(2));
}

/// As [`sacked_after_timeout`] with timestamps on: the segments stamped
/// 100 ms, the first resent (stamped 1100 ms) at 1100 ms.
fn timed_out_with_timestamps(rtt_sampling: RttSampling) -> Endpoint {
    let ep = stamped_ten_timed_out(Config {
        rtt_sampling,
        ..sack_cfg()
    });
    assert_eq!(ep.rto(), Dur::from_secs(2));
    ep
}

#[test]
fn every_ack_sampling_with_timestamps_samples_a_sack_as_linux_does() {
    // A duplicate ACK SACKing the originals of 1-9 (sent at 100 ms, never
    // resent), echoing the stamp the receiver last took in order.
    let mut sacked = sack_ack(s(0), &[(s(1000), s(10_000))]);
    sacked.options.timestamps = Some((8, 100));
    let mut ep = timed_out_with_timestamps(RttSampling::EveryAck);
    send!(ep, ms(1150), sacked.clone());
    // Sample 1050 ms, as without timestamps: SRTT 218.75 ms.
    assert_eq!(ep.srtt(), Some(Dur::from_micros(218_750)));
    assert_eq!(ep.rto(), Dur::from_micros(1_318_750));
    // RFC 7323 alone takes no sample from an ACK that does not advance.
    let mut ep = timed_out_with_timestamps(RttSampling::Timed);
    send!(ep, ms(1150), sacked);
    assert_eq!(ep.srtt(), Some(Dur::from_millis(100)));
}

#[test]
fn every_ack_sampling_with_timestamps_falls_back_to_the_echo_for_resent_data() {
    let mut ep = timed_out_with_timestamps(RttSampling::EveryAck);
    // Only the resent segment 0 is acknowledged (Karn: no timing of its
    // own); its echo of 1100 ms gives a 50 ms sample, one and only one.
    let mut ack = peer(r(0), s(1000), 0);
    ack.options.timestamps = Some((8, 1100));
    send!(ep, ms(1150), ack);
    // SRTT 100 -> 93.75 ms (7/8 of 100 plus 1/8 of 50).
    assert_eq!(ep.srtt(), Some(Dur::from_micros(93_750)));
}

#[test]
fn every_ack_sampling_restarts_the_timer_on_a_sack_of_data_sent_before_the_head() {
    // The head was resent at 1100 ms (timer at 3100 ms, RTO backed off to
    // 2 s); the SACK of originals sent at 100 ms samples 1050 ms and, as
    // Linux, restarts the timer with the new RTO of 1.31875 s.
    let ep = sacked_after_timeout(RttSampling::EveryAck);
    assert_eq!(
        ep.timers.get(Timer::Rto),
        Some(ms(1150) + Dur::from_micros(1_318_750))
    );
    let ep = sacked_after_timeout(RttSampling::Timed);
    assert_eq!(ep.timers.get(Timer::Rto), Some(ms(3100)));
    // Data sent with the head, SACKed: the timer runs on.
    let mut ep = ten_out(Config {
        rtt_sampling: RttSampling::EveryAck,
        ..sack_cfg()
    });
    let armed = ep.timers.get(Timer::Rto);
    send!(ep, ms(250), sack_ack(s(0), &[(s(1000), s(2000))]));
    assert_eq!(ep.timers.get(Timer::Rto), armed);
}

#[test]
fn every_ack_sampling_takes_no_sample_from_an_ack_of_resent_data() {
    let mut ep = ten_out(Config {
        rtt_sampling: RttSampling::EveryAck,
        ..sack_cfg()
    });
    ep.handle_timeout(ms(1100));
    assert!(recv!(ep, ms(1100)).retransmission);
    // The ACK covers the resent segment 0 and segment 1: Karn, no sample.
    send!(ep, ms(1150), peer(r(0), s(2000), 0));
    assert_eq!(ep.srtt(), Some(Dur::from_millis(100)));
    assert_eq!(ep.rto(), Dur::from_secs(2));
}

#[test]
fn every_ack_sampling_samples_each_ack_of_new_data() {
    let mut ep = ten_out(Config {
        rtt_sampling: RttSampling::EveryAck,
        ..sack_cfg()
    });
    // Each ACK acknowledges segments sent at 100 ms: 150 then 160 ms.
    send!(ep, ms(250), peer(r(0), s(2000), 0));
    send!(ep, ms(260), peer(r(0), s(4000), 0));
    // SRTT 100 -> 106.25 (sample 150 ms) -> 112.97 ms (sample 160 ms).
    assert_eq!(ep.srtt(), Some(Dur::from_nanos(112_968_750)));
}

/// SACK recovery entered on the third SACK (segments 1-3 SACKed, two
/// Limited Transmit segments out): RecoverFS 12000, ssthresh 5000.
fn in_sack_recovery(c: Config) -> Endpoint {
    let mut ep = ten_out(c);
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(2000))]));
    expect!(ep, ms(200), ours(s(10_000), r(0), 1000, WIN));
    send!(ep, ms(201), sack_ack(s(0), &[(s(1000), s(3000))]));
    expect!(ep, ms(201), ours(s(11_000), r(0), 1000, WIN));
    send!(ep, ms(202), sack_ack(s(0), &[(s(1000), s(4000))]));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    assert_eq!(ep.ssthresh(), 5000);
    ep
}

#[test]
fn prr_sets_cwnd_from_the_data_delivered_in_recovery() {
    let mut ep = in_sack_recovery(Config {
        prr: true,
        ..sack_cfg()
    });
    // pipe 8000 > ssthresh: sndcnt = ceil(1000 * 5000 / 12000) = 417,
    // raised to one segment as nothing went out yet: cwnd 9000.
    assert_eq!(ep.cwnd(), 9000);
    assert_eq!(recv!(ep, ms(202)).segment.seq, s(0));
    expect_nothing!(ep, ms(202));
    // Segments 4 and 5 SACKed: prr_delivered 3000, sndcnt = 1250 - 1000,
    // pipe 7000 (6000 + the retransmission): cwnd 7250, nothing goes out.
    send!(ep, ms(300), sack_ack(s(0), &[(s(1000), s(5000))]));
    send!(ep, ms(301), sack_ack(s(0), &[(s(1000), s(6000))]));
    assert_eq!(ep.cwnd(), 7250);
    expect_nothing!(ep, ms(301));
    // Segments 6-8: pipe falls to 4000, below ssthresh: PRR-SSRB lets
    // cwnd back up to ssthresh, and one new segment goes out.
    send!(ep, ms(302), sack_ack(s(0), &[(s(1000), s(7000))]));
    send!(ep, ms(303), sack_ack(s(0), &[(s(1000), s(8000))]));
    send!(ep, ms(304), sack_ack(s(0), &[(s(1000), s(9000))]));
    assert_eq!(ep.cwnd(), 5000);
    expect!(ep, ms(304), ours(s(12_000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(304));
    // Recovery ends: cwnd = ssthresh.
    send!(ep, ms(400), peer(r(0), s(12_000), 0));
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    assert_eq!(ep.cwnd(), 5000);
}

#[test]
fn without_prr_cwnd_is_ssthresh_throughout_recovery() {
    let mut ep = in_sack_recovery(sack_cfg());
    assert_eq!(ep.cwnd(), 5000);
    send!(ep, ms(300), sack_ack(s(0), &[(s(1000), s(5000))]));
    send!(ep, ms(301), sack_ack(s(0), &[(s(1000), s(6000))]));
    assert_eq!(ep.cwnd(), 5000);
}

#[test]
fn a_dsack_widens_the_reordering_window_once_per_round() {
    let mut ep = ten_out(rack_cfg());
    // Segments 0-1 acknowledged at 250 ms: min_RTT 150 ms, window 37.5 ms.
    send!(ep, ms(250), peer(r(0), s(2000), 0));
    assert_eq!(ep.rack_reo_wnd(), Dur::from_micros(37_500));
    // A DSACK (a block below the cumulative ACK): one more min_RTT/4.
    send!(ep, ms(260), sack_ack(s(3000), &[(s(0), s(1000))]));
    assert_eq!(ep.stats().dsack_blocks_received, 1);
    assert_eq!(ep.stats().invalid_sack_blocks, 0);
    assert_eq!(ep.rack_reo_wnd(), Dur::from_millis(75));
    // Another in the same round (before SND.MAX of the first is acked).
    send!(ep, ms(270), sack_ack(s(4000), &[(s(1000), s(2000))]));
    assert_eq!(ep.stats().dsack_blocks_received, 2);
    assert_eq!(ep.rack_reo_wnd(), Dur::from_millis(75));
}

#[test]
fn linux_widens_the_reordering_window_for_a_dsack_only_once_reordering_was_seen() {
    let linux = Config {
        rack_variant: RackVariant::Linux,
        ..rack_cfg()
    };
    let mut ep = ten_out(linux);
    send!(ep, ms(250), peer(r(0), s(2000), 0));
    // Linux's min_RTT is the handshake's 100 ms: a window of 25 ms. A DSACK
    // before any reordering: a needless retransmission to Linux, not a
    // window too narrow (RFC 8985 widens it, the test above).
    assert_eq!(ep.rack_reo_wnd(), Dur::from_millis(25));
    send!(ep, ms(260), sack_ack(s(3000), &[(s(0), s(1000))]));
    assert_eq!(ep.stats().dsack_blocks_received, 1);
    assert_eq!(ep.rack_reo_wnd(), Dur::from_millis(25));
    // Segment 4 SACKed, then segment 3 (never resent) below it: reordering.
    send!(ep, ms(270), sack_ack(s(3000), &[(s(4000), s(5000))]));
    send!(ep, ms(271), sack_ack(s(3000), &[(s(3000), s(5000))]));
    assert!(ep.rack.reord);
    // Now a DSACK widens it.
    send!(ep, ms(280), sack_ack(s(5000), &[(s(1000), s(2000))]));
    assert_eq!(ep.stats().dsack_blocks_received, 2);
    assert_eq!(ep.rack_reo_wnd(), Dur::from_millis(50));
}

#[test]
fn an_ack_of_the_original_does_not_advance_rack_to_its_retransmission() {
    // Ten segments stamped 100 ms; the timeout at 1100 ms resends the first.
    let mut ep = stamped_ten_timed_out(Config {
        rack: true,
        eifel: true,
        ..sack_cfg()
    });
    // The first segment's original arrives late: its ACK echoes 100 ms.
    // Eifel undoes the timeout; RACK must not take the retransmission (sent
    // at 1100 ms) as delivered, or segments 1-9, sent at 100 ms, would all
    // look lost behind it.
    let mut ack = peer(r(0), s(1000), 0);
    ack.options.timestamps = Some((8, 100));
    send!(ep, ms(1150), ack);
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    let next = recv!(ep, ms(1150));
    assert!(!next.retransmission, "{next:?}");
    assert_eq!(next.segment.seq, s(10_000));
}

#[test]
fn linux_prr_takes_recoverfs_from_cwnd() {
    let mut ep = in_sack_recovery(Config {
        prr: true,
        prr_variant: PrrVariant::Linux,
        ..sack_cfg()
    });
    assert_eq!(ep.cwnd(), 9000);
    assert_eq!(recv!(ep, ms(202)).segment.seq, s(0));
    // As above, with RecoverFS the 10000 B cwnd held before the reduction
    // instead of the 12000 B FlightSize: sndcnt = 1500 - 1000.
    send!(ep, ms(300), sack_ack(s(0), &[(s(1000), s(5000))]));
    send!(ep, ms(301), sack_ack(s(0), &[(s(1000), s(6000))]));
    assert_eq!(ep.cwnd(), 7500);
}

/// Ten out, segments 0-6 lost and 7-9 SACKed: recovery starts with pipe
/// (the two Limited Transmit segments) below ssthresh (5000).
fn most_of_the_window_lost(prr_variant: PrrVariant) -> Endpoint {
    let mut ep = ten_out(Config {
        prr: true,
        prr_variant,
        ..sack_cfg()
    });
    send!(ep, ms(200), sack_ack(s(0), &[(s(7000), s(8000))]));
    expect!(ep, ms(200), ours(s(10_000), r(0), 1000, WIN));
    send!(ep, ms(201), sack_ack(s(0), &[(s(7000), s(9000))]));
    expect!(ep, ms(201), ours(s(11_000), r(0), 1000, WIN));
    send!(ep, ms(202), sack_ack(s(0), &[(s(7000), s(10_000))]));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    assert_eq!(ep.recovery_pipe(), 2000);
    ep
}

#[test]
fn linux_prr_slow_starts_only_on_acks_that_advance_snd_una() {
    // RFC 6937's PRR-SSRB: delivered (1000) plus one SMSS on any ACK, two
    // retransmissions.
    let mut ep = most_of_the_window_lost(PrrVariant::Rfc6937);
    assert_eq!(ep.cwnd(), 4000);
    assert_eq!(recv!(ep, ms(202)).segment.seq, s(0));
    assert_eq!(recv!(ep, ms(202)).segment.seq, s(1000));
    expect_nothing!(ep, ms(202));

    // Linux: the entry ACK moved no SND.UNA: what it delivered only.
    let mut ep = most_of_the_window_lost(PrrVariant::Linux);
    assert_eq!(ep.cwnd(), 3000);
    assert_eq!(recv!(ep, ms(202)).segment.seq, s(0));
    expect_nothing!(ep, ms(202));
    // The retransmission arrives, SND.UNA moves and nothing is newly lost:
    // delivered plus one SMSS, two more retransmissions.
    send!(ep, ms(300), sack_ack(s(1000), &[(s(7000), s(10_000))]));
    assert_eq!(ep.cwnd(), 4000);
    assert_eq!(recv!(ep, ms(300)).segment.seq, s(1000));
    assert_eq!(recv!(ep, ms(300)).segment.seq, s(2000));
    // An ACK that delivers nothing leaves cwnd alone (RFC 6937's would
    // let one more segment out: pipe 4000 + one SMSS).
    send!(ep, ms(301), sack_ack(s(1000), &[(s(7000), s(10_000))]));
    assert_eq!(ep.cwnd(), 4000);
    expect_nothing!(ep, ms(301));
    // A SACK of new data, SND.UNA unmoved: what it delivered, no more.
    send!(ep, ms(302), sack_ack(s(1000), &[(s(7000), s(11_000))]));
    assert_eq!(ep.cwnd(), 4000);
    assert_eq!(recv!(ep, ms(302)).segment.seq, s(3000));
    expect_nothing!(ep, ms(302));
}

#[test]
fn a_recovery_whose_retransmissions_all_come_back_as_dsacks_is_undone() {
    for undo in [false, true] {
        let mut ep = in_sack_recovery(Config {
            dsack_undo: undo,
            ..sack_cfg()
        });
        assert_eq!(recv!(ep, ms(202)).segment.seq, s(0));
        let reduced = ep.cwnd();
        // The original segment 0 was late, not lost: the cumulative ACK
        // covers segments 0-3, then the retransmission arrives as a
        // duplicate (a DSACK block below the ACK).
        send!(ep, ms(300), peer(r(0), s(4000), 0));
        while ep.poll_transmit(ms(300)).is_some() {}
        send!(ep, ms(301), sack_ack(s(4000), &[(s(0), s(1000))]));
        assert_eq!(ep.stats().dsack_blocks_received, 1);
        if undo {
            assert_eq!(ep.stats().dsack_undos, 1);
            assert_eq!(ep.congestion_state(), CongestionState::Open);
            // cwnd back to the 10 segments it held before the reduction.
            assert_eq!(ep.cwnd(), 10_000);
        } else {
            assert_eq!(ep.stats().dsack_undos, 0);
            assert_eq!(ep.congestion_state(), CongestionState::Recovery);
            assert_eq!(ep.cwnd(), reduced);
        }
    }
}

#[test]
fn a_dsack_after_the_recovery_ended_still_undoes_it_until_a_timeout() {
    for (undo, timeout) in [(false, false), (true, false), (true, true)] {
        let mut ep = in_sack_recovery(Config {
            dsack_undo: undo,
            ..sack_cfg()
        });
        assert_eq!(recv!(ep, ms(202)).segment.seq, s(0));
        // Everything up to the recovery point arrives (the original
        // segment 0 was late): the recovery ends with cwnd = ssthresh
        // before the retransmission's duplicate is reported.
        send!(ep, ms(300), peer(r(0), s(12_000), 0));
        assert_eq!(ep.congestion_state(), CongestionState::Open);
        assert_eq!(ep.cwnd(), 5000);
        while ep.poll_transmit(ms(300)).is_some() {}
        if timeout {
            let at = ep.poll_timeout().expect("the RTO timer runs");
            ep.handle_timeout(at);
            assert_eq!(ep.stats().rto_count, 1);
        }
        let cwnd = ep.cwnd();
        send!(ep, ms(301), sack_ack(s(12_000), &[(s(0), s(1000))]));
        assert_eq!(ep.stats().dsack_blocks_received, 1);
        if undo && !timeout {
            // Linux's tcp_try_undo_dsack in the Open state: back to the
            // 10 segments held before the reduction.
            assert_eq!(ep.stats().dsack_undos, 1);
            assert_eq!(ep.cwnd(), 10_000);
        } else {
            assert_eq!(ep.stats().dsack_undos, 0);
            assert_eq!(ep.cwnd(), cwnd);
        }
    }
}

/// Segments 0-2 sent at 100 ms, 3-9 at 110 ms, 10-11 at 150 ms (on the
/// ACK of segment 0, which sets min_RTT to 50 ms); at 300 ms one ACK
/// covers segments 1-2 (repaired below TCP, say: a round trip of 200 ms)
/// and SACKs 5-11. Segments 3 and 4 are the holes.
fn old_hole_acked_with_later_sacks(v: RackVariant) -> Endpoint {
    let mut ep = established(Config {
        rack_variant: v,
        ..rack_cfg()
    });
    ep.write(3000);
    send_segments(&mut ep, ms(100), 0, 3);
    ep.write(9000);
    send_segments(&mut ep, ms(110), 3000, 7);
    send!(ep, ms(150), peer(r(0), s(1000), 0));
    send_segments(&mut ep, ms(150), 10_000, 2);
    send!(ep, ms(300), sack_ack(s(3000), &[(s(5000), s(12_000))]));
    ep
}

#[test]
fn rfc8985_takes_the_round_trip_of_the_most_recently_sent_delivered_segment() {
    // RACK.rtt is segment 11's (150 ms): segment 3, sent at 110 ms, was
    // due at 260 ms and is resent at once (seven SACKed, reo_wnd 0).
    let mut ep = old_hole_acked_with_later_sacks(RackVariant::Rfc8985);
    let rtx = recv!(ep, ms(300));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.seq, s(3000));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
}

#[test]
fn linux_takes_the_round_trip_of_the_last_segment_it_processes() {
    // Linux processes the SACKed segments first, then the cumulatively
    // acknowledged ones: RACK.rtt is segment 2's (200 ms), so segment 3
    // is due at 310 ms, when the reordering timer fires.
    let mut ep = old_hole_acked_with_later_sacks(RackVariant::Linux);
    expect_nothing!(ep, ms(300));
    assert_ne!(ep.congestion_state(), CongestionState::Recovery);
    assert_eq!(ep.timers.get(Timer::Rack), Some(ms(310)));
    ep.handle_timeout(ms(310));
    let rtx = recv!(ep, ms(310));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.seq, s(3000));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
}

/// Ten segments timed out at 1100 ms and gone back over: the resent
/// segment 0 is acknowledged at 1200 ms, so cwnd (2000) resends 1 and 2;
/// at 1300 ms the resent 2 is SACKed and the resent 1 is not.
fn resent_after_timeout_and_lost(v: RackVariant) -> Endpoint {
    let mut ep = ten_out(Config {
        rack_variant: v,
        ..rack_cfg()
    });
    ep.handle_timeout(ms(1100));
    assert_eq!(recv!(ep, ms(1100)).segment.seq, s(0));
    expect_nothing!(ep, ms(1100));
    send!(ep, ms(1200), peer(r(0), s(1000), 0));
    for k in 1..3 {
        let t = recv!(ep, ms(1200));
        assert!(t.retransmission);
        assert_eq!(t.segment.seq, s(1000 * k));
    }
    expect_nothing!(ep, ms(1200));
    send!(ep, ms(1300), sack_ack(s(1000), &[(s(2000), s(3000))]));
    ep
}

#[test]
fn linux_resends_a_lost_retransmission_of_the_go_back_n_in_fast_recovery() {
    // Linux: segment 1, resent at 1200 ms, is lost once its resent
    // neighbour came back (RACK.rtt 100 ms, no reordering window after a
    // timeout): fast recovery from the slow start's cwnd, and the
    // retransmission goes again at once, not after the 2 s RTO.
    let mut ep = resent_after_timeout_and_lost(RackVariant::Linux);
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    let again = recv!(ep, ms(1300));
    assert!(again.retransmission);
    assert_eq!(again.segment.seq, s(1000));
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!(ep.stats().rto_count, 1);
    // RFC 8985 as the simulator reads it: the timeout's recovery goes on
    // back over the window (segment 3 next); segment 1 waits for the RTO.
    let mut ep = resent_after_timeout_and_lost(RackVariant::Rfc8985);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
    let next = recv!(ep, ms(1300));
    assert_eq!(next.segment.seq, s(3000));
    assert_eq!(ep.stats().fast_retransmits, 0);
}

#[test]
fn a_timeout_whose_retransmission_comes_back_as_a_dsack_is_undone() {
    for undo in [false, true] {
        let mut ep = ten_out(Config {
            dsack_undo: undo,
            ..sack_cfg()
        });
        let before = (ep.cwnd(), ep.ssthresh());
        ep.handle_timeout(ms(1100));
        assert_eq!(recv!(ep, ms(1100)).segment.seq, s(0));
        assert_eq!(ep.cwnd(), 1000);
        // Segments 0 and 1 had arrived (their ACKs were lost): the
        // cumulative ACK covers them, and the retransmission of 0 comes
        // back as a DSACK.
        send!(ep, ms(1200), sack_ack(s(2000), &[(s(0), s(1000))]));
        assert_eq!(ep.stats().dsack_blocks_received, 1);
        let next = recv!(ep, ms(1200));
        if undo {
            // Linux's tcp_try_undo_loss: cwnd and ssthresh back, the Open
            // state, and new data from SND.MAX instead of going back N.
            assert_eq!(ep.congestion_state(), CongestionState::Open);
            assert_eq!(ep.stats().spurious_rtos, 1);
            assert!(ep.cwnd() >= before.0);
            assert_eq!(ep.ssthresh(), before.1);
            assert_eq!(next.segment.seq, s(10_000));
        } else {
            assert_eq!(ep.congestion_state(), CongestionState::Loss);
            assert_eq!(ep.stats().spurious_rtos, 0);
            assert_eq!(next.segment.seq, s(2000));
            assert!(next.retransmission);
        }
    }
}
