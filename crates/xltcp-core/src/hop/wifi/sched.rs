//! The AP's downlink scheduler (`[wireless] scheduler`): one queue per
//! receiving station, served one frame at a time into the AP's DCF.
//!
//! - `"fifo"` (the default) is not this module: the AP's DCF keeps its one
//!   FIFO queue, as every station does.
//! - `"rr"`: round robin over the non-empty queues, in station order,
//!   starting after the station served last.
//! - `"pf"`: proportional fair (Jalali, Padovani, Pankaj, VTC 2000; the
//!   form of SPECS §4.3 and of paper 004): at each decision, serve the
//!   non-empty queue `i` with the largest `mu_i / r_i`, where `mu_i` is the
//!   rate the receiver's channel allows now and `r_i` an exponentially
//!   weighted average of the rate it was served.
//!
//! A decision is made whenever the AP's DCF has no frame in hand (the
//! 802.11 counterpart of HDR's slot: the AP sends one frame at a time, so
//! one decision per frame). The average is kept in continuous time with
//! time constant `t_c` (`pf_time_constant`, default 100 ms as paper 004):
//! between decisions every `r_i` decays by `exp(-dt / t_c)` and a frame the
//! MAC delivered adds its bits `/ t_c` — the continuous counterpart of
//! `r <- (1 - 1/t_c) r + (1/t_c) s` per slot. Every receiver's average
//! decays, served or not, empty queue or not (SPECS marks this choice as a
//! gap of the TMC paper; it is HDR's). Averages start at
//! [`INITIAL_RATE_BPS`] so that the ratio is defined.
//!
//! What `mu_i` is here: the hop computes it (see `WifiHop::current_rate`)
//! as the AP's data rate towards station `i` (fixed, or ARF's current
//! choice) times the probability that the head frame of `i`'s queue gets
//! through at the SNR of `i`'s link at this instant (`1 - PER`), i.e. the
//! rate the station's SNR allows now. With equal SNRs and a fixed rate all
//! `mu_i` are equal and PF shares airtime equally; with fading the
//! receiver at a momentary peak of its own channel is preferred
//! (multi-user diversity). The loss process of `[wireless.loss.down]` is
//! not a channel state (it is drawn independently per frame) and does not
//! enter `mu_i`.
//!
//! For the summary the scheduler samples its queue lengths every
//! [`SAMPLE_EVERY`] (the frames waiting per receiver at that instant, the
//! one in the MAC not counted), at most [`MAX_SAMPLES`] samples.
//!
//! Each queue holds at most `limit` frames (the `[wireless] queue` of the
//! AP, per receiver); a frame arriving at a full queue is refused.

use crate::radio::wifi::Frame;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// The period of the queue-length samples.
pub const SAMPLE_EVERY: Dur = Dur::from_secs(1);

/// The most queue-length samples kept (later ones are not taken).
pub const MAX_SAMPLES: usize = 10_000;

/// The average rate every receiver starts with (bits/s): small, above zero.
pub const INITIAL_RATE_BPS: f64 = 1.0;

/// Which discipline serves the per-receiver queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discipline {
    /// Round robin over the non-empty queues.
    RoundRobin,
    /// Proportional fair: largest `mu_i / r_i`.
    ProportionalFair,
}

/// A frame waiting in a receiver's queue, with the time it was queued.
pub type Queued = (Frame, Time);

/// Per-receiver queues and the decision rule (see the module doc).
/// Stations are `1..=n`; index 0 (the AP itself) is never a receiver.
#[derive(Debug, Clone)]
pub struct Scheduler {
    discipline: Discipline,
    tc: f64,
    limit: usize,
    queues: Vec<VecDeque<Queued>>,
    avg_bps: Vec<f64>,
    avg_at: Time,
    last: usize,
    /// Decisions made per station (index = station).
    pub decisions: Vec<u64>,
    /// Queue lengths of stations `1..`, every [`SAMPLE_EVERY`] from 0.
    pub samples: Vec<Vec<u32>>,
    next_sample: Time,
}

impl Scheduler {
    /// Queues for stations `1..=receivers`, each holding at most `limit`
    /// frames; `tc` is PF's averaging time constant.
    pub fn new(discipline: Discipline, receivers: usize, limit: usize, tc: Dur) -> Scheduler {
        Scheduler {
            discipline,
            tc: tc.as_secs_f64().max(1e-9),
            limit: limit.max(1),
            queues: vec![VecDeque::new(); receivers + 1],
            avg_bps: vec![INITIAL_RATE_BPS; receivers + 1],
            avg_at: Time::ZERO,
            last: 0,
            decisions: vec![0; receivers + 1],
            samples: Vec::new(),
            next_sample: Time::ZERO,
        }
    }

    /// Records the queue lengths at each sample instant up to `now`: the
    /// queues have not changed since the previous push or pick.
    fn sample(&mut self, now: Time) {
        while self.next_sample <= now && self.samples.len() < MAX_SAMPLES {
            let lens = self.queues[1..].iter().map(|q| q.len() as u32).collect();
            self.samples.push(lens);
            self.next_sample += SAMPLE_EVERY;
        }
    }

