//! Scripted tests of DSASync's algorithms: buffering across a TFP and its
//! release, zero windows (full window, low buffer, probes), duplicate
//! replacement, the window rewrite while holding, the three duplicate
//! ACKs of a capacity drop, and the pacing rate under a known TFP schedule.

use super::*;
use crate::signal::UndeliveredReason;
use crate::wire::{PacketMeta, Segment, SeqNum, TcpFlags, TcpOptions};
use std::net::Ipv4Addr;

const MSS: u32 = 1000;
const CH: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 1);
const SH: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 1);

fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

/// Data segment `k` of flow 0 from the CH (uid 100 + k).
fn data(k: u32) -> Packet {
    Packet {
        src: CH,
        dst: SH,
        ip_id: k as u16,
        ttl: 64,
        tcp: Segment {
            src_port: 5201,
            dst_port: 49152,
            seq: SeqNum(1 + k * MSS),
            ack: SeqNum(1),
            flags: TcpFlags::ACK,
            window: 65535,
            options: TcpOptions::default(),
            payload_len: MSS,
        },
        meta: PacketMeta {
            flow: 0,
            uid: 100 + u64::from(k),
            retransmission: false,
            forged: false,
            iface: 0,
            ..PacketMeta::default()
        },
    }
}

/// The host's ACK of everything below segment `k`, advertising `window`
/// bytes (no window scaling).
fn ack(k: u32, window: u16) -> Packet {
    let mut p = data(0);
    p.src = SH;
    p.dst = CH;
    p.tcp.src_port = 49152;
    p.tcp.dst_port = 5201;
    p.tcp.seq = SeqNum(1);
    p.tcp.ack = SeqNum(1 + k * MSS);
    p.tcp.window = window;
    p.tcp.payload_len = 0;
    p.meta.uid = 10_000 + u64::from(k);
    p
}

fn tfp(start: bool, cause: TfpCause, node: Option<u32>) -> NodeSignal {
    let signal = if start {
        Signal::TfpStart { cause, node }
    } else {
        Signal::TfpEnd { cause, node }
    };
    NodeSignal {
        signal,
        reason: None,
        packet: None,
        delays: None,
        iface: 0,
    }
}

fn delivered(p: &Packet) -> NodeSignal {
    NodeSignal {
        signal: Signal::Delivered { frame: 0 },
        reason: None,
        packet: Some(*p),
        delays: None,
        iface: 0,
    }
}

/// The agent's actions but its withdrawals (which the engine answers at
/// once; `a_tfp_takes_its_hosts_packets_back_from_the_transmit_queue`
/// tests them).
fn actions(a: &mut DsaSync) -> Vec<Action> {
    std::iter::from_fn(|| a.poll_action())
        .filter(|x| !matches!(x, Action::Withdraw { .. }))
        .collect()
}

/// The uids of the agent's actions, each a release to the air.
fn released_to_air(a: &mut DsaSync) -> Vec<u64> {
    actions(a)
        .iter()
        .map(|x| match x {
            Action::Release {
                packet,
                via: Via::Air,
            } => packet.meta.uid,
            other => panic!("{other:?}"),
        })
        .collect()
}

fn withdrawals(a: &mut DsaSync) -> Vec<u32> {
    std::iter::from_fn(|| a.poll_action())
        .filter_map(|x| match x {
            Action::Withdraw { host } => Some(host),
            _ => None,
        })
        .collect()
}

fn agent(cfg: DsaSyncConfig) -> DsaSync {
    DsaSync::new(
        DsaSyncConfig {
            smoothing: Smoothing::Off,
            ..cfg
        },
        vec![0],
    )
}

#[test]
fn a_tfp_buffers_the_downlink_and_its_end_releases_it_in_order() {
    let mut a = agent(DsaSyncConfig::default());
    assert_eq!(a.on_packet(ms(0), Tap::BsDown, &mut data(0)), Verdict::Pass);
    assert!(a.on_signal(ms(1), &tfp(true, TfpCause::NodeSensing, Some(0))));
    for k in 1..=3 {
        assert_eq!(a.on_packet(ms(2), Tap::BsDown, &mut data(k)), Verdict::Hold);
    }
    assert_eq!(a.held(), 3);
    assert!(actions(&mut a).is_empty());
    // Another host's TFP changes nothing for host 0.
    a.on_signal(ms(3), &tfp(false, TfpCause::NodeSensing, Some(5)));
    assert!(actions(&mut a).is_empty());
    a.on_signal(ms(25), &tfp(false, TfpCause::NodeSensing, Some(0)));
    assert_eq!(released_to_air(&mut a), vec![101, 102, 103]);
    assert_eq!(a.held(), 0);
    let s = a.stats_now();
    assert_eq!((s.accepted, s.released, s.buffered), (3, 3, 0));
}

