//! Scripted tests of loss recovery: fast retransmit, NewReno, Limited
//! Transmit, the careful variant, and RFC 6675 SACK recovery.

use super::fixture::*;
use super::{CongestionState, Endpoint, Event, Recovery, Timer};
use crate::time::Dur;

/// Ten segments out, ACK of two, three more out; s(2000) is lost, and
/// three dupACKs arrive (the first two release Limited Transmit segments).
/// Ends right after the fast retransmit: ssthresh 5500, cwnd 8500.
fn in_recovery() -> Endpoint {
    let mut ep = established(cfg());
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    send!(ep, ms(200), peer(r(0), s(2000), 0));
    send_segments(&mut ep, ms(200), 10_000, 3);
    assert_eq!(ep.flight_size(), 11_000);
    // RFC 3042: one new segment on each of the first two dupACKs, cwnd unchanged.
    send!(ep, ms(210), peer(r(0), s(2000), 0));
    assert_eq!(ep.congestion_state(), CongestionState::Disorder);
    send_segments(&mut ep, ms(210), 13_000, 1);
    send!(ep, ms(211), peer(r(0), s(2000), 0));
    send_segments(&mut ep, ms(211), 14_000, 1);
    assert_eq!(ep.cwnd(), 11_000);
    send!(ep, ms(212), peer(r(0), s(2000), 0));
    let rtx = recv!(ep, ms(212));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment, ours(s(2000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(212));
    ep
}

#[test]
fn third_dupack_fast_retransmits_with_exact_ssthresh_and_cwnd() {
    let mut ep = in_recovery();
    // FlightSize 13000 minus 2000 of Limited Transmit: ssthresh = 11000/2.
    assert_eq!(ep.ssthresh(), 5500);
    // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3*SMSS.
    assert_eq!(ep.cwnd(), 8500);
    assert_eq!(ep.recover, s(15_000));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!(ep.stats().dup_acks_received, 3);
    assert_eq!(
        events(&mut ep),
        vec![
            Event::CongestionStateChanged(CongestionState::Disorder),
            Event::CongestionStateChanged(CongestionState::Recovery)
        ]
    );
}

#[test]
fn extra_dupacks_inflate_cwnd_and_release_new_data() {
    let mut ep = in_recovery();
    for k in 1..=5 {
        send!(ep, ms(220 + k), peer(r(0), s(2000), 0));
        assert_eq!(ep.cwnd(), 8500 + 1000 * k);
        // 13000 in flight: 500 usable after the 5th is not a full segment.
        expect_nothing!(ep, ms(220 + k));
    }
    send!(ep, ms(226), peer(r(0), s(2000), 0));
    assert_eq!(ep.cwnd(), 14_500);
    send_segments(&mut ep, ms(226), 15_000, 1);
}

#[test]
fn partial_ack_retransmits_deflates_and_restarts_timer_once() {
    let mut ep = in_recovery();
    send!(ep, ms(300), peer(r(0), s(5000), 0));
    // cwnd -= 3000 newly acked, += SMSS since at least one SMSS was acked.
    assert_eq!(ep.cwnd(), 6500);
    let rtx = recv!(ep, ms(300));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment, ours(s(5000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(300));
    assert_eq!(
        ep.timers.get(Timer::Rto),
        Some(ms(1300)),
        "first partial ACK restarts"
    );
    send!(ep, ms(400), peer(r(0), s(6000), 0));
    assert_eq!(ep.cwnd(), 6500);
    assert_eq!(recv!(ep, ms(400)).segment, ours(s(6000), r(0), 1000, WIN));
    assert_eq!(
        ep.timers.get(Timer::Rto),
        Some(ms(1300)),
        "later ones do not"
    );
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
}

#[test]
fn full_ack_leaves_recovery_with_deflated_cwnd() {
    let mut ep = in_recovery();
    send!(ep, ms(300), peer(r(0), s(15_000), 0));
    // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(5500, 2000).
    assert_eq!(ep.cwnd(), 2000);
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    send_segments(&mut ep, ms(300), 15_000, 2);
    assert_eq!(ep.timers.get(Timer::Rto), Some(ms(1300)));
}

#[test]
fn full_ack_with_data_still_in_flight_uses_ssthresh() {
    let mut ep = in_recovery();
    for k in 1..=6 {
        send!(ep, ms(220 + k), peer(r(0), s(2000), 0));
    }
    let _ = recv!(ep, ms(226)); // s(15000), sent during recovery
    send!(ep, ms(300), peer(r(0), s(15_000), 0));
    // FlightSize 1000: min(5500, 1000 + 1000).
    assert_eq!(ep.cwnd(), 2000);
    // A later loss can start a new recovery: ACK 15000 covers more than recover.
    assert_eq!(ep.recover, s(15_000));
}

#[test]
fn careful_variant_refuses_fast_retransmit_after_a_timeout() {
    let mut ep = established(cfg());
    ep.write(10_000);
    send_segments(&mut ep, ms(100), 0, 10);
    ep.handle_timeout(ms(1100));
    assert_eq!(recv!(ep, ms(1100)).segment, ours(s(0), r(0), 1000, WIN));
    assert_eq!(ep.recover, s(10_000));
    send!(ep, ms(1200), peer(r(0), s(1000), 0));
    let _ = recv!(ep, ms(1200));
    let _ = recv!(ep, ms(1200));
    expect_nothing!(ep, ms(1200));
    // Duplicates of the go-back-N segments make dupACKs below recover:
    // RFC 6582 refuses a fast retransmit (ACK 1000 does not cover recover).
    for k in 0..4 {
        send!(ep, ms(1300 + k), peer(r(0), s(1000), 0));
        expect_nothing!(ep, ms(1300 + k));
    }
    assert_eq!(ep.stats().fast_retransmits, 0);
    assert_eq!(ep.ssthresh(), 5000);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
}

#[test]
fn losing_the_first_data_segment_still_fast_retransmits() {
    let mut ep = established(Config {
        limited_transmit: false,
        ..cfg()
    });
    ep.write(10_000);
    send_segments(&mut ep, ms(100), 0, 10);
    // ACK = ISS + 1: with recover initialised to ISS in the exclusive
    // sense, ACK > recover holds and the first segment is resent.
    for k in 0..2 {
        send!(ep, ms(200 + k), peer(r(0), s(0), 0));
        expect_nothing!(ep, ms(200 + k));
    }
    send!(ep, ms(202), peer(r(0), s(0), 0));
    let rtx = recv!(ep, ms(202));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment, ours(s(0), r(0), 1000, WIN));
    assert_eq!(ep.ssthresh(), 5000);
    assert_eq!(ep.cwnd(), 8000);
    assert_eq!(ep.stats().fast_retransmits, 1);
}

use super::Config;

fn sack_window_out() -> Endpoint {
    let mut ep = established(sack_cfg());
    assert_eq!(ep.recovery, Recovery::Sack);
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    ep
}

#[test]
fn sack_recovery_enters_on_third_dupack_and_follows_pipe() {
    let mut ep = sack_window_out();
    // s(0) lost. Limited Transmit on the first two.
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(2000))]));
    send_segments(&mut ep, ms(200), 10_000, 1);
    send!(ep, ms(201), sack_ack(s(0), &[(s(1000), s(3000))]));
    send_segments(&mut ep, ms(201), 11_000, 1);
    send!(ep, ms(202), sack_ack(s(0), &[(s(1000), s(4000))]));
    // RFC 6675 §5 step 4: ssthresh = cwnd = (12000 - 2000 LT) / 2.
    assert_eq!(ep.ssthresh(), 5000);
    assert_eq!(ep.cwnd(), 5000);
    assert_eq!(ep.recover, s(12_000), "RecoveryPoint = HighData");
    let rtx = recv!(ep, ms(202));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment, ours(s(0), r(0), 1000, WIN));
    // pipe = 1000 (retransmitted) + 8000 (s(4000)..s(12000) not lost) > cwnd.
    expect_nothing!(ep, ms(202));
    assert_eq!(
        ep.scoreboard
            .pipe(ep.snd_una, ep.snd_max, ep.high_rxt, 1000),
        9000
    );
    // More SACKs shrink pipe to 4000: one segment of new data (rule 2).
    send!(ep, ms(210), sack_ack(s(0), &[(s(1000), s(9000))]));
    send_segments(&mut ep, ms(210), 12_000, 1);
    // The cumulative ACK passes RecoveryPoint: recovery ends, cwnd stays.
    send!(ep, ms(300), sack_ack(s(12_000), &[]));
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    assert_eq!(ep.cwnd(), 5000);
}

