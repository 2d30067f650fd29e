//! C-Snoop (Kim and Chung, paper 002): local retransmission at the IP
//! layer of the base station and of the mobile host, driven by their
//! 802.11 MAC's delivery reports (`delivered` / `undelivered`).
//!
//! One agent per node, the same code at both ([`CSnoop::at_bs`] caches the
//! downlink data it forwards onto the air, [`CSnoop::at_host`] the uplink
//! data its TCP sends); no TCP option, nothing needed at the other end.
//!
//! The paper's algorithm (§3.2, §3.3, eq. 1):
//! - every TCP data segment going onto the air is cached (per connection,
//!   [`ConnKey`]) and passes on; a segment already cached is the sender's
//!   retransmission: it goes through the MAC again (a pending local
//!   retransmission of it is cancelled);
//! - `delivered` for a cached segment (the MAC-ACK came): the segment
//!   leaves the cache, and every segment of the node's cache known lost
//!   (an `undelivered` pending its timer) toward the same destination
//!   address is sent again at once (trigger `delivered_priority`): the
//!   link to that receiver works now;
//! - `undelivered` (retry limit, channel-access failure): the segment is
//!   sent again after `SW_RTT + 4 RW_RTT` unless a `delivered` to its
//!   destination sends it first (trigger `undelivered`);
//! - every `delivered` report with the MAC's delays updates the estimate:
//!   `W_RTT = Q_d + T_d` (queueing + transmission delay, [`MacDelays`]),
//!   `SW_RTT = (1 - 1/8) SW_RTT + 1/8 W_RTT`,
//!   `RW_RTT = (1 - 1/4) RW_RTT + 1/4 |SW_RTT - W_RTT|` ([`LocalRtt`]).
//!
//! Choices where the paper is silent (each one stated here):
//! - the first sample sets `SW_RTT = W_RTT`, `RW_RTT = W_RTT / 2` (RFC
//!   6298 §2.2); before it, the timer is 100 ms; no floor;
//! - every delivered frame with delays is a sample (data or ACK), and any
//!   `delivered` toward a destination triggers the priority retransmissions
//!   to it;
//! - `undelivered` because the MAC queue was full (or the frame too long)
//!   is not a wireless loss: the segment leaves the cache (counted in
//!   `cache_drops`) and the loss is left to TCP, whose congestion control
//!   must see it;
//! - a segment goes out locally at most [`MAX_LOCAL_RXMIT`] times; an
//!   `undelivered` after that removes it (counted in `cache_drops`);
//! - the receiver's cumulative ACKs (seen at [`Tap::BsUp`] at the BS, at
//!   [`Tap::HostIn`] at the MH) clean the cache of what they cover, so a
//!   segment whose MAC-ACK was lost after it arrived is not sent again once
//!   acknowledged;
//! - duplicate ACKs asking for a segment under local repair (known lost, or
//!   sent again locally and not yet acknowledged) are kept from the sender
//!   (consumed), as Snoop does: the repair is local, the sender's window
//!   should not halve. The paper builds on Snoop and does not say;
//! - "with higher priority": the retransmissions a `delivered` triggers go
//!   to the head of the MAC queue ([`Via::AirFirst`]; lowest sequence
//!   number first); those of the timer join its tail;
//! - the cache holds at most [`CACHE_LIMIT`] segments per connection; a
//!   segment arriving at a full cache passes uncached (`cache_full`).
//!
//! Local retransmissions are copies marked forged ([`local_copy`]); the
//! world counts those that reach a receiver holding all their bytes
//! already (`summary.json` `"local_retransmissions"`).
//!
//! Sans-IO: inputs [`Agent::on_packet`], [`Agent::on_signal`],
//! [`Agent::on_timeout`] (an early call is a no-op); outputs drained with
//! [`Agent::poll_action`]; the next deadline from [`Agent::poll_timeout`].

use super::agent::{Action, Agent, NodeSignal, Tap, Verdict, Via};
use super::cache::{
    ack_key, data_key, end_of, is_pure_ack, local_copy, CacheStats, ConnKey, LocalRtt, CACHE_LIMIT,
    MAX_LOCAL_RXMIT,
};
use super::AgentStats;
#[cfg(doc)]
use crate::signal::MacDelays;
use crate::signal::{Signal, UndeliveredReason};
use crate::time::{Dur, Time};
use crate::wire::{Packet, SeqNum};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::Ipv4Addr;