#[test]
fn a_tfp_takes_its_hosts_packets_back_from_the_transmit_queue() {
    // Algorithm 2, line 11: host 0's TFP begins while segments 0-2 wait
    // in the AP's MAC; the engine gives back 1 and 2 (0 is on the air).
    let mut a = agent(DsaSyncConfig::default());
    for k in 0..3 {
        assert_eq!(a.on_packet(ms(0), Tap::BsDown, &mut data(k)), Verdict::Pass);
    }
    assert!(a.on_signal(ms(1), &tfp(true, TfpCause::NodeSensing, Some(0))));
    assert_eq!(withdrawals(&mut a), vec![0]);
    // A second cause for a host already frozen asks nothing more.
    a.on_signal(ms(1), &tfp(true, TfpCause::CellSensing, None));
    assert!(withdrawals(&mut a).is_empty());
    a.on_withdrawn(ms(1), 0, &[data(1), data(2)]);
    assert_eq!(a.held(), 2);
    // Arrivals during the TFP queue behind the packets taken back.
    assert_eq!(a.on_packet(ms(2), Tap::BsDown, &mut data(3)), Verdict::Hold);
    a.on_signal(ms(10), &tfp(false, TfpCause::CellSensing, None));
    assert!(actions(&mut a).is_empty(), "host 0 is still sensing");
    a.on_signal(ms(26), &tfp(false, TfpCause::NodeSensing, Some(0)));
    assert_eq!(released_to_air(&mut a), vec![101, 102, 103]);
    let s = a.stats_now();
    // accepted + withdrawn = released + buffered.
    assert_eq!(
        (s.accepted, s.withdrawn, s.released, s.buffered),
        (1, 2, 3, 0)
    );
}

#[test]
fn a_cell_wide_tfp_buffers_every_host_until_all_its_causes_end() {
    let mut a = agent(DsaSyncConfig::default());
    a.on_signal(ms(0), &tfp(true, TfpCause::PuOn, None));
    a.on_signal(ms(1), &tfp(true, TfpCause::CellSensing, None));
    a.on_signal(ms(2), &tfp(false, TfpCause::PuOn, None));
    assert_eq!(a.on_packet(ms(3), Tap::BsDown, &mut data(0)), Verdict::Hold);
    a.on_signal(ms(4), &tfp(false, TfpCause::CellSensing, None));
    assert_eq!(actions(&mut a).len(), 1);
}

#[test]
fn a_copy_of_a_buffered_segment_replaces_it() {
    let mut a = agent(DsaSyncConfig::default());
    a.on_signal(ms(0), &tfp(true, TfpCause::PuOn, None));
    assert_eq!(a.on_packet(ms(1), Tap::BsDown, &mut data(1)), Verdict::Hold);
    let mut again = data(1);
    again.meta.uid = 999;
    again.meta.retransmission = true;
    assert_eq!(
        a.on_packet(ms(2), Tap::BsDown, &mut again),
        Verdict::Drop("dsasync_replaced_by_newer_copy")
    );
    a.on_signal(ms(3), &tfp(false, TfpCause::PuOn, None));
    let out = actions(&mut a);
    // The newer copy goes, under the buffered packet's identity.
    let [Action::Release { packet, .. }] = out[..] else {
        panic!("{out:?}");
    };
    assert!(packet.meta.retransmission);
    assert_eq!(packet.meta.uid, 101);
    let s = a.stats_now();
    assert_eq!((s.accepted, s.replaced, s.released), (1, 1, 1));
}

