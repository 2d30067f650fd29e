//! A pcapng file writer: named capture points, nanosecond timestamps and
//! per-packet comments.
//!
//! Format (the pcapng specification, draft-ietf-opsawg-pcapng), written
//! little-endian: one Section Header Block, then one Interface Description
//! Block per capture point (its link type, snapshot length, `if_name`,
//! `if_description` and `if_tsresol` = 9, i.e. timestamps in nanoseconds),
//! then one Enhanced Packet Block per record, naming its interface and
//! optionally carrying an `opt_comment` (Wireshark shows it as the packet's
//! comment; xltcp writes a drop's reason there). Interfaces may be added
//! between records.
//!
//! Written here rather than through a pcap crate because the subset is
//! small (three block kinds) and the per-record path must not allocate: a
//! record is serialised into one reused buffer.

use super::emit::{emit_len, emit_truncated};
use super::segment::Packet;
use crate::time::Time;
use std::io::{self, Write};

/// Block type of the Section Header Block.
pub const PCAPNG_SHB: u32 = 0x0A0D_0D0A;
/// Block type of the Interface Description Block.
pub const PCAPNG_IDB: u32 = 1;
/// Block type of the Enhanced Packet Block.
pub const PCAPNG_EPB: u32 = 6;
/// The byte-order magic of a Section Header Block.
pub const PCAPNG_BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;

/// Option codes used here.
const OPT_ENDOFOPT: u16 = 0;
const OPT_COMMENT: u16 = 1;
const IF_NAME: u16 = 2;
const IF_DESCRIPTION: u16 = 3;
const IF_TSRESOL: u16 = 9;

/// Fixed bytes of an Enhanced Packet Block around its data and options:
/// type, length, interface, two timestamp words, two lengths, trailing length.
const EPB_FIXED: usize = 32;

/// One capture point of a file: an interface of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interface(pub u32);

/// Writes a pcapng stream. One internal buffer is reused, so after the
/// first packets no record allocates.
#[derive(Debug)]
pub struct PcapngWriter<W: Write> {
    out: W,
    /// Snapshot length of each interface, by interface id.
    snaplens: Vec<u32>,
    buf: Vec<u8>,
}

/// Bytes an option takes: code, length, value padded to 32 bits.
fn option_len(value_len: usize) -> usize {
    4 + pad4(value_len)
}

fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// Bytes of an Enhanced Packet Block holding `captured` bytes and, if
/// any, a comment of `comment` bytes (the output budget charges this).
pub fn epb_len(captured: usize, comment: Option<usize>) -> usize {
    EPB_FIXED + pad4(captured) + comment.map_or(0, |c| option_len(c) + 4)
}

impl<W: Write> PcapngWriter<W> {
    /// Writes the Section Header Block and returns the writer (no
    /// interfaces yet: add them with [`PcapngWriter::add_interface`]).
    pub fn new(mut out: W) -> io::Result<PcapngWriter<W>> {
        let mut b = Vec::with_capacity(28);
        b.extend_from_slice(&PCAPNG_SHB.to_le_bytes());
        b.extend_from_slice(&28u32.to_le_bytes());
        b.extend_from_slice(&PCAPNG_BYTE_ORDER_MAGIC.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes()); // major version
        b.extend_from_slice(&0u16.to_le_bytes()); // minor version
        b.extend_from_slice(&(-1i64).to_le_bytes()); // section length: unknown
        b.extend_from_slice(&28u32.to_le_bytes());
        out.write_all(&b)?;
        Ok(PcapngWriter {
            out,
            snaplens: Vec::new(),
            buf: Vec::with_capacity(FULL_SNAPLEN_HINT),
        })
    }

