//! Scripted tests: handshake, sending, timers, windows, close, hooks.

use super::fixture::*;
use super::{Config, CongestionState, Endpoint, Event, Profile, Recovery, State, Timer};
use crate::time::{Dur, Time};
use crate::wire::{SeqNum, TcpFlags, TcpOptions};

#[test]
fn active_open_offers_options_and_negotiates() {
    let c = Config {
        window_scale: true,
        sack: true,
        timestamps: true,
        recovery: Recovery::Sack,
        rcv_buffer: 4 << 20,
        ..cfg()
    };
    let mut ep = Endpoint::new(c, LP, RP, ISS);
    ep.connect(ms(0));
    let syn = recv!(ep, ms(0));
    assert!(!syn.retransmission);
    assert_eq!(syn.segment.seq, ISS);
    assert_eq!(syn.segment.flags, TcpFlags::SYN);
    // RFC 7323 §2.2: the SYN window is never scaled.
    assert_eq!(syn.segment.window, 65_535);
    assert_eq!(
        syn.segment.options,
        TcpOptions {
            mss: Some(1000),
            window_scale: Some(7), // 65535 << 7 >= 4 MiB > 65535 << 6
            sack_permitted: true,
            timestamps: Some((0, 0)),
            ..TcpOptions::default()
        }
    );
    expect_nothing!(ep, ms(0));
    assert_eq!(ep.poll_timeout(), Some(ms(1000)));
    // The peer offers only SACK and window scale 2, and a smaller MSS.
    let mut sa = peer(IRS, ISS + 1, 0);
    sa.flags = TcpFlags::SYN | TcpFlags::ACK;
    sa.window = 65_535;
    sa.options.mss = Some(900);
    sa.options.sack_permitted = true;
    sa.options.window_scale = Some(2);
    send!(ep, ms(50), sa);
    assert_eq!(ep.state(), State::Established);
    assert_eq!(events(&mut ep), vec![Event::Established]);
    assert_eq!(ep.smss(), 900, "no timestamps: full MSS");
    assert_eq!(ep.recovery, Recovery::Sack);
    assert_eq!(ep.srtt(), Some(Dur::from_millis(50)), "SYN RTT sample");
    assert_eq!(ep.cwnd(), 9000, "IW = 10 segments");
    // The ACK carries a scaled window: 4 MiB >> 7.
    let mut ack = ours(s(0), r(0), 0, 32_768);
    ack.options = TcpOptions::default();
    expect!(ep, ms(50), ack);
    // Windows from the peer are scaled by its shift (2).
    let mut w = peer(r(0), s(0), 0);
    w.window = 1000;
    send!(ep, ms(60), w);
    assert_eq!(ep.snd_wnd(), 4000);
    assert_eq!(ep.poll_timeout(), None, "nothing outstanding");
}

#[test]
fn passive_open_answers_only_offered_options() {
    let c = Config {
        sack: true,
        window_scale: true,
        timestamps: true,
        ..cfg()
    };
    let mut ep = Endpoint::new(c, LP, RP, ISS);
    ep.listen();
    assert_eq!(ep.state(), State::Listen);
    let mut syn = peer(IRS, SeqNum(0), 0);
    syn.flags = TcpFlags::SYN;
    syn.options.mss = Some(1200);
    syn.options.sack_permitted = true;
    send!(ep, ms(10), syn);
    assert_eq!(ep.state(), State::SynReceived);
    let mut sa = ours(ISS, r(0), 0, WIN);
    sa.flags = TcpFlags::SYN | TcpFlags::ACK;
    sa.options.mss = Some(1000);
    sa.options.sack_permitted = true; // no WS, no TS: the peer did not offer them
    expect!(ep, ms(10), sa);
    expect_nothing!(ep, ms(10));
    // A retransmitted SYN gets the SYN-ACK again, marked as a retransmission.
    send!(ep, ms(20), syn);
    let again = recv!(ep, ms(20));
    assert!(again.retransmission);
    assert_eq!(again.segment, sa);
    send!(ep, ms(110), peer(r(0), ISS + 1, 0));
    assert_eq!(ep.state(), State::Established);
    assert_eq!(events(&mut ep), vec![Event::Established]);
    assert_eq!(ep.smss(), 1000);
    assert_eq!(ep.srtt(), None, "Karn: the SYN-ACK was sent twice");
    expect_nothing!(ep, ms(110));
}

