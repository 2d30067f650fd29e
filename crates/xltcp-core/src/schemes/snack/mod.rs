//! SNACK (Sun, Li and Liew, WCNC 2004: "SNACK-NS", SNACK-S at the base
//! station and SNACK-TCP at the mobile host), **as reconstructed here**:
//! the primary source's option format and BS/MH rules are not available
//! (SPECS §3.1 gap, §9 item 2). What is confirmed: loss information for
//! several missing blocks travels in one report, so a burst is repaired in
//! one local round trip, in both directions, with Snoop's caching and
//! dupACK suppression at the BS. Everything below that is more precise is
//! this module's interpretation (SPECS §3.2 (i) and (ii), §3.3), and the
//! `"snack"` section of `summary.json` says so in its `"reconstruction"`
//! field ([`RECONSTRUCTION`]).
//!
//! **Downlink (FH to MH), [`SnackBs`] at the BS.** The MH's report is its
//! TCP's own SACK option (RFC 2018; the flows need `sack = true`), so
//! SNACK-TCP at the MH is the MH's SACK receiver and needs no agent
//! there; the BS reads the holes from it:
//! - data from the FH is cached per connection as Snoop does ([`CACHE_LIMIT`],
//!   a full cache forwards uncached and counts; a segment the MAC reports
//!   `undelivered` for a full queue leaves the cache, a congestion loss
//!   for TCP);
//! - every ACK from the MH adds its SACK blocks to the BS's scoreboard of
//!   what the MH holds above its cumulative ACK; a new ACK frees the
//!   cached segments it covers, trims the scoreboard, takes an RTT sample
//!   (segments never retransmitted only) and is forwarded;
//! - a duplicate ACK names the holes: every cached segment from the ACK
//!   number up to the highest byte the MH holds that the scoreboard does
//!   not cover. Each is sent again at once (trigger `snack`) unless it was
//!   sent less than one local timeout ago, locally or by the sender (a
//!   segment below the highest data seen is the sender's retransmission;
//!   one repair per local round trip each). The dupACK is kept from the sender while the
//!   segment it asks for is cached and has local tries left; otherwise
//!   it is forwarded, SACK blocks untouched;
//! - a local timer (Snoop's: `max(srtt + 4 rttvar, 100 ms)`) runs only
//!   once the segment the MH asks for has been sent locally, and on expiry
//!   sends it again (trigger `timer`): Kim and Chung (§3.3) describe the
//!   existing schemes' timers as armed "only after the first retransmission
//!   of a packet from the cache, caused by the arrival of a duplicate
//!   acknowledgment";
//! - at most [`MAX_LOCAL_RXMIT`] local sends per segment.
//!
//! **Uplink (MH to FH).** The BS watches the MH's data arriving over the
//! air (a [`GapMonitor`] per connection, as local recovery's) and, when a
//! segment opens a new hole, sends the MH a SNACK naming every hole (lowest
//! first, up to four) not asked for within the last local timeout: a
//! segment forged from the FH's address, marked forged, whose ACK number
//! is the first hole's start and whose SACK option's slots carry the
//! missing blocks themselves (a negative acknowledgment: only SNACK-TCP
//! reads it). While holes remain, every local timeout names them again
//! (the local RTT is sampled from a SNACK to the repair of a hole it named
//! first; Snoop's initial values and floor before that). [`SnackTcp`] at
//! the MH consumes the SNACK (it never reaches TCP) and resends every
//! named hole at once from its copies of the segments its TCP sent (so
//! TCP's window is not touched), and keeps from its TCP the FH's dupACKs
//! asking for a hole it is repairing.
//!
//! Not modelled: the SNACK option's own encoding (an SCPS-TP-style hole
//! list with a bit vector, SPECS §3.2); on the air it has the size of the
//! SACK option carrying the same blocks.

use super::agent::{Action, Agent, NodeSignal, Tap, Verdict, Via};
use super::cache::{
    ack_key, data_key, end_of, is_pure_ack, local_copy, CacheStats, ConnKey, LocalRtt, CACHE_LIMIT,
    MAX_LOCAL_RXMIT,
};
use super::local_recovery::GapMonitor;
use super::snoop::{uncache_congested, SNOOP_TICK};
use super::AgentStats;
use crate::signal::{Signal, UndeliveredReason};
use crate::time::{Dur, Time};
use crate::wire::{Packet, SackBlock, SackBlocks, SeqNum, TcpOptions};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

mod host;
pub use host::SnackTcp;

