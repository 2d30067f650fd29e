//! The hop driven alone, frame by frame: the timing of one frame, the
//! delivery report carrying its packet, retries to the limit and the drop,
//! a blockage destroying a frame on the air.

use super::*;
use crate::hop::HopDrop;
use crate::radio::wifi::{ack_txtime, data_psdu_bytes, txtime, Standard};
use crate::scenario::{LossSpec, QueueLimit, WifiSpec};
use crate::signal::{MacDelays, Signal, UndeliveredReason as SignalReason};
use crate::sim::engine::EventQueue;
use crate::time::{Dur, Time};
use crate::wire::{PacketMeta, Segment, SeqNum, TcpFlags, TcpOptions};
use std::net::Ipv4Addr;

fn packet(uid: u64) -> Packet {
    Packet {
        src: Ipv4Addr::new(10, 1, 0, 1),
        dst: Ipv4Addr::new(10, 2, 0, 1),
        ip_id: 0,
        ttl: 64,
        tcp: Segment {
            src_port: 5201,
            dst_port: 49152,
            seq: SeqNum(1 + 1460 * uid as u32),
            ack: SeqNum(1),
            flags: TcpFlags::ACK,
            window: 1000,
            options: TcpOptions::default(),
            payload_len: 1460,
        },
        meta: PacketMeta {
            flow: 0,
            uid,
            retransmission: false,
            forged: false,
            iface: 0,
            ..PacketMeta::default()
        },
    }
}

fn hop(snr_db: f64) -> WifiHop {
    let spec = WifiSpec {
        rate: Rate::Ofdm24,
        snr: crate::scenario::SnrSpec::Fixed(snr_db),
        ..WifiSpec::new(Standard::A11)
    };
    let none = LossSpec::None;
    let end = Time::ZERO + Dur::from_secs(1);
    WifiHop::new(
        &spec,
        QueueLimit::Packets(10),
        (&none, &none),
        &["h"],
        end,
        5,
    )
}

// `EventQueue<HopTimer>` is a `TimerSink` (the 802.15.4 hop's tests say so).

/// Runs the hop's events until `until`; returns every output with its time.
fn drive(h: &mut WifiHop, q: &mut EventQueue<HopTimer>, until: Time) -> Vec<(Time, HopOut)> {
    let mut all = Vec::new();
    let mut out = Vec::new();
    while let Some((now, t)) = q.pop_until(until) {
        h.handle(now, t.into(), q, &mut out);
        all.extend(out.drain(..).map(|o| (now, o)));
    }
    all
}

#[test]
fn one_frame_takes_difs_its_airtime_and_is_reported_delivered_with_its_packet() {
    let mut h = hop(40.0);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    let p = packet(1);
    h.enqueue(Time::ZERO, 0, 1, p, &mut q, &mut out);
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(1));
    let std = Standard::A11;
    let data = txtime(Rate::Ofdm24, data_psdu_bytes(1500), Preamble::Long);
    // A frame arriving at an idle station on an idle medium goes out after
    // DIFS; it arrives at its end, the MAC ACK follows SIFS later.
    let arrive = Time::ZERO + std.difs() + data;
    let arrived: Vec<(Time, HopOut)> = outs
        .iter()
        .filter(|(_, o)| matches!(o, HopOut::Arrived { .. }))
        .copied()
        .collect();
    assert_eq!(
        arrived,
        vec![(
            arrive,
            HopOut::Arrived {
                station: 1,
                packet: p
            }
        )]
    );
    let delivered: Vec<(Time, Option<Packet>, Option<MacDelays>)> = outs
        .iter()
        .filter_map(|(t, o)| match o {
            HopOut::Signal {
                station: 0,
                signal: Signal::Delivered { .. },
                packet,
                delays,
                ..
            } => Some((*t, *packet, *delays)),
            _ => None,
        })
        .collect();
    let ack_end = arrive + std.sifs() + ack_txtime(Rate::Ofdm24, Preamble::Long);
    // At the head of an empty queue at once: all of it is transmission.
    let delays = MacDelays {
        queue: Dur::ZERO,
        tx: ack_end - Time::ZERO,
        attempts: 1,
    };
    assert_eq!(delivered, vec![(ack_end, Some(p), Some(delays))]);
    assert!(outs
        .iter()
        .any(|(_, o)| matches!(o, HopOut::OnAir { down: true, .. })));
    let d = h.stats.down;
    assert_eq!((d.offered, d.frames_sent, d.arrived), (1, 1, 1));
    assert_eq!(h.in_flight(), 0);
    // Energy: the AP sent for `data`, received the ACK; the rest idle.
    let st = h.stats_at(Time::ZERO + Dur::from_secs(1));
    let ap = st.stations[0];
    assert!((ap.tx_s - data.as_secs_f64()).abs() < 1e-12, "{ap:?}");
    assert!((ap.tx_s + ap.rx_s + ap.idle_s - 1.0).abs() < 1e-12);
    assert_eq!(st.stations[1].rx_s, ap.tx_s);
}