#[test]
fn a_full_receiver_window_during_a_tfp_gets_a_zero_window_to_its_sender() {
    let mut a = agent(DsaSyncConfig::default());
    // The host has acknowledged segment 0 and offers 3 segments.
    assert_eq!(
        a.on_packet(ms(0), Tap::BsUp, &mut ack(1, 3000)),
        Verdict::Pass
    );
    a.on_signal(ms(1), &tfp(true, TfpCause::NodeSensing, Some(0)));
    a.on_packet(ms(2), Tap::BsDown, &mut data(1));
    a.on_packet(ms(2), Tap::BsDown, &mut data(2));
    assert!(actions(&mut a).is_empty());
    // Segment 3 ends at SN_last + rwin: the window is full.
    a.on_packet(ms(3), Tap::BsDown, &mut data(3));
    let out = actions(&mut a);
    let [Action::Emit {
        packet,
        via: Via::Wire,
    }] = out[..]
    else {
        panic!("{out:?}");
    };
    assert_eq!((packet.tcp.ack, packet.tcp.window), (SeqNum(1001), 0));
    assert!(packet.meta.forged);
    // A window probe from the sender is answered with a zero window too.
    let mut probe = data(4);
    probe.tcp.payload_len = 1;
    a.on_packet(ms(10), Tap::BsDown, &mut probe);
    let out = actions(&mut a);
    assert!(
        matches!(out[..], [Action::Emit { packet, .. }] if packet.tcp.window == 0),
        "{out:?}"
    );
    assert_eq!(a.stats_now().probes_answered, 1);
}

#[test]
fn a_low_buffer_holds_every_sender_and_rewrites_windows_until_it_drains() {
    let cfg = DsaSyncConfig {
        buffer: 10_000,
        b_low: 7_000,
        b_high: 9_000,
        ..DsaSyncConfig::default()
    };
    let mut a = agent(cfg);
    a.on_packet(ms(0), Tap::BsUp, &mut ack(0, 60_000));
    a.on_signal(ms(1), &tfp(true, TfpCause::PuOn, None));
    a.on_packet(ms(2), Tap::BsDown, &mut data(0));
    a.on_packet(ms(2), Tap::BsDown, &mut data(1));
    assert!(!a.holding());
    // The third takes the free buffer below 7 000 B: hold.
    a.on_packet(ms(2), Tap::BsDown, &mut data(2));
    assert!(a.holding());
    let out = actions(&mut a);
    assert!(
        matches!(out[..], [Action::Emit { packet, .. }] if packet.tcp.window == 0),
        "{out:?}"
    );
    // More than the buffer holds is refused, never accepted and lost.
    for k in 3..=9 {
        a.on_packet(ms(3), Tap::BsDown, &mut data(k));
    }
    let s = a.stats_now();
    assert_eq!(s.accepted + s.refused_full, 10);
    assert_eq!(s.accepted, 9);
    // While holding, the host's ACKs carry a zero window.
    let mut up = ack(1, 60_000);
    a.on_packet(ms(4), Tap::BsUp, &mut up);
    assert_eq!(up.tcp.window, 0);
    // The TFP ends: a MAC window's worth goes out, the buffer drains as
    // the MAC reports them, and hold clears at b_high.
    a.on_signal(ms(5), &tfp(false, TfpCause::PuOn, None));
    let released: Vec<Packet> = actions(&mut a)
        .into_iter()
        .filter_map(|x| match x {
            Action::Release { packet, .. } => Some(packet),
            _ => None,
        })
        .collect();
    assert_eq!(released.len(), 9);
    assert!(!a.holding());
    let mut up = ack(2, 60_000);
    a.on_packet(ms(6), Tap::BsUp, &mut up);
    assert_eq!(up.tcp.window, 60_000);
    for p in &released {
        a.on_signal(ms(7), &delivered(p));
    }
    let s = a.stats_now();
    assert_eq!(s.accepted, s.released + s.buffered);
}

