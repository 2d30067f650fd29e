//! The per-segment transmission log and what reads it: RTT samples from
//! every ACK (`RttSampling::EveryAck`), RACK loss detection and the Tail
//! Loss Probe (RFC 8985), each behind its own switch in [`super::Config`].
//!
//! The log holds one record per transmitted segment of `[SND.UNA,
//! SND.MAX)`: its range, when it was last sent, whether it was ever resent,
//! SACKed, or marked lost. It is kept only when one of the three switches is
//! on; with all of them off the endpoint behaves as before, byte for byte.
//!
//! # RTT samples from every ACK
//!
//! RFC 6298 (3) with Karn's rule times one segment at a time; Linux takes a
//! sample from every ACK that newly acknowledges a segment never resent (the
//! oldest of them), or, when the cumulative ACK carries none, from the oldest
//! newly SACKed segment never resent (`tcp_clean_rtx_queue`,
//! `tcp_sacktag_write_queue`). No sample comes from an ACK that covers a
//! resent segment. Each sample clears the RTO back-off (RFC 6298 (5.7)), so
//! after a timeout the back-off ends with the first ACK of data sent before
//! it and never resent.
//!
//! # RACK (RFC 8985 §6), with `Config::rack` and SACK
//!
//! A segment is lost once a segment sent after it was delivered (ACKed or
//! SACKed) and `RACK.rtt + RACK.reo_wnd` has passed since it was sent. This
//! replaces DupThresh as the trigger of fast recovery, and a retransmission
//! is judged the same way as any segment, so a lost retransmission is found
//! and resent again without waiting for the RTO. During recovery the sender
//! retransmits the segments RACK marked lost, lowest first, then new data
//! (RFC 6675's rules 3 and 4 are not used, as in Linux); `pipe` counts the
//! segments neither SACKed nor marked lost and not yet resent.
//!
//! Choices, where RFC 8985 leaves room:
//! - `RACK.min_RTT` is the minimum over the connection (Linux: over five
//!   minutes);
//! - `RACK.rtt` is the most recently sent delivered segment's round trip
//!   (§6.2 step 2), or with `rack_variant = "linux"` the round trip of the
//!   last segment Linux's order reaches: the newly SACKed ones, then the
//!   newly cumulatively acknowledged ones, each in sequence order;
//! - `reo_wnd` is `min_RTT/4` (capped at SRTT) once reordering was seen, or
//!   outside recovery while fewer than DupThresh segments are SACKed, and
//!   zero otherwise, times `reo_wnd_mult`: one more for each round trip
//!   that brings a DSACK (with `tcp.dsack`), back to one after 16
//!   recoveries without (§6.2 step 4); with `rack_variant = "linux"` a
//!   DSACK counts only once reordering was seen, as Linux's (a DSACK
//!   without reordering is taken for a needless retransmission, not for a
//!   window too narrow);
//! - with timestamps, a cumulative ACK of a resent segment whose echoed
//!   timestamp predates the resending is the original's delivery and does
//!   not advance RACK (Linux's `tcp_skb_spurious_retrans`);
//! - after a timeout the sender goes back N as without RACK (the
//!   scoreboard forgets its SACKed ranges, RFC 2018 §8; the log keeps its
//!   marks, as Linux does), and RACK marks nothing until the cumulative ACK
//!   passes the timeout's recovery point; with `rack_variant = "linux"` it
//!   goes on judging every segment, and a retransmission of the go-back-N
//!   found lost again starts fast recovery at once (Linux's Loss state
//!   falls through to Recovery on `FLAG_LOST_RETRANS`), where RFC 8985
//!   leaves the response to the sender's recovery; Linux's `min_RTT` also
//!   takes the handshake's round trip.
//!
//! # Tail Loss Probe (RFC 8985 §7), with `Config::tlp` and SACK
//!
//! In the Open state, after new data goes out or an ACK advances SND.UNA,
//! a probe timer is armed for PTO = 2·SRTT (plus 200 ms, the worst-case
//! delayed ACK, when one segment is outstanding; 1 s before any sample),
//! never later than the RTO would fire. When it fires the sender sends one
//! new segment whatever cwnd says, or, with nothing new to send, resends the
//! last segment, and restarts the RTO timer. One probe per episode; the
//! episode ends when the ACK passes the probe's end. If the probe was a
//! retransmission and that ACK goes beyond it, the probe repaired a loss
//! and cwnd is halved as in Linux's `tcp_process_tlp_ack` (ssthresh =
//! max(cwnd/2, 2·SMSS), cwnd = ssthresh); a pure duplicate ACK ends the
//! episode with no reduction (both copies arrived).

