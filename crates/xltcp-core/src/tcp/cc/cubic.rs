//! CUBIC (RFC 9438), with HyStart++ (RFC 9406) as an option.
//!
//! Windows are kept in segments (f64) as the RFC writes them; cwnd itself
//! stays in bytes in [`Window`], rounded down, the fraction carried from one
//! ACK to the next. Constants (§5): C = 0.4, beta_cubic = 0.7.
//!
//! - Slow start is RFC 5681's (with `abc_limit`), or HyStart++ when on.
//!   With `Profile::Ns3` it is ns-3's `TcpCubic::IncreaseWindow`: every
//!   whole segment an ACK acknowledges adds one SMSS, without a per-ACK
//!   limit (ns-3's NewReno adds one SMSS per ACK), so the big cumulative
//!   ACK that a timeout's retransmission earns grows cwnd by all of it.
//! - A congestion-avoidance epoch starts with the first ACK outside
//!   recovery at or above ssthresh: t_epoch, cwnd_epoch, W_est = cwnd_epoch
//!   (§4.3) and K = cbrt((W_max - cwnd_epoch)/C) (§4.2, eq. 2); K = 0 and
//!   W_max = cwnd_epoch when there was no reduction yet, or after a
//!   timeout (§4.8).
//! - Each ACK of N segments: target = W_cubic(t + RTT) bounded to
//!   [cwnd, 1.5·cwnd] (§4.2), W_est += alpha_cubic·N/cwnd with alpha_cubic =
//!   3(1-beta)/(1+beta), 1 once W_est reaches cwnd_prior (§4.3); if
//!   W_cubic(t) < W_est cwnd = W_est (Reno-friendly region), else cwnd +=
//!   N·(target - cwnd)/cwnd (concave and convex regions, §4.4-4.5).
//! - A loss (§4.6): cwnd_prior = cwnd, W_max = cwnd, or cwnd·(1+beta)/2
//!   below the last W_max (fast convergence, §4.7); ssthresh =
//!   max(FlightSize·beta, 2 SMSS).
//! - A timeout (§4.8): the same ssthresh, cwnd = 1 SMSS; the next epoch
//!   starts with K = 0.
//! - With `Profile::Ns3`, congestion avoidance and the loss response are
//!   ns-3's `TcpCubic` ([`CubicNs3`]: Linux's `bictcp_update` in whole
//!   segments; ssthresh = max(⌊0.7·cwnd⌋, 2) segments), and on a timeout
//!   inside a NewReno recovery cwnd is ssthresh, ns-3's un-inflated window.
//!
//! The cube root is Newton's method on basic arithmetic, so the result is
//! the same on every platform.

use super::cubic_linux::CubicLinux;
use super::cubic_ns3::CubicNs3;
use super::hystart_classic::ClassicHyStart;
use super::newreno::slow_start;
use super::{AckInfo, Window};
use crate::tcp::config::Profile;
use crate::time::{Dur, Time};
use crate::wire::SeqNum;

/// RFC 9438 §5.1: C, in segments per second cubed.
pub const C: f64 = 0.4;
/// RFC 9438 §5.1: the multiplicative decrease factor.
pub const BETA: f64 = 0.7;
/// RFC 9438 §4.3: alpha_cubic = 3(1 - beta)/(1 + beta).
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// State of the RFC 9438 controller.
#[derive(Clone, Debug)]
pub struct Cubic {
    abc_limit: u32,
    /// W_max in segments; 0 before the first reduction.
    w_max: f64,
    /// cwnd before the last reduction (cwnd_prior), in segments.
    cwnd_prior: f64,
    /// The current epoch: its start, K (seconds) and W_est; `None` until
    /// congestion avoidance starts after a reduction or slow start.
    epoch: Option<Epoch>,
    /// The last reduction was a timeout: the next epoch has K = 0 (§4.8).
    after_rto: bool,
    /// Fractional bytes of cwnd growth not yet added.
    carry: f64,
    /// HyStart++, when on.
    hystart: Option<HyStart>,
    /// ns-3's `TcpCubic` outside slow start and on a loss, for
    /// `Profile::Ns3` ([`CubicNs3`]).
    ns3: Option<CubicNs3>,
    /// Linux's congestion avoidance, for `cubic_variant = "linux"`
    /// ([`CubicLinux`]).
    linux: Option<Box<CubicLinux>>,
}

