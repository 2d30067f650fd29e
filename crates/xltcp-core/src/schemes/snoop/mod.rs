//! Snoop (Balakrishnan, Seshan, Amir, Katz, 1995) at the base station, with
//! the rules of ns-2's `snoop.cc` (SPECS §2.2), the module the paper 002
//! comparison ran on.
//!
//! Per downlink connection ([`ConnKey`]) the BS keeps a cache of the data
//! segments it forwarded toward the mobile host (MH) and not yet seen
//! acknowledged, the last ACK number from the MH, the dupACKs it expects,
//! a smoothed local round-trip time and one retransmission timer.
//!
//! **Data from the fixed host** ([`Tap::BsDown`]), always forwarded:
//! - a segment wholly below the last ACK is not cached;
//! - a segment already cached is the sender's retransmission: its local
//!   retransmission count is reset, it is marked sender-retransmitted,
//!   its send time is now and the timer restarts;
//! - any other segment is cached in sequence order, marked
//!   sender-retransmitted if it lies below the highest data seen (a
//!   sender retransmission of an uncached segment, or reordering);
//! - a full cache ([`CACHE_LIMIT`]) forwards it uncached (counted).
//!
//! **ACKs from the MH** ([`Tap::BsUp`]):
//! - a new ACK frees the cached segments it covers, takes an RTT sample
//!   from the last one freed, clears the expected dupACKs, re-arms the
//!   timer for the new oldest segment (or stops it) and is forwarded;
//! - an ACK below the last one is forwarded (ns-2; the paper drops it);
//! - a duplicate ACK (a pure ACK repeating the last ACK number) is
//!   forwarded if the segment it asks for is not cached; otherwise, with no
//!   dupACKs expected, the first [`DUPACK_THRESH`] are forwarded (ns-2's
//!   `RTX_THRESH`), and the next one, unless the segment is
//!   sender-retransmitted, sets the dupACKs expected to the segments cached
//!   above it less the dupACKs already seen, and if the segment was not
//!   locally retransmitted yet, retransmits it and is suppressed. While
//!   dupACKs are expected each one is suppressed and counted down; at
//!   `-1` (fewer segments above the hole than dupACKs seen) one more dupACK
//!   retransmits it again if it went out fewer than twice. Everything
//!   else is forwarded.
//!
//! **Timer**: `max(srtt + 4 rttvar, 100 ms)` ([`LocalRtt`]; ns-2's
//! `snoopTick_` floor, and its initial `srtt_` 100 ms and `rttvar_` 250 ms,
//! so 1.1 s before any sample). On expiry the oldest cached segment is
//! retransmitted only if it is the one the MH asks for (it starts at the
//! last ACK); otherwise the timer stays off until the next event arms it.
//! A local retransmission sets the segment's send time, counts it (at most
//! [`MAX_LOCAL_RXMIT`]; past that the dupACK is forwarded) and re-arms the
//! timer.
//!
//! Choices where ns-2 and the paper leave room (SPECS §2.3):
//! - dupACK threshold: ns-2's (the second dupACK retransmits), but the
//!   counter is per connection and cleared by a new ACK (in ns-2 it is a
//!   function-static shared by every instance);
//! - RTT smoothing: RFC 6298's weights (1/8, 1/4), not ns-2's inverted
//!   `g`; samples only from segments never retransmitted (Karn; the paper
//!   skips windows with retransmissions, ns-2 does not filter);
//! - old sender retransmissions and old ACKs are forwarded (ns-2), not
//!   dropped with a re-sent ACK (paper);
//! - ns-2 does not cache a segment when the link queue is nearly full, so
//!   that congestion drops at the BS still reach TCP. The agent does not
//!   see the MAC queue; instead, a MAC that reports a frame `undelivered`
//!   because its queue was full (the 802.11 hop does) takes the segment
//!   out of the cache (counted in `cache_drops`), and its dupACKs go to the
//!   sender. Local retransmissions join the tail of the MAC queue (no
//!   priority);
//! - uplink (MH to FH) is passed through untouched, as ns-2 does without
//!   ELN: neither the paper's NACK bit vector nor ELN is modelled;
//! - the MH's SACK blocks are ignored (plain Snoop).
//!
//! Local retransmissions are copies marked forged ([`local_copy`]); the
//! world counts those that reach a receiver holding all their bytes
//! already (`summary.json` `"local_retransmissions"`).

use super::agent::{Action, Agent, NodeSignal, Tap, Verdict, Via};
use super::cache::{
    ack_key, data_key, end_of, is_pure_ack, local_copy, CacheStats, ConnKey, LocalRtt, CACHE_LIMIT,
    MAX_LOCAL_RXMIT,
};
use super::AgentStats;
use crate::signal::{Signal, UndeliveredReason};
use crate::time::{Dur, Time};
use crate::wire::{Packet, SeqNum};
use std::collections::{BTreeMap, VecDeque};

