//! Local recovery (paper 000, Byun 2016, §4): the BS watches the sequence
//! numbers of the TCP data arriving over the wireless hop and, when a gap
//! appears, reports it to the sender; the sender retransmits what the
//! report marks lost.
//!
//! - [`GapMonitor`] (at the BS, one per uplink flow): tracks the data seen
//!   over the air as a cumulative point plus received ranges above it.
//!   When a segment starts beyond everything seen so far (a new hole), it
//!   returns an [`LrReport`]: the cumulative point and up to three received
//!   blocks. The blocks are the **lowest** three ranges, so the holes
//!   between the cumulative point and the last block are exactly the data
//!   not yet seen at the BS.
//! - [`LrAgent`] (at the sender): PHY-LR ([`LrMode::Phy`]) resends the
//!   reported holes from a link buffer of recently sent data packets
//!   ([`LrAction::Resend`]); TCP-LR ([`LrMode::Tcp`]) asks the sender's
//!   TCP to retransmit them now ([`LrAction::Retransmit`], see
//!   [`crate::tcp::Endpoint::retransmit_range`]) and, on every RTO, to
//!   retransmit every hole still known lost.
//!
//! On the wire the report is a real TCP segment the BS forges toward the
//! sender (from the receiver's address and port): an ACK whose
//! acknowledgment number is the BS's cumulative point and whose SACK
//! option carries the blocks. It is consumed by the sender's agent and
//! never reaches its TCP (its ACK number speaks for the BS, not for the
//! receiver, so giving it to TCP would acknowledge data the receiver may
//! not have). It is marked as forged ([`PacketMeta::forged`]) so the agent
//! can tell it from the receiver's own ACKs.
//!
//! # The BS alone (`local_recovery = "bs_reports"`)
//!
//! Without an agent at the sender (a real Linux sender has none), the
//! report goes to the sender's own TCP, so it must say only what is true
//! of the receiver's side of the hop ([`ReportTo::Tcp`]): its ACK number
//! is the receiver's own last cumulative ACK (which the BS saw pass toward
//! the sender, at [`super::Tap::BsDown`] for an uplink flow), never the
//! BS's cumulative point, so the sender never takes data the receiver may
//! not have as acknowledged; its SACK blocks are what the BS received
//! above that ACK: first `[receiver's ACK, BS's cumulative point)` (data
//! passed on to the wire, not yet acknowledged), then the gap monitor's
//! lowest blocks. The holes between them are exactly the data not seen at
//! the BS, which the sender's SACK loss detection (RFC 6675, or RACK in
//! Linux) retransmits, a wired round trip earlier than the receiver's own
//! duplicate ACKs would have it. Its sequence number is the one the
//! receiver's next segment would carry, its window and timestamps the
//! receiver's last (so a real TCP accepts it: in its receive window, past
//! PAWS). SACK blocks may be revoked by TCP (RFC 2018 §8): data the BS
//! passed on and the wire lost is retransmitted on the sender's RTO.
//!
//! Sans-IO: inputs `on_*`, outputs drained with `poll_action`. As agents
//! ([`super::agent`]): [`LrBs`] at the BS (a gap monitor per monitored
//! connection) and [`LrSender`] at each sending host (one [`LrAgent`] per
//! flow; none with `"bs_reports"`).

use super::agent::{Action, Agent, Tap, Verdict, Via};
use super::AgentStats;
use crate::tcp::{Command, Event};
use crate::time::Time;
#[cfg(doc)]
use crate::wire::PacketMeta;
use crate::wire::{Packet, Segment, SeqNum};
use serde::Serialize;
use std::collections::VecDeque;

/// Most blocks in one report.
pub const MAX_REPORT_BLOCKS: usize = 3;

/// Received ranges tracked above the cumulative point, at most.
const MAX_RANGES: usize = 64;