use super::rate::{RateAcc, RateStamp, RateState};
use super::{CongestionState, Endpoint, RackVariant, Recovery, RttSampling, State, Timer};
use crate::time::{Dur, Time};
use crate::wire::SeqNum;
use std::collections::VecDeque;

/// RFC 8985 WCDelAckT: the worst-case delayed ACK a probe waits for.
const WC_DEL_ACK: Dur = Dur::from_millis(200);

/// One transmitted segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TxRecord {
    pub start: SeqNum,
    pub end: SeqNum,
    /// When it was last (re)sent.
    pub xmit: Time,
    /// Ever resent.
    pub retransmitted: bool,
    pub sacked: bool,
    /// Marked lost by RACK and not resent since.
    pub lost: bool,
    /// The delivery state when it was last sent (`rate.rs`; zero unless
    /// the controller wants rate samples).
    pub rate: RateStamp,
}

impl TxRecord {
    /// Sequence space it covers.
    pub fn len(&self) -> u64 {
        (self.end - self.start) as u64
    }
}

/// Records of `[SND.UNA, SND.MAX)`, sorted and contiguous.
#[derive(Clone, Debug, Default)]
pub(crate) struct SentLog {
    recs: VecDeque<TxRecord>,
}

impl SentLog {
    /// The oldest record, where an ACK's walk of the log begins.
    pub(crate) fn head(&self) -> Option<&TxRecord> {
        self.recs.front()
    }
}

/// What one ACK newly delivered, read from the log.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Delivery {
    /// Send time of the oldest newly cumulatively acknowledged segment never
    /// resent, if no newly acknowledged segment was resent.
    first_acked: Option<Time>,
    acked_retransmitted: bool,
    /// Send time of the oldest newly SACKed segment never resent.
    first_sacked: Option<Time>,
    /// The most recently sent newly delivered segment: (send time, end, resent).
    latest: Option<(Time, SeqNum, bool)>,
    /// A segment below the highest delivered end was delivered without
    /// having been resent (RFC 8985 RACK.reord).
    reordered: bool,
    /// For Linux's reading ([`RackVariant::Linux`]): when the ACK arrived
    /// and `RACK.min_RTT` before it, the round trips of the last segment
    /// the cumulative ACK and the SACK blocks delivered (in sequence
    /// order, resent ones only when not below `min_RTT`), and the most
    /// recently sent of those.
    now: Time,
    min_rtt: Option<Dur>,
    last_acked_rtt: Option<Dur>,
    last_sacked_rtt: Option<Dur>,
    latest_linux: Option<(Time, SeqNum)>,
    /// The delivery-rate sample under construction (`rate.rs`).
    pub(crate) rate: RateAcc,
}

impl Delivery {
    /// What an ACK arriving at `now` delivers, `min_rtt` being RACK's
    /// minimum before it.
    fn at(now: Time, min_rtt: Option<Dur>) -> Delivery {
        Delivery {
            now,
            min_rtt,
            ..Delivery::default()
        }
    }

    fn deliver(&mut self, r: &TxRecord, fack: &mut SeqNum, cumulative: bool) {
        let newer = self
            .latest
            .is_none_or(|(t, e, _)| sent_after(r.xmit, r.end, t, e));
        if newer {
            self.latest = Some((r.xmit, r.end, r.retransmitted));
        }
        // Linux's `tcp_rack_advance`: a resent segment is skipped while
        // min_RTT is unknown or its round trip is below it.
        let rtt = self.now.saturating_since(r.xmit);
        if !r.retransmitted || self.min_rtt.is_some_and(|m| rtt >= m) {
            if cumulative {
                self.last_acked_rtt = Some(rtt);
            } else {
                self.last_sacked_rtt = Some(rtt);
            }
            let newer = self
                .latest_linux
                .is_none_or(|(t, e)| sent_after(r.xmit, r.end, t, e));
            if newer {
                self.latest_linux = Some((r.xmit, r.end));
            }
        }
        // RFC 8985 §6.2 step 3.
        if r.end > *fack {
            *fack = r.end;
        } else if r.end < *fack && !r.retransmitted {
            self.reordered = true;
        }
    }
}