/// DupACKs forwarded before the local retransmission (ns-2 `RTX_THRESH`).
pub const DUPACK_THRESH: u32 = 1;

/// The timer's floor (ns-2 `snoopTick_`).
pub const SNOOP_TICK: Dur = Dur::from_millis(100);

/// One cached segment.
#[derive(Clone, Copy, Debug)]
struct Cached {
    packet: Packet,
    /// When it was last sent toward the MH (by the sender or locally).
    sent: Time,
    /// Local retransmissions so far.
    rxmits: u8,
    /// Sent again by the sender, or below the highest data seen.
    sender_rxmit: bool,
}

/// One downlink connection.
#[derive(Debug)]
struct Conn {
    /// Ordered by sequence number.
    cache: VecDeque<Cached>,
    /// One past the highest data seen from the sender.
    high: Option<SeqNum>,
    /// The last ACK number from the MH.
    last_ack: Option<SeqNum>,
    /// DupACKs still expected after a local retransmission (ns-2
    /// `expDupacks_`).
    exp_dupacks: i64,
    /// DupACKs seen while none were expected (ns-2's `thresh`).
    waiting: u32,
    rtt: LocalRtt,
    timer: Option<Time>,
}

impl Conn {
    fn new() -> Conn {
        Conn {
            cache: VecDeque::new(),
            high: None,
            last_ack: None,
            exp_dupacks: 0,
            waiting: 0,
            rtt: LocalRtt::starting_at(Dur::from_millis(100), Dur::from_millis(250), SNOOP_TICK),
            timer: None,
        }
    }
}

/// What happens to a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DupAck {
    Forward,
    Suppress,
    /// Retransmit the cached segment at this index and suppress.
    Retransmit(usize),
}

/// Snoop at the base station (see the module doc).
#[derive(Debug, Default)]
pub struct Snoop {
    conns: BTreeMap<ConnKey, Conn>,
    actions: VecDeque<Action>,
    stats: CacheStats,
}

impl Snoop {
    /// A Snoop agent with nothing cached.
    pub fn new() -> Snoop {
        Snoop::default()
    }

    /// Its counters.
    pub fn counters(&self) -> CacheStats {
        self.stats
    }

    /// Segments cached now, over all connections.
    pub fn cached_now(&self) -> usize {
        self.conns.values().map(|c| c.cache.len()).sum()
    }

    fn on_data(&mut self, now: Time, p: &Packet) {
        let conn = self.conns.entry(data_key(p)).or_insert_with(Conn::new);
        let (seq, end) = (p.tcp.seq, end_of(p));
        if conn.last_ack.is_some_and(|a| end <= a) {
            return;
        }
        if let Some(c) = conn.cache.iter_mut().find(|c| c.packet.tcp.seq == seq) {
            // The sender's own retransmission of a cached segment.
            c.packet = *p;
            c.rxmits = 0;
            c.sender_rxmit = true;
            c.sent = now;
            conn.timer = Some(now + conn.rtt.timeout());
            self.stats.sender_retransmissions += 1;
            return;
        }
        if conn.cache.len() >= CACHE_LIMIT {
            self.stats.cache_full += 1;
            return;
        }
        let below = conn.high.is_some_and(|h| seq < h);
        let at = conn.cache.partition_point(|c| c.packet.tcp.seq < seq);
        conn.cache.insert(
            at,
            Cached {
                packet: *p,
                sent: now,
                rxmits: 0,
                sender_rxmit: below,
            },
        );
        conn.high = Some(conn.high.map_or(end, |h| h.max(end)));
        if conn.timer.is_none() {
            conn.timer = Some(now + conn.rtt.timeout());
        }
        self.stats.cached += 1;
    }

    fn on_ack(&mut self, now: Time, p: &Packet) -> Verdict {
        let Some(conn) = self.conns.get_mut(&ack_key(p)) else {
            return Verdict::Pass;
        };
        let ack = p.tcp.ack;
        let last = conn.last_ack;
        if last.is_none_or(|l| ack > l) {
            // A new ACK: clean the cache, sample the RTT, re-arm.
            let mut freed = None;
            while let Some(c) = conn.cache.front() {
                if end_of(&c.packet) > ack {
                    break;
                }
                freed = conn.cache.pop_front();
            }
            if let Some(c) = freed.filter(|c| c.rxmits == 0 && !c.sender_rxmit) {
                conn.rtt.sample(now.saturating_since(c.sent));
            }
            conn.last_ack = Some(ack);
            conn.exp_dupacks = 0;
            conn.waiting = 0;
            conn.timer = (!conn.cache.is_empty()).then(|| now + conn.rtt.timeout());
            return Verdict::Pass;
        }
        if Some(ack) != last || !is_pure_ack(p) {
            return Verdict::Pass;
        }
        match Self::dupack(conn, ack) {
            DupAck::Forward => {
                self.stats.dupacks_forwarded += 1;
                Verdict::Pass
            }
            DupAck::Suppress => {
                self.stats.dupacks_suppressed += 1;
                Verdict::Consume
            }
            DupAck::Retransmit(i) => {
                if Self::retransmit(conn, i, now, &mut self.actions) {
                    self.stats.local_retransmissions.dupack += 1;
                    self.stats.dupacks_suppressed += 1;
                    Verdict::Consume
                } else {
                    self.stats.dupacks_forwarded += 1;
                    Verdict::Pass
                }
            }
        }
    }

