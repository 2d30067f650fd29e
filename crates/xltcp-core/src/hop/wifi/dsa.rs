//! The disruptions of a dynamic-spectrum-access cell (`[wireless.dsa]`):
//! sensing quiet periods of the whole cell and of each host, and channel
//! switches. Primary-user activity is the hop's availability process
//! (`[wireless.availability]`); together these are the transmission freeze
//! periods (TFPs) of paper 001: `TFP_i = switching | cell_sensing |
//! node_i_sensing | pu_on`.
//!
//! - **Node sensing**: host `h` is quiet for `node_sensing_for` every
//!   `node_sensing_every`, from a phase drawn uniformly in `[0, every)` from
//!   stream `dsa.node.<h>` (hosts do not sense in lockstep).
//! - **Cell sensing**: the whole cell is quiet for `cell_sensing_for` every
//!   `cell_sensing_every`, phase from `dsa.cell`.
//! - **Channel switches** at `switch_at` times, or at `switch_every`
//!   intervals (stream `dsa.switch`): the cell is frozen for `switch_delay`,
//!   then every station uses the next channel's rate (`channels`, cycling).
//!
//! What a TFP does on the air (the hop applies it, see `hop::wifi`): a
//! frozen station neither transmits nor receives; a frame on the air to or
//! from it is lost. What it does to the frames waiting in the MACs is
//! `tfp_queue`:
//!
//! - `"hold"` (default): frames for a frozen host wait in the AP's MAC
//!   queue: the AP holds its head-of-line frame while its receiver is
//!   frozen (one FIFO interface queue, so a frozen host's frame also holds
//!   the frames behind it), and drops new frames only when that queue is
//!   full. An idealised driver that knows every host's schedule.
//! - `"flush"`: the paper-001 testbed's driver (MadWifi 0.9.4, whose
//!   `ath_chan_set` clears the pending transmit frames whenever the radio
//!   is retuned). A channel switch or a cell-wide sensing period clears
//!   every station's queue as it begins; a host's own sensing clears that
//!   host's queue. The AP does not know when a host senses: it keeps
//!   sending to it, and the frames that find it deaf are given up at the
//!   retry limit. Primary users are heard, not retuned for (the paper's
//!   incumbent was within carrier-sense range of the cell): frames wait.
//! - `"drop"`: as `"flush"`, and a station in a TFP (primary users
//!   included: its driver is stopped) clears its queue as the TFP begins
//!   and drops every frame it is handed until the TFP ends.
//!
//!   The queue is cleared an instant after the TFP's signals, so an agent
//!   at the BS that acts on `tfp_start` (DSASync's Algorithm 2, line 11)
//!   takes its packets back first.
//!
//! The schedule depends on time and the seed alone, never on traffic.

use crate::net::availability::draw;
use crate::radio::wifi::Rate;
use crate::rng::{stream, Rng};
use crate::scenario::DsaSpec;
use crate::time::{Dur, Time};
use rand::RngExt;
use serde::Serialize;

/// A change of the cell's TFP state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Change {
    /// The whole cell starts (true) or stops sensing.
    CellSensing(bool),
    /// Host `h` starts or stops sensing.
    NodeSensing(u32, bool),
    /// A channel switch begins, toward this channel (index) and rate.
    SwitchStart(usize, Rate),
    /// The switch is over: the new channel is in use.
    SwitchEnd(usize, Rate),
}

/// Stations whose queues a change clears (`tfp_queue = "flush"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flush {
    /// None.
    Nobody,
    /// Every station (a cell-wide retune).
    All,
    /// The station of host `h` (its own sensing).
    Host(u32),
}

impl Change {
    /// Which queues the change clears under `tfp_queue = "flush"`.
    pub fn flushes(self) -> Flush {
        match self {
            Change::CellSensing(true) | Change::SwitchStart(..) => Flush::All,
            Change::NodeSensing(h, true) => Flush::Host(h),
            _ => Flush::Nobody,
        }
    }
}

/// A timer of the cell: which process, the host, and whether it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DsaEv {
    Cell(bool),
    Node(u32, bool),
    Switch(bool),
}

/// Counters of the cell's disruptions (the summary's `wifi.dsa`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DsaStats {
    /// Cell-wide sensing periods begun.
    pub cell_sensing_periods: u64,
    /// Host sensing periods begun (all hosts).
    pub node_sensing_periods: u64,
    /// Channel switches begun.
    pub switches: u64,
    /// The channel in use at the end (index into `channels`).
    pub channel: usize,
    /// Frames cleared from the MAC queues by retunes (`tfp_queue =
    /// "flush"`), both directions.
    pub flushed_frames: u64,
    /// Seconds each host spent in a TFP of its own or of the cell (primary
    /// users included), up to the end of the run.
    pub host_tfp_s: Vec<f64>,
}

