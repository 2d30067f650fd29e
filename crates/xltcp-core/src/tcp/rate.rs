//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation,
//! as Linux's `tcp_rate.c`), for controllers that model the path (BBR).
//!
//! Each transmitted segment's record in the transmission log (`rack.rs`)
//! carries a [`RateStamp`]: how much the connection had delivered, and
//! when, at the moment the segment left (§3.2). When an ACK acknowledges
//! or SACKs a segment, the connection's delivered count grows by its
//! length, and the most recently sent of the segments newly delivered
//! gives the ACK's [`RateSample`] (§3.3): the bytes delivered since that
//! segment left over the longer of its send and ACK intervals, so that
//! neither ACK compression nor a sender burst inflates the rate.
//!
//! The stamps are only written and read while the congestion controller
//! asks for samples ([`super::CongestionControl::wants_rate_samples`]); the
//! log is then kept whatever RACK, TLP and the RTT sampling say.
//!
//! Choices and simplifications:
//! - delivered counts bytes (Linux counts segments); a segment counts when
//!   it is wholly acknowledged or SACKed, the head of a segment only partly
//!   acknowledged counts (without a sample) when the ACK trims it;
//! - without SACK, each duplicate ACK delivers one SMSS (as Linux counts
//!   one segment, `tcp_add_reno_sack`) and gives no sample; the cumulative
//!   ACK that follows counts only the bytes they did not (a timeout
//!   forgets them). Without this the ACK that fills a hole would deliver a
//!   window at once and give a rate many times the path's;
//! - a sample whose interval is shorter than the least RTT seen is
//!   discarded (Linux's `tcp_rate_gen`), as is one with no segment stamped
//!   since the sender last went idle.

use crate::time::{Dur, Time};

/// The connection's delivery state (the draft's `C.*`, §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateState {
    /// `C.delivered`: data bytes delivered (acknowledged or SACKed) so far.
    pub delivered: u64,
    /// `C.delivered_time`: when `delivered` last grew.
    pub delivered_time: Time,
    /// `C.first_sent_time`: the send time of the segment whose delivery
    /// gave the last sample (or when the sender left idle).
    pub first_sent_time: Time,
    /// `C.app_limited`: while non-zero, the `delivered` value up to which
    /// samples are application-limited (§3.4); zero when not.
    pub app_limited: u64,
    /// Bytes duplicate ACKs delivered (without SACK) that no cumulative
    /// ACK has covered yet.
    pub dup_credit: u64,
}

/// What a segment's record keeps of [`RateState`] when it is sent (the
/// draft's `P.*`, §3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateStamp {
    /// `P.delivered`.
    pub delivered: u64,
    /// `P.delivered_time`.
    pub delivered_time: Time,
    /// `P.first_sent_time`.
    pub first_sent_time: Time,
    /// `P.is_app_limited`.
    pub app_limited: bool,
}

/// The rate sample of one ACK (the draft's `RS.*`, §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// `RS.delivered`: bytes delivered over `interval`.
    pub delivered: u64,
    /// `RS.interval`: max(send_elapsed, ack_elapsed); zero when the ACK
    /// gives no valid sample.
    pub interval: Dur,
    /// `RS.prior_delivered`: `C.delivered` when the sampled segment left.
    pub prior_delivered: u64,
    /// `RS.is_app_limited`: the sampled segment left while the sender was
    /// application-limited.
    pub is_app_limited: bool,
    /// Bytes this ACK newly delivered (Linux's `acked_sacked`).
    pub newly_delivered: u64,
    /// Round trip of the most recently sent segment it delivered, if that
    /// one was never resent (Linux's `rs->rtt_us`).
    pub rtt: Option<Dur>,
}

impl RateSample {
    /// Whether the sample measures a rate (draft §3.3: a segment was
    /// sampled and the interval is long enough).
    pub fn is_valid(&self) -> bool {
        self.interval > Dur::ZERO
    }

    /// The delivery rate, bytes per second (0 without a valid sample).
    pub fn rate(&self) -> u64 {
        if !self.is_valid() {
            return 0;
        }
        (u128::from(self.delivered) * 1_000_000_000 / u128::from(self.interval.0)) as u64
    }
}