#[test]
fn sack_recovery_starts_early_when_islost_says_so() {
    let mut ep = sack_window_out();
    // One dupACK SACKing more than 2 SMSS above SND.UNA: IsLost(HighACK + 1).
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(4000))]));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    assert_eq!(recv!(ep, ms(200)).segment, ours(s(0), r(0), 1000, WIN));
    assert_eq!(ep.ssthresh(), 5000);
}

#[test]
fn nextseg_rule_one_resends_a_lost_hole_before_new_data() {
    let mut ep = sack_window_out();
    // s(0) and s(2000) lost.
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(2000))]));
    let _ = recv!(ep, ms(200));
    send!(
        ep,
        ms(201),
        sack_ack(s(0), &[(s(3000), s(4000)), (s(1000), s(2000))])
    );
    let _ = recv!(ep, ms(201));
    send!(
        ep,
        ms(202),
        sack_ack(s(0), &[(s(3000), s(6000)), (s(1000), s(2000))])
    );
    assert_eq!(recv!(ep, ms(202)).segment, ours(s(0), r(0), 1000, WIN));
    expect_nothing!(ep, ms(202));
    send!(
        ep,
        ms(210),
        sack_ack(s(0), &[(s(3000), s(10_000)), (s(1000), s(2000))])
    );
    // pipe = 1000 (rxt of s(0)) + 0 (s(2000) is lost) + 2000 (s(10000)..s(12000)) = 3000.
    let rtx = recv!(ep, ms(210));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment, ours(s(2000), r(0), 1000, WIN));
    send_segments(&mut ep, ms(210), 12_000, 1);
    assert_eq!(ep.high_rxt, s(3000));
}

