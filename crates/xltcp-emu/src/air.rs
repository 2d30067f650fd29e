//! The simulator's own wireless hops in real time: the 802.15.4 and 802.11
//! hops (`xltcp_core::hop`, built by [`hop::build_all`] from the scenario,
//! with the simulator's random streams) driven from the emulator's
//! deadline heap. A scenario with several `[[wireless]]` entries (hosts
//! with several interfaces) has one hop per entry, each with its own
//! timers (stamped with the hop's index, as in the simulator), drops and
//! signals; a packet takes the hop its `meta.iface` names (an agent such
//! as the UCL picks it), and one that comes off a hop carries its index.
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

/// A hop's timers on the emulator's deadline heap, stamped with the
/// hop's index.
#[derive(Debug)]
pub struct Sink<'a>(&'a mut Deadlines, u8);

impl TimerSink for Sink<'_> {
    fn schedule(&mut self, at: Time, mut timer: HopTimer) {
        timer.hop = self.1;
        self.0.schedule(at, Ev::Hop(timer));
    }
}

/// The simulator's hops, with what the emulator keeps beside them.
#[derive(Debug)]
pub struct Air {
    /// The hops: the scenario's first `[wireless]`, then the further
    /// `[[wireless]]` entries, in order.
    pub hops: Vec<AnyHop>,
    /// Each hop's name (`[[wireless]] name`).
    pub names: Vec<String>,
    /// The station of each flow's wireless host.
    pub station_of_flow: Vec<Station>,
    /// Output buffers, reused (a call made while acting on another's
    /// outputs takes its own).
    pool: Vec<Vec<HopOut>>,
    /// Signals the radios published and the agents used, by type.
    pub signals: SignalStats,
    /// Packets the hops dropped, by reason (all hops).
    pub drops: BTreeMap<&'static str, u64>,
    /// Packets each hop dropped, by reason.
    pub drops_by_hop: Vec<BTreeMap<&'static str, u64>>,
    /// The signals the agents used, in order (`signals.jsonl`), if kept.
    pub trace: Option<SignalLog>,
    /// Signals not kept in the trace (it was full).
    pub not_traced: u64,
}

impl Air {
    /// The simulator's hops of `scenario` for `seed`, started at time zero
    /// (their first timers on `deadlines`); `None` for one point-to-point
    /// hop, which the emulator's own links model.
    pub fn new(scenario: &Scenario, seed: u64, deadlines: &mut Deadlines) -> Option<Air> {
        if scenario.wireless.kind == HopKind::P2p && scenario.more_hops.is_empty() {
            return None;
        }
        let topology = Topology::of(scenario);
        let hops = hop::build_all(scenario, topology.hosts(), seed);
        if hops.is_empty() {
            return None;
        }
        let names = std::iter::once(&scenario.wireless)
            .chain(&scenario.more_hops)
            .map(|w| w.name.clone())
            .collect();
        let mut air = Air {
            drops_by_hop: vec![BTreeMap::new(); hops.len()],
            names,
            hops,
            station_of_flow: (0..scenario.flows.len())
                .map(|f| topology.station_of_flow(f))
                .collect(),
            pool: Vec::new(),
            signals: SignalStats::default(),
            drops: BTreeMap::new(),
            trace: None,
            not_traced: 0,
        };
        for k in 0..air.hops.len() {
            let out = air.call(k, deadlines, Time::ZERO, false, |h, now, io| {
                h.start(now, io)
            });
            // Starting publishes nothing the engine must act on.
            air.recycle(out);
        }
        Some(air)
    }

    /// Calls into hop `k` with its timers on `deadlines`; returns its
    /// outputs, for the caller to act on and hand back with
    /// [`Air::recycle`].
    pub fn call(
        &mut self,
        k: usize,
        deadlines: &mut Deadlines,
        now: Time,
        capture: bool,
        f: impl FnOnce(&mut AnyHop, Time, HopIo<'_, Sink<'_>>),
    ) -> Vec<HopOut> {
        let mut out = self.pool.pop().unwrap_or_default();
        let io = HopIo {
            timers: &mut Sink(deadlines, k as u8),
            out: &mut out,
            capture,
        };
        f(&mut self.hops[k], now, io);
        out
    }

    /// Counts a packet hop `k` dropped for `reason`.
    pub fn count_drop(&mut self, k: usize, reason: &'static str) {
        *self.drops.entry(reason).or_insert(0) += 1;
        if let Some(m) = self.drops_by_hop.get_mut(k) {
            *m.entry(reason).or_insert(0) += 1;
        }
    }

    /// The first hop (the scenario's `[wireless]`).
    pub fn first(&self) -> &AnyHop {
        &self.hops[0]
    }

    /// Whether any hop's radios publish signals.
    pub fn publishes_signals(&self) -> bool {
        self.hops.iter().any(|h| h.publishes_signals())
    }

    /// Packets the hops hold (queued, on the air).
    pub fn in_flight(&self) -> u64 {
        self.hops.iter().map(|h| h.in_flight()).sum()
    }

    /// Gives back an output buffer.
    pub fn recycle(&mut self, mut out: Vec<HopOut>) {
        out.clear();
        self.pool.push(out);
    }

    /// Keeps a signal an agent used in the trace, if one is kept.
    pub fn trace(
        &mut self,
        at: Time,
        station: Station,
        iface: u8,
        signal: xltcp_core::signal::Signal,
    ) {
        if let Some(log) = self.trace.as_mut() {
            if log.len() < TRACE_MAX {
                log.push_on(at, station as u32, iface, signal);
            } else {
                self.not_traced += 1;
            }
        }
    }

    /// The name of a timer's kind for the lateness report.
    pub fn timer_name(&self, t: HopTimer) -> &'static str {
        self.hops
            .get(usize::from(t.hop))
            .map_or("hop", |h| h.timer_name(t.kind))
    }
}
