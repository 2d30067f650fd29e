//! ns-3 3.44's `TcpCubic` outside slow start, for `Profile::Ns3`: Linux's
//! `bictcp_update` in whole segments, which is not RFC 9438's per-ACK
//! formula. Paired runs against ns-3 (the same packets lost) part at the
//! first ACK where the two grow cwnd differently, so the profile follows it
//! step for step:
//!
//! - An epoch starts on the first avoidance ACK after a reduction: K =
//!   ((W_last_max − cwnd)/C)^(1/3) and origin W_last_max, or K = 0 and origin
//!   cwnd when cwnd is at or above W_last_max (segments, integers).
//! - Each ACK: t = now + delay_min − epoch start (delay_min the least
//!   smoothed RTT seen at an ACK since the last timeout, duplicate ACKs
//!   included, as ns-3 3.44 hands `PktsAcked` its srtt; values within 10 ms
//!   of an epoch's start left out); target = origin ± ⌊C·|t − K|³⌋; cnt = ⌊cwnd/(target − cwnd)⌋,
//!   or 100·cwnd at or above the target; at most 20 before the first loss;
//!   the Reno-friendly estimate (one segment per ⌊cwnd·15/8⌋ segments
//!   acknowledged) caps cnt at ⌊cwnd/(estimate − cwnd)⌋; cnt >= 2.
//! - cwnd grows by one segment once the segments acknowledged since the last
//!   growth reach cnt (`m_cWndCnt`), at most one per ACK.
//! - A loss: W_last_max = cwnd, or ⌊cwnd·(1+β)/2⌋ below the last one (fast
//!   convergence); ssthresh = max(⌊β·cwnd⌋, 2) segments; the epoch ends. A
//!   timeout also clears the epoch's origin, K, the estimate and delay_min
//!   (`CubicReset`) but keeps W_last_max, so the next epoch aims back at it.
//!
//! - HyStart (`tcp.hystart = true`) is ns-3's classic one, not HyStart++:
//!   from 16 segments of cwnd while cwnd <= ssthresh, each smoothed RTT
//!   handed to `PktsAcked` tests an ACK train (ACKs within 2 ms of each
//!   other spanning more than delay_min since the round began) and a delay
//!   increase (the least of a round's first 8 values above delay_min plus
//!   delay_min clamped to [4 ms, 1 s]); either ends slow start with
//!   ssthresh = cwnd, once until the next timeout.
//!
//! The powers are the C library's `pow`, as ns-3 computes them.

use super::hystart_classic::{ClassicHyStart, LOW_WINDOW};
use super::Window;
use crate::time::{Dur, Time};
use crate::wire::SeqNum;

/// CUBIC's C and β (ns-3's defaults, RFC 9438's values).
const C: f64 = 0.4;
const BETA: f64 = 0.7;
/// `TcpCubic::CntClamp`.
const CNT_CLAMP: u32 = 20;
/// `TcpCubic::CubicDelta`: RTT samples this soon after an epoch's start are
/// left out of delay_min.
const CUBIC_DELTA: Dur = Dur(10_000_000);

/// ns-3's `TcpCubic` state outside slow start.
#[derive(Clone, Debug, Default)]
pub struct CubicNs3 {
    epoch_start: Option<Time>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    k: f64,
    origin: u32,
    delay_min: Option<Dur>,
    cwnd_cnt: u32,
    /// W_last_max, in segments.
    pub(crate) last_max: u32,
    /// Bytes acknowledged short of a whole segment (`m_bytesAckedNotProcessed`).
    carry: u64,
    /// ns-3's HyStart, when `tcp.hystart` is on.
    pub(crate) hystart: Option<ClassicHyStart>,
}

impl CubicNs3 {
    /// Whole segments `acked` bytes make, with the remainder carried.
    pub fn segments(&mut self, acked: u64, smss: u64) -> u32 {
        let all = acked + self.carry;
        self.carry = all % smss;
        (all / smss) as u32
    }

