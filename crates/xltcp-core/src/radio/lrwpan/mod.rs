//! IEEE 802.15.4 (2006) in the 2.4 GHz band: O-QPSK PHY timing, frame
//! layouts, the unslotted CSMA-CA MAC with acknowledged retransmissions,
//! and the hop's oracle capacity.
//!
//! PHY (802.15.4-2006 §6.5): 250 kb/s, 62.5 ksymbol/s so one symbol is
//! 16 µs and one octet two symbols (32 µs). Every PPDU carries a 6-byte
//! SHR + PHR (preamble 4 B, SFD 1 B, PHR 1 B = 192 µs) before a PSDU of at
//! most `aMaxPHYPacketSize` = 127 bytes; the PSDU is the MAC frame (MPDU).
//!
//! MAC timing constants are kept in symbols, as the standard states them,
//! and converted with [`symbols`]. The state machine is [`Mac`]; the frame
//! size presets are [`FrameLayout`]; the capacity formula is
//! [`OracleCapacity`].
//!
//! Simplifications (what the model leaves out and what it costs):
//! - Non-beacon mode only (unslotted CSMA-CA); no GTS, no superframe.
//! - CCA is "busy if the medium was busy at any instant of the 8-symbol
//!   window" rather than an energy average; a very short burst therefore
//!   counts as busy, slightly pessimistic.
//! - The receiver's ACK is sent `aTurnaroundTime` after the data frame
//!   without CSMA (§7.5.6.4.2): the engine reports an intact data frame to
//!   the receiving station's [`Mac::handle_data`], which emits the ACK as a
//!   [`Transmission`] of kind [`TxKind::Ack`]; the engine hands it to the
//!   sender's [`Mac::handle_ack`] if it arrives intact. Whether a frame is
//!   intact (collisions, primary users, bit errors from [`super::oqpsk`])
//!   is the engine's medium model. The MAC does not model addressing,
//!   duplicate rejection or the data sequence number; frames are opaque ids.

mod capacity;
mod layout;
mod mac;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_medium;

pub use capacity::OracleCapacity;
pub use layout::FrameLayout;
pub use mac::{
    Csma, Frame, Mac, MacConfig, MacEvent, MacStats, Transmission, TxKind, UndeliveredReason,
};

use crate::time::Dur;

/// Raw PHY bit rate: 250 kb/s.
pub const BIT_RATE_BPS: u64 = 250_000;
/// One O-QPSK symbol (4 bits at 62.5 ksymbol/s): 16 µs.
pub const SYMBOL: Dur = Dur::from_micros(16);
/// `phySymbolsPerOctet`: two symbols per byte (32 µs).
pub const PHY_SYMBOLS_PER_OCTET: u64 = 2;
/// `phySHRDuration`: preamble (8 symbols) + SFD (2 symbols).
pub const PHY_SHR_DURATION_SYMBOLS: u64 = 10;
/// SHR (5 B) + PHR (1 B) in front of every PSDU.
pub const PHY_OVERHEAD_BYTES: u16 = 6;
/// `aMaxPHYPacketSize`: the largest PSDU (= MPDU), in bytes.
pub const A_MAX_PHY_PACKET_SIZE: u16 = 127;
/// `aTurnaroundTime`: RX↔TX switch, 12 symbols (192 µs).
pub const A_TURNAROUND_TIME_SYMBOLS: u64 = 12;
/// CCA detection time: 8 symbols (128 µs).
pub const CCA_DURATION_SYMBOLS: u64 = 8;
/// `aUnitBackoffPeriod`: 20 symbols (320 µs).
pub const A_UNIT_BACKOFF_PERIOD_SYMBOLS: u64 = 20;
/// `aMaxSIFSFrameSize`: MPDUs up to this size are followed by a SIFS.
pub const A_MAX_SIFS_FRAME_SIZE: u16 = 18;
/// `macSIFSPeriod` (= `aMinSIFSPeriod`): 12 symbols (192 µs).
pub const MAC_SIFS_PERIOD_SYMBOLS: u64 = 12;
/// `macLIFSPeriod` (= `aMinLIFSPeriod`): 40 symbols (640 µs).
pub const MAC_LIFS_PERIOD_SYMBOLS: u64 = 40;
/// The ACK frame MPDU: frame control 2 B, sequence number 1 B, FCS 2 B.
pub const ACK_MPDU_BYTES: u16 = 5;
/// `macAckWaitDuration` = aUnitBackoffPeriod + aTurnaroundTime +
/// phySHRDuration + ⌈6 · phySymbolsPerOctet⌉ = 20 + 12 + 10 + 12 = 54 symbols.
pub const MAC_ACK_WAIT_DURATION_SYMBOLS: u64 = A_UNIT_BACKOFF_PERIOD_SYMBOLS
    + A_TURNAROUND_TIME_SYMBOLS
    + PHY_SHR_DURATION_SYMBOLS
    + 6 * PHY_SYMBOLS_PER_OCTET;

/// `n` symbol periods.
pub const fn symbols(n: u64) -> Dur {
    Dur::from_nanos(n * SYMBOL.as_nanos())
}

/// Airtime of a PPDU carrying a `psdu_bytes`-byte PSDU: (6 + n) · 32 µs.
/// A 127-byte PSDU takes 4.256 ms.
pub const fn ppdu_airtime(psdu_bytes: u16) -> Dur {
    symbols((PHY_OVERHEAD_BYTES as u64 + psdu_bytes as u64) * PHY_SYMBOLS_PER_OCTET)
}

/// Airtime of the ACK frame's PPDU (11 B): 352 µs.
pub const fn ack_airtime() -> Dur {
    ppdu_airtime(ACK_MPDU_BYTES)
}

/// `aUnitBackoffPeriod` as a duration: 320 µs.
pub const fn unit_backoff_period() -> Dur {
    symbols(A_UNIT_BACKOFF_PERIOD_SYMBOLS)
}

/// CCA duration: 128 µs.
pub const fn cca_duration() -> Dur {
    symbols(CCA_DURATION_SYMBOLS)
}

/// `aTurnaroundTime` as a duration: 192 µs.
pub const fn turnaround_time() -> Dur {
    symbols(A_TURNAROUND_TIME_SYMBOLS)
}

/// `macAckWaitDuration` as a duration: 864 µs, counted from the end of the
/// data frame's last symbol.
pub const fn ack_wait_duration() -> Dur {
    symbols(MAC_ACK_WAIT_DURATION_SYMBOLS)
}

/// The inter-frame space that must follow an MPDU of `mpdu_bytes`:
/// SIFS (192 µs) if it is at most `aMaxSIFSFrameSize` (18 B), else LIFS
/// (640 µs). For an acknowledged frame the IFS follows the ACK.
pub const fn ifs(mpdu_bytes: u16) -> Dur {
    if mpdu_bytes <= A_MAX_SIFS_FRAME_SIZE {
        symbols(MAC_SIFS_PERIOD_SYMBOLS)
    } else {
        symbols(MAC_LIFS_PERIOD_SYMBOLS)
    }
}

/// When the receiver's ACK has fully arrived for a data frame whose last
/// symbol left the air at `frame_end`: `aTurnaroundTime` later the ACK starts,
/// and it lasts [`ack_airtime`] (192 + 352 = 544 µs after `frame_end`).
pub fn ack_arrival(frame_end: crate::time::Time) -> crate::time::Time {
    frame_end + turnaround_time() + ack_airtime()
}
