//! A station's signal-to-noise ratio over time: fixed, a mean with
//! log-normal shadowing and Rayleigh or Rician block fading, or a trace of
//! (time, SNR) steps.
//!
//! ```text
//! SNR(t) [dB] = mean_db + S(t) + 10 log10 g(t)
//! ```
//!
//! - **Shadowing** `S(t)`: a zero-mean Gaussian in dB with standard
//!   deviation `shadowing_db` (log-normal in linear terms). Without a
//!   `shadowing_time` it is drawn once per station (a station stays where it
//!   is). With one, `S` is a Gauss–Markov (Ornstein–Uhlenbeck) process with
//!   that correlation time, sampled exactly on a grid of `shadowing_time /
//!   16` and held between grid points:
//!   `S_{k+1} = ρ S_k + σ √(1 − ρ²) N(0, 1)`, `ρ = exp(−Δ / τ)`.
//! - **Fading** `g(t)`: the channel's power gain, mean 1, constant over each
//!   block of `coherence` and independent between blocks (block fading).
//!   Rayleigh: `g ~ Exp(1)`. Rician with factor `K` (linear):
//!   `g = |√(K/(K+1)) + √(1/(K+1)) · CN(0, 1)|²`.
//! - **Trace**: the SNR of the last point at or before `t` (the first
//!   point's before it); the trace is read by the scenario loader.
//!
//! Each process draws from its own named stream on a grid fixed by time
//! alone, never by when a frame asks: the SNR a station sees at `t` does not
//! depend on the traffic, so every scheme sees the same channel for a seed.

use crate::rng::Rng;
use crate::time::{Dur, Time};
use rand_distr::{Distribution, Exp1, StandardNormal};
use std::sync::Arc;

/// How fast the channel's power gain varies (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fading {
    /// No fading: `g = 1`.
    None,
    /// Rayleigh block fading.
    Rayleigh,
    /// Rician block fading with this K factor (linear, > 0).
    Rician {
        /// Power of the line-of-sight component over the scattered one.
        k: f64,
    },
}

/// (time, SNR dB) points of a trace, shared by the stations that use it.
pub type SnrPoints = Arc<[(Time, f64)]>;

/// A station's SNR, as the scenario gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum SnrSpec {
    /// The same SNR at every instant.
    Fixed(f64),
    /// A mean with shadowing and fading.
    Process {
        /// Mean SNR, dB (when `mean_trace` is absent).
        mean_db: f64,
        /// A mean that moves (a host walking): the file as the scenario
        /// names it and its (time, mean dB) points, interpolated linearly
        /// between points and held before the first and after the last.
        mean_trace: Option<(String, SnrPoints)>,
        /// Shadowing standard deviation, dB (0: none).
        shadowing_db: f64,
        /// Shadowing correlation time (`None`: one draw per station).
        shadowing_time: Option<Dur>,
        /// Fading.
        fading: Fading,
        /// Fading block length.
        coherence: Dur,
    },
    /// Steps read from a file: (time, SNR dB), times non-decreasing, at
    /// least one point.
    Trace {
        /// The file, as the scenario names it (for the echo).
        path: String,
        /// The points.
        points: Arc<[(Time, f64)]>,
    },
}

impl SnrSpec {
    /// The SNR of a fixed spec.
    pub fn fixed_db(&self) -> Option<f64> {
        match self {
            SnrSpec::Fixed(db) => Some(*db),
            _ => None,
        }
    }
}

/// Grid points per shadowing correlation time.
const SHADOWING_STEPS_PER_TAU: u64 = 16;

/// A station's SNR process (see the module doc).
#[derive(Clone, Debug)]
pub struct SnrProcess {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Fixed(f64),
    Process(Box<Faded>),
    Trace {
        points: Arc<[(Time, f64)]>,
        next: usize,
    },
}

#[derive(Clone, Debug)]
struct Faded {
    mean_db: f64,
    mean_trace: Option<Arc<[(Time, f64)]>>,
    /// The index of the first trace point after the last `db_at`.
    mean_next: usize,
    sigma: f64,
    /// Shadowing grid step and its correlation, if it moves.
    shadow_step: Option<(Dur, f64)>,
    shadow_db: f64,
    shadow_next: Time,
    shadow_rng: Rng,
    fading: Fading,
    coherence: Dur,
    gain_db: f64,
    fade_next: Time,
    fade_rng: Rng,
}

