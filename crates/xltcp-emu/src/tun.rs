//! TUN devices: a file descriptor that reads and writes raw IPv4
//! datagrams, each behind a `virtio_net_hdr` (`IFF_VNET_HDR`) so the
//! kernel can hand over TCP segmentation offload (TSO) super-packets.
//!
//! With offloads on (`TUNSETOFFLOAD` with `TUN_F_CSUM | TUN_F_TSO4`), a
//! host's TCP sends one super-packet of up to 64 KiB per write instead of
//! one datagram per segment, and leaves the TCP checksum for the device to
//! complete. The emulator is that device: [`split`] cuts each
//! super-packet into the MSS-sized datagrams Linux would have sent without
//! the offload (sequence numbers, IP identifiers, flags and both checksums
//! as its software segmentation writes them) and completes partial
//! checksums, so the model still sees, serialises and loses one frame at a
//! time. One read then carries tens of segments: the kernel's per-packet
//! work on the sending side (and the emulator's reads) shrink by as much.
//! Datagrams written back carry a header that marks their checksums as
//! verified (`VIRTIO_NET_HDR_F_DATA_VALID`): the base station verified or
//! computed them, and rewrote them only incrementally.
//!
//! The device is created in the emulator's own namespace and then moved
//! into a host namespace; the descriptor keeps working across the move.
//! It is not persistent: closing the descriptor (or the process dying)
//! removes the device.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use xltcp_core::wire::fix_checksums;

/// Largest datagram written to a TUN device.
pub const MAX_PACKET: usize = 65_535;
/// Bytes of the `virtio_net_hdr` before every datagram (without the
/// mergeable-buffers field, the size the kernel assumes by default).
pub const VNET_HDR_LEN: usize = 10;
/// Largest frame one read returns: the header and a 64 KiB super-packet.
pub const MAX_FRAME: usize = VNET_HDR_LEN + 65_536;

/// `virtio_net_hdr.flags`: the checksum at `csum_start + csum_offset`
/// holds only the pseudo-header's sum and must be completed.
const F_NEEDS_CSUM: u8 = 1;
/// `virtio_net_hdr.flags`: the checksums are known good.
const F_DATA_VALID: u8 = 2;
/// `virtio_net_hdr.gso_type`: no segmentation.
const GSO_NONE: u8 = 0;
/// `virtio_net_hdr.gso_type`: TCP over IPv4.
const GSO_TCPV4: u8 = 1;
/// `virtio_net_hdr.gso_type` bit: the ECN CWR flag is set on the first
/// segment only (which the splitting does in any case).
const GSO_ECN: u8 = 0x80;

/// The header written before every datagram sent to a host.
const TX_HDR: [u8; VNET_HDR_LEN] = [F_DATA_VALID, GSO_NONE, 0, 0, 0, 0, 0, 0, 0, 0];

/// An open TUN device.
#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
    name: String,
    offloads: bool,
}

