//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood:
//! bandwidth estimation for enhanced transport over wireless links",
//! MobiCom 2001; Westwood+'s once-per-RTT sampling from Grieco and Mascolo,
//! CCR 2004), as Linux's `tcp_westwood` and ns-3's `TcpWestwoodPlus` run
//! it.
//!
//! - The bandwidth estimate (BWE): the bytes acknowledged over an interval
//!   of at least one RTT (and at least 50 ms, as Linux), divided by the
//!   interval, through two first-order filters of gain 7/8 (Linux's
//!   `westwood_filter`); the first sample sets both.
//! - RTT_min: the least RTT sample, forgotten at a timeout (the next
//!   sample sets it again, as Linux's `reset_rtt_min` on `CA_EVENT_LOSS`);
//!   a fast retransmit keeps it.
//! - A loss (three duplicate ACKs, SACK or RACK) sets ssthresh =
//!   max(BWE·RTT_min, 2 SMSS), the paper's rule (ns-3's `GetSsThresh`);
//!   recovery then sets cwnd from it. A timeout sets the same ssthresh
//!   and cwnd = 1 SMSS.
//! - Growth is NewReno's (slow start and congestion avoidance).
//!
//! A duplicate ACK counts as one SMSS delivered, and a later cumulative
//! ACK of more than one SMSS counts only what the duplicate ACKs before it
//! did not (Linux's `westwood_acked_count`; the paper's rule): without it
//! the estimate sags during every recovery, when SND.UNA stands still while
//! the hop goes on delivering.

use super::{AckInfo, NewReno, Window};
use crate::tcp::config::Profile;
use crate::time::{Dur, Time};

/// The shortest sampling interval (Linux's `TCP_WESTWOOD_RTT_MIN`).
pub const MIN_INTERVAL: Dur = Dur(50_000_000);

/// State of the Westwood+ controller.
#[derive(Clone, Debug)]
pub struct Westwood {
    reno: NewReno,
    /// Start of the current sampling interval; `None` before the first ACK.
    interval_start: Option<Time>,
    /// Bytes acknowledged in it.
    bytes: u64,
    /// The first filter's output and BWE, in bytes per second.
    bw_ns: u64,
    bw: u64,
    /// Bytes duplicate ACKs counted that no cumulative ACK has covered yet
    /// (Linux's `accounted`).
    accounted: u64,
    /// The latest RTT sample and the least since the last loss.
    rtt: Option<Dur>,
    rtt_min: Option<Dur>,
}

impl Westwood {
    /// A controller whose growth is NewReno's with `abc_limit`.
    pub fn new(abc_limit: u32) -> Westwood {
        Westwood {
            reno: NewReno::new(abc_limit),
            interval_start: None,
            bytes: 0,
            bw_ns: 0,
            bw: 0,
            accounted: 0,
            rtt: None,
            rtt_min: None,
        }
    }

    /// The bandwidth estimate, bytes per second.
    pub fn bwe(&self) -> u64 {
        self.bw
    }

    /// BWE·RTT_min in bytes, at least 2 SMSS.
    pub fn bw_rtt_min(&self, smss: u64) -> u64 {
        let rtt = self.rtt_min.unwrap_or(Dur::ZERO).0;
        let bytes = u128::from(self.bw) * u128::from(rtt) / 1_000_000_000;
        (bytes as u64).max(2 * smss)
    }

    pub(crate) fn on_sample(&mut self, ack: &AckInfo, smss: u64) {
        if let Some(r) = ack.rtt {
            self.rtt = Some(r);
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        // Linux's `westwood_acked_count` for an ACK that advances SND.UNA.
        let mut cumul = ack.acked;
        if cumul > smss {
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = smss;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        self.count(ack.now, ack.srtt, cumul);
    }

    /// A duplicate ACK: one SMSS delivered (`westwood_acked_count`).
    pub(crate) fn on_dupack(&mut self, now: Time, srtt: Option<Dur>, smss: u64) {
        self.accounted += smss;
        self.count(now, srtt, smss);
    }

    /// Adds `bytes` delivered at `now` and closes the sampling interval once
    /// it is longer than the RTT and 50 ms.
    fn count(&mut self, now: Time, srtt: Option<Dur>, bytes: u64) {
        let Some(start) = self.interval_start else {
            self.interval_start = Some(now);
            self.bytes = bytes;
            return;
        };
        self.bytes += bytes;
        let delta = now.saturating_since(start);
        let rtt = self.rtt.or(srtt).unwrap_or(Dur::ZERO);
        if delta > rtt.max(MIN_INTERVAL) {
            let sample = (u128::from(self.bytes) * 1_000_000_000 / u128::from(delta.0)) as u64;
            if self.bw == 0 {
                self.bw_ns = sample;
                self.bw = sample;
            } else {
                self.bw_ns = (7 * self.bw_ns + sample) / 8;
                self.bw = (7 * self.bw + self.bw_ns) / 8;
            }
            self.bytes = 0;
            self.interval_start = Some(now);
        }
    }

    pub(crate) fn on_ack(&mut self, w: &mut Window, acked: u64, smss: u64, profile: Profile) {
        self.reno.on_ack(w, acked, smss, profile);
    }

    pub(crate) fn ssthresh_on_loss(&mut self, smss: u64) -> u64 {
        // Resets NewReno's byte count.
        self.reno.ssthresh_on_loss(0, smss, Profile::Rfc);
        self.bw_rtt_min(smss)
    }

    pub(crate) fn on_rto(&mut self, w: &mut Window, smss: u64, first: bool) {
        let ssthresh = self.bw_rtt_min(smss);
        self.reno.on_rto(w, 0, smss, first);
        if first {
            w.ssthresh = ssthresh;
            self.rtt_min = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::SeqNum;

    const SMSS: u64 = 1000;

    fn at(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    fn ack(now: Time, acked: u64, rtt: Option<Dur>) -> AckInfo {
        AckInfo {
            now,
            acked,
            rtt,
            srtt: Some(Dur::from_millis(10)),
            una: SeqNum(0),
            nxt: SeqNum(0),
            in_flight: 0,
            fast_recovery: false,
        }
    }

    #[test]
    fn duplicate_acks_count_as_delivered_segments() {
        let mut w = Westwood::new(1);
        w.on_sample(&ack(at(0), SMSS, Some(Dur::from_millis(10))), SMSS);
        // Ten dupACKs 10 ms apart; the interval (at least 50 ms) closes
        // with the sixth: one segment ACKed plus six dupACKs over 60 ms.
        for i in 1..=10 {
            w.on_dupack(at(10 * i), Some(Dur::from_millis(10)), SMSS);
        }
        assert_eq!(w.bwe(), 7 * SMSS * 1000 / 60);
        // The cumulative ACK that ends the recovery covers the ten dupACKed
        // segments and one more: only that one is new.
        w.on_sample(&ack(at(110), 11 * SMSS, None), SMSS);
        assert_eq!(w.accounted, 0);
        assert_eq!(w.bytes, 4 * SMSS + SMSS);
    }

    #[test]
    fn rtt_min_survives_a_fast_retransmit_and_not_a_timeout() {
        let mut w = Westwood::new(1);
        w.on_sample(&ack(at(0), SMSS, Some(Dur::from_millis(20))), SMSS);
        w.ssthresh_on_loss(SMSS);
        assert_eq!(w.rtt_min, Some(Dur::from_millis(20)));
        let mut win = Window {
            cwnd: 10 * SMSS,
            ssthresh: u64::MAX,
        };
        w.on_rto(&mut win, SMSS, true);
        assert_eq!(w.rtt_min, None);
    }
}
