//! The simulator's own wireless hop in real time: the 802.15.4 and 802.11
//! hops (`xltcp_core::hop`, built by [`hop::build_all`] from the scenario,
//! with the simulator's random streams) driven from the emulator's
//! deadline heap.
//!
//! The hop sees what it sees in the simulator: the compact [`Packet`] of
//! each datagram (its uid the slot of the real bytes in the emulator's
//! slab). Its timers ([`HopTimer`]) go on the emulator's deadline heap as
//! [`Ev::Hop`] and come back to [`Hop::handle_timer`](xltcp_core::hop::Hop::handle_timer) at their time; what
//! it reports ([`HopOut`]) is acted on by the caller in order
//! ([`crate::hop::Hop`]): `Arrived` delivers the real bytes, `Dropped`
//! frees them and counts the reason, `Signal` goes to the agents of the
//! station and into the signal trace, `OnAir` into the capture.
//!
//! The point-to-point hop keeps the emulator's own links
//! ([`crate::hop`]): they are the simulator's links, and its conformance
//! tests (captures of transmission starts, blocked time) were written
//! against them.

use crate::sched::{Deadlines, Ev};
use std::collections::BTreeMap;
use xltcp_core::hop::{self, AnyHop, Hop as _, HopIo, HopOut, HopTimer, Station, TimerSink};
use xltcp_core::scenario::{HopKind, Scenario};
use xltcp_core::signal::SignalLog;
use xltcp_core::sim::agents::SignalStats;
use xltcp_core::sim::topology::Topology;
use xltcp_core::time::Time;
#[cfg(doc)]
use xltcp_core::wire::Packet;

/// Records kept in the signal trace at most (a line takes ~64 bytes).
const TRACE_MAX: usize = 1 << 20;

/// The hop's timers on the emulator's deadline heap.
#[derive(Debug)]
pub struct Sink<'a>(&'a mut Deadlines);

impl TimerSink for Sink<'_> {
    fn schedule(&mut self, at: Time, timer: HopTimer) {
        self.0.schedule(at, Ev::Hop(timer));
    }
}

/// One of the simulator's hops, with what the emulator keeps beside it.
#[derive(Debug)]
pub struct Air {
    /// The hop.
    pub hop: AnyHop,
    /// The station of each flow's wireless host.
    pub station_of_flow: Vec<Station>,
    /// Output buffers, reused (a call made while acting on another's
    /// outputs takes its own).
    pool: Vec<Vec<HopOut>>,
    /// Signals the radios published and the agents used, by type.
    pub signals: SignalStats,
    /// Packets the hop dropped, by reason.
    pub drops: BTreeMap<&'static str, u64>,
    /// The signals the agents used, in order (`signals.jsonl`), if kept.
    pub trace: Option<SignalLog>,
    /// Signals not kept in the trace (it was full).
    pub not_traced: u64,
}

impl Air {
    /// The simulator's hop of `scenario` for `seed`, started at time zero
    /// (its first timers on `deadlines`); `None` for the point-to-point
    /// hop, which the emulator's own links model.
    pub fn new(scenario: &Scenario, seed: u64, deadlines: &mut Deadlines) -> Option<Air> {
        if scenario.wireless.kind == HopKind::P2p {
            return None;
        }
        let topology = Topology::of(scenario);
        let hop = hop::build_all(scenario, topology.hosts(), seed)
            .into_iter()
            .next()?;
        let mut air = Air {
            hop,
            station_of_flow: (0..scenario.flows.len())
                .map(|f| topology.station_of_flow(f))
                .collect(),
            pool: Vec::new(),
            signals: SignalStats::default(),
            drops: BTreeMap::new(),
            trace: None,
            not_traced: 0,
        };
        let out = air.call(deadlines, Time::ZERO, false, |h, now, io| h.start(now, io));
        // Starting publishes nothing the engine must act on.
        air.recycle(out);
        Some(air)
    }

    /// Calls into the hop with its timers on `deadlines`; returns its
    /// outputs, for the caller to act on and hand back with
    /// [`Air::recycle`].
    pub fn call(
        &mut self,
        deadlines: &mut Deadlines,
        now: Time,
        capture: bool,
        f: impl FnOnce(&mut AnyHop, Time, HopIo<'_, Sink<'_>>),
    ) -> Vec<HopOut> {
        let mut out = self.pool.pop().unwrap_or_default();
        let io = HopIo {
            timers: &mut Sink(deadlines),
            out: &mut out,
            capture,
        };
        f(&mut self.hop, now, io);
        out
    }

    /// Gives back an output buffer.
    pub fn recycle(&mut self, mut out: Vec<HopOut>) {
        out.clear();
        self.pool.push(out);
    }

    /// Keeps a signal an agent used in the trace, if one is kept.
    pub fn trace(&mut self, at: Time, station: Station, signal: xltcp_core::signal::Signal) {
        if let Some(log) = self.trace.as_mut() {
            if log.len() < TRACE_MAX {
                log.push_on(at, station as u32, 0, signal);
            } else {
                self.not_traced += 1;
            }
        }
    }

    /// The name of a timer's kind for the lateness report.
    pub fn timer_name(&self, t: HopTimer) -> &'static str {
        self.hop.timer_name(t.kind)
    }
}