#[test]
fn syn_timeout_backs_off_then_iw_is_one_segment_and_rto_three_seconds() {
    let mut ep = Endpoint::new(cfg(), LP, RP, ISS);
    ep.connect(ms(0));
    let _ = recv!(ep, ms(0));
    ep.handle_timeout(ms(999));
    expect_nothing!(ep, ms(999));
    ep.handle_timeout(ms(1000));
    let syn = recv!(ep, ms(1000));
    assert!(syn.retransmission);
    assert_eq!(syn.segment.seq, ISS);
    assert_eq!(ep.rto(), Dur::from_secs(2));
    assert_eq!(ep.poll_timeout(), Some(ms(3000)));
    // A timeout of the handshake, apart from the data RTOs.
    assert_eq!(ep.stats().syn_timeouts, 1);
    assert_eq!(ep.stats().rto_count, 0);
    send!(ep, ms(1100), syn_ack(&cfg()));
    assert_eq!(ep.state(), State::Established);
    // RFC 5681 §3.1: after a lost SYN, the initial window is one segment.
    assert_eq!(ep.cwnd(), 1000);
    // RFC 6298 (5.7): RTO = 3 s when data transfer starts; no sample (Karn).
    assert_eq!(ep.rto(), Dur::from_secs(3));
    assert_eq!(ep.srtt(), None);
    expect!(ep, ms(1100), ours(s(0), r(0), 0, WIN));
    ep.write(5000);
    send_segments(&mut ep, ms(1100), 0, 1);
}

#[test]
fn linear_syn_timeouts_keep_the_rto_for_the_first_ones_then_double_it() {
    // Linux's default (`tcp_syn_linear_timeouts` = 4): SYNs at 0, 1, 2, 3,
    // 4 and 5 s, then 7 and 11 s; without it at 0, 1, 3, 7 and 15 s.
    let sent_at = |linear: u32| {
        let c = Config {
            syn_linear_timeouts: linear,
            max_rto: Dur::from_secs(60),
            ..cfg()
        };
        let mut ep = Endpoint::new(c, LP, RP, ISS);
        ep.connect(ms(0));
        let _ = recv!(ep, ms(0));
        let mut at = Vec::new();
        while let Some(t) = ep.poll_timeout().filter(|t| *t <= ms(12_000)) {
            ep.handle_timeout(t);
            let syn = recv!(ep, t);
            assert!(syn.retransmission && syn.segment.flags.syn());
            at.push(t.as_nanos() / 1_000_000_000);
        }
        (at, ep)
    };
    let (linear, ep) = sent_at(4);
    assert_eq!(linear, [1, 2, 3, 4, 5, 7, 11]);
    assert_eq!(ep.rto(), Dur::from_secs(8));
    assert_eq!(ep.stats().syn_timeouts, 7);
    let (doubling, _) = sent_at(0);
    assert_eq!(doubling, [1, 3, 7]);
    // Two linear ones: SYNs at 1, 2, 3, 5 and 9 s, the RTO backed off to
    // 8 s; once connected the data's RTO is RFC 6298 (5.7)'s 3 s.
    let (two, mut ep) = sent_at(2);
    assert_eq!(two, [1, 2, 3, 5, 9]);
    assert_eq!(ep.rto(), Dur::from_secs(8));
    send!(ep, ms(12_100), syn_ack(&cfg()));
    assert_eq!(ep.state(), State::Established);
    assert_eq!(ep.rto(), Dur::from_secs(3));
}

#[test]
fn ns3_profile_syn_back_off_is_uncapped_and_keeps_the_initial_window() {
    let c = Config {
        profile: Profile::Ns3,
        max_rto: Dur::from_secs(4),
        ..cfg()
    };
    let mut ep = Endpoint::new(c.clone(), LP, RP, ISS);
    ep.connect(ms(0));
    let _ = recv!(ep, ms(0));
    // 1 s, 2 s, 4 s, then 8 s: ns-3 doubles its connection timeout past
    // the data RTO's cap.
    let mut at = 0;
    for k in 0..3 {
        at += 1000 << k;
        ep.handle_timeout(ms(at));
        let _ = recv!(ep, ms(at));
    }
    assert_eq!(ep.rto(), Dur::from_secs(8));
    assert_eq!(ep.stats().syn_timeouts, 3);
    send!(ep, ms(at + 100), syn_ack(&c));
    assert_eq!(ep.state(), State::Established);
    // No RFC 5681 §3.1 one-segment window, no RFC 6298 (5.7) 3 s RTO: the
    // estimator's, capped again.
    assert_eq!(ep.cwnd(), 10_000);
    assert_eq!(ep.rto(), Dur::from_secs(4));
}

#[test]
fn ns3_profile_sends_the_handshake_ack_before_the_data() {
    // ns-3 answers the SYN-ACK with a pure ACK, then sends its initial
    // window (TcpSocketBase::ProcessSynSent); the RFC profile puts the ACK
    // on the first data segment.
    for (profile, pure_first) in [(Profile::Ns3, true), (Profile::Rfc, false)] {
        let c = Config { profile, ..cfg() };
        let mut ep = Endpoint::new(c.clone(), LP, RP, ISS);
        ep.connect(ms(0));
        let _ = recv!(ep, ms(0));
        ep.write(5000);
        send!(ep, ms(50), syn_ack(&c));
        let first = recv!(ep, ms(50));
        assert!(first.segment.flags.ack());
        assert_eq!(first.segment.payload_len == 0, pure_first, "{profile:?}");
        let second = recv!(ep, ms(50));
        assert_eq!(second.segment.payload_len, 1000, "{profile:?}");
        assert_eq!(second.segment.seq, s(if pure_first { 0 } else { 1000 }));
    }
}