/// The local retransmission timer before the first `W_RTT` sample.
pub const INITIAL_TIMER: Dur = Dur::from_millis(100);

/// Where a cached segment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Handed to the MAC, no report yet.
    InMac,
    /// The MAC gave it up; it goes again at `due` (or on a `delivered`).
    Lost {
        /// When the local retransmission timer fires.
        due: Time,
    },
}

/// One cached segment.
#[derive(Clone, Copy, Debug)]
struct Cached {
    packet: Packet,
    state: State,
    /// Local retransmissions so far.
    rxmits: u8,
}

/// One connection's cache.
#[derive(Debug, Default)]
struct Conn {
    cache: BTreeMap<SeqNum, Cached>,
    /// Segments repaired locally and delivered, not yet acknowledged:
    /// their dupACKs are still the repair's.
    repaired: BTreeSet<SeqNum>,
    /// The receiver's last ACK number.
    last_ack: Option<SeqNum>,
}

impl Conn {
    /// Forget what `ack` covers.
    fn clean(&mut self, ack: SeqNum) {
        self.cache.retain(|_, c| end_of(&c.packet) > ack);
        self.repaired.retain(|&s| s >= ack);
    }

    /// Whether a dupACK for `ack` belongs to a local repair.
    fn repairing(&self, ack: SeqNum) -> bool {
        self.repaired.contains(&ack)
            || self
                .cache
                .get(&ack)
                .is_some_and(|c| c.rxmits > 0 || matches!(c.state, State::Lost { .. }))
    }
}

/// Which node the agent sits on: which taps carry its data and ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Bs,
    Host,
}

/// C-Snoop at one node (see the module doc).
#[derive(Debug)]
pub struct CSnoop {
    side: Side,
    conns: BTreeMap<ConnKey, Conn>,
    rtt: LocalRtt,
    actions: VecDeque<Action>,
    stats: CacheStats,
}

impl CSnoop {
    /// The BS's agent: caches downlink data.
    pub fn at_bs() -> CSnoop {
        CSnoop::new(Side::Bs)
    }

    /// A mobile host's agent: caches the uplink data its TCP sends.
    pub fn at_host() -> CSnoop {
        CSnoop::new(Side::Host)
    }

    fn new(side: Side) -> CSnoop {
        CSnoop {
            side,
            conns: BTreeMap::new(),
            rtt: LocalRtt::new(INITIAL_TIMER, Dur::ZERO),
            actions: VecDeque::new(),
            stats: CacheStats::default(),
        }
    }

    /// Its counters.
    pub fn counters(&self) -> CacheStats {
        self.stats
    }

    /// Segments cached now, over all connections.
    pub fn cached_now(&self) -> usize {
        self.conns.values().map(|c| c.cache.len()).sum()
    }

    /// The local retransmission timer now (`SW_RTT + 4 RW_RTT`).
    pub fn timer(&self) -> Dur {
        self.rtt.timeout()
    }

    fn on_data(&mut self, p: &Packet) {
        let conn = self.conns.entry(data_key(p)).or_default();
        if conn.last_ack.is_some_and(|a| end_of(p) <= a) {
            return;
        }
        let seq = p.tcp.seq;
        if let Some(c) = conn.cache.get_mut(&seq) {
            // The sender's own retransmission goes through the MAC.
            c.packet = *p;
            c.state = State::InMac;
            self.stats.sender_retransmissions += 1;
            return;
        }
        if conn.cache.len() >= CACHE_LIMIT {
            self.stats.cache_full += 1;
            return;
        }
        conn.repaired.remove(&seq);
        conn.cache.insert(
            seq,
            Cached {
                packet: *p,
                state: State::InMac,
                rxmits: 0,
            },
        );
        self.stats.cached += 1;
    }

    fn on_ack(&mut self, p: &Packet) -> Verdict {
        let Some(conn) = self.conns.get_mut(&ack_key(p)) else {
            return Verdict::Pass;
        };
        let ack = p.tcp.ack;
        if conn.last_ack.is_none_or(|l| ack > l) {
            conn.last_ack = Some(ack);
            conn.clean(ack);
            return Verdict::Pass;
        }
        if conn.last_ack != Some(ack) || !is_pure_ack(p) {
            return Verdict::Pass;
        }
        if conn.repairing(ack) {
            self.stats.dupacks_suppressed += 1;
            Verdict::Consume
        } else {
            self.stats.dupacks_forwarded += 1;
            Verdict::Pass
        }
    }

