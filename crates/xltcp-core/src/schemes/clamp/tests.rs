//! CLAMP and L2-CLAMP, event by event: the price, the window, the held
//! ACKs and the receiver's suppressed ACKs.

use super::*;
use crate::schemes::agent::{Action, Via};
use crate::schemes::snoop::tests::{ack, data, s};
use crate::signal::{MacDelays, UndeliveredReason};

fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

fn delivered(p: Packet) -> NodeSignal {
    delivered_after(p, Dur::from_millis(1))
}

/// `delivered` for `p` after `d` queued and `d` on the air.
fn delivered_after(p: Packet, d: Dur) -> NodeSignal {
    NodeSignal {
        signal: Signal::Delivered { frame: 0 },
        reason: None,
        packet: Some(p),
        delays: Some(MacDelays {
            queue: d,
            tx: d,
            attempts: 1,
        }),
        iface: 0,
    }
}

fn undelivered(p: Packet) -> NodeSignal {
    NodeSignal {
        signal: Signal::Undelivered { frame: 0 },
        reason: Some(UndeliveredReason::RetryLimit),
        packet: Some(p),
        delays: None,
        iface: 0,
    }
}

/// The receiver's ACK of everything before segment `k`, advertising `win`
/// bytes (no window scaling in these tests).
fn ack_win(k: u32, win: u16) -> Packet {
    let mut a = ack(k);
    a.tcp.window = win;
    a
}

