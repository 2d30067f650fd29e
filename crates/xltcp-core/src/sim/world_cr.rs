//! The world's cognitive-radio parts: the 802.15.4 hop, the per-node
//! signal bus, and the schemes it drives (CR-aware TCP at each wireless
//! host, local recovery at the BS and the sender).
//!
//! # The signal bus
//!
//! Each station's radio (its PU detector, its MAC's delivery reports)
//! publishes [`Signal`]s; the bus hands each to the subscribers on the same
//! node. At a wireless host the CR-aware controller subscribes to
//! `pu_start`, `pu_stop` and to `undelivered` reports of channel-access
//! failures; the BS has no subscriber. Every signal published is counted
//! by type; every delivery to a subscriber is counted and, when the run
//! has an output folder, traced to `signals.jsonl` (node 0 = BS, node
//! `i + 1` = the wireless host of flow `i`).
//!
//! # Local recovery reports
//!
//! A report is a TCP segment the BS forges toward the sender (see
//! [`crate::schemes::local_recovery`]); its packet uid has the top bit set
//! ([`REPORT_UID`]) so the sender's agent can tell it from the receiver's
//! ACKs. It is injected, carried and delivered like any packet.

use super::engine::EventQueue;
use super::flow::{address, Side};
use super::lrwpan_hop::{HopEv, HopOut, LrwpanHop};
use super::world::{Ev, World};
use crate::radio::lrwpan::UndeliveredReason;
use crate::scenario::{HopKind, LocalRecoverySpec, Scenario};
use crate::schemes::{CrAction, CrAware, CrAwareConfig, CrAwareStats};
use crate::schemes::{GapMonitor, LrAction, LrAgent, LrMode, LrReport, LrStats};
use crate::signal::{Signal, SignalLog};
use crate::tcp::Event;
use crate::time::Time;
use crate::wire::{Packet, PacketMeta, SackBlock, SackBlocks, Segment, SeqNum, TcpFlags};
use serde::Serialize;
use std::collections::BTreeMap;

/// Packet uids with this bit set are local-recovery reports forged by the BS.
pub const REPORT_UID: u64 = 1 << 63;

/// Signals published and delivered, by type name.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SignalStats {
    /// Signals published by the radios, by type.
    pub published: BTreeMap<&'static str, u64>,
    /// Deliveries to subscribers, by type.
    pub delivered: BTreeMap<&'static str, u64>,
}

/// The cognitive-radio state of the world.
#[derive(Debug, Default)]
pub struct CrossLayer {
    /// The 802.15.4 hop, when `[wireless] kind = "lrwpan"`.
    pub hop: Option<LrwpanHop>,
    out: Vec<HopOut>,
    /// CR-aware controller of each flow's wireless host.
    pub cr: Vec<Option<CrAware>>,
    cr_armed: Vec<Time>,
    /// Local-recovery agent of each flow's sender (uplink flows).
    pub agents: Vec<Option<LrAgent>>,
    /// Gap monitor at the BS for each uplink flow.
    pub gaps: Vec<Option<GapMonitor>>,
    /// Last (seq, window) the receiver sent toward the sender, per flow.
    peer: Vec<Option<(SeqNum, u16)>>,
    next_report_uid: u64,
    /// Trace of the deliveries (only with an output folder).
    pub log: Option<SignalLog>,
    /// Counters of the bus.
    pub signals: SignalStats,
}

