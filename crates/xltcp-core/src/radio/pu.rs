//! Primary-user detection at a secondary's PHY (paper 000, Byun 2016, §3).
//!
//! The detector turns the true PU activity (its ON/OFF edges) into the two
//! cross-layer signals CR-aware TCP listens to:
//!
//! - [`Signal::PuStart`]: a PU ON period was heard. It is emitted
//!   `signalling_delay` after the period's rising edge (time to overhear
//!   and decode the PU's first frame and pass the signal up). It is emitted
//!   even if that ON period has already ended by then: the PU was heard.
//! - [`Signal::PuStop`]: no PU activity has been heard for `t_idle`
//!   (`T_idle`, 1 s in the paper). The idle timer starts at the falling edge
//!   of the last heard ON period; a heard ON period starting before it
//!   expires cancels it, so **an OFF gap shorter than `t_idle` produces no
//!   `pu_stop`/`pu_start` pair**: the node stays frozen across it. The stop
//!   is never emitted before the start it closes.
//! - Missed detection: each ON period, at its rising edge, is missed with
//!   probability `missed_detection`, one draw per period from the detector's
//!   own random stream. A missed period is invisible: it neither starts a
//!   freeze nor cancels a running idle timer (so `pu_stop` can fire while a
//!   missed period is on). One draw is made for every ON period whatever the
//!   detector's state, so the draws line up across schemes for a seed.
//!
//! Signals therefore alternate strictly `pu_start`, `pu_stop`, `pu_start`…
//! and the first one is a `pu_start`. With `signalling_delay < t_idle` (the
//! intended use) this is exactly: group the heard ON periods while the OFF
//! gap between them is shorter than `t_idle`; each group gives `pu_start`
//! at its first rising edge + `signalling_delay` and `pu_stop` at its last
//! falling edge + `t_idle`. With a longer delay, every heard period that
//! begins before the announcement joins the same freeze.
//!
//! Sans-IO: inputs [`handle_pu`](PuDetector::handle_pu) and
//! [`handle_timeout`](PuDetector::handle_timeout); outputs
//! [`poll_signal`](PuDetector::poll_signal) (drain after every input; a
//! signal is emitted at the deadline that produced it, see
//! [`poll_timeout`](PuDetector::poll_timeout)). Time only moves forward;
//! an early timeout is a no-op, a late one runs each expired deadline at
//! its own time and in order.

use crate::rng::Rng;
use crate::signal::Signal;
use crate::time::{Dur, Time};
use rand::RngExt;
use std::collections::VecDeque;

/// Detector parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuDetectorConfig {
    /// From a heard PU rising edge to `pu_start`.
    pub signalling_delay: Dur,
    /// `T_idle`: silence needed before `pu_stop`.
    pub t_idle: Dur,
    /// Probability that an ON period goes unheard (clamped to [0, 1]; NaN
    /// counts as 0).
    pub missed_detection: f64,
}

impl PuDetectorConfig {
    /// The paper's setting: `T_idle` = 1 s, instantaneous and perfect
    /// detection (the prototype decoded the PU's address field).
    pub fn paper_000() -> PuDetectorConfig {
        PuDetectorConfig {
            signalling_delay: Dur::ZERO,
            t_idle: Dur::from_secs(1),
            missed_detection: 0.0,
        }
    }

    fn p_miss(&self) -> f64 {
        if self.missed_detection.is_nan() {
            0.0
        } else {
            self.missed_detection.clamp(0.0, 1.0)
        }
    }
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PuDetectorStats {
    /// PU ON periods seen (rising edges).
    pub on_periods: u64,
    /// Of those, missed.
    pub missed: u64,
    /// `pu_start` signals emitted.
    pub starts: u64,
    /// `pu_stop` signals emitted.
    pub stops: u64,
    /// Heard ON periods that began while the idle timer ran (OFF gap shorter
    /// than `t_idle`, bridged without a stop/start pair).
    pub gaps_bridged: u64,
    /// Edges that repeated the current PU level, ignored.
    pub redundant_edges: u64,
}

/// What the detector believes and has announced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Belief {
    /// No PU announced.
    Clear,
    /// A heard ON period will be announced at `start_at`; `off_since` is the
    /// falling edge if that period (and any heard since) has ended.
    Pending {
        start_at: Time,
        off_since: Option<Time>,
    },
    /// `pu_start` announced; a heard ON period is on.
    Active,
    /// `pu_start` announced; silence since `stop_at − t_idle`.
    Quiet { stop_at: Time },
}

