//! Congestion controllers driven through the endpoint by a scripted peer:
//! one loss-free transfer and one loss event each, the cwnd trace checked
//! against the specification's equations ACK by ACK.

use super::fixture::*;
use super::{CcAlgorithm, Config, CongestionState, Endpoint};
use crate::time::{Dur, Time};
use crate::wire::SeqNum;
use std::collections::VecDeque;

/// Payload per segment in these scripts: small, so that windows of
/// hundreds of segments fit the peer's 64000 B window.
const MSS: u64 = 100;
/// The path's round trip (the handshake's too).
const RTT: Dur = Dur(100_000_000);

/// What the sender looked like around one ACK.
#[derive(Clone, Copy, Debug)]
struct Sample {
    at: Time,
    /// Bytes it newly acknowledged.
    acked: u64,
    cwnd_before: u64,
    flight_before: u64,
    cwnd: u64,
    ssthresh: u64,
    state: CongestionState,
    state_before: CongestionState,
    srtt: Dur,
}

/// A sender with unlimited data, a path of round trip [`RTT`] that loses
/// the data segments listed, and a receiver that ACKs every segment at
/// once (cumulative ACKs, no SACK).
struct Script {
    ep: Endpoint,
    now: Time,
    rtt: Dur,
    acks: VecDeque<(Time, SeqNum)>,
    rcv_nxt: SeqNum,
    ooo: Vec<(SeqNum, SeqNum)>,
    sent: u64,
    drops: Vec<u64>,
    trace: Vec<Sample>,
}

fn cc_cfg(cc: CcAlgorithm) -> Config {
    Config {
        cc,
        mss: MSS as u32,
        limited_transmit: false,
        ..cfg()
    }
}

impl Script {
    fn new(c: Config, drops: &[u64]) -> Script {
        let mut ep = established(c);
        let rcv_nxt = ep.snd_una();
        ep.write(1 << 30);
        let mut s = Script {
            ep,
            now: ms(100),
            rtt: RTT,
            acks: VecDeque::new(),
            rcv_nxt,
            ooo: Vec::new(),
            sent: 0,
            drops: drops.to_vec(),
            trace: Vec::new(),
        };
        s.pump();
        s
    }

    /// Sends what the sender will; the receiver takes what is not lost.
    fn pump(&mut self) {
        while let Some(tx) = self.ep.poll_transmit(self.now) {
            let seg = tx.segment;
            if seg.payload_len == 0 {
                continue;
            }
            let n = self.sent;
            self.sent += 1;
            if self.drops.contains(&n) {
                continue;
            }
            let end = seg.seq + seg.payload_len;
            if seg.seq <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(end);
            } else {
                self.ooo.push((seg.seq, end));
            }
            while let Some(i) = self.ooo.iter().position(|r| r.0 <= self.rcv_nxt) {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo.swap_remove(i).1);
            }
            self.acks.push_back((self.now + self.rtt, self.rcv_nxt));
        }
        self.ep.write(1 << 30);
    }

    /// Runs until `until`: ACKs and timeouts in time order.
    fn run(&mut self, until: Time) {
        loop {
            let ack_at = self.acks.front().map(|a| a.0);
            let timer = self.ep.poll_timeout();
            let next = match (ack_at, timer) {
                (Some(a), Some(t)) => a.min(t),
                (Some(a), None) => a,
                (None, Some(t)) => t,
                (None, None) => break,
            };
            if next > until {
                break;
            }
            self.now = next;
            if ack_at == Some(next) {
                let (_, ack) = self.acks.pop_front().unwrap();
                let before = (self.ep.cwnd(), self.ep.flight_size(), self.ep.snd_una());
                let state_before = self.ep.congestion_state();
                self.ep.handle_segment(self.now, &peer(r(0), ack, 0));
                self.trace.push(Sample {
                    at: self.now,
                    acked: self.ep.snd_una().since(before.2).max(0) as u64,
                    cwnd_before: before.0,
                    flight_before: before.1,
                    cwnd: self.ep.cwnd(),
                    ssthresh: self.ep.ssthresh(),
                    state: self.ep.congestion_state(),
                    state_before,
                    srtt: self.ep.srtt().unwrap(),
                });
            } else {
                self.ep.handle_timeout(self.now);
            }
            self.pump();
        }
    }

    /// Index of the ACK that started fast recovery.
    fn recovery_entry(&self) -> usize {
        self.trace
            .iter()
            .position(|s| s.state == CongestionState::Recovery)
            .expect("a fast recovery")
    }

    /// Index of the first ACK after recovery in congestion avoidance (an
    /// ACK of new data, in the Open state, cwnd at or above ssthresh).
    fn avoidance_start(&self, from: usize) -> usize {
        from + self.trace[from..]
            .iter()
            .position(|s| {
                s.state_before == CongestionState::Open
                    && s.acked > 0
                    && s.cwnd_before >= s.ssthresh
            })
            .expect("congestion avoidance after the loss")
    }
}

