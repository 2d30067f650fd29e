//! Wire formats: sequence numbers, the compact in-memory packet, real
//! IPv4/TCP bytes with checksums, a checked parser for untrusted bytes, and
//! a pcap writer.

mod seq;
mod segment;

pub use seq::SeqNum;
pub use segment::{
    Packet, PacketMeta, SackBlock, SackBlocks, Segment, TcpFlags, TcpOptions, IPV4_HEADER_LEN,
};