/// RFC 8985 RACK_sent_after: (t1, seq1) was sent after (t2, seq2).
fn sent_after(t1: Time, seq1: SeqNum, t2: Time, seq2: SeqNum) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl SentLog {
    /// Records a segment `[start, end)` sent at `now`: new bytes above the
    /// log's end get a record of their own; resent bytes split the records
    /// they cover, which take the new send time.
    #[cfg(test)]
    pub fn on_send(&mut self, start: SeqNum, end: SeqNum, now: Time) {
        self.on_send_stamped(start, end, now, RateStamp::default());
    }

    /// As `on_send`, the records taking `stamp` (draft-cheng-iccrg-
    /// delivery-rate-estimation §3.2: a resent segment is stamped anew).
    pub fn on_send_stamped(&mut self, start: SeqNum, end: SeqNum, now: Time, stamp: RateStamp) {
        if start >= end {
            return;
        }
        let log_end = self.recs.back().map_or(start, |r| r.end);
        if start < log_end {
            let re_end = end.min(log_end);
            self.split_at(start);
            self.split_at(re_end);
            let i = self.recs.partition_point(|r| r.start < start);
            for r in self.recs.iter_mut().skip(i) {
                if r.start >= re_end {
                    break;
                }
                r.xmit = now;
                r.retransmitted = true;
                r.lost = false;
                r.rate = stamp;
            }
        }
        let new_start = start.max(log_end);
        if new_start < end {
            self.recs.push_back(TxRecord {
                start: new_start,
                end,
                xmit: now,
                retransmitted: false,
                sacked: false,
                lost: false,
                rate: stamp,
            });
        }
    }

    /// Splits the record covering `at` (strictly inside it) in two.
    fn split_at(&mut self, at: SeqNum) {
        let i = self.recs.partition_point(|r| r.end <= at);
        if let Some(r) = self.recs.get(i).copied() {
            if r.start < at && at < r.end {
                self.recs[i].end = at;
                self.recs.insert(i + 1, TxRecord { start: at, ..r });
            }
        }
    }

    /// The cumulative ACK moved to `una`: drops the records below it,
    /// noting what was newly delivered. A record only partly acknowledged
    /// is trimmed and not counted as delivered. With `tsecr`, the ACK's
    /// echoed timestamp, a resent record whose resending it predates was
    /// delivered by its original: RACK does not take it as the most
    /// recently sent delivered segment (Linux's `tcp_skb_spurious_retrans`).
    fn ack(
        &mut self,
        una: SeqNum,
        tsecr: Option<u32>,
        d: &mut Delivery,
        fack: &mut SeqNum,
        c: &mut RateState,
    ) {
        while let Some(r) = self.recs.front().copied() {
            if r.end > una {
                if r.start < una {
                    self.recs[0].start = una;
                    if !r.sacked {
                        d.rate.deliver_part(c, (una - r.start) as u64);
                    }
                }
                break;
            }
            self.recs.pop_front();
            if r.sacked {
                continue;
            }
            d.rate.deliver(c, r.len(), r.xmit, &r.rate, r.retransmitted);
            if r.retransmitted {
                d.acked_retransmitted = true;
                let resent_ms = Endpoint::ts_now(r.xmit);
                if tsecr.is_some_and(|e| e != 0 && (e.wrapping_sub(resent_ms) as i32) < 0) {
                    continue;
                }
            } else if d.first_acked.is_none() {
                d.first_acked = Some(r.xmit);
            }
            d.deliver(&r, fack, true);
        }
        if d.acked_retransmitted {
            d.first_acked = None;
        }
    }

    /// Marks the records the SACKed ranges now cover, noting what was newly
    /// delivered.
    fn sack(
        &mut self,
        ranges: &[(SeqNum, SeqNum)],
        d: &mut Delivery,
        fack: &mut SeqNum,
        c: &mut RateState,
    ) {
        let mut ranges = ranges.iter().peekable();
        for r in self.recs.iter_mut() {
            while ranges.peek().is_some_and(|&&(_, re)| re <= r.start) {
                ranges.next();
            }
            let Some(&&(l, re)) = ranges.peek() else {
                break;
            };
            if r.sacked || !(l <= r.start && r.end <= re) {
                continue;
            }
            r.sacked = true;
            r.lost = false;
            d.rate.deliver(c, r.len(), r.xmit, &r.rate, r.retransmitted);
            if !r.retransmitted && d.first_sacked.is_none() {
                d.first_sacked = Some(r.xmit);
            }
            d.deliver(r, fack, false);
        }
    }

    /// Forgets the loss marks (after a timeout). The SACKed marks stay,
    /// as in Linux: a segment SACKed again after the timeout is not a new
    /// delivery and gives no RTT sample spanning the timeout.
    pub(crate) fn clear_lost(&mut self) {
        for r in self.recs.iter_mut() {
            r.lost = false;
        }
    }

    /// Segments SACKed.
    fn sacked_segments(&self) -> u64 {
        self.recs.iter().filter(|r| r.sacked).count() as u64
    }

    /// Bytes neither SACKed nor marked lost: in flight (RFC 6675 pipe with
    /// RACK's loss marks).
    pub fn pipe(&self) -> u64 {
        self.recs
            .iter()
            .filter(|r| !r.sacked && !r.lost)
            .map(TxRecord::len)
            .sum()
    }

    /// The lowest segment marked lost and not resent since.
    pub fn first_lost(&self) -> Option<&TxRecord> {
        self.recs.iter().find(|r| r.lost)
    }

    /// The lowest segment not acknowledged (at SND.UNA).
    pub fn first(&self) -> Option<&TxRecord> {
        self.recs.front()
    }

    /// The last segment sent.
    pub fn last(&self) -> Option<&TxRecord> {
        self.recs.back()
    }
}