/// Slow start before the loss: every ACK of one segment adds one SMSS
/// (RFC 5681 §3.1, cwnd += min(N, SMSS)).
fn assert_slow_start(trace: &[Sample]) {
    for s in trace {
        assert_eq!(s.cwnd, s.cwnd_before + s.acked.min(MSS), "{s:?}");
    }
}

fn secs(d: Dur) -> f64 {
    d.as_secs_f64()
}

#[test]
fn newreno_trace_follows_rfc_5681() {
    let mut sc = Script::new(cc_cfg(CcAlgorithm::NewReno), &[300]);
    sc.run(ms(100) + Dur::from_secs(6));
    let entry = sc.recovery_entry();
    assert_slow_start(&sc.trace[..entry]);
    let e = sc.trace[entry];
    assert_eq!(e.ssthresh, (e.flight_before / 2).max(2 * MSS), "eq. (4)");
    let ca = sc.avoidance_start(entry);
    // Byte counting: one SMSS per cwnd of bytes acknowledged.
    let mut counted = 0;
    for s in &sc.trace[ca..] {
        counted += s.acked;
        let grow = if counted >= s.cwnd_before {
            counted -= s.cwnd_before;
            MSS
        } else {
            0
        };
        assert_eq!(s.cwnd, s.cwnd_before + grow, "{s:?}");
    }
}

/// RFC 9438's per-ACK rule in congestion avoidance, from the sender's
/// state before the ACK: cwnd (bytes) after it.
fn cubic_next(s: &Sample, k: f64, w_max: f64, t: f64, w_est: f64) -> f64 {
    use super::cc::cubic::Cubic;
    let cwnd = s.cwnd_before as f64 / MSS as f64;
    let segs = s.acked as f64 / MSS as f64;
    let segments = if Cubic::w_cubic(k, w_max, t) < w_est {
        w_est
    } else {
        let target = Cubic::w_cubic(k, w_max, t + secs(s.srtt)).clamp(cwnd, 1.5 * cwnd);
        cwnd + segs * (target - cwnd) / cwnd
    };
    segments * MSS as f64
}

