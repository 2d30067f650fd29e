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
//! - RTT_min: the least RTT sample, forgotten at a loss (the next sample
//!   sets it again, as Linux's `reset_rtt_min`).
//! - A loss (three duplicate ACKs, SACK or RACK) sets ssthresh =
//!   max(BWE·RTT_min, 2 SMSS), the paper's rule (ns-3's `GetSsThresh`);
//!   recovery then sets cwnd from it. A timeout sets the same ssthresh
//!   and cwnd = 1 SMSS.
//! - Growth is NewReno's (slow start and congestion avoidance).
//!
//! Only cumulatively acknowledged bytes count towards BWE (Linux also
//! counts a duplicate ACK as one segment delivered).

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

    pub(crate) fn on_sample(&mut self, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.rtt = Some(r);
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        let Some(start) = self.interval_start else {
            self.interval_start = Some(ack.now);
            self.bytes = ack.acked;
            return;
        };
        self.bytes += ack.acked;
        let delta = ack.now.saturating_since(start);
        let rtt = self.rtt.or(ack.srtt).unwrap_or(Dur::ZERO);
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
            self.interval_start = Some(ack.now);
        }
    }

    pub(crate) fn on_ack(&mut self, w: &mut Window, acked: u64, smss: u64, profile: Profile) {
        self.reno.on_ack(w, acked, smss, profile);
    }

    pub(crate) fn ssthresh_on_loss(&mut self, smss: u64) -> u64 {
        // Resets NewReno's byte count.
        self.reno.ssthresh_on_loss(0, smss, Profile::Rfc);
        let s = self.bw_rtt_min(smss);
        self.rtt_min = None;
        s
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