#[test]
fn ns3_profile_times_the_first_syn_through_its_retransmission() {
    // ns-3 3.44 keeps one RTT history entry for the SYN, of length zero,
    // which a retransmission never marks: the SYN-ACK gives a sample from
    // the first SYN (TcpSocketBase::UpdateRttHistory, EstimateRtt).
    let c = Config {
        profile: Profile::Ns3,
        ..cfg()
    };
    let mut ep = Endpoint::new(c.clone(), LP, RP, ISS);
    ep.connect(ms(0));
    let _ = recv!(ep, ms(0));
    ep.handle_timeout(ms(1000));
    let syn = recv!(ep, ms(1000));
    assert!(syn.retransmission);
    send!(ep, ms(1100), syn_ack(&c));
    assert_eq!(ep.state(), State::Established);
    // First sample 1.1 s: SRTT 1.1 s, RTTVAR 0.55 s, RTO 1.1 + 4 * 0.55 s.
    assert_eq!(ep.srtt(), Some(Dur::from_millis(1100)));
    assert_eq!(ep.rto(), Dur::from_millis(3300));
    assert_eq!(ep.stats().syn_timeouts, 1);
    // The RFC profile takes no sample from it (Karn).
    let mut rfc = Endpoint::new(cfg(), LP, RP, ISS);
    rfc.connect(ms(0));
    let _ = recv!(rfc, ms(0));
    rfc.handle_timeout(ms(1000));
    let _ = recv!(rfc, ms(1000));
    send!(rfc, ms(1100), syn_ack(&cfg()));
    assert_eq!(rfc.srtt(), None);
}

#[test]
fn ns3_profile_times_the_first_syn_ack_through_its_retransmission() {
    // The passive side likewise: the handshake's ACK gives a sample from
    // the first SYN-ACK.
    let c = Config {
        profile: Profile::Ns3,
        ..cfg()
    };
    let mut ep = Endpoint::new(c.clone(), LP, RP, ISS);
    ep.listen();
    let mut syn = peer(IRS, SeqNum(0), 0);
    syn.flags = TcpFlags::SYN;
    send!(ep, ms(0), syn);
    let first = recv!(ep, ms(0));
    assert!(first.segment.flags.syn() && first.segment.flags.ack());
    ep.handle_timeout(ms(1000));
    let again = recv!(ep, ms(1000));
    assert!(again.retransmission);
    send!(ep, ms(1100), peer(r(0), ISS + 1, 0));
    assert_eq!(ep.state(), State::Established);
    assert_eq!(ep.srtt(), Some(Dur::from_millis(1100)));
}

#[test]
fn slow_start_grows_by_min_of_acked_and_smss() {
    let mut ep = established(cfg());
    assert_eq!(ep.cwnd(), 10_000);
    assert_eq!(ep.write(30_000), 30_000);
    send_segments(&mut ep, ms(100), 0, 10);
    assert_eq!(ep.flight_size(), 10_000);
    // A delayed ACK for two segments: cwnd += min(2000, SMSS).
    send!(ep, ms(200), peer(r(0), s(2000), 0));
    assert_eq!(ep.cwnd(), 11_000);
    send_segments(&mut ep, ms(200), 10_000, 3);
    // An ACK of 500 bytes grows cwnd by 500 only.
    send!(ep, ms(210), peer(r(0), s(2500), 0));
    assert_eq!(ep.cwnd(), 11_500);
    assert_eq!(ep.stats().bytes_acked, 2500);
}

#[test]
fn congestion_avoidance_counts_bytes_one_smss_per_window() {
    let mut ep = established(cfg());
    ep.win.ssthresh = 10_000;
    ep.write(30_000);
    send_segments(&mut ep, ms(100), 0, 10);
    for k in 1..10 {
        send!(ep, ms(200 + k as u64), peer(r(0), s(1000 * k), 0));
        assert_eq!(ep.cwnd(), 10_000, "after {k} ACKs");
        send_segments(&mut ep, ms(200 + k as u64), 9000 + 1000 * k, 1);
    }
    send!(ep, ms(210), peer(r(0), s(10_000), 0));
    assert_eq!(ep.cwnd(), 11_000, "one SMSS after cwnd bytes acknowledged");
}

