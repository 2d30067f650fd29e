//! CR-aware TCP (paper 000, Byun 2016, §3): the sender's TCP listens to
//! its PHY's primary-user detector.
//!
//! - On `pu_start`: cancel the retransmission timer, freeze cwnd, ssthresh
//!   and the RTO value, stop sending ([`CrAction::Freeze`]).
//! - On `pu_stop`: restore them, restart the timer with the frozen RTO and
//!   retransmit the oldest unacknowledged segment at once
//!   ([`CrAction::Resume`]).
//!
//! The TCP side of both actions is [`crate::tcp::Endpoint::freeze`] /
//! [`crate::tcp::Endpoint::resume`]; this machine decides *when*.
//!
//! # Fallbacks for missed signals
//!
//! The detector can miss a PU period (no `pu_start`), and a `pu_stop` can
//! fail to come (a lost signal, a detector that keeps hearing something).
//! The sender must then neither stall nor collapse into exponential RTO
//! back-off:
//!
//! 1. **No `pu_stop`** (watchdog): a freeze that lasts `max_freeze`
//!    ends as if `pu_stop` had come (counted in `watchdog_resumes`). If
//!    the channel is still blocked, the resumed retransmission fails at the
//!    MAC and fallback 2 takes over; a later `pu_stop` is then ignored.
//! 2. **No `pu_start`** (MAC evidence): `access_failures` consecutive
//!    channel-access failures of this node's frames (802.15.4
//!    `CHANNEL_ACCESS_FAILURE`: the channel was busy at every CCA of one
//!    CSMA-CA), with no frame delivered in between, while not frozen,
//!    freeze TCP as a `pu_start` would (cause [`FreezeCause::AccessFailure`]).
//!    One failure alone is not enough: contention with the other stations
//!    causes an occasional one (two stations, a few per 10⁴ frames). Such a
//!    freeze ends after `probe_interval` with a resume, whose immediate
//!    retransmission probes the channel: if that one frame fails to access
//!    the channel the node freezes again, else it runs on. (A watchdog
//!    resume is a probe too.) A `pu_stop` also ends it; a
//!    `pu_start` turns it into an ordinary freeze.
//!
//! Either way the sender's RTO never backs off while the channel is known
//! or suspected blocked, and it resumes at most `probe_interval` after the
//! channel clears (plus `t_idle` when the detector works).
//!
//! Sans-IO: inputs [`handle_signal`](CrAware::handle_signal),
//! [`handle_access_failure`](CrAware::handle_access_failure),
//! [`handle_timeout`](CrAware::handle_timeout); outputs
//! [`poll_action`](CrAware::poll_action) (drain after every input) then
//! [`poll_timeout`](CrAware::poll_timeout). Time only moves forward; an
//! early timeout is a no-op.

use super::agent::{Action, Agent, NodeSignal};
use super::AgentStats;
use crate::signal::{Signal, UndeliveredReason};
use crate::tcp::Command;
use crate::time::{Dur, Time};
use serde::Serialize;
use std::collections::VecDeque;

/// The fallback knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrAwareConfig {
    /// A freeze with no `pu_stop` ends after this long.
    pub max_freeze: Dur,
    /// A freeze caused by channel-access failures ends (with a probe)
    /// after this long.
    pub probe_interval: Dur,
    /// Consecutive channel-access failures (no delivery between them) that
    /// count as a missed `pu_start` (at least 1).
    pub access_failures: u32,
}

impl Default for CrAwareConfig {
    /// 30 s watchdog, 1 s probes.
    fn default() -> Self {
        CrAwareConfig {
            max_freeze: Dur::from_secs(30),
            probe_interval: Dur::from_secs(1),
            access_failures: 2,
        }
    }
}

/// What the engine must do to the node's TCP sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrAction {
    /// Call `freeze(now)`.
    Freeze,
    /// Call `resume(now)`.
    Resume,
}

