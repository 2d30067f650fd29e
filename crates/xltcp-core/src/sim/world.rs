//! The simulated world: hosts, the base station, wired links, one wireless
//! hop and the agents on the nodes, driven by one event queue.
//!
//! Topology: every flow has its own wired host (CH) with its own access
//! link to the base station (BS), and a wireless host behind the hop (by
//! default its own; flows may share one, see [`Topology`]). The hop is a
//! plug-in ([`crate::hop::Hop`]) and the schemes are agents on the nodes
//! ([`crate::schemes::Agent`]): the world names neither a hop kind nor a
//! scheme. `docs/architecture.md` follows one data segment and its ACK
//! through it.

use super::agents::{AgentSlot, LocalRxmitStats, SignalStats};
use super::engine::EventQueue;
use super::flow::Flow;
use super::output::Output;
use super::rto_cause::Forensics;
use super::topology::Topology;
use crate::hop::{self, AnyHop, Hop, HopOut, HopTimer, TimerSink};
use crate::net::availability::Availability;
use crate::net::delay::DelayLine;
use crate::net::link::{Dest, Link};
use crate::rng::stream;
use crate::scenario::{HostsSpec, Scenario};
use crate::schemes::{self, Node};
use crate::signal::SignalLog;
use crate::time::{Dur, Time};
use crate::wire::SeqNum;
use agents::node_index;
use rand::RngExt;

mod agents;
mod hosts;
mod links;
mod warm;

/// An event of the simulator. Small and `Copy`: the queue never allocates
/// per event once it has grown to its working size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    /// The head of a wired link's propagation pipe arrives.
    Arrive {
        /// Link index.
        link: u32,
    },
    /// A TCP endpoint's timer may be due.
    Timer {
        /// Flow index.
        flow: u32,
        /// Side, as `Side as u8`.
        side: u8,
    },
    /// A segment of a flow's endpoint leaves its host's stack
    /// (`[hosts]`).
    StackOut {
        /// Flow index.
        flow: u32,
        /// Side, as `Side as u8`.
        side: u8,
    },
    /// A flow's client opens its connection.
    Start {
        /// Flow index.
        flow: u32,
    },
    /// The wireless hop's availability changes.
    Availability,
    /// Time-series sampling tick.
    Sample,
    /// Progress report tick.
    Progress,
    /// A link or a hop's direction starts sending the packet a capture
    /// records next (only while capturing; an observer event, like the
    /// ticks).
    CaptureStart {
        /// The transmitter (see `World::capture_later`).
        source: u32,
    },
    /// One of the hop's own timers.
    Hop(HopTimer),
    /// An agent's deadline may be due.
    Agent {
        /// The agent's slot.
        slot: u32,
    },
}

/// Conservation of packets: everything injected is delivered, dropped with
/// a reason, or still held by a link, the hop or an agent at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Accounting {
    /// Packets the endpoints and agents sent into the network.
    pub injected: u64,
    /// Packets handed to an endpoint or consumed by an agent.
    pub delivered: u64,
    /// Packets dropped by links, the hop or agents (every reason).
    pub dropped: u64,
    /// Packets still queued, on the air, propagating or held at the end.
    pub in_flight: u64,
}

impl Accounting {
    /// Whether every packet is accounted for.
    pub fn balances(&self) -> bool {
        self.injected == self.delivered + self.dropped + self.in_flight
    }
}

/// A hop's timers go into the world's queue, stamped with the hop's index.
struct Timers<'a>(&'a mut EventQueue<Ev>, u8);

impl TimerSink for Timers<'_> {
    #[inline]
    fn schedule(&mut self, at: Time, mut timer: HopTimer) {
        timer.hop = self.1;
        self.0.schedule(at, Ev::Hop(timer));
    }
}

/// The stack of the endpoint `name` (`"<flow>.ch"` or `"<flow>.sh"`) for
/// `seed` (`[hosts]`): its segments wait on a line of their own between
/// its TCP and its host's interface, as a real host's take tens of
/// microseconds from the socket to the wire; `None` when `spec` lets them
/// leave at once. Without it an endpoint answers an arriving segment in
/// the same instant, which keeps a wireless host's 802.15.4 backoff
/// periods at one offset from its peer's.
fn host_stack(spec: &HostsSpec, seed: u64, name: &str) -> Option<DelayLine> {
    (spec.stack_delay + spec.stack_jitter > Dur::ZERO).then(|| {
        let jitter = (spec.stack_jitter > Dur::ZERO).then(|| {
            (
                spec.stack_jitter,
                stream(seed, &format!("hosts.{name}.stack")),
            )
        });
        DelayLine::new(spec.stack_delay, jitter)
    })
}