#[test]
fn the_mac_gets_at_most_tx_window_packets_at_a_time() {
    let cfg = DsaSyncConfig {
        tx_window: 2,
        ..DsaSyncConfig::default()
    };
    let mut a = agent(cfg);
    assert_eq!(a.on_packet(ms(0), Tap::BsDown, &mut data(0)), Verdict::Pass);
    assert_eq!(a.on_packet(ms(0), Tap::BsDown, &mut data(1)), Verdict::Pass);
    // Two in the MAC: the third waits at the BS.
    assert_eq!(a.on_packet(ms(0), Tap::BsDown, &mut data(2)), Verdict::Hold);
    let undelivered = NodeSignal {
        signal: Signal::Undelivered { frame: 0 },
        reason: Some(UndeliveredReason::RetryLimit),
        packet: Some(data(0)),
        delays: None,
        iface: 0,
    };
    assert!(a.on_signal(ms(1), &undelivered));
    let out = actions(&mut a);
    assert!(
        matches!(out[..], [Action::Release { packet, .. }] if packet.meta.uid == 102),
        "{out:?}"
    );
}

#[test]
fn a_capacity_drop_sends_three_duplicate_acks_when_the_rate_cannot_be_kept() {
    let mut a = agent(DsaSyncConfig::default());
    a.on_packet(ms(0), Tap::BsUp, &mut ack(5, 60_000));
    // 200 segments of ~1 kB in the last second: ~1.6 Mb/s downlink.
    for k in 0..200 {
        a.on_packet(ms(500 + u64::from(k)), Tap::BsDown, &mut data(k));
    }
    actions(&mut a);
    // The new channel carries 0.6 x 2 Mb/s = 1.2 Mb/s < 1.6: three dupACKs.
    let cap = |bps| NodeSignal {
        signal: Signal::Capacity { bps },
        reason: None,
        packet: None,
        delays: None,
        iface: 0,
    };
    assert!(a.on_signal(ms(800), &cap(2_000_000)));
    let out = actions(&mut a);
    assert_eq!(out.len(), 3, "{out:?}");
    for x in &out {
        let Action::Emit { packet, .. } = x else {
            panic!("{x:?}")
        };
        assert_eq!((packet.tcp.ack, packet.tcp.window), (SeqNum(5001), 60_000));
    }
    // A channel that keeps the rate up: nothing.
    a.on_signal(ms(900), &cap(24_000_000));
    assert!(actions(&mut a).is_empty());
}

#[test]
fn the_pacer_spreads_uplink_data_at_beta_times_the_active_rate() {
    let cfg = DsaSyncConfig {
        smoothing: Smoothing::Cell,
        window: Dur::from_secs(1),
        alpha_min: 0.5,
        ..DsaSyncConfig::default()
    };
    let mut a = DsaSync::new(cfg, vec![0]);
    let rate_at = |a: &mut DsaSync, t| a.pace_rate(t, None).unwrap();
    // TFP for 250 ms of the first second: alpha = 0.75.
    a.on_signal(ms(0), &tfp(true, TfpCause::PuOn, None));
    a.on_signal(ms(250), &tfp(false, TfpCause::PuOn, None));
    // 75 uplink segments (1040 B each) in the 750 ms active part: D = 100
    // segments per second of activity.
    let up = |k: u32| {
        let mut p = ack(0, 60_000);
        p.tcp.payload_len = MSS;
        p.tcp.seq = SeqNum(1 + k * MSS);
        p.meta.uid = 50_000 + u64::from(k);
        p
    };
    let mut released = Vec::new();
    for k in 0..75u32 {
        let t = ms(250 + 10 * u64::from(k));
        while let Some(due) = a.poll_timeout().filter(|&d| d <= t) {
            a.on_timeout(due);
            released.extend(actions(&mut a).into_iter().map(|_| due));
        }
        assert_eq!(a.on_packet(t, Tap::BsUp, &mut up(k)), Verdict::Hold);
        released.extend(actions(&mut a).into_iter().map(|_| t));
    }
    // At 1 s: 78 000 B in the 750 ms active part, D = 104 000 B/s,
    // alpha = 0.75: beta * D = 78 000 B/s, the long-run arrival rate.
    let r = rate_at(&mut a, ms(1000));
    assert!((r - 78_000.0).abs() < 100.0, "{r}");
    while let Some(due) = a.poll_timeout() {
        a.on_timeout(due);
        released.extend(actions(&mut a).into_iter().map(|_| due));
    }
    assert_eq!(released.len(), 75);
    // Released in order, never faster than beta * D allows: after the
    // first, no two closer than 1040 B / (0.5 x the peak D).
    assert!(released.windows(2).all(|w| w[1] >= w[0]));
    let min_gap = released
        .windows(2)
        .skip(1)
        .map(|w| (w[1] - w[0]).as_secs_f64())
        .fold(f64::INFINITY, f64::min);
    assert!(
        min_gap >= 1040.0 / (0.5 * 104_000.0) * 0.99 * 0.5,
        "{min_gap}"
    );
    assert!(a.stats_now().max_pacing_delay_s > 0.1);
}

