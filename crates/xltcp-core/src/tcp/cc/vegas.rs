//! TCP Vegas (Brakmo and Peterson, "TCP Vegas: end to end congestion
//! avoidance on a global Internet", IEEE JSAC 13(8), 1995), as Linux's
//! `tcp_vegas` and ns-3's `TcpVegas` run it.
//!
//! - BaseRTT is the least RTT sample of the connection; each round trip
//!   (an ACK beyond the SND.NXT of the last decision) keeps the least
//!   sample of the round, RTT, and how many it had.
//! - Once per round trip, with at least three samples: the paper's
//!   Expected = cwnd/BaseRTT and Actual = cwnd/RTT give the segments
//!   queued in the network; as Linux writes it, diff = cwnd·(RTT -
//!   BaseRTT)/BaseRTT segments, and the window that would queue none is
//!   target = cwnd·BaseRTT/RTT.
//!   - In slow start, diff > gamma (1) ends it: cwnd = min(cwnd, target +
//!     1), ssthresh = min(ssthresh, cwnd - 1); otherwise slow start goes on.
//!   - In congestion avoidance, diff > beta (4): cwnd - 1 segment and
//!     ssthresh = min(ssthresh, cwnd - 1); diff < alpha (2): cwnd + 1;
//!     between them cwnd stays.
//!   - cwnd is at least 2 segments; ssthresh at least 3/4 cwnd (Linux's
//!     `tcp_current_ssthresh`).
//!
//!   With fewer samples the round grows cwnd as NewReno does.
//! - Between decisions, slow start grows cwnd per ACK (RFC 5681).
//! - A loss or timeout reduces as NewReno does; the rounds start over when
//!   recovery ends.

use super::newreno::slow_start;
use super::{AckInfo, NewReno, Window};
use crate::tcp::config::Profile;
use crate::time::Dur;
use crate::wire::SeqNum;

/// Vegas's thresholds, in segments (Linux's defaults).
pub const ALPHA: u64 = 2;
/// Above it the window shrinks.
pub const BETA: u64 = 4;
/// Above it slow start ends.
pub const GAMMA: u64 = 1;

/// State of the Vegas controller.
#[derive(Clone, Debug)]
pub struct Vegas {
    reno: NewReno,
    abc_limit: u32,
    /// The least RTT sample of the connection.
    base_rtt: Option<Dur>,
    /// The least RTT sample of this round and how many it had.
    min_rtt: Option<Dur>,
    count: u32,
    /// The round ends with an ACK beyond this (SND.NXT at its start).
    round_end: Option<SeqNum>,
}

impl Vegas {
    /// A controller; `abc_limit` as NewReno's in slow start.
    pub fn new(abc_limit: u32) -> Vegas {
        Vegas {
            reno: NewReno::new(abc_limit),
            abc_limit,
            base_rtt: None,
            min_rtt: None,
            count: 0,
            round_end: None,
        }
    }

    /// BaseRTT, once sampled.
    pub fn base_rtt(&self) -> Option<Dur> {
        self.base_rtt
    }

    pub(crate) fn on_sample(&mut self, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.count += 1;
        }
    }

    pub(crate) fn on_ack(&mut self, w: &mut Window, ack: &AckInfo, smss: u64, profile: Profile) {
        let Some(end) = self.round_end else {
            self.new_round(ack.nxt);
            return self.reno.on_ack(w, ack.acked, smss, profile);
        };
        if ack.una <= end {
            if w.cwnd < w.ssthresh {
                slow_start(w, ack.acked, smss, profile, self.abc_limit);
            }
            return;
        }
        let (Some(rtt), Some(base)) = (self.min_rtt, self.base_rtt) else {
            self.new_round(ack.nxt);
            return self.reno.on_ack(w, ack.acked, smss, profile);
        };
        if self.count <= 2 {
            self.new_round(ack.nxt);
            return self.reno.on_ack(w, ack.acked, smss, profile);
        }
        let cwnd = w.cwnd / smss;
        let base_ns = u128::from(base.0.max(1));
        let target = (u128::from(cwnd) * base_ns / u128::from(rtt.0.max(1))) as u64;
        let diff = (u128::from(cwnd) * u128::from(rtt.0.saturating_sub(base.0)) / base_ns) as u64;
        let mut seg = cwnd;
        let mut ssthresh = w.ssthresh;
        if w.cwnd < w.ssthresh {
            if diff > GAMMA {
                seg = seg.min(target + 1);
                ssthresh = ssthresh.min((seg.saturating_sub(1)) * smss);
                w.cwnd = seg * smss;
            } else {
                slow_start(w, ack.acked, smss, profile, self.abc_limit);
            }
        } else if diff > BETA {
            seg -= 1;
            ssthresh = ssthresh.min((seg.saturating_sub(1)) * smss);
            w.cwnd = seg * smss;
        } else if diff < ALPHA {
            w.cwnd = (seg + 1) * smss;
        }
        w.cwnd = w.cwnd.max(2 * smss);
        // Linux's `tcp_current_ssthresh`: at least 3/4 cwnd.
        let cwnd = w.cwnd;
        w.ssthresh = ssthresh.max(cwnd / 2 + cwnd / 4);
        self.new_round(ack.nxt);
    }

    fn new_round(&mut self, nxt: SeqNum) {
        self.round_end = Some(nxt);
        self.min_rtt = None;
        self.count = 0;
    }

    pub(crate) fn ssthresh_on_loss(&mut self, flight: u64, smss: u64, profile: Profile) -> u64 {
        self.round_end = None;
        self.reno.ssthresh_on_loss(flight, smss, profile)
    }

    pub(crate) fn on_recovery_exit(&mut self) {
        self.round_end = None;
    }

    pub(crate) fn on_rto(&mut self, w: &mut Window, flight: u64, smss: u64, first: bool) {
        self.round_end = None;
        self.reno.on_rto(w, flight, smss, first);
    }
}
