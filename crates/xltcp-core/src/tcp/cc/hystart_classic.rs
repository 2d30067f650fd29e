//! Classic HyStart (Ha and Rhee, "Taming the elephants: New TCP slow
//! start", 2011), as CUBIC's implementations run it in place of RFC 9406's
//! HyStart++: slow start ends at once (ssthresh = cwnd) on an ACK train
//! that lasts long enough, or on a round whose least RTT over its first
//! samples exceeds the least RTT seen by a threshold. Two readings differ
//! in their thresholds and in where a round starts, so each has its own
//! update: ns-3's `TcpCubic::HystartUpdate` and Linux's `hystart_update`
//! (`net/ipv4/tcp_cubic.c`).

use super::AckInfo;
use crate::time::{Dur, Time};
use crate::wire::SeqNum;

/// No test below this cwnd, segments (`hystart_low_window`, ns-3's
/// `HyStartLowWindow`).
pub(super) const LOW_WINDOW: u64 = 16;
/// ACKs this close together make a train (`hystart_ack_delta_us`).
const ACK_DELTA: Dur = Dur(2_000_000);
/// A round's least RTT is taken over its first 8 samples.
const MIN_SAMPLES: u32 = 8;
/// The delay threshold's floor.
const DELAY_MIN: Dur = Dur(4_000_000);
/// The delay threshold's ceiling: 1 s in ns-3 (`HyStartDelayMax`), 16 ms
/// in Linux (`HYSTART_DELAY_MAX`).
const NS3_DELAY_MAX: Dur = Dur(1_000_000_000);
const LINUX_DELAY_MAX: Dur = Dur(16_000_000);
/// `hystart_ack_delay`: min(1 ms, 4 · 64 KiB at the pacing rate), 1 ms
/// below 2 Gbit/s, which Linux's unpaced slow start adds to delay_min for
/// its ACK-train threshold.
const LINUX_ACK_DELAY: Dur = Dur(1_000_000);

/// The state of classic HyStart.
#[derive(Clone, Debug, Default)]
pub struct ClassicHyStart {
    /// Slow start was ended; cleared by a timeout.
    pub(super) found: bool,
    round_start: Time,
    last_ack: Time,
    /// The round ends when SND.UNA passes this; `None` before the first.
    pub(super) end_seq: Option<SeqNum>,
    /// The least RTT of the round's first samples.
    curr_rtt: Option<Dur>,
    sample_cnt: u32,
}

impl ClassicHyStart {
    /// A new round (ns-3's `HystartReset`, Linux's
    /// `bictcp_hystart_reset`), ending when SND.UNA passes `end`.
    pub(super) fn reset(&mut self, now: Time, end: SeqNum) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = Some(end);
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// ns-3's `HystartUpdate` for an RTT sample `delay` (its caller
    /// starts the rounds and tests the window): whether slow start ends
    /// now. The train must last delay_min; the delay threshold is
    /// delay_min itself within [4 ms, 1 s].
    pub(super) fn update_ns3(&mut self, now: Time, delay: Dur, delay_min: Dur) -> bool {
        if self.found {
            return false;
        }
        if now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            if now.saturating_since(self.round_start) > delay_min {
                self.found = true;
            }
        }
        if self.sample_cnt < MIN_SAMPLES {
            if self.curr_rtt.is_none_or(|c| c > delay) {
                self.curr_rtt = Some(delay);
            }
            self.sample_cnt += 1;
        } else {
            let thresh = delay_min.clamp(DELAY_MIN, NS3_DELAY_MAX);
            if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
            }
        }
        self.found
    }

    /// Linux's `hystart_update` for an ACK with RTT sample `delay`, at a
    /// cwnd of `cwnd_segs`: whether slow start ends now. A round starts
    /// here when the ACK passes the last one's end; the train must last
    /// half of delay_min plus the ACK delay; the delay threshold is
    /// delay_min/8 within [4 ms, 16 ms].
    pub(super) fn update_linux(
        &mut self,
        ack: &AckInfo,
        cwnd_segs: u64,
        delay: Dur,
        delay_min: Dur,
    ) -> bool {
        if self.end_seq.is_none_or(|end| ack.una > end) {
            self.reset(ack.now, ack.nxt);
        }
        if cwnd_segs < LOW_WINDOW {
            return false;
        }
        if ack.now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = ack.now;
            let threshold = Dur((delay_min + LINUX_ACK_DELAY).0 / 2);
            if ack.now.saturating_since(self.round_start) > threshold {
                self.found = true;
            }
        }
        // The round's least RTT over its first samples, every sample
        // counted.
        if self.curr_rtt.is_none_or(|c| c > delay) {
            self.curr_rtt = Some(delay);
        }
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = Dur(delay_min.0 / 8).clamp(DELAY_MIN, LINUX_DELAY_MAX);
            if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
            }
        }
        self.found
    }
}