    /// ns-2's duplicate-ACK rules (module doc).
    fn dupack(conn: &mut Conn, ack: SeqNum) -> DupAck {
        // The segment the MH asks for, if cached.
        let Some(i) = conn
            .cache
            .iter()
            .position(|c| c.packet.tcp.seq <= ack && end_of(&c.packet) > ack)
        else {
            return DupAck::Forward;
        };
        let c = conn.cache[i];
        if conn.exp_dupacks == 0 {
            if conn.waiting < DUPACK_THRESH {
                conn.waiting += 1;
                return DupAck::Forward;
            }
            conn.waiting = 0;
            if c.sender_rxmit {
                return DupAck::Forward;
            }
            let above = (conn.cache.len() - i - 1) as i64;
            conn.exp_dupacks = above - i64::from(DUPACK_THRESH) - 1;
            if c.rxmits == 0 {
                return DupAck::Retransmit(i);
            }
            DupAck::Forward
        } else if conn.exp_dupacks > 0 {
            conn.exp_dupacks -= 1;
            DupAck::Suppress
        } else if conn.exp_dupacks == -1 && c.rxmits < 2 {
            DupAck::Retransmit(i)
        } else {
            DupAck::Forward
        }
    }

    /// Sends cached segment `i` again; false (nothing sent) once it has
    /// gone out [`MAX_LOCAL_RXMIT`] times.
    fn retransmit(conn: &mut Conn, i: usize, now: Time, actions: &mut VecDeque<Action>) -> bool {
        let Some(c) = conn.cache.get_mut(i) else {
            return false;
        };
        if c.rxmits >= MAX_LOCAL_RXMIT {
            return false;
        }
        c.rxmits += 1;
        c.sent = now;
        actions.push_back(Action::Emit {
            packet: local_copy(&c.packet),
            via: Via::Air,
        });
        conn.timer = Some(now + conn.rtt.timeout());
        true
    }
}

impl Agent for Snoop {
    fn on_packet(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        match tap {
            Tap::BsDown if p.tcp.payload_len > 0 => {
                self.on_data(now, p);
                Verdict::Pass
            }
            Tap::BsUp if p.tcp.flags.ack() => self.on_ack(now, p),
            _ => Verdict::Pass,
        }
    }

    fn on_signal(&mut self, _now: Time, s: &NodeSignal) -> bool {
        let full = s.reason == Some(UndeliveredReason::QueueFull);
        match (s.signal, s.packet) {
            (Signal::Undelivered { .. }, Some(p)) if full => {
                let removed =
                    uncache_congested(&mut self.conns, &p, |c| &mut c.cache, |c| c.packet.tcp.seq);
                self.stats.cache_drops += u64::from(removed);
                removed
            }
            _ => false,
        }
    }

    fn on_timeout(&mut self, now: Time) {
        for conn in self.conns.values_mut() {
            if conn.timer.is_none_or(|t| t > now) {
                continue;
            }
            conn.timer = None;
            let Some(oldest) = conn.cache.front() else {
                continue;
            };
            // Only the segment the MH asks for goes again.
            if conn.last_ack.is_none_or(|a| oldest.packet.tcp.seq == a)
                && Self::retransmit(conn, 0, now, &mut self.actions)
            {
                self.stats.local_retransmissions.timer += 1;
            }
        }
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.conns.values().filter_map(|c| c.timer).min()
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::Snoop(self.stats))
    }
}

/// A segment the MAC dropped at its full queue leaves the cache of its
/// connection: a congestion loss, TCP's to see. Returns whether it was
/// cached.
pub(crate) fn uncache_congested<C, E>(
    conns: &mut BTreeMap<ConnKey, C>,
    p: &Packet,
    cache: impl Fn(&mut C) -> &mut VecDeque<E>,
    seq: impl Fn(&E) -> SeqNum,
) -> bool {
    let Some(conn) = conns.get_mut(&data_key(p)) else {
        return false;
    };
    let cache = cache(conn);
    let before = cache.len();
    cache.retain(|e| seq(e) != p.tcp.seq);
    cache.len() < before
}

#[cfg(test)]
pub(crate) mod tests;
