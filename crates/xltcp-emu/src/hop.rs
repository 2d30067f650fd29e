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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use xltcp_core::hop::{Hop as _, HopDrop, HopOut, Station, BS};
use xltcp_core::net::availability::Availability;
use xltcp_core::net::link::{Dest, DropReason, Link, Wake};
use xltcp_core::net::loss::LossProcess;
use xltcp_core::rng::stream;
use xltcp_core::scenario::{AppSpec, Direction, LossSpec, LossSteps, Scenario};
use xltcp_core::schemes::{ucl, Action, Node, NodeSignal, Tap, Verdict, Via};
use xltcp_core::signal::UndeliveredReason;
use xltcp_core::sim::emu_section::FreezeReport;
use xltcp_core::sim::flow::{address, Side};
use xltcp_core::sim::topology::Topology;
use xltcp_core::sim::Accounting;
use xltcp_core::tcp::Command;
use xltcp_core::time::{Dur, Time};
use xltcp_core::wire::{
    emit, parse_with, Packet, PacketMeta, ParseError, ParseOptions, Segment, TcpHeaderMut,
};

/// Where delivered datagrams go: the host namespace of `side`.
pub trait Egress {
    /// Writes one datagram to the hosts of `side`.
    fn deliver(&mut self, side: Side, datagram: &[u8]) -> std::io::Result<()>;
}

/// Why a datagram was refused at the base station (never entered a link).
pub fn reject_reason(e: &ParseError) -> &'static str {
    match e {
        ParseError::Truncated { .. } => "truncated",
        ParseError::BadVersion(6) => "ipv6",
        ParseError::BadVersion(_) => "bad_ip_version",
        ParseError::BadIhl(_) => "bad_ihl",
        ParseError::BadTotalLength(_) => "bad_total_length",
        ParseError::Fragmented => "fragment",
        ParseError::NotTcp(_) => "not_tcp",
        ParseError::BadIpChecksum => "bad_ip_checksum",
        ParseError::BadDataOffset(_) => "bad_tcp_data_offset",
        ParseError::BadTcpChecksum => "bad_tcp_checksum",
        ParseError::BadOption { .. } => "bad_tcp_option",
    }
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

/// The control connections of each flow: the first
/// [`Framing::control_connections`] its client opens, told by the client's
/// port of their SYNs (the server's port is the same for every connection
/// of an iperf3 test).
#[derive(Debug, Default)]
struct Control {
    /// Per flow: how many of its first connections are control.
    wanted: Vec<u32>,
    /// Per flow: the client's ports of the control connections seen.
    ports: Vec<Vec<u16>>,
}

impl Control {
    /// Whether `seg`, read from the flow's client (the sending host) or
    /// its server, belongs to a control connection of `flow`; a client's
    /// SYN opening one of the first connections makes it one.
    fn around(&mut self, flow: usize, from_client: bool, seg: &Segment) -> bool {
        let wanted = self.wanted[flow] as usize;
        if wanted == 0 {
            return false;
        }
        let port = if from_client {
            seg.src_port
        } else {
            seg.dst_port
        };
        let ports = &mut self.ports[flow];
        if ports.contains(&port) {
            return true;
        }
        let opening = from_client && seg.flags.syn() && !seg.flags.ack();
        if opening && ports.len() < wanted {
            ports.push(port);
            return true;
        }
        false
    }
}

/// Most data frames [`LinkCopies`] keeps (PHY-LR's link buffer is at most
/// 4096 packets per flow, Snoop's and C-Snoop's caches 100 segments per
/// connection; older frames are forgotten first).
const LINK_COPIES_MAX: usize = 4096;

/// The key of a data frame's bytes: (flow, source port, destination port,
/// first sequence number, payload length). The ports tell the directions
/// and connections of a flow apart (iperf3's control connection runs
/// beside its data connection), so the BS's copies of the downlink and a
/// host's copies of the uplink never meet.
type CopyKey = (u32, u16, u16, u32, u32);

/// The real bytes of data frames that went onto the air, from a host's
/// interface or from the BS, the latest [`LINK_COPIES_MAX`]: the agents
/// that resend a frame from their own copy (PHY-LR at the sending host,
/// Snoop and C-Snoop at the BS, C-Snoop at a host) hold its compact
/// packet, and the emulator sends the bytes the frame had. A frame sent
/// again under the same key (the TCP's own retransmission) replaces its
/// bytes. Buffers of forgotten frames are reused.
#[derive(Debug, Default)]
struct LinkCopies {
    frames: BTreeMap<CopyKey, Vec<u8>>,
    order: std::collections::VecDeque<CopyKey>,
    spare: Vec<Vec<u8>>,
}