impl Tun {
    /// Creates the TUN device `name` (at most 15 bytes), non-blocking,
    /// with a `virtio_net_hdr` on every datagram and, if the kernel
    /// accepts them, checksum and TCPv4 segmentation offloads.
    pub fn create(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bad interface name {name:?}"),
            ));
        }
        // SAFETY: a plain open(2) of a constant path; the result is checked.
        let raw = unsafe {
            libc::open(
                c"/dev/net/tun".as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: ifreq is plain old data; all-zero is a valid value.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        for (dst, src) in req.ifr_name.iter_mut().zip(name.bytes()) {
            *dst = src as libc::c_char;
        }
        req.ifr_ifru.ifru_flags =
            (libc::IFF_TUN | libc::IFF_NO_PI | libc::IFF_VNET_HDR) as libc::c_short;
        // SAFETY: TUNSETIFF reads and writes one ifreq, which outlives the call.
        if unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req) } < 0 {
            return Err(io::Error::last_os_error());
        }
        let size = VNET_HDR_LEN as libc::c_int;
        // SAFETY: TUNSETVNETHDRSZ reads one int, which outlives the call.
        if unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETVNETHDRSZ, &size) } < 0 {
            return Err(io::Error::last_os_error());
        }
        let features = (libc::TUN_F_CSUM | libc::TUN_F_TSO4) as libc::c_ulong;
        // SAFETY: TUNSETOFFLOAD takes its argument by value.
        let offloads = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETOFFLOAD, features) } == 0;
        Ok(Tun {
            fd,
            name: name.to_string(),
            offloads,
        })
    }

    /// The interface name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the kernel accepted the checksum and segmentation offloads.
    pub fn offloads(&self) -> bool {
        self.offloads
    }

    /// Reads one frame (a `virtio_net_hdr` and a datagram or super-packet,
    /// see [`split`]) into `buf`, which should hold [`MAX_FRAME`] bytes;
    /// `Ok(None)` when none is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: writes at most buf.len() bytes into buf.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        }
    }

    /// Writes one datagram into the device's namespace (behind its
    /// header, gathered by the kernel: no copy here).
    pub fn send(&self, packet: &[u8]) -> io::Result<()> {
        self.send_with(&TX_HDR, packet)
    }

    /// Writes one datagram or super-packet behind the header `hdr`.
    pub fn send_with(&self, hdr: &[u8; VNET_HDR_LEN], packet: &[u8]) -> io::Result<()> {
        let iov = [
            libc::iovec {
                iov_base: hdr.as_ptr() as *mut libc::c_void,
                iov_len: VNET_HDR_LEN,
            },
            libc::iovec {
                iov_base: packet.as_ptr() as *mut libc::c_void,
                iov_len: packet.len(),
            },
        ];
        // SAFETY: the kernel only reads the two buffers, which outlive the call.
        let n = unsafe { libc::writev(self.fd.as_raw_fd(), iov.as_ptr(), 2) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// Joins consecutive TCP segments written to one device in one pass of
/// the loop into a super-packet (the kernel's generic receive offload,
/// done before the write): the receiving host's TCP then takes one packet
/// where it would take several, as behind a NIC with GRO. Only what Linux's
/// GRO would join is joined: IPv4 without options, one connection, the
/// same TTL, TOS, ACK, window and option bytes, contiguous sequence
/// numbers, full-sized segments but the last, only ACK set (PSH on the
/// last), at most 64 KiB. The written super-packet carries a partial TCP
/// checksum and the segment size in its `virtio_net_hdr`.
#[derive(Debug)]
pub struct Coalescer {
    /// The super-packet being built: headers of its first segment, then
    /// the payloads.
    buf: Vec<u8>,
    /// Segments in `buf` (0: empty).
    segments: u32,
    /// Payload bytes of its first segment (the segment size).
    mss: usize,
    /// Sequence number the next segment must start at.
    next_seq: u32,
    /// Whether the last segment added was shorter than `mss` or had PSH.
    closed: bool,
}

impl Default for Coalescer {
    fn default() -> Coalescer {
        Coalescer {
            buf: Vec::with_capacity(MAX_PACKET),
            segments: 0,
            mss: 0,
            next_seq: 0,
            closed: false,
        }
    }
}

/// TCP flags a joinable segment may carry (ACK, PSH).
const JOINABLE_FLAGS: u8 = 0x10 | 0x08;

impl Coalescer {
    /// Segments waiting to be written.
    pub fn pending(&self) -> u32 {
        self.segments
    }

    /// Adds `d` to the super-packet being built if it can join it; false
    /// (nothing added) if the caller must [`Coalescer::take`] it first.
    /// An empty coalescer takes any datagram.
    pub fn offer(&mut self, d: &[u8]) -> bool {
        let Some((hl, payload, seq, flags)) = joinable(d) else {
            if self.segments == 0 {
                self.start(d, 0, 0, true);
                return true;
            }
            return false;
        };
        if self.segments == 0 {
            self.start(
                d,
                payload,
                seq.wrapping_add(payload as u32),
                flags & 0x08 != 0,
            );
            return true;
        }
        let b = &self.buf;
        let same = !self.closed
            && b.len() + payload <= MAX_PACKET
            && payload <= self.mss
            && seq == self.next_seq
            && b[1] == d[1]
            && b[6] & 0x40 == d[6] & 0x40
            && b[8..10] == d[8..10]
            && b[12..24] == d[12..24]
            && b[28..32] == d[28..32]
            && b[32] == d[32]
            && b[34..36] == d[34..36]
            && b[40..hl] == d[40..hl];
        if !same {
            return false;
        }
        self.buf.extend_from_slice(&d[hl..]);
        self.buf[33] |= flags & 0x08;
        self.segments += 1;
        self.next_seq = seq.wrapping_add(payload as u32);
        self.closed = payload < self.mss || flags & 0x08 != 0;
        true
    }

    fn start(&mut self, d: &[u8], mss: usize, next_seq: u32, closed: bool) {
        self.buf.clear();
        self.buf.extend_from_slice(d);
        self.segments = 1;
        self.mss = mss;
        self.next_seq = next_seq;
        self.closed = closed;
    }

    /// Hands what was built to `write` (the `virtio_net_hdr` and the
    /// datagram or super-packet) and empties the coalescer; returns the
    /// segments it held.
    pub fn take(&mut self, write: impl FnOnce(&[u8; VNET_HDR_LEN], &[u8])) -> u32 {
        let n = self.segments;
        if n == 0 {
            return 0;
        }
        self.segments = 0;
        if n == 1 {
            write(&TX_HDR, &self.buf);
            return 1;
        }
        let b = &mut self.buf;
        let total = b.len() as u16;
        b[2..4].copy_from_slice(&total.to_be_bytes());
        b[10..12].copy_from_slice(&[0, 0]);
        let ip = !ones_complement_sum(&b[..20]);
        b[10..12].copy_from_slice(&ip.to_be_bytes());
        // CHECKSUM_PARTIAL: the field holds the pseudo-header's sum.
        let mut sum = ones_complement_sum(&b[12..20]) as u32 + 6 + (total as u32 - 20);
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        let partial = sum as u16;
        b[36..38].copy_from_slice(&partial.to_be_bytes());
        let hl = 20 + (b[32] >> 4) as u16 * 4;
        let mut hdr = [0u8; VNET_HDR_LEN];
        hdr[0] = F_NEEDS_CSUM;
        hdr[1] = GSO_TCPV4;
        hdr[2..4].copy_from_slice(&hl.to_le_bytes());
        hdr[4..6].copy_from_slice(&(self.mss as u16).to_le_bytes());
        hdr[6..8].copy_from_slice(&20u16.to_le_bytes());
        hdr[8..10].copy_from_slice(&16u16.to_le_bytes());
        write(&hdr, &self.buf);
        n
    }
}

/// A datagram GRO could join: IPv4 without options, TCP with payload and
/// only ACK (and PSH) set; its TCP header end, payload length, sequence
/// number and flags.
fn joinable(d: &[u8]) -> Option<(usize, usize, u32, u8)> {
    if d.len() < 40 || d[0] != 0x45 || d[9] != 6 || d[6] & 0x3f != 0 || d[7] != 0 {
        return None;
    }
    let total = u16::from_be_bytes([d[2], d[3]]) as usize;
    let hl = 20 + (d[32] >> 4) as usize * 4;
    let flags = d[33];
    if total != d.len()
        || hl < 40
        || hl >= total
        || flags & !JOINABLE_FLAGS != 0
        || flags & 0x10 == 0
    {
        return None;
    }
    let seq = u32::from_be_bytes([d[24], d[25], d[26], d[27]]);
    Some((hl, total - hl, seq, flags))
}

/// How a datagram handed on by [`split`] came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// As the host wrote it: its checksums are still to be verified.
    AsSent,
    /// Cut from a super-packet or with its checksum completed here: its
    /// checksums were computed by the emulator.
    Completed,
}

/// Hands each datagram of `frame` (a `virtio_net_hdr` and what follows,
/// as read from a device) to `each`: a plain datagram as it is (its
/// partial checksum completed), a TCPv4 super-packet cut into segments of
/// its `gso_size` payload bytes, one at a time through `scratch` (reused,
/// so a warm loop does not allocate). A frame the splitting cannot read is
/// refused with the reason (`bad_offload`, `unsupported_offload`) and
/// nothing is handed on.
pub fn split(
    frame: &mut [u8],
    scratch: &mut Vec<u8>,
    mut each: impl FnMut(&[u8], Origin),
) -> Result<(), &'static str> {
    if frame.len() < VNET_HDR_LEN {
        return Err("bad_offload");
    }
    let (hdr, p) = frame.split_at_mut(VNET_HDR_LEN);
    let u16_at = |i: usize| u16::from_le_bytes([hdr[i], hdr[i + 1]]) as usize;
    let (flags, gso_type) = (hdr[0], hdr[1] & !GSO_ECN);
    let (gso_size, csum_start, csum_offset) = (u16_at(4), u16_at(6), u16_at(8));
    match gso_type {
        GSO_NONE if flags & F_NEEDS_CSUM != 0 => {
            complete_checksum(p, csum_start, csum_offset)?;
            each(p, Origin::Completed);
            Ok(())
        }
        GSO_NONE => {
            each(p, Origin::AsSent);
            Ok(())
        }
        GSO_TCPV4 => split_tcp4(p, gso_size, scratch, each),
        _ => Err("unsupported_offload"),
    }
}

