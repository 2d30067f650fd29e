//! Linux's CUBIC congestion avoidance (`net/ipv4/tcp_cubic.c`), for
//! `tcp.cubic_variant = "linux"`: `bictcp_update` and
//! `tcp_cong_avoid_ai` in whole segments, where RFC 9438 writes a
//! per-ACK formula in real numbers, and with `tcp.hystart = true` Linux's
//! classic HyStart in place of HyStart++. Slow start's growth stays with
//! `abc_limit`, and `ssthresh_from` says whether a loss takes β of cwnd
//! (Linux) or of FlightSize.
//!
//! - An epoch starts on the first avoidance ACK after a reduction: the
//!   Reno estimate `tcp_cwnd` = cwnd, the ACK's segments counted; K =
//!   ((W_last_max − cwnd)/C)^(1/3) and origin W_last_max, or K = 0 and
//!   origin cwnd at or above W_last_max.
//! - Each ACK of N segments (`bictcp_update`): the count of segments
//!   acknowledged grows by N; while cwnd is unchanged the rest is left
//!   alone for 1/32 s. Else t = now + delay_min − epoch start; target =
//!   origin ± ⌊C·|t − K|³⌋; cnt = ⌊cwnd/(target − cwnd)⌋, or 100·cwnd at
//!   or above the target; at most 20 before the first loss. The Reno
//!   estimate grows one segment per ⌊15·cwnd/8⌋ segments acknowledged
//!   (alpha = 3(1 − β)/(1 + β) throughout: RFC 9438 §4.3's switch to 1
//!   once the estimate reaches cwnd_prior is not Linux's), and caps cnt at
//!   ⌊cwnd/(estimate − cwnd)⌋ when above cwnd; cnt >= 2.
//! - `tcp_cong_avoid_ai`: credit accumulated beyond cnt adds one segment
//!   and is dropped; then the ACK's N segments are credited and cwnd grows
//!   by ⌊credit/cnt⌋. The estimate restarts from cwnd with every epoch, so
//!   a reduction's first round trips grow cwnd only as far as the cubic
//!   target reaches, where RFC 9438's W_est has grown from the start.
//! - delay_min (`cubictcp_acked`): the least RTT sample, samples within
//!   1 s of an epoch's start left out.
//! - A loss (`bictcp_recalc_ssthresh`): W_last_max = cwnd, or
//!   ⌊cwnd·(1 + β)/2⌋ below the last one (fast convergence); ssthresh =
//!   max(⌊β·cwnd⌋, 2) whole segments, β = 717/1024 (of FlightSize with
//!   `ssthresh_from = "flight_size"`); the epoch ends and the credit is
//!   cleared (`tcp_init_cwnd_reduction`). A timeout clears everything
//!   (`bictcp_reset` on entering `TCP_CA_Loss`).
//! - HyStart (`hystart_update`, in slow start from 16 segments, once until
//!   the next timeout; rounds end when SND.UNA passes the SND.NXT of the
//!   round's start): an ACK train (ACKs within 2 ms of each other lasting
//!   more than (delay_min + 1 ms)/2 since the round began) or a delay
//!   increase (the least RTT of the round's first 8 samples above
//!   delay_min + clamp(delay_min/8, 4 ms, 16 ms)) ends slow start at once
//!   with ssthresh = cwnd, where RFC 9406's HyStart++ compares with the
//!   previous round's least RTT and runs Conservative Slow Start first.

use super::hystart_classic::ClassicHyStart;
use super::{AckInfo, Window};
use crate::time::{Dur, Time};
use crate::wire::SeqNum;