impl LinkCopies {
    fn key(p: &Packet) -> CopyKey {
        (
            p.meta.flow,
            p.tcp.src_port,
            p.tcp.dst_port,
            p.tcp.seq.0,
            p.tcp.payload_len,
        )
    }

    fn keep(&mut self, p: &Packet, bytes: &[u8]) {
        let key = LinkCopies::key(p);
        if let Some(b) = self.frames.get_mut(&key) {
            b.clear();
            b.extend_from_slice(bytes);
            return;
        }
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(bytes);
        self.frames.insert(key, b);
        self.order.push_back(key);
        while self.frames.len() > LINK_COPIES_MAX {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(b) = self.frames.remove(&old) {
                self.spare.push(b);
            }
        }
    }

    fn get(&self, p: &Packet) -> Option<&Vec<u8>> {
        self.frames.get(&LinkCopies::key(p))
    }
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
        // The simulator's stream names: same seed, same losses and blockages.
        let air = |name: &str, dest, spec, stream_name: &str| {
            let loss = LossProcess::new(spec, stream(seed, stream_name));
            let l = &wl.link;
            Link::new(
                name.into(),
                dest,
                l.rate_bps,
                l.delay,
                l.queue,
                wl.frame_overhead,
                loss,
                true,
            )
        };
        links.push(air(
            "bs-air",
            Dest::ShOfFlow,
            &wl.loss_down,
            "wireless.down.loss",
        ));
        links.push(air("air-bs", Dest::Bs, &wl.loss_up, "wireless.up.loss"));
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
        let both = |spec: &LossSpec| {
            matches!(
                spec,
                LossSpec::Gilbert {
                    steps: LossSteps::Both,
                    ..
                }
            )
        };
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
            cross: [both(&wl.loss_down), both(&wl.loss_up)],
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

    /// Refuses a datagram (or a device's frame) read from the hosts of
    /// `from` at `now` for `why`: counted, and captured with its reason.
    pub fn reject(&mut self, now: Time, from: Side, why: &'static str, bytes: &[u8]) {
        *self.counters.rejected.entry(why).or_insert(0) += 1;
        if let Some(cap) = self.capture.as_mut() {
            cap.record_rejected(now, from, bytes, why);
        }
    }

    /// A datagram read from the hosts of `from` at `now`.
    pub fn ingress(&mut self, now: Time, from: Side, bytes: &[u8]) {
        self.ingress_checked(now, from, bytes, true)
    }

    /// A datagram read from the hosts of `from` at `now`; `verify`: check
    /// its checksums (false for a datagram whose checksums the emulator
    /// computed itself, see [`crate::tun::split`]).
    pub fn ingress_checked(&mut self, now: Time, from: Side, bytes: &[u8], verify: bool) {
        let verify = ParseOptions {
            verify_checksums: verify,
        };
        let mut packet = match parse_with(bytes, verify) {
            Ok(p) => p.into_packet(),
            Err(ParseError::NotTcp(_)) => match stand_in(bytes) {
                Some(p) => p,
                None => return self.reject(now, from, "bad_ip_checksum", bytes),
            },
            Err(e) => return self.reject(now, from, reject_reason(&e), bytes),
        };
        let (own, far) = if from == Side::Ch {
            (packet.src, packet.dst)
        } else {
            (packet.dst, packet.src)
        };
        let (Some(flow), Some(_)) = (self.flow_of(own, Side::Ch), self.flow_of(far, Side::Sh))
        else {
            return self.reject(now, from, "unknown_address", bytes);
        };
        let tcp = bytes.len() >= 10 && bytes[9] == 6;
        // The client sends the flow's data: its receiver is the other side.
        let from_client = from != self.receiver[flow as usize];
        let around = tcp && self.control.around(flow as usize, from_client, &packet.tcp);
        if !tcp {
            self.counters.non_tcp += 1;
        } else if packet.tcp.payload_len > 0 && !around {
            self.counters.data_segments[flow as usize][from as usize] += 1;
        }
        self.counters.accounting.injected += 1;
        packet.meta = PacketMeta {
            flow,
            uid: self.slab.insert(bytes),
            retransmission: false,
            forged: false,
            iface: 0,
            ..PacketMeta::default()
        };
        if around {
            // Routed by the BS all the same: its TTL one less.
            self.counters.control_bypassed += 1;
            if !decrement_ttl(self.slab.get_mut(packet.meta.uid)) {
                self.slab.remove(packet.meta.uid);
                return self.drop_other("ttl_expired");
            }
            return self.deliver_to(other_side(from), packet);
        }
        if from == Side::Ch {
            return self.send(now, 2 * flow as usize, packet);
        }
        let host = self.host_of[flow as usize] as usize;
        if self.host_frozen[host] {
            return self.hold_at_host(host, packet, tcp);
        }
        self.leave_host(now, host, packet);
    }

