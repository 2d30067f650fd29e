//! What the DCF takes in ([`Frame`]) and puts on the air ([`Transmission`]).

use super::{Preamble, Rate};
use crate::time::{Dur, Time};

/// A station's MAC address, reduced to a small integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Addr(pub u16);

/// An MSDU handed to the MAC: an opaque id, its addressee and the size of
/// the data frame (PSDU: MAC header + LLC/SNAP + packet + FCS, see
/// [`data_psdu_bytes`](super::data_psdu_bytes)). Every frame is unicast
/// and acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Opaque id chosen by the caller; reported back in events and carried
    /// by every transmission that belongs to the frame.
    pub id: u64,
    /// The receiving station.
    pub dst: Addr,
    /// PSDU length of the data frame, at most 4095 bytes.
    pub psdu_bytes: u32,
}

/// What a [`Transmission`] carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TxKind {
    /// A data frame (MPDU of an MSDU handed to [`Dcf::enqueue`](super::Dcf::enqueue)).
    Data,
    /// The ACK of a data frame, sent SIFS after it without backoff.
    Ack,
    /// Request to send (20 bytes), for frames above the RTS threshold.
    Rts,
    /// Clear to send (14 bytes), SIFS after an RTS.
    Cts,
}

/// A frame on the air. The engine hands every transmission that ends
/// intact at a station to that station's [`Dcf::handle_frame`]
/// (addressed to it or not: others read the NAV from it), and a reception
/// that ends in error to [`Dcf::handle_frame_error`].
///
/// [`Dcf::handle_frame`]: super::Dcf::handle_frame
/// [`Dcf::handle_frame_error`]: super::Dcf::handle_frame_error
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    /// Data, ACK, RTS or CTS.
    pub kind: TxKind,
    /// Transmitter address (TA; for ACK/CTS, which carry no TA, the
    /// responding station, for the engine's bookkeeping).
    pub from: Addr,
    /// Receiver address (RA).
    pub to: Addr,
    /// The id of the data frame the transmission belongs to (for ACK, RTS
    /// and CTS: the frame being protected or acknowledged).
    pub frame: u64,
    /// 12-bit sequence number of the data frame (§9.2.4.4.2).
    pub seq: u16,
    /// The Retry bit: set on retransmissions of a data frame.
    pub retry: bool,
    /// PSDU bytes.
    pub psdu_bytes: u32,
    /// PHY rate.
    pub rate: Rate,
    /// PLCP format used (11b; 1 Mb/s is always long).
    pub preamble: Preamble,
    /// When the first symbol leaves the antenna.
    pub start: Time,
    /// TXTIME: the medium is busy from `start` to `start + airtime`.
    pub airtime: Dur,
    /// The Duration/ID field: how long after the end of this frame the
    /// medium stays reserved (the NAV others set; §9.2.5, §10.3.2.4).
    pub duration: Dur,
    /// 1 for a first transmission of a data frame or RTS, 2.. for
    /// retransmissions; 1 for responses.
    pub attempt: u8,
}

impl Transmission {
    /// When the last symbol leaves the antenna.
    pub fn end(&self) -> Time {
        self.start + self.airtime
    }
}