/// RACK's state (RFC 8985 §5.2).
#[derive(Clone, Debug)]
pub(crate) struct Rack {
    /// Send time and end of the most recently sent delivered segment.
    xmit: Time,
    end: SeqNum,
    /// RTT of that segment.
    rtt: Dur,
    pub(crate) min_rtt: Option<Dur>,
    /// Highest end of a delivered segment (RACK.fack).
    fack: SeqNum,
    /// Reordering was seen.
    pub(crate) reord: bool,
    /// A segment was delivered since the connection began.
    active: bool,
    /// When the last timeout fired: a record resent since is a
    /// retransmission of its go-back-N.
    rto_at: Time,
    /// RFC 8985 §6.2 step 4: the window's multiple of min_RTT/4, the
    /// recoveries it persists, and the round in which a DSACK grew it.
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<SeqNum>,
}

impl Rack {
    pub fn new(iss: SeqNum) -> Rack {
        Rack {
            xmit: Time::ZERO,
            end: iss,
            rtt: Dur::ZERO,
            min_rtt: None,
            fack: iss,
            reord: false,
            active: false,
            rto_at: Time::ZERO,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
        }
    }

    /// RFC 8985 §6.2 step 4, on an ACK after which SND.UNA is `una`, with
    /// a DSACK block (RFC 2883) or not: a DSACK in a new round widens the
    /// window by one min_RTT/4. With `linux`, only once reordering was
    /// seen (Linux's `tcp_dsack_seen` sets `rack.dsack_seen` only with
    /// `reord_seen`).
    pub(crate) fn on_ack_dsack(&mut self, dsack: bool, una: SeqNum, snd_max: SeqNum, linux: bool) {
        if self.dsack_round.is_some_and(|r| una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack && (self.reord || !linux) {
            self.dsack_round = Some(snd_max);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = 16;
        }
    }

    /// Keeps the last delivered segment's end and RACK.fack within 2^30
    /// of SND.UNA (`SeqNum::trailing`), for flows that run without RACK
    /// acting for 2^31 bytes.
    pub(crate) fn trail_marks(&mut self, una: SeqNum) {
        self.end = self.end.trailing(una);
        self.fack = self.fack.trailing(una);
    }

    /// A fast or RTO recovery ended: after 16 without a DSACK the window
    /// is one min_RTT/4 again.
    pub(crate) fn on_recovery_end(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }
}

/// The Tail Loss Probe's episode (RFC 8985 §7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TlpEpisode {
    /// SND.NXT after the probe (TLP.end_seq), while an episode lasts.
    pub end: Option<SeqNum>,
    /// The probe resent data.
    pub retransmitted: bool,
}