    /// A datagram leaves wireless host `host` through its interface: its
    /// agents see it ([`Tap::HostOut`]), then it goes on the air.
    fn leave_host(&mut self, now: Time, host: usize, packet: Packet) {
        if !self.agents.any_at_hosts() {
            return self.send(now, self.wl_up, packet);
        }
        self.stage(packet.meta.uid);
        self.keep_copy(&packet);
        let mut q = packet;
        let v = self.agents.tap_host(now, host as u32, Tap::HostOut, &mut q);
        if let Some(q) = self.settle(v, packet, q) {
            self.host_send(now, q, false);
        }
        self.drain_agents(now);
    }

    /// Sends a packet from a wireless host onto the air (`first`: ahead
    /// of its interface's queue).
    fn host_send(&mut self, now: Time, p: Packet, first: bool) {
        if self.air.is_some() {
            return self.air_send(now, false, p, first);
        }
        self.send(now, self.wl_up, p);
    }

    /// A datagram reached its wireless host from the air: the host's
    /// agents see it ([`Tap::HostIn`]) before it is written to the host.
    fn reach_host(&mut self, now: Time, p: Packet) {
        if !self.agents.any_at_hosts() {
            return self.deliver_to(Side::Sh, p);
        }
        let host = self.host_of[p.meta.flow as usize];
        let mut q = p;
        let v = self.agents.tap_host(now, host, Tap::HostIn, &mut q);
        if let Some(q) = self.settle(v, p, q) {
            self.take_opened(q.meta.uid);
            self.deliver_to(Side::Sh, q);
        }
        self.drain_agents(now);
    }

    /// Keeps the real bytes of the data frame `p` going onto the air, for
    /// an agent's resend of it (with such an agent only).
    fn keep_copy(&mut self, p: &Packet) {
        if let Some(copies) = self.link_copies.as_mut() {
            if p.tcp.payload_len > 0 {
                copies.keep(p, self.slab.get_mut(p.meta.uid));
            }
        }
    }

    /// Stages the real bytes of `uid` for the UCL to seal (with its
    /// security on).
    fn stage(&mut self, uid: u64) {
        if let Some(air) = &self.agents.ucl_air {
            air.stage(uid, self.slab.get_mut(uid));
        }
    }

    /// Puts the datagram the UCL opened from `uid`'s frame in the slab:
    /// what was sealed, and nothing else, goes on.
    fn take_opened(&mut self, uid: u64) {
        if let Some(opened) = self
            .agents
            .ucl_air
            .as_ref()
            .and_then(|a| a.take_opened(uid))
        {
            let buf = self.slab.get_mut(uid);
            buf.clear();
            buf.extend_from_slice(&opened);
        }
    }

    /// Honours the agents' verdict on `p` (`q`: as they left it; see
    /// [`crate::agents`]); the packet to send on, if it goes on.
    fn settle(&mut self, v: Verdict, p: Packet, mut q: Packet) -> Option<Packet> {
        let uid = p.meta.uid;
        if v != Verdict::Hold {
            if let Some(air) = &self.agents.ucl_air {
                air.unstage(uid);
            }
        }
        match v {
            Verdict::Pass => {
                if (q.tcp.ack, q.tcp.window) != (p.tcp.ack, p.tcp.window) {
                    if let Ok(mut h) = TcpHeaderMut::new_checked(self.slab.get_mut(uid)) {
                        h.set_ack(q.tcp.ack);
                        h.set_window(q.tcp.window);
                    }
                }
                // The agents may pick the interface and seal (meta's
                // iface and link fields); the uid and flow stay.
                q.meta.uid = uid;
                q.meta.flow = p.meta.flow;
                Some(q)
            }
            Verdict::Consume => {
                self.slab.remove(uid);
                self.counters.accounting.delivered += 1;
                None
            }
            Verdict::Drop(why) => {
                self.slab.remove(uid);
                self.drop_other(why);
                None
            }
            // The agent's `held` counts it until it releases it; its
            // bytes wait in the slab.
            Verdict::Hold => {
                self.held_uids.insert(uid);
                None
            }
        }
    }

    fn drop_other(&mut self, why: &'static str) {
        self.counters.accounting.dropped += 1;
        *self.counters.dropped_other.entry(why).or_insert(0) += 1;
    }

