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
use super::flow::{Flow, Side};
use super::output::Output;
use super::rto_cause::{FlowView, Forensics};
use super::topology::Topology;
use crate::hop::{self, AnyHop, Hop, HopIo, HopOut, HopTimer, Station, TimerSink, BS};
use crate::net::availability::Availability;
use crate::net::delay::DelayLine;
use crate::net::link::{Dest, Link, Wake};
use crate::rng::stream;
use crate::scenario::{HostsSpec, Scenario};
use crate::schemes::{self, Action, Node, NodeSignal, Tap, Verdict, Via};
use crate::signal::{Signal, SignalLog};
use crate::time::{Dur, Time};
use crate::wire::{Packet, PacketMeta, SeqNum};
use rand::RngExt;

/// An event of the simulator. Small and `Copy`: the queue never allocates
/// per event once it has grown to its working size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    /// A wired link finished serialising the frame of this generation.
    TxDone {
        /// Link index.
        link: u32,
        /// Transmission generation (stale ones are ignored).
        gen: u32,
    },
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
    /// `None` where segments leave at once.
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
    /// Sampling and progress ticks popped: not part of the model, so not
    /// counted in [`World::events`] (which must not depend on them).
    observer_events: u64,
    /// Counters of the signal bus.
    pub(super) signals: SignalStats,
    /// Agents' local retransmissions as their receivers found them.
    pub(super) local_rxmits: LocalRxmitStats,
    /// Trace of the signals delivered to agents (with an output folder).
    pub signal_log: Option<SignalLog>,
    /// The most records `signal_log` keeps (the rest are counted in the
    /// output's cut).
    pub signal_log_max: usize,
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
        let hops = hop::build_all(&scenario, topology.hosts(), seed);
        let mut iss_rng = stream(seed, "tcp.iss");
        let flows = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let iss = [SeqNum(iss_rng.random()), SeqNum(iss_rng.random())];
                Flow::new(f.clone(), i as u32, iss)
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
        let stacks = (0..2 * n)
            .map(|k| {
                let side = if k % 2 == 0 { "ch" } else { "sh" };
                let name = format!("{}.{side}", scenario.flows[k / 2].name);
                host_stack(&scenario.hosts, seed, &name)
            })
            .collect();
        let mut world = World {
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
            signals: SignalStats::default(),
            local_rxmits: LocalRxmitStats::default(),
            signal_log: None,
            signal_log_max: usize::MAX,
        };
        for i in 0..n {
            let start = Time::ZERO + world.flows[i].spec.start;
            world.q.schedule(start, Ev::Start { flow: i as u32 });
        }
        for k in 0..world.hops.len() {
            world.drive_hop(Time::ZERO, k, |hop, now, io| hop.start(now, io));
        }
        if world.availability.blocked() {
            world.drive_hop(Time::ZERO, 0, |hop, now, io| hop.set_blocked(now, true, io));
        }
        let change = world.availability.next_change();
        if change < end {
            world.q.schedule(change, Ev::Availability);
        }
        if world.output.sampling() {
            world.q.schedule(Time::ZERO, Ev::Sample);
        }
        // Agents with something to do from the start (a handshake).
        for slot in 0..world.agents.len() {
            if let Some(at) = world.agents[slot].arm(Time::ZERO) {
                world.q.schedule(at, Ev::Agent { slot: slot as u32 });
            }
        }
        world
    }

    /// The end of the run.
    pub fn end(&self) -> Time {
        self.end
    }

    /// Model events processed so far (sampling and progress ticks excluded).
    pub fn events(&self) -> u64 {
        self.q.popped() - self.observer_events
    }

    /// Runs until the end of the scenario, calling `progress(done, total)`
    /// about a hundred times along the way; returns false if `progress`
    /// asked to stop.
    pub fn run(&mut self, mut progress: Option<&mut dyn FnMut(Time, Time) -> bool>) -> bool {
        let step = Dur(self.end.as_nanos() / 100).max(Dur::from_millis(1));
        if progress.is_some() {
            self.q.schedule(Time::ZERO + step, Ev::Progress);
        }
        while let Some((now, ev)) = self.q.pop_until(self.end) {
            match ev {
                Ev::TxDone { link, gen } => self.on_tx_done(now, link as usize, gen),
                Ev::Arrive { link } => self.on_arrive(now, link as usize),
                Ev::StackOut { flow, side } => self.on_stack_out(now, flow as usize, side as usize),
                Ev::Timer { flow, side } => self.on_timer(now, flow as usize, side as usize),
                Ev::Start { flow } => {
                    let f = &mut self.flows[flow as usize];
                    f.blocked_before_start =
                        self.blocked_total + self.blocked_since.map_or(Dur::ZERO, |s| now - s);
                    f.open(now);
                    let side = f.sender_side();
                    self.pump(now, flow as usize, side);
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
        if let Some(since) = self.blocked_since.take() {
            self.blocked_total += self.end - since;
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
        true
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

    // ---- wired links -------------------------------------------------

    /// Schedules what a wired link asked for; every transmission starts at `now`.
    /// `victim` is the packet a drop refers to (only needed while capturing).
    fn apply(&mut self, now: Time, link: usize, wake: Wake, victim: Option<Packet>) {
        if let Some((at, gen)) = wake.tx_done {
            if let Some(p) = self.links[link].in_tx() {
                self.output.capture(link, now, p);
            }
            let link = link as u32;
            self.q.schedule(at, Ev::TxDone { link, gen });
        }
        if let Some(at) = wake.arrival {
            self.q.schedule(at, Ev::Arrive { link: link as u32 });
        }
        if let Some(why) = wake.dropped {
            self.accounting.dropped += 1;
            if let Some(p) = victim {
                self.output
                    .capture_drop(link, now, &p, crate::hop::HopDrop::Link(why));
            }
        }
    }

    fn send_wired(&mut self, now: Time, link: usize, p: Packet) {
        let wake = self.links[link].offer(now, p, true);
        if let Some(why) = wake.dropped {
            self.note_drop(now, &p, Some(hop::HopDrop::Link(why)), false);
        }
        self.apply(now, link, wake, Some(p));
    }

    fn on_tx_done(&mut self, now: Time, link: usize, gen: u32) {
        // The frame whose transmission ends: the one a loss would drop.
        let victim = self
            .output
            .capturing()
            .then(|| self.links[link].in_tx().copied())
            .flatten();
        let wake = self.links[link].tx_done(now, gen, true);
        self.apply(now, link, wake, victim);
    }

    fn on_arrive(&mut self, now: Time, link: usize) {
        let (packet, next) = self.links[link].arrive(now);
        if let Some(at) = next {
            self.q.schedule(at, Ev::Arrive { link: link as u32 });
        }
        let Some(mut p) = packet else { return };
        self.output.capture_rx(link, now, &p);
        let flow = p.meta.flow as usize;
        match self.links[link].dest {
            // At the BS, from a wired host: onto the air.
            Dest::Bs => {
                let v = self.tap(now, Node::Bs, Tap::BsDown, &mut p);
                if v == Verdict::Pass {
                    self.send_from(now, Node::Bs, Via::Air, &p);
                }
                self.settle(v);
                self.drain(now, Node::Bs);
            }
            Dest::Ch(_) | Dest::ShOfFlow => self.deliver(now, flow, Side::Ch, p),
        }
    }

    // ---- the hop -----------------------------------------------------

    /// Hands `p` to the interface `p.meta.iface` of station `from`, for
    /// `to` (`first`: ahead of the packets waiting there).
    fn hop_send(&mut self, now: Time, from: Station, to: Station, p: &Packet, first: bool) {
        let k = usize::from(p.meta.iface);
        if k >= self.hops.len() {
            self.no_interface += 1;
            self.accounting.dropped += 1;
            return;
        }
        if first {
            self.drive_hop(now, k, |hop, now, io| {
                hop.enqueue_first(now, from, to, p, io)
            });
        } else {
            self.drive_hop(now, k, |hop, now, io| hop.enqueue(now, from, to, p, io));
        }
    }

    /// Calls into hop `k` with its timers and an output buffer, then acts
    /// on the outputs in order.
    #[inline]
    fn drive_hop(
        &mut self,
        now: Time,
        k: usize,
        call: impl FnOnce(&mut AnyHop, Time, HopIo<'_, Timers<'_>>),
    ) {
        let mut out = self.hop_out.pop().unwrap_or_default();
        let io = HopIo {
            timers: &mut Timers(&mut self.q, k as u8),
            out: &mut out,
            capture: self.output.capturing(),
        };
        call(&mut self.hops[k], now, io);
        for o in &out {
            match o {
                HopOut::Arrived {
                    station: BS,
                    packet,
                } => {
                    self.output
                        .capture_rx(2 * self.flows.len() + 1, now, packet);
                    let mut packet = *packet;
                    packet.meta.iface = k as u8;
                    let v = self.tap(now, Node::Bs, Tap::BsUp, &mut packet);
                    if v == Verdict::Pass {
                        self.send_from(now, Node::Bs, Via::Wire, &packet);
                    }
                    self.settle(v);
                    self.drain(now, Node::Bs);
                }
                HopOut::Arrived { packet, .. } => {
                    self.output.capture_rx(2 * self.flows.len(), now, packet);
                    let mut packet = *packet;
                    packet.meta.iface = k as u8;
                    self.deliver(now, packet.meta.flow as usize, Side::Sh, packet)
                }
                HopOut::Dropped {
                    station,
                    packet,
                    why,
                } => {
                    self.accounting.dropped += 1;
                    // The availability process blocks the first hop only.
                    let blocked = k == 0 && self.availability.blocked();
                    self.note_drop(now, packet, Some(*why), blocked);
                    // The sender's direction: the BS sends down.
                    let capture = 2 * self.flows.len() + usize::from(*station != BS);
                    self.output.capture_drop(capture, now, packet, *why);
                }
                HopOut::Signal {
                    station,
                    signal,
                    reason,
                    packet,
                    delays,
                } => {
                    let mut signal = *signal;
                    if let Signal::Snr { iface, .. } = &mut signal {
                        *iface = k as u8;
                    }
                    let s = NodeSignal {
                        signal,
                        reason: *reason,
                        packet: *packet,
                        delays: *delays,
                        iface: k as u8,
                    };
                    self.publish(now, *station, s)
                }
                HopOut::OnAir { down, packet } => {
                    let capture = 2 * self.flows.len() + usize::from(!down);
                    self.output.capture(capture, now, packet);
                }
                HopOut::Air(frame) => self.output.capture_air(now, frame),
            }
        }
        out.clear();
        self.hop_out.push(out);
    }

    fn on_availability(&mut self, now: Time) {
        self.availability.advance();
        let blocked = self.availability.blocked();
        if blocked {
            self.blocked_since = Some(now);
        } else if let Some(since) = self.blocked_since.take() {
            self.blocked_total += now - since;
            self.unblocked_at = now;
        }
        self.output.hop_blocked(now, blocked);
        self.drive_hop(now, 0, |hop, now, io| hop.set_blocked(now, blocked, io));
        let next = self.availability.next_change();
        if next < self.end {
            self.q.schedule(next, Ev::Availability);
        }
    }

    // ---- hosts -------------------------------------------------------

    /// The node of a flow's endpoint.
    fn node_of(&self, flow: usize, side: Side) -> Node {
        match side {
            Side::Ch => Node::Wired(flow as u32),
            Side::Sh => Node::Host(self.topology.host_of()[flow]),
        }
    }

    fn deliver(&mut self, now: Time, flow: usize, side: Side, mut p: Packet) {
        let node = self.node_of(flow, side);
        let v = self.tap(now, node, Tap::HostIn, &mut p);
        if v == Verdict::Pass {
            self.accounting.delivered += 1;
            let ep = &mut self.flows[flow].ep[side as usize];
            if p.meta.forged && p.tcp.payload_len > 0 {
                // An agent's local retransmission: was it needed?
                self.local_rxmits.delivered += 1;
                let end = p.tcp.seq + p.tcp.payload_len;
                if ep.holds(p.tcp.seq, end) {
                    self.local_rxmits.unnecessary += 1;
                }
            }
            ep.handle_segment(now, &p.tcp);
        }
        self.settle(v);
        self.drain(now, node);
        if v == Verdict::Pass {
            self.pump(now, flow, side);
        }
    }

    fn on_timer(&mut self, now: Time, flow: usize, side: usize) {
        let f = &mut self.flows[flow];
        if f.timer_armed[side] == now {
            f.timer_armed[side] = Time::NEVER;
        }
        match f.ep[side].poll_timeout() {
            Some(t) if t <= now => {
                let ep = &f.ep[side];
                let (rtos, una, rto) = (ep.stats().rto_count, ep.snd_una(), ep.rto());
                f.ep[side].handle_timeout(now);
                let sender = f.sender_side() as usize == side;
                if sender && f.ep[side].stats().rto_count > rtos {
                    self.classify_rto(now, flow, side, una, rto);
                }
            }
            _ => {}
        }
        let s = if side == 0 { Side::Ch } else { Side::Sh };
        self.pump(now, flow, s);
    }

    /// Puts the data RTO that flow `flow`'s `side` just had (`snd_una` was
    /// `una`, the expired timer `rto` long) in its cause
    /// ([`super::rto_cause`]).
    fn classify_rto(&mut self, now: Time, flow: usize, side: usize, una: SeqNum, rto: Dur) {
        let held = self.flows[flow].ep[1 - side].rcv_nxt() > una;
        let view = self.flow_view(flow, una);
        let (blocked_now, unblocked_at) = (self.blocked_since.is_some(), self.unblocked_at);
        self.forensics
            .classify(now, flow, rto, held, view, |since| {
                blocked_now || unblocked_at > since
            });
    }

    /// Notes a dropped packet for the RTO causes of its flow.
    fn note_drop(&mut self, now: Time, p: &Packet, why: Option<hop::HopDrop>, blocked: bool) {
        let flow = p.meta.flow as usize;
        let Some(f) = self.flows.get(flow) else {
            return;
        };
        let view = self.flow_view(flow, f.sender().snd_una());
        self.forensics.note_drop(now, p, why, blocked, view);
    }

    /// What the RTO causes need of flow `flow`, its sender at `snd_una`.
    fn flow_view(&self, flow: usize, snd_una: SeqNum) -> FlowView {
        let side = self.flows[flow].sender_side();
        FlowView {
            sender_addr: self.topology.addresses(flow, side).0,
            snd_una,
            una_rel: self.flows[flow].sender().snd_una_rel(),
        }
    }

    /// Records the hop's blocked time when flow `flow`'s file transfer has
    /// just completed (for its usable time while active).
    fn note_completion(&mut self, now: Time, flow: usize) {
        let f = &mut self.flows[flow];
        if f.completed_at.is_some() && f.blocked_at_completion.is_none() {
            f.blocked_at_completion =
                Some(self.blocked_total + self.blocked_since.map_or(Dur::ZERO, |s| now - s));
        }
    }

    /// A segment of flow `flow`'s `side` endpoint is through its host's
    /// stack.
    fn on_stack_out(&mut self, now: Time, flow: usize, side: usize) {
        let Some(p) = self.stacks[2 * flow + side]
            .as_mut()
            .and_then(|s| s.pop(now))
        else {
            return;
        };
        let side = if side == 0 { Side::Ch } else { Side::Sh };
        let node = self.node_of(flow, side);
        self.leave_host(now, node, p);
    }

    /// A segment an endpoint at `node` sent reaches its interface: its
    /// agents see it, then it leaves.
    fn leave_host(&mut self, now: Time, node: Node, mut packet: Packet) {
        let v = self.tap(now, node, Tap::HostOut, &mut packet);
        if v == Verdict::Pass {
            self.send_from(now, node, Via::Air, &packet);
        }
        self.settle(v);
        self.drain(now, node);
    }

    /// After any input to an endpoint: run its applications, send what it
    /// wants to send, tell the node's agents its events, and (re)arm its
    /// timer.
    pub(super) fn pump(&mut self, now: Time, flow: usize, side: Side) {
        let i = side as usize;
        let node = self.node_of(flow, side);
        let (src, dst) = self.topology.addresses(flow, side);
        self.flows[flow].run_apps(side, now);
        self.note_completion(now, flow);
        loop {
            let f = &mut self.flows[flow];
            let Some(tx) = f.ep[i].poll_transmit(now) else {
                break;
            };
            let ip_id = f.ip_id[i];
            f.ip_id[i] = ip_id.wrapping_add(1);
            let packet = Packet {
                src,
                dst,
                ip_id,
                ttl: 64,
                tcp: tx.segment,
                meta: PacketMeta {
                    flow: flow as u32,
                    uid: self.next_uid,
                    retransmission: tx.retransmission,
                    forged: false,
                    iface: 0,
                    ..PacketMeta::default()
                },
            };
            self.next_uid += 1;
            self.accounting.injected += 1;
            if let Some(pipe) = self.stacks[2 * flow + i].as_mut() {
                let at = pipe.push(now, packet);
                let (flow, side) = (flow as u32, i as u8);
                self.q.schedule(at, Ev::StackOut { flow, side });
            } else {
                self.leave_host(now, node, packet);
            }
            // Sending may have freed send-buffer space (e.g. a FIN queued).
            self.flows[flow].run_apps(side, now);
        }
        self.note_completion(now, flow);
        self.output.watch(now, flow, &self.flows[flow]);
        let listening = !self.slots_of(node).is_empty();
        let mut told = false;
        while let Some(e) = self.flows[flow].ep[i].poll_event() {
            if listening {
                for k in 0..self.slots_of(node).len() {
                    let slot = self.slots_of(node)[k] as usize;
                    self.agents[slot].agent.on_tcp_event(now, flow as u32, &e);
                }
                told = true;
            }
        }
        if told && self.drain(now, node) {
            // The agents commanded TCP; drain pumped the node again.
            return;
        }
        let f = &mut self.flows[flow];
        if let Some(t) = f.ep[i].poll_timeout() {
            let t = t.max(now);
            if t < f.timer_armed[i] {
                f.timer_armed[i] = t;
                let ev = Ev::Timer {
                    flow: flow as u32,
                    side: i as u8,
                };
                self.q.schedule(t, ev);
            }
        }
    }

    /// A packet leaves `node` (an endpoint or an agent there): a host has
    /// one way out (`via` only says whether ahead of its queue); the BS
    /// sends onto the air toward the packet's wireless host (`AirFirst`:
    /// ahead of its queue) or onto the wire toward its wired host.
    fn send_from(&mut self, now: Time, node: Node, via: Via, p: &Packet) {
        let flow = p.meta.flow as usize;
        match (node, via) {
            (Node::Wired(_), _) => self.send_wired(now, 2 * flow, *p),
            (Node::Host(h), via) => self.hop_send(now, h as usize + 1, BS, p, via == Via::AirFirst),
            (Node::Bs, Via::Air | Via::AirFirst) => {
                let to = self.topology.station_of_flow(flow);
                self.hop_send(now, BS, to, p, via == Via::AirFirst);
            }
            (Node::Bs, Via::Wire) => self.send_wired(now, 2 * flow + 1, *p),
        }
    }

    // ---- agents ------------------------------------------------------

    fn slots_of(&self, node: Node) -> &[u32] {
        if self.agents.is_empty() {
            return &[];
        }
        self.node_agents
            .get(node_index(node))
            .map_or(&[], |v| v.as_slice())
    }

    /// Shows `p` to the node's agents in order; the first verdict other
    /// than `Pass` ends the walk.
    #[inline]
    fn tap(&mut self, now: Time, node: Node, tap: Tap, p: &mut Packet) -> Verdict {
        if self.agents.is_empty() {
            return Verdict::Pass;
        }
        for k in 0..self.slots_of(node).len() {
            let slot = self.slots_of(node)[k] as usize;
            let v = self.agents[slot].agent.on_packet(now, tap, p);
            if v != Verdict::Pass {
                if let Verdict::Drop(_) = v {
                    let blocked = self.availability.blocked();
                    self.note_drop(now, p, None, blocked);
                }
                return v;
            }
        }
        Verdict::Pass
    }

    /// Accounts for a verdict other than `Pass` (a consumed packet counts
    /// as delivered, a held one as in flight).
    fn settle(&mut self, v: Verdict) {
        match v {
            Verdict::Pass | Verdict::Hold => {}
            Verdict::Consume => self.accounting.delivered += 1,
            Verdict::Drop(_) => self.accounting.dropped += 1,
        }
    }

    /// Carries out what the node's agents ask, re-arms their deadlines and,
    /// if they commanded TCP, pumps the node's endpoints. Returns whether
    /// it pumped.
    #[inline]
    fn drain(&mut self, now: Time, node: Node) -> bool {
        if self.agents.is_empty() {
            return false;
        }
        self.drain_agents(now, node)
    }

    fn drain_agents(&mut self, now: Time, node: Node) -> bool {
        let mut commanded = false;
        for k in 0..self.slots_of(node).len() {
            let slot = self.slots_of(node)[k] as usize;
            while let Some(a) = self.agents[slot].agent.poll_action() {
                if let Action::Withdraw { host } = a {
                    self.withdraw(now, slot, node, host);
                    continue;
                }
                commanded |= self.act(now, node, a);
            }
            if let Some(at) = self.agents[slot].arm(now) {
                self.q.schedule(at, Ev::Agent { slot: slot as u32 });
            }
        }
        if commanded {
            for k in 0..self.flows_of(node).len() {
                let (flow, side) = self.flows_of(node)[k];
                self.pump(now, flow, side);
            }
        }
        commanded
    }

    /// The endpoints at `node`: (flow, side).
    fn flows_of(&self, node: Node) -> &[(usize, Side)] {
        match node {
            Node::Host(h) => self.topology.endpoints_of_host(h as usize),
            Node::Wired(f) => self.topology.endpoint_of_wired(f as usize),
            Node::Bs => &[],
        }
    }

    /// Carries out one action; returns whether it commanded TCP.
    fn act(&mut self, now: Time, node: Node, a: Action) -> bool {
        match a {
            Action::Emit { mut packet, via } => {
                packet.meta.uid = self.next_uid;
                self.next_uid += 1;
                self.accounting.injected += 1;
                self.send_from(now, node, via, &packet);
                false
            }
            Action::Release { packet, via } => {
                self.send_from(now, node, via, &packet);
                false
            }
            // Carried out by `drain_agents`, which knows the agent.
            Action::Withdraw { .. } => false,
            Action::Tcp { flow, cmd } => {
                for k in 0..self.flows_of(node).len() {
                    let (f, side) = self.flows_of(node)[k];
                    if flow.is_none_or(|x| x as usize == f) {
                        self.flows[f].ep[side as usize].command(now, cmd);
                    }
                }
                true
            }
        }
    }

    /// Carries out agent `slot`'s [`Action::Withdraw`]: every hop of the
    /// node gives back what it holds for `host` (for the BS at a host),
    /// and the agent takes it.
    fn withdraw(&mut self, now: Time, slot: usize, node: Node, host: u32) {
        let (from, to) = match node {
            Node::Bs => (BS, host as usize + 1),
            Node::Host(h) => (h as usize + 1, BS),
            Node::Wired(_) => return,
        };
        for k in 0..self.hops.len() {
            let mut taken = Vec::new();
            self.drive_hop(now, k, |hop, now, io| {
                taken = hop.withdraw(now, from, to, io);
            });
            if !taken.is_empty() {
                self.agents[slot].agent.on_withdrawn(now, host, &taken);
            }
        }
    }

    fn on_agent_timer(&mut self, now: Time, slot: usize) {
        let a = &mut self.agents[slot];
        if a.armed == now {
            a.armed = Time::NEVER;
        }
        a.agent.on_timeout(now);
        let node = a.node;
        self.drain(now, node);
    }

    /// The signal bus: count, hand to the node's agents, trace what they
    /// used.
    fn publish(&mut self, now: Time, station: Station, s: NodeSignal) {
        let signal = s.signal;
        self.signals.count_published(signal.name());
        let node = if station == BS {
            Node::Bs
        } else {
            Node::Host(station as u32 - 1)
        };
        let mut used = false;
        for k in 0..self.slots_of(node).len() {
            let slot = self.slots_of(node)[k] as usize;
            used |= self.agents[slot].agent.on_signal(now, &s);
        }
        if !used {
            return;
        }
        self.signals.count_delivered(signal.name());
        if let Some(log) = self.signal_log.as_mut() {
            let record = crate::signal::SignalRecord {
                at: now,
                node: station as u32,
                iface: s.iface,
                signal,
            };
            if log.len() >= self.signal_log_max {
                self.output.signals_not_logged(now, 1);
            } else if self.output.admit_signal(now, record.line_bound()) {
                // Charged a bound of its line in signals.jsonl (no formatting
                // here): the traces' budget bounds what is written.
                log.push_record(record);
            }
        }
        self.drain(now, node);
    }
}

/// The index of a node in `node_agents` (`None`-like past the end for
/// wired hosts, which carry no agents yet).
fn node_index(node: Node) -> usize {
    match node {
        Node::Bs => 0,
        Node::Host(h) => 1 + h as usize,
        Node::Wired(_) => usize::MAX,
    }
}