/// The sample under construction while one ACK is read from the log.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RateAcc {
    /// Samples are wanted (otherwise every method is a no-op).
    pub on: bool,
    now: Time,
    sampled: bool,
    prior_delivered: u64,
    send_elapsed: Dur,
    ack_elapsed: Dur,
    app_limited: bool,
    newest_xmit: Option<Time>,
    rtt: Option<Dur>,
    newly: u64,
}

impl RateAcc {
    /// An empty sample for an ACK at `now`, collected only with `on`.
    pub fn at(now: Time, on: bool) -> RateAcc {
        RateAcc {
            on,
            now,
            ..RateAcc::default()
        }
    }

    /// draft §3.3 `UpdateRateSample`: segment `[.., len)` sent at `xmit`
    /// with `stamp` is delivered now.
    pub fn deliver(
        &mut self,
        c: &mut RateState,
        len: u64,
        xmit: Time,
        stamp: &RateStamp,
        resent: bool,
    ) {
        if !self.on {
            return;
        }
        self.count(c, len);
        // The segment sent last among those delivered by this ACK (the
        // draft's "P.delivered >= RS.prior_delivered"; Linux compares send
        // times, which is the same order for a sender that stamps in order).
        let newest = !self.sampled || stamp.delivered >= self.prior_delivered;
        if newest {
            self.sampled = true;
            self.prior_delivered = stamp.delivered;
            self.send_elapsed = xmit.saturating_since(stamp.first_sent_time);
            self.ack_elapsed = self.now.saturating_since(stamp.delivered_time);
            self.app_limited = stamp.app_limited;
            c.first_sent_time = xmit;
        }
        if self.newest_xmit.is_none_or(|t| xmit >= t) {
            self.newest_xmit = Some(xmit);
            self.rtt = (!resent).then(|| self.now.saturating_since(xmit));
        }
    }

    /// Bytes delivered without a sample (the acknowledged head of a
    /// segment the ACK only trims).
    pub fn deliver_part(&mut self, c: &mut RateState, len: u64) {
        if self.on && len > 0 {
            self.count(c, len);
        }
    }

    /// A duplicate ACK without SACK: one segment of `smss` bytes left the
    /// network (no sample).
    pub fn deliver_dup(&mut self, c: &mut RateState, smss: u64) {
        if self.on {
            c.delivered += smss;
            c.delivered_time = self.now;
            c.dup_credit += smss;
            self.newly += smss;
        }
    }

    /// Counts `len` acknowledged bytes, less those duplicate ACKs counted.
    fn count(&mut self, c: &mut RateState, len: u64) {
        let counted = c.dup_credit.min(len);
        c.dup_credit -= counted;
        c.delivered += len - counted;
        c.delivered_time = self.now;
        self.newly += len - counted;
    }

    /// draft §3.3 `GenerateRateSample`, with Linux's floor on the interval
    /// (`min_rtt`, the least RTT seen).
    pub fn finish(&self, c: &mut RateState, min_rtt: Option<Dur>) -> RateSample {
        // §3.4: the application-limited period ends once its data is delivered.
        if c.app_limited != 0 && c.delivered > c.app_limited {
            c.app_limited = 0;
        }
        let mut rs = RateSample {
            newly_delivered: self.newly,
            rtt: self.rtt,
            ..RateSample::default()
        };
        if !self.sampled {
            return rs;
        }
        rs.prior_delivered = self.prior_delivered;
        rs.is_app_limited = self.app_limited;
        rs.delivered = c.delivered - self.prior_delivered;
        let interval = self.send_elapsed.max(self.ack_elapsed);
        // Linux `tcp_rate_gen`: an interval below min_RTT is an artefact.
        if min_rtt.is_none_or(|m| interval >= m) {
            rs.interval = interval;
        }
        rs
    }
}

impl RateState {
    /// draft §3.2 `OnPacketSent`: the stamp for a segment sent at `now`;
    /// `idle` says nothing was in flight before it.
    pub fn stamp(&mut self, now: Time, idle: bool) -> RateStamp {
        if idle {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        RateStamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
        }
    }

