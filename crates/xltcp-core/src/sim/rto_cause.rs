//! Why each retransmission timeout happened: the simulator sees every
//! packet's fate, so at each data RTO of a sender it can say what kept
//! the acknowledgment from coming back (paper 000 argues from exactly
//! this: which timeouts the primary user causes, which a lost report or
//! a lost retransmission causes).
//!
//! The world notes the drops that matter ([`Forensics::note_drop`]): a
//! flow's data segments by sequence number (whether it was a
//! retransmission, whether the channel was blocked by a primary user at
//! the drop), its last ACK dropped on the way back, its last report (a
//! packet an agent made toward the sender, such as local recovery's gap
//! report) dropped. When a sender's timer fires with `snd_una` = X, the
//! timeout is put in the first cause that fits:
//!
//! - the receiver does not hold X:
//!   - X's last drop was during a blockage: **blockage**;
//!   - a report was dropped after X's last drop: **lost report**;
//!   - X's last drop was of a retransmission (TCP's or a local one):
//!     **lost retransmission**;
//!   - X's first transmission was dropped and never resent: **lost
//!     segment** (a tail loss, too few duplicate ACKs);
//! - the receiver holds X (the ACKs did not come back):
//!   - the last ACK dropped in the timer's interval was dropped during a
//!     blockage: **blockage**; otherwise one was: **lost ACK**;
//! - nothing of the flow was dropped in the timer's interval: if the
//!   channel was blocked at some moment of it (frames held in a queue or
//!   a MAC held through the primary user): **blockage**; otherwise the
//!   ACK was only late (queueing longer than the RTO): **late**.
//!
//! The timer's interval is [fire time − the RTO that expired, fire time].
//! Blockage is the ground truth of the hop's availability process, not what
//! a detector reported. The counts per flow add up to its `rto_count`.

use crate::hop::HopDrop;
use crate::net::link::DropReason;
use crate::time::{Dur, Time};
use crate::wire::{Packet, SeqNum};
use serde::Serialize;
use std::collections::BTreeMap;

/// A flow's data RTOs by cause (see the module doc); they add up to the
/// flow's `rto_count`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RtoCauses {
    /// The segment or its ACKs were dropped, or held, while a primary user
    /// blocked the channel.
    pub blockage: u64,
    /// The receiver held the segment; its ACKs were dropped.
    pub lost_ack: u64,
    /// The segment's last transmission was a retransmission, dropped.
    pub lost_retransmission: u64,
    /// A report an agent sent the sender about the segment's loss was
    /// dropped.
    pub lost_report: u64,
    /// The segment's only transmission was dropped and nothing resent it.
    pub lost_segment: u64,
    /// Nothing was dropped or blocked: the ACK came later than the RTO.
    pub late: u64,
}

impl RtoCauses {
    /// All timeouts counted.
    pub fn total(&self) -> u64 {
        self.blockage
            + self.lost_ack
            + self.lost_retransmission
            + self.lost_report
            + self.lost_segment
            + self.late
    }
}

/// A dropped packet as the forensics keep it.
#[derive(Clone, Copy, Debug)]
struct DropNote {
    at: Time,
    blocked: bool,
    retransmission: bool,
    /// The sender's sequence space acknowledged then (64 bits): a note
    /// from 2^31 bytes ago or more has a raw sequence number that the
    /// flow may use again, and is not matched.
    una_rel: u64,
}

/// The drops kept per data segment at most before the old ones (below the
/// sender's `snd_una`) are pruned.
const KEEP: usize = 256;

/// What one flow's forensics keep.
#[derive(Debug, Default)]
struct FlowNotes {
    /// Dropped data segments by their first sequence number (raw).
    data: BTreeMap<u32, DropNote>,
    last_ack_drop: Option<DropNote>,
    last_report_drop: Option<Time>,
    causes: RtoCauses,
}

/// The drops noted per flow and the RTO causes found.
#[derive(Debug, Default)]
pub struct Forensics {
    flows: Vec<FlowNotes>,
}