#[test]
fn rto_backs_off_keeps_ssthresh_and_applies_karn() {
    let mut ep = established(cfg());
    assert_eq!(ep.rto(), Dur::from_secs(1));
    ep.write(4000);
    send_segments(&mut ep, ms(100), 0, 4);
    assert_eq!(ep.poll_timeout(), Some(ms(1100)));
    ep.handle_timeout(ms(1099));
    expect_nothing!(ep, ms(1099));
    ep.handle_timeout(ms(1100));
    // RFC 6298 (5.4): the earliest unacknowledged segment, marked as resent.
    let t = recv!(ep, ms(1100));
    assert!(t.retransmission);
    assert_eq!(t.segment, ours(s(0), r(0), 1000, WIN));
    expect_nothing!(ep, ms(1100));
    assert_eq!(ep.cwnd(), 1000);
    assert_eq!(ep.ssthresh(), 2000, "max(4000/2, 2*SMSS)");
    assert_eq!(ep.rto(), Dur::from_secs(2));
    assert_eq!(ep.poll_timeout(), Some(ms(3100)));
    assert_eq!(ep.congestion_state(), CongestionState::Loss);
    assert_eq!(
        events(&mut ep),
        vec![
            Event::CongestionStateChanged(CongestionState::Loss),
            Event::RetransmissionTimeout {
                rto: Dur::from_secs(2)
            }
        ]
    );
    // The same segment times out again: ssthresh unchanged, RTO doubled.
    ep.handle_timeout(ms(3100));
    assert!(recv!(ep, ms(3100)).retransmission);
    assert_eq!(ep.ssthresh(), 2000);
    assert_eq!(ep.rto(), Dur::from_secs(4));
    // Karn: the ACK of a resent segment gives no sample; the back-off stays.
    send!(ep, ms(3200), peer(r(0), s(1000), 0));
    assert_eq!(ep.srtt(), Some(Dur::from_millis(100)));
    assert_eq!(ep.rto(), Dur::from_secs(4));
    // Go-back-N under cwnd = 2 SMSS (slow start after the ACK).
    assert_eq!(ep.cwnd(), 2000);
    let a = recv!(ep, ms(3200));
    assert!(a.retransmission);
    assert_eq!(a.segment, ours(s(1000), r(0), 1000, WIN));
    let b = recv!(ep, ms(3200));
    assert_eq!(b.segment.seq, s(2000));
    expect_nothing!(ep, ms(3200));
    assert_eq!(ep.poll_timeout(), Some(ms(7200)), "RFC 6298 (5.3) restart");
    assert_eq!(ep.stats().rto_count, 2);
    assert_eq!(ep.stats().retransmissions, 4);
}

#[test]
fn a_new_sample_after_backoff_restores_the_rto() {
    let mut ep = established(cfg());
    ep.write(1000);
    send_segments(&mut ep, ms(100), 0, 1);
    ep.handle_timeout(ms(1100));
    let _ = recv!(ep, ms(1100));
    send!(ep, ms(1200), peer(r(0), s(1000), 0));
    assert_eq!(ep.rto(), Dur::from_secs(2));
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    ep.write(1000);
    send_segments(&mut ep, ms(1200), 1000, 1);
    send!(ep, ms(1300), peer(r(0), s(2000), 0));
    assert_eq!(ep.rto(), Dur::from_secs(1), "clamped to min_rto again");
}

#[test]
fn ns3_profile_ends_the_back_off_on_the_first_new_ack() {
    // ns-3's NewAck recomputes the RTO from the estimator whenever an ACK
    // of new data restarts the timer: no wait for a valid sample (Karn).
    let mut ep = established(Config {
        profile: Profile::Ns3,
        ..cfg()
    });
    ep.write(4000);
    send_segments(&mut ep, ms(100), 0, 4);
    ep.handle_timeout(ms(1100));
    assert!(recv!(ep, ms(1100)).retransmission);
    ep.handle_timeout(ms(3100));
    assert!(recv!(ep, ms(3100)).retransmission);
    assert_eq!(ep.rto(), Dur::from_secs(4));
    send!(ep, ms(3200), peer(r(0), s(1000), 0));
    assert_eq!(ep.srtt(), Some(Dur::from_millis(100)), "no sample taken");
    assert_eq!(ep.rto(), Dur::from_secs(1));
    while ep.poll_transmit(ms(3200)).is_some() {}
    assert_eq!(ep.poll_timeout(), Some(ms(4200)));
    // ns-3 ends the timeout's recovery on the ACK that reaches its
    // recovery point and grows cwnd only by what lies above it: none here.
    assert_eq!(ep.cwnd(), 2000);
    send!(ep, ms(3300), peer(r(0), s(4000), 0));
    assert_eq!(ep.congestion_state(), CongestionState::Open);
    assert_eq!(ep.cwnd(), 2000);
}

