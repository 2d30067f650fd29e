//! Bytes delivered in order to each flow's receiving host, counted at the
//! base station as it hands segments over.
//!
//! This is the simulator's goodput (in-order bytes the receiver can give
//! its application by the end of the run), measured on real segments: per
//! connection (the flow's address pair and ports), the receiver's next
//! expected sequence number is advanced past every contiguous segment, and
//! out-of-order ranges wait in a small map until the gap fills. The
//! applications' own report counts the same bytes but over their own test
//! interval, which starts after connection set-up and ends after the
//! bottleneck queue has drained, so it cannot be cut at the scenario's end.

use std::collections::BTreeMap;
use xltcp_core::wire::{Segment, SeqNum};

/// One connection's receive-side state, offsets relative to the byte after the SYN.
#[derive(Debug, Default)]
struct Conn {
    start: SeqNum,
    next: u64,
    pending: BTreeMap<u64, u64>,
}

/// In-order delivery per flow.
#[derive(Debug, Default)]
pub struct InOrder {
    conns: BTreeMap<(u32, u16, u16), Conn>,
}

impl InOrder {
    /// A segment of `flow` handed to its receiving host.
    pub fn on_segment(&mut self, flow: u32, seg: &Segment) {
        let key = (flow, seg.src_port, seg.dst_port);
        if seg.flags.syn() {
            let start = SeqNum(seg.seq.0.wrapping_add(1));
            self.conns.entry(key).or_insert(Conn {
                start,
                ..Conn::default()
            });
            return;
        }
        // Connections whose SYN was not seen are not counted.
        let Some(c) = self.conns.get_mut(&key) else {
            return;
        };
        if seg.payload_len == 0 {
            return;
        }
        // Offsets within 2 GiB behind or ahead of the start (modular compare).
        let rel = seg.seq.since(c.start);
        if rel < 0 {
            return;
        }
        let (from, to) = (rel as u64, rel as u64 + seg.payload_len as u64);
        if from > c.next {
            let e = c.pending.entry(from).or_insert(to);
            *e = (*e).max(to);
            return;
        }
        c.next = c.next.max(to);
        // The gap may now be filled: take every waiting range it reaches.
        while let Some((&f, &t)) = c.pending.first_key_value() {
            if f > c.next {
                break;
            }
            c.pending.pop_first();
            c.next = c.next.max(t);
        }
    }

    /// In-order bytes delivered so far to `flow`'s receiver, all its connections.
    pub fn delivered(&self, flow: u32) -> u64 {
        self.conns
            .range((flow, 0, 0)..=(flow, u16::MAX, u16::MAX))
            .map(|(_, c)| c.next)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xltcp_core::wire::TcpFlags;

    fn seg(seq: u32, len: u32, flags: TcpFlags) -> Segment {
        Segment {
            src_port: 1,
            dst_port: 2,
            seq: SeqNum(seq),
            payload_len: len,
            flags,
            ..Segment::default()
        }
    }

    #[test]
    fn gaps_hold_bytes_back_until_filled() {
        let mut io = InOrder::default();
        io.on_segment(0, &seg(u32::MAX - 10, 0, TcpFlags::SYN));
        let base = (u32::MAX - 9) as u64;
        let at = |off: u64| (base + off) as u32;
        io.on_segment(0, &seg(at(0), 100, TcpFlags::ACK));
        io.on_segment(0, &seg(at(200), 100, TcpFlags::ACK));
        assert_eq!(io.delivered(0), 100);
        io.on_segment(0, &seg(at(50), 100, TcpFlags::ACK)); // overlap, partial fill
        assert_eq!(io.delivered(0), 150);
        io.on_segment(0, &seg(at(150), 50, TcpFlags::ACK)); // fills the gap
        assert_eq!(io.delivered(0), 300);
        io.on_segment(0, &seg(at(0), 100, TcpFlags::ACK)); // duplicate
        assert_eq!(io.delivered(0), 300);
        assert_eq!(io.delivered(1), 0);
    }

    #[test]
    fn connections_without_a_seen_syn_are_ignored() {
        let mut io = InOrder::default();
        io.on_segment(0, &seg(5, 100, TcpFlags::ACK));
        assert_eq!(io.delivered(0), 0);
    }
}
