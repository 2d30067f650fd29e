//! The base station's forwarding model on real bytes, free of I/O: the
//! simulator's links (per-flow wired access links, the shared wireless hop
//! with its loss processes and availability) carry the compact
//! [`Packet`]; the real datagram waits in a slab keyed by `packet.meta.uid`.
//!
//! The real-time loop ([`crate::bridge`]) feeds datagrams in with
//! [`Hop::ingress`], fires due deadlines with [`Hop::dispatch`], and
//! hands delivered datagrams to an [`Egress`]. The stream names and link
//! layout are the simulator's (`sim/world.rs`), so a seed gives the same
//! loss pattern and blockages in both engines.
//!
//! What differs from the simulator: non-TCP IPv4 (ICMP) crosses the links
//! as a stand-in packet of the same length (at least 40 bytes of airtime);
//! the base station decrements the TTL as a router does (RFC 1812 §5.3.1,
//! checksum updated per RFC 1624); after the scenario's end the hop stays
//! open (no new blockage), with its rate, delay, queue and loss, so the
//! applications can exchange their final reports.
//!
//! A flow's control connections (iperf3's, the first connection its
//! client opens, see [`Framing`]) go around the links, from one side's
//! hosts straight to the other's: the scenario's flow is its data
//! connection, as in the simulator, and the measuring tool's set-up and
//! final exchange take neither airtime nor draws of the loss processes,
//! nor wait out a blockage (counted in [`HopCounters::control_bypassed`]).

use crate::agents::BsAgents;
use crate::air::Air;
use crate::capture::Captures;
use crate::inorder::{Framing, InOrder};
pub use crate::sched::{Deadlines, Ev, Slab};
use crate::signals::{Command as Injected, Signal};
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use xltcp_core::hop::Hop as _;
use xltcp_core::net::availability::Availability;
use xltcp_core::net::link::{Dest, Link};
use xltcp_core::rng::stream;
use xltcp_core::scenario::{AppSpec, Direction, Scenario};
use xltcp_core::sim::emu_section::FreezeReport;
use xltcp_core::sim::flow::Side;
use xltcp_core::sim::topology::Topology;
use xltcp_core::sim::Accounting;
use xltcp_core::time::{Dur, Time};
use xltcp_core::wire::Packet;

mod agents;
mod control;
mod copies;
mod datagram;
mod ingress;
mod mac;
mod p2p;

use control::Control;
use copies::LinkCopies;
pub use datagram::{decrement_ttl, drop_name, host_address, reject_reason};

/// Where delivered datagrams go: the host namespace of `side`.
pub trait Egress {
    /// Writes one datagram to the hosts of `side`.
    fn deliver(&mut self, side: Side, datagram: &[u8]) -> std::io::Result<()>;
}

/// Counters of the hop beyond the links' own.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HopCounters {
    /// Conservation of the datagrams that entered the links.
    pub accounting: Accounting,
    /// Datagrams refused at ingress, by reason.
    pub rejected: BTreeMap<&'static str, u64>,
    /// Datagrams dropped after ingress for a reason the links do not count
    /// (`ttl_expired`, `egress_error`), by reason.
    pub dropped_other: BTreeMap<&'static str, u64>,
    /// Non-TCP IPv4 datagrams (ICMP) carried.
    pub non_tcp: u64,
    /// Datagrams of the flows' control connections, sent around the links.
    pub control_bypassed: u64,
    /// TCP segments with payload entering from each side, per flow
    /// (`[from CH, from SH]`).
    pub data_segments: Vec<[u64; 2]>,
    /// Deadlines dispatched.
    pub events: u64,
}

