//! Serialising a [`Packet`] to real IPv4/TCP bytes.
//!
//! The in-memory packet stores no payload, only its length, so the payload
//! is a deterministic pattern: the byte at absolute sequence number `s` is
//! [`payload_byte`]`(s)`. A retransmission therefore carries the same bytes
//! as the original, and a capture reads as one consistent byte stream.
//!
//! Layout (what [`TcpOptions::wire_len`] counts): IPv4 header without
//! options (DF set, DSCP/ECN zero); TCP options in the order MSS (kind 2),
//! NOP + window scale (kind 3), NOP NOP + SACK-permitted (kind 4), NOP NOP +
//! timestamps (kind 8), NOP NOP + SACK (kind 5), each already 32-bit aligned
//! so no end-of-list padding is needed.

use super::checksum;
use super::layout::*;
use super::segment::{Packet, TcpOptions, IPV4_HEADER_LEN};
use super::seq::SeqNum;

/// The largest IPv4 datagram (the total length field is 16 bits).
pub const MAX_DATAGRAM_LEN: usize = u16::MAX as usize;

/// The payload byte at absolute sequence number `seq`: a fixed function of
/// `seq` alone (a multiplicative hash, so runs do not repeat every 256
/// bytes), always below 0x80. Seven bits because Wireshark's heuristic
/// dissectors otherwise take some segments for an application protocol:
/// Thrift claims a payload whose fifth byte is 0x82 (its compact protocol
/// id behind a frame length), which one segment in a thousand of an 8-bit
/// pattern has.
pub fn payload_byte(seq: SeqNum) -> u8 {
    (seq.0.wrapping_mul(0x9E37_79B1) >> 25) as u8
}

/// Bytes [`emit`] appends for `packet`: the IPv4 total length.
pub fn emit_len(packet: &Packet) -> usize {
    packet.ip_len()
}

/// Appends the IPv4 datagram for `packet` to `buf`: headers with valid
/// checksums and `payload_len` pattern bytes. `packet.meta` is not written.
///
/// # Panics
/// If the datagram would exceed [`MAX_DATAGRAM_LEN`] bytes: a packet that
/// large cannot exist on the wire, so building one is a caller bug.
pub fn emit(packet: &Packet, buf: &mut Vec<u8>) {
    let total = emit_len(packet);
    assert!(
        total <= MAX_DATAGRAM_LEN,
        "IPv4 datagram of {total} bytes exceeds {MAX_DATAGRAM_LEN}"
    );
    let start = buf.len();
    buf.reserve(total);
    write_ipv4_header(packet, total as u16, buf);
    let tcp_start = buf.len();
    write_tcp_header(packet, buf);
    write_payload(packet, buf);
    debug_assert_eq!(buf.len() - start, total);

    let tcp_len = (total - IPV4_HEADER_LEN) as u16;
    let sum =
        checksum::tcp_pseudo_header(packet.src, packet.dst, tcp_len).add_bytes(&buf[tcp_start..]);
    let at = tcp_start + TCP_CHECKSUM;
    buf[at..at + 2].copy_from_slice(&sum.checksum().to_be_bytes());
}

/// Appends at most `snaplen` bytes of the datagram for `packet`, as a
/// capture with that snapshot length holds it: the headers are always
/// whole (even past `snaplen`), the payload is cut. Checksums are those of
/// the full datagram, so a reader that knows the original length sees them
/// valid. Returns the number of bytes appended.
pub fn emit_truncated(packet: &Packet, snaplen: usize, buf: &mut Vec<u8>) -> usize {
    let start = buf.len();
    emit(packet, buf);
    let headers = IPV4_HEADER_LEN + packet.tcp.header_len();
    let keep = snaplen.max(headers).min(buf.len() - start);
    buf.truncate(start + keep);
    keep
}

