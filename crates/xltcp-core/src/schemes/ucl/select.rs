//! The UCL's interface selection (paper 003): below IP at a wireless host
//! and at the base station, the agent picks which of the node's air
//! interfaces (the scenario's hops, in order) each packet takes.
//!
//! Inputs: the radios' periodic SNR reports (`snr` signals, one per
//! interface every `snr_report`; at the AP one per host), the MAC's
//! delivery reports (`delivered` / `undelivered`) and the packets leaving
//! the node ([`Tap::HostOut`] at a host, [`Tap::BsDown`] at the BS). The
//! choice is kept per destination (the BS's one per host) and changed only
//! when a report arrives, so that packets of one period take one interface.
//!
//! Rules ([`Rule`]):
//! - **threshold** (the paper's, §3.2.5): the first interface whose SNR is
//!   at least `threshold` (25 dB in the paper), else the last one. With an
//!   802.11a interface first and an 802.11b one second, this is "11a while
//!   its SNR is at least 25 dB";
//! - **hysteresis**: as threshold, leaving an interface only when its SNR
//!   falls `hysteresis_db` below the threshold and taking it back only
//!   when its SNR is `hysteresis_db` above it;
//! - **goodput** (ours): the interface with the largest goodput *as the
//!   host measures it* ([`measure`]): from its MAC's reports on the frames
//!   it sent (acknowledged bits over their time at the MAC, times the
//!   fraction not given up), over the latest frames for the interface in
//!   use and, for the others, from a history kept per SNR bin and looked up
//!   at the interface's latest reported SNR less a margin (`margin_db`,
//!   default 0 dB). An interface never measured yet is credited with its
//!   configured rate (the driver's; with rate control, the one it starts
//!   at), the most it could carry: it is tried once the one in use
//!   delivers less, and judged by what it measured from then on. A switch
//!   needs a `gain` (relative) over the interface in use. The rule sees no
//!   error model and no PHY timing: only SNR reports, delivery reports, its
//!   own history and its interfaces' configured rates.
//!
//! Every rule waits `dwell` after a switch before the next (but for a
//! move after failures, below).
//!
//! Beyond the paper ("ours"), each switchable:
//! - **reordering** (`reorder = "barrier"`): after a switch, packets for
//!   that destination are held until the MAC has reported on every packet
//!   still queued on the old interface (or `max_hold` passed), so the new
//!   interface does not overtake the old one; TCP sees no reordering from
//!   a switch. (The alternative, a resequencing buffer at the receiver,
//!   would need a UCL sequence number on every frame.) With `"none"` a
//!   switch may reorder, as the paper's implementation did.
//! - **resend** (`resend = true`): a data segment (or a SYN, a FIN) the
//!   MAC gave up on after its retries (`undelivered`, retry limit) is sent
//!   again at once on another interface, and two frames of any kind given
//!   up in a row on the current interface move the destination to the
//!   next one, dwell or not: a failing link does not cost TCP a
//!   retransmission timeout while another works. A packet dropped at a
//!   full queue is left to TCP (congestion must reach it), so timeouts
//!   after queue overflow remain.
//!
//! Before the first report the first interface is used.
//!
//! With `security = "on"` the agent also seals every packet it sends and
//! opens every one it receives ([`super::secure`]); packets wait for the
//! handshake; the goodput rule measures the sealed frames as they are.
//!
//! Sans-IO: [`Agent::on_packet`], [`Agent::on_signal`],
//! [`Agent::on_timeout`] in; [`Agent::poll_action`] and
//! [`Agent::poll_timeout`] out.

use super::secure::{Air, Inbound, Sec, SecuritySpec, UclSecStats, CONTROL};
use crate::scenario::{TcpSpec, WirelessSpec};
use crate::schemes::cache::local_copy;
use crate::schemes::{Action, Agent, AgentStats, NodeSignal, Tap, Verdict, Via};
use crate::signal::{Signal, UndeliveredReason};
use crate::time::{Dur, Time};
use crate::wire::{Packet, TcpFlags};
use measure::{Frame, Link};
use serde::Serialize;
use std::collections::VecDeque;

pub mod measure;

