//! Parsing untrusted bytes into a validated [`ParsedPacket`].
//!
//! Input is one IPv4 datagram (pcap LINKTYPE_RAW, or a TUN read without
//! packet information). Every length is checked before it is used; nothing
//! here panics on any input. What the compact [`Packet`] cannot hold is
//! dropped, and said so: IPv4 options, DSCP/ECN, the DF and reserved IPv4
//! flags, the TCP reserved bits and the urgent pointer are not kept (xltcp
//! never sets them, and re-serialises them as zero, DF as set); unknown TCP
//! options are skipped by their length (and counted), SACK blocks beyond
//! what [`TcpOptions::sack_blocks_on_wire`] allows are dropped (and
//! counted), a window scale above 14 is read as 14 (RFC 7323 §2.3). So the
//! parsed value always re-serialises with [`super::emit`] and parses back to
//! itself.

use super::checksum::{ip_checksum_of, tcp_checksum_of};
use super::layout::*;
use super::segment::{
    Packet, PacketMeta, SackBlock, Segment, TcpFlags, TcpOptions, IPV4_HEADER_LEN,
};
use super::seq::SeqNum;
use std::net::Ipv4Addr;

/// Why bytes are not an IPv4/TCP datagram xltcp accepts. Each variant
/// names the field that is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The buffer ends before the IPv4 header (20 bytes, or IHL words) or
    /// before the IPv4 total length does.
    #[error("truncated: {needed} bytes needed, {got} present")]
    Truncated {
        /// Bytes the headers say there are.
        needed: usize,
        /// Bytes in the buffer.
        got: usize,
    },
    /// IPv4 version field is not 4.
    #[error("IP version {0}, expected 4")]
    BadVersion(u8),
    /// IPv4 IHL field is below 5 words.
    #[error("IPv4 IHL {0} words, minimum 5")]
    BadIhl(u8),
    /// IPv4 total length field is shorter than the IPv4 header, or than the
    /// IPv4 header plus a 20-byte TCP header.
    #[error("IPv4 total length {0} too short")]
    BadTotalLength(u16),
    /// IPv4 flags/fragment offset: the datagram is a fragment (MF set or
    /// offset nonzero); xltcp never fragments and does not reassemble.
    #[error("IPv4 fragment")]
    Fragmented,
    /// IPv4 protocol field is not 6 (TCP).
    #[error("IP protocol {0}, expected 6 (TCP)")]
    NotTcp(u8),
    /// IPv4 header checksum field does not match the header.
    #[error("bad IPv4 header checksum")]
    BadIpChecksum,
    /// TCP data offset field is below 5 words or past the end of the segment.
    #[error("TCP data offset {0} words invalid")]
    BadDataOffset(u8),
    /// TCP checksum field does not match the pseudo-header and segment.
    #[error("bad TCP checksum")]
    BadTcpChecksum,
    /// A TCP option of this kind has a missing or wrong length field, or
    /// runs past the end of the TCP header.
    #[error("malformed TCP option kind {kind}")]
    BadOption {
        /// The option's kind byte.
        kind: u8,
    },
}

/// What [`parse`] checks beyond structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Verify the IPv4 header and TCP checksums (turn off for packets a
    /// middlebox has rewritten but not yet fixed, or offloaded captures).
    pub verify_checksums: bool,
}

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions {
            verify_checksums: true,
        }
    }
}

/// A datagram that passed [`parse`]: the [`Packet`] it carries (with
/// `meta` defaulted) and what parsing left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedPacket {
    packet: Packet,
    headers_len: usize,
    skipped_options: u8,
    dropped_sack_blocks: u8,
}

impl ParsedPacket {
    /// The packet; `meta` is `PacketMeta::default()`.
    pub fn packet(&self) -> &Packet {
        &self.packet
    }
    /// The packet, by value.
    pub fn into_packet(self) -> Packet {
        self.packet
    }
    /// Offset of the first payload byte in the parsed buffer (IPv4 header
    /// with its options plus TCP header with its options).
    pub fn payload_offset(&self) -> usize {
        self.headers_len
    }
    /// TCP options of unknown kind that were skipped.
    pub fn skipped_options(&self) -> u8 {
        self.skipped_options
    }
    /// SACK blocks dropped because they would not fit beside the other
    /// options in the canonical layout.
    pub fn dropped_sack_blocks(&self) -> u8 {
        self.dropped_sack_blocks
    }
}

/// Where the headers of a structurally valid datagram are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// IPv4 header length (IHL * 4).
    pub(crate) ip_header_len: usize,
    /// IPv4 total length; bytes past it (link padding) are not part of it.
    pub(crate) total_len: usize,
    /// TCP header length (data offset * 4).
    pub(crate) tcp_header_len: usize,
}