    /// Queues `frame` for its receiver (at the head if `first`); gives it
    /// back if that queue is full.
    pub fn push(&mut self, now: Time, frame: Frame, first: bool) -> Result<(), Frame> {
        self.sample(now);
        let to = frame.dst.0 as usize;
        let Some(q) = self.queues.get_mut(to).filter(|_| to > 0) else {
            return Err(frame);
        };
        if q.len() >= self.limit {
            return Err(frame);
        }
        if first {
            q.push_front((frame, now));
        } else {
            q.push_back((frame, now));
        }
        Ok(())
    }

    /// Frames waiting in every queue.
    pub fn len(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    /// Whether no frame waits.
    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }

    /// Frames waiting for `station`.
    pub fn queue_len(&self, station: usize) -> usize {
        self.queues.get(station).map_or(0, VecDeque::len)
    }

    /// The head frame of `station`'s queue.
    pub fn head(&self, station: usize) -> Option<&Queued> {
        self.queues.get(station).and_then(VecDeque::front)
    }

    /// Stations with a non-empty queue, in station order.
    pub fn backlogged(&self) -> impl Iterator<Item = usize> + '_ {
        (1..self.queues.len()).filter(|&i| !self.queues[i].is_empty())
    }

    /// `r_i` at `now` (bits/s).
    pub fn average_bps(&mut self, now: Time, station: usize) -> f64 {
        self.decay(now);
        self.avg_bps[station]
    }

    /// Moves every average to `now`.
    fn decay(&mut self, now: Time) {
        if now <= self.avg_at {
            return;
        }
        let f = (-(now - self.avg_at).as_secs_f64() / self.tc).exp();
        for r in &mut self.avg_bps {
            *r = (*r * f).max(f64::MIN_POSITIVE);
        }
        self.avg_at = now;
    }

    /// `bits` were served to `station` at `now` (a frame delivered).
    pub fn served(&mut self, now: Time, station: usize, bits: f64) {
        self.decay(now);
        if let Some(r) = self.avg_bps.get_mut(station) {
            *r += bits / self.tc;
        }
    }

    /// The next frame to hand to the MAC at `now`, if any queue holds one;
    /// `mu` gives `mu_i` (bits/s) for a station and its head frame (only
    /// asked under PF).
    pub fn pick(&mut self, now: Time, mut mu: impl FnMut(usize, &Frame) -> f64) -> Option<Queued> {
        self.decay(now);
        self.sample(now);
        let n = self.queues.len();
        let chosen = match self.discipline {
            Discipline::RoundRobin => (1..n)
                .map(|k| (self.last + k - 1) % (n - 1) + 1)
                .find(|&i| !self.queues[i].is_empty()),
            Discipline::ProportionalFair => {
                let mut best: Option<(f64, Time, usize)> = None;
                for i in 1..n {
                    let Some(&(frame, since)) = self.queues[i].front() else {
                        continue;
                    };
                    let u = mu(i, &frame).max(0.0) / self.avg_bps[i];
                    // Ties (e.g. every channel in outage): the oldest head.
                    let better = match best {
                        None => true,
                        Some((bu, bs, _)) => u > bu || (u == bu && since < bs),
                    };
                    if better {
                        best = Some((u, since, i));
                    }
                }
                best.map(|(_, _, i)| i)
            }
        }?;
        self.last = chosen;
        self.decisions[chosen] += 1;
        self.queues[chosen].pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::wifi::Addr;
    use proptest::prelude::*;

    fn frame(to: u16, id: u64) -> Frame {
        Frame {
            id,
            dst: Addr(to),
            psdu_bytes: 1000,
        }
    }

    /// Serves `decisions` frames of `bits` each from always-backlogged
    /// queues; station `i` at time `t` has rate `rate(i, t)`; returns the
    /// airtime each station got.
    fn serve(
        s: &mut Scheduler,
        n: usize,
        decisions: usize,
        bits: f64,
        rate: impl Fn(usize, Time) -> f64,
    ) -> Vec<f64> {
        let mut now = Time::ZERO;
        let mut airtime = vec![0.0; n + 1];
        let mut id = 0;
        for i in 1..=n {
            for _ in 0..4 {
                s.push(now, frame(i as u16, id), false).unwrap();
                id += 1;
            }
        }
        for _ in 0..decisions {
            let (f, _) = s.pick(now, |i, _| rate(i, now)).unwrap();
            let i = f.dst.0 as usize;
            let secs = bits / rate(i, now);
            now += Dur::from_secs_f64(secs);
            airtime[i] += secs;
            s.served(now, i, bits);
            s.push(now, frame(i as u16, id), false).unwrap();
            id += 1;
        }
        airtime
    }

    #[test]
    fn pf_shares_time_equally_among_equal_channels() {
        let mut s = Scheduler::new(Discipline::ProportionalFair, 3, 10, Dur::from_millis(100));
        let air = serve(&mut s, 3, 30_000, 8000.0, |_, _| 6e6);
        let total: f64 = air.iter().sum();
        for &a in &air[1..] {
            assert!((a / total - 1.0 / 3.0).abs() < 0.01, "{air:?}");
        }
    }

    #[test]
    fn pf_shares_time_equally_among_unequal_but_steady_channels() {
        // PF gives equal airtime (not equal bits) when channels are steady.
        let mut s = Scheduler::new(Discipline::ProportionalFair, 2, 10, Dur::from_millis(100));
        let air = serve(
            &mut s,
            2,
            20_000,
            8000.0,
            |i, _| if i == 1 { 12e6 } else { 3e6 },
        );
        let total: f64 = air.iter().sum();
        assert!((air[1] / total - 0.5).abs() < 0.03, "{air:?}");
    }

    #[test]
    fn pf_serves_the_better_instantaneous_channel_at_equal_averages() {
        let mut s = Scheduler::new(Discipline::ProportionalFair, 2, 10, Dur::from_millis(100));
        s.push(Time::ZERO, frame(1, 0), false).unwrap();
        s.push(Time::ZERO, frame(2, 1), false).unwrap();
        let (f, _) = s
            .pick(Time::ZERO, |i, _| if i == 2 { 24e6 } else { 6e6 })
            .unwrap();
        assert_eq!(f.dst, Addr(2));
    }

    #[test]
    fn pf_exploits_fading_where_round_robin_cannot() {
        // Two receivers whose rates alternate out of phase every 20 ms: PF
        // serves each at its peaks and moves more bits than round robin.
        let rate = |i: usize, t: Time| {
            let slot = (t - Time::ZERO).as_nanos() / 20_000_000;
            if (slot as usize + i).is_multiple_of(2) {
                24e6
            } else {
                6e6
            }
        };
        let bits = |d: Discipline| {
            let mut s = Scheduler::new(d, 2, 10, Dur::from_millis(100));
            let air = serve(&mut s, 2, 20_000, 8000.0, rate);
            20_000.0 * 8000.0 / air.iter().sum::<f64>()
        };
        let (pf, rr) = (
            bits(Discipline::ProportionalFair),
            bits(Discipline::RoundRobin),
        );
        assert!(pf > 1.3 * rr, "pf {pf} rr {rr}");
    }

    #[test]
    fn round_robin_alternates_and_skips_empty_queues() {
        let mut s = Scheduler::new(Discipline::RoundRobin, 3, 10, Dur::from_millis(100));
        for (k, to) in [1u16, 1, 3, 3].into_iter().enumerate() {
            s.push(Time::ZERO, frame(to, k as u64), false).unwrap();
        }
        let order: Vec<u16> = (0..4)
            .map(|_| s.pick(Time::ZERO, |_, _| 1.0).unwrap().0.dst.0)
            .collect();
        assert_eq!(order, vec![1, 3, 1, 3]);
        assert!(s.pick(Time::ZERO, |_, _| 1.0).is_none());
    }

    #[test]
    fn a_full_queue_refuses_and_first_goes_ahead() {
        let mut s = Scheduler::new(Discipline::RoundRobin, 1, 2, Dur::from_millis(100));
        s.push(Time::ZERO, frame(1, 0), false).unwrap();
        s.push(Time::ZERO, frame(1, 1), true).unwrap();
        assert!(s.push(Time::ZERO, frame(1, 2), false).is_err());
        assert_eq!(s.pick(Time::ZERO, |_, _| 1.0).unwrap().0.id, 1);
    }

    proptest! {
        /// Under PF no backlogged queue starves: with channel rates drawn
        /// anew every frame in [1, 54] Mb/s (a ratio up to 54), every
        /// station is served within every 2000 consecutive decisions.
        #[test]
        fn pf_starves_no_queue(n in 2usize..8, seed in any::<u64>(), tc_ms in 10u64..1000) {
            let mut rng = crate::rng::stream(seed, "pf.test");
            use rand::RngExt;
            let mut s = Scheduler::new(Discipline::ProportionalFair, n, 4, Dur::from_millis(tc_ms));
            let mut now = Time::ZERO;
            let mut id = 0;
            for i in 1..=n {
                s.push(now, frame(i as u16, id), false).unwrap();
                id += 1;
            }
            let mut last_served = vec![0usize; n + 1];
            for k in 1..=6000usize {
                let rates: Vec<f64> = (0..=n).map(|_| rng.random_range(1e6..54e6)).collect();
                let (f, _) = s.pick(now, |i, _| rates[i]).unwrap();
                let i = f.dst.0 as usize;
                now += Dur::from_secs_f64(12_000.0 / rates[i]);
                s.served(now, i, 12_000.0);
                s.push(now, frame(i as u16, id), false).unwrap();
                id += 1;
                last_served[i] = k;
                for (j, &l) in last_served.iter().enumerate().skip(1) {
                    prop_assert!(k - l < 2000, "station {} unserved for {} decisions", j, k - l);
                }
            }
        }
    }
}