impl Endpoint {
    /// Whether the transmission log is kept.
    pub(crate) fn logs_sends(&self) -> bool {
        let c = &self.config;
        c.rack
            || c.tlp
            || c.rtt_sampling == RttSampling::EveryAck
            || self.cc.wants_rate_samples()
            || self.cc.wants_ack_rtt()
    }

    /// RACK acts: asked for, with SACK recovery negotiated.
    pub(crate) fn rack_on(&self) -> bool {
        self.config.rack && self.sack_ok && self.recovery == Recovery::Sack
    }

    /// TLP acts: asked for, with SACK negotiated (as Linux).
    fn tlp_on(&self) -> bool {
        self.config.tlp && self.sack_ok
    }

    /// Log a data segment `[seq, end)` sent at `now`.
    pub(crate) fn log_send(&mut self, now: Time, seq: SeqNum, end: SeqNum) {
        if !self.logs_sends() {
            return;
        }
        let new_data = end > self.sent.last().map_or(seq, |r| r.end);
        let stamp = if self.cc.wants_rate_samples() {
            // draft-cheng-iccrg-delivery-rate-estimation §3.2: idle when
            // nothing is outstanding (the log is empty).
            self.rate.stamp(now, self.sent.first().is_none())
        } else {
            RateStamp::default()
        };
        self.sent.on_send_stamped(seq, end, now, stamp);
        if new_data && !self.tlp_sending {
            self.tlp_rearm = true;
        }
    }