/// What the world knows about a flow when noting a drop or classifying a
/// timeout.
#[derive(Clone, Copy, Debug)]
pub struct FlowView {
    /// The sender's address (a packet from it is data, else an ACK).
    pub sender_addr: std::net::Ipv4Addr,
    /// The sender's `snd_una` (pruning and classification).
    pub snd_una: SeqNum,
    /// The sender's sequence space acknowledged, in 64 bits
    /// (`Endpoint::snd_una_rel`).
    pub una_rel: u64,
}

impl Forensics {
    /// Forensics for `flows` flows.
    pub fn new(flows: usize) -> Forensics {
        Forensics {
            flows: (0..flows).map(|_| FlowNotes::default()).collect(),
        }
    }

    /// Notes the drop of `p` at `now`; `blocked`: a primary user blocked
    /// the channel then.
    pub fn note_drop(
        &mut self,
        now: Time,
        p: &Packet,
        why: Option<HopDrop>,
        blocked: bool,
        v: FlowView,
    ) {
        let Some(notes) = self.flows.get_mut(p.meta.flow as usize) else {
            return;
        };
        let blocked = blocked || why == Some(HopDrop::Link(DropReason::Blocked));
        if p.src == v.sender_addr {
            if p.tcp.seq_len() == 0 || p.tcp.flags.syn() {
                return;
            }
            let note = DropNote {
                at: now,
                blocked,
                retransmission: p.meta.retransmission || p.meta.forged,
                una_rel: v.una_rel,
            };
            notes.data.insert(p.tcp.seq.0, note);
            if notes.data.len() > KEEP {
                notes.data.retain(|&s, _| SeqNum(s) >= v.snd_una);
                // Still full (a window with more holes than KEEP): forget the
                // ones farthest above snd_una, a quarter at a time.
                if notes.data.len() > KEEP * 3 / 4 {
                    let una = v.snd_una;
                    let mut by_distance: Vec<u32> = notes.data.keys().copied().collect();
                    by_distance.sort_by_key(|&s| SeqNum(s).since(una) as u32);
                    for s in by_distance.into_iter().skip(KEEP * 3 / 4) {
                        notes.data.remove(&s);
                    }
                }
            }
        } else if p.meta.forged {
            notes.last_report_drop = Some(now);
        } else {
            notes.last_ack_drop = Some(DropNote {
                at: now,
                blocked,
                retransmission: false,
                una_rel: v.una_rel,
            });
        }
    }

    /// A data RTO of flow `flow`'s sender at `now`, the timer that expired
    /// being `rto` long; `held`: the receiver holds `snd_una`'s byte;
    /// `blocked_in`: whether the channel was blocked at some moment of
    /// `[since, now]`.
    pub fn classify(
        &mut self,
        now: Time,
        flow: usize,
        rto: Dur,
        held: bool,
        v: FlowView,
        blocked_in: impl Fn(Time) -> bool,
    ) {
        let Some(notes) = self.flows.get_mut(flow) else {
            return;
        };
        let since = Time(now.0.saturating_sub(rto.0));
        let c = &mut notes.causes;
        if !held {
            let recent = |n: &DropNote| v.una_rel - n.una_rel.min(v.una_rel) < 1 << 31;
            if let Some(n) = notes.data.get(&v.snd_una.0).copied().filter(recent) {
                if n.blocked {
                    c.blockage += 1;
                } else if notes.last_report_drop.is_some_and(|r| r >= n.at) {
                    c.lost_report += 1;
                } else if n.retransmission {
                    c.lost_retransmission += 1;
                } else {
                    c.lost_segment += 1;
                }
                return;
            }
        } else if let Some(n) = notes.last_ack_drop.filter(|n| n.at >= since) {
            if n.blocked {
                c.blockage += 1;
            } else {
                c.lost_ack += 1;
            }
            return;
        }
        if blocked_in(since) {
            c.blockage += 1;
        } else {
            c.late += 1;
        }
    }