fn write_ipv4_header(packet: &Packet, total: u16, buf: &mut Vec<u8>) {
    let start = buf.len();
    let mut h = [0u8; IPV4_HEADER_LEN];
    // RFC 791 §3.1: version 4, IHL 5 words (no options).
    h[IP_VERSION_IHL] = 0x45;
    h[IP_TOS] = 0;
    h[IP_TOTAL_LEN..IP_TOTAL_LEN + 2].copy_from_slice(&total.to_be_bytes());
    h[IP_ID..IP_ID + 2].copy_from_slice(&packet.ip_id.to_be_bytes());
    h[IP_FLAGS_FRAG..IP_FLAGS_FRAG + 2].copy_from_slice(&IP_FLAG_DF.to_be_bytes());
    h[IP_TTL] = packet.ttl;
    h[IP_PROTOCOL] = PROTO_TCP;
    h[IP_SRC..IP_SRC + 4].copy_from_slice(&packet.src.octets());
    h[IP_DST..IP_DST + 4].copy_from_slice(&packet.dst.octets());
    let check = checksum::checksum(&h);
    h[IP_CHECKSUM..IP_CHECKSUM + 2].copy_from_slice(&check.to_be_bytes());
    buf.extend_from_slice(&h);
    debug_assert_eq!(buf.len() - start, IPV4_HEADER_LEN);
}

fn write_tcp_header(packet: &Packet, buf: &mut Vec<u8>) {
    let seg = &packet.tcp;
    let header_len = seg.header_len();
    let mut h = [0u8; TCP_MIN_HEADER];
    h[TCP_SRC_PORT..TCP_SRC_PORT + 2].copy_from_slice(&seg.src_port.to_be_bytes());
    h[TCP_DST_PORT..TCP_DST_PORT + 2].copy_from_slice(&seg.dst_port.to_be_bytes());
    h[TCP_SEQ..TCP_SEQ + 4].copy_from_slice(&seg.seq.0.to_be_bytes());
    h[TCP_ACK..TCP_ACK + 4].copy_from_slice(&seg.ack.0.to_be_bytes());
    // RFC 9293 §3.1: data offset in 32-bit words; reserved bits zero.
    h[TCP_DATA_OFFSET] = ((header_len / 4) as u8) << 4;
    h[TCP_FLAGS] = seg.flags.0;
    h[TCP_WINDOW..TCP_WINDOW + 2].copy_from_slice(&seg.window.to_be_bytes());
    // Checksum (filled in last) and urgent pointer stay zero.
    buf.extend_from_slice(&h);
    let opts_start = buf.len();
    write_options(&seg.options, buf);
    debug_assert_eq!(buf.len() - opts_start, seg.options.wire_len());
}

fn write_options(o: &TcpOptions, buf: &mut Vec<u8>) {
    if let Some(mss) = o.mss {
        // RFC 9293 §3.2: kind 2, length 4.
        let [hi, lo] = mss.to_be_bytes();
        buf.extend_from_slice(&[OPT_MSS, 4, hi, lo]);
    }
    if let Some(shift) = o.window_scale {
        // RFC 7323 §2.2: kind 3, length 3; one NOP keeps alignment.
        buf.extend_from_slice(&[OPT_NOP, OPT_WS, 3, shift]);
    }
    if o.sack_permitted {
        // RFC 2018 §2: kind 4, length 2.
        buf.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK_PERMITTED, 2]);
    }
    if let Some((tsval, tsecr)) = o.timestamps {
        // RFC 7323 §3.2 and Appendix A: NOP NOP, kind 8, length 10.
        buf.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_TIMESTAMPS, 10]);
        buf.extend_from_slice(&tsval.to_be_bytes());
        buf.extend_from_slice(&tsecr.to_be_bytes());
    }
    let n = o.sack_blocks_on_wire();
    if n > 0 {
        // RFC 2018 §3: kind 5, length 2 + 8n; only the blocks that fit.
        buf.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK, (2 + 8 * n) as u8]);
        for b in &o.sack.as_slice()[..n] {
            buf.extend_from_slice(&b.left.0.to_be_bytes());
            buf.extend_from_slice(&b.right.0.to_be_bytes());
        }
    }
}

fn write_payload(packet: &Packet, buf: &mut Vec<u8>) {
    let seg = &packet.tcp;
    // The first payload byte follows the SYN, which takes one sequence number.
    let first = seg.seq + u32::from(seg.flags.syn());
    buf.extend((0..seg.payload_len).map(|i| payload_byte(first + i)));
}
