//! Bytes delivered in order to each flow's receiving application, counted
//! at the base station as it hands segments over.
//!
//! This is the simulator's goodput (in-order bytes the receiver can give
//! its application by the end of the run), measured on real segments: per
//! connection (the flow's address pair and ports), the receiver's next
//! expected sequence number is advanced past every contiguous segment, and
//! out-of-order ranges wait in a small map until the gap fills. The
//! applications' own report counts the same bytes but over their own test
//! interval, which starts after connection set-up and ends after the
//! bottleneck queue has drained, so it cannot be cut at the scenario's end.
//!
//! Only the application's data counts: a flow's [`Framing`] says which of
//! its connections carry none (iperf3's control connection) and how many
//! bytes open each data connection before the data (iperf3's cookie).
//!
//! Other threads follow each flow through its [`Progress`]: the bytes
//! delivered so far and the sending port of its data connection (the
//! time series read Linux's state of that connection).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::Arc;
use xltcp_core::wire::{Segment, SeqNum};

/// What a flow's application puts on its connections besides its data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Framing {
    /// The flow's first connections (in the order their SYNs crossed)
    /// that carry no data: control.
    pub control_connections: u32,
    /// Bytes each data connection opens with before the data.
    pub preamble: u64,
}

impl Framing {
    /// iperf3's: a control connection first, then data connections that
    /// each open with its 37-byte cookie.
    pub const IPERF3: Framing = Framing {
        control_connections: 1,
        preamble: 37,
    };
}

/// One flow's delivery as other threads see it.
#[derive(Debug, Default)]
pub struct Progress {
    /// The sender's port of the flow's latest data connection (0: none yet).
    pub data_port: AtomicU16,
    /// In-order bytes of application data delivered so far.
    pub delivered: AtomicU64,
}

/// One connection's receive-side state, offsets relative to the byte after the SYN.
#[derive(Debug, Default)]
struct Conn {
    /// Its place among the flow's connections, by SYN.
    ordinal: u32,
    start: SeqNum,
    next: u64,
    pending: BTreeMap<u64, u64>,
}

/// In-order delivery per flow.
#[derive(Debug, Default)]
pub struct InOrder {
    conns: BTreeMap<(u32, u16, u16), Conn>,
    /// Each flow's framing (none past the end: no framing).
    framing: Vec<Framing>,
    /// Connections seen per flow.
    opened: Vec<u32>,
    /// Per flow, for other threads.
    progress: Arc<[Progress]>,
}

impl InOrder {
    /// Counts for flows whose applications frame their connections so.
    pub fn new(framing: Vec<Framing>) -> Self {
        let opened = vec![0; framing.len()];
        let progress = framing.iter().map(|_| Progress::default()).collect();
        InOrder {
            framing,
            opened,
            progress,
            ..InOrder::default()
        }
    }

    /// Each flow's progress, shared with other threads.
    pub fn progress(&self) -> Arc<[Progress]> {
        self.progress.clone()
    }

    /// A segment of `flow` handed to its receiving host.
    pub fn on_segment(&mut self, flow: u32, seg: &Segment) {
        let key = (flow, seg.src_port, seg.dst_port);
        if seg.flags.syn() {
            let start = SeqNum(seg.seq.0.wrapping_add(1));
            if let std::collections::btree_map::Entry::Vacant(v) = self.conns.entry(key) {
                let ordinal = self.opened.get_mut(flow as usize).map_or(0, |n| {
                    *n += 1;
                    *n - 1
                });
                let f = self.framing.get(flow as usize).copied().unwrap_or_default();
                if let (true, Some(p)) = (
                    ordinal >= f.control_connections,
                    self.progress.get(flow as usize),
                ) {
                    p.data_port.store(seg.src_port, Ordering::Relaxed);
                }
                v.insert(Conn {
                    ordinal,
                    start,
                    ..Conn::default()
                });
            }
            return;
        }
        // Connections whose SYN was not seen are not counted.
        let Some(c) = self.conns.get_mut(&key) else {
            return;
        };
        if seg.payload_len == 0 {
            return;
        }
        // The segment's offset from the start, found from the next expected
        // byte (within 2 GiB behind or ahead of it, a modular compare), so
        // that offsets keep counting past 2^31 and 2^32 bytes.
        let expected = c.start + c.next as u32;
        let Some(from) = c.next.checked_add_signed(seg.seq.since(expected).into()) else {
            return; // before the connection's first byte
        };
        let to = from + u64::from(seg.payload_len);
        if from > c.next {
            let e = c.pending.entry(from).or_insert(to);
            *e = (*e).max(to);
            return;
        }
        let before = c.next;
        c.next = c.next.max(to);
        // The gap may now be filled: take every waiting range it reaches.
        while let Some((&f, &t)) = c.pending.first_key_value() {
            if f > c.next {
                break;
            }
            c.pending.pop_first();
            c.next = c.next.max(t);
        }
        let f = self.framing.get(flow as usize).copied().unwrap_or_default();
        if let (true, Some(p)) = (
            c.ordinal >= f.control_connections,
            self.progress.get(flow as usize),
        ) {
            let data = |n: u64| n.saturating_sub(f.preamble);
            p.delivered
                .fetch_add(data(c.next) - data(before), Ordering::Relaxed);
        }
    }