#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: Time,
    k: f64,
    w_max: f64,
    w_est: f64,
}

impl Cubic {
    /// A controller; `hystart` runs HyStart++ in slow start.
    pub fn new(abc_limit: u32, hystart: bool) -> Cubic {
        Cubic {
            abc_limit,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            after_rto: false,
            carry: 0.0,
            hystart: hystart.then(HyStart::default),
            ns3: None,
            linux: None,
        }
    }

    /// The same controller with Linux's congestion avoidance
    /// (`cubic_variant = "linux"`; the `ns3` profile's rules come first).
    pub fn with_linux(mut self, on: bool) -> Cubic {
        if on && self.ns3.is_none() {
            let mut linux = Box::<CubicLinux>::default();
            // Linux's HyStart is its classic one, in place of HyStart++.
            linux.hystart = self.hystart.take().map(|_| ClassicHyStart::default());
            self.linux = Some(linux);
        }
        self
    }

    /// The same controller following ns-3's `TcpCubic` outside slow start
    /// and on a loss (`Profile::Ns3`).
    pub fn with_ns3(mut self, on: bool) -> Cubic {
        if on {
            // ns-3's HyStart is its classic one, in place of HyStart++.
            let hystart = self.hystart.take().map(|_| ClassicHyStart::default());
            let mut ns3 = CubicNs3::default();
            ns3.hystart = hystart;
            self.ns3 = Some(ns3);
        }
        self
    }

    /// W_cubic(t) (eq. 1), in segments, for the current epoch.
    pub fn w_cubic(k: f64, w_max: f64, t: f64) -> f64 {
        let d = t - k;
        C * d * d * d + w_max
    }

    /// K (eq. 2): cbrt((W_max - cwnd_epoch)/C), 0 when cwnd_epoch >= W_max.
    pub fn k(w_max: f64, cwnd_epoch: f64) -> f64 {
        if w_max <= cwnd_epoch {
            0.0
        } else {
            cbrt((w_max - cwnd_epoch) / C)
        }
    }

    /// Whether it follows ns-3's `TcpCubic` (`Profile::Ns3`).
    pub fn follows_ns3(&self) -> bool {
        self.ns3.is_some()
    }

    /// Whether HyStart++ is on (it needs an RTT sample on every ACK).
    pub fn has_hystart(&self) -> bool {
        self.hystart.is_some()
            || self.ns3.as_ref().is_some_and(|n| n.hystart.is_some())
            || self.linux.as_ref().is_some_and(|l| l.hystart.is_some())
    }

    /// W_max of the current epoch, in segments (0 before the first).
    pub fn w_max(&self) -> f64 {
        if let Some(n) = &self.ns3 {
            return f64::from(n.last_max);
        }
        if let Some(l) = &self.linux {
            return f64::from(l.last_max);
        }
        self.epoch.map_or(self.w_max, |e| e.w_max)
    }

    pub(crate) fn on_sample(&mut self, w: &mut Window, ack: &AckInfo, smss: u64) {
        // ns-3 3.44 hands `PktsAcked` the smoothed RTT, not the sample.
        if let (Some(n), Some(srtt)) = (&mut self.ns3, ack.srtt) {
            let cwnd = ns3_cwnd(w, ack);
            n.sample(w, cwnd, ack.now, srtt, smss);
        }
        if let Some(l) = &mut self.linux {
            l.sample(w, ack, smss);
        }
        if let Some(h) = &mut self.hystart {
            if w.cwnd < w.ssthresh {
                h.on_sample(ack);
            }
        }
    }