    /// Reads what an ACK delivered from the log: RTT samples (every-ACK
    /// sampling) and RACK's update (RFC 8985 §6.2 steps 1-3). Called after
    /// the scoreboard took the ACK's SACK blocks and before SND.UNA moves.
    /// `dup` says the ACK is a duplicate ACK (RFC 5681 §2): without SACK
    /// it delivers one segment to the rate estimate.
    pub(crate) fn log_ack(&mut self, now: Time, ack: SeqNum, tsecr: Option<u32>, dup: bool) {
        if !self.logs_sends() {
            return;
        }
        let mut d = Delivery::at(now, self.rack.min_rtt);
        d.rate = RateAcc::at(now, self.cc.wants_rate_samples());
        if dup && !self.sack_ok {
            d.rate.deliver_dup(&mut self.rate, u64::from(self.smss));
        }
        let mut fack = self.rack.fack;
        if ack > self.snd_una {
            self.sent.ack(ack, tsecr, &mut d, &mut fack, &mut self.rate);
        }
        if self.sack_ok {
            let ranges = self.scoreboard.ranges();
            self.sent.sack(ranges, &mut d, &mut fack, &mut self.rate);
        }
        self.rack.fack = fack;
        // As Linux (`tcp_ack_update_rtt`), the ACK's own timing comes first,
        // with timestamps on too: the first segment it newly acknowledges, or
        // else SACKs, never resent. The echoed timestamp serves only an ACK
        // that advances SND.UNA without such a segment.
        self.ack_sampled = false;
        if self.config.rtt_sampling != RttSampling::EveryAck && self.cc.wants_ack_rtt() {
            // The controller's sample only (Linux's `pkts_acked` gets one
            // per ACK); the RTO estimator keeps its timed segment, whose
            // sample replaces this one on the ACK that completes it.
            if let Some(sent) = d.first_acked.or(d.first_sacked) {
                self.ack_rtt = Some(now.saturating_since(sent));
            }
        }
        if self.config.rtt_sampling == RttSampling::EveryAck {
            let first = d.first_acked.or(d.first_sacked);
            if let Some(sent) = first {
                let una = ack.max(self.snd_una);
                let r = now.saturating_since(sent);
                self.rtt.on_ack_sample(r, una, self.snd_max);
                self.ack_rtt = Some(r);
                self.ack_sampled = true;
            }
            // Linux (`tcp_clean_rtx_queue`): an ACK that moves nothing but
            // SACKs data sent before the head's last transmission restarts
            // the retransmission timer with the RTO its sample just set.
            let head_sent = self.sent.first().map(|r| r.xmit);
            if let (None, Some(sacked), Some(head)) = (d.first_acked, d.first_sacked, head_sent) {
                let running = self.timers.get(Timer::Rto).is_some();
                if ack <= self.snd_una && sacked < head && running && !self.frozen {
                    self.timers.set(Timer::Rto, now + self.rtt.rto());
                }
            }
        }
        // RFC 8985 §6.2 step 1: min_RTT from the samples of segments never resent.
        if let Some(sent) = d.first_acked.or(d.first_sacked) {
            let r = now.saturating_since(sent);
            self.rack.min_rtt = Some(self.rack.min_rtt.map_or(r, |m| m.min(r)));
        }
        if d.rate.on {
            self.rate_sample = d.rate.finish(&mut self.rate, self.rack.min_rtt);
        }
        // Step 2: the most recently sent delivered segment; a resent one
        // counts only if its RTT is not below min_RTT (it could be the
        // original's ACK). Linux's RACK.rtt is the last segment's in its
        // order of processing instead (see [`RackVariant::Linux`]).
        if self.config.rack_variant == RackVariant::Linux {
            if let Some(rtt) = d.last_acked_rtt.or(d.last_sacked_rtt) {
                self.rack.rtt = rtt;
                self.rack.active = true;
            }
            if let Some((xmit, end)) = d.latest_linux {
                if sent_after(xmit, end, self.rack.xmit, self.rack.end) {
                    self.rack.xmit = xmit;
                    self.rack.end = end;
                }
            }
        } else if let Some((xmit, end, resent)) = d.latest {
            let rtt = now.saturating_since(xmit);
            let plausible = !resent || self.rack.min_rtt.is_none_or(|m| rtt >= m);
            if plausible {
                self.rack.rtt = rtt;
                self.rack.active = true;
                if sent_after(xmit, end, self.rack.xmit, self.rack.end) {
                    self.rack.xmit = xmit;
                    self.rack.end = end;
                }
            }
        }
        // Step 3.
        if d.reordered {
            self.rack.reord = true;
        }
    }

    /// RFC 8985 §6.2 step 4: the reordering window.
    pub(crate) fn rack_reo_wnd(&self) -> Dur {
        if !self.rack.reord {
            let recovering = matches!(
                self.cstate,
                CongestionState::Recovery | CongestionState::Loss
            );
            if recovering || self.sent.sacked_segments() >= super::DUP_THRESH {
                return Dur::ZERO;
            }
        }
        let quarter = Dur(self.rack.min_rtt.unwrap_or(Dur::ZERO).0 / 4);
        let wnd = quarter.saturating_mul(u64::from(self.rack.reo_wnd_mult));
        wnd.min(self.rtt.srtt().unwrap_or(wnd))
    }