/// The hop: links, availability, deadlines and held datagrams.
pub struct Hop {
    /// Links: wired uplink of flow i is `2i`, its downlink `2i + 1`, then
    /// the wireless down and up directions (the simulator's layout).
    pub links: Vec<Link>,
    wl_down: usize,
    wl_up: usize,
    /// `[wireless.loss.<dir>] steps = "both"`, down then up: the other
    /// direction's frames step that direction's chain too.
    cross: [bool; 2],
    flows: u32,
    availability: Availability,
    blocked_total: Dur,
    blocked_since: Option<Time>,
    ended: bool,
    end: Time,
    /// Deadlines to fire.
    pub deadlines: Deadlines,
    slab: Slab,
    /// Counters.
    pub counters: HopCounters,
    /// Captures of transmission starts.
    pub capture: Option<Captures>,
    /// Blocked intervals of the wireless hop so far (closed ones).
    pub blocked_intervals: Vec<(Time, Time)>,
    /// The receiving host of each flow.
    receiver: Vec<Side>,
    inorder: InOrder,
    delivered_at_end: Option<Vec<u64>>,
    /// An injected state overriding the availability process.
    forced: Option<bool>,
    /// The effective blocked state after the last edge.
    was_blocked: bool,
    /// Where the radio's signals go, if anyone listens.
    pub signals: Option<Sender<(Time, Signal)>>,
    /// Signals injected from outside.
    pub commands: Option<Receiver<Injected>>,
    /// Mirrors [`Hop::blocked`] for readers on other threads.
    pub blocked_flag: Option<Arc<AtomicBool>>,
    /// The schemes' agents at the base station.
    pub agents: BsAgents,
    /// Reused buffer for serialising the agents' packets.
    emit_buf: Vec<u8>,
    /// The simulator's own hop, for the kinds other than point-to-point
    /// (see [`crate::air`]); the wireless links above then stay idle.
    pub air: Option<Air>,
    /// Datagrams to write to the hosts, in order, with the next egress.
    ready: Vec<(Side, u64)>,
    /// Whether each wireless host's agent has its TCP frozen.
    host_frozen: Vec<bool>,
    /// What each frozen host's interface holds, in order.
    host_hold: Vec<std::collections::VecDeque<Packet>>,
    /// The freezes, resumes and holds so far.
    pub freeze: FreezeReport,
    /// The wireless host of each flow.
    host_of: Vec<u32>,
    /// Uids of the datagrams an agent holds (`Verdict::Hold`), kept in the
    /// slab until it releases them.
    held_uids: BTreeSet<u64>,
    /// The real bytes of the recent data frames sent onto the air, for
    /// the agents' resends (only with an agent that resends, see
    /// [`crate::agents::resends_frames`]).
    link_copies: Option<LinkCopies>,
    /// Which connections of each flow go around the links.
    control: Control,
}

impl Hop {
    /// The simulator's links for `scenario`: per-flow wired access links,
    /// then the wireless hop down and up (with their indices).
    fn build_links(scenario: &Scenario, seed: u64) -> (Vec<Link>, usize, usize) {
        let n = scenario.flows.len() as u32;
        let mut links = Vec::with_capacity(2 * n as usize + 2);
        let w = &scenario.wired;
        let wired = |name: String, dest| Link::wired(name, dest, w, seed);
        for i in 0..n {
            links.push(wired(format!("ch{i}-bs"), Dest::Bs));
            links.push(wired(format!("bs-ch{i}"), Dest::Ch(i)));
        }
        let wl = &scenario.wireless;
        links.push(Link::air(wl, true, seed));
        links.push(Link::air(wl, false, seed));
        let wl_down = links.len() - 2;
        (links, wl_down, wl_down + 1)
    }

