//! L2-CLAMP (paper 004): the BS makes the TCP ACK of each downlink data
//! segment itself and sends it to the sender once the MAC reports the
//! segment delivered, with the CLAMP window computed at the BS; the
//! receiver's own ACKs stay off the air.
//!
//! - [`L2ClampBs`] at the BS: each data segment from the wire (`Tap::BsDown`)
//!   runs the connection's [`Controller`] with the price of its receiver's
//!   queue ([`QueueMeter`]) and its ACK is noted, held until the MAC's
//!   report for that very packet. On `delivered` the segment joins what the
//!   BS knows the receiver holds; if that moves the cumulative point, the
//!   BS sends the ACK (forged from the receiver's last packet: addresses,
//!   ports, sequence number, timestamps) to the sender. On `undelivered`
//!   the ACK is discarded: the BS never acknowledges data the receiver did
//!   not get. A segment delivered beyond a hole moves nothing: the BS stays
//!   silent and the receiver's own duplicate ACK (which passes) tells the
//!   sender, with the receiver's SACK blocks if any. The receiver's ACKs
//!   that do reach the BS (duplicates, window updates, the handshake) have
//!   their window set by the controller and count towards its 3-duplicate
//!   halving. A reset from the receiver (RST) ends the BS's part in the
//!   connection: it makes no ACK for data delivered after it (counted in
//!   `acks_left_to_receiver`), since the receiver's TCP no longer takes
//!   any (a real application that closes its socket with data still
//!   arriving, as iperf3's server does at the end of a test, makes its
//!   Linux answer each later segment with a RST).
//! - [`L2ClampHost`] at a wireless host: drops (consumes, counted) every
//!   standalone non-duplicate ACK its TCP sends; duplicates pass, as do
//!   segments with data, SYN, FIN or RST, the connection's first ACK (the
//!   handshake's), and window updates (below).
//!
//! **End-to-end semantics.** An ACK from the BS says the MAC delivered the
//! segment, not that the receiver's TCP took it. The receiver's TCP takes
//! every in-window segment its MAC hands it, so the gap is data beyond the
//! receiver's advertised window (a full buffer) and a receiver that goes
//! away. Made safe here: the BS never acknowledges past the right edge of
//! the receiver's last advertised window it saw, and its own advertised
//! window never reaches past that edge either (so a sender obeying it
//! never sends beyond). To keep that edge fresh the host agent lets a
//! standalone ACK through when the right edge it advertises has moved by
//! at least half its window since the last one that passed (RFC 9293's
//! window-update rule, at the granularity of half a window), or moved
//! left (`window_updates = "pass"`, the default). With `"drop"` the
//! receiver drops every standalone non-duplicate ACK, window updates too,
//! as the paper has it, and the BS takes the receiver's window to stay the
//! size it last saw (its edge: the cumulative point the BS knows plus that
//! window), which holds while the receiving application keeps up. The
//! residual exposure — bytes the BS acknowledged beyond what the
//! receiver's TCP had acknowledged at that instant — is measured on a
//! [`Ledger`] the two agents share (the simulator's view of both ends;
//! nothing like it crosses the air) and reported as `ack_ahead_max_bytes`.
//! Reconstruction: paper 004 makes the ACK at the BS with "the respective
//! fields" and says nothing of these cases.

use super::{
    clamp_window, host, mac_report, ClampConfig, Controller, Halving, QueueMeter, Scales,
    WindowUpdates,
};
use crate::schemes::agent::{Action, Agent, NodeSignal, Tap, Verdict, Via};
use crate::schemes::cache::{ack_key, data_key, end_of, is_pure_ack, ConnKey};
use crate::schemes::AgentStats;
use crate::time::Time;
use crate::wire::{Packet, SeqNum, TcpFlags, TcpOptions};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Counters of L2-CLAMP (the summary's `"l2clamp"` section).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct L2ClampStats {
    /// Data segments the BS made an ACK for (held until the MAC's report).
    pub acks_made: u64,
    /// BS-made ACKs sent to the sender (on `delivered`).
    pub acks_sent: u64,
    /// BS-made ACKs discarded on `undelivered`.
    pub acks_discarded: u64,
    /// Delivered segments that moved no cumulative point (beyond a hole,
    /// or already held): the receiver's duplicate ACK speaks.
    pub acks_left_to_receiver: u64,
    /// BS-made ACKs cut back to the receiver's advertised right edge.
    pub acks_capped: u64,
    /// Receiver ACKs the host agent dropped (standalone, non-duplicate).
    pub suppressed: u64,
    /// Receiver duplicate ACKs let through.
    pub duplicates_passed: u64,
    /// Receiver window updates let through.
    pub window_updates: u64,
    /// Window halvings on a non-positive `dw`.
    pub price_halvings: u64,
    /// Window halvings on 3 duplicate ACKs.
    pub dupack_halvings: u64,
    /// Most bytes the BS had acknowledged beyond what the receiver's TCP
    /// had acknowledged, at any ACK the BS sent.
    pub ack_ahead_max_bytes: u64,
    /// The same at the end of the run, summed over connections.
    pub ack_ahead_end_bytes: u64,
}