/// Checks the structure of the IPv4 and TCP headers (not the checksums, not
/// the options) and says where they are.
pub(crate) fn locate(bytes: &[u8]) -> Result<Layout, ParseError> {
    let got = bytes.len();
    if got < IPV4_HEADER_LEN {
        return Err(ParseError::Truncated {
            needed: IPV4_HEADER_LEN,
            got,
        });
    }
    let version = bytes[IP_VERSION_IHL] >> 4;
    if version != 4 {
        return Err(ParseError::BadVersion(version));
    }
    let ihl = bytes[IP_VERSION_IHL] & 0x0F;
    if ihl < 5 {
        return Err(ParseError::BadIhl(ihl));
    }
    let ip_header_len = usize::from(ihl) * 4;
    if got < ip_header_len {
        return Err(ParseError::Truncated {
            needed: ip_header_len,
            got,
        });
    }
    let total_field = read_u16(bytes, IP_TOTAL_LEN);
    let total_len = usize::from(total_field);
    if total_len < ip_header_len {
        return Err(ParseError::BadTotalLength(total_field));
    }
    if got < total_len {
        return Err(ParseError::Truncated {
            needed: total_len,
            got,
        });
    }
    let frag = read_u16(bytes, IP_FLAGS_FRAG);
    if frag & IP_FLAG_MF != 0 || frag & IP_FRAG_OFFSET != 0 {
        return Err(ParseError::Fragmented);
    }
    if bytes[IP_PROTOCOL] != PROTO_TCP {
        return Err(ParseError::NotTcp(bytes[IP_PROTOCOL]));
    }
    let tcp_len = total_len - ip_header_len;
    if tcp_len < TCP_MIN_HEADER {
        return Err(ParseError::BadTotalLength(total_field));
    }
    let data_offset = bytes[ip_header_len + TCP_DATA_OFFSET] >> 4;
    let tcp_header_len = usize::from(data_offset) * 4;
    if tcp_header_len < TCP_MIN_HEADER || tcp_header_len > tcp_len {
        return Err(ParseError::BadDataOffset(data_offset));
    }
    Ok(Layout {
        ip_header_len,
        total_len,
        tcp_header_len,
    })
}

/// Parses one IPv4/TCP datagram from untrusted `bytes`, verifying both
/// checksums (trailing bytes past the IPv4 total length are ignored).
pub fn parse(bytes: &[u8]) -> Result<ParsedPacket, ParseError> {
    parse_with(bytes, ParseOptions::default())
}

/// Whether a checksum field holds the computed value. In one's-complement
/// arithmetic 0x0000 and 0xFFFF are both zero (RFC 1071 §2), and senders
/// (Linux among them) write either.
fn same_checksum(computed: u16, field: u16) -> bool {
    computed == field || (computed | field == 0xFFFF && (computed == 0 || field == 0))
}

/// [`parse`] with a choice of what to verify.
pub fn parse_with(bytes: &[u8], opts: ParseOptions) -> Result<ParsedPacket, ParseError> {
    let layout = locate(bytes)?;
    let datagram = &bytes[..layout.total_len];
    let ip = &datagram[..layout.ip_header_len];
    if opts.verify_checksums {
        // RFC 791 §3.1: the header checksum covers the header only.
        if !same_checksum(ip_checksum_of(ip), read_u16(ip, IP_CHECKSUM)) {
            return Err(ParseError::BadIpChecksum);
        }
        // RFC 9293 §3.1: pseudo-header, TCP header and payload.
        let tcp = &datagram[layout.ip_header_len..];
        let computed = tcp_checksum_of(datagram, layout.ip_header_len);
        if !same_checksum(computed, read_u16(tcp, TCP_CHECKSUM)) {
            return Err(ParseError::BadTcpChecksum);
        }
    }
    let tcp_start = layout.ip_header_len;
    let tcp = &datagram[tcp_start..tcp_start + layout.tcp_header_len];
    let mut found = FoundOptions::default();
    parse_options(&tcp[TCP_MIN_HEADER..], &mut found)?;
    let payload_len = (layout.total_len - tcp_start - layout.tcp_header_len) as u32;
    let segment = Segment {
        src_port: read_u16(tcp, TCP_SRC_PORT),
        dst_port: read_u16(tcp, TCP_DST_PORT),
        seq: SeqNum(read_u32(tcp, TCP_SEQ)),
        ack: SeqNum(read_u32(tcp, TCP_ACK)),
        flags: TcpFlags(tcp[TCP_FLAGS]),
        window: read_u16(tcp, TCP_WINDOW),
        options: found.options,
        payload_len,
    };
    let packet = Packet {
        src: Ipv4Addr::from(read_u32(ip, IP_SRC)),
        dst: Ipv4Addr::from(read_u32(ip, IP_DST)),
        ip_id: read_u16(ip, IP_ID),
        ttl: ip[IP_TTL],
        tcp: segment,
        meta: PacketMeta::default(),
    };
    Ok(ParsedPacket {
        packet,
        headers_len: tcp_start + layout.tcp_header_len,
        skipped_options: found.skipped,
        dropped_sack_blocks: found.dropped_sack_blocks,
    })
}

