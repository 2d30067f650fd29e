//! What a host measures of one of its interfaces toward one destination,
//! for the UCL's `goodput` rule: only what its own driver and MAC tell it.
//!
//! Inputs, per interface:
//! - the SNR its radio reports (every `snr_report`);
//! - for every frame the MAC finishes, whether it was acknowledged or given
//!   up after its retries, and for an acknowledged one its size and the
//!   time from the head of the queue to the ACK (contention, backoff, every
//!   attempt at whatever rate the rate control chose: the rate as the host
//!   sees it).
//!
//! From these, two exponentially weighted averages over frames (each frame
//! weighs [`FRAME_WEIGHT`]):
//! - **recent**: over the interface's latest frames, whatever the SNR;
//! - **per SNR bin** ([`BIN_DB`] wide): the same, for the frames sent while
//!   the interface's latest report lay in that bin (a history learned
//!   online, kept for the run).
//!
//! A link's measured goodput is `bits / time × delivered`: the acknowledged
//! bits over their time at the MAC, times the fraction of frames not given
//! up. At an SNR whose bin has no frames, [`Link::at`] interpolates between
//! the nearest measured bins; above the measured range it holds the highest
//! bin's goodput, below it it follows the line through the two lowest bins
//! (between 0 and the lowest bin's goodput); with no bin measured yet, the
//! recent average.
//!
//! This module imports nothing from the simulator (a test checks it): the
//! rule cannot read the channel's error model or the PHY's timing.

use std::collections::BTreeMap;

/// Weight of one frame in an average (our choice: about the last 32 frames).
pub const FRAME_WEIGHT: f64 = 1.0 / 32.0;

/// Width of an SNR bin, dB (our choice).
pub const BIN_DB: f64 = 1.0;

/// Frames an average needs before it counts as a measurement (our choice:
/// two, so that an interface that fails is judged after its first frames).
pub const MIN_FRAMES: u32 = 2;

/// What the MAC said of one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Frame {
    /// Acknowledged: its bits and, when the MAC measures it, the time from
    /// the head of the queue to the ACK (seconds).
    Delivered {
        /// Bits of the frame's packet.
        bits: f64,
        /// Head of queue to ACK, seconds.
        tx_s: Option<f64>,
    },
    /// Given up after the MAC's retries (or no channel access).
    Lost,
}

/// Exponentially weighted averages over frames.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Avg {
    /// Bits of an acknowledged frame.
    bits: f64,
    /// Its time at the MAC, seconds.
    time: f64,
    /// Fraction of frames acknowledged.
    delivered: f64,
    /// Frames counted.
    frames: u32,
    /// Acknowledged frames with a time.
    timed: u32,
}

fn ewma(avg: &mut f64, x: f64, n: u32) {
    // The first sample sets the average; then each weighs FRAME_WEIGHT (or
    // 1/n while n is smaller, so early samples count equally).
    let w = (1.0 / f64::from(n)).max(FRAME_WEIGHT);
    *avg += w * (x - *avg);
}

impl Avg {
    fn add(&mut self, f: Frame) {
        self.frames = self.frames.saturating_add(1);
        let ok = matches!(f, Frame::Delivered { .. });
        ewma(&mut self.delivered, if ok { 1.0 } else { 0.0 }, self.frames);
        if let Frame::Delivered {
            bits,
            tx_s: Some(t),
        } = f
        {
            if t > 0.0 && bits > 0.0 {
                self.timed = self.timed.saturating_add(1);
                ewma(&mut self.bits, bits, self.timed);
                ewma(&mut self.time, t, self.timed);
            }
        }
    }

    /// Measured goodput, bit/s (`None`: too few frames).
    fn goodput(&self) -> Option<f64> {
        if self.frames < MIN_FRAMES {
            return None;
        }
        if self.timed == 0 {
            // Frames but none acknowledged with a time: nothing got through
            // that the host could time.
            return (self.delivered == 0.0).then_some(0.0);
        }
        Some(self.bits / self.time * self.delivered)
    }
}

/// One interface toward one destination, as its host measures it.
#[derive(Clone, Debug, Default)]
pub struct Link {
    /// The latest reported SNR, dB.
    snr: Option<f64>,
    recent: Avg,
    bins: BTreeMap<i32, Avg>,
}

fn bin(db: f64) -> i32 {
    (db / BIN_DB).floor().clamp(-1000.0, 1000.0) as i32
}

fn centre(b: i32) -> f64 {
    (f64::from(b) + 0.5) * BIN_DB
}

impl Link {
    /// The radio reported `db`.
    pub fn snr(&mut self, db: f64) {
        if db.is_finite() {
            self.snr = Some(db);
        }
    }

    /// The MAC finished a frame sent on this interface.
    pub fn frame(&mut self, f: Frame) {
        self.recent.add(f);
        if let Some(db) = self.snr {
            self.bins.entry(bin(db)).or_default().add(f);
        }
    }

    /// Whether any frame has been measured (at least [`MIN_FRAMES`]).
    pub fn measured(&self) -> bool {
        self.recent.frames >= MIN_FRAMES
    }

    /// Measured goodput over the latest frames, bit/s.
    pub fn recent(&self) -> Option<f64> {
        self.recent.goodput()
    }

    /// Measured goodput at `db` from the history (see the module doc).
    pub fn at(&self, db: f64) -> Option<f64> {
        let b = bin(db);
        let measured = |(k, a): (&i32, &Avg)| a.goodput().map(|g| (*k, g));
        if let Some(g) = self.bins.get(&b).and_then(Avg::goodput) {
            return Some(g);
        }
        let below = self.bins.range(..b).rev().find_map(measured);
        let above = self.bins.range(b + 1..).find_map(measured);
        let line = |(lo, glo): (i32, f64), (hi, ghi): (i32, f64)| {
            let x = (db - centre(lo)) / (centre(hi) - centre(lo));
            glo + (ghi - glo) * x
        };
        match (below, above) {
            (Some(lo), Some(hi)) => Some(line(lo, hi)),
            // Above the range: at least the highest bin's (goodput does not
            // fall as the SNR rises).
            (Some((_, g)), None) => Some(g),
            // Below it: the line through the two lowest bins, at most the
            // lowest one's, at least 0.
            (None, Some(lo)) => {
                let next = self.bins.range(lo.0 + 1..).find_map(measured);
                let g = next.map_or(lo.1, |hi| line(lo, hi));
                Some(g.clamp(0.0, lo.1))
            }
            // Frames, but none while an SNR was known: the latest ones.
            (None, None) => self.recent(),
        }
    }
}
