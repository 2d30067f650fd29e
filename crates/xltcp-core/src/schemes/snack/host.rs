//! SNACK-TCP at the mobile host, uplink side (see the parent module for
//! the reconstruction): copies of the segments its TCP sent, resent when
//! the BS's SNACK names them, and the FH's dupACKs for those holes kept
//! from TCP. A segment its own MAC dropped at a full queue is a
//! congestion loss: its copy is dropped (counted in `cache_drops`), so a
//! SNACK naming it resends nothing and its dupACKs reach TCP.

use super::{SnackStats, CACHE_LIMIT, MAX_LOCAL_RXMIT};
use crate::schemes::agent::{Action, Agent, NodeSignal, Tap, Verdict, Via};
use crate::schemes::cache::{ack_key, data_key, end_of, is_pure_ack, local_copy, ConnKey};
use crate::schemes::AgentStats;
use crate::signal::{Signal, UndeliveredReason};
use crate::time::Time;
use crate::wire::{Packet, SeqNum};
use std::collections::{BTreeMap, VecDeque};

/// One uplink connection at the MH.
#[derive(Debug, Default)]
struct Conn {
    /// Copies of the data sent and not yet acknowledged, with their local
    /// sends so far.
    copies: BTreeMap<SeqNum, (Packet, u8)>,
    /// The FH's last ACK number.
    last_ack: Option<SeqNum>,
    /// The holes the last SNACK named (being repaired).
    repairing: Vec<(SeqNum, SeqNum)>,
}

/// SNACK-TCP at a mobile host (see the module doc).
#[derive(Debug, Default)]
pub struct SnackTcp {
    conns: BTreeMap<ConnKey, Conn>,
    actions: VecDeque<Action>,
    stats: SnackStats,
}

impl SnackTcp {
    /// SNACK-TCP with nothing sent.
    pub fn new() -> SnackTcp {
        SnackTcp::default()
    }

    /// Its counters.
    pub fn counters(&self) -> SnackStats {
        self.stats
    }

    /// Copies kept now, over all connections.
    pub fn cached_now(&self) -> usize {
        self.conns.values().map(|c| c.copies.len()).sum()
    }

    fn on_sent(&mut self, p: &Packet) {
        let conn = self.conns.entry(data_key(p)).or_default();
        if conn.last_ack.is_some_and(|a| end_of(p) <= a) {
            return;
        }
        if let Some(c) = conn.copies.get_mut(&p.tcp.seq) {
            c.0 = *p;
            self.stats.cache.sender_retransmissions += 1;
            return;
        }
        if conn.copies.len() >= CACHE_LIMIT {
            self.stats.cache.cache_full += 1;
            return;
        }
        conn.copies.insert(p.tcp.seq, (*p, 0));
        self.stats.cache.cached += 1;
    }

    /// The BS's SNACK: resend every copy in a named hole.
    fn on_snack(&mut self, p: &Packet) {
        self.stats.snacks_received += 1;
        let Some(conn) = self.conns.get_mut(&ack_key(p)) else {
            return;
        };
        // The SACK option's slots carry the missing blocks.
        let holes: Vec<(SeqNum, SeqNum)> = p
            .tcp
            .options
            .sack
            .as_slice()
            .iter()
            .map(|b| (b.left, b.right))
            .collect();
        self.stats.holes_reported += holes.len() as u64;
        for h in holes {
            let mut resent = false;
            for (packet, sends) in conn.copies.values_mut() {
                let (l, r) = (packet.tcp.seq, end_of(packet));
                if l >= h.1 || r <= h.0 || *sends >= MAX_LOCAL_RXMIT {
                    continue;
                }
                *sends += 1;
                self.actions.push_back(Action::Emit {
                    packet: local_copy(packet),
                    via: Via::Air,
                });
                self.stats.cache.local_retransmissions.snack += 1;
                resent = true;
            }
            // Only a hole being repaired keeps its dupACKs from TCP.
            if resent && !conn.repairing.contains(&h) && conn.repairing.len() < CACHE_LIMIT {
                conn.repairing.push(h);
            }
        }
    }

    fn on_ack(&mut self, p: &Packet) -> Verdict {
        let Some(conn) = self.conns.get_mut(&ack_key(p)) else {
            return Verdict::Pass;
        };
        let ack = p.tcp.ack;
        if conn.last_ack.is_none_or(|l| ack > l) {
            conn.last_ack = Some(ack);
            conn.copies.retain(|_, c| end_of(&c.0) > ack);
            conn.repairing.retain_mut(|h| {
                h.0 = h.0.max(ack);
                h.0 < h.1
            });
            return Verdict::Pass;
        }
        if conn.last_ack != Some(ack) || !is_pure_ack(p) {
            return Verdict::Pass;
        }
        if conn.repairing.iter().any(|&(l, r)| l <= ack && ack < r) {
            self.stats.cache.dupacks_suppressed += 1;
            Verdict::Consume
        } else {
            self.stats.cache.dupacks_forwarded += 1;
            Verdict::Pass
        }
    }
}

impl Agent for SnackTcp {
    fn on_packet(&mut self, _now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        match tap {
            Tap::HostOut if p.tcp.payload_len > 0 => {
                self.on_sent(p);
                Verdict::Pass
            }
            Tap::HostIn if p.meta.forged && p.tcp.payload_len == 0 => {
                self.on_snack(p);
                Verdict::Consume
            }
            Tap::HostIn if p.tcp.flags.ack() => self.on_ack(p),
            _ => Verdict::Pass,
        }
    }

    fn on_signal(&mut self, _now: Time, s: &NodeSignal) -> bool {
        let full = s.reason == Some(UndeliveredReason::QueueFull);
        let (Signal::Undelivered { .. }, Some(p), true) = (s.signal, s.packet, full) else {
            return false;
        };
        let Some(conn) = self.conns.get_mut(&data_key(&p)) else {
            return false;
        };
        let dropped = conn.copies.remove(&p.tcp.seq).is_some();
        if dropped {
            conn.repairing
                .retain(|&(l, r)| !(l <= p.tcp.seq && p.tcp.seq < r));
            self.stats.cache.cache_drops += 1;
        }
        dropped
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::Snack(self.stats))
    }
}
