//! The simulated world: hosts, the base station, links and flows, driven
//! by one event queue.
//!
//! Topology: every flow has its own wired host (CH) with its own access link
//! to the base station (BS), and its own wireless host (SH) behind the one
//! shared wireless hop (a queue, rate and delay per direction, a loss process
//! per direction, and one availability process that blocks both).

use super::availability::Availability;
use super::engine::EventQueue;
use super::flow::{address, Flow, Side};
use super::link::{Dest, DropReason, Link, Wake};
use super::loss::LossProcess;
use super::output::Output;
use crate::rng::stream;
use crate::scenario::{Direction, Scenario};
use crate::time::{Dur, Time};
use crate::wire::{Packet, PacketMeta, SeqNum};
use rand::RngExt;

/// An event of the simulator. Small and `Copy`: the queue never allocates
/// per event once it has grown to its working size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    /// A link finished serialising the frame of this generation.
    TxDone {
        /// Link index.
        link: u32,
        /// Transmission generation (stale ones are ignored).
        gen: u32,
    },
    /// The head of a link's propagation pipe arrives.
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
    /// An event of the 802.15.4 hop.
    Hop(super::lrwpan_hop::HopEv),
    /// A flow's CR-aware deadline may be due.
    Cr {
        /// Flow index.
        flow: u32,
    },
}

/// Conservation of packets: everything injected is delivered, dropped with
/// a reason, or still held by a link at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Accounting {
    /// Packets the endpoints sent into the network.
    pub injected: u64,
    /// Packets handed to an endpoint.
    pub delivered: u64,
    /// Packets dropped by links (every reason).
    pub dropped: u64,
    /// Packets still queued, on the air or propagating at the end.
    pub in_flight: u64,
}

impl Accounting {
    /// Whether every packet is accounted for.
    pub fn balances(&self) -> bool {
        self.injected == self.delivered + self.dropped + self.in_flight
    }
}

/// The running world.
pub struct World {
    /// The scenario being run.
    pub scenario: Scenario,
    /// The seed of this run.
    pub seed: u64,
    pub(super) q: EventQueue<Ev>,
    pub(super) links: Vec<Link>,
    pub(super) flows: Vec<Flow>,
    /// Wired uplink (CH -> BS) of flow i is `2i`, downlink (BS -> CH) is `2i + 1`.
    pub(super) wl_down: usize,
    pub(super) wl_up: usize,
    pub(super) availability: Availability,
    /// Blocked time of the wireless hop so far, up to `blocked_since`.
    pub(super) blocked_total: Dur,
    blocked_since: Option<Time>,
    pub(super) accounting: Accounting,
    pub(super) next_uid: u64,
    pub(super) output: Output,
    end: Time,
    /// Sampling and progress ticks popped: not part of the model, so not
    /// counted in [`World::events`] (which must not depend on them).
    observer_events: u64,
    /// The 802.15.4 hop, the signal bus and the schemes.
    pub(super) xl: super::world_cr::CrossLayer,
}