#[test]
fn rto_in_sack_recovery_clears_the_scoreboard_and_skips_resacked_data() {
    let mut ep = sack_window_out();
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(4000))]));
    let _ = recv!(ep, ms(200));
    let rto_at = ep.poll_timeout().unwrap();
    assert_eq!(rto_at, ms(1100));
    ep.handle_timeout(rto_at);
    assert!(ep.scoreboard.is_empty(), "RFC 2018 §8");
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
    assert_eq!(ep.recover, s(10_000));
    assert_eq!(recv!(ep, rto_at).segment, ours(s(0), r(0), 1000, WIN));
    expect_nothing!(ep, rto_at);
    // The receiver reports its holdings again; go-back-N skips them.
    let t = rto_at + Dur::from_millis(100);
    send!(ep, t, sack_ack(s(2000), &[(s(3000), s(9000))]));
    assert_eq!(ep.cwnd(), 2000);
    assert_eq!(recv!(ep, t).segment, ours(s(2000), r(0), 1000, WIN));
    let b = recv!(ep, t);
    assert!(b.retransmission);
    assert_eq!(b.segment, ours(s(9000), r(0), 1000, WIN));
    expect_nothing!(ep, t);
}

#[test]
fn ns3_profile_ssthresh_leaves_out_the_dupacked_segments() {
    let mut ep = established(Config {
        profile: super::Profile::Ns3,
        limited_transmit: false,
        ..cfg()
    });
    ep.write(10_000);
    send_segments(&mut ep, ms(100), 0, 10);
    for k in 0..3 {
        send!(ep, ms(200 + k), peer(r(0), s(0), 0));
    }
    let _ = recv!(ep, ms(202));
    // (10000 - 3 * 1000) / 2.
    assert_eq!(ep.ssthresh(), 3500);
    assert_eq!(ep.cwnd(), 6500);
}

