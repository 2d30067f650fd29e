//! The oracle capacity of an 802.15.4 hop (see [`OracleCapacity`]).

use super::{ack_airtime, ack_wait_duration, cca_duration, ifs, ppdu_airtime};
use super::{turnaround_time, unit_backoff_period, FrameLayout};
use crate::time::Dur;

/// The oracle capacity of an 802.15.4 hop: the most user data per second
/// a saturated sender can push through it.
///
/// One acknowledged data frame of MPDU `m` bytes costs the sender the
/// **saturation cycle** (unslotted CSMA-CA, idle medium, no loss):
///
/// ```text
/// T_cycle(m) = B̄ + CCA + aTurnaroundTime + T_ppdu(m) + aTurnaroundTime + T_ack + IFS(m)
///   B̄      = (2^macMinBE − 1)/2 · aUnitBackoffPeriod      mean first back-off (1120 µs)
///   CCA    = 8 symbols (128 µs);  aTurnaroundTime = 12 symbols (192 µs)
///   T_ppdu = (6 + m) · 32 µs;     T_ack = 11 B · 32 µs = 352 µs
///   IFS(m) = SIFS 192 µs if m ≤ 18 B, else LIFS 640 µs
/// ```
///
/// e.g. 100 B of payload in an 111-byte MPDU:
/// 1120 + 128 + 192 + 3744 + 192 + 352 + 640 = 6368 µs, 125.6 kb/s of payload.
///
/// A lost attempt costs
/// `T_lost(m) = B̄ + CCA + aTurnaroundTime + T_ppdu(m) + macAckWaitDuration`.
/// Each attempt is lost independently with probability `p`, so a delivered
/// frame costs on average `p / (1 − p)` lost attempts before it (geometric
/// retries): whoever repairs the loss (the MAC's retries, local recovery or
/// TCP), the medium time of the lost attempts is spent.
///
/// The transport's ACKs travelling the other way share the medium; they
/// are charged their **medium occupancy**, `T_ppdu(a)` plus
/// `aTurnaroundTime` plus `T_ack` for an ACK frame of MPDU `a`, once every
/// `d` data frames (`d` = 2 with delayed ACKs). A lost TCP ACK is not
/// repaired (the next one is cumulative), so it is charged once. Their
/// sender's back-off, CCA and IFS are not charged: they overlap the data
/// sender's own back-offs and IFS. Charging the ACK frame's whole MAC cycle
/// (`T_cycle(a)`) instead would not give a bound: two stations on the MAC
/// alone (no loss, the receiver sending a 33-byte ACK frame every second
/// data frame) deliver 1.017 times that figure.
///
/// ```text
/// capacity = 8 · payload / ( T_cycle(m) + p/(1 − p) · T_lost(m) + (T_ppdu(a) + aTurnaroundTime + T_ack) / d )
/// ```
///
/// With paper 000's frames (127 B data, 33 B TCP ACK frames, `d` = 2) and
/// no loss this is 8 · 94 B / (6880 µs + 1792 µs / 2) = 96.7 kb/s. A
/// TCP flow on paper 000's standard presets (802.15.4 retries, 0.1 frame
/// loss each way) with no primary user reaches 0.880 of its figure:
/// collisions between the two stations and the longer back-offs after a
/// busy CCA are not in the formula.
///
/// The mean back-off makes this an expectation, not a bound on every
/// sample path: over many frames (a 600 s run holds ~10⁵) the realised
/// back-off mean is within a fraction of a percent of `B̄`.
///
/// The fields are the formula's inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OracleCapacity {
    /// The full-size data frame.
    pub data: FrameLayout,
    /// `macMinBE` of the data sender (3 by default).
    pub min_be: u8,
    /// MPDU of the reverse-direction transport ACK frame, if those share the hop.
    pub reverse_ack_mpdu: Option<u16>,
    /// Data frames per reverse ACK frame (`d`; 1, or 2 with delayed ACKs).
    pub data_frames_per_ack: f64,
    /// Probability that a data frame attempt is lost (`p`).
    pub frame_loss: f64,
}

impl OracleCapacity {
    /// One saturated sender of `data` frames, lossless, no reverse traffic.
    pub fn one_way(data: FrameLayout) -> OracleCapacity {
        OracleCapacity {
            data,
            min_be: 3,
            reverse_ack_mpdu: None,
            data_frames_per_ack: 1.0,
            frame_loss: 0.0,
        }
    }

    /// Mean first back-off `B̄ = (2^macMinBE − 1)/2` unit periods, in time.
    pub fn mean_backoff(&self) -> Dur {
        let units = (1u64 << self.min_be.min(20)) - 1;
        // (2^BE − 1)/2 · 320 µs, exact in nanoseconds (320 µs is even).
        Dur::from_nanos(units * unit_backoff_period().as_nanos() / 2)
    }

    /// `T_cycle`: one successful acknowledged frame, back-off to IFS.
    pub fn cycle(&self) -> Dur {
        self.cycle_of(self.data.mpdu_len())
    }

    /// `T_lost`: one attempt whose frame or ACK is lost.
    pub fn lost_attempt(&self) -> Dur {
        self.mean_backoff()
            + cca_duration()
            + turnaround_time()
            + ppdu_airtime(self.data.mpdu_len())
            + ack_wait_duration()
    }

    /// Medium occupancy of one reverse ACK frame (zero if there is none).
    pub fn reverse_ack_occupancy(&self) -> Dur {
        match self.reverse_ack_mpdu {
            Some(a) => ppdu_airtime(a) + turnaround_time() + ack_airtime(),
            None => Dur::ZERO,
        }
    }

    /// `T_cycle` of a frame of MPDU `m` bytes.
    fn cycle_of(&self, m: u16) -> Dur {
        self.mean_backoff()
            + cca_duration()
            + turnaround_time()
            + ppdu_airtime(m)
            + turnaround_time()
            + ack_airtime()
            + ifs(m)
    }

    /// Lost attempts per delivered frame, `p / (1 − p)` (infinite at `p` = 1).
    pub fn lost_per_delivered(&self) -> f64 {
        let p = if self.frame_loss.is_nan() {
            0.0
        } else {
            self.frame_loss.clamp(0.0, 1.0)
        };
        if p >= 1.0 {
            f64::INFINITY
        } else {
            p / (1.0 - p)
        }
    }

    /// Expected medium time per delivered data frame, in seconds (infinite
    /// when every attempt is lost).
    pub fn secs_per_frame(&self) -> f64 {
        let lost = self.lost_per_delivered();
        let d = if self.data_frames_per_ack >= 1.0 {
            self.data_frames_per_ack
        } else {
            1.0
        };
        let lost_time = if lost == 0.0 {
            0.0
        } else {
            lost * self.lost_attempt().as_secs_f64()
        };
        self.cycle().as_secs_f64() + lost_time + self.reverse_ack_occupancy().as_secs_f64() / d
    }

    /// The oracle capacity: user-data bits per second (0 when every
    /// attempt is lost).
    pub fn bps(&self) -> f64 {
        let t = self.secs_per_frame();
        if t.is_finite() {
            8.0 * f64::from(self.data.payload) / t
        } else {
            0.0
        }
    }
}