/// Why TCP is frozen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreezeCause {
    /// The PHY announced a primary user (`pu_start`).
    PuStart,
    /// The MAC failed to access the channel (fallback 2).
    AccessFailure,
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CrAwareStats {
    /// `pu_start` signals received.
    pub pu_starts: u64,
    /// `pu_stop` signals received.
    pub pu_stops: u64,
    /// Freezes begun (any cause).
    pub freezes: u64,
    /// Freezes begun by a channel-access failure.
    pub access_failure_freezes: u64,
    /// Resumes (any cause).
    pub resumes: u64,
    /// Resumes by the `max_freeze` watchdog.
    pub watchdog_resumes: u64,
    /// Resumes that probe after an access-failure freeze.
    pub probe_resumes: u64,
    /// Channel-access failures reported.
    pub access_failures: u64,
    /// `pu_stop` while not frozen (ignored).
    pub stray_stops: u64,
    /// Nanoseconds spent frozen (closed freezes only).
    pub frozen_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Running,
    Frozen {
        since: Time,
        cause: FreezeCause,
        until: Time,
    },
}

/// The CR-aware controller of one wireless node's TCP sender.
#[derive(Debug)]
pub struct CrAware {
    config: CrAwareConfig,
    state: State,
    now: Time,
    /// Channel-access failures since the last delivery or resume.
    failure_run: u32,
    actions: VecDeque<CrAction>,
    stats: CrAwareStats,
}

impl CrAware {
    /// A running (not frozen) controller.
    pub fn new(config: CrAwareConfig) -> CrAware {
        CrAware {
            config,
            state: State::Running,
            now: Time::ZERO,
            failure_run: 0,
            actions: VecDeque::new(),
            stats: CrAwareStats::default(),
        }
    }

    /// A signal from the node's radio; only `pu_start` / `pu_stop` matter.
    pub fn handle_signal(&mut self, now: Time, signal: &Signal) {
        self.advance(now);
        match (signal, self.state) {
            (Signal::PuStart, _) => {
                self.stats.pu_starts += 1;
                match self.state {
                    State::Running => self.freeze(FreezeCause::PuStart),
                    State::Frozen { since, .. } => {
                        // Already frozen by MAC evidence: now a real freeze
                        // with its watchdog counted from the signal.
                        self.state = State::Frozen {
                            since,
                            cause: FreezeCause::PuStart,
                            until: self.now + self.config.max_freeze,
                        };
                    }
                }
            }
            (Signal::PuStop, State::Frozen { .. }) => {
                self.stats.pu_stops += 1;
                self.resume();
            }
            (Signal::PuStop, State::Running) => {
                self.stats.pu_stops += 1;
                self.stats.stray_stops += 1;
            }
            _ => {}
        }
    }

    /// The MAC gave up one of this node's frames after a channel-access
    /// failure (fallback 2).
    pub fn handle_access_failure(&mut self, now: Time) {
        self.advance(now);
        self.stats.access_failures += 1;
        self.failure_run = self.failure_run.saturating_add(1);
        if self.state == State::Running && self.failure_run >= self.config.access_failures.max(1) {
            self.stats.access_failure_freezes += 1;
            self.freeze(FreezeCause::AccessFailure);
        }
    }

    /// The MAC delivered one of this node's frames: the channel works.
    pub fn handle_delivered(&mut self, now: Time) {
        self.advance(now);
        self.failure_run = 0;
    }

    /// Whether delivery reports matter now (a failure run is open): the
    /// engine need not hand over the others.
    pub fn wants_delivery_reports(&self) -> bool {
        self.failure_run > 0
    }

    /// Runs the deadline if it is due.
    pub fn handle_timeout(&mut self, now: Time) {
        self.advance(now);
    }

    /// The next action for the engine.
    #[must_use]
    pub fn poll_action(&mut self) -> Option<CrAction> {
        self.actions.pop_front()
    }