impl std::ops::AddAssign for L2ClampStats {
    fn add_assign(&mut self, o: L2ClampStats) {
        self.acks_made += o.acks_made;
        self.acks_sent += o.acks_sent;
        self.acks_discarded += o.acks_discarded;
        self.acks_left_to_receiver += o.acks_left_to_receiver;
        self.acks_capped += o.acks_capped;
        self.suppressed += o.suppressed;
        self.duplicates_passed += o.duplicates_passed;
        self.window_updates += o.window_updates;
        self.price_halvings += o.price_halvings;
        self.dupack_halvings += o.dupack_halvings;
        self.ack_ahead_max_bytes = self.ack_ahead_max_bytes.max(o.ack_ahead_max_bytes);
        self.ack_ahead_end_bytes += o.ack_ahead_end_bytes;
    }
}

/// What each end has acknowledged, per connection: (the BS, the
/// receiver's TCP). For measurement only (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Ledger(Arc<Mutex<BTreeMap<ConnKey, Acked>>>);

/// What (the BS, the receiver's TCP) acknowledged of one connection.
type Acked = (Option<SeqNum>, Option<SeqNum>);

impl Ledger {
    fn note(&self, key: ConnKey, bs: Option<SeqNum>, rx: Option<SeqNum>) -> u64 {
        let Ok(mut m) = self.0.lock() else {
            return 0;
        };
        let e = m.entry(key).or_default();
        if let Some(b) = bs {
            e.0 = Some(e.0.map_or(b, |x| x.max(b)));
        }
        if let Some(r) = rx {
            e.1 = Some(e.1.map_or(r, |x| x.max(r)));
        }
        ahead(*e)
    }

    fn total_ahead(&self) -> u64 {
        self.0
            .lock()
            .map(|m| m.values().map(|&e| ahead(e)).sum())
            .unwrap_or(0)
    }
}

fn ahead((bs, rx): Acked) -> u64 {
    match (bs, rx) {
        (Some(b), Some(r)) => b.since(r).max(0) as u64,
        _ => 0,
    }
}

/// One connection as the BS sees it.
#[derive(Clone, Debug, Default)]
struct BsConn {
    ctl: Controller,
    scales: Scales,
    /// The receiver's latest packet toward the sender (the ACK template).
    template: Option<Packet>,
    /// The cumulative point the BS knows the receiver holds.
    cum: Option<SeqNum>,
    /// Delivered segments beyond `cum`: start -> end.
    ooo: BTreeMap<SeqNum, SeqNum>,
    /// The right edge of the receiver's own advertised window.
    edge: Option<SeqNum>,
    /// The receiver's own window as it last advertised it, bytes.
    own: u64,
    /// The right edge the BS last advertised.
    last_edge: Option<SeqNum>,
}

impl BsConn {
    /// Adds the delivered `[start, end)`; returns whether `cum` moved.
    fn delivered(&mut self, start: SeqNum, end: SeqNum) -> bool {
        let Some(mut cum) = self.cum else {
            return false;
        };
        if end <= cum {
            return false;
        }
        let e = self.ooo.entry(start).or_insert(end);
        *e = (*e).max(end);
        let before = cum;
        while let Some((&s, &e)) = self.ooo.iter().next() {
            if s > cum {
                break;
            }
            cum = cum.max(e);
            self.ooo.remove(&s);
        }
        self.cum = Some(cum);
        cum > before
    }
}

/// L2-CLAMP at the BS (see the module doc).
#[derive(Debug)]
pub struct L2ClampBs {
    cfg: ClampConfig,
    host_of: Vec<u32>,
    /// Whether each host runs the host half (the BS makes ACKs for its
    /// flows only).
    served: Vec<bool>,
    meter: QueueMeter,
    conns: BTreeMap<ConnKey, BsConn>,
    /// Data segments on the air whose ACK waits for the MAC, by uid.
    pending: BTreeMap<u64, ConnKey>,
    ledger: Ledger,
    actions: VecDeque<Action>,
    stats: L2ClampStats,
}

impl L2ClampBs {
    /// The BS's agent; `host_of` gives each flow's host, `served` which
    /// hosts run [`L2ClampHost`] (the BS makes ACKs for their flows only).
    pub fn new(
        cfg: ClampConfig,
        host_of: Vec<u32>,
        served: Vec<bool>,
        ledger: Ledger,
    ) -> L2ClampBs {
        let hosts = host_of.iter().map(|&h| h as usize + 1).max().unwrap_or(0);
        L2ClampBs {
            cfg,
            host_of,
            served,
            meter: QueueMeter::new(hosts),
            conns: BTreeMap::new(),
            pending: BTreeMap::new(),
            ledger,
            actions: VecDeque::new(),
            stats: L2ClampStats::default(),
        }
    }