/// Whether `frame` (as read from a device) is a super-packet to cut.
pub fn is_super(frame: &[u8]) -> bool {
    frame.len() > 1 && frame[1] & !GSO_ECN != GSO_NONE
}

/// Completes a partial checksum: the field at `start + offset` holds the
/// pseudo-header's sum; the checksum covers everything from `start`.
fn complete_checksum(p: &mut [u8], start: usize, offset: usize) -> Result<(), &'static str> {
    if p.len() >= 20 && p[9] == 6 && p[0] >> 4 == 4 {
        // TCP over IPv4: both checksums in full (the usual case).
        return fix_checksums(p).map_err(|_| "bad_offload");
    }
    let at = start + offset;
    if at + 2 > p.len() {
        return Err("bad_offload");
    }
    let sum = !ones_complement_sum(&p[start..]);
    p[at..at + 2].copy_from_slice(&sum.to_be_bytes());
    Ok(())
}

/// Cuts a TCPv4 super-packet into segments of `mss` payload bytes, each a
/// copy of its headers with the total length, IP identifier (one more per
/// segment), sequence number, flags (CWR on the first only, FIN and PSH
/// on the last only) and both checksums of that segment.
fn split_tcp4(
    p: &[u8],
    mss: usize,
    scratch: &mut Vec<u8>,
    mut each: impl FnMut(&[u8], Origin),
) -> Result<(), &'static str> {
    if p.len() < 40 || p[0] >> 4 != 4 || p[9] != 6 || mss == 0 {
        return Err("bad_offload");
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    if ihl < 20 || p.len() < ihl + 20 {
        return Err("bad_offload");
    }
    let hl = ihl + (p[ihl + 12] >> 4) as usize * 4;
    if hl < ihl + 20 || p.len() < hl {
        return Err("bad_offload");
    }
    let id0 = u16::from_be_bytes([p[4], p[5]]);
    let seq0 = u32::from_be_bytes([p[ihl + 4], p[ihl + 5], p[ihl + 6], p[ihl + 7]]);
    let tcp_flags = p[ihl + 13];
    let payload = &p[hl..];
    let n = payload.len().div_ceil(mss).max(1);
    for k in 0..n {
        let chunk = &payload[(k * mss).min(payload.len())..((k + 1) * mss).min(payload.len())];
        scratch.clear();
        scratch.extend_from_slice(&p[..hl]);
        scratch.extend_from_slice(chunk);
        let total = (hl + chunk.len()) as u16;
        scratch[2..4].copy_from_slice(&total.to_be_bytes());
        scratch[4..6].copy_from_slice(&id0.wrapping_add(k as u16).to_be_bytes());
        let seq = seq0.wrapping_add((k * mss) as u32);
        scratch[ihl + 4..ihl + 8].copy_from_slice(&seq.to_be_bytes());
        let mut f = tcp_flags;
        if k > 0 {
            f &= !0x80; // CWR
        }
        if k + 1 < n {
            f &= !(0x01 | 0x08); // FIN, PSH
        }
        scratch[ihl + 13] = f;
        fix_checksums(scratch).map_err(|_| "bad_offload")?;
        each(scratch, Origin::Completed);
    }
    Ok(())
}