/// The running world.
pub struct World {
    /// The scenario being run.
    pub scenario: Scenario,
    /// The seed of this run.
    pub seed: u64,
    pub(super) q: EventQueue<Ev>,
    /// Wired links: uplink (CH -> BS) of flow i is `2i`, downlink `2i + 1`.
    pub(super) links: Vec<Link>,
    pub(super) flows: Vec<Flow>,
    /// Each endpoint's stack latency (`[hosts]`), flow i's at `2i + side`;
    /// `None` where segments leave at once, and empty when all leave at
    /// once.
    stacks: Vec<Option<DelayLine>>,
    pub(super) topology: Topology,
    /// The hops: the scenario's `[wireless]` (index 0) and any further
    /// `[[wireless]]` entries; each wireless host has an interface on each.
    pub(super) hops: Vec<AnyHop>,
    /// Packets an agent sent to an interface its node does not have.
    pub(super) no_interface: u64,
    /// Output buffers of hop calls, reused (a call made while acting on
    /// the outputs of another takes the next one).
    hop_out: Vec<Vec<HopOut>>,
    pub(super) agents: Vec<AgentSlot>,
    /// Agent slots per node: `[BS, host 0, host 1, ...]`.
    node_agents: Vec<Vec<u32>>,
    pub(super) availability: Availability,
    /// Blocked time of the wireless hop so far, up to `blocked_since`.
    pub(super) blocked_total: Dur,
    blocked_since: Option<Time>,
    /// When the wireless hop's last blockage ended (`Time::ZERO`: none yet).
    unblocked_at: Time,
    /// The drops that explain each flow's RTOs, and the causes found.
    pub(super) forensics: Forensics,
    pub(super) accounting: Accounting,
    pub(super) next_uid: u64,
    pub(super) output: Output,
    end: Time,
    /// Sampling, progress and capture events popped: not part of the
    /// model, so not counted in [`World::events`] (which must not depend
    /// on them).
    observer_events: u64,
    /// While capturing: per transmitter, the packets whose transmission
    /// starts later, for their `CaptureStart` events.
    starting: Vec<std::collections::VecDeque<crate::wire::Packet>>,
    /// Counters of the signal bus.
    pub(super) signals: SignalStats,
    /// Agents' local retransmissions as their receivers found them.
    pub(super) local_rxmits: LocalRxmitStats,
    /// Trace of the signals delivered to agents (with an output folder).
    pub signal_log: Option<SignalLog>,
    /// The most records `signal_log` keeps (the rest are counted in the
    /// output's cut).
    pub signal_log_max: usize,
    /// Whether the event loop fetches the next events' state ahead of
    /// them ([`warm`]): with [`warm::WARM_FLOWS`] flows or more.
    warm: bool,
    /// When the run is one side of a run on two threads: which side, and
    /// the packets sent to the other ([`crate::sim::split`]).
    pub(super) split: Option<super::split::Part>,
    /// Model events the other side of a split run processed (added at
    /// its end).
    pub(super) absorbed_events: u64,
}

impl World {
    /// Builds the world of `scenario` for `seed`; `output` receives traces.
    pub fn new(scenario: Scenario, seed: u64, output: Output) -> World {
        World::with_agents(scenario, seed, output, Vec::new())
    }

    /// As [`World::new`], with `extra` agents placed after the scenario's
    /// (for agents a scenario file cannot name, such as a test's).
    pub fn with_agents(
        scenario: Scenario,
        seed: u64,
        output: Output,
        extra: Vec<(Node, Box<dyn schemes::Agent>)>,
    ) -> World {
        let mut world = World::unstarted(scenario, seed, output, extra);
        world.schedule_starts();
        world.start_network();
        world
    }