    /// `TcpCubic::PktsAcked`: an RTT value for delay_min and HyStart.
    /// `cwnd` is ns-3's (not inflated by a NewReno recovery).
    pub fn sample(&mut self, w: &mut Window, cwnd: u64, now: Time, rtt: Dur, smss: u64) {
        if self
            .epoch_start
            .is_some_and(|s| now.saturating_since(s) < CUBIC_DELTA)
        {
            return;
        }
        if self.delay_min.is_none_or(|d| d > rtt) {
            self.delay_min = Some(rtt);
        }
        let delay_min = self.delay_min.unwrap_or(rtt);
        if let Some(h) = &mut self.hystart {
            let tested = cwnd <= w.ssthresh && cwnd >= LOW_WINDOW * smss;
            if tested && h.update_ns3(now, rtt, delay_min) {
                w.ssthresh = cwnd;
            }
        }
    }

    /// In slow start: a new HyStart round begins once the ACK passes the
    /// last one's end (`HystartReset` in `IncreaseWindow`).
    pub fn slow_start_ack(&mut self, now: Time, una: SeqNum, snd_max: SeqNum) {
        if let Some(h) = &mut self.hystart {
            if h.end_seq.is_none_or(|end| una > end) {
                h.reset(now, snd_max);
            }
        }
    }

    /// `TcpCubic::IncreaseWindow` above ssthresh: `segs` segments acknowledged.
    pub fn avoid(&mut self, w: &mut Window, now: Time, segs: u32, smss: u64) {
        if segs == 0 {
            return;
        }
        self.cwnd_cnt += segs;
        let cnt = self.update(now, (w.cwnd / smss) as u32, segs);
        if self.cwnd_cnt >= cnt {
            w.cwnd += smss;
            self.cwnd_cnt -= cnt;
        }
    }