impl World {
    /// Builds the world of `scenario` for `seed`; `output` receives traces.
    pub fn new(scenario: Scenario, seed: u64, output: Output) -> World {
        let n = scenario.flows.len();
        let mut links = Vec::with_capacity(2 * n + 2);
        let w = &scenario.wired;
        for i in 0..n as u32 {
            let none = || LossProcess::None;
            links.push(Link::new(
                format!("ch{i}-bs"),
                Dest::Bs,
                w.rate_bps,
                w.delay,
                w.queue,
                0,
                none(),
                false,
            ));
            links.push(Link::new(
                format!("bs-ch{i}"),
                Dest::Ch(i),
                w.rate_bps,
                w.delay,
                w.queue,
                0,
                none(),
                false,
            ));
        }
        let wl = &scenario.wireless;
        let loss = |spec, name: &str| LossProcess::new(spec, stream(seed, name));
        let (rate, delay, queue, ovh) = (
            wl.link.rate_bps,
            wl.link.delay,
            wl.link.queue,
            wl.frame_overhead,
        );
        let wl_down = links.len();
        links.push(Link::new(
            "bs-air".into(),
            Dest::ShOfFlow,
            rate,
            delay,
            queue,
            ovh,
            loss(&wl.loss_down, "wireless.down.loss"),
            true,
        ));
        let wl_up = links.len();
        links.push(Link::new(
            "air-bs".into(),
            Dest::Bs,
            rate,
            delay,
            queue,
            ovh,
            loss(&wl.loss_up, "wireless.up.loss"),
            true,
        ));

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
        let availability =
            Availability::new(&wl.availability, stream(seed, "wireless.availability"));
        let end = Time::ZERO + scenario.sim.duration;
        let xl = super::world_cr::CrossLayer::new(&scenario, seed);
        let mut world = World {
            xl,
            seed,
            q: EventQueue::default(),
            links,
            flows,
            wl_down,
            wl_up,
            blocked_since: availability.blocked().then_some(Time::ZERO),
            availability,
            blocked_total: Dur::ZERO,
            accounting: Accounting::default(),
            next_uid: 0,
            output,
            end,
            scenario,
            observer_events: 0,
        };
        for i in 0..n {
            let start = Time::ZERO + world.flows[i].spec.start;
            world.q.schedule(start, Ev::Start { flow: i as u32 });
        }
        if world.xl.hop.is_some() && world.availability.blocked() {
            world.hop_pu(Time::ZERO, true);
        }
        let change = world.availability.next_change();
        if change < end {
            world.q.schedule(change, Ev::Availability);
        }
        if world.output.sampling() {
            world.q.schedule(Time::ZERO, Ev::Sample);
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
                Ev::Hop(e) => self.on_hop(now, e),
                Ev::Cr { flow } => self.on_cr_timer(now, flow as usize),
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
            + self.xl.hop.as_ref().map_or(0, |h| h.in_flight());
        true
    }

    fn open(&self, link: usize) -> bool {
        !(self.links[link].gated && self.availability.blocked())
    }

    /// Schedules what a link asked for; every transmission starts at `now`.
    fn apply(&mut self, now: Time, link: usize, wake: Wake) {
        if let Some((at, gen)) = wake.tx_done {
            if let Some(p) = self.links[link].in_tx() {
                self.output.capture(link, now, p);
            }
            self.q.schedule(
                at,
                Ev::TxDone {
                    link: link as u32,
                    gen,
                },
            );
        }
        if let Some(at) = wake.arrival {
            self.q.schedule(at, Ev::Arrive { link: link as u32 });
        }
        if let Some(why) = wake.dropped {
            self.note_drop(why);
        }
    }

    fn note_drop(&mut self, _why: DropReason) {
        self.accounting.dropped += 1;
    }

    pub(super) fn send(&mut self, now: Time, link: usize, p: Packet) {
        if self.on_lrwpan(link) {
            return self.hop_send(now, link, p);
        }
        let open = self.open(link);
        let wake = self.links[link].offer(now, p, open);
        self.apply(now, link, wake);
    }

    fn on_tx_done(&mut self, now: Time, link: usize, gen: u32) {
        let open = self.open(link);
        let wake = self.links[link].tx_done(now, gen, open);
        self.apply(now, link, wake);
    }

    fn on_arrive(&mut self, now: Time, link: usize) {
        let (packet, next) = self.links[link].arrive(now);
        if let Some(at) = next {
            self.q.schedule(at, Ev::Arrive { link: link as u32 });
        }
        let Some(p) = packet else { return };
        let flow = p.meta.flow as usize;
        match self.links[link].dest {
            // The BS forwards: from a wired host onto the air, from the air
            // to the flow's wired host.
            Dest::Bs if link == self.wl_up => self.send(now, 2 * flow + 1, p),
            Dest::Bs => {
                self.note_from_ch(&p);
                self.send(now, self.wl_down, p)
            }
            Dest::Ch(_) => self.deliver(now, flow, Side::Ch, &p),
            Dest::ShOfFlow => self.deliver(now, flow, Side::Sh, &p),
        }
    }

    pub(super) fn deliver(&mut self, now: Time, flow: usize, side: Side, p: &Packet) {
        self.accounting.delivered += 1;
        if side == Side::Sh && self.lr_intercept(now, flow, p) {
            return;
        }
        self.flows[flow].ep[side as usize].handle_segment(now, &p.tcp);
        self.pump(now, flow, side);
    }

    fn on_timer(&mut self, now: Time, flow: usize, side: usize) {
        let f = &mut self.flows[flow];
        if f.timer_armed[side] == now {
            f.timer_armed[side] = Time::NEVER;
        }
        match f.ep[side].poll_timeout() {
            Some(t) if t <= now => f.ep[side].handle_timeout(now),
            _ => {}
        }
        let s = if side == 0 { Side::Ch } else { Side::Sh };
        self.pump(now, flow, s);
    }

    /// After any input to an endpoint: run its applications, send what it
    /// wants to send, and (re)arm its timer.
    pub(super) fn pump(&mut self, now: Time, flow: usize, side: Side) {
        let i = side as usize;
        let out_link = match side {
            Side::Ch => 2 * flow,
            Side::Sh => self.wl_up,
        };
        let (src, dst) = match side {
            Side::Ch => (
                address(Side::Ch, flow as u32),
                address(Side::Sh, flow as u32),
            ),
            Side::Sh => (
                address(Side::Sh, flow as u32),
                address(Side::Ch, flow as u32),
            ),
        };
        self.flows[flow].run_apps(side, now);
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
                },
            };
            self.next_uid += 1;
            self.accounting.injected += 1;
            self.lr_sent(flow, side, &packet);
            self.send(now, out_link, packet);
            // Sending may have freed send-buffer space (e.g. a FIN queued).
            self.flows[flow].run_apps(side, now);
        }
        let mut rto = false;
        while let Some(e) = self.flows[flow].ep[i].poll_event() {
            if side == Side::Sh {
                rto |= self.lr_tcp_event(flow, &e);
            }
        }
        if rto && self.lr_actions(now, flow) {
            // lr_actions pumped the endpoint again.
            return;
        }
        let f = &mut self.flows[flow];
        if let Some(t) = f.ep[i].poll_timeout() {
            let t = t.max(now);
            if t < f.timer_armed[i] {
                f.timer_armed[i] = t;
                self.q.schedule(
                    t,
                    Ev::Timer {
                        flow: flow as u32,
                        side: i as u8,
                    },
                );
            }
        }
    }

    fn on_availability(&mut self, now: Time) {
        self.availability.advance();
        if self.xl.hop.is_some() {
            let on = self.availability.blocked();
            if on {
                self.blocked_since = Some(now);
            } else if let Some(since) = self.blocked_since.take() {
                self.blocked_total += now - since;
            }
            self.hop_pu(now, on);
        } else if self.availability.blocked() {
            self.blocked_since = Some(now);
            for link in [self.wl_down, self.wl_up] {
                if let Some(why) = self.links[link].block() {
                    self.note_drop(why);
                }
            }
        } else {
            if let Some(since) = self.blocked_since.take() {
                self.blocked_total += now - since;
            }
            for link in [self.wl_down, self.wl_up] {
                let wake = self.links[link].kick(now, true);
                self.apply(now, link, wake);
            }
        }
        let next = self.availability.next_change();
        if next < self.end {
            self.q.schedule(next, Ev::Availability);
        }
    }

    /// The wireless link that carries a flow's data (`bs-air` down, `air-bs` up).
    pub fn data_link(&self, flow: usize) -> usize {
        match self.flows[flow].spec.direction {
            Direction::Down => self.wl_down,
            Direction::Up => self.wl_up,
        }
    }
}