    /// A duplicate ACK: ns-3 calls `PktsAcked` for it too (one segment,
    /// the smoothed RTT).
    pub(crate) fn on_dupack(&mut self, w: &mut Window, ack: &AckInfo, smss: u64) {
        if let (Some(n), Some(srtt)) = (&mut self.ns3, ack.srtt) {
            let cwnd = ns3_cwnd(w, ack);
            n.sample(w, cwnd, ack.now, srtt, smss);
        }
    }

    /// After a timeout: ns-3's `CubicReset` and `HystartReset`.
    pub(crate) fn after_rto(&mut self, now: Time, snd_max: SeqNum) {
        if let Some(n) = &mut self.ns3 {
            n.reset(now, snd_max);
        }
        // Linux (`cubictcp_state` entering `TCP_CA_Loss`).
        if let Some(l) = &mut self.linux {
            l.reset(now, snd_max);
        }
    }

    pub(crate) fn on_ack(&mut self, w: &mut Window, ack: &AckInfo, smss: u64, profile: Profile) {
        if ack.acked == 0 {
            return;
        }
        if let Some(n) = &mut self.ns3 {
            // ns-3 (`TcpCubic::IncreaseWindow`): in slow start cwnd +=
            // segmentsAcked SMSS and nothing of the ACK is left for
            // avoidance; its classic HyStart starts a round here and ends
            // slow start on an RTT sample (`on_sample`).
            let segs = n.segments(ack.acked, smss);
            if w.cwnd < w.ssthresh {
                let snd_max = ack.una + ack.in_flight as u32;
                n.slow_start_ack(ack.now, ack.una, snd_max);
                w.cwnd += u64::from(segs) * smss;
                return;
            }
            n.avoid(w, ack.now, segs, smss);
            return;
        }
        let mut acked = ack.acked;
        if w.cwnd < w.ssthresh {
            self.epoch = None;
            // HyStart++ runs in the first slow start only (RFC 9406 §4.2).
            acked = match &mut self.hystart {
                Some(h) if !h.done => h.slow_start(w, acked, smss),
                // ns-3 (`TcpCubic::IncreaseWindow`): cwnd += segmentsAcked
                // SMSS, and nothing of the ACK is left for avoidance.
                _ if profile == Profile::Ns3 => {
                    w.cwnd += acked / smss * smss;
                    0
                }
                _ => slow_start(w, acked, smss, profile, self.abc_limit),
            };
            if acked == 0 {
                return;
            }
        }
        if let Some(l) = &mut self.linux {
            l.avoid(w, ack.now, acked, smss);
            return;
        }
        self.avoid(w, ack, acked, smss);
    }

    /// RFC 9438 §4.2-4.5: congestion avoidance for `acked` bytes.
    fn avoid(&mut self, w: &mut Window, ack: &AckInfo, acked: u64, smss: u64) {
        let mss = smss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let e = match &mut self.epoch {
            Some(e) => e,
            None => {
                // A new epoch (§4.2; §4.8 after a timeout or slow start).
                let fresh = self.w_max <= 0.0 || self.after_rto;
                let w_max = if fresh { cwnd } else { self.w_max };
                self.after_rto = false;
                self.carry = 0.0;
                self.epoch.insert(Epoch {
                    start: ack.now,
                    k: Cubic::k(w_max, cwnd),
                    w_max,
                    w_est: cwnd,
                })
            }
        };
        let segs = acked as f64 / mss;
        let t = ack.now.saturating_since(e.start).as_secs_f64();
        let rtt = ack.srtt.or(ack.rtt).unwrap_or(Dur::ZERO).as_secs_f64();
        // §4.3: alpha_cubic until W_est reaches cwnd_prior, then 1.
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA
        };
        e.w_est += alpha * segs / cwnd;
        let new = if Cubic::w_cubic(e.k, e.w_max, t) < e.w_est {
            // Reno-friendly region.
            e.w_est
        } else {
            // §4.2: the target one RTT ahead, within [cwnd, 1.5 cwnd].
            let target = Cubic::w_cubic(e.k, e.w_max, t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + segs * (target - cwnd) / cwnd
        };
        let bytes = new * mss + self.carry;
        let whole = bytes.floor();
        self.carry = bytes - whole;
        // Congestion avoidance never shrinks cwnd.
        w.cwnd = w.cwnd.max(whole as u64);
    }