/// What `summary.json` says of this model.
pub const RECONSTRUCTION: &str =
    "SNACK-NS reconstructed (SPECS 3.2): downlink holes from the MH's \
SACK blocks, all cached holes resent at once once per local RTT, dupACKs suppressed; uplink: BS \
gap monitor sends SNACKs naming up to 4 missing blocks (each again after a local RTT), MH resends \
every named hole from its copies";

/// The counters of SNACK (BS and MH together).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SnackStats {
    /// That this is a reconstruction, and of what ([`RECONSTRUCTION`]).
    pub reconstruction: &'static str,
    /// The caches' counters (the BS's downlink cache, the MH's copies).
    #[serde(flatten)]
    pub cache: CacheStats,
    /// SNACKs the BS sent to the MH (uplink).
    pub snacks_sent: u64,
    /// SNACKs the MH received.
    pub snacks_received: u64,
    /// Holes the received SNACKs (and, downlink, the MH's dupACKs) named.
    pub holes_reported: u64,
}

impl Default for SnackStats {
    fn default() -> Self {
        SnackStats {
            reconstruction: RECONSTRUCTION,
            cache: CacheStats::default(),
            snacks_sent: 0,
            snacks_received: 0,
            holes_reported: 0,
        }
    }
}

impl std::ops::AddAssign for SnackStats {
    fn add_assign(&mut self, o: SnackStats) {
        self.cache += o.cache;
        self.snacks_sent += o.snacks_sent;
        self.snacks_received += o.snacks_received;
        self.holes_reported += o.holes_reported;
    }
}

/// A local round trip as SNACK times it: Snoop's estimator and bounds.
fn local_rtt() -> LocalRtt {
    LocalRtt::starting_at(Dur::from_millis(100), Dur::from_millis(250), SNOOP_TICK)
}

/// One cached downlink segment.
#[derive(Clone, Copy, Debug)]
struct Cached {
    packet: Packet,
    /// Last sent toward the MH (by the sender or locally).
    sent: Time,
    /// When it was last sent locally.
    local: Option<Time>,
    rxmits: u8,
}

/// One downlink connection at the BS.
#[derive(Debug)]
struct Down {
    cache: VecDeque<Cached>,
    /// One past the highest data seen from the sender.
    high: Option<SeqNum>,
    last_ack: Option<SeqNum>,
    /// What the MH holds above `last_ack` (merged, sorted).
    sacked: Vec<(SeqNum, SeqNum)>,
    rtt: LocalRtt,
    timer: Option<Time>,
}

/// One uplink connection at the BS.
#[derive(Debug)]
struct Up {
    monitor: GapMonitor,
    /// The last data segment from the MH (the SNACK's template).
    last: Packet,
    /// The holes asked for, by first byte: when, and whether that SNACK
    /// named them for the first time (an RTT sample once filled).
    asked: BTreeMap<SeqNum, (Time, bool)>,
    rtt: LocalRtt,
    due: Option<Time>,
}

impl Up {
    /// The SNACK to send now, if a hole is due: every open hole not asked
    /// for within one local timeout, lowest first, at most
    /// [`SackBlocks::MAX`].
    fn snack(&mut self, now: Time) -> Option<Packet> {
        let timeout = self.rtt.timeout();
        let mut named = Vec::new();
        for (l, r) in self.monitor.holes() {
            if named.len() == SackBlocks::MAX {
                break;
            }
            let again = self.asked.get(&l).map(|&(t, _)| t + timeout <= now);
            if again != Some(false) {
                self.asked.insert(l, (now, again.is_none()));
                named.push((l, r));
            }
        }
        if !named.is_empty() || self.due.is_none() {
            self.due = (!self.monitor.holes().is_empty()).then(|| now + timeout);
        }
        (!named.is_empty()).then(|| forge(&self.last, &named))
    }
}

/// SNACK-S at the base station (see the module doc).
#[derive(Debug, Default)]
pub struct SnackBs {
    down: BTreeMap<ConnKey, Down>,
    up: BTreeMap<ConnKey, Up>,
    actions: VecDeque<Action>,
    stats: SnackStats,
}

/// Adds `[l, r)` to sorted, merged ranges.
fn merge(ranges: &mut Vec<(SeqNum, SeqNum)>, l: SeqNum, r: SeqNum) {
    if l >= r {
        return;
    }
    let (mut l, mut r) = (l, r);
    ranges.retain(|&(a, b)| {
        if b < l || a > r {
            true
        } else {
            l = l.min(a);
            r = r.max(b);
            false
        }
    });
    let at = ranges.partition_point(|&(a, _)| a < l);
    ranges.insert(at, (l, r));
    ranges.truncate(CACHE_LIMIT);
}

