//! BBR v1 driven through the endpoint over a scripted path: a FIFO
//! bottleneck of fixed rate and a fixed propagation delay, a receiver that
//! ACKs (with SACK) every segment at once. The trace is read ACK by ACK
//! against Linux's `tcp_bbr.c`: the modes, the gains, BtlBw, cwnd, pacing
//! and PROBE_RTT, then one loss.

use super::cc::bbr::{BbrMode, CWND_GAIN, CYCLE, HIGH_GAIN, MIN_CWND_SEGMENTS};
use super::fixture::*;
use super::{CcAlgorithm, Config, CongestionState, Endpoint};
use crate::time::{Dur, Time};
use crate::wire::SeqNum;
use std::collections::VecDeque;

/// Segment payload (the fixture's MSS).
const MSS: u64 = 1000;
/// The bottleneck: 500 kB/s, 2 ms per segment.
const RATE: u64 = 500_000;
/// One-way propagation delay; RTprop = 2 ms + 2 · 14 ms = 30 ms.
const ONE_WAY: Dur = Dur::from_millis(14);
const RTPROP: Dur = Dur::from_millis(30);
/// BDP = 500 kB/s · 30 ms.
const BDP: u64 = 15_000;

/// The sender after one ACK.
#[derive(Clone, Copy, Debug)]
struct Sample {
    at: Time,
    mode: BbrMode,
    pacing_gain: u64,
    cwnd_gain: u64,
    btl_bw: u64,
    min_rtt: Option<Dur>,
    pacing_rate: u64,
    cwnd: u64,
    flight: u64,
    state: CongestionState,
}

struct Path {
    ep: Endpoint,
    now: Time,
    /// When the bottleneck is free again.
    link_free: Time,
    /// ACKs on their way back: (arrival, segment start, segment end).
    acks: VecDeque<(Time, SeqNum, SeqNum)>,
    rcv_nxt: SeqNum,
    /// Out-of-order ranges the receiver holds, sorted.
    ooo: Vec<(SeqNum, SeqNum)>,
    sent: u64,
    drops: Vec<u64>,
    /// Send time and the pacing rate right after, per data segment.
    sends: Vec<(Time, u64)>,
    trace: Vec<Sample>,
}

impl Path {
    fn new(drops: &[u64]) -> Path {
        let c = Config {
            cc: CcAlgorithm::Bbr,
            ..sack_cfg()
        };
        let mut ep = established(c);
        ep.write(1 << 30);
        let rcv_nxt = ep.snd_una();
        let mut p = Path {
            ep,
            now: ms(100),
            link_free: ms(100),
            acks: VecDeque::new(),
            rcv_nxt,
            ooo: Vec::new(),
            sent: 0,
            drops: drops.to_vec(),
            sends: Vec::new(),
            trace: Vec::new(),
        };
        p.pump();
        p
    }

    fn pump(&mut self) {
        while let Some(tx) = self.ep.poll_transmit(self.now) {
            let seg = tx.segment;
            if seg.payload_len == 0 {
                continue;
            }
            let rate = self.ep.cc().pacing_rate().unwrap_or(0);
            self.sends.push((self.now, rate));
            let n = self.sent;
            self.sent += 1;
            let serialisation = Dur(u64::from(seg.payload_len) * 1_000_000_000 / RATE);
            self.link_free = self.link_free.max(self.now) + serialisation;
            if self.drops.contains(&n) {
                continue;
            }
            let back = self.link_free + ONE_WAY + ONE_WAY;
            self.acks
                .push_back((back, seg.seq, seg.seq + seg.payload_len));
        }
        self.ep.write(1 << 30);
    }