/// Primary-user detector of one secondary node (see the module doc).
#[derive(Debug)]
pub struct PuDetector {
    config: PuDetectorConfig,
    rng: Rng,
    now: Time,
    belief: Belief,
    /// The true PU level, as last reported.
    pu_on: bool,
    /// Whether the current (or last) ON period was missed.
    missed: bool,
    signals: VecDeque<Signal>,
    stats: PuDetectorStats,
}

impl PuDetector {
    /// A detector that believes the channel clear and the PU off; give it
    /// its own named stream (e.g. `rng::stream(seed, "st.pu_detect")`).
    pub fn new(config: PuDetectorConfig, rng: Rng) -> PuDetector {
        PuDetector {
            config,
            rng,
            now: Time::ZERO,
            belief: Belief::Clear,
            pu_on: false,
            missed: false,
            signals: VecDeque::new(),
            stats: PuDetectorStats::default(),
        }
    }

    /// The true PU activity changed at `now`: `active` is its new level.
    pub fn handle_pu(&mut self, now: Time, active: bool) {
        let now = self.advance(now);
        if active == self.pu_on {
            self.stats.redundant_edges += 1;
            return;
        }
        self.pu_on = active;
        if active {
            self.rising(now);
        } else if !self.missed {
            self.falling(now);
        }
    }

    /// Runs every deadline at or before `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        self.advance(now);
    }

    /// The next signal.
    #[must_use]
    pub fn poll_signal(&mut self) -> Option<Signal> {
        self.signals.pop_front()
    }

    /// When [`handle_timeout`](PuDetector::handle_timeout) must next be called.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Time> {
        match self.belief {
            Belief::Pending { start_at, .. } => Some(start_at),
            Belief::Quiet { stop_at } => Some(stop_at),
            Belief::Clear | Belief::Active => None,
        }
    }

    /// Whether `pu_start` has been announced and not yet closed by `pu_stop`.
    pub fn is_frozen(&self) -> bool {
        matches!(self.belief, Belief::Active | Belief::Quiet { .. })
    }

    /// The counters.
    pub fn stats(&self) -> &PuDetectorStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &PuDetectorConfig {
        &self.config
    }

    /// A new ON period: decide whether it is heard, then act on it.
    fn rising(&mut self, now: Time) {
        self.stats.on_periods += 1;
        // One draw per ON period, whatever the state.
        let u: f64 = self.rng.random();
        self.missed = u < self.config.p_miss();
        if self.missed {
            self.stats.missed += 1;
            return;
        }
        self.belief = match self.belief {
            Belief::Clear => Belief::Pending {
                start_at: now + self.config.signalling_delay,
                off_since: None,
            },
            Belief::Pending { start_at, .. } => Belief::Pending {
                start_at,
                off_since: None,
            },
            Belief::Active => Belief::Active,
            Belief::Quiet { .. } => {
                // Heard again within t_idle: no pu_stop, still frozen.
                self.stats.gaps_bridged += 1;
                Belief::Active
            }
        };
        self.advance(now);
    }

    /// A heard ON period ended: start the idle timer.
    fn falling(&mut self, now: Time) {
        self.belief = match self.belief {
            Belief::Pending { start_at, .. } => Belief::Pending {
                start_at,
                off_since: Some(now),
            },
            Belief::Active => Belief::Quiet {
                stop_at: now + self.config.t_idle,
            },
            other => other,
        };
    }

    fn advance(&mut self, now: Time) -> Time {
        self.now = self.now.max(now);
        while let Some(at) = self.poll_timeout() {
            if at > self.now {
                break;
            }
            self.expire(at);
        }
        self.now
    }

    fn expire(&mut self, at: Time) {
        match self.belief {
            Belief::Pending { off_since, .. } => {
                self.stats.starts += 1;
                self.signals.push_back(Signal::PuStart);
                self.belief = match off_since {
                    None => Belief::Active,
                    // The heard period ended before it was announced: the
                    // idle timer runs from its end, but never fires before
                    // the start it closes has been emitted.
                    Some(off) => Belief::Quiet {
                        stop_at: (off + self.config.t_idle).max(at),
                    },
                };
            }
            Belief::Quiet { .. } => {
                self.stats.stops += 1;
                self.signals.push_back(Signal::PuStop);
                self.belief = Belief::Clear;
            }
            Belief::Clear | Belief::Active => {}
        }
    }
}

#[cfg(test)]
mod tests;
