//! Local recovery at the BS, as an agent: a [`GapMonitor`] per monitored
//! connection and the loss reports it forges toward the sender (see the
//! parent module for what a report says to whom).

use super::{GapMonitor, LrReport, LrStats};
use crate::schemes::agent::{Action, Agent, Tap, Verdict, Via};
use crate::schemes::AgentStats;
use crate::time::Time;
use crate::wire::TcpOptions;
use crate::wire::{Packet, SackBlock, SackBlocks, SeqNum};
use std::collections::{BTreeMap, VecDeque};

/// Whom the BS's reports are for, which decides their ACK number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportTo {
    /// The sender's local-recovery agent (PHY-LR, TCP-LR), which consumes
    /// them: the ACK number is the BS's cumulative point.
    Agent,
    /// The sender's own TCP (`"bs_reports"`): the ACK number is the
    /// receiver's last one, the data the BS has above it are SACK blocks.
    Tcp,
}

/// What the receiver last sent toward the sender on one connection.
#[derive(Clone, Copy, Debug)]
struct Peer {
    seq: SeqNum,
    /// The sequence number after that segment (what its next one carries).
    next: SeqNum,
    /// The highest ACK number, once one was sent.
    ack: Option<SeqNum>,
    window: u16,
    timestamps: Option<(u32, u32)>,
}

/// One monitored connection.
#[derive(Debug, Default)]
struct Conn {
    monitor: GapMonitor,
    peer: Option<Peer>,
    /// Holes reported and not yet filled, with when they were reported.
    pending: VecDeque<(SeqNum, SeqNum, Time)>,
}

/// Reported holes tracked for their repair latency, at most (per
/// connection); older ones are given up and counted.
const MAX_PENDING: usize = 64;

impl Conn {
    /// Holes filled by now: their repair latency into the stats.
    fn settle(&mut self, now: Time) {
        if self.pending.is_empty() {
            return;
        }
        let holes = self.monitor.holes();
        let stats = &mut self.monitor.stats;
        self.pending.retain(|&(l, r, at)| {
            if holes.iter().any(|h| h.0 < r && h.1 > l) {
                return true;
            }
            let ns = (now - at).as_nanos();
            stats.repairs += 1;
            stats.repair_ns_total += ns;
            stats.repair_ns_max = stats.repair_ns_max.max(ns);
            false
        });
    }

    /// A report went out at `now`: track its holes.
    fn track(&mut self, now: Time, report: &LrReport) {
        for (l, r) in report.holes() {
            if self.pending.iter().any(|p| p.0 == l && p.1 == r) {
                continue;
            }
            if self.pending.len() >= MAX_PENDING {
                self.pending.pop_front();
                self.monitor.stats.repairs_untracked += 1;
            }
            self.pending.push_back((l, r, now));
        }
    }
}

/// Local recovery at the BS, as an agent: a [`GapMonitor`] for each
/// monitored connection (flow and ports: a flow may carry several, as
/// iperf3's control and data connections); reports are forged toward the
/// sender and sent on the air after the data that revealed the hole has
/// gone on to the wire.
#[derive(Debug)]
pub struct LrBs {
    monitored: Vec<bool>,
    to: ReportTo,
    /// Keyed by (flow, sender's port, receiver's port).
    conns: BTreeMap<(u32, u16, u16), Conn>,
    reports: u64,
    actions: VecDeque<Action>,
}

impl LrBs {
    /// Monitors the flows `i < flows` for which `monitored(i)` holds, for
    /// the sender's agent ([`ReportTo::Agent`]).
    pub fn new(flows: usize, monitored: impl Fn(usize) -> bool) -> LrBs {
        LrBs::reporting_to(ReportTo::Agent, flows, monitored)
    }

    /// As [`LrBs::new`], with reports for `to`.
    pub fn reporting_to(to: ReportTo, flows: usize, monitored: impl Fn(usize) -> bool) -> LrBs {
        LrBs {
            monitored: (0..flows).map(monitored).collect(),
            to,
            conns: BTreeMap::new(),
            reports: 0,
            actions: VecDeque::new(),
        }
    }

    /// The report as a TCP segment from the receiver to the sender of
    /// `data`, or `None` if there is nothing true to say yet (for the
    /// sender's TCP, before the receiver's first ACK).
    fn forge(&mut self, data: &Packet, r: &LrReport, peer: Option<Peer>) -> Option<Packet> {
        let mut sack = SackBlocks::new();
        let (seq, ack, window, timestamps) = match (self.to, peer) {
            (ReportTo::Agent, _) => {
                for &(left, right) in &r.blocks {
                    sack.push(SackBlock { left, right });
                }
                let (seq, window) = peer.map_or((SeqNum(0), 0), |p| (p.seq, p.window));
                (seq, r.cum, window, None)
            }
            (ReportTo::Tcp, None) => return None,
            (ReportTo::Tcp, Some(p)) => {
                let ack = p.ack?;
                if r.cum > ack {
                    sack.push(SackBlock {
                        left: ack,
                        right: r.cum,
                    });
                }
                for &(left, right) in &r.blocks {
                    let left = left.max(ack);
                    if right > left {
                        sack.push(SackBlock { left, right });
                    }
                }
                (p.next, ack, p.window, p.timestamps)
            }
        };
        self.reports += 1;
        let options = TcpOptions {
            sack,
            timestamps,
            ..Default::default()
        };
        let ip_id = (self.reports & 0xffff) as u16;
        Some(Packet::forged_ack(data, ip_id, seq, ack, window, options))
    }
}

impl Agent for LrBs {
    fn on_packet(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        let flow = p.meta.flow;
        if !self.monitored.get(flow as usize).copied().unwrap_or(false) {
            return Verdict::Pass;
        }
        match tap {
            Tap::BsUp => {
                let key = (flow, p.tcp.src_port, p.tcp.dst_port);
                let conn = self.conns.entry(key).or_default();
                let report = conn.monitor.on_data(&p.tcp);
                conn.settle(now);
                let Some(r) = report else {
                    return Verdict::Pass;
                };
                let peer = conn.peer;
                match self.forge(p, &r, peer) {
                    Some(packet) => {
                        if let Some(c) = self.conns.get_mut(&key) {
                            c.track(now, &r);
                        }
                        self.actions.push_back(Action::Emit {
                            packet,
                            via: Via::Air,
                        })
                    }
                    // Not sent after all.
                    None => {
                        if let Some(c) = self.conns.get_mut(&key) {
                            c.monitor.stats.reports_sent -= 1;
                        }
                    }
                }
            }
            Tap::BsDown => {
                let key = (flow, p.tcp.dst_port, p.tcp.src_port);
                let conn = self.conns.entry(key).or_default();
                let old = conn.peer.and_then(|o| o.ack);
                let ack = match (old, p.tcp.flags.ack()) {
                    (Some(a), true) => Some(a.max(p.tcp.ack)),
                    (None, true) => Some(p.tcp.ack),
                    (old, false) => old,
                };
                conn.peer = Some(Peer {
                    seq: p.tcp.seq,
                    next: p.tcp.seq + p.tcp.seq_len(),
                    ack,
                    window: p.tcp.window,
                    timestamps: p.tcp.options.timestamps,
                });
            }
            _ => {}
        }
        Verdict::Pass
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn stats(&self) -> Option<AgentStats> {
        let mut t = LrStats::default();
        for c in self.conns.values() {
            t += c.monitor.stats;
        }
        Some(AgentStats::LocalRecovery(t))
    }
}