#[test]
fn rto_is_clamped_to_min_and_max() {
    let c = Config {
        min_rto: Dur::from_millis(200),
        max_rto: Dur::from_secs(60),
        ..cfg()
    };
    let mut ep = established(c);
    // 100 ms + 4 * 50 ms = 300 ms, above the 200 ms floor.
    assert_eq!(ep.rto(), Dur::from_millis(300));
    ep.write(1000);
    send_segments(&mut ep, ms(100), 0, 1);
    let mut t = ms(100);
    let mut rtos = Vec::new();
    for _ in 0..10 {
        t = ep.poll_timeout().unwrap();
        ep.handle_timeout(t);
        let _ = recv!(ep, t);
        rtos.push(ep.rto().as_nanos() / 1_000_000);
    }
    assert_eq!(
        rtos,
        [600, 1200, 2400, 4800, 9600, 19_200, 38_400, 60_000, 60_000, 60_000]
    );
    assert_eq!(ep.poll_timeout(), Some(t + Dur::from_secs(60)));
}

#[test]
fn duplicate_ack_needs_all_five_conditions() {
    let mut ep = established(cfg());
    ep.write(10_000);
    send_segments(&mut ep, ms(100), 0, 10);
    // (e) a changed window makes it a window update, not a dupACK.
    let mut w = peer(r(0), s(0), 0);
    w.window = WIN - 1;
    send!(ep, ms(200), w);
    assert_eq!(ep.stats().dup_acks_received, 0);
    // (b) carrying data.
    let mut d = peer(r(0), s(0), 10);
    d.window = WIN - 1;
    send!(ep, ms(201), d);
    assert_eq!(ep.stats().dup_acks_received, 0);
    // All five hold (window now the same as before).
    let mut dup = peer(r(10), s(0), 0);
    dup.window = WIN - 1;
    send!(ep, ms(202), dup);
    assert_eq!(ep.stats().dup_acks_received, 1);
    assert_eq!(ep.congestion_state(), CongestionState::Disorder);
}

#[test]
fn sender_sws_sends_full_segments_and_the_tail_only() {
    let mut ep = established(cfg());
    ep.write(10_500);
    send_segments(&mut ep, ms(100), 0, 10);
    // cwnd 11000 after this ACK: 2000 usable, 500 left to send: the tail goes.
    send!(ep, ms(200), peer(r(0), s(1000), 0));
    expect!(ep, ms(200), ours(s(10_000), r(0), 500, WIN));
    expect_nothing!(ep, ms(200));
    // Peer window leaves 300 B usable while 1000 B wait: nothing is sent.
    ep.write(1000);
    let mut w = peer(r(0), s(2000), 0);
    w.window = 8800; // right edge s(10800): 300 B beyond SND.NXT
    send!(ep, ms(210), w);
    expect_nothing!(ep, ms(210));
    let mut w = peer(r(0), s(3000), 0);
    w.window = 9000; // right edge s(12000)
    send!(ep, ms(220), w);
    expect!(ep, ms(220), ours(s(10_500), r(0), 1000, WIN));
}

#[test]
fn zero_window_probe_backs_off_and_resets_when_the_window_opens() {
    let mut ep = established(cfg());
    ep.write(3000);
    send_segments(&mut ep, ms(100), 0, 3);
    let mut zero = peer(r(0), s(3000), 0);
    zero.window = 0;
    send!(ep, ms(200), zero);
    ep.write(2000);
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.timers.get(Timer::Rto), None);
    // RFC 9293 SHLD-29: first probe after one RTO.
    assert_eq!(ep.poll_timeout(), Some(ms(1200)));
    ep.handle_timeout(ms(1200));
    let p = recv!(ep, ms(1200));
    assert_eq!(p.segment, ours(s(3000), r(0), 1, WIN));
    assert!(!p.retransmission);
    expect_nothing!(ep, ms(1200));
    // SHLD-30: exponential back-off.
    assert_eq!(ep.poll_timeout(), Some(ms(3200)));
    send!(ep, ms(1300), zero); // probe dropped by the receiver, window still 0
    expect_nothing!(ep, ms(1300));
    ep.handle_timeout(ms(3200));
    let p = recv!(ep, ms(3200));
    assert_eq!(p.segment, ours(s(3000), r(0), 1, WIN));
    assert!(p.retransmission);
    assert_eq!(ep.poll_timeout(), Some(ms(7200)));
    assert_eq!(ep.stats().zero_window_probes, 2);
    assert_eq!(ep.cwnd(), 11_000, "probes leave cwnd alone");
    // The window opens: data flows, the persist timer stops, back-off resets.
    send!(ep, ms(3300), peer(r(0), s(3000), 0));
    expect!(ep, ms(3300), ours(s(3000), r(0), 1000, WIN));
    expect!(ep, ms(3300), ours(s(4000), r(0), 1000, WIN));
    expect_nothing!(ep, ms(3300));
    assert_eq!(ep.timers.get(Timer::Persist), None);
    assert_eq!(ep.persist_backoff, 0);
    assert_eq!(ep.poll_timeout(), Some(ms(4300)), "RTO for the data");
}