/// How the interface is chosen (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// The first interface with SNR >= `db`, else the last.
    Threshold {
        /// Threshold, dB.
        db: f64,
    },
    /// As `Threshold`, with a band of `margin` dB either side.
    Hysteresis {
        /// Threshold, dB.
        db: f64,
        /// Half-width of the band, dB.
        margin: f64,
    },
    /// The largest measured goodput ([`measure`]), the history looked up
    /// at the SNR less a `margin`, switching for a relative `gain`.
    Goodput {
        /// Relative gain a switch needs (0.1: 10 % more).
        gain: f64,
        /// Margin, dB: the history is looked up at the SNR less this.
        margin: f64,
    },
}

/// The UCL's settings (`[[agent]] scheme = "ucl"`).
#[derive(Clone, Debug, PartialEq)]
pub struct UclConfig {
    /// `rule` (default "goodput") with `threshold` (25), `hysteresis_db`
    /// (3), `gain` (0.1), `margin_db` (0).
    pub rule: Rule,
    /// `dwell`: the least time between two switches (default 500 ms).
    pub dwell: Dur,
    /// `reorder = "barrier"` (default) or `"none"`.
    pub barrier: bool,
    /// `max_hold`: the longest a barrier holds packets (default 50 ms).
    pub max_hold: Dur,
    /// `resend`: resend a data packet the MAC gave up on, on another
    /// interface (default true).
    pub resend: bool,
    /// `security = "on"` (default "off") and its keys: the link's
    /// handshake and sealed frames (see [`super::secure`]).
    pub security: Option<SecuritySpec>,
}

impl UclConfig {
    /// The paper's UCL: 25 dB threshold, no dwell, no barrier, no resend.
    pub fn paper() -> UclConfig {
        UclConfig {
            rule: Rule::Threshold { db: 25.0 },
            dwell: Dur::ZERO,
            barrier: false,
            max_hold: Dur::from_millis(50),
            resend: false,
            security: None,
        }
    }

    /// Ours: measured goodput, dwell, barrier and resend.
    pub fn ours() -> UclConfig {
        UclConfig {
            rule: Rule::Goodput {
                gain: 0.1,
                margin: 0.0,
            },
            dwell: Dur::from_millis(500),
            barrier: true,
            max_hold: Dur::from_millis(50),
            resend: true,
            security: None,
        }
    }
}

/// Most interfaces counted per interface in [`UclStats::packets`].
pub const MAX_IFACES: usize = 4;

/// Most switches kept in [`UclStats::switch_log`]; later ones are counted
/// in `switch_log_cut`.
pub const SWITCH_LOG_MAX: usize = 10_000;

/// One switch: when, to which interface, for which destination (a host
/// index at the BS, `None` at a host).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Switch {
    /// Seconds since the start.
    pub t: f64,
    /// The node (`"bs"` or `"host"`) that switched.
    pub at: &'static str,
    /// The destination host (at the BS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<u32>,
    /// The interface taken.
    pub iface: u8,
}

/// The UCL's counters (`summary.json` `"ucl"`, summed over its nodes).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UclStats {
    /// Packets sent on each interface (the first four).
    pub packets: [u64; MAX_IFACES],
    /// Interface switches.
    pub switches: u64,
    /// Packets a switch barrier held.
    pub held: u64,
    /// Barriers ended by the old interface's last report.
    pub barriers_drained: u64,
    /// Barriers ended by `max_hold`.
    pub barriers_timed_out: u64,
    /// Data packets sent again on another interface after the MAC gave up.
    pub resent: u64,
    /// SNR reports used.
    pub reports: u64,
    /// The switches, in order (at most [`SWITCH_LOG_MAX`]).
    pub switch_log: Vec<Switch>,
    /// Switches past the log's end.
    pub switch_log_cut: u64,
    /// The link security's counters (with `security = "on"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<Box<UclSecStats>>,
}

