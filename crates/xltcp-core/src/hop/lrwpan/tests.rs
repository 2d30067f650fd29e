//! The hop driven alone, frame by frame: timing of one frame, MAC retries
//! to the limit, channel-access failure under a PU, duplicate rejection.

use super::*;
use crate::radio::lrwpan::cca_duration;
use crate::radio::lrwpan::{ack_airtime, ppdu_airtime, turnaround_time, unit_backoff_period};
use crate::scenario::{LayoutPreset, LossSpec, LrwpanSpec, PuDetectionSpec, QueueLimit};
use crate::signal::Signal;
use crate::sim::engine::EventQueue;
use crate::time::{Dur, Time};
use crate::wire::Segment;
use crate::wire::{PacketMeta, SeqNum, TcpFlags, TcpOptions};
use std::net::Ipv4Addr;

fn packet(uid: u64) -> Packet {
    Packet {
        src: Ipv4Addr::new(10, 2, 0, 1),
        dst: Ipv4Addr::new(10, 1, 0, 1),
        ip_id: 0,
        ttl: 64,
        tcp: Segment {
            src_port: 49152,
            dst_port: 5201,
            seq: SeqNum(1 + 94 * uid as u32),
            ack: SeqNum(1),
            flags: TcpFlags::ACK,
            window: 1000,
            options: TcpOptions::default(),
            payload_len: 94,
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

fn hop(spec: LrwpanSpec, loss: LossSpec) -> LrwpanHop {
    LrwpanHop::new(
        &spec,
        QueueLimit::Packets(10),
        (&loss, &loss),
        &PuDetectionSpec::default(),
        1,
        7,
    )
}

fn paper() -> LrwpanSpec {
    LrwpanSpec {
        layout: LayoutPreset::Paper,
        ..LrwpanSpec::default()
    }
}

/// Runs the hop's events until `until`; returns every output with its time.
impl TimerSink for EventQueue<HopTimer> {
    fn schedule(&mut self, at: Time, timer: HopTimer) {
        EventQueue::schedule(self, at, timer);
    }
}

fn drive(h: &mut LrwpanHop, q: &mut EventQueue<HopTimer>, until: Time) -> Vec<(Time, HopOut)> {
    let mut all = Vec::new();
    let mut out = Vec::new();
    while let Some((now, t)) = q.pop_until(until) {
        h.handle(now, t.into(), q, &mut out);
        all.extend(out.drain(..).map(|o| (now, o)));
    }
    all
}

fn arrivals(outs: &[(Time, HopOut)]) -> Vec<(Time, u64)> {
    outs.iter()
        .filter_map(|(t, o)| match o {
            HopOut::Arrived { packet, .. } => Some((*t, packet.meta.uid)),
            _ => None,
        })
        .collect()
}

#[test]
fn one_frame_takes_backoff_cca_turnaround_and_its_airtime() {
    let mut h = hop(paper(), LossSpec::None);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    let p = packet(1);
    assert_eq!(h.mpdu_len(&p), 127, "19 + 12 + 94 + 2");
    h.enqueue(Time::ZERO, 1, 0, p, &mut q, &mut out);
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(1));
    let arrived = arrivals(&outs);
    assert_eq!(arrived.len(), 1);
    // The first back-off is 0..=7 unit periods; the frame ends after it,
    // the CCA, the turnaround and 133 bytes of PPDU (4.256 ms).
    let fixed = cca_duration() + turnaround_time() + ppdu_airtime(127);
    let t = arrived[0].0 - Time::ZERO;
    let backoff = t - fixed;
    assert_eq!(backoff.as_nanos() % unit_backoff_period().as_nanos(), 0);
    assert!(backoff <= unit_backoff_period().saturating_mul(7));
    let up = h.stats.up;
    assert_eq!((up.offered, up.frames_sent, up.arrived), (1, 1, 1));
    // The MAC ACK comes back a turnaround later; the sender then reports
    // the delivery at the end of the ACK.
    let delivered: Vec<Time> = outs
        .iter()
        .filter(|(_, o)| {
            matches!(
                o,
                HopOut::Signal {
                    signal: Signal::Delivered { .. },
                    ..
                }
            )
        })
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(
        delivered,
        vec![arrived[0].0 + turnaround_time() + ack_airtime()]
    );
}

#[test]
fn a_lost_frame_is_retried_to_the_limit_then_dropped() {
    // At -10 dB every frame is lost: four attempts (1 + macMaxFrameRetries).
    let spec = LrwpanSpec {
        snr_db: Some(-10.0),
        ..paper()
    };
    let mut h = hop(spec, LossSpec::None);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    h.enqueue(Time::ZERO, 1, 0, packet(1), &mut q, &mut out);
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(1));
    assert!(arrivals(&outs).is_empty());
    let up = h.stats.up;
    assert_eq!((up.frames_sent, up.lost, up.drop_retry_limit), (4, 4, 1));
    let dropped: Vec<HopDrop> = outs
        .iter()
        .filter_map(|(_, o)| match o {
            HopOut::Dropped { why, .. } => Some(*why),
            _ => None,
        })
        .collect();
    assert_eq!(dropped, vec![HopDrop::Mac(UndeliveredReason::RetryLimit)]);
    assert_eq!(h.in_flight(), 0);
}

#[test]
fn under_a_pu_every_cca_is_busy_and_the_frame_is_given_up() {
    let mut h = hop(paper(), LossSpec::None);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    h.set_pu(Time::ZERO, true, &mut q, &mut out);
    h.enqueue(Time::ZERO, 1, 0, packet(1), &mut q, &mut out);
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(1));
    let up = h.stats.up;
    assert_eq!((up.frames_sent, up.drop_channel_access), (0, 1));
    let reasons: Vec<Option<UndeliveredReason>> = outs
        .iter()
        .filter_map(|(_, o)| match o {
            HopOut::Signal {
                station: 1,
                signal: Signal::Undelivered { .. },
                reason,
                ..
            } => Some(*reason),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, vec![Some(UndeliveredReason::ChannelAccessFailure)]);
    // Five CCAs (macMaxCSMABackoffs + 1) with back-offs of BE 3, 4, 5, 5, 5.
    let drop_at = outs
        .iter()
        .find(|(_, o)| matches!(o, HopOut::Dropped { .. }))
        .map(|(t, _)| *t - Time::ZERO)
        .unwrap();
    let ccas = cca_duration().saturating_mul(5);
    let most = unit_backoff_period().saturating_mul(7 + 15 + 31 + 31 + 31);
    assert!(drop_at >= ccas && drop_at <= ccas + most, "{drop_at:?}");
}

#[test]
fn a_lost_mac_ack_gives_a_duplicate_that_is_not_passed_up_twice() {
    // Loss only on the way down: the data frame up arrives, its MAC ACK
    // (down) is lost with probability 0.5, so the sender retries and the
    // BS sees the same data sequence number again.
    let loss_up = LossSpec::None;
    let loss_down = LossSpec::Iid { p: 0.5 };
    let mut h = LrwpanHop::new(
        &paper(),
        QueueLimit::Packets(100),
        (&loss_down, &loss_up),
        &PuDetectionSpec::default(),
        1,
        11,
    );
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    for uid in 0..40 {
        h.enqueue(Time::ZERO, 1, 0, packet(uid), &mut q, &mut out);
    }
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(10));
    let up = h.stats.up;
    let down = h.stats.down;
    assert!(down.acks_lost > 0);
    assert_eq!(
        up.duplicates + up.arrived,
        up.frames_sent - up.collided - up.lost
    );
    assert!(up.duplicates > 0);
    let mut uids: Vec<u64> = arrivals(&outs).iter().map(|a| a.1).collect();
    let n = uids.len();
    uids.dedup();
    assert_eq!(uids.len(), n, "each packet passed up once");
    assert_eq!(n as u64, up.arrived);
    assert_eq!(up.arrived + up.drop_retry_limit, 40, "{up:?}");
}

