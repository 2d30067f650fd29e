//! Rate selection: a fixed rate, or Auto Rate Fallback.
//!
//! ARF (Kamerman & Monteban, "WaveLAN-II: a high-performance wireless LAN
//! for the unlicensed band", Bell Labs Technical Journal, 1997), in the
//! variant implemented here:
//! - step **down** one rate after `failure_threshold` (2) consecutive
//!   failed data attempts (ACK timeouts);
//! - step **up** one rate after `success_threshold` (10) consecutive
//!   successes, or when the "timer" expires: `timer_attempts` (15) data
//!   attempts since the last rate change, counted in attempts rather than
//!   seconds so the rule is independent of the traffic rate, and
//!   checked on a success;
//! - the first attempt at a new, higher rate is a **probe**: if it fails,
//!   step straight back down.
//!
//! Every change clears the counters. Only data attempts count; a failed RTS
//! says more about contention than about the channel and is ignored.

use super::Rate;

/// How a station picks the rate of its data frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateControl {
    /// Always this rate.
    Fixed(Rate),
    /// Auto Rate Fallback, per destination.
    Arf(ArfConfig),
}

/// ARF parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArfConfig {
    /// The rate a new destination starts at.
    pub initial: Rate,
    /// Consecutive successes that trigger a step up (10).
    pub success_threshold: u32,
    /// Consecutive failures that trigger a step down (2).
    pub failure_threshold: u32,
    /// Attempts since the last change after which a success steps up (15).
    pub timer_attempts: u32,
}

impl ArfConfig {
    /// The classic thresholds (10 / 2 / 15), starting at `initial`.
    pub fn starting_at(initial: Rate) -> ArfConfig {
        ArfConfig {
            initial,
            success_threshold: 10,
            failure_threshold: 2,
            timer_attempts: 15,
        }
    }
}

/// ARF state towards one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arf {
    config: ArfConfig,
    rate: Rate,
    successes: u32,
    failures: u32,
    attempts: u32,
    probing: bool,
}

impl Arf {
    /// Fresh state at `config.initial`.
    pub fn new(config: ArfConfig) -> Arf {
        Arf {
            config,
            rate: config.initial,
            successes: 0,
            failures: 0,
            attempts: 0,
            probing: false,
        }
    }

    /// The rate of the next data attempt.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Whether the next attempt is the probe after a step up.
    pub fn is_probing(&self) -> bool {
        self.probing
    }

    /// A data attempt was acknowledged.
    pub fn on_success(&mut self) {
        self.probing = false;
        self.failures = 0;
        self.successes += 1;
        self.attempts += 1;
        if self.successes >= self.config.success_threshold
            || self.attempts >= self.config.timer_attempts
        {
            if let Some(up) = self.rate.up() {
                self.change(up);
                self.probing = true;
            } else {
                self.successes = 0;
                self.attempts = 0;
            }
        }
    }

    /// A data attempt got no ACK.
    pub fn on_failure(&mut self) {
        self.successes = 0;
        self.failures += 1;
        self.attempts += 1;
        let step_down = self.probing || self.failures >= self.config.failure_threshold;
        self.probing = false;
        if step_down {
            match self.rate.down() {
                Some(down) => self.change(down),
                None => self.failures = 0,
            }
        }
    }

    fn change(&mut self, rate: Rate) {
        self.rate = rate;
        self.successes = 0;
        self.failures = 0;
        self.attempts = 0;
    }
}