    /// Declares a capture point: an Interface Description Block of
    /// `link_type` whose records hold at most `snaplen` bytes, named `name`
    /// (`if_name`) and described by `description`, with nanosecond
    /// timestamps. Returns its id for [`PcapngWriter::write_packet`] and
    /// the other record calls.
    pub fn add_interface(
        &mut self,
        name: &str,
        description: &str,
        link_type: u16,
        snaplen: u32,
    ) -> io::Result<Interface> {
        let mut b = Vec::with_capacity(64 + name.len() + description.len());
        b.extend_from_slice(&PCAPNG_IDB.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes()); // length, set below
        b.extend_from_slice(&link_type.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes()); // reserved
        b.extend_from_slice(&snaplen.to_le_bytes());
        push_option(&mut b, IF_NAME, name.as_bytes());
        push_option(&mut b, IF_DESCRIPTION, description.as_bytes());
        push_option(&mut b, IF_TSRESOL, &[9]);
        push_option(&mut b, OPT_ENDOFOPT, &[]);
        let len = (b.len() + 4) as u32;
        b[4..8].copy_from_slice(&len.to_le_bytes());
        b.extend_from_slice(&len.to_le_bytes());
        self.out.write_all(&b)?;
        self.snaplens.push(snaplen);
        Ok(Interface(self.snaplens.len() as u32 - 1))
    }

    /// The snapshot length of `iface`.
    pub fn snaplen(&self, iface: Interface) -> u32 {
        self.snaplens[iface.0 as usize]
    }

    /// Writes `packet` as real bytes on `iface`, captured at `t`, cut to
    /// the interface's snapshot length (headers always whole, checksums
    /// those of the full datagram), with `comment` if given. Returns the
    /// bytes written.
    pub fn write_packet(
        &mut self,
        iface: Interface,
        t: Time,
        packet: &Packet,
        comment: Option<&str>,
    ) -> io::Result<usize> {
        let snaplen = self.snaplen(iface) as usize;
        let whole = emit_len(packet);
        self.begin(iface, t);
        let start = self.buf.len();
        emit_truncated(packet, snaplen, &mut self.buf);
        let captured = self.buf.len() - start;
        self.finish(captured, whole, comment)
    }

    /// Writes a record already cut by the caller: `data` captured at `t`
    /// from a frame of `whole` bytes (cut again to the snapshot length).
    /// Returns the bytes written.
    pub fn write_frame(
        &mut self,
        iface: Interface,
        t: Time,
        data: &[u8],
        whole: usize,
        comment: Option<&str>,
    ) -> io::Result<usize> {
        let keep = data.len().min(self.snaplen(iface) as usize);
        self.begin(iface, t);
        self.buf.extend_from_slice(&data[..keep]);
        self.finish(keep, whole, comment)
    }

    /// Starts an Enhanced Packet Block in the buffer: type, length
    /// (patched in `finish`), interface, timestamp in nanoseconds, and room
    /// for the two lengths.
    fn begin(&mut self, iface: Interface, t: Time) {
        let ns = t.as_nanos();
        self.buf.clear();
        self.buf.extend_from_slice(&PCAPNG_EPB.to_le_bytes());
        self.buf.extend_from_slice(&[0; 4]);
        self.buf.extend_from_slice(&iface.0.to_le_bytes());
        self.buf
            .extend_from_slice(&((ns >> 32) as u32).to_le_bytes());
        self.buf.extend_from_slice(&(ns as u32).to_le_bytes());
        self.buf.extend_from_slice(&[0; 8]);
    }