impl Faded {
    fn draw_gain_db(&mut self) -> f64 {
        let g: f64 = match self.fading {
            Fading::None => 1.0,
            Fading::Rayleigh => Exp1.sample(&mut self.fade_rng),
            Fading::Rician { k } => {
                let los = (k / (k + 1.0)).sqrt();
                let s = (1.0 / (2.0 * (k + 1.0))).sqrt();
                let x: f64 = StandardNormal.sample(&mut self.fade_rng);
                let y: f64 = StandardNormal.sample(&mut self.fade_rng);
                (los + s * x).powi(2) + (s * y).powi(2)
            }
        };
        // A gain of exactly 0 (probability ~0) would give -inf dB, which the
        // error models treat as certain loss anyway; keep it finite.
        10.0 * g.max(1e-30).log10()
    }

    /// The mean at `now` (not before the previous call's `now`).
    fn mean_at(&mut self, now: Time) -> f64 {
        let Some(points) = &self.mean_trace else {
            return self.mean_db;
        };
        while self.mean_next < points.len() && points[self.mean_next].0 <= now {
            self.mean_next += 1;
        }
        interpolate(points, self.mean_next, now)
    }

    fn advance(&mut self, now: Time) {
        if let Some((step, rho)) = self.shadow_step {
            while self.shadow_next <= now {
                let n: f64 = StandardNormal.sample(&mut self.shadow_rng);
                self.shadow_db = rho * self.shadow_db + self.sigma * (1.0 - rho * rho).sqrt() * n;
                self.shadow_next += step;
            }
        }
        if self.fading != Fading::None {
            while self.fade_next <= now {
                self.gain_db = self.draw_gain_db();
                self.fade_next += self.coherence;
            }
        }
    }
}

impl SnrProcess {
    /// The process of `spec`; shadowing and fading draw from their own
    /// streams.
    pub fn new(spec: &SnrSpec, mut shadow_rng: Rng, fade_rng: Rng) -> SnrProcess {
        let kind = match spec {
            SnrSpec::Fixed(db) => Kind::Fixed(*db),
            SnrSpec::Trace { points, .. } => Kind::Trace {
                points: points.clone(),
                next: 0,
            },
            SnrSpec::Process {
                mean_db,
                mean_trace,
                shadowing_db,
                shadowing_time,
                fading,
                coherence,
            } => {
                let (mean_db, shadowing_db, fading) = (*mean_db, *shadowing_db, *fading);
                let (shadowing_time, coherence) = (*shadowing_time, *coherence);
                let first: f64 = StandardNormal.sample(&mut shadow_rng);
                let shadow_step = shadowing_time.filter(|_| shadowing_db > 0.0).map(|tau| {
                    let step = Dur::from_nanos((tau.as_nanos() / SHADOWING_STEPS_PER_TAU).max(1));
                    let rho = (-step.as_secs_f64() / tau.as_secs_f64()).exp();
                    (step, rho)
                });
                let mut f = Faded {
                    mean_db,
                    mean_trace: mean_trace.as_ref().map(|(_, p)| p.clone()),
                    mean_next: 0,
                    sigma: shadowing_db,
                    shadow_step,
                    shadow_db: shadowing_db * first,
                    shadow_next: Time::ZERO + shadow_step.map_or(Dur::ZERO, |s| s.0),
                    shadow_rng,
                    fading,
                    coherence: coherence.max(Dur::from_nanos(1)),
                    gain_db: 0.0,
                    fade_next: Time::ZERO,
                    fade_rng,
                };
                f.gain_db = f.draw_gain_db();
                f.fade_next = Time::ZERO + f.coherence;
                Kind::Process(Box::new(f))
            }
        };
        SnrProcess { kind }
    }

    /// Whether the SNR never changes.
    pub fn is_fixed(&self) -> bool {
        matches!(self.kind, Kind::Fixed(_))
    }