    /// The hop of `scenario` for `seed`, its clock at zero.
    pub fn new(scenario: &Scenario, seed: u64) -> Hop {
        let n = scenario.flows.len();
        let (links, wl_down, wl_up) = Hop::build_links(scenario, seed);
        let wl = &scenario.wireless;
        let availability =
            Availability::new(&wl.availability, stream(seed, "wireless.availability"));
        let end = Time::ZERO + scenario.sim.duration;
        let mut deadlines = Deadlines::default();
        let change = availability.next_change();
        if change < end {
            deadlines.schedule(change, Ev::Availability);
        }
        deadlines.schedule(end, Ev::End);
        let availability_blocked = availability.blocked();
        let air = Air::new(scenario, seed, &mut deadlines);
        let framing: Vec<Framing> = scenario
            .flows
            .iter()
            .map(|f| match f.app {
                AppSpec::Bulk => Framing::IPERF3,
                AppSpec::File { .. } => Framing::default(),
            })
            .collect();
        let receiver: Vec<Side> = scenario
            .flows
            .iter()
            .map(|f| match f.direction {
                Direction::Down => Side::Sh,
                Direction::Up => Side::Ch,
            })
            .collect();
        let control = Control {
            wanted: framing.iter().map(|f| f.control_connections).collect(),
            ports: vec![Vec::new(); n],
        };
        let mut hop = Hop {
            links,
            wl_down,
            wl_up,
            cross: [wl.loss_down.steps_both(), wl.loss_up.steps_both()],
            flows: n as u32,
            blocked_since: availability.blocked().then_some(Time::ZERO),
            availability,
            blocked_total: Dur::ZERO,
            ended: false,
            end,
            deadlines,
            slab: Slab::default(),
            counters: HopCounters {
                data_segments: vec![[0, 0]; n],
                ..HopCounters::default()
            },
            capture: None,
            blocked_intervals: Vec::new(),
            receiver,
            inorder: InOrder::new(framing),
            delivered_at_end: None,
            forced: None,
            was_blocked: availability_blocked,
            signals: None,
            commands: None,
            blocked_flag: None,
            agents: BsAgents::new(scenario, seed),
            emit_buf: Vec::new(),
            air,
            ready: Vec::new(),
            held_uids: BTreeSet::new(),
            host_frozen: vec![false; Topology::of(scenario).hosts()],
            host_hold: vec![Default::default(); Topology::of(scenario).hosts()],
            freeze: FreezeReport::default(),
            host_of: Topology::of(scenario).host_of().to_vec(),
            link_copies: crate::agents::resends_frames(scenario).then(LinkCopies::default),
            control,
        };
        if hop.air.is_some() && availability_blocked {
            hop.air_set_blocked(Time::ZERO, true);
        }
        // Agents with something to do from the start (the UCL's handshake).
        if !hop.agents.is_empty() {
            hop.drain_agents(Time::ZERO);
        }
        hop
    }

    /// Seconds the wireless hop was blocked within the scenario's duration.
    pub fn blocked_s(&self) -> f64 {
        let open = self
            .blocked_since
            .map_or(Dur::ZERO, |s| self.end.saturating_since(s));
        (self.blocked_total + if self.ended { Dur::ZERO } else { open }).as_secs_f64()
    }

    /// Each flow's delivery, shared with other threads.
    pub fn progress(&self) -> std::sync::Arc<[crate::inorder::Progress]> {
        self.inorder.progress()
    }

    /// Whether the wireless hop is blocked now.
    pub fn blocked(&self) -> bool {
        !self.ended && self.forced.unwrap_or(self.availability.blocked())
    }

    fn emit(&self, at: Time, s: Signal) {
        if let Some(tx) = &self.signals {
            let _ = tx.send((at, s));
        }
    }

