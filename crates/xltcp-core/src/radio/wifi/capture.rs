//! 802.11 frames as a monitor-mode capture sees them: a radiotap header
//! and the MAC frame, for pcap link type 127
//! (`LINKTYPE_IEEE802_11_RADIOTAP`), so Wireshark shows every data, ACK,
//! RTS and CTS frame with its rate, the Retry bit, the sequence number, the
//! Duration (NAV) and whether it was received intact.
//!
//! Radiotap (radiotap.org, "Defined fields"): version 0, then the present
//! bitmap with Flags (bit 1), Rate (bit 2), Channel (bit 3) and dB antenna
//! signal (bit 12), each at its natural alignment:
//!
//! | offset | field | value |
//! |---|---|---|
//! | 8 | Flags | 0x02 short preamble, 0x40 frame failed its FCS check (lost: collision, blockage or bit errors) |
//! | 9 | Rate | in 500 kbit/s units |
//! | 10 | Channel frequency, flags | 5180 MHz OFDM/5 GHz (11a), 2412 MHz CCK/2 GHz (11b) |
//! | 14 | dB antenna signal | the link's SNR at the frame's end, dB, clamped to 0..=255 |
//!
//! MAC frames (802.11-2016 §9.3): no FCS is written (radiotap Flags say
//! so by leaving bit 0x10 clear). Data frames carry an LLC/SNAP header
//! (AA AA 03 00 00 00 08 00) and the IPv4 datagram; the AP's frames are
//! FromDS, the hosts' ToDS. Addresses: station `s` is `02:00:00:00:hi:lo`
//! (locally administered, `s` in the last two bytes); the AP, station 0,
//! is the BSSID, and stands for the wired side in address 3.

use super::frame::{Transmission, TxKind};
use super::{Preamble, Standard};
use crate::wire::{emit_len, emit_truncated, Packet};

/// pcap's link type for radiotap + 802.11.
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;

/// Radiotap header length (8-byte header + the four fields).
const RADIOTAP_LEN: usize = 15;
/// Data MAC header (24) + LLC/SNAP (8).
const DATA_HEADER_LEN: usize = 32;
/// The longest header before the IP datagram.
pub const MAX_HEADER_LEN: usize = RADIOTAP_LEN + DATA_HEADER_LEN;

/// One frame on the air, as the hop saw it end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AirFrame {
    /// The transmission.
    pub tx: Transmission,
    /// The IP packet of a data frame.
    pub packet: Option<Packet>,
    /// The link's SNR at the frame's end, dB.
    pub snr_db: f64,
    /// Whether its receiver got it intact.
    pub intact: bool,
    /// The cell's standard (channel of the radiotap header).
    pub standard: Standard,
}

/// A station's MAC address.
fn mac(station: u16) -> [u8; 6] {
    let [hi, lo] = station.to_be_bytes();
    [0x02, 0, 0, 0, hi, lo]
}