    /// draft §3.4: the sender has no data to fill the window it may send;
    /// samples stay application-limited until what is in flight now
    /// (`in_flight` bytes) is delivered.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    /// Ten 1000 B segments sent 1 ms apart from idle at t = 0, ACKed one by
    /// one 100 ms after each was sent but over a link that delivers one
    /// every 2 ms: the rate is the slower ACK rate, 500 kB/s.
    #[test]
    fn rate_is_the_slower_of_send_and_ack_rates() {
        let mut c = RateState::default();
        let stamps: Vec<(Time, RateStamp)> =
            (0..10).map(|k| (t(k), c.stamp(t(k), k == 0))).collect();
        assert_eq!(stamps[3].1.delivered, 0);
        assert_eq!(stamps[3].1.first_sent_time, t(0));
        let mut last = RateSample::default();
        for (k, (xmit, stamp)) in stamps.iter().enumerate() {
            let at = t(100 + 2 * k as u64);
            let mut acc = RateAcc::at(at, true);
            acc.deliver(&mut c, 1000, *xmit, stamp, false);
            last = acc.finish(&mut c, Some(Dur::from_millis(1)));
            assert_eq!(last.newly_delivered, 1000);
            assert_eq!(last.rtt, Some(at.saturating_since(*xmit)));
        }
        assert_eq!(c.delivered, 10_000);
        // The last segment was stamped with delivered = 0 at t = 0 (nothing
        // delivered before t = 100): 10 000 B over max(9 ms send, 118 ms ack).
        assert_eq!(last.delivered, 10_000);
        assert_eq!(last.interval, Dur::from_millis(118));
        assert_eq!(last.rate(), 10_000 * 1000 / 118);
        // A segment sent after the first ACKs: delivered = 5000 at t = 108
        // (ACK of segment 4), sent at t = 110, ACKed at t = 210 together
        // with nothing else: 5000 B delivered since over
        // max(110 - 9, 210 - 108) ms.
        let mut c2 = c;
        c2.delivered = 5000;
        c2.delivered_time = t(108);
        let s = c2.stamp(t(110), false);
        let mut acc = RateAcc::at(t(210), true);
        acc.deliver(&mut c2, 1000, t(110), &s, false);
        let rs = acc.finish(&mut c2, None);
        assert_eq!(rs.delivered, 1000);
        assert_eq!(rs.interval, Dur::from_millis(102));
        assert_eq!(rs.rate(), 1000 * 1000 / 102);
    }

    /// A burst ACKed at once: the send interval bounds the rate; an
    /// interval under min_RTT gives no sample; app-limited marks end once
    /// their data is delivered.
    #[test]
    fn compressed_acks_and_app_limited() {
        let mut c = RateState::default();
        let a = c.stamp(t(0), true);
        let b = c.stamp(t(10), false);
        let mut acc = RateAcc::at(t(50), true);
        acc.deliver(&mut c, 1000, t(0), &a, false);
        acc.deliver(&mut c, 1000, t(10), &b, true);
        let rs = acc.finish(&mut c, None);
        // Both ACKed at t = 50: ack_elapsed 50 ms beats send_elapsed 10 ms.
        assert_eq!((rs.delivered, rs.interval), (2000, Dur::from_millis(50)));
        assert_eq!(rs.rtt, None, "the newest segment was resent");
        let rs = acc.finish(&mut c, Some(Dur::from_millis(60)));
        assert!(!rs.is_valid());
        assert_eq!(rs.rate(), 0);
        c.mark_app_limited(2500);
        assert_eq!(c.app_limited, 4500);
        let p = c.stamp(t(60), false);
        assert!(p.app_limited);
        let mut acc = RateAcc::at(t(160), true);
        acc.deliver(&mut c, 3000, t(60), &p, false);
        let rs = acc.finish(&mut c, None);
        assert!(rs.is_app_limited);
        assert_eq!(c.app_limited, 0, "5000 B delivered: the mark is passed");
        // Off: nothing counted.
        let mut acc = RateAcc::at(t(200), false);
        acc.deliver(&mut c, 1000, t(60), &p, false);
        assert_eq!(c.delivered, 5000);
    }
}
