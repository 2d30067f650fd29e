//! Wire formats: sequence numbers, the compact in-memory packet, real
//! IPv4/TCP bytes with checksums, a checked parser for untrusted bytes, and
//! pcap and pcapng writers.

mod checksum;
mod emit;
mod layout;
mod parse;
mod pcap;
mod pcapng;
mod segment;
mod seq;
mod view;

pub use emit::{emit, emit_len, emit_truncated, payload_byte, MAX_DATAGRAM_LEN};
pub use parse::{fix_checksums, parse, parse_with, ParseError, ParseOptions, ParsedPacket};
pub use pcap::{PcapWriter, FULL_SNAPLEN, LINKTYPE_RAW, MIN_SNAPLEN, PCAP_MAGIC_NANOS};
pub use pcapng::{
    epb_len, Interface, PcapngWriter, PCAPNG_BYTE_ORDER_MAGIC, PCAPNG_EPB, PCAPNG_IDB, PCAPNG_SHB,
};
pub use segment::{
    Packet, PacketMeta, SackBlock, SackBlocks, Segment, TcpFlags, TcpOptions, IPV4_HEADER_LEN,
};
pub use seq::SeqNum;
pub use view::TcpHeaderMut;

#[cfg(test)]
mod oracle;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