/// A loss report from the BS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LrReport {
    /// All data below this has been seen at the BS.
    pub cum: SeqNum,
    /// Up to three received blocks above `cum`, lowest first.
    pub blocks: Vec<(SeqNum, SeqNum)>,
}

impl LrReport {
    /// The holes the report marks lost: from `cum` to the first block and
    /// between consecutive blocks.
    pub fn holes(&self) -> Vec<(SeqNum, SeqNum)> {
        let mut holes = Vec::with_capacity(self.blocks.len());
        let mut at = self.cum;
        for &(l, r) in &self.blocks {
            if l > at {
                holes.push((at, l));
            }
            at = at.max(r);
        }
        holes
    }
}

/// Counters of local recovery (BS and sender together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LrStats {
    /// Reports the BS sent.
    pub reports_sent: u64,
    /// Reports the sender's agent received.
    pub reports_received: u64,
    /// Holes the received reports marked lost.
    pub holes_reported: u64,
    /// Segments resent by the link layer (PHY-LR).
    pub link_resends: u64,
    /// Reported holes (or parts) that were not in the link buffer (PHY-LR).
    pub holes_not_buffered: u64,
    /// Ranges handed to TCP for retransmission (TCP-LR).
    pub tcp_retransmit_requests: u64,
    /// Retransmission requests made on an RTO (TCP-LR).
    pub rto_requests: u64,
    /// Data segments seen at the BS below its cumulative point.
    pub duplicates_at_bs: u64,
    /// Reported holes the BS later saw filled (repairs).
    pub repairs: u64,
    /// Sum of the repairs' latencies (report sent to hole filled at the
    /// BS), nanoseconds; the mean is this over `repairs`.
    pub repair_ns_total: u64,
    /// The longest repair latency, nanoseconds.
    pub repair_ns_max: u64,
    /// Reported holes no longer tracked (more than 64 open at once).
    pub repairs_untracked: u64,
    /// PHY-LR: the most data packets its link buffer held at once (the
    /// buffer TCP-LR does without: it retransmits from TCP's send buffer).
    pub link_buffer_peak: u64,
}

/// Gap detection at the BS for one flow's data over the wireless hop.
#[derive(Clone, Debug, Default)]
pub struct GapMonitor {
    cum: Option<SeqNum>,
    high: SeqNum,
    ranges: Vec<(SeqNum, SeqNum)>,
    /// Counters of the BS side.
    pub stats: LrStats,
}

impl GapMonitor {
    /// A monitor that has seen nothing.
    pub fn new() -> GapMonitor {
        GapMonitor::default()
    }

    /// The cumulative point, once data or a SYN was seen.
    pub fn cum(&self) -> Option<SeqNum> {
        self.cum
    }

    /// Every hole below the highest data seen, lowest first: from the
    /// cumulative point to the first range held above it, and between
    /// consecutive ranges.
    pub fn holes(&self) -> Vec<(SeqNum, SeqNum)> {
        let Some(mut at) = self.cum else {
            return Vec::new();
        };
        let mut holes = Vec::with_capacity(self.ranges.len());
        for &(l, r) in &self.ranges {
            if l > at {
                holes.push((at, l));
            }
            at = at.max(r);
        }
        holes
    }

    /// A segment from the sender arrived at the BS over the air; returns a
    /// report if it opened a new hole.
    pub fn on_data(&mut self, seg: &Segment) -> Option<LrReport> {
        if seg.flags.syn() {
            self.cum = Some(seg.seq + 1);
            self.high = seg.seq + 1;
            self.ranges.clear();
            return None;
        }
        let len = seg.payload_len + u32::from(seg.flags.fin());
        if len == 0 {
            return None;
        }
        let cum = *self.cum.get_or_insert(seg.seq);
        if self.ranges.is_empty() && self.high < cum {
            self.high = cum;
        }
        let (start, end) = (seg.seq, seg.seq + len);
        if end <= cum {
            self.stats.duplicates_at_bs += 1;
            return None;
        }
        let new_hole = start > self.high.max(cum);
        self.insert(start.max(cum), end);
        self.high = self.high.max(end);
        if !new_hole {
            return None;
        }
        self.stats.reports_sent += 1;
        Some(LrReport {
            cum: self.cum.unwrap_or(cum),
            blocks: self
                .ranges
                .iter()
                .take(MAX_REPORT_BLOCKS)
                .copied()
                .collect(),
        })
    }