    /// The world at time zero, with nothing scheduled.
    pub(super) fn unstarted(
        scenario: Scenario,
        seed: u64,
        output: Output,
        extra: Vec<(Node, Box<dyn schemes::Agent>)>,
    ) -> World {
        let n = scenario.flows.len();
        let mut links = Vec::with_capacity(2 * n);
        let w = &scenario.wired;
        for i in 0..n as u32 {
            for (name, dest) in [
                (format!("ch{i}-bs"), Dest::Bs),
                (format!("bs-ch{i}"), Dest::Ch(i)),
            ] {
                links.push(Link::wired(name, dest, w, seed));
            }
        }
        let topology = Topology::of(&scenario);
        let mut hops = hop::build_all(&scenario, topology.hosts(), seed);
        for h in &mut hops {
            // The queue schedules events ahead cheaply: a point-to-point
            // hop that nothing blocks sends each frame's arrival at once.
            if let AnyHop::P2p(p2p) = h {
                p2p.know_departures();
            }
        }
        let mut iss_rng = stream(seed, "tcp.iss");
        let flows = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let iss = [SeqNum(iss_rng.random()), SeqNum(iss_rng.random())];
                let mut flow = Flow::new(f.clone(), i as u32, iss);
                // Each endpoint's controller draws from its own stream
                // (BBR's PROBE_BW phase); only a controller that draws
                // gets one.
                for (side, ep) in flow.ep.iter_mut().enumerate() {
                    if ep.cc().bbr().is_some() {
                        ep.set_cc_rng(stream(seed, &format!("tcp.cc.{i}.{side}")));
                    }
                }
                flow
            })
            .collect();
        let mut node_agents = vec![Vec::new(); 1 + topology.hosts()];
        let agents = schemes::build_seeded(&scenario, topology.host_of(), seed)
            .into_iter()
            .chain(extra)
            .enumerate()
            .map(|(k, (node, agent))| {
                if let Some(list) = node_agents.get_mut(node_index(node)) {
                    list.push(k as u32);
                }
                AgentSlot::new(node, agent)
            })
            .collect();
        let availability = Availability::new(
            &scenario.wireless.availability,
            stream(seed, "wireless.availability"),
        );
        let end = Time::ZERO + scenario.sim.duration;
        // Empty when no endpoint has a stack latency (the default): the
        // packet path then tests a length, not a per-endpoint entry.
        let any_stack = scenario.hosts.stack_delay + scenario.hosts.stack_jitter > Dur::ZERO;
        let stacks = (0..if any_stack { 2 * n } else { 0 })
            .map(|k| {
                let side = if k % 2 == 0 { "ch" } else { "sh" };
                let name = format!("{}.{side}", scenario.flows[k / 2].name);
                host_stack(&scenario.hosts, seed, &name)
            })
            .collect();
        World {
            seed,
            q: EventQueue::default(),
            links,
            flows,
            stacks,
            topology,
            hops,
            no_interface: 0,
            hop_out: Vec::new(),
            agents,
            node_agents,
            blocked_since: availability.blocked().then_some(Time::ZERO),
            availability,
            blocked_total: Dur::ZERO,
            unblocked_at: Time::ZERO,
            forensics: Forensics::new(n),
            accounting: Accounting::default(),
            next_uid: 0,
            output,
            end,
            scenario,
            observer_events: 0,
            starting: Vec::new(),
            signals: SignalStats::default(),
            local_rxmits: LocalRxmitStats::default(),
            signal_log: None,
            signal_log_max: usize::MAX,
            warm: n >= warm::WARM_FLOWS,
            split: None,
            absorbed_events: 0,
        }
    }

    /// Schedules each flow's start.
    pub(super) fn schedule_starts(&mut self) {
        let starts = self.flows.iter().zip(0..).map(|(f, flow)| {
            let start = Time::ZERO + f.spec.start;
            (start, Ev::Start { flow })
        });
        self.q.schedule_all(starts);
    }

    /// Starts the hops, the channel's availability, the sampling and the
    /// agents.
    pub(super) fn start_network(&mut self) {
        for k in 0..self.hops.len() {
            self.drive_hop(Time::ZERO, k, |hop, now, io| hop.start(now, io));
        }
        if self.availability.blocked() {
            self.drive_hop(Time::ZERO, 0, |hop, now, io| hop.set_blocked(now, true, io));
        }
        let change = self.availability.next_change();
        if change < self.end {
            self.q.schedule(change, Ev::Availability);
        }
        if self.output.sampling() {
            self.q.schedule(Time::ZERO, Ev::Sample);
        }
        // Agents with something to do from the start (a handshake).
        for slot in 0..self.agents.len() {
            if let Some(at) = self.agents[slot].arm(Time::ZERO) {
                self.q.schedule(at, Ev::Agent { slot: slot as u32 });
            }
        }
    }

    /// The end of the run.
    pub fn end(&self) -> Time {
        self.end
    }

    /// Model events processed so far (sampling and progress ticks excluded).
    pub fn events(&self) -> u64 {
        self.q.popped() - self.observer_events + self.absorbed_events
    }

    /// Runs until the end of the scenario, calling `progress(done, total)`
    /// about a hundred times along the way; returns false if `progress`
    /// asked to stop.
    pub fn run(&mut self, mut progress: Option<&mut dyn FnMut(Time, Time) -> bool>) -> bool {
        if progress.is_some() {
            self.start_progress();
        }
        if !self.run_until(self.end, &mut progress) {
            return false;
        }
        self.finish();
        true
    }

    /// Schedules the first progress report.
    pub(super) fn start_progress(&mut self) {
        self.q
            .schedule(Time::ZERO + self.progress_step(), Ev::Progress);
    }

    /// How often the run reports its progress.
    fn progress_step(&self) -> Dur {
        Dur(self.end.as_nanos() / 100).max(Dur::from_millis(1))
    }

    /// Processes the events due by `limit`; returns false if `progress`
    /// asked to stop.
    pub(super) fn run_until(
        &mut self,
        limit: Time,
        progress: &mut Option<&mut dyn FnMut(Time, Time) -> bool>,
    ) -> bool {
        let step = self.progress_step();
        while let Some((now, ev)) = self.q.pop_until(limit) {
            if self.warm {
                self.warm();
            }
            match ev {
                Ev::Arrive { link } => self.on_arrive(now, link as usize),
                Ev::StackOut { flow, side } => self.on_stack_out(now, flow as usize, side as usize),
                Ev::Timer { flow, side } => self.on_timer(now, flow as usize, side as usize),
                Ev::Start { flow } => {
                    let f = &mut self.flows[flow as usize];
                    f.blocked_before_start =
                        self.blocked_total + self.blocked_since.map_or(Dur::ZERO, |s| now - s);
                    f.open(now);
                    let side = f.sender_side();
                    if self.split.as_ref().is_none_or(|p| p.side == side) {
                        self.pump(now, flow as usize, side);
                    }
                }
                Ev::Availability => self.on_availability(now),
                Ev::Hop(t) => self.drive_hop(now, usize::from(t.hop), |hop, now, io| {
                    hop.handle_timer(now, t, io)
                }),
                Ev::Agent { slot } => self.on_agent_timer(now, slot as usize),
                Ev::Sample => {
                    self.observer_events += 1;
                    self.output
                        .sample(now, &mut self.flows, self.availability.blocked());
                    let next = now + self.scenario.sim.sample_interval;
                    if next <= self.end {
                        self.q.schedule(next, Ev::Sample);
                    }
                }
                Ev::CaptureStart { source } => self.on_capture_start(now, source as usize),
                Ev::Progress => {
                    self.observer_events += 1;
                    if let Some(p) = progress.as_mut() {
                        if !p(now, self.end) {
                            return false;
                        }
                    }
                    if now + step <= self.end {
                        self.q.schedule(now + step, Ev::Progress);
                    }
                }
            }
        }
        true
    }

    /// Closes the books at the end of the run: the blocked time, the
    /// transmissions begun by the end, and the packets still in flight.
    pub(super) fn finish(&mut self) {
        if let Some(since) = self.blocked_since.take() {
            self.blocked_total += self.end - since;
        }
        // Transmissions whose start was known ahead are counted once it
        // has come: up to the end, as if each start were an event.
        for l in &mut self.links {
            l.settle(self.end);
        }
        for h in &mut self.hops {
            if let AnyHop::P2p(p2p) = h {
                p2p.settle(self.end);
            }
        }
        self.accounting.in_flight = self.links.iter().map(Link::held).sum::<u64>()
            + self.hops.iter().map(AnyHop::in_flight).sum::<u64>()
            + self.agents.iter().map(|a| a.agent.held()).sum::<u64>()
            + self
                .stacks
                .iter()
                .flatten()
                .map(|s| s.len() as u64)
                .sum::<u64>();
    }

    /// The link directions a capture records, by capture index: each
    /// flow's access link (`ch<i>-bs`, `bs-ch<i>`, in file
    /// `wired-<flow>`), then the hop's down and up directions (file
    /// `wireless`).
    pub fn capture_points(&self) -> Vec<super::output::CaptureSpec> {
        use super::output::CaptureSpec;
        let mut points: Vec<CaptureSpec> = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| CaptureSpec {
                file: format!("wired-{}", self.flows[i / 2].spec.name),
                link: l.name.clone(),
            })
            .collect();
        let names = self.hops[0].link_stats().map(|(name, _)| name.to_string());
        for link in names {
            points.push(CaptureSpec {
                file: "wireless".into(),
                link,
            });
        }
        points
    }
}