#[test]
fn close_both_ways_through_time_wait() {
    let mut ep = established(cfg());
    ep.write(1000);
    ep.close();
    assert_eq!(ep.state(), State::FinWait1);
    assert_eq!(ep.write(10), 0, "no data after close");
    let mut last = ours(s(0), r(0), 1000, WIN);
    last.flags = TcpFlags::ACK | TcpFlags::FIN;
    expect!(ep, ms(100), last);
    expect_nothing!(ep, ms(100));
    send!(ep, ms(200), peer(r(0), s(1001), 0));
    assert_eq!(ep.state(), State::FinWait2);
    let mut fin = peer(r(0), s(1001), 0);
    fin.flags = TcpFlags::ACK | TcpFlags::FIN;
    send!(ep, ms(300), fin);
    assert_eq!(ep.state(), State::TimeWait);
    // The FIN took one byte of the window; the right edge stays.
    expect!(ep, ms(300), ours(s(1001), r(1), 0, WIN - 1));
    assert_eq!(ep.poll_timeout(), Some(ms(2300)));
    ep.handle_timeout(ms(2300));
    assert_eq!(ep.state(), State::Closed);
    assert_eq!(events(&mut ep), vec![Event::PeerClosed, Event::Closed]);
}

#[test]
fn passive_close_goes_through_close_wait_and_last_ack() {
    let mut ep = established(cfg());
    let mut fin = peer(r(0), s(0), 0);
    fin.flags = TcpFlags::ACK | TcpFlags::FIN;
    send!(ep, ms(200), fin);
    assert_eq!(ep.state(), State::CloseWait);
    expect!(ep, ms(200), ours(s(0), r(1), 0, WIN - 1));
    ep.close();
    assert_eq!(ep.state(), State::LastAck);
    let mut our_fin = ours(s(0), r(1), 0, WIN - 1);
    our_fin.flags = TcpFlags::ACK | TcpFlags::FIN;
    expect!(ep, ms(210), our_fin);
    send!(ep, ms(300), peer(r(1), s(1), 0));
    assert_eq!(ep.state(), State::Closed);
    assert_eq!(ep.poll_timeout(), None);
}

#[test]
fn reset_in_window_closes() {
    let mut ep = established(cfg());
    let mut rst = peer(r(0), s(0), 0);
    rst.flags = TcpFlags::RST;
    send!(ep, ms(200), rst);
    assert_eq!(ep.state(), State::Closed);
    assert_eq!(events(&mut ep), vec![Event::Reset, Event::Closed]);
    assert_eq!(ep.stats().resets_received, 1);
}

#[test]
fn ack_for_unsent_data_is_counted_and_answered() {
    let mut ep = established(cfg());
    send!(ep, ms(200), peer(r(0), s(5000), 0));
    assert_eq!(ep.stats().dropped_bad_ack, 1);
    expect!(ep, ms(200), ours(s(0), r(0), 0, WIN));
    assert_eq!(ep.snd_una(), s(0));
}

#[test]
fn restart_after_idle_limits_cwnd_to_the_initial_window() {
    let mut ep = established(cfg());
    ep.win.cwnd = 20_000;
    ep.write(1000);
    send_segments(&mut ep, ms(100), 0, 1);
    send!(ep, ms(200), peer(r(0), s(1000), 0));
    assert_eq!(ep.cwnd(), 21_000);
    // Idle for more than one RTO (1 s) since the last data was sent.
    ep.write(30_000);
    send_segments(&mut ep, ms(1201), 1000, 10);
    assert_eq!(ep.cwnd(), 10_000);
}

#[test]
fn freeze_stops_sending_and_resume_retransmits_at_once() {
    let mut ep = established(cfg());
    ep.write(3000);
    send_segments(&mut ep, ms(100), 0, 3);
    ep.freeze(ms(150));
    assert!(ep.is_frozen());
    assert_eq!(ep.poll_timeout(), None, "RTO cancelled");
    ep.write(2000);
    expect_nothing!(ep, ms(150));
    ep.handle_timeout(ms(5000));
    expect_nothing!(ep, ms(5000));
    let (cwnd, ssthresh, rto) = (ep.cwnd(), ep.ssthresh(), ep.rto());
    ep.resume(ms(9000));
    let t = recv!(ep, ms(9000));
    assert!(t.retransmission);
    assert_eq!(t.segment, ours(s(0), r(0), 1000, WIN));
    // New data as cwnd allows, state untouched.
    send_segments(&mut ep, ms(9000), 3000, 2);
    assert_eq!((ep.cwnd(), ep.ssthresh(), ep.rto()), (cwnd, ssthresh, rto));
    assert_eq!(ep.poll_timeout(), Some(ms(10_000)));
    assert_eq!(ep.stats().rto_count, 0);
}