    /// §4.6-4.7: a loss; returns ssthresh.
    pub(crate) fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, smss: u64) -> u64 {
        if let Some(n) = &mut self.ns3 {
            if let Some(h) = &mut self.hystart {
                h.on_loss();
            }
            return n.on_loss(w.cwnd, smss);
        }
        let linux = self.linux.as_mut().map(|l| l.on_loss(w.cwnd, flight, smss));
        let cwnd = w.cwnd as f64 / smss as f64;
        // §4.7 fast convergence: below the last W_max, release bandwidth.
        let last = self.w_max();
        self.w_max = if cwnd < last {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_rto = false;
        if let Some(h) = &mut self.hystart {
            h.on_loss();
        }
        if let Some(ssthresh) = linux {
            return ssthresh;
        }
        // beta_cubic = 7/10, in integers.
        (flight * 7 / 10).max(2 * smss)
    }

    /// §4.8: a timeout.
    pub(crate) fn on_rto(&mut self, w: &mut Window, flight: u64, smss: u64, first: bool) {
        if first {
            let ssthresh = self.ssthresh_on_loss(w, flight, smss);
            w.ssthresh = ssthresh;
        }
        self.epoch = None;
        // (ns-3's rules keep W_last_max through a timeout instead, so their
        // next epoch aims back at it: `CubicNs3`.)
        self.after_rto = true;
        w.cwnd = smss;
    }
}

/// ns-3's cwnd: in a NewReno fast recovery ssthresh (xltcp's cwnd there is
/// inflated by the dupACKs), else cwnd.
fn ns3_cwnd(w: &Window, ack: &AckInfo) -> u64 {
    if ack.fast_recovery {
        w.ssthresh
    } else {
        w.cwnd
    }
}

/// The cube root of `x` >= 0 by Newton's method (platform-independent).
pub fn cbrt(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let mut y = if x > 1.0 { x / 3.0 } else { 1.0 };
    for _ in 0..200 {
        let next = (2.0 * y + x / (y * y)) / 3.0;
        if (next - y).abs() <= 1e-12 * y {
            return next;
        }
        y = next;
    }
    y
}

/// RFC 9406 constants (§4.3).
const MIN_RTT_THRESH: Dur = Dur(4_000_000);
const MAX_RTT_THRESH: Dur = Dur(16_000_000);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;
/// L for a sender that does not pace (§4.3).
const L: u64 = 8;

/// HyStart++ (RFC 9406 §4.2) state: rounds, their minimum RTTs and
/// Conservative Slow Start (CSS).
#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// The end of the current round (SND.NXT when it began).
    window_end: Option<SeqNum>,
    last_round_min: Option<Dur>,
    current_round_min: Option<Dur>,
    samples: u32,
    /// In CSS: its baseline minimum RTT and the rounds spent in it.
    css: Option<(Dur, u32)>,
    /// HyStart++ is over (a loss, or CSS ran its rounds).
    done: bool,
}