impl AirFrame {
    /// Appends the record's bytes to `buf`, the IP datagram cut to
    /// `ip_snaplen` bytes (headers whole); returns the frame's length
    /// uncut.
    pub fn encode(&self, ip_snaplen: usize, buf: &mut Vec<u8>) -> usize {
        let t = &self.tx;
        let start = buf.len();
        // Radiotap.
        let present: u32 = (1 << 1) | (1 << 2) | (1 << 3) | (1 << 12);
        buf.extend_from_slice(&[0, 0]);
        buf.extend_from_slice(&(RADIOTAP_LEN as u16).to_le_bytes());
        buf.extend_from_slice(&present.to_le_bytes());
        let mut flags = 0u8;
        if t.preamble == Preamble::Short {
            flags |= 0x02;
        }
        if !self.intact {
            flags |= 0x40;
        }
        buf.push(flags);
        buf.push((t.rate.bps() / 500_000) as u8);
        let (freq, chan_flags): (u16, u16) = match self.standard {
            Standard::A11 => (5180, 0x0040 | 0x0100),
            Standard::B11 => (2412, 0x0020 | 0x0080),
        };
        buf.extend_from_slice(&freq.to_le_bytes());
        buf.extend_from_slice(&chan_flags.to_le_bytes());
        buf.push(self.snr_db.round().clamp(0.0, 255.0) as u8);
        // MAC header.
        let duration = t.duration.as_nanos().div_ceil(1000).min(32767) as u16;
        let (ra, ta) = (mac(t.to.0), mac(t.from.0));
        let fc0: u8 = match t.kind {
            TxKind::Data => 0x08,
            TxKind::Ack => 0xd4,
            TxKind::Cts => 0xc4,
            TxKind::Rts => 0xb4,
        };
        let mut fc1 = 0u8;
        if t.kind == TxKind::Data {
            fc1 |= if t.from.0 == 0 { 0x02 } else { 0x01 };
            if t.retry {
                fc1 |= 0x08;
            }
        }
        buf.extend_from_slice(&[fc0, fc1]);
        buf.extend_from_slice(&duration.to_le_bytes());
        buf.extend_from_slice(&ra);
        let mut whole = buf.len() - start;
        match t.kind {
            TxKind::Ack | TxKind::Cts => {}
            TxKind::Rts => {
                buf.extend_from_slice(&ta);
                whole += 6;
            }
            TxKind::Data => {
                let bssid = mac(0);
                buf.extend_from_slice(&ta);
                buf.extend_from_slice(&bssid);
                buf.extend_from_slice(&((t.seq & 0x0fff) << 4).to_le_bytes());
                buf.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
                whole += 6 + 6 + 2 + 8;
                if let Some(p) = &self.packet {
                    emit_truncated(p, ip_snaplen, buf);
                    whole += emit_len(p);
                }
            }
        }
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::wifi::{Addr, Rate};
    use crate::time::{Dur, Time};

    fn tx(kind: TxKind, from: u16, to: u16) -> Transmission {
        Transmission {
            kind,
            from: Addr(from),
            to: Addr(to),
            frame: 0,
            seq: 0x123,
            retry: true,
            psdu_bytes: 14,
            rate: Rate::Ofdm24,
            preamble: Preamble::Long,
            start: Time::ZERO,
            airtime: Dur::from_micros(28),
            duration: Dur::from_nanos(44_500),
            attempt: 2,
        }
    }

    #[test]
    fn an_ack_is_radiotap_and_ten_bytes_of_mac_header() {
        let f = AirFrame {
            tx: tx(TxKind::Ack, 1, 0),
            packet: None,
            snr_db: 21.4,
            intact: false,
            standard: Standard::A11,
        };
        let mut buf = Vec::new();
        let whole = f.encode(1500, &mut buf);
        assert_eq!(whole, buf.len());
        let radiotap = [
            0, 0, 15, 0, // version, pad, length
            0x0e, 0x10, 0, 0,    // present: flags, rate, channel, dB signal
            0x40, // failed FCS
            48,   // 24 Mb/s
            0x3c, 0x14, 0x40, 0x01, // 5180 MHz, OFDM | 5 GHz
            21,   // dB
        ];
        assert_eq!(&buf[..15], &radiotap);
        // Frame control (ACK), Duration 45 us (rounded up), RA = the AP.
        assert_eq!(&buf[15..], &[0xd4, 0, 45, 0, 2, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn a_host_data_frame_is_to_ds_with_retry_sequence_and_snap() {
        let f = AirFrame {
            tx: tx(TxKind::Data, 3, 0),
            packet: None,
            snr_db: -4.0,
            intact: true,
            standard: Standard::B11,
        };
        let mut buf = Vec::new();
        f.encode(1500, &mut buf);
        assert_eq!(buf[8], 0, "intact, long preamble");
        assert_eq!(
            &buf[10..14],
            &[0x6c, 0x09, 0xa0, 0x00],
            "2412 MHz, CCK | 2 GHz"
        );
        assert_eq!(buf[14], 0, "negative SNR clamps to 0");
        let mac = &buf[15..];
        assert_eq!(&mac[..2], &[0x08, 0x09], "data, ToDS | Retry");
        assert_eq!(&mac[4..10], &[2, 0, 0, 0, 0, 0], "address 1: the BSSID");
        assert_eq!(&mac[10..16], &[2, 0, 0, 0, 0, 3], "address 2: the host");
        assert_eq!(&mac[22..24], &0x1230u16.to_le_bytes(), "sequence 0x123");
        assert_eq!(&mac[24..32], &[0xaa, 0xaa, 3, 0, 0, 0, 8, 0]);
    }
}