/// C (Linux's `bic_scale` 41/1024 · 10, RFC 9438's 0.4).
const C: f64 = 0.4;
/// β = 717/1024 (`beta`).
const BETA_NUM: u32 = 717;
const BETA_SCALE: u32 = 1024;
/// `beta_scale` = 8·(1024 + 717)/3/(1024 − 717) = 15: the Reno estimate
/// grows one segment per ⌊15·cwnd/8⌋ segments acknowledged.
const RENO_SCALE: u32 = 8 * (BETA_SCALE + BETA_NUM) / 3 / (BETA_SCALE - BETA_NUM);
/// cnt is recomputed at most every HZ/32 while cwnd is unchanged.
const RECOMPUTE: Dur = Dur(31_250_000);
/// Samples this soon after an epoch's start are left out of delay_min.
const DELAY_MIN_HOLD: Dur = Dur(1_000_000_000);
/// cnt before the first loss is at most this (5% growth per RTT).
const CNT_CLAMP: u32 = 20;
/// Linux's CUBIC state outside slow start.
#[derive(Clone, Debug, Default)]
pub struct CubicLinux {
    epoch_start: Option<Time>,
    /// cwnd (segments) and time of the last recomputation of cnt.
    last: Option<(u32, Time)>,
    /// Segments acknowledged towards the Reno estimate's next step.
    ack_cnt: u32,
    /// The Reno estimate, in segments.
    tcp_cwnd: u32,
    k: f64,
    origin: u32,
    /// Segments to acknowledge per segment of growth.
    cnt: u32,
    delay_min: Option<Dur>,
    /// `snd_cwnd_cnt`: segments credited towards the next growth.
    credit: u32,
    /// W_last_max, in segments (0 before the first loss or after a timeout).
    pub(crate) last_max: u32,
    /// Bytes acknowledged short of a whole segment.
    carry: u64,
    /// Linux's classic HyStart, with `tcp.hystart = true`.
    pub(crate) hystart: Option<ClassicHyStart>,
}

impl CubicLinux {
    /// `cubictcp_acked`: an ACK's RTT sample, for delay_min and, in slow
    /// start, HyStart (which sets ssthresh = cwnd when it ends it).
    pub fn sample(&mut self, w: &mut Window, ack: &AckInfo, smss: u64) {
        let Some(rtt) = ack.rtt else { return };
        let now = ack.now;
        if self
            .epoch_start
            .is_some_and(|s| now.saturating_since(s) < DELAY_MIN_HOLD)
        {
            return;
        }
        if self.delay_min.is_none_or(|d| d > rtt) {
            self.delay_min = Some(rtt);
        }
        let delay_min = self.delay_min.unwrap_or(rtt);
        if let Some(h) = &mut self.hystart {
            if !h.found && w.cwnd < w.ssthresh && h.update_linux(ack, w.cwnd / smss, rtt, delay_min)
            {
                w.ssthresh = w.cwnd;
            }
        }
    }

    /// `cubictcp_cong_avoid` above ssthresh: `acked` bytes acknowledged.
    pub fn avoid(&mut self, w: &mut Window, now: Time, acked: u64, smss: u64) {
        let all = acked + self.carry;
        self.carry = all % smss;
        let segs = (all / smss) as u32;
        if segs == 0 {
            return;
        }
        let cwnd = (w.cwnd / smss).max(1) as u32;
        self.update(now, cwnd, segs);
        // `tcp_cong_avoid_ai(tp, cnt, acked)`.
        let cnt = self.cnt;
        let mut grow = 0u64;
        if self.credit >= cnt {
            self.credit = 0;
            grow += 1;
        }
        self.credit += segs;
        if self.credit >= cnt {
            let delta = self.credit / cnt;
            self.credit -= delta * cnt;
            grow += u64::from(delta);
        }
        w.cwnd += grow * smss;
    }