    /// Sends `c` again now (`via`: behind or ahead of the MAC queue).
    fn resend(c: &mut Cached, via: Via, actions: &mut VecDeque<Action>) {
        c.rxmits = c.rxmits.saturating_add(1);
        c.state = State::InMac;
        actions.push_back(Action::Emit {
            packet: local_copy(&c.packet),
            via,
        });
    }

    /// A frame to `dst` was delivered: send every segment known lost
    /// toward it again, at the head of the MAC queue. They are emitted
    /// highest (connection, sequence number) first, so that the lowest
    /// ends at the head.
    fn priority_retransmit(&mut self, dst: Ipv4Addr) {
        for conn in self.conns.values_mut().rev() {
            for c in conn.cache.values_mut().rev() {
                if c.packet.dst == dst && matches!(c.state, State::Lost { .. }) {
                    Self::resend(c, Via::AirFirst, &mut self.actions);
                    self.stats.local_retransmissions.delivered_priority += 1;
                }
            }
        }
    }

    fn on_delivered(&mut self, s: &NodeSignal) -> bool {
        let mut used = false;
        if let Some(d) = s.delays {
            self.rtt.sample(d.queue + d.tx);
            used = true;
        }
        let Some(p) = s.packet else {
            return used;
        };
        if p.tcp.payload_len > 0 {
            if let Some(conn) = self.conns.get_mut(&data_key(&p)) {
                if let Some(c) = conn.cache.remove(&p.tcp.seq) {
                    if c.rxmits > 0 {
                        conn.repaired.insert(p.tcp.seq);
                        if conn.repaired.len() > CACHE_LIMIT {
                            conn.repaired.pop_first();
                        }
                    }
                }
            }
        }
        self.priority_retransmit(p.dst);
        true
    }

    fn on_undelivered(&mut self, now: Time, s: &NodeSignal) -> bool {
        let Some(p) = s.packet.filter(|p| p.tcp.payload_len > 0) else {
            return false;
        };
        let Some(conn) = self.conns.get_mut(&data_key(&p)) else {
            return false;
        };
        let seq = p.tcp.seq;
        let Some(c) = conn.cache.get_mut(&seq) else {
            return false;
        };
        let wireless = matches!(
            s.reason,
            None | Some(UndeliveredReason::RetryLimit | UndeliveredReason::ChannelAccessFailure)
        );
        if !wireless || c.rxmits >= MAX_LOCAL_RXMIT {
            // Congestion at the MAC queue, or no more local tries: TCP's.
            conn.cache.remove(&seq);
            self.stats.cache_drops += 1;
            return true;
        }
        c.state = State::Lost {
            due: now + self.rtt.timeout(),
        };
        true
    }
}

impl Agent for CSnoop {
    fn on_packet(&mut self, _now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        match (self.side, tap) {
            (Side::Bs, Tap::BsDown) | (Side::Host, Tap::HostOut) if p.tcp.payload_len > 0 => {
                self.on_data(p);
                Verdict::Pass
            }
            (Side::Bs, Tap::BsUp) | (Side::Host, Tap::HostIn) if p.tcp.flags.ack() => {
                self.on_ack(p)
            }
            _ => Verdict::Pass,
        }
    }

    fn on_signal(&mut self, now: Time, s: &NodeSignal) -> bool {
        match s.signal {
            Signal::Delivered { .. } => self.on_delivered(s),
            Signal::Undelivered { .. } => self.on_undelivered(now, s),
            _ => false,
        }
    }

    fn on_timeout(&mut self, now: Time) {
        for conn in self.conns.values_mut() {
            for c in conn.cache.values_mut() {
                if matches!(c.state, State::Lost { due } if due <= now) {
                    Self::resend(c, Via::Air, &mut self.actions);
                    self.stats.local_retransmissions.undelivered += 1;
                }
            }
        }
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.conns
            .values()
            .flat_map(|c| c.cache.values())
            .filter_map(|c| match c.state {
                State::Lost { due } => Some(due),
                State::InMac => None,
            })
            .min()
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::CSnoop(self.stats))
    }
}

#[cfg(test)]
mod tests;
