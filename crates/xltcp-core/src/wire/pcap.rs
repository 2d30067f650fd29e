//! A pcap file writer with nanosecond timestamps and raw IPv4 records.
//!
//! Format: the classic libpcap file (global header, then one record header
//! and the captured bytes per packet), written little-endian, with the
//! nanosecond-resolution magic 0xa1b23c4d, version 2.4 and link type
//! LINKTYPE_RAW (101): each record is an IPv4 datagram with no link header.

use super::emit::{emit_len, emit_truncated, MAX_DATAGRAM_LEN};
use super::segment::Packet;
use crate::time::Time;
use std::io::{self, Write};

/// Magic number of a pcap file whose timestamps are in nanoseconds.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW: records start with the IP header.
pub const LINKTYPE_RAW: u32 = 101;
/// Smallest snapshot length the writer uses: a whole IPv4 header (20 B)
/// and the largest TCP header (60 B), so headers are never cut.
pub const MIN_SNAPLEN: u32 = 80;
/// Snapshot length that keeps every IPv4 datagram whole.
pub const FULL_SNAPLEN: u32 = MAX_DATAGRAM_LEN as u32;

/// Writes packets to a pcap stream. One internal buffer is reused, so after
/// the first packets no record allocates.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header and returns the writer. `snaplen` is raised
    /// to [`MIN_SNAPLEN`] if below it; records hold at most `snaplen` bytes.
    pub fn new(out: W, snaplen: u32) -> io::Result<PcapWriter<W>> {
        PcapWriter::with_link_type(out, snaplen, LINKTYPE_RAW)
    }

    /// [`PcapWriter::new`] for records of another link type (written with
    /// [`PcapWriter::write_frame`]).
    pub fn with_link_type(mut out: W, snaplen: u32, link_type: u32) -> io::Result<PcapWriter<W>> {
        let snaplen = snaplen.max(MIN_SNAPLEN);
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes()); // version major
        h[6..8].copy_from_slice(&4u16.to_le_bytes()); // version minor
                                                      // thiszone (8..12) and sigfigs (12..16) are zero.
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&link_type.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen,
            buf: Vec::with_capacity(snaplen.min(FULL_SNAPLEN) as usize + 16),
        })
    }

    /// The snapshot length in the global header.
    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// Writes `packet` as real bytes, captured at `t`, cut to the snapshot
    /// length (headers always whole, checksums those of the full datagram).
    pub fn write_packet(&mut self, t: Time, packet: &Packet) -> io::Result<()> {
        self.buf.clear();
        let orig_len = emit_len(packet) as u32;
        emit_truncated(packet, self.snaplen as usize, &mut self.buf);
        write_record(&mut self.out, t, &self.buf, orig_len)
    }

    /// Writes an already serialised datagram, captured at `t`, cut to the
    /// snapshot length.
    pub fn write_raw(&mut self, t: Time, bytes: &[u8]) -> io::Result<()> {
        let keep = bytes.len().min(self.snaplen as usize);
        let orig_len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        write_record(&mut self.out, t, &bytes[..keep], orig_len)
    }

    /// Writes a record already cut by the caller: `data` captured at `t`
    /// from a frame of `whole` bytes (cut again to the snapshot length).
    pub fn write_frame(&mut self, t: Time, data: &[u8], whole: usize) -> io::Result<()> {
        let keep = data.len().min(self.snaplen as usize);
        let orig_len = u32::try_from(whole).unwrap_or(u32::MAX);
        write_record(&mut self.out, t, &data[..keep], orig_len)
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The underlying writer, borrowed.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One record: header (seconds, nanoseconds, captured and original
/// lengths) then the captured bytes. Seconds wrap after 2^32 s (136 years).
fn write_record<W: Write>(out: &mut W, t: Time, data: &[u8], orig_len: u32) -> io::Result<()> {
    let ns = t.as_nanos();
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(data.len() as u32).to_le_bytes());
    h[12..16].copy_from_slice(&orig_len.to_le_bytes());
    out.write_all(&h)?;
    out.write_all(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::tests::ack_packet as packet;

    #[test]
    fn the_record_buffer_is_reused_after_warm_up() {
        let mut w = PcapWriter::new(Vec::new(), FULL_SNAPLEN).unwrap();
        w.write_packet(Time(0), &packet(1460)).unwrap();
        let (ptr, cap) = (w.buf.as_ptr(), w.buf.capacity());
        for (i, len) in [0, 1460, 10, 1000, 1460].into_iter().enumerate() {
            w.write_packet(Time(i as u64), &packet(len)).unwrap();
            assert_eq!((w.buf.as_ptr(), w.buf.capacity()), (ptr, cap));
        }
    }

    #[test]
    fn records_are_cut_to_the_snaplen_but_keep_the_original_length() {
        let mut w = PcapWriter::new(Vec::new(), 100).unwrap();
        w.write_raw(Time(0), &[9u8; 150]).unwrap();
        let out = w.into_inner().unwrap();
        assert_eq!(out[24 + 8..24 + 16], [100, 0, 0, 0, 150, 0, 0, 0]);
        assert_eq!(out.len(), 24 + 16 + 100);
    }
}