    /// Flow `flow`'s causes so far.
    pub fn causes(&self, flow: usize) -> RtoCauses {
        self.flows.get(flow).map(|n| n.causes).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{PacketMeta, Segment};
    use std::net::Ipv4Addr;

    const SENDER: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 1);
    const RECEIVER: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 1);

    fn packet(from: Ipv4Addr, seq: u32, len: u32, retransmission: bool, forged: bool) -> Packet {
        let to = if from == SENDER { RECEIVER } else { SENDER };
        Packet {
            src: from,
            dst: to,
            ip_id: 0,
            ttl: 64,
            tcp: Segment {
                seq: SeqNum(seq),
                payload_len: len,
                ..Segment::default()
            },
            meta: PacketMeta {
                retransmission,
                forged,
                ..PacketMeta::default()
            },
        }
    }

    fn view(una: u32) -> FlowView {
        FlowView {
            sender_addr: SENDER,
            snd_una: SeqNum(una),
            una_rel: u64::from(una),
        }
    }

    fn at(s: u64) -> Time {
        Time::ZERO + Dur::from_secs(s)
    }

    #[test]
    fn each_cause_is_found_and_they_add_up() {
        let mut f = Forensics::new(1);
        let rto = Dur::from_secs(2);
        let never = |_: Time| false;
        // A first transmission lost, nothing resent it.
        f.note_drop(
            at(1),
            &packet(SENDER, 100, 50, false, false),
            None,
            false,
            view(100),
        );
        f.classify(at(2), 0, rto, false, view(100), never);
        // Its retransmission lost too.
        f.note_drop(
            at(3),
            &packet(SENDER, 100, 50, true, false),
            None,
            false,
            view(100),
        );
        f.classify(at(5), 0, rto, false, view(100), never);
        // Then dropped while blocked.
        let blocked = Some(HopDrop::Link(DropReason::Blocked));
        f.note_drop(
            at(6),
            &packet(SENDER, 100, 50, true, false),
            blocked,
            false,
            view(100),
        );
        f.classify(at(9), 0, rto, false, view(100), never);
        // A segment lost, then the agent's report about it.
        f.note_drop(
            at(10),
            &packet(SENDER, 150, 50, false, false),
            None,
            false,
            view(150),
        );
        f.note_drop(
            at(10),
            &packet(RECEIVER, 0, 0, false, true),
            None,
            false,
            view(150),
        );
        f.classify(at(12), 0, rto, false, view(150), never);
        // Delivered, its ACK lost.
        f.note_drop(
            at(13),
            &packet(RECEIVER, 0, 0, false, false),
            None,
            false,
            view(200),
        );
        f.classify(at(14), 0, rto, true, view(200), never);
        // Delivered, nothing lost: late, or blocked in the interval.
        f.classify(at(30), 0, rto, true, view(250), never);
        f.classify(at(40), 0, rto, true, view(250), |since| since == at(38));
        let c = f.causes(0);
        assert_eq!(
            c,
            RtoCauses {
                blockage: 2,
                lost_ack: 1,
                lost_retransmission: 1,
                lost_report: 1,
                lost_segment: 1,
                late: 1,
            }
        );
        assert_eq!(c.total(), 7);
    }

    #[test]
    fn an_ack_dropped_before_the_timer_started_is_not_blamed() {
        let mut f = Forensics::new(1);
        f.note_drop(
            at(1),
            &packet(RECEIVER, 0, 0, false, false),
            None,
            false,
            view(0),
        );
        f.classify(at(10), 0, Dur::from_secs(1), true, view(0), |_| false);
        assert_eq!(f.causes(0).late, 1);
        assert_eq!(f.causes(0).lost_ack, 0);
    }

    #[test]
    fn notes_stay_bounded_when_every_drop_is_above_snd_una() {
        let mut f = Forensics::new(1);
        for k in 0..10_000u32 {
            f.note_drop(
                at(1),
                &packet(SENDER, k * 10, 10, false, false),
                None,
                false,
                view(0),
            );
        }
        let kept = &f.flows[0].data;
        assert!(kept.len() <= KEEP, "{}", kept.len());
        // The ones nearest snd_una are kept.
        assert!(kept.contains_key(&0));
    }

    #[test]
    fn notes_stay_bounded() {
        let mut f = Forensics::new(1);
        for k in 0..10_000u32 {
            let una = k.saturating_sub(10) * 10;
            f.note_drop(
                at(1),
                &packet(SENDER, k * 10, 10, false, false),
                None,
                false,
                view(una),
            );
        }
        assert!(f.flows[0].data.len() <= KEEP + 1);
    }
}
