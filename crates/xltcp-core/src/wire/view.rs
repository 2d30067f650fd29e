//! A checked, in-place view of the TCP header fields a middlebox rewrites.
//!
//! The emulator's schemes change the advertised window (to freeze or clamp
//! a sender) and sometimes the acknowledgment number of real packets. The
//! setters keep the TCP checksum valid with the incremental update of
//! RFC 1624, so a rewrite costs a few additions, not a pass over the payload.

use super::checksum;
use super::layout::*;
use super::parse::{locate, ParseError};
use super::segment::TcpFlags;
use super::seq::SeqNum;

/// The TCP header inside a real IPv4 datagram, readable and partly
/// writable in place. Built only by [`TcpHeaderMut::new_checked`], which
/// validates the IPv4 and TCP header structure (not the checksums).
#[derive(Debug)]
pub struct TcpHeaderMut<'a> {
    /// The TCP header (without options).
    header: &'a mut [u8],
}

impl<'a> TcpHeaderMut<'a> {
    /// Checks that `datagram` holds an unfragmented IPv4/TCP datagram with
    /// consistent lengths, and views its TCP header.
    pub fn new_checked(datagram: &'a mut [u8]) -> Result<TcpHeaderMut<'a>, ParseError> {
        let layout = locate(datagram)?;
        let start = layout.ip_header_len;
        Ok(TcpHeaderMut {
            header: &mut datagram[start..start + TCP_MIN_HEADER],
        })
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        read_u16(self.header, TCP_SRC_PORT)
    }
    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        read_u16(self.header, TCP_DST_PORT)
    }
    /// Sequence number.
    pub fn seq(&self) -> SeqNum {
        SeqNum(read_u32(self.header, TCP_SEQ))
    }
    /// Acknowledgment number.
    pub fn ack(&self) -> SeqNum {
        SeqNum(read_u32(self.header, TCP_ACK))
    }
    /// Control flags.
    pub fn flags(&self) -> TcpFlags {
        TcpFlags(self.header[TCP_FLAGS])
    }
    /// The window field as on the wire (unscaled).
    pub fn window(&self) -> u16 {
        read_u16(self.header, TCP_WINDOW)
    }
    /// The checksum field.
    pub fn checksum(&self) -> u16 {
        read_u16(self.header, TCP_CHECKSUM)
    }

    /// Writes the window field and updates the checksum to match.
    pub fn set_window(&mut self, window: u16) {
        self.set_word(TCP_WINDOW, window);
    }

    /// Writes the acknowledgment number and updates the checksum to match.
    pub fn set_ack(&mut self, ack: SeqNum) {
        let [a, b, c, d] = ack.0.to_be_bytes();
        self.set_word(TCP_ACK, u16::from_be_bytes([a, b]));
        self.set_word(TCP_ACK + 2, u16::from_be_bytes([c, d]));
    }

    /// Replaces the 16-bit word at `at` (an even offset in the header).
    fn set_word(&mut self, at: usize, new: u16) {
        let old = read_u16(self.header, at);
        // RFC 1624 §3: HC' = ~(~HC + ~m + m').
        let check = checksum::update(self.checksum(), old, new);
        self.header[at..at + 2].copy_from_slice(&new.to_be_bytes());
        self.header[TCP_CHECKSUM..TCP_CHECKSUM + 2].copy_from_slice(&check.to_be_bytes());
    }
}