impl CrossLayer {
    /// The parts `scenario` switches on.
    pub fn new(scenario: &Scenario, seed: u64) -> CrossLayer {
        let n = scenario.flows.len();
        let wl = &scenario.wireless;
        let hop = match &wl.kind {
            HopKind::P2p => None,
            HopKind::Lrwpan(spec) => Some(LrwpanHop::new(
                spec,
                wl.link.queue,
                (&wl.loss_down, &wl.loss_up),
                &scenario.pu_detection,
                n,
                seed,
            )),
        };
        let s = &scenario.schemes;
        let cr_on = s.cr_aware && hop.is_some();
        let cfg = CrAwareConfig {
            max_freeze: s.cr_max_freeze,
            probe_interval: s.cr_probe_interval,
            access_failures: s.cr_access_failures,
        };
        let up = |i: usize| scenario.flows[i].direction == crate::scenario::Direction::Up;
        let mode = match s.local_recovery {
            LocalRecoverySpec::None => None,
            LocalRecoverySpec::Phy => Some(LrMode::Phy),
            LocalRecoverySpec::Tcp => Some(LrMode::Tcp),
        };
        let lr_on = |i: usize| mode.filter(|_| hop.is_some() && up(i));
        CrossLayer {
            cr: (0..n).map(|_| cr_on.then(|| CrAware::new(cfg))).collect(),
            cr_armed: vec![Time::NEVER; n],
            agents: (0..n)
                .map(|i| lr_on(i).map(|m| LrAgent::new(m, s.lr_buffer as usize)))
                .collect(),
            gaps: (0..n)
                .map(|i| lr_on(i).map(|_| GapMonitor::new()))
                .collect(),
            peer: vec![None; n],
            hop,
            ..CrossLayer::default()
        }
    }

    /// CR-aware counters summed over the flows, if any flow has it.
    pub fn cr_stats(&self) -> Option<CrAwareStats> {
        let mut any = false;
        let mut t = CrAwareStats::default();
        for c in self.cr.iter().flatten() {
            any = true;
            let s = c.stats();
            t.pu_starts += s.pu_starts;
            t.pu_stops += s.pu_stops;
            t.freezes += s.freezes;
            t.access_failure_freezes += s.access_failure_freezes;
            t.access_failures += s.access_failures;
            t.resumes += s.resumes;
            t.watchdog_resumes += s.watchdog_resumes;
            t.probe_resumes += s.probe_resumes;
            t.stray_stops += s.stray_stops;
            t.frozen_ns += s.frozen_ns;
        }
        any.then_some(t)
    }

    /// Local-recovery counters (BS and senders), if any flow has it.
    pub fn lr_stats(&self) -> Option<LrStats> {
        let mut any = false;
        let mut t = LrStats::default();
        let sides = self.gaps.iter().flatten().map(|g| &g.stats);
        for s in sides.chain(self.agents.iter().flatten().map(|a| &a.stats)) {
            any = true;
            t.reports_sent += s.reports_sent;
            t.reports_received += s.reports_received;
            t.holes_reported += s.holes_reported;
            t.link_resends += s.link_resends;
            t.holes_not_buffered += s.holes_not_buffered;
            t.tcp_retransmit_requests += s.tcp_retransmit_requests;
            t.rto_requests += s.rto_requests;
            t.duplicates_at_bs += s.duplicates_at_bs;
        }
        any.then_some(t)
    }
}

impl World {
    /// Whether `link` is a wireless direction carried by the 802.15.4 hop.
    pub(super) fn on_lrwpan(&self, link: usize) -> bool {
        self.xl.hop.is_some() && (link == self.wl_down || link == self.wl_up)
    }

    /// Hands a packet to the 802.15.4 hop: down from the BS, up from the
    /// flow's wireless host.
    pub(super) fn hop_send(&mut self, now: Time, link: usize, p: Packet) {
        let flow = p.meta.flow as usize + 1;
        let (from, to) = if link == self.wl_down {
            (0, flow)
        } else {
            (flow, 0)
        };
        self.drive_hop(now, |hop, q, out| hop.enqueue(now, from, to, p, q, out));
    }

    /// A hop event.
    pub(super) fn on_hop(&mut self, now: Time, ev: HopEv) {
        self.drive_hop(now, |hop, q, out| hop.handle(now, ev, q, out));
    }

    /// The PU came on or went off.
    pub(super) fn hop_pu(&mut self, now: Time, on: bool) {
        self.drive_hop(now, |hop, q, out| hop.set_pu(now, on, q, out));
    }