#[test]
fn a_heard_primary_user_freezes_the_whole_cell_like_a_tfp() {
    // The 802.15.4 hop has no DSA processes: its PU detector's signals at
    // the BS stand for a whole-cell TFP.
    let pu = |signal| NodeSignal {
        signal,
        reason: None,
        packet: None,
        delays: None,
        iface: 0,
    };
    let mut a = agent(DsaSyncConfig::default());
    assert!(a.on_signal(ms(0), &pu(Signal::PuStart)));
    assert!(a.frozen(0));
    assert_eq!(a.on_packet(ms(1), Tap::BsDown, &mut data(0)), Verdict::Hold);
    assert!(a.on_signal(ms(900), &pu(Signal::PuStop)));
    assert!(!a.frozen(0));
    let out = actions(&mut a);
    assert!(
        matches!(out[..], [Action::Release { packet, via: Via::Air }] if packet.meta.uid == 100),
        "{out:?}"
    );
    // The freeze counts as TFP time for the pacer (Algorithms 3/4).
    assert_eq!(a.mean_tfp(), Dur::from_millis(900));
}

/// The pacer of `cfg` after a 250 ms TFP and 75 uplink segments (1040 B)
/// 10 ms apart: its rate at 1 s and the longest wait of any segment.
fn pace_after_a_tfp(cfg: DsaSyncConfig) -> (f64, f64) {
    let mut a = DsaSync::new(cfg, vec![0]);
    a.on_signal(ms(0), &tfp(true, TfpCause::PuOn, None));
    a.on_signal(ms(250), &tfp(false, TfpCause::PuOn, None));
    for k in 0..75u32 {
        let t = ms(250 + 10 * u64::from(k));
        while let Some(due) = a.poll_timeout().filter(|&d| d <= t) {
            a.on_timeout(due);
        }
        let mut p = ack(0, 60_000);
        p.tcp.payload_len = MSS;
        p.tcp.seq = SeqNum(1 + k * MSS);
        p.meta.uid = 50_000 + u64::from(k);
        assert_eq!(a.on_packet(t, Tap::BsUp, &mut p), Verdict::Hold);
    }
    let rate = a.pace_rate(ms(1000), None).unwrap();
    while let Some(due) = a.poll_timeout() {
        a.on_timeout(due);
    }
    assert_eq!(a.stats_now().paced, 75);
    assert_eq!(actions(&mut a).len(), 75);
    (rate, a.stats_now().max_pacing_delay_s)
}

#[test]
fn rate_over_window_paces_at_beta_times_the_whole_windows_rate() {
    let cfg = DsaSyncConfig {
        rate_over: RateOver::Window,
        ..DsaSyncConfig::default()
    };
    // 78 000 B over the whole second, alpha = 0.75: 58 500 B/s, below the
    // long-run arrival rate (the default reading gives 78 000 B/s).
    let (rate, _) = pace_after_a_tfp(cfg);
    assert!((rate - 58_500.0).abs() < 100.0, "{rate}");
    let (rate, _) = pace_after_a_tfp(DsaSyncConfig::default());
    assert!((rate - 78_000.0).abs() < 100.0, "{rate}");
}

#[test]
fn max_wait_mean_tfp_bounds_each_wait_by_the_mean_tfp_and_none_does_not() {
    let capped = DsaSyncConfig {
        max_wait: MaxWait::MeanTfp,
        ..DsaSyncConfig::default()
    };
    let (_, longest) = pace_after_a_tfp(capped);
    assert!(longest <= 0.250 + 1e-9, "{longest}");
    // The paper's pacer (the default): only alpha_min bounds the shaping,
    // and the backlog of a burst waits past the mean TFP.
    let (_, longest) = pace_after_a_tfp(DsaSyncConfig::default());
    assert!(longest > 0.250, "{longest}");
}