    /// `bictcp_update`: sets cnt for `cwnd` segments and `segs` acknowledged.
    fn update(&mut self, now: Time, cwnd: u32, segs: u32) {
        self.ack_cnt = self.ack_cnt.saturating_add(segs);
        if self
            .last
            .is_some_and(|(c, t)| c == cwnd && now.saturating_since(t) <= RECOMPUTE)
        {
            return;
        }
        self.last = Some((cwnd, now));
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = segs;
                self.tcp_cwnd = cwnd;
                if self.last_max <= cwnd {
                    self.k = 0.0;
                    self.origin = cwnd;
                } else {
                    self.k = super::cubic::cbrt(f64::from(self.last_max - cwnd) / C);
                    self.origin = self.last_max;
                }
                now
            }
        };
        let delay_min = self.delay_min.unwrap_or(Dur::ZERO);
        let t = (now + delay_min).saturating_since(start).as_secs_f64();
        let offs = (t - self.k).abs();
        let delta = (C * offs * offs * offs) as u32;
        let target = if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin.saturating_add(delta)
        };
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            cwnd.saturating_mul(100)
        };
        if self.last_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        // TCP friendliness: the Reno estimate.
        let per = ((cwnd * RENO_SCALE) >> 3).max(1);
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            cnt = cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        self.cnt = cnt.max(2);
    }

    /// `bictcp_recalc_ssthresh`: a loss at `cwnd` bytes; returns ssthresh,
    /// max(⌊β·base⌋, 2) whole segments of `base` (cwnd in Linux; what
    /// `ssthresh_from` gives).
    pub fn on_loss(&mut self, cwnd: u64, base: u64, smss: u64) -> u64 {
        let seg = (cwnd / smss) as u32;
        self.last_max = if seg < self.last_max {
            seg * (BETA_SCALE + BETA_NUM) / (2 * BETA_SCALE)
        } else {
            seg
        };
        self.epoch_start = None;
        self.credit = 0;
        let base = base / smss;
        (base * u64::from(BETA_NUM) / u64::from(BETA_SCALE)).max(2) * smss
    }

    /// `bictcp_reset` and `bictcp_hystart_reset`, on a timeout: HyStart
    /// runs again in the next slow start, its round ending at `snd_max`.
    pub fn reset(&mut self, now: Time, snd_max: SeqNum) {
        let hystart = self.hystart.is_some();
        *self = CubicLinux::default();
        if hystart {
            let mut h = ClassicHyStart::default();
            h.reset(now, snd_max);
            self.hystart = Some(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(segs: u64) -> Window {
        Window {
            cwnd: segs * 1000,
            ssthresh: 1000,
        }
    }

    /// One round trip: `cwnd` segments acknowledged two at a time (a
    /// delayed ACK each), spread over `rtt`.
    fn ack(now: Time, rtt: Dur) -> AckInfo {
        AckInfo {
            now,
            acked: 2000,
            rtt: Some(rtt),
            srtt: Some(rtt),
            una: SeqNum(0),
            nxt: SeqNum(0),
            in_flight: 0,
            fast_recovery: false,
        }
    }

    fn round(c: &mut CubicLinux, w: &mut Window, start: Time, rtt: Dur) {
        let acks = w.cwnd / 2000;
        for i in 1..=acks {
            let now = start + Dur(rtt.0 * i / acks);
            c.sample(w, &ack(now, rtt), 1000);
            c.avoid(w, now, 2000, 1000);
        }
    }

    /// After a loss at 10 segments (below the last W_max of 12: fast
    /// convergence makes it 8), cwnd 7: the cubic target reaches 8 within
    /// two round trips, and the Reno estimate, restarted from 7 with the
    /// epoch, adds one segment per ⌊15·cwnd/8⌋ segments acknowledged, so
    /// cwnd stays at 8 until the estimate passes it. RFC 9438's rule would
    /// have grown cwnd by alpha = 0.53 a round trip from the start.
    #[test]
    fn the_reno_estimate_restarts_with_each_epoch() {
        let mut c = CubicLinux::default();
        c.on_loss(12_000, 12_000, 1000);
        // ⌊10·717/1024⌋ = 7 segments.
        assert_eq!(c.on_loss(10_000, 10_500, 1000), 7000);
        assert_eq!(c.last_max, 8);
        let mut w = window(7);
        let rtt = Dur::from_millis(25);
        let mut seen = Vec::new();
        for r in 0..12u64 {
            round(&mut c, &mut w, Time(r * rtt.0), rtt);
            seen.push(w.cwnd / 1000);
        }
        assert_eq!(&seen[1..4], &[8, 8, 8], "{seen:?}");
        // Five segments in twelve round trips (RFC 9438 §4.3's W_est:
        // 7 + 12·0.53, six or more).
        assert_eq!(seen[11], 12, "{seen:?}");
        // The estimate grows by alpha throughout: no switch to one.
        let mut long = window(20);
        let mut c = CubicLinux {
            last_max: 20,
            ..CubicLinux::default()
        };
        for r in 0..40u64 {
            round(&mut c, &mut long, Time(r * rtt.0), rtt);
        }
        let per_rtt = (long.cwnd / 1000 - 20) as f64 / 40.0;
        assert!((0.45..0.56).contains(&per_rtt), "{per_rtt}");
    }

    /// Credit beyond cnt adds one segment and is dropped
    /// (`tcp_cong_avoid_ai`); a loss clears it and ends the epoch; a
    /// timeout forgets W_last_max and delay_min.
    #[test]
    fn credit_loss_and_timeout() {
        let mut c = CubicLinux {
            cnt: 4,
            credit: 9,
            epoch_start: Some(Time(0)),
            last: Some((10, Time(0))),
            last_max: 10,
            ..CubicLinux::default()
        };
        let mut w = window(10);
        // Within 1/32 s and cwnd unchanged: cnt stays 4.
        c.avoid(&mut w, Time(1_000_000), 2000, 1000);
        assert_eq!(w.cwnd, 11_000);
        assert_eq!(c.credit, 2);
        // At least two segments.
        assert_eq!(c.on_loss(11_000, 2_900, 1000), 2000);
        assert_eq!((c.credit, c.epoch_start, c.last_max), (0, None, 11));
        c.sample(
            &mut w,
            &ack(Time(2_000_000_000), Dur::from_millis(20)),
            1000,
        );
        assert_eq!(c.delay_min, Some(Dur::from_millis(20)));
        c.reset(Time(0), SeqNum(0));
        assert_eq!((c.last_max, c.delay_min), (0, None));
    }

    /// Samples within a second of an epoch's start are left out of delay_min.
    #[test]
    fn delay_min_skips_the_first_second_of_an_epoch() {
        let mut c = CubicLinux::default();
        let mut w = window(10);
        c.avoid(&mut w, Time(0), 2000, 1000);
        let rtt = Dur::from_millis(30);
        c.sample(&mut w, &ack(Time(500_000_000), rtt), 1000);
        assert_eq!(c.delay_min, None);
        c.sample(&mut w, &ack(Time(1_000_000_000), rtt), 1000);
        assert_eq!(c.delay_min, Some(rtt));
    }

    /// Linux's classic HyStart ends slow start with ssthresh = cwnd once a
    /// round's least RTT (over its first 8 samples) exceeds delay_min by
    /// clamp(delay_min/8, 4 ms, 16 ms), at once and not from below 16
    /// segments; HyStart++ would run Conservative Slow Start instead.
    /// ACKs 2.5 ms apart make no train. A timeout lets it run again.
    #[test]
    fn hystart_ends_slow_start_on_a_delay_increase() {
        let base = Dur::from_millis(20);
        let mut c = CubicLinux {
            hystart: Some(ClassicHyStart::default()),
            ..CubicLinux::default()
        };
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
        };
        let mut t = 0u64;
        let mut una = 0u32;
        let mut ended = None;
        // Rounds of cwnd/2 ACKs 2.5 ms apart, each ACK two segments; the
        // RTT grows by 1 ms a round (a queue building), from 20 ms.
        for round in 0..12u32 {
            let rtt = base + Dur::from_millis(u64::from(round));
            let nxt = una + (w.cwnd as u32);
            for _ in 0..w.cwnd / 2000 {
                t += 2_500_000;
                una += 2000;
                let a = AckInfo {
                    una: SeqNum(una),
                    nxt: SeqNum(nxt),
                    ..ack(Time(t), rtt)
                };
                c.sample(&mut w, &a, 1000);
                if w.ssthresh != u64::MAX {
                    ended.get_or_insert((round, w.cwnd));
                    break;
                }
                w.cwnd += 2000;
            }
            if ended.is_some() {
                break;
            }
        }
        // 25 ms > 20 + 4 ms first in round 5, after its first 8 samples.
        let (round, cwnd) = ended.expect("HyStart ended slow start");
        assert_eq!(round, 5);
        assert_eq!(w.ssthresh, cwnd);
        // Ended once: no second exit until a timeout.
        assert!(c.hystart.as_ref().is_some_and(|h| h.found));
        c.reset(Time(t), SeqNum(una));
        assert!(c.hystart.as_ref().is_some_and(|h| !h.found));
        // Below 16 segments nothing is tested.
        let mut small = CubicLinux {
            hystart: Some(ClassicHyStart::default()),
            ..CubicLinux::default()
        };
        let mut w = Window {
            cwnd: 15_000,
            ssthresh: u64::MAX,
        };
        for i in 1..=40u64 {
            let rtt = base + Dur::from_millis(i);
            small.sample(&mut w, &ack(Time(i * 2_500_000), rtt), 1000);
        }
        assert_eq!(w.ssthresh, u64::MAX);
    }
}