    /// RFC 8985 §6.2 step 5 and the reordering timer: marks the segments
    /// RACK finds lost, arms the timer for the earliest one that may still
    /// be, and enters fast recovery if a loss was found. After a timeout it
    /// does nothing until its recovery point is acknowledged, except in
    /// Linux's reading, where a lost retransmission of the go-back-N (or,
    /// on the reordering timer, any loss) starts fast recovery at once.
    pub(crate) fn rack_detect_loss(&mut self, now: Time, on_timer: bool) {
        let after_rto = self.cstate == CongestionState::Loss;
        let linux = self.config.rack_variant == RackVariant::Linux;
        if !self.rack_on() || !self.rack.active || (after_rto && !linux) {
            self.timers.stop(Timer::Rack);
            return;
        }
        let reo_wnd = self.rack_reo_wnd();
        let (rxmit, rend, rrtt) = (self.rack.xmit, self.rack.end, self.rack.rtt);
        let rto_at = self.rack.rto_at;
        let mut wait = Dur::ZERO;
        let mut marked = 0u64;
        let mut lost_resends = 0u64;
        for r in self.sent.recs.iter_mut() {
            if r.sacked || r.lost || !sent_after(rxmit, rend, r.xmit, r.end) {
                continue;
            }
            let deadline = r.xmit + rrtt + reo_wnd;
            if deadline <= now {
                r.lost = true;
                marked += 1;
                lost_resends += u64::from(r.retransmitted && r.xmit >= rto_at);
            } else {
                wait = wait.max(deadline - now);
            }
        }
        self.stats.rack_marked_lost += marked;
        if wait > Dur::ZERO {
            self.timers.set(Timer::Rack, now + wait);
        } else {
            self.timers.stop(Timer::Rack);
        }
        if after_rto {
            // Linux's Loss state (`tcp_fastretrans_alert`): a retransmission
            // found lost again (`FLAG_LOST_RETRANS`) falls through to fast
            // recovery, with a new reduction from the slow start's cwnd; so
            // does any loss the reordering timer finds
            // (`tcp_rack_reo_timeout`). The rest of the go-back-N, sent
            // before the timeout, is marked lost by the same pass.
            if lost_resends > 0 || (on_timer && marked > 0) {
                self.leave_loss_for_recovery(now);
            }
            return;
        }
        // Any segment still marked lost (also one sent during the last
        // recovery) starts a new one, as Linux's `tcp_time_to_recover`.
        let lost = marked > 0 || self.sent.first_lost().is_some();
        if lost && self.cstate != CongestionState::Recovery && self.snd_una >= self.recover {
            self.enter_recovery(now);
        }
    }

    /// From the timeout's recovery into fast recovery (Linux's reading,
    /// above): F-RTO and Eifel end, the go-back-N ends (RACK has marked
    /// what is left of it lost), fast recovery starts from SND.MAX.
    fn leave_loss_for_recovery(&mut self, now: Time) {
        self.frto = super::Frto::Off;
        self.frto_new = 0;
        self.eifel = None;
        self.snd_nxt = self.snd_max;
        self.enter_recovery(now);
    }

    /// The reordering timer expired.
    pub(crate) fn on_rack_timer(&mut self, now: Time) {
        self.rack_detect_loss(now, true);
    }

    /// After a timeout: RACK's loss marks and the probe's episode are forgotten.
    pub(crate) fn log_on_rto(&mut self, now: Time) {
        self.rack.rto_at = now;
        self.sent.clear_lost();
        self.timers.stop(Timer::Rack);
        self.timers.stop(Timer::Tlp);
        self.tlp = TlpEpisode::default();
    }

    /// RFC 8985 §7.4 (as Linux's `tcp_process_tlp_ack`): whether this ACK
    /// ends the probe's episode, and whether the probe repaired a loss.
    pub(crate) fn tlp_on_ack(&mut self, ack: SeqNum, advanced: bool, new_sack: bool, bare: bool) {
        let Some(end) = self.tlp.end else {
            return;
        };
        if ack < end {
            return;
        }
        if !self.tlp.retransmitted {
            self.tlp = TlpEpisode::default();
        } else if ack > end {
            // The probe repaired a loss: reduce cwnd as for one.
            let smss = u64::from(self.smss);
            let profile = self.config.profile;
            let (cwnd, now) = (self.win.cwnd, self.last_ack_at);
            self.win.ssthresh = self
                .cc
                .ssthresh_on_loss(&self.win, cwnd, smss, profile, now);
            self.win.cwnd = self.win.ssthresh;
            self.stats.tlp_loss_repairs += 1;
            self.tlp = TlpEpisode::default();
        } else if bare && !advanced && !new_sack {
            // Both the original and the probe arrived.
            self.tlp = TlpEpisode::default();
        }
    }