impl UclStats {
    /// Adds `o`'s counters and appends its log (kept in time order).
    pub fn merge(&mut self, o: &UclStats) {
        for (a, b) in self.packets.iter_mut().zip(o.packets) {
            *a += b;
        }
        self.switches += o.switches;
        self.held += o.held;
        self.barriers_drained += o.barriers_drained;
        self.barriers_timed_out += o.barriers_timed_out;
        self.resent += o.resent;
        self.reports += o.reports;
        self.switch_log.extend_from_slice(&o.switch_log);
        self.switch_log.sort_by(|a, b| a.t.total_cmp(&b.t));
        let over = self.switch_log.len().saturating_sub(SWITCH_LOG_MAX);
        self.switch_log.truncate(SWITCH_LOG_MAX);
        self.switch_log_cut += o.switch_log_cut + over as u64;
        match (&mut self.security, &o.security) {
            (Some(a), Some(b)) => a.merge(b),
            (a @ None, Some(b)) => *a = Some(b.clone()),
            _ => {}
        }
    }
}

/// The choice for one destination.
#[derive(Clone, Debug)]
struct Dest {
    /// Latest SNR per interface.
    snr: Vec<Option<f64>>,
    /// What the host measured of each interface (the goodput rule).
    links: Vec<Link>,
    /// The interface in use.
    iface: u8,
    /// When it was chosen.
    since: Time,
    /// Packets handed to each interface and not yet reported on.
    outstanding: Vec<u64>,
    /// A barrier: packets held until the old interface drains.
    barrier: Option<Barrier>,
    /// Consecutive retry-limit failures on the interface in use.
    failures: u32,
}

#[derive(Clone, Debug)]
struct Barrier {
    old: u8,
    until: Time,
    held: VecDeque<Packet>,
}

/// Where the agent sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Bs,
    Host,
}

/// The UCL at one node (see the module doc).
#[derive(Debug)]
pub struct Ucl {
    cfg: UclConfig,
    side: Side,
    /// The wireless host of each flow (at the BS).
    host_of: Vec<u32>,
    /// The node's interfaces.
    ifaces: usize,
    /// Each interface's configured rate, bit/s.
    nominal: Vec<f64>,
    /// Per destination: one at a host, one per host at the BS.
    dests: Vec<Dest>,
    actions: VecDeque<Action>,
    stats: UclStats,
    /// The link security, with `security = "on"`.
    sec: Option<Sec>,
}

impl Ucl {
    fn new(cfg: UclConfig, side: Side, hops: &[&WirelessSpec], host_of: &[u32]) -> Ucl {
        // Of the hops only their number and configured rates: the rules see
        // reports, not the channel.
        let n = hops.len().max(1);
        let dest = Dest {
            snr: vec![None; n],
            links: vec![Link::default(); n],
            iface: 0,
            since: Time::ZERO,
            outstanding: vec![0; n],
            barrier: None,
            failures: 0,
        };
        let dests = match side {
            Side::Host => 1,
            Side::Bs => host_of.iter().map(|&h| h as usize + 1).max().unwrap_or(1),
        };
        Ucl {
            side,
            host_of: host_of.to_vec(),
            ifaces: n,
            nominal: hops.iter().map(|w| w.link.rate_bps as f64).collect(),
            dests: vec![dest; dests],
            actions: VecDeque::new(),
            stats: UclStats::default(),
            sec: None,
            cfg,
        }
    }

    /// Turns the BS's security on (with `cfg.security`): `air` shared with
    /// the hosts' halves, identities from `seed` or the key files,
    /// `flow_of[h]` a flow of host `h` (the route of its control frames).
    pub fn secure_bs(&mut self, air: Air, seed: u64, flow_of: &[Option<u32>]) {
        if let Some(spec) = self.cfg.security.clone() {
            let n = self.ifaces as u8;
            self.sec = Some(Sec::at_bs(spec, air, seed, flow_of, n));
        }
    }

    /// Turns host `h`'s security on (see [`Ucl::secure_bs`]).
    pub fn secure_host(&mut self, air: Air, seed: u64, h: u32, flow: Option<u32>) {
        if let Some(spec) = self.cfg.security.clone() {
            let n = self.ifaces as u8;
            self.sec = Some(Sec::at_host(spec, air, seed, h, flow, n));
        }
    }

    /// The security counters so far (with security on).
    pub fn security(&self) -> Option<UclSecStats> {
        self.sec.as_ref().map(Sec::stats)
    }

