//! Byte offsets of the IPv4 (RFC 791 §3.1) and TCP (RFC 9293 §3.1) header
//! fields, and the option kinds xltcp knows. Offsets are relative to the
//! start of their header.

/// IPv4: version (high nibble) and IHL (low nibble, 32-bit words).
pub(crate) const IP_VERSION_IHL: usize = 0;
/// IPv4: DSCP and ECN.
pub(crate) const IP_TOS: usize = 1;
/// IPv4: total length of the datagram.
pub(crate) const IP_TOTAL_LEN: usize = 2;
/// IPv4: identification.
pub(crate) const IP_ID: usize = 4;
/// IPv4: flags (3 bits) and fragment offset (13 bits).
pub(crate) const IP_FLAGS_FRAG: usize = 6;
/// IPv4: time to live.
pub(crate) const IP_TTL: usize = 8;
/// IPv4: protocol of the payload.
pub(crate) const IP_PROTOCOL: usize = 9;
/// IPv4: header checksum.
pub(crate) const IP_CHECKSUM: usize = 10;
/// IPv4: source address.
pub(crate) const IP_SRC: usize = 12;
/// IPv4: destination address.
pub(crate) const IP_DST: usize = 16;

/// IPv4 flag bit: don't fragment.
pub(crate) const IP_FLAG_DF: u16 = 0x4000;
/// IPv4 flag bit: more fragments.
pub(crate) const IP_FLAG_MF: u16 = 0x2000;
/// IPv4 fragment offset mask.
pub(crate) const IP_FRAG_OFFSET: u16 = 0x1FFF;
/// IPv4 protocol number of TCP.
pub(crate) const PROTO_TCP: u8 = 6;
/// TCP: source port.
pub(crate) const TCP_SRC_PORT: usize = 0;
/// TCP: destination port.
pub(crate) const TCP_DST_PORT: usize = 2;
/// TCP: sequence number.
pub(crate) const TCP_SEQ: usize = 4;
/// TCP: acknowledgment number.
pub(crate) const TCP_ACK: usize = 8;
/// TCP: data offset (high nibble) and reserved bits.
pub(crate) const TCP_DATA_OFFSET: usize = 12;
/// TCP: control flags.
pub(crate) const TCP_FLAGS: usize = 13;
/// TCP: window.
pub(crate) const TCP_WINDOW: usize = 14;
/// TCP: checksum.
pub(crate) const TCP_CHECKSUM: usize = 16;
/// TCP: bytes of a header without options.
pub(crate) const TCP_MIN_HEADER: usize = 20;

/// Option kind: end of option list.
pub(crate) const OPT_EOL: u8 = 0;
/// Option kind: no-operation (padding).
pub(crate) const OPT_NOP: u8 = 1;
/// Option kind: maximum segment size (length 4).
pub(crate) const OPT_MSS: u8 = 2;
/// Option kind: window scale (length 3).
pub(crate) const OPT_WS: u8 = 3;
/// Option kind: SACK permitted (length 2).
pub(crate) const OPT_SACK_PERMITTED: u8 = 4;
/// Option kind: SACK (length 2 + 8n).
pub(crate) const OPT_SACK: u8 = 5;
/// Option kind: timestamps (length 10).
pub(crate) const OPT_TIMESTAMPS: u8 = 8;

/// Reads a big-endian u16 at `at`; the caller has checked the bounds.
pub(crate) fn read_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Reads a big-endian u32 at `at`; the caller has checked the bounds.
pub(crate) fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
