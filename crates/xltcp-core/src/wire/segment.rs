//! The compact in-memory packet: header fields and lengths, no payload bytes.
//!
//! This is what TCP endpoints, links and schemes pass around in the
//! simulator. It is `Copy` and heap-free so that a packet event costs no
//! allocation. [`crate::wire`] turns it into real IPv4/TCP bytes (with a
//! deterministic payload pattern) and parses real bytes back.

use super::seq::SeqNum;
use std::net::Ipv4Addr;

/// TCP control flags (RFC 9293 §3.1). Bit values are those of the header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// No more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    /// Synchronise sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x02);
    /// Reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x04);
    /// Push function.
    pub const PSH: TcpFlags = TcpFlags(0x08);
    /// Acknowledgment field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// Urgent pointer field is significant (never set by xltcp).
    pub const URG: TcpFlags = TcpFlags(0x20);
    /// ECN-Echo (RFC 3168).
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// Congestion Window Reduced (RFC 3168).
    pub const CWR: TcpFlags = TcpFlags(0x80);

    /// True if every flag of `other` is set in `self`.
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// Whether SYN is set.
    pub const fn syn(self) -> bool {
        self.contains(Self::SYN)
    }
    /// Whether FIN is set.
    pub const fn fin(self) -> bool {
        self.contains(Self::FIN)
    }
    /// Whether ACK is set.
    pub const fn ack(self) -> bool {
        self.contains(Self::ACK)
    }
    /// Whether RST is set.
    pub const fn rst(self) -> bool {
        self.contains(Self::RST)
    }
    /// Whether PSH is set.
    pub const fn psh(self) -> bool {
        self.contains(Self::PSH)
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, o: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | o.0)
    }
}
impl std::ops::BitOrAssign for TcpFlags {
    fn bitor_assign(&mut self, o: TcpFlags) {
        self.0 |= o.0;
    }
}

/// One SACK block (RFC 2018 §3): `[left, right)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SackBlock {
    /// First sequence number of the block.
    pub left: SeqNum,
    /// Sequence number just after the last byte of the block.
    pub right: SeqNum,
}

/// Up to four SACK blocks, without heap allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SackBlocks {
    blocks: [SackBlock; 4],
    len: u8,
}

impl SackBlocks {
    /// The most blocks a TCP header can carry (40 B of options).
    pub const MAX: usize = 4;

    /// No blocks.
    pub const fn new() -> SackBlocks {
        SackBlocks {
            blocks: [SackBlock {
                left: SeqNum(0),
                right: SeqNum(0),
            }; 4],
            len: 0,
        }
    }
    /// Appends a block; returns false (and drops it) when four are held.
    pub fn push(&mut self, b: SackBlock) -> bool {
        if (self.len as usize) < Self::MAX {
            self.blocks[self.len as usize] = b;
            self.len += 1;
            true
        } else {
            false
        }
    }
    /// The blocks, first (most recent) first.
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..self.len as usize]
    }
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Keeps only the first `n` blocks. The freed slots are cleared so that
    /// the derived equality and hash see only the blocks held.
    pub fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n.min(Self::MAX) as u8);
        self.blocks[self.len as usize..].fill(SackBlock::default());
    }
}

/// TCP options xltcp understands (RFC 9293 MSS, RFC 7323 WS and TS, RFC 2018 SACK).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpOptions {
    /// Maximum segment size (kind 2), SYN only.
    pub mss: Option<u16>,
    /// Window scale shift count (kind 3), SYN only, 0..=14.
    pub window_scale: Option<u8>,
    /// SACK-permitted (kind 4), SYN only.
    pub sack_permitted: bool,
    /// SACK blocks (kind 5).
    pub sack: SackBlocks,
    /// Timestamps (kind 8): (TSval, TSecr).
    pub timestamps: Option<(u32, u32)>,
}

impl TcpOptions {
    /// The most option bytes a TCP header can hold (data offset 15 words).
    pub const MAX_WIRE_LEN: usize = 40;

    /// Bytes these options take in a header, padded to a multiple of 4,
    /// laid out as [`crate::wire`] serialises them. Never more than
    /// [`Self::MAX_WIRE_LEN`]: see [`Self::sack_blocks_on_wire`].
    pub fn wire_len(&self) -> usize {
        let n = self.sack_blocks_on_wire();
        let sack = if n > 0 { 4 + 8 * n } else { 0 }; // NOP NOP + 2 + 8n
        (self.wire_len_without_sack() + sack).div_ceil(4) * 4
    }