    /// Adds `[l, r)` to the ranges and moves the cumulative point.
    fn insert(&mut self, l: SeqNum, r: SeqNum) {
        let (mut l, mut r) = (l, r);
        let mut keep = Vec::with_capacity(self.ranges.len() + 1);
        for &(a, b) in &self.ranges {
            if b < l || a > r {
                keep.push((a, b));
            } else {
                l = l.min(a);
                r = r.max(b);
            }
        }
        keep.push((l, r));
        keep.sort_by_key(|x| x.0);
        let mut cum = self.cum.unwrap_or(l);
        keep.retain(|&(a, b)| {
            if a <= cum {
                cum = cum.max(b);
                false
            } else {
                true
            }
        });
        keep.truncate(MAX_RANGES);
        self.cum = Some(cum);
        self.ranges = keep;
    }
}

/// Where the sender retransmits reported holes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LrMode {
    /// PHY-LR: the link layer, from its own buffer.
    Phy,
    /// TCP-LR: TCP, from its send buffer.
    Tcp,
}

/// What the engine must do at the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LrAction {
    /// PHY-LR: hand this buffered packet to the link layer again.
    Resend(Packet),
    /// TCP-LR: call `retransmit_range(left, right)` on the sender's TCP.
    Retransmit {
        /// First sequence number.
        left: SeqNum,
        /// One past the last.
        right: SeqNum,
    },
}

/// The sender-side agent of local recovery.
#[derive(Debug)]
pub struct LrAgent {
    mode: LrMode,
    capacity: usize,
    buffer: VecDeque<Packet>,
    known_lost: Vec<(SeqNum, SeqNum)>,
    actions: VecDeque<LrAction>,
    /// Counters of the sender side.
    pub stats: LrStats,
}