#[test]
fn nextseg_rule_four_sends_one_rescue_retransmission() {
    let mut ep = established(sack_cfg());
    ep.write(10_000);
    send_segments(&mut ep, ms(100), 0, 10);
    // s(0) and the tail s(9000) lost: one dupACK SACKs 8 segments.
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(9000))]));
    assert_eq!(recv!(ep, ms(200)).segment, ours(s(0), r(0), 1000, WIN));
    expect_nothing!(ep, ms(200));
    // The partial ACK leaves only the tail, above every SACKed byte and
    // with no new data to send: rule 4 resends it once.
    send!(ep, ms(300), sack_ack(s(9000), &[]));
    let rescue = recv!(ep, ms(300));
    assert!(rescue.retransmission);
    assert_eq!(without_psh(rescue.segment), ours(s(9000), r(0), 1000, WIN));
    assert_eq!(ep.rescue_rxt, Some(s(10_000)), "RescueRxt = RecoveryPoint");
    expect_nothing!(ep, ms(300));
    send!(ep, ms(301), sack_ack(s(9000), &[]));
    expect_nothing!(ep, ms(301));
    send!(ep, ms(400), sack_ack(s(10_000), &[]));
    assert_eq!(ep.congestion_state(), CongestionState::Open);
}

#[test]
fn rto_in_newreno_recovery_leaves_dupacked_data_out_of_ssthresh() {
    let mut ep = in_recovery();
    // Five more dupACKs: eight segments above the hole have reached the
    // receiver in all.
    for k in 1..=5 {
        send!(ep, ms(220 + k), peer(r(0), s(2000), 0));
    }
    while ep.poll_transmit(ms(226)).is_some() {}
    let outstanding = ep.flight_size();
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert_eq!(ep.stats().rto_count, 1);
    // FlightSize minus the 8 dupACKed segments, halved (RFC 5681 eq. 4 is
    // an upper bound).
    assert_eq!(ep.ssthresh(), ((outstanding - 8000) / 2).max(2000));
    assert!(ep.ssthresh() < outstanding / 2);
    assert_eq!(ep.cwnd(), 1000);
}

#[test]
fn ns3_profile_leaves_recovery_with_cwnd_at_ssthresh() {
    let mut ep = in_recovery();
    ep.config.profile = super::Profile::Ns3;
    send!(ep, ms(300), peer(r(0), s(15_000), 0));
    // ns-3 takes RFC 6582's other option: cwnd = ssthresh, then the same
    // ACK runs one congestion-avoidance step (SMSS*SMSS/cwnd).
    assert_eq!(ep.cwnd(), 5500 + 1_000_000 / 5500);
    assert_eq!(ep.congestion_state(), CongestionState::Open);
}

#[test]
fn ns3_profile_counts_limited_transmit_in_the_ssthresh_flight() {
    let mut ep = established(Config {
        profile: super::Profile::Ns3,
        ..cfg()
    });
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    send!(ep, ms(200), peer(r(0), s(2000), 0));
    send_segments(&mut ep, ms(200), 10_000, 3);
    send!(ep, ms(210), peer(r(0), s(2000), 0));
    send_segments(&mut ep, ms(210), 13_000, 1);
    send!(ep, ms(211), peer(r(0), s(2000), 0));
    send_segments(&mut ep, ms(211), 14_000, 1);
    send!(ep, ms(212), peer(r(0), s(2000), 0));
    assert!(recv!(ep, ms(212)).retransmission);
    // ns-3: BytesInFlight covers the two Limited Transmit segments and
    // leaves out the three dup-acked ones: (13000 - 3000) / 2.
    assert_eq!(ep.ssthresh(), 5000);
}

/// Five segments out with a window of ten (the application wrote five):
/// FlightSize 5000, cwnd 10 000, ssthresh from `from`.
fn five_out(from: super::SsthreshFrom) -> super::Endpoint {
    let mut ep = established(super::Config {
        ssthresh_from: from,
        ..sack_cfg()
    });
    ep.write(5000);
    send_segments(&mut ep, ms(100), 0, 5);
    ep
}