    /// The receiver takes `[seq, end)` and answers with its SACK blocks.
    fn receive(&mut self, seq: SeqNum, end: SeqNum) {
        if seq <= self.rcv_nxt {
            self.rcv_nxt = self.rcv_nxt.max(end);
        } else {
            self.ooo.push((seq, end));
            self.ooo.sort();
        }
        while let Some(i) = self.ooo.iter().position(|r| r.0 <= self.rcv_nxt) {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo.remove(i).1);
        }
        let mut merged: Vec<(SeqNum, SeqNum)> = Vec::new();
        for &(l, r) in &self.ooo {
            match merged.last_mut() {
                Some(m) if m.1 >= l => m.1 = m.1.max(r),
                _ => merged.push((l, r)),
            }
        }
        merged.truncate(3);
        let ack = sack_ack(self.rcv_nxt, &merged);
        self.ep.handle_segment(self.now, &ack);
    }

    fn run(&mut self, until: Time) {
        loop {
            let ack_at = self.acks.front().map(|a| a.0);
            let next = match (ack_at, self.ep.poll_timeout()) {
                (Some(a), Some(t)) => a.min(t),
                (a, t) => match a.or(t) {
                    Some(x) => x,
                    None => break,
                },
            };
            if next > until {
                break;
            }
            self.now = next;
            if ack_at == Some(next) {
                let (_, seq, end) = self.acks.pop_front().unwrap();
                self.receive(seq, end);
                let b = self.ep.cc().bbr().unwrap();
                self.trace.push(Sample {
                    at: self.now,
                    mode: b.mode(),
                    pacing_gain: b.pacing_gain(),
                    cwnd_gain: b.cwnd_gain(),
                    btl_bw: b.btl_bw(),
                    min_rtt: b.min_rtt(),
                    pacing_rate: b.pacing_rate().unwrap(),
                    cwnd: self.ep.cwnd(),
                    flight: self.ep.flight_size(),
                    state: self.ep.congestion_state(),
                });
            } else {
                self.ep.handle_timeout(self.now);
            }
            self.pump();
        }
    }
}

/// The mode's name, PROBE_BW's phases taken together.
fn name(m: BbrMode) -> &'static str {
    match m {
        BbrMode::Startup => "startup",
        BbrMode::Drain => "drain",
        BbrMode::ProbeBw { .. } => "probe_bw",
        BbrMode::ProbeRtt { .. } => "probe_rtt",
    }
}

fn near(x: u64, want: u64, tolerance: f64) -> bool {
    (x as f64 - want as f64).abs() <= tolerance * want as f64
}

#[test]
fn bbr_trace_on_a_fixed_path() {
    let mut p = Path::new(&[]);
    p.run(ms(12_000));
    let t = &p.trace;
    // The mode sequence.
    let mut modes: Vec<&str> = t.iter().map(|s| name(s.mode)).collect();
    modes.dedup();
    assert_eq!(
        modes,
        ["startup", "drain", "probe_bw", "probe_rtt", "probe_bw"],
        "{modes:?}"
    );
    // STARTUP's gains, 2/ln 2.
    for s in t.iter().filter(|s| s.mode == BbrMode::Startup) {
        assert_eq!((s.pacing_gain, s.cwnd_gain), (HIGH_GAIN, HIGH_GAIN));
    }
    // DRAIN's pacing gain ln 2/2, cwnd gain still 2.885.
    let drain: Vec<&Sample> = t.iter().filter(|s| s.mode == BbrMode::Drain).collect();
    assert!(drain
        .iter()
        .all(|s| s.pacing_gain == 347 && s.cwnd_gain == HIGH_GAIN));
    let probe_bw_at = t
        .iter()
        .position(|s| matches!(s.mode, BbrMode::ProbeBw { .. }))
        .unwrap();
    // DRAIN ends once the flight is down to one BDP plus the allowance,
    // 15 + 6 segments rounded up to an even 22.
    assert!(t[probe_bw_at].flight <= 22 * MSS, "{:?}", t[probe_bw_at]);
    assert!(
        t[probe_bw_at - 1].flight > 22 * MSS,
        "{:?}",
        t[probe_bw_at - 1]
    );
    assert!(t[probe_bw_at].at < ms(1100), "{:?}", t[probe_bw_at]);
    // BtlBw converged to the bottleneck rate, RTprop to the path's.
    let steady: Vec<&Sample> = t[probe_bw_at..]
        .iter()
        .filter(|s| matches!(s.mode, BbrMode::ProbeBw { .. }))
        .collect();
    for s in &steady {
        assert!(near(s.btl_bw, RATE, 0.03), "{s:?}");
        assert!(s.btl_bw <= RATE, "{s:?}");
        assert_eq!(s.min_rtt, Some(RTPROP));
    }
    // PROBE_BW: pacing at the phase's gain times BtlBw; every phase seen.
    let mut phases = [0u32; 8];
    for s in &steady {
        let BbrMode::ProbeBw { phase, .. } = s.mode else {
            unreachable!()
        };
        phases[phase] += 1;
        assert_eq!(s.pacing_gain, CYCLE[phase]);
        assert_eq!(s.pacing_rate, s.btl_bw * CYCLE[phase] / 1000, "{s:?}");
    }
    assert!(phases.iter().all(|&n| n > 0), "{phases:?}");
    // cwnd = 2·BDP + 3 quanta of 2 segments (+2 segments in the 1.25
    // phase), once grown to it, and never above.
    let bdp = |s: &Sample| (s.btl_bw * RTPROP.0).div_ceil(1_000_000_000);
    let mut at_target = 0;
    for s in &steady {
        assert!(near(bdp(s), BDP, 0.03), "{s:?}");
        let segs = (CWND_GAIN * bdp(s) / 1000 + 6 * MSS).div_ceil(MSS);
        let mut target = (segs + (segs & 1)) * MSS;
        if matches!(s.mode, BbrMode::ProbeBw { phase: 0, .. }) {
            target += 2 * MSS;
        }
        assert!(s.cwnd <= target, "{s:?}");
        at_target += u32::from(s.cwnd == target);
    }
    assert!(at_target as usize > steady.len() * 9 / 10, "{at_target}");
    // Pacing: no data segment left sooner than its predecessor's length
    // at the rate then in force.
    for w in p.sends.windows(2) {
        let ((t0, rate), (t1, _)) = (w[0], w[1]);
        let gap = Dur(MSS * 1_000_000_000 / rate);
        assert!(t1.saturating_since(t0) >= gap, "{t0:?} -> {t1:?} at {rate}");
    }
    // PROBE_RTT: 10 s after RTprop was last renewed (the path never beats
    // its first 30 ms sample), cwnd 4 segments for at least 200 ms.
    let renewed = t
        .iter()
        .position(|s| s.min_rtt == Some(RTPROP))
        .map(|i| t[i].at)
        .unwrap();
    let probe_rtt: Vec<&Sample> = t
        .iter()
        .filter(|s| matches!(s.mode, BbrMode::ProbeRtt { .. }))
        .collect();
    let (first, last) = (probe_rtt[0], probe_rtt[probe_rtt.len() - 1]);
    let after = first.at.saturating_since(renewed);
    assert!(
        after > Dur::from_secs(10) && after < Dur::from_millis(10_040),
        "{after:?}"
    );
    assert!(last.at.saturating_since(first.at) >= Dur::from_millis(200));
    for s in &probe_rtt {
        assert!(s.cwnd <= MIN_CWND_SEGMENTS * MSS, "{s:?}");
    }
    assert!(probe_rtt
        .iter()
        .any(|s| s.flight <= MIN_CWND_SEGMENTS * MSS));
    // Back in PROBE_BW, cwnd restored at once.
    let back = t
        .iter()
        .rposition(|s| matches!(s.mode, BbrMode::ProbeRtt { .. }))
        .unwrap()
        + 1;
    assert!(t[back].cwnd >= 2 * BDP, "{:?}", t[back]);
}