    fn open(&self, link: usize) -> bool {
        !(self.links[link].gated && self.blocked())
    }

    fn send(&mut self, now: Time, link: usize, p: Packet) {
        if self.air.is_some() && (link == self.wl_down || link == self.wl_up) {
            return self.air_send(now, link == self.wl_down, p, false);
        }
        let open = self.open(link);
        let wake = self.links[link].offer(now, p, open);
        self.apply(
            now,
            link,
            wake,
            Some((p.meta.uid, p.meta.flow, p.ip_len() as u32)),
        );
    }

    /// Schedules what a link asked for; `victim` is the packet a drop
    /// reported in `wake` refers to.
    fn apply(&mut self, now: Time, link: usize, wake: Wake, victim: Option<(u64, u32, u32)>) {
        if let Some((at, gen)) = wake.tx_done {
            if let (Some(cap), Some(p)) = (self.capture.as_mut(), self.links[link].in_tx()) {
                cap.record(link, now, self.slab.get_mut(p.meta.uid));
            }
            self.deadlines.schedule(
                at,
                Ev::TxDone {
                    link: link as u32,
                    gen,
                },
            );
        }
        if let Some(at) = wake.arrival {
            self.deadlines
                .schedule(at, Ev::Arrive { link: link as u32 });
        }
        if let (Some(why), Some((uid, flow, bytes))) = (wake.dropped, victim) {
            // Counted by reason in the link's own stats.
            self.counters.accounting.dropped += 1;
            if let Some(cap) = self.capture.as_mut() {
                cap.record_drop(link, now, self.slab.get_mut(uid), HopDrop::Link(why));
            }
            self.slab.remove(uid);
            if self.links[link].gated {
                let reason = match why {
                    DropReason::QueueFull => "queue_full",
                    DropReason::Loss => "loss",
                    DropReason::Blocked => "blocked",
                };
                self.emit(
                    now,
                    Signal::Undelivered {
                        dir: self.dir_of(link),
                        flow,
                        bytes,
                        reason,
                    },
                );
            }
        }
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

    /// Hands `p` to the simulator's hop: from the BS to its flow's host
    /// (`down`) or from the host to the BS; `first`: ahead of the packets
    /// waiting at the sending station.
    /// The packet goes on the hop its `meta.iface` names (the scenario's
    /// hops in order; dropped as `no_interface` past the last).
    fn air_send(&mut self, now: Time, down: bool, p: Packet, first: bool) {
        let Some(air) = self.air.as_mut() else { return };
        let k = usize::from(p.meta.iface);
        if k >= air.hops.len() {
            self.slab.remove(p.meta.uid);
            return self.drop_other("no_interface");
        }
        let st = air.station_of_flow[p.meta.flow as usize];
        let (from, to) = if down { (BS, st) } else { (st, BS) };
        let capture = self.capture.is_some();
        let out = air.call(k, &mut self.deadlines, now, capture, |h, now, io| {
            if first {
                h.enqueue_first(now, from, to, &p, io)
            } else {
                h.enqueue(now, from, to, &p, io)
            }
        });
        self.act_air(now, k, out);
    }

    /// Tells the simulator's hop that the channel became (un)available.
    fn air_set_blocked(&mut self, now: Time, blocked: bool) {
        let Some(air) = self.air.as_mut() else { return };
        let capture = self.capture.is_some();
        // The availability process is the first hop's, as in the simulator.
        let out = air.call(0, &mut self.deadlines, now, capture, |h, now, io| {
            h.set_blocked(now, blocked, io)
        });
        self.act_air(now, 0, out);
    }

    /// Acts on hop `k`'s outputs, in order.
    fn act_air(&mut self, now: Time, k: usize, out: Vec<HopOut>) {
        for o in &out {
            match *o {
                HopOut::Arrived {
                    station: BS,
                    mut packet,
                } => {
                    packet.meta.iface = k as u8;
                    if let Some(cap) = self.capture.as_mut() {
                        cap.record_rx(self.wl_up, now, self.slab.get_mut(packet.meta.uid));
                    }
                    self.emit(
                        now,
                        Signal::Delivered {
                            dir: "up",
                            flow: packet.meta.flow,
                            bytes: packet.ip_len() as u32,
                        },
                    );
                    self.at_bs(now, true, packet);
                }
                HopOut::Arrived { mut packet, .. } => {
                    packet.meta.iface = k as u8;
                    if let Some(cap) = self.capture.as_mut() {
                        cap.record_rx(self.wl_down, now, self.slab.get_mut(packet.meta.uid));
                    }
                    self.emit(
                        now,
                        Signal::Delivered {
                            dir: "down",
                            flow: packet.meta.flow,
                            bytes: packet.ip_len() as u32,
                        },
                    );
                    self.reach_host(now, packet);
                }
                HopOut::Dropped {
                    station,
                    packet,
                    why,
                } => {
                    self.counters.accounting.dropped += 1;
                    if let Some(cap) = self.capture.as_mut() {
                        let link = if station == BS {
                            self.wl_down
                        } else {
                            self.wl_up
                        };
                        cap.record_drop(link, now, self.slab.get_mut(packet.meta.uid), why);
                    }
                    self.slab.remove(packet.meta.uid);
                    let reason = drop_name(why);
                    if let Some(air) = self.air.as_mut() {
                        air.count_drop(k, reason);
                    }
                    self.emit(
                        now,
                        Signal::Undelivered {
                            dir: if station == BS { "down" } else { "up" },
                            flow: packet.meta.flow,
                            bytes: packet.ip_len() as u32,
                            reason,
                        },
                    );
                }
                HopOut::Signal {
                    station,
                    mut signal,
                    reason,
                    packet,
                    delays,
                } => {
                    if let xltcp_core::signal::Signal::Snr { iface, .. } = &mut signal {
                        *iface = k as u8;
                    }
                    let s = NodeSignal {
                        signal,
                        reason,
                        packet,
                        delays,
                        iface: k as u8,
                    };
                    self.publish(now, station, s);
                }
                // A UCL handshake message is no IPv4 datagram: not captured.
                HopOut::OnAir { packet, .. }
                    if packet.meta.link_frame & ucl::secure::CONTROL != 0 => {}
                HopOut::OnAir { down, packet } => {
                    let link = if down { self.wl_down } else { self.wl_up };
                    if let Some(cap) = self.capture.as_mut() {
                        cap.record(link, now, self.slab.get_mut(packet.meta.uid));
                    }
                }
                HopOut::Air(_) => {}
            }
        }
        if let Some(air) = self.air.as_mut() {
            air.recycle(out);
        }
    }

    /// The signal bus: counts a radio's signal, hands it to the agents of
    /// its station (the BS's run here), traces it if one used it.
    fn publish(&mut self, now: Time, station: Station, s: NodeSignal) {
        let name = s.signal.name();
        let Some(air) = self.air.as_mut() else { return };
        air.signals.count_published(name);
        let node = if station == BS {
            Node::Bs
        } else {
            Node::Host(station as u32 - 1)
        };
        if !self.agents.on_signal(now, node, &s) {
            return;
        }
        if let Some(air) = self.air.as_mut() {
            air.signals.count_delivered(name);
            air.trace(now, station, s.iface, s.signal);
        }
        self.drain_agents(now);
    }

    fn on_arrive(&mut self, at: Time, link: usize) {
        let (packet, next) = self.links[link].arrive(at);
        if let Some(t) = next {
            self.deadlines.schedule(t, Ev::Arrive { link: link as u32 });
        }
        let Some(p) = packet else { return };
        if let Some(cap) = self.capture.as_mut() {
            cap.record_rx(link, at, self.slab.get_mut(p.meta.uid));
        }
        if self.links[link].gated {
            let dir = self.dir_of(link);
            self.emit(
                at,
                Signal::Delivered {
                    dir,
                    flow: p.meta.flow,
                    bytes: p.ip_len() as u32,
                },
            );
        }
        match self.links[link].dest {
            Dest::Bs => self.at_bs(at, link == self.wl_up, p),
            Dest::Ch(_) => self.deliver_to(Side::Ch, p),
            Dest::ShOfFlow => self.reach_host(at, p),
        }
    }

    /// A datagram reached the BS (`from_air`: from the wireless hop, else
    /// from a wired host); the BS routes it on through its agents: from a
    /// wired host onto the air, from the air to the flow's wired host. It
    /// decrements the TTL as a router does: from the air after its agents
    /// (the UCL opens the frame the host sealed), toward the air before
    /// them (the UCL seals what goes on the air).
    fn at_bs(&mut self, at: Time, from_air: bool, p: Packet) {
        let flow = p.meta.flow as usize;
        if from_air {
            let Some(p) = self.through_agents(at, Tap::BsUp, p) else {
                return self.drain_agents(at);
            };
            self.take_opened(p.meta.uid);
            if !decrement_ttl(self.slab.get_mut(p.meta.uid)) {
                self.slab.remove(p.meta.uid);
                self.drop_other("ttl_expired");
                return self.drain_agents(at);
            }
            self.send(at, 2 * flow + 1, p);
        } else {
            if !decrement_ttl(self.slab.get_mut(p.meta.uid)) {
                self.slab.remove(p.meta.uid);
                return self.drop_other("ttl_expired");
            }
            if !self.agents.is_empty() {
                self.stage(p.meta.uid);
                self.keep_copy(&p);
            }
            let Some(p) = self.through_agents(at, Tap::BsDown, p) else {
                return self.drain_agents(at);
            };
            self.send(at, self.wl_down, p);
        }
        if !self.agents.is_empty() {
            self.drain_agents(at);
        }
    }

    /// A datagram reached the hosts of `to`: counted in order at its
    /// receiver, written with the next flush.
    fn deliver_to(&mut self, to: Side, p: Packet) {
        let flow = p.meta.flow as usize;
        let bytes = self.slab.get_mut(p.meta.uid);
        if to == self.receiver[flow] && bytes[9] == 6 {
            self.inorder.on_segment(flow as u32, &p.tcp);
        }
        self.ready.push((to, p.meta.uid));
    }

    /// Shows a datagram crossing the BS to its agents and honours their
    /// verdict (see [`crate::agents`]); the packet to send on, if any.
    /// The caller sends it, then carries out the agents' actions.
    fn through_agents(&mut self, at: Time, tap: Tap, p: Packet) -> Option<Packet> {
        if self.agents.is_empty() {
            return Some(p);
        }
        let mut q = p;
        let verdict = self.agents.tap(at, tap, &mut q);
        self.settle(verdict, p, q)
    }

    /// Carries out the agents' actions (the BS's, and those the hosts'
    /// agents take at the host's interface) and re-arms their deadlines.
    fn drain_agents(&mut self, at: Time) {
        let actions = self.agents.drain(at, &mut self.deadlines);
        for &(node, a) in &actions {
            let host = match node {
                Node::Host(h) => Some(h),
                _ => None,
            };
            match a {
                Action::Emit { packet, via } => self.emit_from(at, host, packet, via),
                Action::Release { packet, via } => self.release(at, host, packet, via),
                Action::Tcp { .. } | Action::Withdraw { .. } => {}
            }
        }
        self.agents.recycle(actions);
        let withdrawals = std::mem::take(&mut self.agents.withdrawals);
        for &(slot, node, host) in &withdrawals {
            self.withdraw(at, slot, node, host);
        }
        if !withdrawals.is_empty() {
            // What the agents do with the packets they took back.
            return self.drain_agents(at);
        }
        let commands = std::mem::take(&mut self.agents.host_commands);
        for c in commands {
            match c.cmd {
                Command::Freeze => self.freeze_host(at, c.host, true),
                Command::Resume => self.freeze_host(at, c.host, false),
                // No agent the emulator runs at a host retransmits.
                Command::Retransmit { .. } => self.agents.host_actions_ignored += 1,
            }
        }
    }

    /// Carries out agent `slot`'s [`Action::Withdraw`] for `host`: the
    /// emulated air gives back what the node's station holds for it and
    /// has not sent; the agent holds the packets (their bytes stay in the
    /// slab) until it releases them.
    fn withdraw(&mut self, at: Time, slot: u32, node: Node, host: u32) {
        let (from, to) = match node {
            Node::Host(h) => (h as usize + 1, BS),
            _ => (BS, host as usize + 1),
        };
        let capture = self.capture.is_some();
        let hops = self.air.as_ref().map_or(0, |air| air.hops.len());
        let mut taken = Vec::new();
        for k in 0..hops {
            let Some(air) = self.air.as_mut() else { break };
            let out = air.call(k, &mut self.deadlines, at, capture, |h, now, io| {
                taken.extend(h.withdraw(now, from, to, io));
            });
            self.act_air(at, k, out);
        }
        for p in &taken {
            self.held_uids.insert(p.meta.uid);
        }
        self.agents.withdrawn(at, slot, host, &taken);
    }

    /// Freezes (or resumes) the TCP of wireless host `host`: Linux TCP
    /// has no freeze, so the host's interface holds what it sends while
    /// frozen and sends it, in order, on resume (see `docs/emulator.md`).
    fn freeze_host(&mut self, at: Time, host: u32, freeze: bool) {
        let h = host as usize;
        let Some(f) = self.host_frozen.get_mut(h) else {
            return;
        };
        if *f == freeze {
            return;
        }
        *f = freeze;
        if freeze {
            self.freeze.freezes += 1;
            return;
        }
        self.freeze.resumes += 1;
        while let Some(p) = self.host_hold[h].pop_front() {
            self.leave_host(at, h, p);
        }
    }

    /// Holds a datagram a frozen host sent at its interface.
    fn hold_at_host(&mut self, host: usize, packet: Packet, tcp: bool) {
        self.freeze.datagrams_held += 1;
        if tcp && packet.tcp.payload_len > 0 {
            self.freeze.data_segments_held += 1;
        }
        self.host_hold[host].push_back(packet);
        let n = self.host_hold[host].len() as u64;
        self.freeze.most_held = self.freeze.most_held.max(n);
    }

    /// Sends on a packet an agent held, with its real bytes: from the BS
    /// (`host` None) or from a wireless host's interface.
    fn release(&mut self, at: Time, host: Option<u32>, packet: Packet, via: Via) {
        if !self.held_uids.remove(&packet.meta.uid) || packet.meta.flow >= self.flows {
            // Not a datagram the BS holds: nothing real to send.
            self.counters.accounting.injected += 1;
            return self.drop_other("agent_release_unknown");
        }
        self.send_from(at, host, packet, via);
    }

    /// Sends `packet` (its bytes in the slab) from the BS (`host` None)
    /// or from a wireless host, the way `via` says.
    fn send_from(&mut self, at: Time, host: Option<u32>, packet: Packet, via: Via) {
        let flow = packet.meta.flow as usize;
        if host.is_some() {
            return self.host_send(at, packet, via == Via::AirFirst);
        }
        match via {
            Via::AirFirst if self.air.is_some() => self.air_send(at, true, packet, true),
            Via::Air | Via::AirFirst => self.send(at, self.wl_down, packet),
            Via::Wire => self.send(at, 2 * flow + 1, packet),
        }
    }

    /// Sends an agent's packet from its node (the BS, or wireless host
    /// `host`) as real bytes: a packet without payload serialised
    /// ([`emit`]); a UCL frame (`meta.link_frame`) with the bytes of its
    /// air: a handshake message, or the real datagram a resend seals again;
    /// a data frame an agent resends from its copy (PHY-LR and C-Snoop at
    /// a host, Snoop and C-Snoop at the BS) with the bytes the frame had
    /// when it went onto the air ([`LinkCopies`]). Other packets with
    /// payload, and resends whose bytes were forgotten, are dropped
    /// (`agent_payload`): pattern bytes would corrupt a real stream.
    fn emit_from(&mut self, at: Time, host: Option<u32>, mut packet: Packet, via: Via) {
        self.counters.accounting.injected += 1;
        let flow = packet.meta.flow;
        if flow >= self.flows {
            return self.drop_other("agent_payload");
        }
        let handle = packet.meta.link_frame;
        let ucl_bytes = match (&self.agents.ucl_air, handle) {
            (Some(air), h) if h & ucl::secure::CONTROL != 0 => air.frame(h),
            (Some(air), h) if h != 0 => air.plaintext(h),
            _ => None,
        };
        // A resend of a frame the node sent (PHY-LR, Snoop, C-Snoop): its
        // real bytes.
        let copy = match &self.link_copies {
            Some(c) if ucl_bytes.is_none() && packet.tcp.payload_len > 0 => c.get(&packet),
            _ => None,
        };
        if let Some(bytes) = copy {
            packet.meta.uid = self.slab.insert(bytes);
        } else if let Some(bytes) = ucl_bytes {
            packet.meta.uid = self.slab.insert(&bytes);
        } else {
            if packet.tcp.payload_len > 0 {
                return self.drop_other("agent_payload");
            }
            self.emit_buf.clear();
            emit(&packet, &mut self.emit_buf);
            packet.meta.uid = self.slab.insert(&self.emit_buf);
        }
        self.send_from(at, host, packet, via);
    }

    fn wireless(&self) -> [usize; 2] {
        [self.wl_down, self.wl_up]
    }

    fn on_availability(&mut self, at: Time) {
        self.availability.advance();
        self.update_blocked(at, "pu");
        let next = self.availability.next_change();
        if next < self.end {
            self.deadlines.schedule(next, Ev::Availability);
        }
    }

    /// Acts on a change of the effective blocked state: a blockage
    /// destroys the frames on the air; the end of one restarts the hop.
    fn update_blocked(&mut self, at: Time, cause: &'static str) {
        let blocked = self.blocked();
        if blocked == self.was_blocked {
            return;
        }
        self.was_blocked = blocked;
        if let Some(flag) = &self.blocked_flag {
            flag.store(blocked, Ordering::Relaxed);
        }
        if blocked {
            self.blocked_since = Some(at);
            self.emit(at, Signal::PuStart { cause });
            self.emit(at, Signal::TfpStart { cause });
            if self.air.is_some() {
                return self.air_set_blocked(at, true);
            }
            for link in self.wireless() {
                let victim = self.links[link]
                    .in_tx()
                    .map(|p| (p.meta.uid, p.meta.flow, p.ip_len() as u32));
                if let (Some(_), Some((uid, flow, bytes))) = (self.links[link].block(), victim) {
                    self.counters.accounting.dropped += 1;
                    if let Some(cap) = self.capture.as_mut() {
                        let why = HopDrop::Link(DropReason::Blocked);
                        cap.record_drop(link, at, self.slab.get_mut(uid), why);
                    }
                    self.slab.remove(uid);
                    let dir = self.dir_of(link);
                    self.emit(
                        at,
                        Signal::Undelivered {
                            dir,
                            flow,
                            bytes,
                            reason: "blocked",
                        },
                    );
                }
            }
        } else {
            if let Some(since) = self.blocked_since.take() {
                self.blocked_total += at - since;
                self.blocked_intervals.push((since, at));
            }
            self.emit(at, Signal::PuStop { cause });
            self.emit(at, Signal::TfpEnd { cause });
            if self.air.is_some() {
                return self.air_set_blocked(at, false);
            }
            self.kick_wireless(at);
        }
    }

    fn kick_wireless(&mut self, at: Time) {
        if self.air.is_some() {
            // The simulator's hop restarts itself when unblocked.
            return;
        }
        for link in self.wireless() {
            let wake = self.links[link].kick(at, true);
            self.apply(at, link, wake, None);
        }
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

/// The name of a reason the simulator's hop dropped a packet for.
pub fn drop_name(why: HopDrop) -> &'static str {
    match why {
        HopDrop::Link(DropReason::QueueFull) => "queue_full",
        HopDrop::Link(DropReason::Loss) => "loss",
        HopDrop::Link(DropReason::Blocked) => "blocked",
        HopDrop::Mac(UndeliveredReason::RetryLimit) => "retry_limit",
        HopDrop::Mac(UndeliveredReason::ChannelAccessFailure) => "channel_access_failure",
        HopDrop::Mac(UndeliveredReason::QueueFull) => "mac_queue_full",
        HopDrop::Mac(UndeliveredReason::FrameTooLong) => "frame_too_long",
        HopDrop::Mac(UndeliveredReason::Flushed) => "flushed_on_retune",
    }
}

/// A compact stand-in for a non-TCP IPv4 datagram: same addresses, same
/// IP length (at least a bare IPv4 + TCP header). The IPv4 header checksum
/// is verified; `None` if it is wrong.
fn stand_in(bytes: &[u8]) -> Option<Packet> {
    let ihl = (bytes[0] & 0x0f) as usize * 4;
    if ones_complement_sum(&bytes[..ihl]) != 0xffff {
        return None;
    }
    let addr = |at: usize| Ipv4Addr::new(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
    let total = u16::from_be_bytes([bytes[2], bytes[3]]) as u32;
    Some(Packet {
        src: addr(12),
        dst: addr(16),
        ip_id: u16::from_be_bytes([bytes[4], bytes[5]]),
        ttl: bytes[8],
        tcp: Segment {
            payload_len: total.saturating_sub(40),
            ..Segment::default()
        },
        meta: PacketMeta::default(),
    })
}

fn ones_complement_sum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in data.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += word as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// Decrements the IPv4 TTL in place, updating the header checksum
/// incrementally; false (datagram to drop) if the TTL would reach zero.
pub fn decrement_ttl(datagram: &mut [u8]) -> bool {
    let ttl = datagram[8];
    if ttl <= 1 {
        return false;
    }
    // RFC 1812 §5.3.1: a router decrements the TTL by one.
    let old = u16::from_be_bytes([ttl, datagram[9]]);
    let new = u16::from_be_bytes([ttl - 1, datagram[9]]);
    datagram[8] = ttl - 1;
    let check = u16::from_be_bytes([datagram[10], datagram[11]]);
    // RFC 1624 §3: HC' = ~(~HC + ~m + m').
    let mut sum = (!check) as u32 + (!old) as u32 + new as u32;
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    datagram[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    true
}

/// The address of a flow's host (the simulator's plan).
pub fn host_address(side: Side, flow: u32) -> Ipv4Addr {
    address(side, flow)
}

#[cfg(test)]
#[path = "hop_tests.rs"]
mod tests;

/// The side across the base station from `side`.
fn other_side(side: Side) -> Side {
    match side {
        Side::Ch => Side::Sh,
        Side::Sh => Side::Ch,
    }
}
