//! Real-datagram helpers of the base station: why a datagram is refused,
//! the names of the hop's drops, the stand-in packet of a non-TCP datagram,
//! the router's TTL decrement, and the hosts' addresses.

use std::net::Ipv4Addr;
use xltcp_core::hop::HopDrop;
use xltcp_core::net::link::DropReason;
use xltcp_core::signal::UndeliveredReason;
use xltcp_core::sim::flow::{address, Side};
use xltcp_core::wire::{Packet, PacketMeta, ParseError, Segment};

/// Where delivered datagrams go: the host namespace of `side`.
/// Why a datagram was refused at the base station (never entered a link).
pub fn reject_reason(e: &ParseError) -> &'static str {
    match e {
        ParseError::Truncated { .. } => "truncated",
        ParseError::BadVersion(6) => "ipv6",
        ParseError::BadVersion(_) => "bad_ip_version",
        ParseError::BadIhl(_) => "bad_ihl",
        ParseError::BadTotalLength(_) => "bad_total_length",
        ParseError::Fragmented => "fragment",
        ParseError::NotTcp(_) => "not_tcp",
        ParseError::BadIpChecksum => "bad_ip_checksum",
        ParseError::BadDataOffset(_) => "bad_tcp_data_offset",
        ParseError::BadTcpChecksum => "bad_tcp_checksum",
        ParseError::BadOption { .. } => "bad_tcp_option",
    }
}

/// The name of a reason the simulator's hop dropped a packet for.
pub fn drop_name(why: HopDrop) -> &'static str {
    match why {
        HopDrop::Link(DropReason::QueueFull) => "queue_full",
        HopDrop::Link(DropReason::Loss) => "loss",
        HopDrop::Link(DropReason::Blocked) => "blocked",
        HopDrop::Mac(UndeliveredReason::RetryLimit) => "retry_limit",
        HopDrop::Mac(UndeliveredReason::ChannelAccessFailure) => "channel_access_failure",
        HopDrop::Mac(UndeliveredReason::QueueFull) => "mac_queue_full",
        HopDrop::Mac(UndeliveredReason::FrameTooLong) => "frame_too_long",
        HopDrop::Mac(UndeliveredReason::Flushed) => "flushed_on_retune",
    }
}

/// A compact stand-in for a non-TCP IPv4 datagram: same addresses, same
/// IP length (at least a bare IPv4 + TCP header). The IPv4 header checksum
/// is verified; `None` if it is wrong.
pub(super) fn stand_in(bytes: &[u8]) -> Option<Packet> {
    let ihl = (bytes[0] & 0x0f) as usize * 4;
    if ones_complement_sum(&bytes[..ihl]) != 0xffff {
        return None;
    }
    let addr = |at: usize| Ipv4Addr::new(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
    let total = u16::from_be_bytes([bytes[2], bytes[3]]) as u32;
    Some(Packet {
        src: addr(12),
        dst: addr(16),
        ip_id: u16::from_be_bytes([bytes[4], bytes[5]]),
        ttl: bytes[8],
        tcp: Segment {
            payload_len: total.saturating_sub(40),
            ..Segment::default()
        },
        meta: PacketMeta::default(),
    })
}

pub(super) fn ones_complement_sum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in data.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += word as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// Decrements the IPv4 TTL in place, updating the header checksum
/// incrementally; false (datagram to drop) if the TTL would reach zero.
pub fn decrement_ttl(datagram: &mut [u8]) -> bool {
    let ttl = datagram[8];
    if ttl <= 1 {
        return false;
    }
    // RFC 1812 §5.3.1: a router decrements the TTL by one.
    let old = u16::from_be_bytes([ttl, datagram[9]]);
    let new = u16::from_be_bytes([ttl - 1, datagram[9]]);
    datagram[8] = ttl - 1;
    let check = u16::from_be_bytes([datagram[10], datagram[11]]);
    // RFC 1624 §3: HC' = ~(~HC + ~m + m').
    let mut sum = (!check) as u32 + (!old) as u32 + new as u32;
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    datagram[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    true
}

/// The address of a flow's host (the simulator's plan).
pub fn host_address(side: Side, flow: u32) -> Ipv4Addr {
    address(side, flow)
}

/// The side across the base station from `side`.
pub(super) fn other_side(side: Side) -> Side {
    match side {
        Side::Ch => Side::Sh,
        Side::Sh => Side::Ch,
    }
}