    /// `TcpCubic::Update`: how many segments to acknowledge per segment of growth.
    fn update(&mut self, now: Time, seg_cwnd: u32, segs: u32) -> u32 {
        self.ack_cnt = self.ack_cnt.wrapping_add(segs);
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = segs;
                self.tcp_cwnd = seg_cwnd;
                if self.last_max <= seg_cwnd {
                    self.k = 0.0;
                    self.origin = seg_cwnd;
                } else {
                    self.k = (f64::from(self.last_max - seg_cwnd) / C).powf(1.0 / 3.0);
                    self.origin = self.last_max;
                }
                now
            }
        };
        let delay_min = self.delay_min.unwrap_or(Dur::ZERO);
        let t = (now + delay_min).saturating_since(start).as_secs_f64();
        let offs = if t < self.k { self.k - t } else { t - self.k };
        let delta = (C * offs.powf(3.0)) as u32;
        let target = if t < self.k {
            self.origin.wrapping_sub(delta)
        } else {
            self.origin.wrapping_add(delta)
        };
        let mut cnt = if target > seg_cwnd {
            seg_cwnd / (target - seg_cwnd)
        } else {
            100u32.wrapping_mul(seg_cwnd)
        };
        if self.last_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        // TCP friendliness: the Reno estimate, in segments.
        let scale = (8.0 * (1024.0 + BETA * 1024.0) / 3.0 / (1024.0 - BETA * 1024.0)) as u32;
        let per = (seg_cwnd * scale) >> 3;
        while per > 0 && self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > seg_cwnd {
            let max_cnt = seg_cwnd / (self.tcp_cwnd - seg_cwnd);
            cnt = cnt.min(max_cnt);
        }
        cnt.max(2)
    }

    /// `TcpCubic::GetSsThresh`: a loss at `cwnd` bytes; returns ssthresh.
    pub fn on_loss(&mut self, cwnd: u64, smss: u64) -> u64 {
        let seg = (cwnd / smss) as u32;
        self.last_max = if seg < self.last_max {
            (f64::from(seg) * (1.0 + BETA) / 2.0) as u32
        } else {
            seg
        };
        self.epoch_start = None;
        u64::from(((f64::from(seg) * BETA) as u32).max(2)) * smss
    }

    /// `TcpCubic::CubicReset` and `HystartReset`, on a timeout.
    pub fn reset(&mut self, now: Time, snd_max: SeqNum) {
        if let Some(h) = &mut self.hystart {
            h.found = false;
            h.reset(now, snd_max);
        }
        self.origin = 0;
        self.k = 0.0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.delay_min = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(segs: u64) -> Window {
        Window {
            cwnd: segs * 1000,
            ssthresh: 10_000,
        }
    }

    /// The first epoch after a loss at 100 segments (ssthresh 70): K =
    /// (30/0.4)^(1/3) ≈ 4.2 s; just after the start the target is about
    /// 70 + (100 − 70)·(1 − (1 − t/K)³), so cwnd grows one segment per
    /// ⌊70/(target − 70)⌋ segments acknowledged, and once t passes K
    /// the target is above 100 and growth speeds up again.
    #[test]
    fn an_epoch_grows_as_bictcp_update() {
        let mut c = CubicNs3::default();
        assert_eq!(c.on_loss(100_000, 1000), 70_000);
        assert_eq!(c.last_max, 100);
        let mut w = window(70);
        let mut w0 = window(70);
        c.sample(&mut w0, 70_000, Time(0), Dur::from_millis(20), 1000);
        // One ACK of two segments every 10 ms for 3 s.
        let mut grew = Vec::new();
        for i in 1..=300u64 {
            let before = w.cwnd;
            c.avoid(&mut w, Time(i * 10_000_000), 2, 1000);
            assert!(w.cwnd - before <= 1000, "one segment per ACK at most");
            if w.cwnd > before {
                grew.push(i);
            }
        }
        assert!((c.k - (30.0f64 / 0.4).powf(1.0 / 3.0)).abs() < 1e-12);
        // Concave: growth comes fast at first, then slows towards 100.
        assert!(w.cwnd / 1000 > 85 && w.cwnd / 1000 < 100, "{}", w.cwnd);
        let first_half = grew.iter().filter(|&&i| i <= 150).count();
        assert!(first_half > grew.len() - first_half, "{grew:?}");
    }

    /// Fast convergence and the two-segment floor; a timeout keeps W_last_max.
    #[test]
    fn loss_and_timeout_keep_ns3s_integers() {
        let mut c = CubicNs3::default();
        assert_eq!(c.on_loss(23_600, 1000), 16_000);
        assert_eq!(c.last_max, 23);
        assert_eq!(c.on_loss(20_900, 1000), 14_000);
        assert_eq!(c.last_max, 17);
        // Two segments, below W_last_max: ⌊2·1.7/2⌋ = 1; the floor of two.
        assert_eq!(c.on_loss(2_500, 1000), 2_000);
        c.reset(Time(0), SeqNum(0));
        assert_eq!(c.last_max, 1);
        assert_eq!(c.delay_min, None);
    }

    #[test]
    fn segments_carry_the_remainder() {
        let mut c = CubicNs3::default();
        assert_eq!(c.segments(1500, 1000), 1);
        assert_eq!(c.segments(1500, 1000), 2);
        assert_eq!(c.segments(999, 1000), 0);
    }

    /// An ACK train: from 16 segments, ACKs 1 ms apart for longer than
    /// delay_min since the round began end slow start at cwnd; below 16
    /// segments nothing is tested.
    #[test]
    fn hystart_ends_slow_start_on_an_ack_train() {
        let rtt = Dur::from_millis(20);
        for (segs, ends) in [(20u64, Some(21u64)), (15, None)] {
            let mut c = CubicNs3 {
                hystart: Some(ClassicHyStart::default()),
                ..CubicNs3::default()
            };
            let mut w = Window {
                cwnd: segs * 1000,
                ssthresh: u64::MAX,
            };
            c.slow_start_ack(Time(0), SeqNum(1), SeqNum(20_000));
            let mut ended = None;
            for i in 1..=40u64 {
                let cwnd = w.cwnd;
                c.sample(&mut w, cwnd, Time(i * 1_000_000), rtt, 1000);
                if w.ssthresh != u64::MAX {
                    ended = Some(i);
                    break;
                }
            }
            assert_eq!(ended, ends, "{segs} segments");
            if ends.is_some() {
                assert_eq!(w.ssthresh, segs * 1000);
            }
        }
    }
}