#[test]
fn ns3_profile_grows_one_smss_per_ack_in_slow_start() {
    let mut ep = established(Config {
        profile: Profile::Ns3,
        ..cfg()
    });
    ep.write(30_000);
    send_segments(&mut ep, ms(100), 0, 10);
    send!(ep, ms(200), peer(r(0), s(2000), 0));
    assert_eq!(ep.cwnd(), 11_000);
    // ns-3 counts whole segments acknowledged: half a segment adds nothing.
    send!(ep, ms(201), peer(r(0), s(2500), 0));
    assert_eq!(ep.cwnd(), 11_000);
}

#[test]
fn poll_timeout_before_any_input_and_early_timeouts() {
    let mut ep = Endpoint::new(cfg(), LP, RP, ISS);
    assert_eq!(ep.poll_timeout(), None);
    expect_nothing!(ep, Time::ZERO);
    ep.handle_timeout(ms(10));
    assert_eq!(ep.state(), State::Closed);
    // A segment to a closed endpoint is counted and answered with a reset:
    // with ACK set, RST at the ACK number (RFC 9293 §3.10.7.1).
    send!(ep, ms(10), peer(r(0), s(0), 0));
    assert_eq!(ep.stats().dropped_bad_state, 1);
    let mut rst = ours(s(0), SeqNum(0), 0, 0);
    rst.flags = TcpFlags::RST;
    expect!(ep, ms(10), rst);
    expect_nothing!(ep, ms(10));
    // Without ACK: RST-ACK acknowledging the segment.
    let mut data = peer(r(0), s(0), 100);
    data.flags = TcpFlags::PSH;
    send!(ep, ms(11), data);
    let mut rst = ours(SeqNum(0), r(100), 0, 0);
    rst.flags = TcpFlags::RST | TcpFlags::ACK;
    expect!(ep, ms(11), rst);
    // Never a reset for a reset.
    let mut r_ = peer(r(0), s(0), 0);
    r_.flags = TcpFlags::RST;
    send!(ep, ms(12), r_);
    expect_nothing!(ep, ms(12));
    assert_eq!(ep.stats().resets_sent, 2);
}

#[test]
fn window_update_ignores_segments_older_than_wl1() {
    let mut ep = established(cfg());
    // The peer's r(1000) (window 2000) overtakes its r(0) (window 1000).
    let mut later = peer(r(1000), s(0), 1000);
    later.window = 2000;
    send!(ep, ms(200), later);
    assert_eq!(ep.snd_wnd(), 2000);
    let mut earlier = peer(r(0), s(0), 1000);
    earlier.window = 1000;
    send!(ep, ms(201), earlier);
    assert_eq!(
        ep.snd_wnd(),
        2000,
        "SND.WL1 > SEG.SEQ: stale window ignored"
    );
    // A newer segment (SND.WL1 < SEG.SEQ): a pure window update is taken.
    let mut update = peer(r(2000), s(0), 0);
    update.window = 3000;
    send!(ep, ms(202), update);
    assert_eq!(ep.snd_wnd(), 3000);
}

#[test]
fn retransmitted_syn_ack_is_acknowledged_again() {
    let mut ep = established(cfg());
    send!(ep, ms(300), syn_ack(&cfg()));
    expect!(ep, ms(300), ours(s(0), r(0), 0, WIN));
    assert_eq!(ep.state(), State::Established);
    assert_eq!(ep.stats().dropped_segments(), 1);
}

#[test]
fn trace_events_report_segments() {
    let mut ep = established(Config {
        trace_segments: true,
        ..cfg()
    });
    events(&mut ep);
    ep.write(1000);
    let _ = recv!(ep, ms(100));
    send!(ep, ms(200), peer(r(0), s(1000), 0));
    assert_eq!(
        events(&mut ep),
        vec![
            Event::SegmentSent {
                seq: s(0),
                len: 1000,
                retransmission: false
            },
            Event::SegmentReceived {
                seq: r(0),
                len: 0,
                ack: s(1000)
            },
        ]
    );
}

#[test]
fn lost_syn_ack_gives_the_passive_side_a_one_segment_window() {
    let mut ep = Endpoint::new(cfg(), LP, RP, ISS);
    ep.listen();
    let mut syn = peer(IRS, SeqNum(0), 0);
    syn.flags = TcpFlags::SYN;
    syn.options.mss = Some(1000);
    send!(ep, ms(0), syn);
    let _ = recv!(ep, ms(0));
    ep.handle_timeout(ms(1000));
    let again = recv!(ep, ms(1000));
    assert!(again.retransmission && again.segment.flags.syn());
    // A close before the handshake completes waits for ESTABLISHED.
    ep.close();
    assert_eq!(ep.state(), State::SynReceived);
    send!(ep, ms(1100), peer(r(0), ISS + 1, 0));
    assert_eq!(ep.state(), State::FinWait1);
    assert_eq!(ep.cwnd(), 1000);
    assert_eq!(ep.rto(), Dur::from_secs(3));
    let mut fin = ours(s(0), r(0), 0, WIN);
    fin.flags = TcpFlags::ACK | TcpFlags::FIN;
    expect!(ep, ms(1100), fin);
}