#[test]
fn with_mac_hold_the_host_waits_out_the_pu_and_drops_nothing() {
    let mut h = hop(paper(), LossSpec::None).with_mac_hold(true);
    let mut q = EventQueue::default();
    let mut out = Vec::new();
    h.set_pu(Time::ZERO, true, &mut q, &mut out);
    for uid in 1..=3 {
        h.enqueue(Time::ZERO, 1, 0, packet(uid), &mut q, &mut out);
    }
    // Two seconds of PU; pu_stop follows t_idle (1 s) after it ends.
    let off = Time::ZERO + Dur::from_secs(2);
    drive(&mut h, &mut q, off);
    assert_eq!(h.stats.up.frames_sent, 0);
    h.set_pu(off, false, &mut q, &mut out);
    let outs = drive(&mut h, &mut q, Time::ZERO + Dur::from_secs(5));
    let arrived = arrivals(&outs);
    assert_eq!(
        arrived.iter().map(|a| a.1).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    // Nothing is sent before the detector's pu_stop (t_idle after the PU).
    assert!(arrived[0].0 >= off + Dur::from_secs(1));
    let up = h.stats.up;
    assert_eq!((up.drop_channel_access, up.frames_sent), (0, 3));
    // Without the hold the same schedule loses the frames to channel access.
    let mut h = hop(paper(), LossSpec::None);
    let mut q = EventQueue::default();
    h.set_pu(Time::ZERO, true, &mut q, &mut out);
    for uid in 1..=3 {
        h.enqueue(Time::ZERO, 1, 0, packet(uid), &mut q, &mut out);
    }
    drive(&mut h, &mut q, off);
    assert_eq!(h.stats.up.drop_channel_access, 3);
}