    /// When [`handle_timeout`](CrAware::handle_timeout) must next be called.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Time> {
        match self.state {
            State::Running => None,
            State::Frozen { until, .. } => Some(until),
        }
    }

    /// Whether TCP is frozen, and why.
    pub fn frozen(&self) -> Option<FreezeCause> {
        match self.state {
            State::Running => None,
            State::Frozen { cause, .. } => Some(cause),
        }
    }

    /// The counters.
    pub fn stats(&self) -> &CrAwareStats {
        &self.stats
    }

    fn advance(&mut self, now: Time) {
        self.now = self.now.max(now);
        if let State::Frozen { until, cause, .. } = self.state {
            if until <= self.now {
                match cause {
                    FreezeCause::PuStart => self.stats.watchdog_resumes += 1,
                    FreezeCause::AccessFailure => self.stats.probe_resumes += 1,
                }
                self.resume();
                // A resume with no pu_stop is a probe: its one retransmission
                // failing to reach the channel is evidence enough.
                self.failure_run = self.config.access_failures.max(1) - 1;
            }
        }
    }

    fn freeze(&mut self, cause: FreezeCause) {
        let wait = match cause {
            FreezeCause::PuStart => self.config.max_freeze,
            FreezeCause::AccessFailure => self.config.probe_interval,
        };
        self.state = State::Frozen {
            since: self.now,
            cause,
            until: self.now + wait,
        };
        self.stats.freezes += 1;
        self.actions.push_back(CrAction::Freeze);
    }

    fn resume(&mut self) {
        if let State::Frozen { since, .. } = self.state {
            self.stats.frozen_ns += (self.now - since).as_nanos();
        }
        self.state = State::Running;
        self.failure_run = 0;
        self.stats.resumes += 1;
        self.actions.push_back(CrAction::Resume);
    }
}

impl std::ops::AddAssign for CrAwareStats {
    fn add_assign(&mut self, o: CrAwareStats) {
        self.pu_starts += o.pu_starts;
        self.pu_stops += o.pu_stops;
        self.freezes += o.freezes;
        self.access_failure_freezes += o.access_failure_freezes;
        self.access_failures += o.access_failures;
        self.resumes += o.resumes;
        self.watchdog_resumes += o.watchdog_resumes;
        self.probe_resumes += o.probe_resumes;
        self.stray_stops += o.stray_stops;
        self.frozen_ns += o.frozen_ns;
    }
}

/// CR-aware TCP as an agent beside the TCP of a wireless host: it takes
/// `pu_start` / `pu_stop`, channel-access failures and (during a failure
/// run) deliveries, and freezes or resumes every endpoint of its host.
impl Agent for CrAware {
    fn on_signal(&mut self, now: Time, s: &NodeSignal) -> bool {
        match s.signal {
            Signal::PuStart | Signal::PuStop => self.handle_signal(now, &s.signal),
            Signal::Undelivered { .. }
                if s.reason == Some(UndeliveredReason::ChannelAccessFailure) =>
            {
                self.handle_access_failure(now)
            }
            Signal::Delivered { .. } if self.wants_delivery_reports() => self.handle_delivered(now),
            _ => return false,
        }
        true
    }

    fn on_timeout(&mut self, now: Time) {
        self.handle_timeout(now);
    }

    fn poll_action(&mut self) -> Option<Action> {
        let cmd = match CrAware::poll_action(self)? {
            CrAction::Freeze => Command::Freeze,
            CrAction::Resume => Command::Resume,
        };
        Some(Action::Tcp { flow: None, cmd })
    }