#[test]
fn timestamps_give_samples_even_for_retransmitted_data() {
    let c = Config {
        timestamps: true,
        ..cfg()
    };
    let mut sa = syn_ack(&c);
    sa.options.timestamps = Some((5, 0));
    let mut ep = Endpoint::new(c, LP, RP, ISS);
    ep.connect(ms(0));
    let _ = recv!(ep, ms(0));
    send!(ep, ms(100), sa);
    let _ = recv!(ep, ms(100));
    assert_eq!(ep.srtt(), Some(Dur::from_millis(100)));
    ep.write(1000);
    let d = recv!(ep, ms(100)).segment;
    assert_eq!(d.options.timestamps, Some((100, 5)));
    assert_eq!(d.payload_len, 1000);
    ep.handle_timeout(ms(1100));
    let rtx = recv!(ep, ms(1100));
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.options.timestamps, Some((1100, 5)));
    // The ACK echoes the retransmission's TSval: a valid 50 ms sample.
    let mut ack = peer(r(0), s(1000), 0);
    ack.options.timestamps = Some((6, 1100));
    send!(ep, ms(1150), ack);
    // RTTVAR = 3/4*50 + 1/4*50, SRTT = 7/8*100 + 1/8*50.
    assert_eq!(ep.srtt(), Some(Dur::from_micros(93_750)));
    assert_eq!(
        ep.rto(),
        Dur::from_secs(1),
        "back-off cleared by the sample"
    );
}

#[test]
fn small_window_with_nothing_in_flight_arms_the_sws_override() {
    let mut ep = established(cfg());
    ep.write(3000);
    send_segments(&mut ep, ms(100), 0, 3);
    // All acknowledged, the window is 500: too small for a full segment.
    let mut small = peer(r(0), s(3000), 0);
    small.window = 500;
    send!(ep, ms(200), small);
    ep.write(2000);
    expect_nothing!(ep, ms(200));
    assert_eq!(ep.poll_timeout(), Some(ms(1200)));
    ep.handle_timeout(ms(1200));
    expect!(ep, ms(1200), ours(s(3000), r(0), 500, WIN));
    expect_nothing!(ep, ms(1200));
    assert_eq!(ep.stats().zero_window_probes, 0);
    assert_eq!(
        ep.timers.get(Timer::Rto),
        Some(ms(2200)),
        "data in flight: RTO"
    );
    assert_eq!(ep.timers.get(Timer::Persist), None);
}

#[test]
fn retransmitted_fin_in_time_wait_is_acked_and_restarts_the_wait() {
    let mut ep = established(cfg());
    ep.close();
    let _ = recv!(ep, ms(100));
    let mut fin = peer(r(0), s(1), 0);
    fin.flags = TcpFlags::ACK | TcpFlags::FIN;
    send!(ep, ms(200), fin);
    assert_eq!(ep.state(), State::TimeWait);
    let _ = recv!(ep, ms(200));
    assert_eq!(ep.poll_timeout(), Some(ms(2200)));
    // Our ACK was lost: the FIN comes again.
    send!(ep, ms(1500), fin);
    expect!(ep, ms(1500), ours(s(1), r(1), 0, WIN - 1));
    assert_eq!(ep.poll_timeout(), Some(ms(3500)));
}

#[test]
fn the_segment_that_ends_a_write_carries_psh_and_keeps_it_when_resent() {
    let psh = |seg: &crate::wire::Segment| seg.flags.contains(crate::wire::TcpFlags::PSH);
    let mut ep = established(cfg());
    // Writes ending at 1500 (inside the second segment) and at 3000.
    ep.write(1500);
    ep.write(1500);
    let sent: Vec<bool> = (0..3).map(|_| psh(&recv!(ep, ms(100)).segment)).collect();
    assert_eq!(sent, [false, true, true]);
    // The second segment, resent after the timeout, is still the end of a write.
    ep.handle_timeout(ms(1100));
    assert!(!psh(&recv!(ep, ms(1100)).segment));
    send!(ep, ms(1200), peer(r(0), s(1000), 0));
    let again = recv!(ep, ms(1200));
    assert!(again.retransmission && psh(&again.segment));
    // ns-3's data segments carry no PSH.
    let mut ep = established(Config {
        profile: Profile::Ns3,
        ..cfg()
    });
    ep.write(1000);
    assert!(!psh(&recv!(ep, ms(100)).segment));
}