    /// How many SACK blocks (the first, most recent ones) fit beside the
    /// other options in [`Self::MAX_WIRE_LEN`] bytes; serialisation sends
    /// only these. RFC 2018 §3: with timestamps at most three blocks fit.
    pub fn sack_blocks_on_wire(&self) -> usize {
        let room = Self::MAX_WIRE_LEN
            .saturating_sub(self.wire_len_without_sack())
            .saturating_sub(4);
        self.sack.len().min(room / 8)
    }

    fn wire_len_without_sack(&self) -> usize {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.window_scale.is_some() {
            n += 4; // NOP + 3
        }
        if self.sack_permitted {
            n += 4; // NOP NOP + 2
        }
        if self.timestamps.is_some() {
            n += 12; // NOP NOP + 10
        }
        n
    }
}

/// A TCP segment's header fields and payload length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Segment {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number of the first payload byte (or of the SYN/FIN).
    pub seq: SeqNum,
    /// Acknowledgment number (meaningful when ACK is set).
    pub ack: SeqNum,
    /// Control flags.
    pub flags: TcpFlags,
    /// The 16-bit window field as it is on the wire (unscaled).
    pub window: u16,
    /// Options.
    pub options: TcpOptions,
    /// Payload bytes carried (no payload bytes are stored).
    pub payload_len: u32,
}

impl Segment {
    /// Sequence space the segment occupies: payload plus one for SYN and for FIN.
    pub fn seq_len(&self) -> u32 {
        self.payload_len + self.flags.syn() as u32 + self.flags.fin() as u32
    }
    /// TCP header length in bytes (20 + options).
    pub fn header_len(&self) -> usize {
        20 + self.options.wire_len()
    }
}

/// Bytes of an IPv4 header without options.
pub const IPV4_HEADER_LEN: usize = 20;

/// An IPv4 datagram carrying one TCP segment, plus simulation bookkeeping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packet {
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// IPv4 identification field.
    pub ip_id: u16,
    /// Time to live.
    pub ttl: u8,
    /// The TCP segment.
    pub tcp: Segment,
    /// Bookkeeping that is not on the wire: which flow it belongs to,
    /// a run-unique id for accounting, and whether the sender marked it as a
    /// retransmission.
    pub meta: PacketMeta,
}

/// Simulation bookkeeping carried with a packet (never serialised).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PacketMeta {
    /// Index of the flow in the scenario.
    pub flow: u32,
    /// Run-unique packet id (assigned when the packet enters the network).
    pub uid: u64,
    /// The sender transmitted this sequence range before.
    pub retransmission: bool,
    /// Made by an agent in the network (a loss report, a BS-made ACK), not
    /// by the TCP endpoint whose address it carries.
    pub forged: bool,
    /// Which of the node's interfaces (the scenario's hops, in order) the
    /// packet takes onto the air, or came in on: 0 (the first hop) unless
    /// an agent picks another.
    pub iface: u8,
    /// Bytes a layer below IP adds to this packet's frame on the air (the
    /// UCL's security header and tag); the hop's airtime counts them. 0
    /// off the air and without such a layer.
    pub link_overhead: u16,
    /// The handle of the frame bytes a layer below IP carries for this
    /// packet across the air (the UCL's sealed frame, kept beside the
    /// packet since the simulator's packets hold no bytes); 0: none.
    pub link_frame: u32,
}

impl Packet {
    /// A pure ACK an agent makes up in the name of `data`'s receiver: from
    /// `data`'s destination address and port back to its source, TTL 64,
    /// in `data`'s flow, marked `forged`, no payload.
    pub fn forged_ack(
        data: &Packet,
        ip_id: u16,
        seq: SeqNum,
        ack: SeqNum,
        window: u16,
        options: TcpOptions,
    ) -> Packet {
        Packet {
            src: data.dst,
            dst: data.src,
            ip_id,
            ttl: 64,
            tcp: Segment {
                src_port: data.tcp.dst_port,
                dst_port: data.tcp.src_port,
                seq,
                ack,
                flags: TcpFlags::ACK,
                window,
                options,
                payload_len: 0,
            },
            meta: PacketMeta {
                flow: data.meta.flow,
                forged: true,
                ..PacketMeta::default()
            },
        }
    }

    /// Total IPv4 datagram length in bytes.
    pub fn ip_len(&self) -> usize {
        IPV4_HEADER_LEN + self.tcp.header_len() + self.tcp.payload_len as usize
    }

    /// Bytes the packet's frame carries above the MAC on the air: the IP
    /// datagram and [`PacketMeta::link_overhead`].
    pub fn air_len(&self) -> usize {
        self.ip_len() + usize::from(self.meta.link_overhead)
    }
}