#[test]
fn cubic_trace_follows_rfc_9438() {
    use super::cc::cubic::{Cubic, ALPHA, BETA, C};
    let mut sc = Script::new(cc_cfg(CcAlgorithm::Cubic), &[300]);
    sc.run(ms(100) + Dur::from_secs(12));
    // Loss-free: RFC 5681 slow start (RFC 9438 §4.10).
    let entry = sc.recovery_entry();
    assert_slow_start(&sc.trace[..entry]);
    // §4.6: ssthresh = FlightSize·beta; W_max = cwnd_prior = cwnd.
    let e = sc.trace[entry];
    assert_eq!(e.ssthresh, e.flight_before * 7 / 10);
    assert_eq!(BETA, 0.7);
    let w_max = e.cwnd_before as f64 / MSS as f64;
    // §4.2: the epoch starts with congestion avoidance; K from cwnd_epoch.
    let ca = sc.avoidance_start(entry);
    let start = sc.trace[ca];
    let cwnd_epoch = start.cwnd_before as f64 / MSS as f64;
    let k = ((w_max - cwnd_epoch) / C).powf(1.0 / 3.0);
    assert!((Cubic::k(w_max, cwnd_epoch) - k).abs() < 1e-9);
    // ACK by ACK: §4.3's W_est, then the Reno-friendly region or the
    // target W_cubic(t + RTT) (§4.2, §4.4-4.5); cwnd is kept in whole
    // bytes, the fraction carried.
    let mut w_est = cwnd_epoch;
    let mut concave = 0;
    let mut convex = 0;
    for s in &sc.trace[ca..] {
        assert_eq!(s.state, CongestionState::Open, "no other loss");
        let t = secs(s.at.saturating_since(start.at));
        let cwnd = s.cwnd_before as f64 / MSS as f64;
        let alpha = if w_est >= w_max { 1.0 } else { ALPHA };
        w_est += alpha * (s.acked as f64 / MSS as f64) / cwnd;
        let want = cubic_next(s, k, w_max, t, w_est);
        assert!(
            (s.cwnd as f64 - want).abs() < 1.0 + 1e-6 * want,
            "t = {t:.3} s: cwnd {} B, RFC 9438 {want:.2} B",
            s.cwnd
        );
        if t < k {
            concave += 1;
        } else {
            convex += 1;
        }
    }
    assert!(concave > 1000 && convex > 1000, "{concave} {convex}");
    // The window's shape: W_max - cwnd at t = K/2 is C(K/2)^3 (the
    // concave region), cwnd reaches W_max at K and grows beyond it.
    let at = |t: f64| {
        let when = start.at + Dur::from_secs_f64(t);
        let s = sc.trace.iter().find(|s| s.at >= when).unwrap();
        s.cwnd as f64 / MSS as f64
    };
    let half = Cubic::w_cubic(k, w_max, k / 2.0);
    assert!(
        (at(k / 2.0) - half).abs() < 0.02 * w_max,
        "{} {half}",
        at(k / 2.0)
    );
    assert!((at(k) - w_max).abs() < 0.02 * w_max, "{} {w_max}", at(k));
    assert!(at(k + 1.5) > w_max + 0.8 * C * 1.5f64.powi(3));
}

#[test]
fn cubic_fast_convergence_and_timeout() {
    use super::cc::cubic::{Cubic, BETA};
    use super::cc::Window;
    let mut cc = Cubic::new(1, false);
    let smss = 1000;
    // A first loss at 100 segments: W_max = 100.
    let w = Window {
        cwnd: 100_000,
        ssthresh: u64::MAX,
    };
    assert_eq!(cc.ssthresh_on_loss(&w, 100_000, smss), 70_000);
    assert_eq!(cc.w_max(), 100.0);
    // §4.7: a loss below W_max releases bandwidth: W_max = cwnd(1+beta)/2.
    let w = Window {
        cwnd: 80_000,
        ssthresh: 70_000,
    };
    assert_eq!(cc.ssthresh_on_loss(&w, 80_000, smss), 56_000);
    assert!((cc.w_max() - 80.0 * (1.0 + BETA) / 2.0).abs() < 1e-9);
    // §4.8: a timeout sets ssthresh as a loss does and cwnd to one SMSS.
    let mut w = Window {
        cwnd: 90_000,
        ssthresh: 56_000,
    };
    cc.on_rto(&mut w, 90_000, smss, true);
    assert_eq!(w.cwnd, smss);
    assert_eq!(w.ssthresh, 63_000);
}