    /// RFC 8985 §7.2: arms or stops the probe timer, once asked to by new
    /// data sent or an ACK of new data.
    pub(crate) fn tlp_update_timer(&mut self, now: Time) {
        if !std::mem::take(&mut self.tlp_rearm) || !self.tlp_on() {
            return;
        }
        let eligible = self.cstate == CongestionState::Open
            && self.tlp.end.is_none()
            && !self.frozen
            && self.snd_max > self.snd_una
            && matches!(
                self.state,
                State::Established | State::CloseWait | State::FinWait1
            )
            && self.sent.sacked_segments() == 0;
        if !eligible {
            self.timers.stop(Timer::Tlp);
            return;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) => {
                let mut pto = srtt.saturating_mul(2);
                let one_segment = self.flight_size() <= u64::from(self.smss);
                if one_segment {
                    pto += WC_DEL_ACK;
                }
                pto
            }
            None => Dur::from_secs(1),
        };
        let mut at = now + pto;
        if let Some(rto_at) = self.timers.get(Timer::Rto) {
            at = at.min(rto_at);
        }
        self.timers.set(Timer::Tlp, at);
    }

    /// The probe timer expired: a probe is due at the next transmit.
    pub(crate) fn on_tlp_timer(&mut self) {
        let still = self.tlp_on()
            && self.cstate == CongestionState::Open
            && self.tlp.end.is_none()
            && !self.frozen
            && self.snd_max > self.snd_una;
        if still {
            self.tlp_due = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    fn ranges(log: &SentLog) -> Vec<(u32, u32, u64, bool)> {
        log.recs
            .iter()
            .map(|r| (r.start.0, r.end.0, r.xmit.0 / 1_000_000, r.retransmitted))
            .collect()
    }

    #[test]
    fn a_resend_splits_the_records_it_covers_and_new_bytes_get_their_own() {
        let mut log = SentLog::default();
        log.on_send(SeqNum(0), SeqNum(100), t(1));
        log.on_send(SeqNum(100), SeqNum(200), t(2));
        // 150..250 straddles the end: 150..200 resent, 200..250 new.
        log.on_send(SeqNum(150), SeqNum(250), t(3));
        log.on_send(SeqNum(50), SeqNum(120), t(4));
        assert_eq!(
            ranges(&log),
            vec![
                (0, 50, 1, false),
                (50, 100, 4, true),
                (100, 120, 4, true),
                (120, 150, 2, false),
                (150, 200, 3, true),
                (200, 250, 3, false),
            ]
        );
    }

    #[test]
    fn the_cumulative_ack_trims_a_partly_acked_record_without_delivering_it() {
        let mut log = SentLog::default();
        log.on_send(SeqNum(0), SeqNum(100), t(1));
        log.on_send(SeqNum(100), SeqNum(200), t(2));
        let (mut d, mut fack) = (Delivery::default(), SeqNum(0));
        log.ack(
            SeqNum(150),
            None,
            &mut d,
            &mut fack,
            &mut RateState::default(),
        );
        assert_eq!(d.first_acked, Some(t(1)));
        assert_eq!(d.latest, Some((t(1), SeqNum(100), false)));
        assert_eq!(ranges(&log), vec![(150, 200, 2, false)]);
    }

    #[test]
    fn sack_marks_only_whole_records_and_sees_reordering() {
        let mut log = SentLog::default();
        for k in 0..4 {
            log.on_send(SeqNum(100 * k), SeqNum(100 * k + 100), t(u64::from(k)));
        }
        let (mut d, mut fack) = (Delivery::default(), SeqNum(0));
        // 250..400 covers record 3 only (record 2 partly).
        log.sack(
            &[(SeqNum(250), SeqNum(400))],
            &mut d,
            &mut fack,
            &mut RateState::default(),
        );
        assert_eq!(log.sacked_segments(), 1);
        assert_eq!(fack, SeqNum(400));
        assert!(!d.reordered);
        // Record 1, never resent, below the highest delivered: reordering.
        let mut d = Delivery::default();
        log.sack(
            &[(SeqNum(100), SeqNum(200)), (SeqNum(250), SeqNum(400))],
            &mut d,
            &mut fack,
            &mut RateState::default(),
        );
        assert!(d.reordered);
        assert_eq!(log.pipe(), 200);
    }
}