impl SnackBs {
    /// SNACK-S with nothing cached.
    pub fn new() -> SnackBs {
        SnackBs::default()
    }

    /// Its counters.
    pub fn counters(&self) -> SnackStats {
        self.stats
    }

    /// Downlink segments cached now.
    pub fn cached_now(&self) -> usize {
        self.down.values().map(|d| d.cache.len()).sum()
    }

    fn on_down_data(&mut self, now: Time, p: &Packet) {
        let d = self.down.entry(data_key(p)).or_insert_with(|| Down {
            cache: VecDeque::new(),
            high: None,
            last_ack: None,
            sacked: Vec::new(),
            rtt: local_rtt(),
            timer: None,
        });
        let seq = p.tcp.seq;
        if d.last_ack.is_some_and(|a| end_of(p) <= a) {
            return;
        }
        if let Some(c) = d.cache.iter_mut().find(|c| c.packet.tcp.seq == seq) {
            // The sender's retransmission counts as this round's send.
            c.packet = *p;
            c.sent = now;
            c.local = Some(now);
            self.stats.cache.sender_retransmissions += 1;
            return;
        }
        if d.cache.len() >= CACHE_LIMIT {
            self.stats.cache.cache_full += 1;
            return;
        }
        // Below the highest data seen: the sender's retransmission, this
        // round's send of that segment.
        let again = d.high.is_some_and(|h| seq < h);
        d.high = Some(d.high.map_or(end_of(p), |h| h.max(end_of(p))));
        let at = d.cache.partition_point(|c| c.packet.tcp.seq < seq);
        d.cache.insert(
            at,
            Cached {
                packet: *p,
                sent: now,
                local: again.then_some(now),
                rxmits: 0,
            },
        );
        self.stats.cache.cached += 1;
    }

    fn on_down_ack(&mut self, now: Time, p: &Packet) -> Verdict {
        let Some(d) = self.down.get_mut(&ack_key(p)) else {
            return Verdict::Pass;
        };
        let ack = p.tcp.ack;
        for b in p.tcp.options.sack.as_slice() {
            merge(&mut d.sacked, b.left.max(ack), b.right);
        }
        if d.last_ack.is_none_or(|l| ack > l) {
            let mut freed = None;
            while let Some(c) = d.cache.front() {
                if end_of(&c.packet) > ack {
                    break;
                }
                freed = d.cache.pop_front();
            }
            if let Some(c) = freed.filter(|c| c.rxmits == 0) {
                d.rtt.sample(now.saturating_since(c.sent));
            }
            d.sacked.retain_mut(|r| {
                r.0 = r.0.max(ack);
                r.0 < r.1
            });
            d.last_ack = Some(ack);
            let resent = d.cache.front().is_some_and(|c| c.rxmits > 0);
            d.timer = resent.then(|| now + d.rtt.timeout());
            return Verdict::Pass;
        }
        if d.last_ack != Some(ack) || !is_pure_ack(p) {
            return Verdict::Pass;
        }
        // The holes: cached, at or above the ACK, below the highest byte
        // the MH holds, not in the scoreboard.
        let high = d.sacked.last().map_or(ack, |r| r.1);
        let timeout = d.rtt.timeout();
        let mut resent = false;
        let mut holes = 0;
        for c in d.cache.iter_mut() {
            let (l, r) = (c.packet.tcp.seq, end_of(&c.packet));
            if r <= ack || l >= high || d.sacked.iter().any(|&(a, b)| a <= l && r <= b) {
                continue;
            }
            holes += 1;
            let due = c.local.is_none_or(|t| t + timeout <= now);
            if due && c.rxmits < MAX_LOCAL_RXMIT {
                c.rxmits += 1;
                c.sent = now;
                c.local = Some(now);
                self.actions.push_back(Action::Emit {
                    packet: local_copy(&c.packet),
                    via: Via::Air,
                });
                self.stats.cache.local_retransmissions.snack += 1;
                resent = true;
            }
        }
        self.stats.holes_reported += holes;
        if resent {
            d.timer = Some(now + timeout);
        }
        let asked = d
            .cache
            .iter()
            .find(|c| c.packet.tcp.seq <= ack && end_of(&c.packet) > ack);
        if asked.is_some_and(|c| c.rxmits < MAX_LOCAL_RXMIT || resent) {
            self.stats.cache.dupacks_suppressed += 1;
            Verdict::Consume
        } else {
            self.stats.cache.dupacks_forwarded += 1;
            Verdict::Pass
        }
    }