/// `five_out`, then one SACK of more than two segments above the hole:
/// SACK recovery.
fn five_out_in_recovery(from: super::SsthreshFrom) -> super::Endpoint {
    let mut ep = five_out(from);
    send!(ep, ms(200), sack_ack(s(0), &[(s(1000), s(4000))]));
    assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    ep
}

#[test]
fn ssthresh_comes_from_flight_size_or_as_linux_from_cwnd() {
    let out = |from| five_out_in_recovery(from).ssthresh();
    assert_eq!(out(super::SsthreshFrom::FlightSize), 2500);
    assert_eq!(out(super::SsthreshFrom::Cwnd), 5000);
    // The same five segments timed out instead.
    let timed_out = |from| {
        let mut ep = five_out(from);
        ep.handle_timeout(ms(1100));
        assert_eq!(ep.congestion_state(), CongestionState::Loss);
        ep.ssthresh()
    };
    assert_eq!(timed_out(super::SsthreshFrom::FlightSize), 2500);
    assert_eq!(timed_out(super::SsthreshFrom::Cwnd), 5000);
}

#[test]
fn as_linux_a_timeout_inside_fast_recovery_keeps_its_ssthresh() {
    // SACK recovery entered on five segments out (ssthresh 5000 from cwnd,
    // as above), then the retransmission timer expires before recovery
    // ends: Linux (`tcp_enter_loss`) keeps the recovery's ssthresh; RFC
    // 5681 sets it again from the FlightSize.
    let timed_out_in_recovery = |from| {
        let mut ep = five_out_in_recovery(from);
        let in_recovery = ep.ssthresh();
        ep.handle_timeout(ms(5000));
        assert_eq!(ep.congestion_state(), CongestionState::Loss);
        (in_recovery, ep.ssthresh())
    };
    assert_eq!(
        timed_out_in_recovery(super::SsthreshFrom::Cwnd),
        (5000, 5000)
    );
    let (entry, after) = timed_out_in_recovery(super::SsthreshFrom::FlightSize);
    assert_eq!(entry, 2500);
    // Five segments out, three SACKed: (5000 - 3000) / 2 at least 2 SMSS.
    assert_eq!(after, 2000);
}

/// Moves data through `ep` without a loss until `bytes` are acknowledged:
/// each round sends what the window allows and the peer acknowledges all
/// of it. Returns the time after the last round.
fn move_without_loss(ep: &mut Endpoint, mut t: crate::time::Time, bytes: u64) -> crate::time::Time {
    while ep.snd_una_rel() < bytes {
        ep.write(u64::MAX);
        let mut end = ep.snd_una();
        while let Some(x) = ep.poll_transmit(t) {
            end = x.segment.seq + x.segment.payload_len;
        }
        t += Dur::from_millis(1);
        send!(ep, t, peer(r(0), end, 0));
    }
    t
}

/// `recover` is set at a loss and left there: a flow that then moves 2^31
/// bytes without a loss must still fast-retransmit at the next one (RFC
/// 6582's check "the ACK covers more than recover" reads a mark 2^31
/// behind as ahead unless the mark follows SND.UNA).
#[test]
fn fast_retransmit_still_works_2_pow_31_bytes_after_the_last_loss() {
    for c in [cfg(), sack_cfg()] {
        let mut ep = established(c);
        let t = move_without_loss(&mut ep, ms(100), (1 << 31) + 5_000_000);
        assert!(ep.snd_una_rel() > 1 << 31);
        // A window in flight, its first segment lost: three dupACKs.
        ep.write(u64::MAX);
        let una = ep.snd_una();
        while ep.poll_transmit(t).is_some() {}
        let mut t = t;
        for _ in 0..3 {
            t += Dur::from_millis(1);
            send!(ep, t, peer(r(0), una, 0));
            while ep.poll_transmit(t).is_some_and(|x| !x.retransmission) {}
        }
        assert_eq!(ep.stats().fast_retransmits, 1, "recovery {:?}", ep.recovery);
        assert_eq!(ep.congestion_state(), CongestionState::Recovery);
    }
}