    /// Ends the block begun by `begin` whose data (`captured` bytes of a
    /// `whole`-byte frame) is in the buffer, and writes it.
    fn finish(
        &mut self,
        captured: usize,
        whole: usize,
        comment: Option<&str>,
    ) -> io::Result<usize> {
        self.buf.resize(28 + pad4(captured), 0);
        self.buf[20..24].copy_from_slice(&(captured as u32).to_le_bytes());
        let whole = u32::try_from(whole).unwrap_or(u32::MAX);
        self.buf[24..28].copy_from_slice(&whole.to_le_bytes());
        if let Some(c) = comment {
            push_option(&mut self.buf, OPT_COMMENT, c.as_bytes());
            push_option(&mut self.buf, OPT_ENDOFOPT, &[]);
        }
        let len = self.buf.len() + 4;
        self.buf[4..8].copy_from_slice(&(len as u32).to_le_bytes());
        self.buf.extend_from_slice(&(len as u32).to_le_bytes());
        self.out.write_all(&self.buf)?;
        Ok(len)
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Capacity of the record buffer: a whole 1500-byte datagram, its block
/// and a comment fit without growing.
const FULL_SNAPLEN_HINT: usize = 1500 + 256;

/// Appends an option (code, length, value, zero padding to 32 bits).
fn push_option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    b.resize(b.len() + pad4(value.len()) - value.len(), 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::tests::ack_packet as packet;
    use crate::wire::LINKTYPE_RAW;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// Walks the blocks of a file: (type, body) pairs, checking that each
    /// block's two length fields agree and are multiples of four.
    fn blocks(b: &[u8]) -> Vec<(u32, &[u8])> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < b.len() {
            let len = u32_at(b, at + 4) as usize;
            assert_eq!(len % 4, 0);
            assert_eq!(u32_at(b, at + len - 4) as usize, len, "trailing length");
            out.push((u32_at(b, at), &b[at + 8..at + len - 4]));
            at += len;
        }
        assert_eq!(at, b.len());
        out
    }

    #[test]
    fn blocks_are_well_formed_and_say_what_was_written() {
        let mut w = PcapngWriter::new(Vec::new()).unwrap();
        let a = w
            .add_interface("bs-ch0.tx", "link bs-ch0", LINKTYPE_RAW as u16, 96)
            .unwrap();
        let b = w
            .add_interface("bs-air.rx", "the air", LINKTYPE_RAW as u16, 1500)
            .unwrap();
        assert_eq!((a, b), (Interface(0), Interface(1)));
        let n1 = w
            .write_packet(b, Time(5_000_000_123), &packet(100), None)
            .unwrap();
        let n2 = w
            .write_packet(a, Time(7), &packet(1000), Some("lost on the air"))
            .unwrap();
        assert_eq!(n1, epb_len(140, None));
        assert_eq!(n2, epb_len(96, Some("lost on the air".len())));
        let out = w.into_inner().unwrap();
        let bl = blocks(&out);
        assert_eq!(bl.len(), 5);
        assert_eq!(bl[0].0, PCAPNG_SHB);
        assert_eq!(u32_at(bl[0].1, 0), PCAPNG_BYTE_ORDER_MAGIC);
        assert_eq!(bl[1].0, PCAPNG_IDB);
        assert_eq!(u32_at(bl[1].1, 4), 96); // snaplen
        let idb = bl[1].1;
        assert!(idb.windows(9).any(|x| x == b"bs-ch0.tx"));
        // if_tsresol = 9 (nanoseconds).
        assert!(idb.windows(5).any(|x| x == [9, 0, 1, 0, 9]));
        let (ty, epb) = bl[3];
        assert_eq!(ty, PCAPNG_EPB);
        assert_eq!(u32_at(epb, 0), 1); // interface
        let ns = (u64::from(u32_at(epb, 4)) << 32) | u64::from(u32_at(epb, 8));
        assert_eq!(ns, 5_000_000_123);
        assert_eq!((u32_at(epb, 12), u32_at(epb, 16)), (140, 140));
        let (_, epb) = bl[4];
        assert_eq!((u32_at(epb, 12), u32_at(epb, 16)), (96, 1040));
        let opts = &epb[20 + 96..];
        assert_eq!(&opts[..4], &[1, 0, 15, 0]);
        assert_eq!(&opts[4..19], b"lost on the air");
        assert_eq!(&opts[20..24], &[0, 0, 0, 0]);
    }

    #[test]
    fn the_record_buffer_is_reused_after_warm_up() {
        let mut w = PcapngWriter::new(Vec::new()).unwrap();
        let i = w.add_interface("x", "", LINKTYPE_RAW as u16, 1500).unwrap();
        w.write_packet(i, Time(0), &packet(1460), Some("a comment"))
            .unwrap();
        let (ptr, cap) = (w.buf.as_ptr(), w.buf.capacity());
        for (k, len) in [0, 1460, 10, 1000, 1460].into_iter().enumerate() {
            let c = (k % 2 == 0).then_some("dropped: queue full");
            w.write_packet(i, Time(k as u64), &packet(len), c).unwrap();
            assert_eq!((w.buf.as_ptr(), w.buf.capacity()), (ptr, cap));
        }
    }
}