impl LrAgent {
    /// An agent; `capacity` is PHY-LR's link buffer in packets.
    pub fn new(mode: LrMode, capacity: usize) -> LrAgent {
        LrAgent {
            mode,
            capacity: capacity.max(1),
            buffer: VecDeque::new(),
            known_lost: Vec::new(),
            actions: VecDeque::new(),
            stats: LrStats::default(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> LrMode {
        self.mode
    }

    /// The sender handed `p` to its link layer (PHY-LR keeps data packets).
    pub fn on_sent(&mut self, p: &Packet) {
        if self.mode != LrMode::Phy || p.tcp.payload_len == 0 {
            return;
        }
        self.buffer.retain(|b| b.tcp.seq != p.tcp.seq);
        if self.buffer.len() >= self.capacity {
            self.buffer.pop_front();
        }
        self.buffer.push_back(*p);
        self.stats.link_buffer_peak = self.stats.link_buffer_peak.max(self.buffer.len() as u64);
    }

    /// A cumulative ACK from the receiver reached the sender: forget what
    /// it covers.
    pub fn on_ack(&mut self, ack: SeqNum) {
        self.buffer.retain(|b| b.tcp.seq + b.tcp.payload_len > ack);
        self.known_lost.retain_mut(|h| {
            h.0 = h.0.max(ack);
            h.0 < h.1
        });
    }

    /// A report from the BS reached the sender.
    pub fn on_report(&mut self, _now: Time, report: &LrReport) {
        self.stats.reports_received += 1;
        let holes = report.holes();
        self.stats.holes_reported += holes.len() as u64;
        match self.mode {
            LrMode::Phy => {
                for &(l, r) in &holes {
                    let mut found = false;
                    for b in &self.buffer {
                        let (bl, br) = (b.tcp.seq, b.tcp.seq + b.tcp.payload_len);
                        if bl < r && br > l {
                            found = true;
                            let mut again = *b;
                            again.meta.retransmission = true;
                            self.actions.push_back(LrAction::Resend(again));
                            self.stats.link_resends += 1;
                        }
                    }
                    if !found {
                        self.stats.holes_not_buffered += 1;
                    }
                }
            }
            LrMode::Tcp => {
                for &(left, right) in &holes {
                    self.actions.push_back(LrAction::Retransmit { left, right });
                    self.stats.tcp_retransmit_requests += 1;
                }
                self.known_lost = holes;
            }
        }
    }

    /// The sender's TCP timed out: TCP-LR retransmits every hole still
    /// known lost.
    pub fn on_rto(&mut self) {
        if self.mode != LrMode::Tcp {
            return;
        }
        for &(left, right) in &self.known_lost {
            self.actions.push_back(LrAction::Retransmit { left, right });
            self.stats.rto_requests += 1;
        }
    }

    /// The next action for the engine.
    #[must_use]
    pub fn poll_action(&mut self) -> Option<LrAction> {
        self.actions.pop_front()
    }
}

impl std::ops::AddAssign for LrStats {
    fn add_assign(&mut self, o: LrStats) {
        self.reports_sent += o.reports_sent;
        self.reports_received += o.reports_received;
        self.holes_reported += o.holes_reported;
        self.link_resends += o.link_resends;
        self.holes_not_buffered += o.holes_not_buffered;
        self.tcp_retransmit_requests += o.tcp_retransmit_requests;
        self.rto_requests += o.rto_requests;
        self.duplicates_at_bs += o.duplicates_at_bs;
        self.repairs += o.repairs;
        self.repair_ns_total += o.repair_ns_total;
        self.repair_ns_max = self.repair_ns_max.max(o.repair_ns_max);
        self.repairs_untracked += o.repairs_untracked;
        self.link_buffer_peak = self.link_buffer_peak.max(o.link_buffer_peak);
    }
}

/// Local recovery at a sending host, as an agent: the [`LrAgent`] of one
/// flow, below TCP (it keeps PHY-LR's link buffer and takes the BS's
/// reports) and beside it (TCP-LR's retransmissions and RTOs).
#[derive(Debug)]
pub struct LrSender {
    flow: u32,
    agent: LrAgent,
}

impl LrSender {
    /// The agent of `flow`.
    pub fn new(flow: u32, mode: LrMode, capacity: usize) -> LrSender {
        LrSender {
            flow,
            agent: LrAgent::new(mode, capacity),
        }
    }
}

impl Agent for LrSender {
    fn on_packet(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        if p.meta.flow != self.flow {
            return Verdict::Pass;
        }
        match tap {
            Tap::HostOut => self.agent.on_sent(p),
            Tap::HostIn if p.meta.forged => {
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
                self.agent.on_report(now, &report);
                return Verdict::Consume;
            }
            Tap::HostIn => self.agent.on_ack(p.tcp.ack),
            _ => {}
        }
        Verdict::Pass
    }

    fn on_tcp_event(&mut self, _now: Time, flow: u32, event: &Event) {
        if flow == self.flow && matches!(event, Event::RetransmissionTimeout { .. }) {
            self.agent.on_rto();
        }
    }

    fn poll_action(&mut self) -> Option<Action> {
        Some(match self.agent.poll_action()? {
            LrAction::Resend(packet) => Action::Emit {
                packet,
                via: Via::Air,
            },
            LrAction::Retransmit { left, right } => Action::Tcp {
                flow: Some(self.flow),
                cmd: Command::Retransmit { left, right },
            },
        })
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::LocalRecovery(self.agent.stats))
    }
}

mod bs;
pub use bs::{LrBs, ReportTo};

#[cfg(test)]
mod tests;