    fn dir_of(&self, link: usize) -> &'static str {
        if link == self.wl_down {
            "down"
        } else {
            "up"
        }
    }

    /// Applies the injected signals waiting, at `now`.
    pub fn poll_commands(&mut self, now: Time) {
        while let Some(cmd) = self.commands.as_ref().and_then(|rx| rx.try_recv().ok()) {
            self.command(now, cmd);
        }
    }

    /// Applies a signal injected from outside at `at`.
    pub fn command(&mut self, at: Time, cmd: Injected) {
        self.forced = match cmd {
            Injected::PuStart => Some(true),
            Injected::PuStop => Some(false),
            Injected::Release => None,
        };
        self.update_blocked(at, "external");
    }

    /// Whether the scenario's end has passed (wind-down).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// In-order bytes each flow's receiver had by the scenario's end (so
    /// far, if the end has not come).
    pub fn delivered_by_end(&self) -> Vec<u64> {
        match &self.delivered_at_end {
            Some(d) => d.clone(),
            None => (0..self.flows).map(|f| self.inorder.delivered(f)).collect(),
        }
    }

    /// Datagrams held in the slab (equals the links' held packets).
    pub fn held(&self) -> usize {
        self.slab.live()
    }

    /// Flow of a wired host's address (`10.1.x.y`), if it is one of ours.
    fn flow_of(&self, a: Ipv4Addr, side: Side) -> Option<u32> {
        let o = a.octets();
        let net = if side == Side::Ch { 1 } else { 2 };
        let n = (o[2] as u32) << 8 | o[3] as u32;
        (o[0] == 10 && o[1] == net && n >= 1 && n <= self.flows).then(|| n - 1)
    }

    /// Fires the deadline `ev`, due at `at`.
    pub fn dispatch(&mut self, at: Time, ev: Ev, egress: &mut dyn Egress) {
        self.counters.events += 1;
        match ev {
            Ev::TxDone { link, gen } => {
                let link = link as usize;
                let victim = self.links[link]
                    .in_tx()
                    .map(|p| (p.meta.uid, p.meta.flow, p.ip_len() as u32));
                let open = self.open(link);
                // A frame of one wireless direction ends: it steps the other
                // direction's chain if that one is shared (steps = "both").
                let other = if link == self.wl_down {
                    Some((self.wl_up, self.cross[1]))
                } else if link == self.wl_up {
                    Some((self.wl_down, self.cross[0]))
                } else {
                    None
                };
                if let Some((other, true)) = other {
                    if self.links[link].is_current(gen) {
                        self.links[other].step_loss();
                    }
                }
                let wake = self.links[link].tx_done(at, gen, open);
                self.apply(at, link, wake, victim);
            }
            Ev::Arrive { link } => self.on_arrive(at, link as usize),
            Ev::Availability => self.on_availability(at),
            Ev::End => self.on_end(at),
            Ev::Agent { slot } => {
                self.agents.on_timeout(at, slot);
                self.drain_agents(at);
            }
            Ev::Hop(t) => {
                let k = usize::from(t.hop);
                if let Some(air) = self.air.as_mut().filter(|a| k < a.hops.len()) {
                    let capture = self.capture.is_some();
                    let out = air.call(k, &mut self.deadlines, at, capture, |h, now, io| {
                        h.handle_timer(now, t, io)
                    });
                    self.act_air(at, k, out);
                }
            }
        }
        self.flush(egress);
    }

    /// A short name of a deadline's kind, for lateness per kind.
    pub fn ev_name(&self, ev: Ev) -> &'static str {
        match ev {
            Ev::TxDone { .. } => "link_tx_done",
            Ev::Arrive { .. } => "link_arrive",
            Ev::Availability => "availability",
            Ev::End => "end",
            Ev::Agent { .. } => "agent",
            Ev::Hop(t) => self.air.as_ref().map_or("hop", |a| a.timer_name(t)),
        }
    }

    /// `n` datagrams counted delivered by [`Hop::flush`] were in a write
    /// the egress found failed later (a joined super-packet): dropped.
    pub fn egress_failed(&mut self, n: u64) {
        self.counters.accounting.delivered -= n;
        self.counters.accounting.dropped += n;
        *self
            .counters
            .dropped_other
            .entry("egress_error")
            .or_insert(0) += n;
    }

    /// Writes the datagrams delivered so far to the hosts.
    pub fn flush(&mut self, egress: &mut dyn Egress) {
        for k in 0..self.ready.len() {
            let (to, uid) = self.ready[k];
            let ok = egress.deliver(to, self.slab.get_mut(uid)).is_ok();
            self.slab.remove(uid);
            if ok {
                self.counters.accounting.delivered += 1;
            } else {
                self.drop_other("egress_error");
            }
        }
        self.ready.clear();
    }

    fn on_end(&mut self, at: Time) {
        self.ended = true;
        // The hop opens for the applications' wind-down: so do the hosts.
        for h in 0..self.host_frozen.len() as u32 {
            self.freeze_host(at, h, false);
        }
        self.update_blocked(at, "end");
        self.delivered_at_end = Some((0..self.flows).map(|f| self.inorder.delivered(f)).collect());
        self.kick_wireless(at);
    }

    /// Closes the books at the end of the run: what is still held counts
    /// as in flight.
    pub fn finish(&mut self) {
        self.counters.accounting.in_flight = self.links.iter().map(Link::held).sum::<u64>()
            + self.agents.held()
            + self.host_hold.iter().map(|q| q.len() as u64).sum::<u64>()
            + self.air.as_ref().map_or(0, Air::in_flight);
    }
}

#[cfg(test)]
#[path = "hop_tests.rs"]
mod tests;