#[test]
fn cubic_hystart_leaves_slow_start_on_a_delay_increase() {
    // RFC 9406 §4.2: rounds of RTT samples; once a round's minimum RTT
    // exceeds the last one's by RttThresh (here 12.5 ms of 100 ms), CSS
    // grows cwnd at a quarter of the rate, and after five CSS rounds
    // congestion avoidance starts with ssthresh = cwnd.
    let c = Config {
        hystart: true,
        rtt_sampling: super::RttSampling::EveryAck,
        ..cc_cfg(CcAlgorithm::Cubic)
    };
    let mut sc = Script::new(c, &[]);
    sc.run(ms(100) + Dur::from_millis(550));
    let ss_growth = sc.trace.last().unwrap().cwnd;
    assert_eq!(sc.ep.ssthresh(), u64::MAX, "no delay increase: slow start");
    // The queue builds: 20 ms more per round trip from now on.
    sc.rtt = RTT + Dur::from_millis(20);
    let css_from = sc.trace.len();
    sc.run(ms(100) + Dur::from_millis(850));
    let css: Vec<&Sample> = sc.trace[css_from..].iter().collect();
    assert!(css.iter().any(|s| s.cwnd - s.cwnd_before == MSS / 4));
    sc.run(ms(100) + Dur::from_secs(3));
    let ssthresh = sc.ep.ssthresh();
    assert!(ssthresh < u64::MAX && ssthresh > ss_growth, "{ssthresh}");
}

#[test]
fn westwood_plus_trace_follows_its_bandwidth_estimate() {
    let mut sc = Script::new(cc_cfg(CcAlgorithm::Westwood), &[300]);
    sc.run(ms(100) + Dur::from_secs(5));
    let entry = sc.recovery_entry();
    assert_slow_start(&sc.trace[..entry]);
    // The bandwidth estimate from the ACKs before the loss: bytes
    // acknowledged over each interval longer than the RTT (100 ms), two
    // 7/8 filters (Linux's `westwood_filter`).
    let (mut start, mut bytes, mut bw_ns, mut bw) = (None::<Time>, 0u64, 0u64, 0u64);
    for s in sc.trace[..entry].iter().filter(|s| s.acked > 0) {
        let Some(t0) = start else {
            start = Some(s.at);
            bytes = s.acked;
            continue;
        };
        bytes += s.acked;
        let delta = s.at.saturating_since(t0);
        if delta > RTT {
            let sample = (u128::from(bytes) * 1_000_000_000 / u128::from(delta.0)) as u64;
            if bw == 0 {
                (bw_ns, bw) = (sample, sample);
            } else {
                bw_ns = (7 * bw_ns + sample) / 8;
                bw = (7 * bw + bw_ns) / 8;
            }
            bytes = 0;
            start = Some(s.at);
        }
    }
    assert!(bw > 0);
    // ssthresh = BWE·RTT_min (RTT_min 100 ms), not half the flight.
    let e = sc.trace[entry];
    let want = (u128::from(bw) * u128::from(RTT.0) / 1_000_000_000) as u64;
    assert_eq!(e.ssthresh, want.max(2 * MSS));
    assert_ne!(e.ssthresh, e.flight_before / 2);
    // NewReno's recovery (RFC 6582: ssthresh + 3 SMSS), then NewReno's
    // congestion avoidance.
    assert_eq!(e.cwnd, e.ssthresh + 3 * MSS);
    let ca = sc.avoidance_start(entry);
    let mut counted = 0;
    for s in &sc.trace[ca..] {
        counted += s.acked;
        let grow = if counted >= s.cwnd_before {
            counted -= s.cwnd_before;
            MSS
        } else {
            0
        };
        assert_eq!(s.cwnd, s.cwnd_before + grow, "{s:?}");
    }
}

fn vegas_cfg() -> Config {
    Config {
        // A sample per ACK: Vegas decides only on rounds of three or more.
        rtt_sampling: super::RttSampling::EveryAck,
        ..cc_cfg(CcAlgorithm::Vegas)
    }
}