    /// Sends the packets guard `i` held, sealed, once its link is up.
    fn release_held(&mut self, now: Time, i: usize) {
        let Some(sec) = self.sec.as_mut() else {
            return;
        };
        let held = sec.came_up(now, i);
        let Some(d) = self.dests.get_mut(i) else {
            return;
        };
        for mut packet in held {
            packet.meta.iface = d.iface;
            d.outstanding[d.iface as usize] += 1;
            self.stats.packets[usize::from(d.iface).min(MAX_IFACES - 1)] += 1;
            sec.seal(i, &mut packet);
            self.actions.push_back(Action::Release {
                packet,
                via: Via::Air,
            });
        }
    }

    /// Hands the security's control frames (and the adversary's) to the
    /// engine.
    fn flush_control(&mut self) {
        if let Some(sec) = self.sec.as_mut() {
            for packet in sec.outbox.drain(..) {
                self.actions.push_back(Action::Emit {
                    packet,
                    via: Via::Air,
                });
            }
        }
    }

    /// The UCL at the base station, over `hops` (their number and
    /// configured rates), for flows whose hosts are `host_of`.
    pub fn at_bs(cfg: UclConfig, hops: &[&WirelessSpec], _tcp: &TcpSpec, host_of: &[u32]) -> Ucl {
        Ucl::new(cfg, Side::Bs, hops, host_of)
    }

    /// The UCL at a wireless host.
    pub fn at_host(cfg: UclConfig, hops: &[&WirelessSpec], _tcp: &TcpSpec) -> Ucl {
        Ucl::new(cfg, Side::Host, hops, &[])
    }

    /// What the UCL measured of interface `k` toward destination `d`.
    pub fn measured(&self, d: usize, k: usize) -> &Link {
        &self.dests[d].links[k]
    }

    /// The interface in use toward destination `d`.
    pub fn iface(&self, d: usize) -> u8 {
        self.dests[d].iface
    }

    /// The counters so far.
    pub fn counters(&self) -> &UclStats {
        &self.stats
    }

    fn dest_of(&self, p: &Packet) -> usize {
        match self.side {
            Side::Host => 0,
            Side::Bs => self
                .host_of
                .get(p.meta.flow as usize)
                .map_or(0, |&h| h as usize),
        }
    }

    /// The interface `rule` picks for `d` now (its current one if no
    /// report has come).
    fn pick(&self, d: &Dest) -> u8 {
        let n = d.snr.len();
        let last = (n - 1) as u8;
        let nominal = |k: usize| self.nominal.get(k).copied().unwrap_or(0.0);
        match self.cfg.rule {
            Rule::Threshold { db } => (0..n)
                .find(|&k| d.snr[k].is_some_and(|s| s >= db))
                .map_or(last, |k| k as u8),
            Rule::Hysteresis { db, margin } => (0..n)
                .find(|&k| {
                    let bar = if k as u8 >= d.iface {
                        db - margin
                    } else {
                        db + margin
                    };
                    d.snr[k].is_some_and(|s| s >= bar)
                })
                .map_or(last, |k| k as u8),
            Rule::Goodput { gain, margin } => {
                let cur = d.iface as usize;
                // The interface in use by its latest frames; the others by
                // their history at their reported SNR; one never measured
                // by its configured rate, the most it could carry.
                let expect = |k: usize| {
                    let past = d.snr[k].and_then(|s| d.links[k].at(s - margin));
                    let fresh = if k == cur { d.links[k].recent() } else { None };
                    fresh.or(past).unwrap_or_else(|| nominal(k))
                };
                let best = (0..n).fold(cur, |b, k| if expect(k) > expect(b) { k } else { b });
                if expect(best) > expect(cur) * (1.0 + gain) {
                    best as u8
                } else {
                    d.iface
                }
            }
        }
    }