    /// In-order bytes of application data delivered so far to `flow`'s
    /// receiver, all its data connections.
    pub fn delivered(&self, flow: u32) -> u64 {
        let f = self.framing.get(flow as usize).copied().unwrap_or_default();
        self.conns
            .range((flow, 0, 0)..=(flow, u16::MAX, u16::MAX))
            .filter(|(_, c)| c.ordinal >= f.control_connections)
            .map(|(_, c)| c.next.saturating_sub(f.preamble))
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

    fn on_conn(io: &mut InOrder, port: u16, seq: u32, len: u32, flags: TcpFlags) {
        let s = Segment {
            src_port: port,
            ..seg(seq, len, flags)
        };
        io.on_segment(0, &s);
    }

    #[test]
    fn iperf3s_control_connection_and_cookie_are_not_data() {
        let mut io = InOrder::new(vec![Framing::IPERF3]);
        // Control first (a higher port: the order is the SYNs').
        on_conn(&mut io, 900, 0, 0, TcpFlags::SYN);
        on_conn(&mut io, 900, 1, 184, TcpFlags::ACK);
        assert_eq!(io.delivered(0), 0);
        on_conn(&mut io, 800, 0, 0, TcpFlags::SYN);
        on_conn(&mut io, 800, 1, 30, TcpFlags::ACK);
        assert_eq!(io.delivered(0), 0, "inside the cookie");
        on_conn(&mut io, 800, 31, 1460, TcpFlags::ACK);
        assert_eq!(io.delivered(0), 1490 - 37);
        // Other threads see the data connection and its count.
        let p = io.progress();
        assert_eq!(p[0].data_port.load(Ordering::Relaxed), 800);
        assert_eq!(p[0].delivered.load(Ordering::Relaxed), 1490 - 37);
        // A SYN seen again does not open a connection again.
        on_conn(&mut io, 900, 0, 0, TcpFlags::SYN);
        assert_eq!(io.delivered(0), 1490 - 37);
        // Without framing every byte counts.
        let mut plain = InOrder::new(vec![Framing::default()]);
        on_conn(&mut plain, 900, 0, 0, TcpFlags::SYN);
        on_conn(&mut plain, 900, 1, 184, TcpFlags::ACK);
        assert_eq!(plain.delivered(0), 184);
        assert_eq!(plain.progress()[0].data_port.load(Ordering::Relaxed), 900);
    }

    #[test]
    fn offsets_keep_counting_past_2_pow_32() {
        let mut io = InOrder::default();
        io.on_segment(0, &seg(7, 0, TcpFlags::SYN));
        let chunk = 1u32 << 29;
        // Five chunks of 2^29: through 2^31 and 2^32 bytes; one held back
        // behind a gap, then the gap filled.
        let mut seq = SeqNum(8);
        for _ in 0..4 {
            io.on_segment(0, &seg(seq.0, chunk, TcpFlags::ACK));
            seq += chunk;
        }
        io.on_segment(0, &seg((seq + chunk).0, 100, TcpFlags::ACK));
        assert_eq!(io.delivered(0), 4 * u64::from(chunk));
        io.on_segment(0, &seg(seq.0, chunk, TcpFlags::ACK));
        assert_eq!(io.delivered(0), 5 * u64::from(chunk) + 100);
        // A retransmission of delivered bytes is a duplicate.
        io.on_segment(0, &seg(seq.0, 100, TcpFlags::ACK));
        assert_eq!(io.delivered(0), 5 * u64::from(chunk) + 100);
    }

    #[test]
    fn connections_without_a_seen_syn_are_ignored() {
        let mut io = InOrder::default();
        io.on_segment(0, &seg(5, 100, TcpFlags::ACK));
        assert_eq!(io.delivered(0), 0);
    }
}