    fn on_up_data(&mut self, now: Time, p: &Packet) {
        let u = self.up.entry(data_key(p)).or_insert_with(|| Up {
            monitor: GapMonitor::new(),
            last: *p,
            asked: BTreeMap::new(),
            rtt: local_rtt(),
            due: None,
        });
        u.last = *p;
        let new_hole = u.monitor.on_data(&p.tcp).is_some();
        // Holes filled: forget them; those asked once give an RTT sample.
        let open: Vec<SeqNum> = u.monitor.holes().iter().map(|h| h.0).collect();
        let filled: Vec<SeqNum> = u
            .asked
            .keys()
            .filter(|l| !open.contains(l))
            .copied()
            .collect();
        for l in filled {
            if let Some((t, true)) = u.asked.remove(&l) {
                u.rtt.sample(now.saturating_since(t));
            }
        }
        if new_hole {
            if let Some(snack) = u.snack(now) {
                self.stats.snacks_sent += 1;
                self.actions.push_back(Action::Emit {
                    packet: snack,
                    via: Via::Air,
                });
            }
        }
    }

    /// The uplink SNACK timer: holes still open get named again.
    fn up_timeout(&mut self, now: Time) {
        for u in self.up.values_mut() {
            if u.due.is_none_or(|t| t > now) {
                continue;
            }
            u.due = None;
            if let Some(snack) = u.snack(now) {
                self.stats.snacks_sent += 1;
                self.actions.push_back(Action::Emit {
                    packet: snack,
                    via: Via::Air,
                });
            }
        }
    }
}

/// The SNACK for the MH that sent `data`: from the FH's address and ports,
/// marked forged, its SACK option's slots carrying the missing blocks
/// (`holes`) — read only by SNACK-TCP, which consumes it.
fn forge(data: &Packet, holes: &[(SeqNum, SeqNum)]) -> Packet {
    let mut sack = SackBlocks::new();
    for &(left, right) in holes {
        sack.push(SackBlock { left, right });
    }
    let ack = holes.first().map_or(data.tcp.seq, |h| h.0);
    let options = TcpOptions {
        sack,
        ..Default::default()
    };
    Packet::forged_ack(data, 0, data.tcp.ack, ack, 0, options)
}
impl Agent for SnackBs {
    fn on_packet(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        match tap {
            Tap::BsDown if p.tcp.payload_len > 0 => {
                self.on_down_data(now, p);
                Verdict::Pass
            }
            Tap::BsUp if p.tcp.payload_len > 0 || p.tcp.flags.syn() => {
                self.on_up_data(now, p);
                Verdict::Pass
            }
            Tap::BsUp if p.tcp.flags.ack() => self.on_down_ack(now, p),
            _ => Verdict::Pass,
        }
    }

    fn on_signal(&mut self, _now: Time, s: &NodeSignal) -> bool {
        let full = s.reason == Some(UndeliveredReason::QueueFull);
        match (s.signal, s.packet) {
            (Signal::Undelivered { .. }, Some(p)) if full => {
                let removed =
                    uncache_congested(&mut self.down, &p, |d| &mut d.cache, |c| c.packet.tcp.seq);
                self.stats.cache.cache_drops += u64::from(removed);
                removed
            }
            _ => false,
        }
    }

    fn on_timeout(&mut self, now: Time) {
        for d in self.down.values_mut() {
            if d.timer.is_none_or(|t| t > now) {
                continue;
            }
            d.timer = None;
            let timeout = d.rtt.timeout();
            let Some(c) = d.cache.front_mut() else {
                continue;
            };
            let asked = d.last_ack.is_none_or(|a| c.packet.tcp.seq == a);
            if asked && c.rxmits > 0 && c.rxmits < MAX_LOCAL_RXMIT {
                c.rxmits += 1;
                c.sent = now;
                c.local = Some(now);
                self.actions.push_back(Action::Emit {
                    packet: local_copy(&c.packet),
                    via: Via::Air,
                });
                self.stats.cache.local_retransmissions.timer += 1;
                d.timer = Some(now + timeout);
            }
        }
        self.up_timeout(now);
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        let down = self.down.values().filter_map(|d| d.timer);
        let up = self.up.values().filter_map(|u| u.due);
        down.chain(up).min()
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::Snack(self.stats))
    }
}

#[cfg(test)]
mod tests;