    /// Moves destination `i` to `to` (if it may), with a barrier.
    fn switch(&mut self, now: Time, i: usize, to: u8) {
        let d = &mut self.dests[i];
        if to == d.iface || (d.since > Time::ZERO && now < d.since + self.cfg.dwell) {
            return;
        }
        let old = d.iface;
        d.iface = to;
        d.since = now;
        d.failures = 0;
        if self.cfg.barrier && d.outstanding[old as usize] > 0 && d.barrier.is_none() {
            d.barrier = Some(Barrier {
                old,
                until: now + self.cfg.max_hold,
                held: VecDeque::new(),
            });
        }
        self.stats.switches += 1;
        if self.stats.switch_log.len() < SWITCH_LOG_MAX {
            self.stats.switch_log.push(Switch {
                t: now.as_secs_f64(),
                at: if self.side == Side::Bs { "bs" } else { "host" },
                host: (self.side == Side::Bs).then_some(i as u32),
                iface: to,
            });
        } else {
            self.stats.switch_log_cut += 1;
        }
    }

    /// Ends destination `i`'s barrier: its packets go on the new interface.
    fn lift(&mut self, i: usize, drained: bool) {
        let d = &mut self.dests[i];
        let Some(b) = d.barrier.take() else {
            return;
        };
        if drained {
            self.stats.barriers_drained += 1;
        } else {
            self.stats.barriers_timed_out += 1;
        }
        for mut packet in b.held {
            packet.meta.iface = d.iface;
            d.outstanding[d.iface as usize] += 1;
            self.stats.packets[usize::from(d.iface).min(MAX_IFACES - 1)] += 1;
            if let Some(sec) = self.sec.as_mut() {
                sec.seal(i, &mut packet);
            }
            self.actions.push_back(Action::Release {
                packet,
                via: Via::Air,
            });
        }
    }

    /// A packet from the air: with security on, a handshake message
    /// (consumed) or a frame to open.
    fn inbound(&mut self, now: Time, p: &mut Packet) -> Verdict {
        let i = self.dest_of(p);
        let Some(sec) = self.sec.as_mut() else {
            return Verdict::Pass;
        };
        if i >= sec.guards.len() {
            return Verdict::Pass;
        }
        let (what, came_up) = sec.inbound(now, i, p);
        if came_up {
            self.release_held(now, i);
        }
        self.flush_control();
        match what {
            Inbound::Control => Verdict::Consume,
            Inbound::Open => Verdict::Pass,
            Inbound::Drop(reason) => Verdict::Drop(reason),
        }
    }

    fn on_snr(&mut self, now: Time, iface: u8, db: f64, node: Option<u32>) -> bool {
        let i = match (self.side, node) {
            (Side::Host, None) => 0,
            (Side::Bs, Some(h)) if (h as usize) < self.dests.len() => h as usize,
            _ => return false,
        };
        let d = &mut self.dests[i];
        let Some(slot) = d.snr.get_mut(iface as usize) else {
            return false;
        };
        *slot = Some(db);
        d.links[iface as usize].snr(db);
        self.stats.reports += 1;
        let to = self.pick(&self.dests[i]);
        self.switch(now, i, to);
        true
    }

    fn on_report(&mut self, now: Time, s: &NodeSignal, delivered: bool) -> bool {
        let Some(p) = s.packet else {
            return false;
        };
        if p.meta.link_frame & CONTROL != 0 {
            // A handshake message: its own timer resends it.
            return true;
        }
        let i = self.dest_of(&p);
        let k = s.iface as usize;
        let Some(d) = self.dests.get_mut(i) else {
            return false;
        };
        if let Some(n) = d.outstanding.get_mut(k) {
            *n = n.saturating_sub(1);
        }
        // What the MAC said of the frame: the goodput rule's measurement.
        let channel = matches!(
            s.reason,
            None | Some(UndeliveredReason::RetryLimit | UndeliveredReason::ChannelAccessFailure)
        );
        if let Some(link) = d.links.get_mut(k).filter(|_| channel) {
            link.frame(if delivered {
                Frame::Delivered {
                    bits: 8.0 * p.ip_len() as f64,
                    tx_s: s.delays.map(|m| m.tx.as_secs_f64()),
                }
            } else {
                Frame::Lost
            });
        }
        if d.barrier
            .as_ref()
            .is_some_and(|b| d.outstanding[b.old as usize] == 0)
        {
            self.lift(i, true);
        }
        let d = &mut self.dests[i];
        if delivered {
            if k == d.iface as usize {
                d.failures = 0;
            }
            return true;
        }
        let n = d.snr.len();
        let gave_up = s.reason == Some(UndeliveredReason::RetryLimit);
        let f = p.tcp.flags;
        let sequenced =
            p.tcp.payload_len > 0 || f.contains(TcpFlags::SYN) || f.contains(TcpFlags::FIN);
        if !(self.cfg.resend && gave_up && n > 1) {
            return true;
        }
        // Another interface: the one in use if the loss was elsewhere,
        // else the next one. Any frame given up counts toward a move (a
        // host sending only ACKs moves too); only sequenced ones are resent.
        if k == d.iface as usize {
            d.failures += 1;
        }
        let other = if k != d.iface as usize {
            d.iface
        } else {
            ((k + 1) % n) as u8
        };
        if d.failures >= 2 {
            d.since = Time::ZERO;
            self.switch(now, i, other);
        }
        if !sequenced {
            return true;
        }
        let mut copy = local_copy(&p);
        copy.meta.iface = other;
        if let Some(sec) = self.sec.as_mut() {
            sec.seal(i, &mut copy);
        }
        let d = &mut self.dests[i];
        d.outstanding[other as usize] += 1;
        self.stats.packets[usize::from(other).min(MAX_IFACES - 1)] += 1;
        self.stats.resent += 1;
        self.actions.push_back(Action::Emit {
            packet: copy,
            via: Via::Air,
        });
        true
    }
}