    /// Calls into the 802.15.4 hop (if there is one) with the queue and the
    /// reusable output buffer, then acts on what it produced.
    fn drive_hop(
        &mut self,
        now: Time,
        call: impl FnOnce(&mut LrwpanHop, &mut EventQueue<Ev>, &mut Vec<HopOut>),
    ) {
        let mut out = std::mem::take(&mut self.xl.out);
        if let Some(hop) = self.xl.hop.as_mut() {
            call(hop, &mut self.q, &mut out);
        }
        self.hop_outputs(now, &mut out);
        self.xl.out = out;
    }

    fn hop_outputs(&mut self, now: Time, out: &mut Vec<HopOut>) {
        // Outputs may cause more outputs (a forwarded packet, a resend):
        // take them in order, each batch after the previous one.
        let mut k = 0;
        while k < out.len() {
            let o = out[k].clone();
            k += 1;
            match o {
                HopOut::Arrived { station: 0, packet } => self.arrived_at_bs(now, packet),
                HopOut::Arrived { packet, .. } => {
                    self.deliver(now, packet.meta.flow as usize, Side::Sh, &packet)
                }
                HopOut::Dropped { .. } => self.accounting.dropped += 1,
                HopOut::Signal {
                    station,
                    signal,
                    reason,
                } => self.publish(now, station, signal, reason),
                HopOut::OnAir { down, packet } => {
                    let link = if down { self.wl_down } else { self.wl_up };
                    self.output.capture(link, now, &packet);
                }
            }
        }
        out.clear();
    }

    /// A packet from the air at the BS: gap detection, then the wired link.
    fn arrived_at_bs(&mut self, now: Time, p: Packet) {
        let flow = p.meta.flow as usize;
        let report = self.xl.gaps[flow].as_mut().and_then(|g| g.on_data(&p.tcp));
        self.send(now, 2 * flow + 1, p);
        if let Some(r) = report {
            self.send_report(now, flow, &p.tcp, &r);
        }
    }

    /// A packet from a wired host at the BS, about to go on the air.
    pub(super) fn note_from_ch(&mut self, p: &Packet) {
        let flow = p.meta.flow as usize;
        if self.xl.gaps[flow].is_some() {
            self.xl.peer[flow] = Some((p.tcp.seq, p.tcp.window));
        }
    }

    /// Forges the report toward the sender and sends it down.
    fn send_report(&mut self, now: Time, flow: usize, data: &Segment, r: &LrReport) {
        let mut sack = SackBlocks::new();
        for &(left, right) in &r.blocks {
            sack.push(SackBlock { left, right });
        }
        let (seq, window) = self.xl.peer[flow].unwrap_or((SeqNum(0), 0));
        let tcp = Segment {
            src_port: data.dst_port,
            dst_port: data.src_port,
            seq,
            ack: r.cum,
            flags: TcpFlags::ACK,
            window,
            options: crate::wire::TcpOptions {
                sack,
                ..Default::default()
            },
            payload_len: 0,
        };
        let uid = REPORT_UID | self.xl.next_report_uid;
        self.xl.next_report_uid += 1;
        let packet = Packet {
            src: address(Side::Ch, flow as u32),
            dst: address(Side::Sh, flow as u32),
            ip_id: (self.xl.next_report_uid & 0xffff) as u16,
            ttl: 64,
            tcp,
            meta: PacketMeta {
                flow: flow as u32,
                uid,
                retransmission: false,
            },
        };
        self.accounting.injected += 1;
        self.send(now, self.wl_down, packet);
    }

    /// At a wireless host, before TCP: a report goes to the LR agent (and
    /// stops there); a receiver's ACK also tells the agent what is acked.
    /// Returns true if the packet was consumed.
    pub(super) fn lr_intercept(&mut self, now: Time, flow: usize, p: &Packet) -> bool {
        let Some(agent) = self.xl.agents[flow].as_mut() else {
            return false;
        };
        if p.meta.uid & REPORT_UID == 0 {
            agent.on_ack(p.tcp.ack);
            return false;
        }
        let blocks = p
            .tcp
            .options
            .sack
            .as_slice()
            .iter()
            .map(|b| (b.left, b.right))
            .collect();
        let report = LrReport {
            cum: p.tcp.ack,
            blocks,
        };
        agent.on_report(now, &report);
        self.lr_actions(now, flow);
        true
    }