#[test]
fn vegas_leaves_slow_start_and_shrinks_on_a_longer_rtt() {
    use super::cc::vegas::{BETA, GAMMA};
    let mut sc = Script::new(vegas_cfg(), &[]);
    sc.run(ms(350));
    // RTT = BaseRTT: diff = 0, slow start all along.
    assert_slow_start(&sc.trace);
    assert_eq!(sc.ep.ssthresh(), u64::MAX);
    // 25 ms of queue from now on: diff = cwnd·25/100 segments.
    sc.rtt = RTT + Dur::from_millis(25);
    let from = sc.trace.len();
    sc.run(ms(100) + Dur::from_secs(30));
    let exit = from
        + sc.trace[from..]
            .iter()
            .position(|s| s.ssthresh < u64::MAX)
            .unwrap();
    let s = sc.trace[exit];
    // diff > gamma in slow start: cwnd = min(cwnd, target + 1), target =
    // cwnd·BaseRTT/RTT; ssthresh = cwnd - 1 segment.
    let cwnd = s.cwnd_before / MSS;
    assert!(cwnd * 25 / 100 > GAMMA);
    let target = cwnd * 100 / 125;
    assert_eq!(s.cwnd, cwnd.min(target + 1) * MSS);
    assert_eq!(s.ssthresh, s.cwnd - MSS);
    // Congestion avoidance: one segment less per round trip while diff >
    // beta, then steady where diff <= beta: 19 segments (19·25/100 = 4).
    let mut decreases = 0;
    for s in &sc.trace[exit + 1..] {
        if s.cwnd != s.cwnd_before {
            assert_eq!(s.cwnd + MSS, s.cwnd_before, "{s:?}");
            assert!((s.cwnd_before / MSS) * 25 / 100 > BETA);
            decreases += 1;
        }
    }
    assert_eq!(sc.ep.cwnd(), 19 * MSS);
    assert_eq!(decreases, s.cwnd / MSS - 19);
}

#[test]
fn vegas_grows_by_a_segment_per_round_trip_after_a_loss() {
    let mut sc = Script::new(vegas_cfg(), &[300]);
    sc.run(ms(100) + Dur::from_secs(4));
    let entry = sc.recovery_entry();
    assert_slow_start(&sc.trace[..entry]);
    // A loss halves as NewReno does.
    let e = sc.trace[entry];
    assert_eq!(e.ssthresh, (e.flight_before / 2).max(2 * MSS));
    // Then RTT = BaseRTT, diff = 0 < alpha: one segment more per round.
    let ca = sc.avoidance_start(entry);
    let mut grown = Vec::new();
    for s in &sc.trace[ca..] {
        if s.cwnd != s.cwnd_before {
            assert_eq!(s.cwnd, s.cwnd_before + MSS, "{s:?}");
            grown.push(s.at);
        }
    }
    let span = secs(
        sc.trace
            .last()
            .unwrap()
            .at
            .saturating_since(sc.trace[ca].at),
    );
    let rounds = span / secs(RTT);
    assert!(
        (grown.len() as f64 - rounds).abs() <= 2.0,
        "{} {rounds}",
        grown.len()
    );
    for pair in grown.windows(2) {
        assert!(
            pair[1].saturating_since(pair[0]) >= RTT,
            "one per round trip"
        );
    }
}

#[test]
fn vegas_decides_with_the_default_timed_rtt_sampling() {
    // Timed sampling (the default) gives the RTO estimator one sample a
    // round; Vegas gets every ACK's from the transmission log, as Linux's
    // `pkts_acked` does, and decides as with every-ACK sampling.
    let cfg = cc_cfg(CcAlgorithm::Vegas);
    assert_eq!(cfg.rtt_sampling, super::RttSampling::Timed);
    let mut sc = Script::new(cfg, &[]);
    sc.run(ms(350));
    assert_slow_start(&sc.trace);
    sc.rtt = RTT + Dur::from_millis(25);
    sc.run(ms(100) + Dur::from_secs(30));
    assert!(sc.ep.ssthresh() < u64::MAX, "Vegas left slow start");
    // Steady where diff = cwnd·25/100 <= beta, as in
    // `vegas_leaves_slow_start_and_shrinks_on_a_longer_rtt`.
    assert_eq!(sc.ep.cwnd(), 19 * MSS);
}