    /// ACKs waiting for the MAC's report.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The ACK of `key` up to `cum`, forged from the receiver's last packet;
    /// `data` is the segment it answers (for the timestamp echo).
    fn forge(&mut self, key: ConnKey, data: &Packet) -> Option<Packet> {
        let c = self.conns.get_mut(&key)?;
        let t = c.template?;
        let mut ack_no = c.cum?;
        if self.cfg.window_updates == WindowUpdates::Drop {
            // No window update reaches the BS: the window keeps its size.
            let assumed = ack_no + c.own.min(u64::from(u32::MAX >> 1)) as u32;
            c.edge = Some(c.edge.map_or(assumed, |e| e.max(assumed)));
        }
        if let Some(edge) = c.edge {
            if ack_no > edge {
                ack_no = edge;
                self.stats.acks_capped += 1;
            }
        }
        let mut a = t;
        a.tcp.flags = TcpFlags::ACK;
        a.tcp.seq = if t.tcp.flags.syn() {
            t.tcp.seq + 1
        } else {
            t.tcp.seq + t.tcp.payload_len
        };
        a.tcp.ack = ack_no;
        a.tcp.payload_len = 0;
        a.tcp.options = TcpOptions {
            timestamps: match (t.tcp.options.timestamps, data.tcp.options.timestamps) {
                (Some((val, _)), Some((peer, _))) => Some((val, peer)),
                _ => None,
            },
            ..TcpOptions::default()
        };
        // The receiver's own window (as it last said) bounds the clamp.
        let shift = c.scales.shift();
        let own = c.edge.map_or(0, |e| e.since(ack_no).max(0) as u64);
        a.tcp.window = (own >> shift).min(u64::from(u16::MAX)) as u16;
        clamp_window(&mut a, c.ctl.window(), shift, &mut c.last_edge);
        a.meta.forged = true;
        a.meta.uid = 0;
        a.meta.retransmission = false;
        Some(a)
    }
}

impl Agent for L2ClampBs {
    fn on_packet(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        match tap {
            Tap::BsDown => {
                let h = host(&self.host_of, p);
                if let Some(h) = h {
                    self.meter.enqueued(h);
                }
                if !h.is_some_and(|h| self.served.get(h).copied().unwrap_or(false)) {
                    return Verdict::Pass;
                }
                let key = data_key(p);
                let c = self.conns.entry(key).or_default();
                if p.tcp.flags.syn() {
                    c.scales.sender = p.tcp.options.window_scale;
                    c.ctl.on_syn(p.tcp.options.mss);
                    return Verdict::Pass;
                }
                if p.tcp.seq_len() == 0 || p.tcp.flags.rst() {
                    return Verdict::Pass;
                }
                if p.tcp.payload_len > 0 {
                    let price = h.map_or(0.0, |h| self.cfg.price(&self.meter, h));
                    let cap = u64::MAX >> 2;
                    if c.ctl.on_data(now, p.tcp.payload_len, price, cap, &self.cfg)
                        == Some(Halving::Price)
                    {
                        self.stats.price_halvings += 1;
                    }
                }
                self.pending.insert(p.meta.uid, key);
                self.stats.acks_made += 1;
            }
            Tap::BsUp => {
                let h = host(&self.host_of, p);
                if !h.is_some_and(|h| self.served.get(h).copied().unwrap_or(false)) {
                    return Verdict::Pass;
                }
                let key = ack_key(p);
                if p.tcp.flags.rst() {
                    // The receiver aborted: nothing more is acknowledged for it.
                    self.conns.remove(&key);
                    return Verdict::Pass;
                }
                let c = self.conns.entry(key).or_default();
                if p.tcp.flags.syn() {
                    c.scales.receiver = p.tcp.options.window_scale;
                    c.ctl.on_syn(p.tcp.options.mss);
                }
                if !p.tcp.flags.ack() {
                    return Verdict::Pass;
                }
                let own = if p.tcp.flags.syn() {
                    u64::from(p.tcp.window)
                } else {
                    u64::from(p.tcp.window) << c.scales.shift()
                };
                let edge = p.tcp.ack + own.min(u64::from(u32::MAX >> 1)) as u32;
                c.edge = Some(c.edge.map_or(edge, |e| e.max(edge)));
                c.own = own;
                c.cum = Some(c.cum.map_or(p.tcp.ack, |x| x.max(p.tcp.ack)));
                c.template = Some(*p);
                let cum = c.cum;
                if let Some(cum) = cum {
                    c.ooo.retain(|_, e| *e > cum);
                }
                if is_pure_ack(p) && c.ctl.on_ack(p.tcp.ack, &self.cfg) == Some(Halving::DupAcks) {
                    self.stats.dupack_halvings += 1;
                }
                if !p.tcp.flags.syn() && c.ctl.rate() > 0.0 {
                    let shift = c.scales.shift();
                    clamp_window(p, c.ctl.window(), shift, &mut c.last_edge);
                }
            }
            _ => {}
        }
        Verdict::Pass
    }

