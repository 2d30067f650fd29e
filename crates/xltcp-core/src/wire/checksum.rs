//! The Internet checksum (RFC 1071) and its incremental update (RFC 1624).
//!
//! Sums are kept in a `u32` accumulator and folded to 16 bits at the end;
//! a 16-bit word is big-endian, an odd trailing byte is padded with zero.

use super::layout::{read_u32, IP_CHECKSUM, IP_DST, IP_SRC, TCP_CHECKSUM};
use std::net::Ipv4Addr;

/// A running one's-complement sum of 16-bit big-endian words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sum(u32);

impl Sum {
    /// Adds `bytes`, which must start on a 16-bit boundary of the summed
    /// data (every caller adds even-length pieces except the last).
    pub(crate) fn add_bytes(mut self, bytes: &[u8]) -> Sum {
        // Eight bytes (four words) at a time in a 64-bit one's-complement
        // accumulator (end-around carry): 2^64 = 1 modulo 2^16 - 1, so its
        // fold equals the sum of the words (RFC 1071 §2(C)); the emulator
        // checksums every segment it cuts from a super-packet.
        let mut quads = bytes.chunks_exact(8);
        let mut acc: u64 = 0;
        for q in &mut quads {
            let v = u64::from_be_bytes([q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]]);
            let (s, carry) = acc.overflowing_add(v);
            acc = s + carry as u64;
        }
        let acc = (acc & 0xFFFF_FFFF) + (acc >> 32);
        let acc = (acc & 0xFFFF_FFFF) + (acc >> 32);
        let acc = (acc & 0xFFFF) + (acc >> 16);
        let acc = (acc & 0xFFFF) + (acc >> 16);
        self.0 = (self.0 & 0xFFFF) + (self.0 >> 16) + acc as u32;
        let mut words = quads.remainder().chunks_exact(2);
        for w in &mut words {
            self.0 += u32::from(u16::from_be_bytes([w[0], w[1]]));
            // Fold early so the u32 never overflows, whatever the length.
            if self.0 >= 0xFFFF_0000 {
                self.0 = (self.0 & 0xFFFF) + (self.0 >> 16);
            }
        }
        if let [last] = words.remainder() {
            // RFC 1071 §4.1: an odd byte is padded with zero on the right.
            self.0 += u32::from(*last) << 8;
        }
        self
    }

    /// Adds one 16-bit word.
    pub(crate) fn add_u16(self, w: u16) -> Sum {
        Sum(self.fold_u32() + u32::from(w))
    }

    /// The 16-bit one's-complement sum, end-around carries folded in.
    pub(crate) fn fold(self) -> u16 {
        let mut s = self.0;
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        s as u16
    }

    fn fold_u32(self) -> u32 {
        u32::from(self.fold())
    }

    /// The checksum field value: the complement of the sum.
    pub(crate) fn checksum(self) -> u16 {
        !self.fold()
    }
}

/// The sum of the TCP pseudo-header over IPv4 (RFC 9293 §3.1): source,
/// destination, zero + protocol 6, and the TCP length (header + payload).
pub(crate) fn tcp_pseudo_header(src: Ipv4Addr, dst: Ipv4Addr, tcp_len: u16) -> Sum {
    Sum::default()
        .add_bytes(&src.octets())
        .add_bytes(&dst.octets())
        .add_u16(6)
        .add_u16(tcp_len)
}

/// The checksum of `bytes` alone (e.g. an IPv4 header whose checksum field
/// is zero).
pub(crate) fn checksum(bytes: &[u8]) -> u16 {
    Sum::default().add_bytes(bytes).checksum()
}

/// The checksum field after one 16-bit word of the covered data changes
/// from `old` to `new` (RFC 1624 §3, eqn. 3: `HC' = ~(~HC + ~m + m')`).
///
/// The result is never 0x0000 for data whose sum is nonzero, which matches
/// what a full recomputation gives for such data (a TCP pseudo-header always
/// makes the sum nonzero).
pub(crate) fn update(check: u16, old: u16, new: u16) -> u16 {
    let s = u32::from(!check) + u32::from(!old) + u32::from(new);
    !Sum(s).fold()
}