    fn poll_timeout(&self) -> Option<Time> {
        CrAware::poll_timeout(self)
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::CrAware(self.stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    fn drain(c: &mut CrAware) -> Vec<CrAction> {
        std::iter::from_fn(|| c.poll_action()).collect()
    }

    fn cfg() -> CrAwareConfig {
        CrAwareConfig {
            max_freeze: Dur::from_secs(10),
            probe_interval: Dur::from_secs(1),
            access_failures: 2,
        }
    }

    #[test]
    fn start_freezes_stop_resumes() {
        let mut c = CrAware::new(cfg());
        c.handle_signal(t(100), &Signal::PuStart);
        assert_eq!(drain(&mut c), vec![CrAction::Freeze]);
        assert_eq!(c.frozen(), Some(FreezeCause::PuStart));
        assert_eq!(c.poll_timeout(), Some(t(10_100)));
        c.handle_signal(t(5_100), &Signal::PuStop);
        assert_eq!(drain(&mut c), vec![CrAction::Resume]);
        assert_eq!(c.frozen(), None);
        assert_eq!(c.poll_timeout(), None);
        assert_eq!(c.stats().frozen_ns, 5_000_000_000);
    }

    #[test]
    fn watchdog_resumes_without_pu_stop_and_late_stop_is_ignored() {
        let mut c = CrAware::new(cfg());
        c.handle_signal(t(0), &Signal::PuStart);
        drain(&mut c);
        c.handle_timeout(t(9_999));
        assert_eq!(drain(&mut c), vec![]);
        c.handle_timeout(t(10_000));
        assert_eq!(drain(&mut c), vec![CrAction::Resume]);
        assert_eq!(c.stats().watchdog_resumes, 1);
        // The watchdog's resume is a probe: one failure refreezes.
        c.handle_access_failure(t(10_030));
        assert_eq!(drain(&mut c), vec![CrAction::Freeze]);
        assert_eq!(c.frozen(), Some(FreezeCause::AccessFailure));
        c.handle_timeout(t(11_030));
        assert_eq!(drain(&mut c), vec![CrAction::Resume]);
        c.handle_delivered(t(11_040));
        c.handle_signal(t(12_000), &Signal::PuStop);
        assert_eq!(drain(&mut c), vec![]);
        assert_eq!(c.stats().stray_stops, 1);
    }

    #[test]
    fn one_access_failure_is_contention_two_in_a_row_a_missed_pu() {
        let mut c = CrAware::new(cfg());
        c.handle_access_failure(t(10));
        assert_eq!(drain(&mut c), vec![]);
        assert!(c.wants_delivery_reports());
        c.handle_delivered(t(20));
        assert!(!c.wants_delivery_reports());
        c.handle_access_failure(t(30));
        assert_eq!(drain(&mut c), vec![], "the run was broken by a delivery");
        c.handle_access_failure(t(40));
        assert_eq!(drain(&mut c), vec![CrAction::Freeze]);
        assert_eq!(c.stats().access_failures, 3);
    }

    #[test]
    fn access_failure_freezes_then_probes_until_the_channel_clears() {
        let mut c = CrAware::new(cfg());
        c.handle_access_failure(t(40));
        assert_eq!(drain(&mut c), vec![]);
        c.handle_access_failure(t(50));
        assert_eq!(drain(&mut c), vec![CrAction::Freeze]);
        assert_eq!(c.frozen(), Some(FreezeCause::AccessFailure));
        // A second failure of an already queued frame changes nothing.
        c.handle_access_failure(t(80));
        assert_eq!(drain(&mut c), vec![]);
        c.handle_timeout(t(1_050));
        assert_eq!(drain(&mut c), vec![CrAction::Resume]);
        // The probe's frame fails: frozen again at once.
        c.handle_access_failure(t(1_090));
        assert_eq!(drain(&mut c), vec![CrAction::Freeze]);
        assert_eq!(c.poll_timeout(), Some(t(2_090)));
        c.handle_timeout(t(2_090));
        assert_eq!(drain(&mut c), vec![CrAction::Resume]);
        assert_eq!(c.stats().probe_resumes, 2);
        assert_eq!(c.stats().access_failure_freezes, 2);
    }

    #[test]
    fn pu_start_during_an_access_failure_freeze_becomes_a_real_freeze() {
        let mut c = CrAware::new(cfg());
        c.handle_access_failure(t(0));
        c.handle_access_failure(t(0));
        drain(&mut c);
        c.handle_signal(t(300), &Signal::PuStart);
        assert_eq!(drain(&mut c), vec![], "no second freeze");
        assert_eq!(c.frozen(), Some(FreezeCause::PuStart));
        assert_eq!(c.poll_timeout(), Some(t(10_300)));
        c.handle_timeout(t(1_000));
        assert_eq!(drain(&mut c), vec![], "no probe once the PU is announced");
        c.handle_signal(t(4_000), &Signal::PuStop);
        assert_eq!(drain(&mut c), vec![CrAction::Resume]);
    }

    #[test]
    fn other_signals_are_ignored() {
        let mut c = CrAware::new(cfg());
        c.handle_signal(t(0), &Signal::Delivered { frame: 3 });
        c.handle_signal(t(0), &Signal::Undelivered { frame: 3 });
        assert_eq!(drain(&mut c), vec![]);
        assert_eq!(c.frozen(), None);
    }
}