    fn on_signal(&mut self, now: Time, s: &NodeSignal) -> bool {
        let Some((p, delivered, sojourn)) = mac_report(s) else {
            return false;
        };
        if let Some(h) = host(&self.host_of, &p) {
            self.meter.reported(now, h, sojourn);
        }
        let Some(key) = self.pending.remove(&p.meta.uid) else {
            return true;
        };
        if !delivered {
            self.stats.acks_discarded += 1;
            return true;
        }
        let moved = self
            .conns
            .get_mut(&key)
            .is_some_and(|c| c.delivered(p.tcp.seq, end_of(&p)));
        if !moved {
            self.stats.acks_left_to_receiver += 1;
            return true;
        }
        if let Some(a) = self.forge(key, &p) {
            self.stats.acks_sent += 1;
            let ahead = self.ledger.note(key, Some(a.tcp.ack), None);
            self.stats.ack_ahead_max_bytes = self.stats.ack_ahead_max_bytes.max(ahead);
            self.actions.push_back(Action::Emit {
                packet: a,
                via: Via::Wire,
            });
        }
        true
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::L2Clamp(L2ClampStats {
            ack_ahead_end_bytes: self.ledger.total_ahead(),
            ..self.stats
        }))
    }
}

/// One connection as the receiving host's agent sees it.
#[derive(Clone, Copy, Debug, Default)]
struct HostConn {
    scales: Scales,
    last_ack: Option<SeqNum>,
    /// Right edge and window of the last ACK that passed.
    passed: Option<(SeqNum, u64)>,
}

/// L2-CLAMP at a wireless host (see the module doc).
#[derive(Debug)]
pub struct L2ClampHost {
    conns: BTreeMap<ConnKey, HostConn>,
    ledger: Ledger,
    updates: WindowUpdates,
    stats: L2ClampStats,
}

impl L2ClampHost {
    /// The agent of one wireless host, noting its TCP's ACKs on `ledger`;
    /// `updates` says what it does with its TCP's window updates.
    pub fn new(ledger: Ledger, updates: WindowUpdates) -> L2ClampHost {
        L2ClampHost {
            conns: BTreeMap::new(),
            ledger,
            updates,
            stats: L2ClampStats::default(),
        }
    }
}

impl Agent for L2ClampHost {
    fn on_packet(&mut self, _now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        match tap {
            Tap::HostIn if p.tcp.flags.syn() => {
                self.conns.entry(data_key(p)).or_default().scales.sender =
                    p.tcp.options.window_scale;
                Verdict::Pass
            }
            Tap::HostOut => {
                let key = ack_key(p);
                let c = self.conns.entry(key).or_default();
                if p.tcp.flags.syn() {
                    c.scales.receiver = p.tcp.options.window_scale;
                }
                if !p.tcp.flags.ack() {
                    return Verdict::Pass;
                }
                self.ledger.note(key, None, Some(p.tcp.ack));
                let own = if p.tcp.flags.syn() {
                    u64::from(p.tcp.window)
                } else {
                    u64::from(p.tcp.window) << c.scales.shift()
                };
                let edge = p.tcp.ack + own.min(u64::from(u32::MAX >> 1)) as u32;
                let last = c.last_ack;
                c.last_ack = Some(last.map_or(p.tcp.ack, |l| l.max(p.tcp.ack)));
                let pass = if !is_pure_ack(p) || last.is_none() {
                    true
                } else if last == Some(p.tcp.ack) {
                    self.stats.duplicates_passed += 1;
                    true
                } else {
                    // A standalone non-duplicate ACK: only a window update
                    // passes, and none when they are dropped too.
                    let update = self.updates == WindowUpdates::Pass
                        && c.passed.is_none_or(|(e, w)| {
                            edge < e || edge.since(e).max(0) as u64 >= w.div_ceil(2).max(1)
                        });
                    if update {
                        self.stats.window_updates += 1;
                    }
                    update
                };
                if pass {
                    c.passed = Some((edge, own));
                    Verdict::Pass
                } else {
                    self.stats.suppressed += 1;
                    Verdict::Consume
                }
            }
            _ => Verdict::Pass,
        }
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::L2Clamp(self.stats))
    }
}