/// The ACK numbers (as segment indices) of the ACKs emitted since the
/// last call; each must be forged and go to the wired side.
fn acks_out(a: &mut L2ClampBs) -> Vec<u32> {
    std::iter::from_fn(|| a.poll_action())
        .map(|x| match x {
            Action::Emit {
                packet,
                via: Via::Wire,
            } => {
                assert!(packet.meta.forged);
                assert_eq!(packet.tcp.payload_len, 0);
                assert_eq!(packet.tcp.flags, TcpFlags::ACK);
                assert_eq!(packet.tcp.src_port, 49152, "from the receiver's port");
                (packet.tcp.ack - s(0)) as u32 / 1000
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

use crate::wire::TcpFlags;
use l2::Ledger;

/// An L2-CLAMP BS that has seen the receiver's ACK of nothing yet (its
/// window `win`), and data segments `0..n` going down.
fn bs_with(n: u32, win: u16) -> L2ClampBs {
    bs_with_cfg(n, win, ClampConfig::default())
}

/// `bs_with` under `cfg`.
fn bs_with_cfg(n: u32, win: u16, cfg: ClampConfig) -> L2ClampBs {
    let mut b = L2ClampBs::new(cfg, vec![0], vec![true], Ledger::default());
    assert_eq!(
        b.on_packet(ms(0), Tap::BsUp, &mut ack_win(0, win)),
        Verdict::Pass
    );
    for k in 0..n {
        assert_eq!(b.on_packet(ms(1), Tap::BsDown, &mut data(k)), Verdict::Pass);
    }
    b
}

#[test]
fn the_bs_ack_is_held_until_the_mac_delivers_the_segment() {
    let mut b = bs_with(2, 60_000);
    assert_eq!(b.pending(), 2);
    assert!(
        acks_out(&mut b).is_empty(),
        "nothing before the MAC reports"
    );
    assert!(b.on_signal(ms(5), &delivered(data(0))));
    assert_eq!(acks_out(&mut b), vec![1]);
    assert!(b.on_signal(ms(6), &delivered(data(1))));
    assert_eq!(acks_out(&mut b), vec![2]);
    assert_eq!(b.pending(), 0);
    let Some(AgentStats::L2Clamp(st)) = b.stats() else {
        panic!()
    };
    assert_eq!((st.acks_made, st.acks_sent), (2, 2));
}

#[test]
fn no_ack_is_sent_for_an_undelivered_segment() {
    let mut b = bs_with(2, 60_000);
    assert!(b.on_signal(ms(5), &undelivered(data(0))));
    assert!(acks_out(&mut b).is_empty());
    // The next segment lands beyond the hole: the BS stays silent (the
    // receiver's duplicate ACK speaks).
    assert!(b.on_signal(ms(6), &delivered(data(1))));
    assert!(acks_out(&mut b).is_empty());
    // The sender's retransmission of segment 0 fills the hole: one ACK
    // covers both.
    let mut again = data(0);
    again.meta.uid = 100;
    b.on_packet(ms(7), Tap::BsDown, &mut again);
    assert!(b.on_signal(ms(8), &delivered(again)));
    assert_eq!(acks_out(&mut b), vec![2]);
    let Some(AgentStats::L2Clamp(st)) = b.stats() else {
        panic!()
    };
    assert_eq!(st.acks_discarded, 1);
    assert_eq!(st.acks_left_to_receiver, 1);
}

#[test]
fn the_receivers_duplicate_acks_pass_the_bs_with_the_clamped_window() {
    let mut b = bs_with(3, 60_000);
    assert!(b.on_signal(ms(5), &delivered(data(0))));
    assert_eq!(acks_out(&mut b), vec![1]);
    let mut dup = ack_win(1, 60_000);
    assert_eq!(b.on_packet(ms(6), Tap::BsUp, &mut dup), Verdict::Pass);
    assert!(dup.tcp.window <= 60_000);
    assert!(
        acks_out(&mut b).is_empty(),
        "a duplicate is not answered by the BS"
    );
}

#[test]
fn the_bs_acknowledges_nothing_after_the_receiver_resets_the_connection() {
    let mut b = bs_with(3, 60_000);
    assert!(b.on_signal(ms(5), &delivered(data(0))));
    assert_eq!(acks_out(&mut b), vec![1]);
    // The receiver's application closed with data still coming: its TCP
    // answers with a RST (no ACK flag, its sequence number the data's ACK).
    let mut rst = ack(1);
    rst.tcp.flags = TcpFlags::RST;
    rst.tcp.ack = SeqNum(0);
    assert_eq!(b.on_packet(ms(6), Tap::BsUp, &mut rst), Verdict::Pass);
    assert!(b.on_signal(ms(7), &delivered(data(1))));
    assert!(b.on_signal(ms(8), &delivered(data(2))));
    assert!(
        acks_out(&mut b).is_empty(),
        "no ACK for data the receiver's TCP refused"
    );
    let mut later = data(3);
    b.on_packet(ms(9), Tap::BsDown, &mut later);
    assert!(b.on_signal(ms(10), &delivered(later)));
    assert!(acks_out(&mut b).is_empty());
    let Some(AgentStats::L2Clamp(st)) = b.stats() else {
        panic!()
    };
    assert_eq!((st.acks_sent, st.acks_left_to_receiver), (1, 3));
}

#[test]
fn the_bs_never_acknowledges_past_the_receivers_advertised_edge() {
    // The receiver advertised 1500 bytes: segment 1 ends past that edge.
    let mut b = bs_with(2, 1500);
    assert!(b.on_signal(ms(5), &delivered(data(0))));
    assert!(b.on_signal(ms(6), &delivered(data(1))));
    let out: Vec<SeqNum> = std::iter::from_fn(|| b.poll_action())
        .map(|x| match x {
            Action::Emit { packet, .. } => packet.tcp.ack,
            _ => panic!(),
        })
        .collect();
    assert_eq!(out, vec![s(1), s(0) + 1500]);
    let Some(AgentStats::L2Clamp(st)) = b.stats() else {
        panic!()
    };
    assert_eq!(st.acks_capped, 1);
}

#[test]
fn without_window_updates_the_bs_takes_the_receivers_window_to_keep_its_size() {
    // The receiver advertised 1500 bytes and no update reaches the BS: the
    // edge moves with what the BS knows delivered, 1500 bytes ahead of it.
    let cfg = ClampConfig {
        window_updates: WindowUpdates::Drop,
        ..ClampConfig::default()
    };
    let mut b = bs_with_cfg(3, 1500, cfg);
    for k in 0..3 {
        assert!(b.on_signal(ms(5 + u64::from(k)), &delivered(data(k))));
    }
    let out: Vec<SeqNum> = std::iter::from_fn(|| b.poll_action())
        .map(|x| match x {
            Action::Emit { packet, .. } => packet.tcp.ack,
            _ => panic!(),
        })
        .collect();
    assert_eq!(out, vec![s(1), s(2), s(3)], "none capped");
    // And the receiver's own window updates stay off the air.
    let mut h = L2ClampHost::new(Ledger::default(), WindowUpdates::Drop);
    h.on_packet(ms(0), Tap::HostOut, &mut ack_win(0, 60_000));
    assert_eq!(
        h.on_packet(ms(8), Tap::HostOut, &mut ack_win(40, 60_000)),
        Verdict::Consume
    );
}

#[test]
fn the_receiver_drops_its_standalone_acks_and_passes_duplicates() {
    let mut h = L2ClampHost::new(Ledger::default(), WindowUpdates::Pass);
    // The connection's first ACK passes (it may be the handshake's).
    assert_eq!(
        h.on_packet(ms(0), Tap::HostOut, &mut ack_win(0, 60_000)),
        Verdict::Pass
    );
    assert_eq!(
        h.on_packet(ms(1), Tap::HostOut, &mut ack_win(1, 60_000)),
        Verdict::Consume
    );
    assert_eq!(
        h.on_packet(ms(2), Tap::HostOut, &mut ack_win(2, 60_000)),
        Verdict::Consume
    );
    // Duplicates pass, every one.
    for t in 3..6 {
        assert_eq!(
            h.on_packet(ms(t), Tap::HostOut, &mut ack_win(2, 60_000)),
            Verdict::Pass
        );
    }
    // Data it sends passes.
    let mut d = ack_win(3, 60_000);
    d.tcp.payload_len = 100;
    assert_eq!(h.on_packet(ms(7), Tap::HostOut, &mut d), Verdict::Pass);
    // A window update (the right edge moved by half a window) passes.
    assert_eq!(
        h.on_packet(ms(8), Tap::HostOut, &mut ack_win(40, 60_000)),
        Verdict::Pass
    );
    let Some(AgentStats::L2Clamp(st)) = h.stats() else {
        panic!()
    };
    assert_eq!(
        (st.suppressed, st.duplicates_passed, st.window_updates),
        (2, 3, 1)
    );
}

#[test]
fn the_price_is_the_queueing_delay_above_the_target() {
    let mut m = QueueMeter::new(1);
    assert_eq!(m.price(0, Dur::from_millis(100)), 0.0, "no rate yet");
    for _ in 0..20 {
        m.enqueued(0);
    }
    // One frame served every 10 ms: 19 waiting are 190 ms of queue.
    for k in 1..=5 {
        m.reported(ms(10 * k), 0, Some(Dur::from_millis(10 * k)));
        m.enqueued(0);
    }
    assert_eq!(m.len(0), 20);
    let p = m.price(0, Dur::from_millis(100));
    assert!((p - 0.1).abs() < 1e-9, "{p}");
    assert_eq!(m.price(0, Dur::from_millis(300)), 0.0);
}

#[test]
fn the_window_grows_at_zero_price_and_halves_once_per_window_above_it() {
    let cfg = ClampConfig::default();
    let mut c = Controller::new();
    for k in 0..10 {
        assert_eq!(c.on_data(ms(k), 1000, 0.0, 1 << 30, &cfg), None);
    }
    // Slow start: 4 segments to start, one more per segment.
    assert_eq!(c.window(), 14_000);
    // A price far above tau / mu*: one halving, then none until a window
    // of data has arrived.
    assert_eq!(
        c.on_data(ms(11), 1000, 10.0, 1 << 30, &cfg),
        Some(Halving::Price)
    );
    assert_eq!(c.window(), 7_000);
    for k in 0..6 {
        assert_eq!(c.on_data(ms(12 + k), 1000, 10.0, 1 << 30, &cfg), None);
    }
    assert_eq!(c.window(), 7_000, "no halving within a window of data");
    assert_eq!(
        c.on_data(ms(18), 1000, 10.0, 1 << 30, &cfg),
        Some(Halving::Price)
    );
    assert_eq!(c.window(), 3_500);
    // Never below min_window segments.
    for k in 0..200 {
        c.on_data(ms(30 + k), 1000, 10.0, 1 << 30, &cfg);
    }
    assert_eq!(c.window(), 2_000);
    // At zero price again it grows by about tau per window.
    let w0 = c.window();
    for k in 0..2 {
        c.on_data(ms(300 + k), 1000, 0.0, 1 << 30, &cfg);
    }
    assert!(c.window() > w0 && c.window() <= w0 + 2 * cfg.tau);
}

#[test]
fn a_fixed_alpha_prices_the_packets_above_it_at_the_service_rate() {
    let mut m = QueueMeter::new(1);
    assert_eq!(m.price_above(0, 5.0), 0.0, "no rate yet");
    for _ in 0..9 {
        m.enqueued(0);
    }
    m.reported(ms(10), 0, Some(Dur::from_millis(10)));
    m.enqueued(0);
    // 9 packets, 10 ms each: (9 - 5) / 100 per s = 40 ms; none at alpha 9.
    assert!((m.price_above(0, 5.0) - 0.04).abs() < 1e-9);
    assert_eq!(m.price_above(0, 9.0), 0.0);
    // The config picks the fixed offset when alpha is set, else the delay.
    let fixed = ClampConfig {
        alpha: Some(5.0),
        ..ClampConfig::default()
    };
    assert!((fixed.price(&m, 0) - 0.04).abs() < 1e-9);
    assert_eq!(ClampConfig::default().price(&m, 0), 0.0, "90 ms < 100 ms");
}

#[test]
fn the_papers_update_moves_the_window_by_dw_per_packet_and_halves_at_every_dw_below_zero() {
    let cfg = ClampConfig {
        alpha: Some(5.0),
        growth: Growth::Segment,
        halving: HalvingRule::Every,
        ..ClampConfig::default()
    };
    let mut c = Controller::new();
    for k in 0..10 {
        c.on_data(ms(k), 1000, 0.0, 1 << 30, &cfg);
    }
    assert_eq!(c.window(), 14_000, "slow start as before");
    // Every segment above the price halves: no once-per-window guard.
    for (k, want) in [(11, 7_000), (12, 3_500), (13, 2_000)] {
        assert_eq!(
            c.on_data(ms(k), 1000, 10.0, 1 << 30, &cfg),
            Some(Halving::Price)
        );
        assert_eq!(c.window(), want);
    }
    // At zero price each segment adds dw = tau (slow start stopped).
    c.on_data(ms(14), 1000, 0.0, 1 << 30, &cfg);
    assert_eq!(c.window(), 2_000 + cfg.tau);
    // The default moves by dw per window of data instead.
    let ours = ClampConfig::default();
    let mut d = Controller::new();
    for k in 0..10 {
        d.on_data(ms(k), 1000, 0.0, 1 << 30, &ours);
    }
    d.on_data(ms(11), 1000, 10.0, 1 << 30, &ours);
    let w = d.window();
    d.on_data(ms(400), 1000, 0.0, 1 << 30, &ours);
    assert!(
        d.window() > w && d.window() < w + cfg.tau / 4,
        "{} {w}",
        d.window()
    );
}

#[test]
fn three_duplicate_acks_halve_the_window() {
    let cfg = ClampConfig::default();
    let mut c = Controller::new();
    for k in 0..10 {
        c.on_data(ms(k), 1000, 0.0, 1 << 30, &cfg);
    }
    let w = c.window();
    assert_eq!(c.on_ack(s(5), &cfg), None);
    assert_eq!(c.on_ack(s(5), &cfg), None);
    assert_eq!(c.on_ack(s(5), &cfg), None);
    assert_eq!(c.on_ack(s(5), &cfg), Some(Halving::DupAcks));
    assert_eq!(c.window(), w / 2);
}

#[test]
fn clamp_at_the_host_rewrites_the_window_from_the_aps_price() {
    let board = PriceBoard::new(1);
    let mut ap = ClampAp::new(ClampConfig::default(), vec![0], board.clone());
    let mut host = ClampHost::new(ClampConfig::default(), 0, board.clone());
    // 30 packets queued at the AP, served one per 10 ms: 290 ms of queue.
    for k in 0..30 {
        ap.on_packet(ms(0), Tap::BsDown, &mut data(k));
    }
    assert!(ap.on_signal(ms(10), &delivered_after(data(0), Dur::from_millis(5))));
    assert!(board.price(0) > 0.1, "{}", board.price(0));
    for k in 1..12 {
        assert_eq!(
            host.on_packet(ms(10 + k as u64), Tap::HostIn, &mut data(k)),
            Verdict::Pass
        );
    }
    let mut a = ack_win(12, 60_000);
    assert_eq!(host.on_packet(ms(30), Tap::HostOut, &mut a), Verdict::Pass);
    assert!(a.tcp.window < 60_000, "clamped: {}", a.tcp.window);
    // The right edge never moves left, whatever the window does.
    let edge = a.tcp.ack + u32::from(a.tcp.window);
    let mut b = ack_win(12, 60_000);
    for k in 12..40 {
        host.on_packet(ms(40 + k as u64), Tap::HostIn, &mut data(k));
    }
    host.on_packet(ms(90), Tap::HostOut, &mut b);
    assert!(b.tcp.ack + u32::from(b.tcp.window) >= edge);
}

#[test]
fn the_first_window_counts_segments_of_the_syns_mss_not_of_a_small_first_segment() {
    let cfg = ClampConfig::default();
    // No SYN seen: the first segment's size (the reconstruction's rule).
    let mut c = Controller::new();
    c.on_data(ms(0), 37, 0.0, u64::MAX, &cfg);
    assert_eq!(c.window(), 4 * 37 + 37);
    // The SYNs offered 1460 and 1210: segments of 1210, whatever the
    // application's first write was (iperf3's 37-byte cookie).
    let mut c = Controller::new();
    c.on_syn(Some(1460));
    c.on_syn(Some(1210));
    c.on_syn(None);
    c.on_data(ms(0), 37, 0.0, u64::MAX, &cfg);
    assert_eq!(c.window(), 4 * 1210 + 37);
    // A full first segment as before.
    let mut c = Controller::new();
    c.on_syn(Some(1210));
    c.on_data(ms(0), 1210, 0.0, u64::MAX, &cfg);
    assert_eq!(c.window(), 5 * 1210);
}
