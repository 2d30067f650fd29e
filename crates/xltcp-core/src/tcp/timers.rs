//! The endpoint's timers, in one table keyed by [`Timer`].

use crate::time::Time;

/// Every timer an endpoint can arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timer {
    /// Retransmission timeout (RFC 6298).
    Rto,
    /// Delayed ACK (RFC 9293 §3.8.6.3).
    DelayedAck,
    /// Zero-window probe (RFC 9293 §3.8.6.1).
    Persist,
    /// End of TIME-WAIT.
    TimeWait,
    /// RACK's reordering timer (RFC 8985 §6.2).
    Rack,
    /// Tail Loss Probe timeout, PTO (RFC 8985 §7.2).
    Tlp,
    /// The next paced segment may leave (armed only while pacing holds
    /// one back).
    Pacing,
}

impl Timer {
    /// All timers, in the order `handle_timeout` services them.
    pub const ALL: [Timer; 7] = [
        Timer::Rto,
        Timer::DelayedAck,
        Timer::Persist,
        Timer::TimeWait,
        Timer::Rack,
        Timer::Tlp,
        Timer::Pacing,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// Deadlines of the armed timers.
#[derive(Clone, Debug, Default)]
pub struct TimerTable {
    deadlines: [Option<Time>; 7],
}

impl TimerTable {
    /// Arms (or re-arms) `t` for `at`.
    pub fn set(&mut self, t: Timer, at: Time) {
        self.deadlines[t.index()] = Some(at);
    }
    /// Disarms `t`.
    pub fn stop(&mut self, t: Timer) {
        self.deadlines[t.index()] = None;
    }
    /// Deadline of `t`, if armed.
    pub fn get(&self, t: Timer) -> Option<Time> {
        self.deadlines[t.index()]
    }
    /// Whether `t` is armed.
    pub fn is_set(&self, t: Timer) -> bool {
        self.get(t).is_some()
    }
    /// The earliest deadline of all armed timers.
    pub fn next(&self) -> Option<Time> {
        self.deadlines.iter().flatten().min().copied()
    }
    /// Disarms `t` and returns true if it was armed with a deadline at or before `now`.
    pub fn expire(&mut self, t: Timer, now: Time) -> bool {
        match self.get(t) {
            Some(at) if at <= now => {
                self.stop(t);
                true
            }
            _ => false,
        }
    }
}