    /// The SNR at `now`, dB. `now` must not go backwards between calls.
    pub fn db_at(&mut self, now: Time) -> f64 {
        match &mut self.kind {
            Kind::Fixed(db) => *db,
            Kind::Process(f) => {
                f.advance(now);
                f.mean_at(now) + f.shadow_db + f.gain_db
            }
            Kind::Trace { points, next } => {
                while *next < points.len() && points[*next].0 <= now {
                    *next += 1;
                }
                points[next.saturating_sub(1)].1
            }
        }
    }
}

/// The trace's value at `t`, `next` being the index of its first point
/// after `t`: linear between the points around `t`, held outside them.
fn interpolate(points: &[(Time, f64)], next: usize, t: Time) -> f64 {
    match (next.checked_sub(1).map(|i| points[i]), points.get(next)) {
        (Some((t0, a)), Some(&(t1, b))) if t1 > t0 => {
            let x = (t - t0).as_secs_f64() / (t1 - t0).as_secs_f64();
            a + (b - a) * x
        }
        (Some((_, a)), _) => a,
        (None, Some(&(_, b))) => b,
        (None, None) => 0.0,
    }
}

/// The mean of `f(SNR dB)` over what `spec` produces during `[0, end)`: exact
/// for a fixed SNR and a trace (time-weighted), a deterministic Monte Carlo
/// estimate over shadowing and fading otherwise (for the oracle bound).
pub fn mean_over(spec: &SnrSpec, end: Time, f: impl Fn(f64) -> f64) -> f64 {
    match spec {
        SnrSpec::Fixed(db) => f(*db),
        SnrSpec::Trace { points, .. } => {
            let end = end.max(Time::ZERO + Dur::from_nanos(1));
            let mut sum = 0.0;
            for (i, &(t, db)) in points.iter().enumerate() {
                let from = if i == 0 { Time::ZERO } else { t.min(end) };
                let to = points.get(i + 1).map_or(end, |p| p.0.min(end));
                if to > from {
                    sum += f(db) * (to - from).as_secs_f64();
                }
            }
            sum / (end - Time::ZERO).as_secs_f64()
        }
        SnrSpec::Process {
            mean_db,
            mean_trace,
            shadowing_db,
            fading,
            coherence,
            ..
        } => {
            // Independent samples of (shadowing, fading): the stationary
            // distribution, whatever the correlation times; a moving mean
            // is sampled at evenly spread instants of [0, end).
            const N: u64 = 4096;
            let (shadowing_db, fading, coherence) = (*shadowing_db, *fading, *coherence);
            let span = end.as_nanos().max(1) as f64;
            let mean_of = |k: u64| match mean_trace {
                None => *mean_db,
                Some((_, points)) => {
                    let t = Time(((k as f64 + 0.5) / N as f64 * span) as u64);
                    let next = points.partition_point(|p| p.0 <= t);
                    interpolate(points, next, t)
                }
            };
            let mut sum = 0.0;
            for k in 0..N {
                let spec = SnrSpec::Process {
                    mean_db: mean_of(k),
                    mean_trace: None,
                    shadowing_db,
                    shadowing_time: None,
                    fading,
                    coherence,
                };
                let mut p = SnrProcess::new(
                    &spec,
                    crate::rng::stream(k, "snr.mean.shadowing"),
                    crate::rng::stream(k, "snr.mean.fading"),
                );
                sum += f(p.db_at(Time::ZERO));
            }
            sum / N as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn process(spec: &SnrSpec, seed: u64) -> SnrProcess {
        SnrProcess::new(spec, stream(seed, "s"), stream(seed, "f"))
    }

    fn faded(shadowing_db: f64, tau: Option<Dur>, fading: Fading) -> SnrSpec {
        SnrSpec::Process {
            mean_db: 20.0,
            mean_trace: None,
            shadowing_db,
            shadowing_time: tau,
            fading,
            coherence: Dur::from_millis(10),
        }
    }

    fn samples(spec: &SnrSpec, n: u64, every: Dur) -> Vec<f64> {
        let mut p = process(spec, 7);
        (0..n)
            .map(|k| p.db_at(Time::ZERO + every.saturating_mul(k)))
            .collect()
    }

    fn mean_var(x: &[f64]) -> (f64, f64) {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() - 1) as f64;
        (m, v)
    }

    #[test]
    fn a_moving_mean_is_interpolated_and_carries_shadowing() {
        let secs = |s: u64| Time::ZERO + Dur::from_secs(s);
        let points: Arc<[(Time, f64)]> = vec![(secs(0), 10.0), (secs(10), 20.0)].into();
        let moving = |shadowing_db| SnrSpec::Process {
            mean_db: 0.0,
            mean_trace: Some(("walk.txt".into(), points.clone())),
            shadowing_db,
            shadowing_time: Some(Dur::from_millis(100)),
            fading: Fading::None,
            coherence: Dur::from_millis(10),
        };
        let mut p = process(&moving(0.0), 1);
        assert_eq!(p.db_at(secs(0)), 10.0);
        assert!((p.db_at(Time::ZERO + Dur::from_millis(2500)) - 12.5).abs() < 1e-9);
        assert_eq!(p.db_at(secs(10)), 20.0);
        assert_eq!(p.db_at(secs(30)), 20.0);
        // The time average of a linear ramp held at its end: 10 s at a
        // mean of 15, 10 s at 20.
        let mean = mean_over(&moving(0.0), secs(20), |db| db);
        assert!((mean - 17.5).abs() < 0.01, "{mean}");
        // Shadowing moves around the moving mean.
        let mut p = process(&moving(2.0), 3);
        let x: Vec<f64> = (0..2000)
            .map(|k| p.db_at(secs(10) + Dur::from_millis(10 * k)) - 20.0)
            .collect();
        let (m, v) = mean_var(&x);
        assert!(m.abs() < 0.8 && (v.sqrt() - 2.0).abs() < 0.6, "{m} {v}");
    }

    #[test]
    fn fixed_is_fixed() {
        let mut p = process(&SnrSpec::Fixed(12.5), 1);
        assert!(p.is_fixed());
        assert_eq!(p.db_at(Time::ZERO), 12.5);
        assert_eq!(p.db_at(Time::ZERO + Dur::from_secs(100)), 12.5);
    }

    #[test]
    fn rayleigh_gain_has_mean_one_and_exponential_spread() {
        // One sample per coherence block: g = 10^(x/10) should be Exp(1).
        let x = samples(
            &faded(0.0, None, Fading::Rayleigh),
            20_000,
            Dur::from_millis(10),
        );
        let g: Vec<f64> = x.iter().map(|db| 10f64.powf((db - 20.0) / 10.0)).collect();
        let (m, v) = mean_var(&g);
        assert!((m - 1.0).abs() < 0.03, "mean {m}");
        assert!((v - 1.0).abs() < 0.08, "variance {v}");
        // P(g < 0.1) = 1 - e^-0.1 = 0.0952 for Rayleigh.
        let deep = g.iter().filter(|&&g| g < 0.1).count() as f64 / g.len() as f64;
        assert!((deep - 0.0952).abs() < 0.01, "deep fades {deep}");
    }

    #[test]
    fn rician_gain_has_mean_one_and_fades_less_than_rayleigh() {
        let x = samples(
            &faded(0.0, None, Fading::Rician { k: 10.0 }),
            20_000,
            Dur::from_millis(10),
        );
        let g: Vec<f64> = x.iter().map(|db| 10f64.powf((db - 20.0) / 10.0)).collect();
        let (m, v) = mean_var(&g);
        assert!((m - 1.0).abs() < 0.02, "mean {m}");
        // Var g = (2K + 1) / (K + 1)^2 = 21 / 121.
        assert!((v - 21.0 / 121.0).abs() < 0.02, "variance {v}");
        let deep = g.iter().filter(|&&g| g < 0.1).count();
        assert!(deep < 20, "{deep} deep fades with K = 10");
    }

    #[test]
    fn fading_holds_within_a_block_and_changes_between_blocks() {
        let mut p = process(&faded(0.0, None, Fading::Rayleigh), 3);
        let a = p.db_at(Time::ZERO + Dur::from_millis(1));
        let b = p.db_at(Time::ZERO + Dur::from_micros(9_999));
        let c = p.db_at(Time::ZERO + Dur::from_millis(10));
        assert_eq!(a, b);
        assert_ne!(b, c);
    }

    #[test]
    fn the_channel_does_not_depend_on_when_it_is_asked() {
        let spec = faded(6.0, Some(Dur::from_millis(200)), Fading::Rayleigh);
        let mut dense = process(&spec, 9);
        let mut sparse = process(&spec, 9);
        let t = |ms: u64| Time::ZERO + Dur::from_millis(ms);
        for ms in 0..2000 {
            dense.db_at(t(ms));
        }
        let at = [1999, 2500, 7777];
        for &ms in &at {
            assert_eq!(dense.db_at(t(ms)), sparse.db_at(t(ms)));
        }
    }

    #[test]
    fn static_shadowing_is_one_gaussian_draw_per_station() {
        let spec = faded(8.0, None, Fading::None);
        let draws: Vec<f64> = (0..4000)
            .map(|seed| process(&spec, seed).db_at(Time::ZERO) - 20.0)
            .collect();
        let (m, v) = mean_var(&draws);
        assert!(m.abs() < 0.4, "mean {m}");
        assert!((v.sqrt() - 8.0).abs() < 0.3, "sd {}", v.sqrt());
        let mut p = process(&spec, 1);
        let first = p.db_at(Time::ZERO);
        assert_eq!(p.db_at(Time::ZERO + Dur::from_secs(1000)), first);
    }

    #[test]
    fn gauss_markov_shadowing_keeps_its_spread_and_decorrelates_over_tau() {
        let tau = Dur::from_millis(100);
        let spec = faded(4.0, Some(tau), Fading::None);
        // Samples 10 tau apart are nearly independent: their spread is sigma.
        let far = samples(&spec, 4000, tau.saturating_mul(10));
        let (m, v) = mean_var(&far);
        assert!((m - 20.0).abs() < 0.3, "mean {m}");
        assert!((v.sqrt() - 4.0).abs() < 0.2, "sd {}", v.sqrt());
        // Lag-tau correlation is e^-1.
        let x = samples(&spec, 40_000, tau);
        let d: Vec<f64> = x.iter().map(|v| v - 20.0).collect();
        let c: f64 = d.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / (d.len() - 1) as f64;
        let rho = c / 16.0;
        assert!(
            (rho - (-1f64).exp()).abs() < 0.03,
            "lag-tau correlation {rho}"
        );
    }

    #[test]
    fn a_trace_steps_at_its_points() {
        let t = |ms: u64| Time::ZERO + Dur::from_millis(ms);
        let spec = SnrSpec::Trace {
            path: "x.csv".into(),
            points: vec![(t(100), 10.0), (t(200), 20.0), (t(200), 5.0)].into(),
        };
        let mut p = process(&spec, 1);
        assert_eq!(p.db_at(t(0)), 10.0);
        assert_eq!(p.db_at(t(150)), 10.0);
        assert_eq!(p.db_at(t(200)), 5.0);
        assert_eq!(p.db_at(t(10_000)), 5.0);
        // Time-weighted over [0, 400 ms): 10 for 200 ms, 5 for 200 ms.
        assert!((mean_over(&spec, t(400), |db| db) - 7.5).abs() < 1e-12);
    }

    #[test]
    fn the_mean_over_fading_matches_the_closed_form() {
        // E[g] = 1 for Rayleigh; E[1{g > 1}] = e^-1.
        let spec = faded(0.0, None, Fading::Rayleigh);
        let end = Time::ZERO + Dur::from_secs(1);
        let mean_g = mean_over(&spec, end, |db| 10f64.powf((db - 20.0) / 10.0));
        assert!((mean_g - 1.0).abs() < 0.05, "{mean_g}");
        let above = mean_over(&spec, end, |db| f64::from(u8::from(db > 20.0)));
        assert!((above - (-1f64).exp()).abs() < 0.02, "{above}");
    }
}