/// One segment lost in PROBE_BW: SACK recovery conserves packets for its
/// first round (cwnd = in flight + delivered), BtlBw and the pacing rate
/// do not move, and leaving recovery gives back the cwnd from before.
#[test]
fn bbr_loss_keeps_the_model() {
    // Segment 1500 leaves about 3 s in, in PROBE_BW.
    let mut p = Path::new(&[1500]);
    p.run(ms(5000));
    let t = &p.trace;
    let entry = t
        .iter()
        .position(|s| s.state == CongestionState::Recovery)
        .expect("a fast recovery");
    let exit = entry
        + t[entry..]
            .iter()
            .position(|s| s.state == CongestionState::Open)
            .unwrap();
    let before = t[entry - 1];
    assert!(matches!(before.mode, BbrMode::ProbeBw { .. }), "{before:?}");
    for s in &t[entry..exit] {
        assert!(matches!(s.mode, BbrMode::ProbeBw { .. }), "{s:?}");
        assert_eq!(s.btl_bw, before.btl_bw, "{s:?}");
        // Packet conservation: never fewer than in flight plus what the
        // ACK delivered; never more than the cwnd before.
        assert!(s.cwnd <= before.cwnd + 2 * MSS, "{s:?}");
    }
    // The first ACK of recovery: cwnd = pipe + delivered (one SACKed
    // segment), the hole not counted in flight.
    let first = t[entry];
    assert!(first.cwnd < before.cwnd, "{first:?} after {before:?}");
    assert!(first.cwnd >= first.flight - 4 * MSS, "{first:?}");
    // Exit restores the cwnd from before the loss.
    assert!(t[exit].cwnd >= before.cwnd, "{:?} vs {before:?}", t[exit]);
    assert!(near(t[exit].btl_bw, RATE, 0.03));
    assert_eq!(p.ep.stats().retransmissions, 1);
    assert_eq!(p.ep.stats().rto_count, 0);
}