#[test]
fn a_timeout_of_a_segment_the_go_back_n_resent_keeps_ssthresh() {
    // Ten segments out, the first timeout: ssthresh = 10000/2, cwnd 1 SMSS.
    let mut ep = established(cfg());
    ep.write(40_000);
    send_segments(&mut ep, ms(100), 0, 10);
    ep.handle_timeout(ms(1100));
    assert_eq!(ep.ssthresh(), 5000);
    assert!(recv!(ep, ms(1100)).retransmission);
    // Its ACK moves SND.UNA; the go-back-N resends the next two.
    send!(ep, ms(1200), peer(r(0), s(1000), 0));
    for k in 1..=2 {
        let rtx = recv!(ep, ms(1200));
        assert!(rtx.retransmission);
        assert_eq!(rtx.segment.seq, s(1000 * k));
    }
    expect_nothing!(ep, ms(1200));
    // The next timeout finds a head the timer's go-back-N already resent:
    // RFC 5681 §3.1 leaves ssthresh alone (SND.MAX - SND.UNA = 9000 would
    // have given 4500).
    let t = ep.poll_timeout().unwrap();
    ep.handle_timeout(t);
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
    assert_eq!(ep.stats().rto_count, 2);
    assert_eq!(ep.ssthresh(), 5000);
    assert_eq!(ep.cwnd(), 1000);
}

/// A partial ACK in NewReno recovery: RFC 6582 deflates cwnd by the bytes
/// acknowledged; ns-3 keeps cwnd at ssthresh plus the dupACKed segments
/// still above SND.UNA. The two agree while the dupACKs cover what the ACK
/// acknowledges and part when it covers more.
#[test]
fn ns3_profile_partial_ack_keeps_ssthresh_plus_the_dupacked_segments() {
    for (profile, ack, cwnd) in [
        // Two segments acknowledged, three dupACKed: 8500 - 2000 + 1000 both ways.
        (super::Profile::Rfc, 4000, 7500),
        (super::Profile::Ns3, 4000, 5500 + 2000),
        // Seven acknowledged: RFC 6582 goes below ssthresh, ns-3 stays at it.
        (super::Profile::Rfc, 9000, 8500 - 7000 + 1000),
        (super::Profile::Ns3, 9000, 5500),
    ] {
        let mut ep = in_recovery();
        ep.config.profile = profile;
        send!(ep, ms(300), peer(r(0), s(ack), 0));
        assert_eq!(ep.cwnd(), cwnd, "{profile:?}, ACK {ack}");
        let rtx = recv!(ep, ms(300));
        assert!(rtx.retransmission);
        assert_eq!(rtx.segment, ours(s(ack), r(0), 1000, WIN));
    }
}

/// Going back N after a timeout with room for half a segment: the RFC
/// profile resends what fits (retransmissions are never held back), the
/// ns-3 profile waits for a whole segment as `SendPendingData` does.
#[test]
fn ns3_profile_holds_a_partial_go_back_n_retransmission() {
    for profile in [super::Profile::Rfc, super::Profile::Ns3] {
        let mut ep = established(Config { profile, ..cfg() });
        ep.write(10_000);
        send_segments(&mut ep, ms(100), 0, 10);
        let rto_at = ep.poll_timeout().unwrap();
        ep.handle_timeout(rto_at);
        assert_eq!(recv!(ep, rto_at).segment, ours(s(0), r(0), 1000, WIN));
        let t = rto_at + Dur::from_millis(50);
        send!(ep, t, peer(r(0), s(1000), 0));
        assert_eq!(recv!(ep, t).segment.seq, s(1000));
        assert_eq!(recv!(ep, t).segment.seq, s(2000));
        // Room for one segment and a half beyond the two in flight.
        ep.win.cwnd = 3500;
        assert_eq!(recv!(ep, t).segment.seq, s(3000));
        match profile {
            super::Profile::Rfc => {
                let half = recv!(ep, t);
                assert!(half.retransmission);
                assert_eq!(half.segment.payload_len, 500);
            }
            super::Profile::Ns3 => expect_nothing!(ep, t),
        }
    }
}