    /// The sender's TCP emitted `event` (TCP-LR listens for RTOs).
    pub(super) fn lr_tcp_event(&mut self, flow: usize, event: &Event) -> bool {
        let Some(agent) = self.xl.agents[flow].as_mut() else {
            return false;
        };
        if matches!(event, Event::RetransmissionTimeout { .. }) {
            agent.on_rto();
            return true;
        }
        false
    }

    /// Carries out the agent's actions. TCP retransmissions are queued in
    /// the endpoint; the caller pumps it.
    pub(super) fn lr_actions(&mut self, now: Time, flow: usize) -> bool {
        let mut tcp = false;
        while let Some(a) = self.xl.agents[flow].as_mut().and_then(|a| a.poll_action()) {
            match a {
                LrAction::Resend(mut p) => {
                    p.meta.uid = self.next_uid;
                    self.next_uid += 1;
                    self.accounting.injected += 1;
                    self.send(now, self.wl_up, p);
                }
                LrAction::Retransmit { left, right } => {
                    self.flows[flow].ep[Side::Sh as usize].retransmit_range(left, right);
                    tcp = true;
                }
            }
        }
        if tcp {
            self.pump(now, flow, Side::Sh);
        }
        tcp
    }

    /// The sender handed `p` to its link layer.
    pub(super) fn lr_sent(&mut self, flow: usize, side: Side, p: &Packet) {
        if side == Side::Sh {
            if let Some(agent) = self.xl.agents[flow].as_mut() {
                agent.on_sent(p);
            }
        }
    }

    /// The bus: count, deliver to the node's subscribers, trace.
    fn publish(
        &mut self,
        now: Time,
        station: usize,
        signal: Signal,
        reason: Option<UndeliveredReason>,
    ) {
        *self.xl.signals.published.entry(signal.name()).or_insert(0) += 1;
        if station == 0 {
            return;
        }
        let flow = station - 1;
        let Some(cr) = self.xl.cr[flow].as_mut() else {
            return;
        };
        let delivered = match signal {
            Signal::PuStart | Signal::PuStop => {
                cr.handle_signal(now, &signal);
                true
            }
            Signal::Undelivered { .. }
                if reason == Some(UndeliveredReason::ChannelAccessFailure) =>
            {
                cr.handle_access_failure(now);
                true
            }
            Signal::Delivered { .. } if cr.wants_delivery_reports() => {
                cr.handle_delivered(now);
                true
            }
            _ => false,
        };
        if !delivered {
            return;
        }
        *self.xl.signals.delivered.entry(signal.name()).or_insert(0) += 1;
        if let Some(log) = self.xl.log.as_mut() {
            log.push(now, station as u32, signal);
        }
        self.cr_actions(now, flow);
    }

    /// A CR-aware deadline may be due.
    pub(super) fn on_cr_timer(&mut self, now: Time, flow: usize) {
        if self.xl.cr_armed[flow] == now {
            self.xl.cr_armed[flow] = Time::NEVER;
        }
        if let Some(cr) = self.xl.cr[flow].as_mut() {
            cr.handle_timeout(now);
        }
        self.cr_actions(now, flow);
    }

    /// Carries out the CR-aware controller's actions on the host's TCP.
    fn cr_actions(&mut self, now: Time, flow: usize) {
        let Some(cr) = self.xl.cr[flow].as_mut() else {
            return;
        };
        let mut acted = false;
        while let Some(a) = cr.poll_action() {
            let ep = &mut self.flows[flow].ep[Side::Sh as usize];
            match a {
                CrAction::Freeze => ep.freeze(now),
                CrAction::Resume => ep.resume(now),
            }
            acted = true;
        }
        if let Some(at) = cr.poll_timeout() {
            let at = at.max(now);
            if at < self.xl.cr_armed[flow] {
                self.xl.cr_armed[flow] = at;
                self.q.schedule(at, Ev::Cr { flow: flow as u32 });
            }
        }
        if acted {
            self.pump(now, flow, Side::Sh);
        }
    }
}