/// The TCP checksum the datagram `bytes` (IPv4 header of `ip_header_len`
/// bytes, then a TCP segment to the end of `bytes`) should carry, computed
/// with its checksum field taken as zero.
pub(crate) fn tcp_checksum_of(bytes: &[u8], ip_header_len: usize) -> u16 {
    let src = Ipv4Addr::from(read_u32(bytes, IP_SRC));
    let dst = Ipv4Addr::from(read_u32(bytes, IP_DST));
    let tcp = &bytes[ip_header_len..];
    let at = TCP_CHECKSUM;
    tcp_pseudo_header(src, dst, tcp.len() as u16)
        .add_bytes(&tcp[..at])
        .add_bytes(&tcp[at + 2..])
        .checksum()
}

/// The IPv4 header checksum of `header`, computed with its checksum field
/// taken as zero.
pub(crate) fn ip_checksum_of(header: &[u8]) -> u16 {
    Sum::default()
        .add_bytes(&header[..IP_CHECKSUM])
        .add_bytes(&header[IP_CHECKSUM + 2..])
        .checksum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example_sums_to_ddf2() {
        // RFC 1071 §3: bytes 00 01 f2 03 f4 f5 f6 f7 sum to 0xddf2.
        let s = Sum::default().add_bytes(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]);
        assert_eq!(s.fold(), 0xddf2);
        assert_eq!(s.checksum(), 0x220d);
    }

    #[test]
    fn odd_length_pads_the_last_byte_on_the_right() {
        assert_eq!(
            Sum::default().add_bytes(&[0x12, 0x34, 0x56]).fold(),
            0x1234 + 0x5600
        );
    }

    #[test]
    fn long_runs_of_ones_do_not_overflow() {
        let ones = vec![0xFFu8; 200_000];
        assert_eq!(Sum::default().add_bytes(&ones).fold(), 0xFFFF);
    }

    #[test]
    fn known_ipv4_header_checksum() {
        // A classic example header (checksum field zeroed); its checksum is 0xb861.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(checksum(&hdr), 0xb861);
    }

    #[test]
    fn incremental_update_matches_recomputation() {
        let mut data = [0x45u8, 0x00, 0x12, 0x34, 0xab, 0xcd, 0x00, 0x00];
        let before = checksum(&data);
        data[2..4].copy_from_slice(&0xfedcu16.to_be_bytes());
        assert_eq!(update(before, 0x1234, 0xfedc), checksum(&data));
    }

    /// The sum word by word, as RFC 1071 defines it.
    fn reference(bytes: &[u8]) -> u16 {
        let mut s: u64 = 0;
        for (i, b) in bytes.iter().enumerate() {
            s += u64::from(*b) << if i % 2 == 0 { 8 } else { 0 };
        }
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        s as u16
    }

    #[test]
    fn eight_bytes_at_a_time_sums_as_word_by_word() {
        // A fixed pseudo-random pattern, every length up to 70 and on top
        // of a running sum; all-zero and all-ones data at the edges.
        let mut x: u32 = 12345;
        let data: Vec<u8> = (0..1600)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        for len in (0..70).chain([1448, 1500, 1599]) {
            let d = &data[..len];
            assert_eq!(
                Sum::default().add_bytes(d).fold(),
                reference(d),
                "len {len}"
            );
            let two = Sum::default().add_bytes(&data[..20]).add_bytes(d).fold();
            let mut joined = data[..20].to_vec();
            joined.extend_from_slice(d);
            assert_eq!(two, reference(&joined), "after a header, len {len}");
        }
        assert_eq!(Sum::default().add_bytes(&[0; 64]).fold(), 0);
        assert_eq!(Sum::default().add_bytes(&[0xFF; 64]).fold(), 0xFFFF);
    }
}