impl Agent for Ucl {
    fn on_packet(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        let (out, inbound) = match self.side {
            Side::Bs => (tap == Tap::BsDown, tap == Tap::BsUp),
            Side::Host => (tap == Tap::HostOut, tap == Tap::HostIn),
        };
        if inbound {
            return self.inbound(now, p);
        }
        if !out {
            return Verdict::Pass;
        }
        let i = self.dest_of(p);
        let Some(d) = self.dests.get_mut(i) else {
            return Verdict::Pass;
        };
        p.meta.iface = d.iface;
        if let Some(sec) = self.sec.as_mut() {
            match sec.admit(i, p) {
                Err(reason) => return Verdict::Drop(reason),
                Ok(false) => return Verdict::Hold,
                Ok(true) => {}
            }
        }
        if let Some(b) = d.barrier.as_mut() {
            b.held.push_back(*p);
            self.stats.held += 1;
            return Verdict::Hold;
        }
        d.outstanding[d.iface as usize] += 1;
        self.stats.packets[usize::from(d.iface).min(MAX_IFACES - 1)] += 1;
        if let Some(sec) = self.sec.as_mut() {
            sec.seal(i, p);
        }
        self.flush_control();
        Verdict::Pass
    }

    fn on_signal(&mut self, now: Time, s: &NodeSignal) -> bool {
        let used = match s.signal {
            Signal::Snr { db, node, .. } => self.on_snr(now, s.iface, db, node),
            Signal::Delivered { .. } => self.on_report(now, s, true),
            Signal::Undelivered { .. } => self.on_report(now, s, false),
            _ => false,
        };
        self.flush_control();
        used
    }

    fn on_timeout(&mut self, now: Time) {
        if let Some(sec) = self.sec.as_mut() {
            for i in sec.on_timeout(now) {
                self.release_held(now, i);
            }
            self.flush_control();
        }
        for i in 0..self.dests.len() {
            if self.dests[i]
                .barrier
                .as_ref()
                .is_some_and(|b| b.until <= now)
            {
                self.lift(i, false);
            }
        }
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        let sec = self.sec.as_ref().and_then(Sec::poll_timeout);
        self.dests
            .iter()
            .filter_map(|d| d.barrier.as_ref().map(|b| b.until))
            .chain(sec)
            .min()
    }

    fn held(&self) -> u64 {
        self.dests
            .iter()
            .filter_map(|d| d.barrier.as_ref())
            .map(|b| b.held.len() as u64)
            .sum::<u64>()
            + self.sec.as_ref().map_or(0, Sec::held)
    }

    fn stats(&self) -> Option<AgentStats> {
        let mut s = self.stats.clone();
        s.security = self.security().map(Box::new);
        Some(AgentStats::Ucl(s))
    }
}

#[cfg(test)]
mod tests;