/// The cell's disruption processes and its TFP state.
#[derive(Debug)]
pub(super) struct DsaCell {
    spec: DsaSpec,
    node_phase: Vec<Dur>,
    cell_phase: Dur,
    switch_rng: Rng,
    next_switch: usize,
    /// The whole cell is sensing.
    pub sensing: bool,
    /// The cell is switching channel.
    pub switching: bool,
    /// Each host is sensing.
    pub node: Vec<bool>,
    /// The channel in use.
    pub channel: usize,
    /// Since when each host is frozen (any cause), and its total so far.
    frozen_since: Vec<Option<Time>>,
    frozen_total: Vec<Dur>,
    stats: DsaStats,
}

impl DsaCell {
    /// The processes of `spec` for `hosts` hosts, seeded from `seed`.
    pub fn new(spec: &DsaSpec, hosts: usize, seed: u64) -> DsaCell {
        let phase = |every: Option<Dur>, rng: &mut Rng| {
            every.map_or(Dur::ZERO, |e| {
                Dur::from_nanos(rng.random_range(0..e.as_nanos().max(1)))
            })
        };
        let node_every = spec.node_sensing.map(|p| p.0);
        let node_phase = (0..hosts)
            .map(|h| phase(node_every, &mut stream(seed, &format!("dsa.node.{h}"))))
            .collect();
        let cell_phase = phase(
            spec.cell_sensing.map(|p| p.0),
            &mut stream(seed, "dsa.cell"),
        );
        DsaCell {
            spec: spec.clone(),
            node_phase,
            cell_phase,
            switch_rng: stream(seed, "dsa.switch"),
            next_switch: 0,
            sensing: false,
            switching: false,
            node: vec![false; hosts],
            channel: 0,
            frozen_since: vec![None; hosts],
            frozen_total: vec![Dur::ZERO; hosts],
            stats: DsaStats::default(),
        }
    }

    /// The first timers: (when, what).
    pub fn start(&mut self) -> Vec<(Time, DsaEv)> {
        let mut t = Vec::new();
        if self.spec.cell_sensing.is_some() {
            t.push((Time::ZERO + self.cell_phase, DsaEv::Cell(true)));
        }
        if self.spec.node_sensing.is_some() {
            for (h, &p) in self.node_phase.iter().enumerate() {
                t.push((Time::ZERO + p, DsaEv::Node(h as u32, true)));
            }
        }
        if let Some(at) = self.next_switch_after(Time::ZERO) {
            t.push((at, DsaEv::Switch(true)));
        }
        t
    }

    /// When the next switch after one beginning at `now` begins.
    fn next_switch_after(&mut self, now: Time) -> Option<Time> {
        if let Some(p) = self.spec.switch_every {
            return Some(now + draw(p, &mut self.switch_rng));
        }
        let at = *self.spec.switch_at.get(self.next_switch)?;
        self.next_switch += 1;
        Some(Time::ZERO + at)
    }

    /// Whether the whole cell is frozen by its own processes.
    pub fn cell_frozen(&self) -> bool {
        self.sensing || self.switching
    }

    /// A timer is due: the change it makes and the timers that follow.
    pub fn handle(&mut self, now: Time, ev: DsaEv) -> (Change, Vec<(Time, DsaEv)>) {
        match ev {
            DsaEv::Cell(start) => {
                let (every, len) = self.spec.cell_sensing.unwrap_or_default();
                self.sensing = start;
                let next = if start {
                    self.stats.cell_sensing_periods += 1;
                    (now + len, DsaEv::Cell(false))
                } else {
                    (now + (every - len), DsaEv::Cell(true))
                };
                (Change::CellSensing(start), vec![next])
            }
            DsaEv::Node(h, start) => {
                let (every, len) = self.spec.node_sensing.unwrap_or_default();
                self.node[h as usize] = start;
                let next = if start {
                    self.stats.node_sensing_periods += 1;
                    (now + len, DsaEv::Node(h, false))
                } else {
                    (now + (every - len), DsaEv::Node(h, true))
                };
                (Change::NodeSensing(h, start), vec![next])
            }
            DsaEv::Switch(true) => {
                self.switching = true;
                self.stats.switches += 1;
                let next = (self.channel + 1) % self.spec.channels.len();
                let mut t = vec![(now + self.spec.switch_delay, DsaEv::Switch(false))];
                if let Some(at) = self.next_switch_after(now) {
                    // A switch does not begin while one is under way.
                    t.push((at.max(now + self.spec.switch_delay), DsaEv::Switch(true)));
                }
                (Change::SwitchStart(next, self.spec.channels[next]), t)
            }
            DsaEv::Switch(false) => {
                self.switching = false;
                self.channel = (self.channel + 1) % self.spec.channels.len();
                let c = self.channel;
                (Change::SwitchEnd(c, self.spec.channels[c]), Vec::new())
            }
        }
    }

    /// Records whether host `h` is frozen (any cause) from `now` on.
    pub fn note_frozen(&mut self, now: Time, h: usize, frozen: bool) {
        match (self.frozen_since[h], frozen) {
            (None, true) => self.frozen_since[h] = Some(now),
            (Some(since), false) => {
                self.frozen_total[h] += now - since;
                self.frozen_since[h] = None;
            }
            _ => {}
        }
    }