impl HyStart {
    /// Rounds and RTT samples (§4.2), and the decisions at a round's end.
    fn on_sample(&mut self, ack: &AckInfo) {
        if self.done {
            return;
        }
        if self.window_end.is_none_or(|end| ack.una >= end) {
            // A new round.
            self.window_end = Some(ack.nxt);
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            if let Some((_, rounds)) = &mut self.css {
                *rounds += 1;
            }
        }
        if let Some(r) = ack.rtt {
            self.current_round_min = Some(self.current_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        let (Some(cur), Some(last)) = (self.current_round_min, self.last_round_min) else {
            return;
        };
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        match self.css {
            None => {
                // RttThresh = max(MIN, min(lastRoundMinRTT/8, MAX)).
                let thresh = Dur(last.0 / MIN_RTT_DIVISOR)
                    .min(MAX_RTT_THRESH)
                    .max(MIN_RTT_THRESH);
                if cur >= last + thresh {
                    self.css = Some((cur, 0));
                }
            }
            Some((baseline, _)) if cur < baseline => {
                // The delay increase was spurious: back to slow start.
                self.css = None;
            }
            Some(_) => {}
        }
    }

    /// Slow start growth for `acked` bytes; returns what is left for
    /// congestion avoidance (all of it once CSS ran its rounds).
    fn slow_start(&mut self, w: &mut Window, acked: u64, smss: u64) -> u64 {
        let inc = acked.min(L * smss);
        match self.css {
            Some((_, rounds)) if rounds >= CSS_ROUNDS => {
                // §4.2: enter congestion avoidance, ssthresh = cwnd.
                w.ssthresh = w.cwnd;
                self.css = None;
                self.done = true;
                acked
            }
            Some(_) => {
                w.cwnd += inc / CSS_GROWTH_DIVISOR;
                0
            }
            None => {
                w.cwnd += inc;
                0
            }
        }
    }

    fn on_loss(&mut self) {
        self.css = None;
        self.done = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_root_and_k() {
        for x in [0.001, 1.0, 8.0, 27.0, 30.0, 1e6] {
            let y = cbrt(x);
            assert!((y * y * y - x).abs() < 1e-9 * x.max(1.0), "{x}");
        }
        // K = cbrt(W_max(1 - beta)/C) when cwnd_epoch = beta·W_max.
        let k = Cubic::k(100.0, 70.0);
        assert!((k - (100.0 * 0.3 / 0.4f64).powf(1.0 / 3.0)).abs() < 1e-9);
        assert!((Cubic::w_cubic(k, 100.0, 0.0) - 70.0).abs() < 1e-9);
        assert_eq!(Cubic::w_cubic(k, 100.0, k), 100.0);
        assert!((ALPHA - 0.9 / 1.7).abs() < 1e-12);
    }

    fn ack_of(acked: u64) -> AckInfo {
        AckInfo {
            now: Time(1_000_000_000),
            acked,
            rtt: None,
            srtt: Some(Dur(25_000_000)),
            una: SeqNum(acked as u32),
            nxt: SeqNum(acked as u32),
            in_flight: 0,
            fast_recovery: false,
        }
    }

    #[test]
    fn ns3_slow_start_adds_every_acknowledged_segment() {
        // After a timeout (cwnd 1 SMSS, ssthresh 4), the retransmission's
        // ACK covers 200 segments the receiver held: ns-3's TcpCubic adds
        // them all, RFC 5681 one SMSS.
        let smss = 1448;
        let after_rto = Window {
            cwnd: smss,
            ssthresh: 4 * smss,
        };
        let mut w = after_rto;
        Cubic::new(1, false).on_ack(&mut w, &ack_of(200 * smss + 100), smss, Profile::Ns3);
        assert_eq!(w.cwnd, 201 * smss);
        let mut w = after_rto;
        Cubic::new(1, false).on_ack(&mut w, &ack_of(200 * smss), smss, Profile::Rfc);
        assert_eq!(w.cwnd, 2 * smss);
        // Less than a segment adds nothing in ns-3.
        let mut w = after_rto;
        Cubic::new(1, false).on_ack(&mut w, &ack_of(smss - 1), smss, Profile::Ns3);
        assert_eq!(w.cwnd, smss);
    }
}

#[cfg(test)]
mod tests_ns3 {
    use super::*;

    /// ns-3's `TcpCubic::GetSsThresh`: ssthresh and W_max from cwnd in whole
    /// segments, whatever FlightSize is; RFC 9438 from FlightSize.
    #[test]
    fn ns3_loss_takes_whole_segments_of_cwnd() {
        let smss = 1000;
        // 23.6 segments of cwnd, 30 in flight (Limited Transmit and dupACKs).
        let w = Window {
            cwnd: 23_600,
            ssthresh: u64::MAX,
        };
        let mut ns3 = Cubic::new(1, false).with_ns3(true);
        assert_eq!(ns3.ssthresh_on_loss(&w, 30_000, smss), 16 * smss);
        assert_eq!(ns3.w_max(), 23.0);
        // Fast convergence below the last W_max: ⌊20·1.7/2⌋ = 17 segments.
        let w2 = Window {
            cwnd: 20_900,
            ssthresh: 16_000,
        };
        assert_eq!(ns3.ssthresh_on_loss(&w2, 20_900, smss), 14 * smss);
        assert_eq!(ns3.w_max(), 17.0);
        let mut rfc = Cubic::new(1, false);
        assert_eq!(rfc.ssthresh_on_loss(&w, 30_000, smss), 21_000);
        assert!((rfc.w_max() - 23.6).abs() < 1e-12);
        // The floor of two segments.
        let tiny = Window {
            cwnd: 2_500,
            ssthresh: u64::MAX,
        };
        assert_eq!(
            Cubic::new(1, false)
                .with_ns3(true)
                .ssthresh_on_loss(&tiny, 2_500, smss),
            2 * smss
        );
    }
}

#[cfg(test)]
mod tests_linux {
    use super::*;

    /// `cubic_variant = "linux"` (`bictcp_recalc_ssthresh`): ssthresh is
    /// ⌊717/1024 of its base⌋ in whole segments, where RFC 9438 keeps 0.7 of
    /// the bytes; the next epoch grows from there by Linux's rules, so an
    /// ACK's growth comes in whole segments.
    #[test]
    fn linux_loss_and_growth_come_in_whole_segments() {
        let smss = 1000;
        let w = Window {
            cwnd: 10_900,
            ssthresh: u64::MAX,
        };
        let mut linux = Cubic::new(1, false).with_linux(true);
        // FlightSize 10.9 segments: RFC 9438 7.63 of them, Linux 7.
        assert_eq!(linux.ssthresh_on_loss(&w, 10_900, smss), 7 * smss);
        assert_eq!(linux.w_max(), 10.0);
        assert_eq!(
            Cubic::new(1, false).ssthresh_on_loss(&w, 10_900, smss),
            7_630
        );
        // Avoidance at cwnd = ssthresh: a segment of growth or none per ACK.
        let mut after = Window {
            cwnd: 7 * smss,
            ssthresh: 7 * smss,
        };
        let mut ack = AckInfo {
            now: Time(0),
            acked: 2 * smss,
            rtt: Some(Dur(25_000_000)),
            srtt: Some(Dur(25_000_000)),
            una: SeqNum(0),
            nxt: SeqNum(0),
            in_flight: 0,
            fast_recovery: false,
        };
        for i in 0..40u64 {
            ack.now = Time(i * 6_000_000);
            linux.on_sample(&mut after, &ack, smss);
            linux.on_ack(&mut after, &ack, smss, Profile::Rfc);
            assert_eq!(after.cwnd % smss, 0, "whole segments: {}", after.cwnd);
        }
        assert!(after.cwnd > 7 * smss);
        // The ns-3 profile's rules come first.
        assert!(Cubic::new(1, false)
            .with_ns3(true)
            .with_linux(true)
            .linux
            .is_none());
    }
}