#[derive(Default)]
struct FoundOptions {
    options: TcpOptions,
    skipped: u8,
    dropped_sack_blocks: u8,
}

/// The largest window scale shift (RFC 7323 §2.3).
const MAX_WINDOW_SCALE: u8 = 14;

/// Reads the TCP options area (RFC 9293 §3.1). A later option of a kind
/// already seen replaces the earlier one; SACK blocks of several options
/// accumulate.
fn parse_options(mut area: &[u8], found: &mut FoundOptions) -> Result<(), ParseError> {
    while let Some(&kind) = area.first() {
        match kind {
            OPT_EOL => break,
            OPT_NOP => {
                area = &area[1..];
                continue;
            }
            _ => {}
        }
        // Every other kind has a length byte covering kind and length.
        let len = match area.get(1) {
            Some(&len) if len >= 2 && usize::from(len) <= area.len() => usize::from(len),
            _ => return Err(ParseError::BadOption { kind }),
        };
        let body = &area[2..len];
        read_option(kind, body, found)?;
        area = &area[len..];
    }
    // Keep the canonical layout within 40 bytes: drop the oldest SACK blocks.
    let o = &mut found.options;
    let fit = o.sack_blocks_on_wire();
    found.dropped_sack_blocks = found
        .dropped_sack_blocks
        .saturating_add((o.sack.len() - fit) as u8);
    o.sack.truncate(fit);
    Ok(())
}

fn read_option(kind: u8, body: &[u8], found: &mut FoundOptions) -> Result<(), ParseError> {
    let bad = ParseError::BadOption { kind };
    let o = &mut found.options;
    match kind {
        OPT_MSS => match body {
            [hi, lo] => o.mss = Some(u16::from_be_bytes([*hi, *lo])),
            _ => return Err(bad),
        },
        OPT_WS => match body {
            // RFC 7323 §2.3: a shift above 14 is used as 14.
            [shift] => o.window_scale = Some((*shift).min(MAX_WINDOW_SCALE)),
            _ => return Err(bad),
        },
        OPT_SACK_PERMITTED => match body {
            [] => o.sack_permitted = true,
            _ => return Err(bad),
        },
        OPT_TIMESTAMPS => match body {
            [a, b, c, d, e, f, g, h] => {
                let tsval = u32::from_be_bytes([*a, *b, *c, *d]);
                let tsecr = u32::from_be_bytes([*e, *f, *g, *h]);
                o.timestamps = Some((tsval, tsecr));
            }
            _ => return Err(bad),
        },
        OPT_SACK => {
            // RFC 2018 §3: length 2 + 8n with 1 <= n <= 4 (40 option bytes).
            if !matches!(body.len(), 8 | 16 | 24 | 32) {
                return Err(bad);
            }
            for b in body.chunks_exact(8) {
                let block = SackBlock {
                    left: SeqNum(read_u32(b, 0)),
                    right: SeqNum(read_u32(b, 4)),
                };
                if !o.sack.push(block) {
                    found.dropped_sack_blocks = found.dropped_sack_blocks.saturating_add(1);
                }
            }
        }
        _ => found.skipped = found.skipped.saturating_add(1),
    }
    Ok(())
}

/// Recomputes the IPv4 header checksum and the TCP checksum of the datagram
/// in `bytes` in place, after fields were rewritten. The headers must be
/// structurally valid (as [`parse`] checks, without checksums).
pub fn fix_checksums(bytes: &mut [u8]) -> Result<(), ParseError> {
    let layout = locate(bytes)?;
    let ip_len = layout.ip_header_len;
    let ip_check = ip_checksum_of(&bytes[..ip_len]);
    bytes[IP_CHECKSUM..IP_CHECKSUM + 2].copy_from_slice(&ip_check.to_be_bytes());
    let datagram = &mut bytes[..layout.total_len];
    let tcp_check = tcp_checksum_of(datagram, ip_len);
    let at = ip_len + TCP_CHECKSUM;
    datagram[at..at + 2].copy_from_slice(&tcp_check.to_be_bytes());
    Ok(())
}