    /// Whether TFPs clear the MAC queues (`tfp_queue = "flush"`).
    pub fn flushes(&self) -> bool {
        self.spec.tfp_queue != crate::scenario::TfpQueue::Hold
    }

    /// Whether a station in a TFP drops what it is handed (`tfp_queue =
    /// "drop"`).
    pub fn drops_when_frozen(&self) -> bool {
        self.spec.tfp_queue == crate::scenario::TfpQueue::Drop
    }

    /// Counts frames a retune cleared.
    pub fn count_flushed(&mut self, frames: u64) {
        self.stats.flushed_frames += frames;
    }

    /// The counters at `end`.
    pub fn stats_at(&self, end: Time) -> DsaStats {
        let host_tfp_s = (0..self.node.len())
            .map(|h| {
                let open = self.frozen_since[h].map_or(Dur::ZERO, |s| end.saturating_since(s));
                (self.frozen_total[h] + open).as_secs_f64()
            })
            .collect();
        DsaStats {
            channel: self.channel,
            host_tfp_s,
            ..self.stats.clone()
        }
    }
}

impl DsaEv {
    /// Encodes the timer as (a, b) of a `HopTimer` of kind K4.
    pub fn encode(self) -> (u32, u64) {
        match self {
            DsaEv::Cell(s) => (0, u64::from(s)),
            DsaEv::Node(h, s) => (h, 2 | u64::from(s)),
            DsaEv::Switch(s) => (0, 4 | u64::from(s)),
        }
    }

    /// Decodes [`DsaEv::encode`].
    pub fn decode(a: u32, b: u64) -> DsaEv {
        let start = b & 1 == 1;
        match b >> 1 {
            0 => DsaEv::Cell(start),
            1 => DsaEv::Node(a, start),
            _ => DsaEv::Switch(start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> DsaSpec {
        DsaSpec {
            node_sensing: Some((Dur::from_millis(500), Dur::from_millis(25))),
            cell_sensing: None,
            switch_at: vec![Dur::from_secs(5)],
            switch_every: None,
            switch_delay: Dur::from_millis(100),
            channels: vec![Rate::Ofdm24, Rate::Ofdm12],
            tfp_queue: Default::default(),
        }
    }

    /// Runs the cell's timers until `end`; returns the changes in order.
    fn run(cell: &mut DsaCell, end: Time) -> Vec<(Time, Change)> {
        let mut q: Vec<(Time, DsaEv)> = cell.start();
        let mut out = Vec::new();
        loop {
            q.sort_by_key(|&(t, e)| (t, e.encode()));
            if q.is_empty() || q[0].0 >= end {
                return out;
            }
            let (t, e) = q.remove(0);
            let (c, next) = cell.handle(t, e);
            out.push((t, c));
            q.extend(next);
        }
    }

    #[test]
    fn each_host_senses_five_percent_of_the_time_with_its_own_phase() {
        let mut cell = DsaCell::new(&spec(), 3, 1);
        let changes = run(&mut cell, Time::ZERO + Dur::from_secs(20));
        for h in 0..3u32 {
            let starts: Vec<Time> = changes
                .iter()
                .filter(|(_, c)| *c == Change::NodeSensing(h, true))
                .map(|&(t, _)| t)
                .collect();
            assert_eq!(starts.len(), 40, "host {h}");
            assert!(starts
                .windows(2)
                .all(|w| w[1] - w[0] == Dur::from_millis(500)));
        }
        let phases: Vec<Dur> = cell.node_phase.clone();
        assert!(
            phases[0] != phases[1] && phases[1] != phases[2],
            "{phases:?}"
        );
    }

    #[test]
    fn a_switch_freezes_the_cell_then_changes_the_rate() {
        let mut cell = DsaCell::new(&spec(), 1, 1);
        let changes = run(&mut cell, Time::ZERO + Dur::from_secs(20));
        let switch: Vec<(Time, Change)> = changes
            .into_iter()
            .filter(|(_, c)| matches!(c, Change::SwitchStart(..) | Change::SwitchEnd(..)))
            .collect();
        let at = |ms: u64| Time::ZERO + Dur::from_millis(ms);
        assert_eq!(
            switch,
            vec![
                (at(5000), Change::SwitchStart(1, Rate::Ofdm12)),
                (at(5100), Change::SwitchEnd(1, Rate::Ofdm12)),
            ]
        );
        assert_eq!(cell.channel, 1);
    }

    #[test]
    fn timers_encode_and_decode() {
        for e in [
            DsaEv::Cell(true),
            DsaEv::Cell(false),
            DsaEv::Node(7, true),
            DsaEv::Node(0, false),
            DsaEv::Switch(true),
            DsaEv::Switch(false),
        ] {
            let (a, b) = e.encode();
            assert_eq!(DsaEv::decode(a, b), e);
        }
    }
}