#[test]
fn at_a_hopeless_snr_the_frame_is_retried_to_the_limit_then_dropped() {
    let mut h = hop(0.0);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    h.enqueue(Time::ZERO, 1, 0, packet(1), &mut q, &mut out);
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(1));
    let up = h.stats.up;
    // dot11ShortRetryLimit = 7 attempts (no RTS/CTS).
    assert_eq!((up.frames_sent, up.lost, up.retransmissions), (7, 7, 6));
    assert_eq!(up.drop_retry_limit, 1);
    let why: Vec<HopDrop> = outs
        .iter()
        .filter_map(|(_, o)| match o {
            HopOut::Dropped { why, .. } => Some(*why),
            _ => None,
        })
        .collect();
    assert_eq!(why, vec![HopDrop::Mac(SignalReason::RetryLimit)]);
    let reports = outs
        .iter()
        .filter(|(_, o)| {
            matches!(
                o,
                HopOut::Signal {
                    station: 1,
                    signal: Signal::Undelivered { .. },
                    reason: Some(SignalReason::RetryLimit),
                    packet: Some(_),
                    delays: None,
                }
            )
        })
        .count();
    assert_eq!(reports, 1);
    assert_eq!(h.in_flight(), 0);
    // Every errored reception started an EIFS at the AP.
    assert_eq!(h.dcf(0).stats().rx_errors, 7);
}

#[test]
fn a_blockage_destroys_the_frame_on_the_air_and_defers_the_retry() {
    let mut h = hop(40.0);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    h.enqueue(Time::ZERO, 0, 1, packet(1), &mut q, &mut out);
    // The frame starts after DIFS (34 us) and lasts 540 us: block at 100 us
    // for 10 ms.
    let on = Time::ZERO + Dur::from_micros(100);
    let off = on + Dur::from_millis(10);
    let mut outs = drive(&mut h, &mut q, on);
    h.set_channel_blocked(on, true, &mut q, &mut out);
    outs.extend(drive(&mut h, &mut q, off));
    h.set_channel_blocked(off, false, &mut q, &mut out);
    outs.extend(drive(&mut h, &mut q, off + Dur::from_secs(1)));
    let d = h.stats.down;
    assert_eq!((d.blocked_destroyed, d.frames_sent, d.arrived), (1, 2, 1));
    let arrived_at = outs
        .iter()
        .find(|(_, o)| matches!(o, HopOut::Arrived { .. }))
        .map(|(t, _)| *t)
        .unwrap();
    assert!(arrived_at > off, "the retry waits for the channel");
}

/// Sends 200 frames down through an i.i.d. loss of 1/2 per draw; returns
/// (frames arrived, arrived after a retry, undelivered).
fn half_lost(per_packet: bool) -> (usize, usize, usize) {
    let spec = WifiSpec {
        rate: Rate::Ofdm24,
        loss_per_packet: per_packet,
        ..WifiSpec::new(Standard::A11)
    };
    let half = LossSpec::Iid { p: 0.5 };
    let end = Time::ZERO + Dur::from_secs(10);
    let queue = QueueLimit::Packets(300);
    let mut h = WifiHop::new(&spec, queue, (&half, &half), &["h"], end, 7);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    for uid in 0..200 {
        h.enqueue(Time::ZERO, 0, 1, packet(uid), &mut q, &mut out);
    }
    let outs = drive(&mut h, &mut q, end);
    let arrived = outs
        .iter()
        .filter(|(_, o)| matches!(o, HopOut::Arrived { .. }))
        .count();
    let retried = outs
        .iter()
        .filter(|(_, o)| {
            matches!(o, HopOut::Signal { delays: Some(d), signal: Signal::Delivered { .. }, .. } if d.attempts > 1)
        })
        .count();
    let undelivered = outs
        .iter()
        .filter(|(_, o)| {
            matches!(
                o,
                HopOut::Signal {
                    signal: Signal::Undelivered { .. },
                    ..
                }
            )
        })
        .count();
    (arrived, retried, undelivered)
}

#[test]
fn loss_per_packet_keeps_one_draw_for_all_the_retries() {
    // Per frame: the MAC's retries repair nearly every loss.
    let (arrived, retried, undelivered) = half_lost(false);
    assert!(arrived >= 198 && retried > 50, "{arrived} {retried}");
    assert_eq!(arrived + undelivered, 200);
    // Per packet: a packet arrives at its first try or never.
    let (arrived, retried, undelivered) = half_lost(true);
    assert_eq!(retried, 0);
    assert_eq!(arrived + undelivered, 200);
    assert!((70..130).contains(&arrived), "{arrived}");
}

#[test]
fn a_frame_enqueued_first_goes_next_after_the_one_in_progress() {
    let mut h = hop(40.0);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    for uid in 0..3 {
        h.enqueue(Time::ZERO, 0, 1, packet(uid), &mut q, &mut out);
    }
    let io = HopIo {
        timers: &mut q,
        out: &mut out,
        capture: false,
    };
    Hop::enqueue_first(&mut h, Time::ZERO, 0, 1, &packet(9), io);
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(1));
    let order: Vec<u64> = outs
        .iter()
        .filter_map(|(_, o)| match o {
            HopOut::Arrived { packet, .. } => Some(packet.meta.uid),
            _ => None,
        })
        .collect();
    assert_eq!(order, vec![0, 9, 1, 2]);
}