/// The one's-complement sum of `data` as big-endian 16-bit words.
pub(crate) fn ones_complement_sum(data: &[u8]) -> u16 {
    let mut sum: u64 = 0;
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u16::from_be_bytes([w[0], w[1]]) as u64;
    }
    if let [last] = words.remainder() {
        sum += (*last as u64) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use xltcp_core::wire::{parse, Packet, Segment, SeqNum, TcpFlags};

    /// A TCPv4 super-packet of `payload` bytes from Linux's TSO: headers
    /// of the first segment, the pseudo-header sum in the checksum field.
    fn super_packet(payload: usize, mss: u16, flags: u8) -> Vec<u8> {
        let seg = Packet {
            src: "10.1.0.1".parse().unwrap(),
            dst: "10.2.0.1".parse().unwrap(),
            ip_id: 0xfffe,
            ttl: 64,
            tcp: Segment {
                src_port: 5201,
                dst_port: 40000,
                seq: SeqNum(0xffff_f000),
                ack: SeqNum(77),
                flags: TcpFlags::ACK,
                window: 1000,
                payload_len: payload as u32,
                ..Segment::default()
            },
            meta: Default::default(),
        };
        let mut p = Vec::new();
        xltcp_core::wire::emit(&seg, &mut p);
        p[33] = flags;
        let mut frame = vec![F_NEEDS_CSUM, GSO_TCPV4, 40, 0];
        frame.extend(mss.to_le_bytes());
        frame.extend(20u16.to_le_bytes());
        frame.extend(16u16.to_le_bytes());
        frame.extend(p);
        // The checksum field as the kernel leaves it: not the full sum.
        frame[VNET_HDR_LEN + 36] = 0x12;
        frame
    }

    fn collect(frame: &mut [u8]) -> Result<Vec<(Vec<u8>, Origin)>, &'static str> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        split(frame, &mut scratch, |d, o| out.push((d.to_vec(), o)))?;
        Ok(out)
    }

    #[test]
    fn a_super_packet_becomes_mss_sized_segments_with_valid_checksums() {
        let mut f = super_packet(3000, 1448, 0x18 | 0x01 | 0x80);
        let segs = collect(&mut f).unwrap();
        let lens: Vec<usize> = segs.iter().map(|(d, _)| d.len() - 40).collect();
        assert_eq!(lens, [1448, 1448, 104]);
        let mut next = SeqNum(0xffff_f000);
        for (k, (d, origin)) in segs.iter().enumerate() {
            assert_eq!(*origin, Origin::Completed);
            let p = parse(d).expect("valid checksums").into_packet();
            assert_eq!(p.tcp.seq, next, "sequence numbers wrap and follow on");
            next += p.tcp.payload_len;
            assert_eq!(p.ip_id, 0xfffeu16.wrapping_add(k as u16));
            let last = k == segs.len() - 1;
            assert_eq!(p.tcp.flags.contains(TcpFlags::FIN), last);
            assert_eq!(p.tcp.flags.contains(TcpFlags::PSH), last);
            assert_eq!(p.tcp.flags.contains(TcpFlags::CWR), k == 0);
        }
    }

    #[test]
    fn a_partial_checksum_is_completed() {
        let mut f = super_packet(100, 1448, 0x10);
        f[1] = GSO_NONE;
        let segs = collect(&mut f).unwrap();
        assert_eq!(segs.len(), 1);
        assert_eq!(segs[0].1, Origin::Completed);
        assert!(parse(&segs[0].0).is_ok());
    }

    #[test]
    fn a_plain_datagram_passes_unchanged_for_verification() {
        let mut f = super_packet(100, 1448, 0x10);
        f[..2].copy_from_slice(&[0, GSO_NONE]);
        let before = f[VNET_HDR_LEN..].to_vec();
        let segs = collect(&mut f).unwrap();
        assert_eq!(segs, vec![(before, Origin::AsSent)]);
    }

    #[test]
    fn unreadable_frames_are_refused_with_a_reason() {
        let mut udp = super_packet(100, 1448, 0x10);
        udp[1] = 3;
        assert_eq!(collect(&mut udp), Err("unsupported_offload"));
        let mut short = super_packet(100, 1448, 0x10);
        short.truncate(VNET_HDR_LEN + 30);
        assert_eq!(collect(&mut short), Err("bad_offload"));
        let mut no_mss = super_packet(100, 0, 0x10);
        assert_eq!(collect(&mut no_mss), Err("bad_offload"));
        assert_eq!(collect(&mut [0u8; 4]), Err("bad_offload"));
    }

    #[test]
    fn joined_segments_split_back_into_the_same_datagrams() {
        let mut f = super_packet(3000, 1448, 0x18);
        let segs = collect(&mut f).unwrap();
        let mut co = Coalescer::default();
        for (d, _) in &segs {
            assert!(co.offer(d));
        }
        let mut frame = Vec::new();
        assert_eq!(co.take(|h, d| frame.extend(h.iter().chain(d))), 3);
        assert_eq!(co.pending(), 0);
        assert!(is_super(&frame));
        let again = collect(&mut frame).unwrap();
        assert_eq!(
            again, segs,
            "the device's segmentation gives back each datagram"
        );
    }

    #[test]
    fn only_what_gro_would_join_is_joined() {
        let mut f = super_packet(3000, 1448, 0x10);
        let segs: Vec<Vec<u8>> = collect(&mut f).unwrap().into_iter().map(|s| s.0).collect();
        let mut co = Coalescer::default();
        assert!(co.offer(&segs[0]));
        assert!(!co.offer(&segs[2]), "a gap in the sequence");
        let mut other = segs[1].clone();
        other[20..22].copy_from_slice(&1u16.to_be_bytes());
        assert!(!co.offer(&other), "another connection");
        let mut syn = segs[1].clone();
        syn[33] |= 0x02;
        assert!(!co.offer(&syn), "a SYN");
        assert!(co.offer(&segs[1]));
        assert!(co.offer(&segs[2]));
        assert!(!co.offer(&segs[2]), "nothing after a short segment");
        let mut single = Vec::new();
        let mut one = Coalescer::default();
        assert!(one.offer(&segs[0]));
        assert_eq!(one.take(|h, d| single.extend(h.iter().chain(d))), 1);
        assert!(!is_super(&single), "one segment is written as it is");
        assert_eq!(&single[VNET_HDR_LEN..], &segs[0][..]);
    }

    #[test]
    fn ones_complement_sum_of_a_known_header() {
        // RFC 1071 §3's example.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(ones_complement_sum(&data), 0xddf2);
    }
}
