//! The sender's reaction to ACKs and timeouts: new ACKs, duplicate ACKs,
//! NewReno (RFC 6582) and SACK (RFC 6675) loss recovery, the retransmission
//! timer (RFC 6298) and the persist timer (RFC 9293 §3.8.6.1).
//!
//! Spurious timeouts (F-RTO, Eifel) are detected and undone in `frto.rs`.

use super::{
    CongestionState, Endpoint, Event, Frto, FrtoVariant, PrrVariant, RackVariant, Recovery, State,
    Timer,
};
use crate::time::{Dur, Time};
use crate::wire::{SackBlock, Segment, SeqNum};

impl Endpoint {
    /// The ACK part of a segment in a synchronised state. Returns false if
    /// the rest of the segment must be dropped.
    pub(crate) fn on_ack_segment(&mut self, now: Time, seg: &Segment) -> bool {
        let ack = seg.ack;
        self.ack_rtt = None;
        self.last_ack_at = now;
        if ack > self.snd_max {
            // RFC 9293 §3.10.7.4: ACK for data not yet sent: ACK and drop.
            self.stats.dropped_bad_ack += 1;
            self.ack_now = true;
            return false;
        }
        if ack < self.snd_una {
            // RFC 9293 §3.10.7.4: an old duplicate ACK is ignored.
            return true;
        }
        let wnd = u64::from(seg.window) << self.snd_wscale;
        let advanced = ack > self.snd_una;
        let una_before = self.snd_una;
        let sacked_before = if self.config.prr {
            self.scoreboard.sacked_bytes()
        } else {
            0
        };
        let new_sacked = if self.sack_ok {
            self.apply_sack(seg)
        } else {
            0
        };
        // RFC 5681 §2: a duplicate ACK meets all five conditions; `bare`
        // is one that would, had data been outstanding.
        let bare = seg.payload_len == 0
            && !seg.flags.syn()
            && !seg.flags.fin()
            && ack == self.snd_una
            && wnd == self.snd_wnd;
        let dup = self.snd_max > self.snd_una && bare;
        let tsecr = seg.options.timestamps.filter(|_| self.ts_ok).map(|t| t.1);
        self.log_ack(now, ack, tsecr, dup);
        self.update_send_window(seg, wnd);
        let in_loss = self.cstate == CongestionState::Loss;
        if ack > self.snd_una {
            self.on_new_ack(now, seg);
        } else if dup {
            self.stats.dup_acks_received += 1;
            self.on_dupack(now);
        } else if new_sacked > 0 && self.recovery == Recovery::Sack && ack == self.snd_una {
            // RFC 6675 §2: new SACK information makes it a duplicate ACK.
            self.on_dupack(now);
        }
        if advanced {
            self.tlp_rearm = true;
            self.eifel_on_ack(now, seg);
        }
        if self.tlp.end.is_some() {
            self.tlp_on_ack(ack, advanced, new_sacked > 0, bare);
        }
        // F-RTO reads the ACK before loss detection does, as Linux's
        // `tcp_process_loss` comes before its loss marking: an undone
        // timeout leaves the Loss state first.
        if self.frto != Frto::Off {
            let dup = dup || (new_sacked > 0 && ack == self.snd_una);
            match (self.config.frto_variant, self.sack_ok) {
                (FrtoVariant::Rfc5682, false) => self.frto_basic(now, ack, advanced, dup),
                (FrtoVariant::Rfc5682, true) => self.frto_sack(now, ack, advanced, dup),
                (FrtoVariant::Linux, _) => self.frto_linux(now, ack, advanced, dup),
            }
        }
        if in_loss && advanced && self.dsack_undo_due() {
            // Every retransmission since the timeout came back as a DSACK
            // (Linux's `tcp_try_undo_loss`, or `tcp_try_undo_recovery` when
            // this ACK also ends the timeout's recovery): the timeout was
            // not needed.
            let prior = self.undo_prior;
            self.undo_marker = None;
            self.undo_retrans = -1;
            self.undo_timeout(now, prior);
        }
        let marked_before = self.stats.rack_marked_lost;
        if self.config.rack {
            self.rack_detect_loss(now, false);
        }
        if self.dsack_undo_due() {
            // Every retransmission came back as a DSACK: none was needed.
            if self.sack_recovery_now() {
                self.exit_recovery();
            } else if matches!(
                self.cstate,
                CongestionState::Open | CongestionState::Disorder
            ) {
                // The last DSACK came after the recovery ended: Linux keeps
                // the recovery's undo state until the next one begins and
                // undoes it then (`tcp_try_undo_dsack` in the Open and
                // Disorder states).
                self.undo_reduction();
            }
        }
        if self.config.prr && self.sack_recovery_now() {
            // RFC 6937: DeliveredData = change in SND.UNA + change in SACKed.
            let sacked = self.scoreboard.sacked_bytes();
            let delivered = (self.snd_una.since(una_before).max(0) as u64 + sacked)
                .saturating_sub(sacked_before);
            // A "safe" ACK advances SND.UNA and shows no new loss: RACK
            // marked nothing, or (RFC 6675's detection) it SACKed nothing
            // new above a hole.
            let newly_lost = if self.rack_on() {
                self.stats.rack_marked_lost > marked_before
            } else {
                new_sacked > 0
            };
            self.prr_on_ack(delivered, advanced && !newly_lost);
        }
        if self.cc.wants_rate_samples() {
            // Linux's `cong_control` runs after loss recovery's changes
            // and has the last word on cwnd.
            self.cc_control(now);
        }
        true
    }

    /// RFC 9293 §3.10.7.4: window update guarded by SND.WL1 / SND.WL2.
    fn update_send_window(&mut self, seg: &Segment, wnd: u64) {
        let newer = self.snd_wl1 < seg.seq || (self.snd_wl1 == seg.seq && self.snd_wl2 <= seg.ack);
        if newer {
            self.snd_wnd = wnd;
            self.snd_wl1 = seg.seq;
            self.snd_wl2 = seg.ack;
            self.max_snd_wnd = self.max_snd_wnd.max(wnd);
        }
    }

    /// Applies the SACK blocks to the scoreboard; returns bytes newly SACKed.
    fn apply_sack(&mut self, seg: &Segment) -> u64 {
        let mut new = 0;
        let blocks = seg.options.sack.as_slice();
        // RFC 2883 §4: a first block below the cumulative ACK, or inside the
        // second block, reports a duplicate segment, not new data held.
        let dsack = blocks.first().is_some_and(|b| {
            b.left < seg.ack
                || blocks
                    .get(1)
                    .is_some_and(|s| s.left <= b.left && b.right <= s.right)
        });
        let linux = self.config.rack_variant == RackVariant::Linux;
        self.rack
            .on_ack_dsack(dsack, seg.ack.max(self.snd_una), self.snd_max, linux);
        if dsack {
            self.stats.dsack_blocks_received += 1;
            // A duplicate of data sent since the recovery began: one of its
            // retransmissions was not needed (Linux's `tcp_check_dsack`).
            if let (Some(marker), Some(b)) = (self.undo_marker, blocks.first()) {
                if b.right > marker && self.undo_retrans > 0 {
                    let segs = (b.right - b.left).max(0) as u64;
                    let segs = segs.div_ceil(u64::from(self.smss)).max(1) as i64;
                    self.undo_retrans = (self.undo_retrans - segs).max(0);
                }
            }
        }
        for b in blocks.iter().skip(usize::from(dsack)) {
            // RFC 2018 §5: only blocks inside (SND.UNA, SND.MAX] are meaningful.
            if b.left >= b.right || b.right > self.snd_max || b.left < seg.ack.min(self.snd_una) {
                self.stats.invalid_sack_blocks += 1;
                continue;
            }
            let left = b.left.max(self.snd_una).max(seg.ack);
            if left < b.right {
                new += self.scoreboard.add(SackBlock {
                    left,
                    right: b.right,
                });
            }
        }
        new
    }

    /// An ACK that advances SND.UNA.
    fn on_new_ack(&mut self, now: Time, seg: &Segment) {
        let ack = seg.ack;
        let acked = (ack - self.snd_una) as u64;
        let fin_acked = self.fin_seq().is_some_and(|f| self.snd_una <= f && f < ack);
        let data_acked = acked - u64::from(fin_acked);
        self.stats.bytes_acked += data_acked;
        self.una_advanced += acked;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.high_rxt = self.high_rxt.max(ack);
        self.rtx_high = self.rtx_high.max(ack);
        self.trail_marks(ack);
        self.scoreboard.advance(ack);
        self.consecutive_rtos = 0;
        self.take_rtt_sample(now, seg);
        // One acknowledged byte range fills a hole; the rest of it was
        // already counted as delivered by the dupACKs it caused.
        let smss = u64::from(self.smss);
        self.dup_delivered = self
            .dup_delivered
            .saturating_sub(data_acked.saturating_sub(smss));
        let info = self.ack_info(now, data_acked);
        self.cc.on_sample(&mut self.win, &info, smss);
        let mut restart_timer = true;
        match (self.cstate, self.recovery) {
            (CongestionState::Recovery, Recovery::NewReno) => {
                restart_timer = self.newreno_ack(now, data_acked);
            }
            (CongestionState::Recovery, Recovery::Sack) => {
                // RFC 6675 §5 (A): a cumulative ACK beyond RecoveryPoint ends recovery.
                if ack >= self.recover {
                    self.exit_recovery();
                }
            }
            (state, _) => {
                self.dupacks = 0;
                self.lt_bytes = 0;
                self.dup_delivered = 0;
                let profile = self.config.profile;
                // ns-3 (`TcpSocketBase::ProcessAck`, CA_LOSS branch): the
                // ACK that ends the timeout's recovery grows cwnd only by
                // the segments it acknowledges above `m_recover`.
                let grow = if profile == super::Profile::Ns3
                    && state == CongestionState::Loss
                    && ack >= self.recover
                {
                    ack.since(self.recover).max(0) as u64
                } else {
                    data_acked
                };
                let info = self.ack_info(now, grow);
                self.cc.on_ack(&mut self.win, &info, smss, profile);
                if state == CongestionState::Disorder
                    || (state == CongestionState::Loss && ack >= self.recover)
                {
                    self.set_cstate(CongestionState::Open);
                }
            }
        }
        if fin_acked {
            self.on_fin_acked(now);
        }
        if restart_timer && self.config.profile == super::Profile::Ns3 {
            // ns-3 (`TcpSocketBase::NewAck` with resetRTO) recomputes the
            // RTO from the estimator whenever a new ACK restarts the timer:
            // the back-off ends with the first ACK of new data, not with
            // the next valid RTT sample as in RFC 6298 (5.7) with Karn.
            self.rtt.clear_backoff();
        }
        if self.snd_max > self.snd_una {
            if restart_timer && !self.frozen {
                // RFC 6298 (5.3): new data acknowledged, restart the timer.
                self.timers.set(Timer::Rto, now + self.rtt.rto());
            }
        } else {
            // RFC 6298 (5.2): all data acknowledged, stop the timer.
            self.timers.stop(Timer::Rto);
        }
    }

    /// Marks set at a loss and left behind since (`recover`, F-RTO's
    /// originals, RACK's last delivered segment) are kept within 2^30 of
    /// SND.UNA (`SeqNum::trailing`): left alone, a flow that runs 2^31
    /// bytes without a loss would find `recover` ahead of SND.UNA and never
    /// enter fast recovery again.
    fn trail_marks(&mut self, una: SeqNum) {
        self.recover = self.recover.trailing(una);
        self.snd_wl2 = self.snd_wl2.trailing(una);
        let (start, end) = self.frto_originals;
        self.frto_originals = (start.trailing(una), end.trailing(una));
        self.rack.trail_marks(una);
    }

    /// RFC 6582 §3.2 step 3 for an ACK of new data during fast recovery.
    /// Returns whether the retransmission timer is restarted.
    fn newreno_ack(&mut self, now: Time, acked: u64) -> bool {
        let smss = u64::from(self.smss);
        if self.snd_una >= self.recover {
            // RFC 6582 §3.2 step 3, full ACK: cwnd = min(ssthresh,
            // max(FlightSize, SMSS) + SMSS); ns-3 takes the other option the
            // RFC allows, cwnd = ssthresh.
            let flight = self.snd_max.since(self.snd_una).max(0) as u64;
            self.win.cwnd = match self.config.profile {
                super::Profile::Rfc => self.win.ssthresh.min(flight.max(smss) + smss),
                super::Profile::Ns3 => self.win.ssthresh,
            };
            self.exit_recovery();
            if self.config.profile == super::Profile::Ns3 {
                // ns-3 (`TcpSocketBase::ProcessAck`, CA_RECOVERY branch)
                // then runs the Open state's `IncreaseWindow` on the same
                // ACK with the segments it acknowledges: with cwnd =
                // ssthresh, one congestion-avoidance step.
                let (profile, info) = (self.config.profile, self.ack_info(now, acked));
                self.cc.on_ack(&mut self.win, &info, smss, profile);
            }
            true
        } else {
            // RFC 6582 §3.2 step 3, partial ACK: retransmit the first
            // unacknowledged segment and deflate by the bytes acknowledged,
            // adding back one SMSS if at least one SMSS was acknowledged.
            self.pending_rtx = Some(self.snd_una);
            match self.config.profile {
                super::Profile::Rfc => {
                    self.win.cwnd = self.win.cwnd.saturating_sub(acked);
                    if acked >= smss {
                        self.win.cwnd += smss;
                    }
                }
                // ns-3 3.44 keeps cwnd = ssthresh through a classic recovery
                // and takes each dupACKed segment out of `BytesInFlight`
                // (`TcpTxBuffer::AddRenoSack`) until a cumulative ACK covers
                // it: the window it sends into is that of ssthresh plus the
                // dupACKed segments still above SND.UNA (`dup_delivered`,
                // already trimmed by this ACK). That is RFC 6582's deflation
                // until an ACK covers more segments than dupACKs announced;
                // there RFC 6582 goes below ssthresh and ns-3 does not.
                super::Profile::Ns3 => self.win.cwnd = self.win.ssthresh + self.dup_delivered,
            }
            self.partial_acks += 1;
            // RFC 6582 §3.2 step 3: restart the timer on the first partial ACK only.
            self.partial_acks == 1
        }
    }

    /// Bytes in flight during SACK recovery: RFC 6675's SetPipe, or with
    /// RACK the segments neither SACKed nor marked lost (`rack.rs`).
    pub(crate) fn recovery_pipe(&self) -> u64 {
        if self.rack_on() {
            self.sent.pipe()
        } else {
            let smss = u64::from(self.smss);
            self.scoreboard
                .pipe(self.snd_una, self.snd_max, self.high_rxt, smss)
        }
    }

    /// In SACK recovery.
    fn sack_recovery_now(&self) -> bool {
        self.cstate == CongestionState::Recovery && self.recovery == Recovery::Sack
    }

    /// PRR on an ACK in SACK recovery that delivered `delivered` bytes
    /// (`safe`: it advanced SND.UNA and showed no new loss): cwnd = pipe +
    /// sndcnt, proportional to the data delivered while pipe is above
    /// ssthresh, then back up to it by the reduction bound of
    /// `prr_variant` (RFC 6937's PRR-SSRB, or Linux's: PRR-CRB, SSRB on a
    /// safe ACK, nothing on an ACK that delivered nothing). As Linux, at
    /// least one segment may go out when none did since recovery began.
    fn prr_on_ack(&mut self, delivered: u64, safe: bool) {
        let linux = self.config.prr_variant == PrrVariant::Linux;
        if linux && delivered == 0 {
            return;
        }
        let smss = u64::from(self.smss);
        self.prr_delivered += delivered;
        let pipe = self.recovery_pipe();
        let ssthresh = self.win.ssthresh;
        let mut sndcnt = if pipe > ssthresh {
            let fs = self.recover_fs.max(1);
            (self.prr_delivered * ssthresh)
                .div_ceil(fs)
                .saturating_sub(self.prr_out)
        } else {
            let crb = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered);
            let limit = if !linux || safe { crb + smss } else { crb };
            (ssthresh - pipe).min(limit)
        };
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(smss);
        }
        self.win.cwnd = pipe + sndcnt;
    }

    /// With `dsack_undo`: the recovery may be undone (every
    /// retransmission sent in it came back as a DSACK).
    fn dsack_undo_due(&self) -> bool {
        self.undo_marker.is_some() && self.undo_retrans == 0
    }

    /// Undoes the last recovery's reduction, as Linux's Reno undo does:
    /// cwnd and ssthresh back to at least what they were before it.
    fn undo_reduction(&mut self) {
        self.stats.dsack_undos += 1;
        self.win.cwnd = self.win.cwnd.max(self.undo_prior.0);
        self.win.ssthresh = self.win.ssthresh.max(self.undo_prior.1);
        self.undo_marker = None;
        self.undo_retrans = -1;
    }

    fn exit_recovery(&mut self) {
        if self.config.prr && self.sack_recovery_now() {
            // RFC 6937 §3: cwnd = ssthresh when recovery ends.
            self.win.cwnd = self.win.ssthresh;
        }
        if self.sack_recovery_now() && self.dsack_undo_due() {
            self.undo_reduction();
            // A new loss may start a recovery at once.
            self.recover = SeqNum(self.snd_una.0.wrapping_sub(1));
        }
        // Otherwise the undo state outlives the recovery: a DSACK for its
        // last needless retransmission may still undo it.
        self.dupacks = 0;
        self.dup_delivered = 0;
        self.lt_bytes = 0;
        self.partial_acks = 0;
        self.rescue_rxt = None;
        self.set_cstate(CongestionState::Open);
        self.cc.on_recovery_exit(&mut self.win, self.last_ack_at);
    }

    /// A duplicate ACK (RFC 5681 §2, or RFC 6675 §2 with SACK).
    fn on_dupack(&mut self, now: Time) {
        let smss = u64::from(self.smss);
        self.dup_delivered += smss;
        if self.cc.wants_dupacks() {
            let info = self.ack_info(now, 0);
            self.cc.on_dupack(&mut self.win, &info, smss);
        }
        if self.cstate == CongestionState::Recovery {
            if self.recovery == Recovery::NewReno {
                // RFC 5681 §3.2 step 4: inflate by one SMSS per extra dupACK.
                self.win.cwnd += smss;
            }
            return;
        }
        self.dupacks += 1;
        if self.cstate == CongestionState::Open {
            self.set_cstate(CongestionState::Disorder);
        }
        match self.recovery {
            Recovery::NewReno => {
                // RFC 6582 §3.2 step 2, careful variant: only if the ACK
                // covers more than recover (exclusive, see module doc).
                // ns-3 also accepts an ACK equal to it (`m_highRxAckMark >=
                // m_recover`).
                let covers = match self.config.profile {
                    super::Profile::Rfc => self.snd_una > self.recover,
                    super::Profile::Ns3 => self.snd_una >= self.recover,
                };
                if self.dupacks == 3 && covers {
                    self.enter_recovery(now);
                }
            }
            Recovery::Sack => {
                // RFC 6675 §5 steps 1-2; §5.1: none before RecoveryPoint after an RTO.
                // With RACK, RACK's loss marks start recovery instead.
                let lost = self.scoreboard.is_lost(self.snd_una, smss);
                if (u64::from(self.dupacks) >= super::DUP_THRESH || lost)
                    && self.snd_una >= self.recover
                    && !self.rack_on()
                {
                    self.enter_recovery(now);
                }
            }
        }
    }

    /// Fast retransmit: RFC 5681 §3.2 steps 2-3 with RFC 6582, or RFC 6675 §5 step 4.
    pub(crate) fn enter_recovery(&mut self, now: Time) {
        let smss = u64::from(self.smss);
        // RFC 3042 §2: Limited Transmit segments stay out of this FlightSize
        // (ns-3 counts them: its BytesInFlight covers everything sent).
        let outstanding = self.snd_max.since(self.snd_una).max(0) as u64;
        let flight = match (self.config.ssthresh_from, self.config.profile) {
            (super::SsthreshFrom::Cwnd, _) => self.win.cwnd,
            (_, super::Profile::Rfc) => outstanding.saturating_sub(self.lt_bytes),
            (_, super::Profile::Ns3) => outstanding,
        };
        let profile = self.config.profile;
        let cwnd_before = self.win.cwnd;
        // Linux's `prior_ssthresh` (`tcp_current_ssthresh`): at least three
        // quarters of cwnd.
        let ssthresh_before = self.win.ssthresh.max(cwnd_before / 2 + cwnd_before / 4);
        self.win.ssthresh = self
            .cc
            .ssthresh_on_loss(&self.win, flight, smss, profile, now);
        self.recover = self.snd_max;
        self.partial_acks = 0;
        self.stats.fast_retransmits += 1;
        // With RACK, the first segment it marked lost.
        let first_lost = self.rack_on().then(|| self.sent.first_lost()).flatten();
        self.pending_rtx = Some(first_lost.map_or(self.snd_una, |r| r.start));
        match self.recovery {
            // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3*SMSS.
            Recovery::NewReno => self.win.cwnd = self.win.ssthresh + 3 * smss,
            Recovery::Sack => {
                // RFC 6675 §5 step 4.2: cwnd = ssthresh (PRR sets it on each
                // ACK instead); HighRxt/RescueRxt are set when the
                // retransmission goes out.
                self.win.cwnd = self.win.ssthresh;
                self.prr_delivered = 0;
                self.prr_out = 0;
                // RecoverFS: RFC 6937's FlightSize, or Linux's cwnd before
                // the reduction (`prior_cwnd`).
                self.recover_fs = match self.config.prr_variant {
                    PrrVariant::Rfc6937 => outstanding,
                    PrrVariant::Linux => cwnd_before,
                };
                self.high_rxt = self.snd_una;
                self.rescue_rxt = None;
                if self.config.dsack_undo {
                    self.undo_marker = Some(self.snd_una);
                    self.undo_retrans = -1;
                    self.undo_prior = (cwnd_before, ssthresh_before);
                }
            }
        }
        self.set_cstate(CongestionState::Recovery);
    }

    /// Our FIN was acknowledged.
    fn on_fin_acked(&mut self, now: Time) {
        match self.state {
            State::FinWait1 => self.set_state(State::FinWait2),
            State::Closing => self.enter_time_wait(now),
            State::LastAck => self.close_now(),
            _ => {}
        }
    }

    /// RTT sample from TSecr (RFC 7323 §4.1) or from the timed segment
    /// (Karn), unless every-ACK sampling took one from this ACK already.
    pub(crate) fn take_rtt_sample(&mut self, now: Time, seg: &Segment) {
        if std::mem::take(&mut self.ack_sampled) {
            return;
        }
        if self.ts_ok {
            if let Some((_, tsecr)) = seg.options.timestamps {
                let ms = Self::ts_now(now).wrapping_sub(tsecr);
                if ms < 1 << 31 {
                    let r = Dur::from_millis(u64::from(ms));
                    self.rtt.on_ack_sample(r, self.snd_una, self.snd_max);
                    self.ack_rtt = Some(r);
                    self.rtt_probe = None;
                    return;
                }
            }
        }
        // With every-ACK sampling only the SYN is timed; the log gives the
        // rest (`rack.rs`).
        if let Some((end, sent)) = self.rtt_probe {
            if seg.ack >= end {
                let r = now.saturating_since(sent);
                self.rtt.on_ack_sample(r, self.snd_una, self.snd_max);
                self.ack_rtt = Some(r);
                self.rtt_probe = None;
                if self.config.rack_variant == RackVariant::Linux {
                    // Linux's min_RTT takes every sample, the handshake's too.
                    self.rack.min_rtt = Some(self.rack.min_rtt.map_or(r, |m| m.min(r)));
                }
            }
        }
    }

    /// The retransmission timer expired (RFC 6298 §5).
    pub(crate) fn on_rto(&mut self, now: Time) {
        match self.state {
            State::SynSent | State::SynReceived => {
                // RFC 6298 (5.4)-(5.6) for the SYN; (5.7) applies once established.
                self.stats.syn_timeouts += 1;
                self.syn_retransmitted = true;
                if self.config.profile == super::Profile::Rfc {
                    // ns-3 goes on timing the first SYN (send.rs).
                    self.rtt_probe = None;
                }
                // Linux's linear timeouts apply to its own SYN alone.
                let linear = self.state == State::SynSent
                    && self.stats.syn_timeouts <= u64::from(self.config.syn_linear_timeouts);
                match self.config.profile {
                    _ if linear => {}
                    super::Profile::Rfc => self.rtt.back_off(),
                    // ns-3 doubles the connection timeout per retry, with no cap.
                    super::Profile::Ns3 => self.rtt.back_off_uncapped(),
                }
                self.snd_nxt = self.iss;
                self.timers.set(Timer::Rto, now + self.rtt.rto());
                self.events.push_back(Event::RetransmissionTimeout {
                    rto: self.rtt.rto(),
                });
                return;
            }
            State::Closed | State::Listen | State::TimeWait | State::FinWait2 => return,
            _ => {}
        }
        if self.snd_max <= self.snd_una || self.frozen {
            return;
        }
        self.stats.rto_count += 1;
        let smss = u64::from(self.smss);
        let first = self.consecutive_rtos == 0;
        let dsack_undo = self.config.dsack_undo && self.sack_ok;
        if !dsack_undo {
            // A timeout ends any chance of undoing the last recovery.
            self.undo_marker = None;
            self.undo_retrans = -1;
        } else if matches!(
            self.cstate,
            CongestionState::Open | CongestionState::Disorder
        ) || self.snd_una >= self.recover
            || (self.cstate == CongestionState::Loss && first)
        {
            // Linux (`tcp_enter_loss`): a timeout in a new window starts an
            // undo state of its own, undone once every retransmission since
            // comes back as a DSACK (`tcp_try_undo_loss`). One inside fast
            // recovery's window, or repeating a timeout, keeps the one there.
            let cwnd = self.win.cwnd;
            self.undo_marker = Some(self.snd_una);
            self.undo_retrans = -1;
            self.undo_prior = (cwnd, self.win.ssthresh.max(cwnd / 2 + cwnd / 4));
        }
        // F-RTO step 1 (module doc), unless this timeout repeats one whose
        // recovery has not ended.
        let in_rto_recovery = self.cstate == CongestionState::Loss;
        let prior = (self.win.cwnd, self.win.ssthresh);
        let frto = self.config.frto
            && match self.config.frto_variant {
                FrtoVariant::Rfc5682 => !in_rto_recovery,
                // Also on a repeated timeout (its cwnd and ssthresh to
                // restore are the first one's), not on one ending fast
                // recovery.
                FrtoVariant::Linux => self.cstate != CongestionState::Recovery,
            };
        if self.config.frto && !in_rto_recovery {
            self.frto_prior = prior;
        }
        if self.config.eifel && self.ts_ok && !in_rto_recovery {
            // The retransmission goes out now, stamped with this clock.
            self.eifel = Some((Self::ts_now(now), prior));
        }
        if self.sack_ok && (frto || self.eifel.is_some() || dsack_undo) {
            // Restored if the timeout is undone.
            self.sacked_at_rto.clear();
            self.sacked_at_rto
                .extend_from_slice(self.scoreboard.ranges());
        }
        // RFC 5681 eq. (4) sets ssthresh to *no more than* max(FlightSize/2,
        // 2*SMSS). Data the receiver is known to hold above a hole (SACKed,
        // or one SMSS per duplicate ACK without SACK) has left the network,
        // so it is left out, as Linux and ns-3 do: after a long NewReno
        // recovery the literal FlightSize counts a whole window of delivered
        // data and the next slow start overshoots again.
        let outstanding = self.snd_max.since(self.snd_una).max(0) as u64;
        let delivered = if self.sack_ok {
            self.scoreboard.sacked_bytes()
        } else {
            self.dup_delivered
        };
        // RFC 5681 §3.1: ssthresh is set by a timeout only when the segment
        // has "not yet been resent by way of the retransmission timer": not
        // on a repeated timeout, nor on one after progress in the Loss state
        // whose head the go-back-N already resent (ns-3's `ReTxTimeout`
        // writes that test but it never holds: see the `ns3` profile's
        // rule below). After a go-back-N,
        // SND.MAX - SND.UNA still counts the window sent before the first
        // timeout, so a recomputed ssthresh would be far above what the
        // path holds.
        let head_resent = self.cstate == CongestionState::Loss && self.snd_una < self.rtx_high;
        let (flight, new_ssthresh) = match self.config.ssthresh_from {
            super::SsthreshFrom::FlightSize => (
                outstanding.saturating_sub(delivered).max(smss),
                first && !head_resent,
            ),
            // Linux (`tcp_enter_loss`) sets ssthresh from cwnd only for a
            // timeout in a new window: not inside fast recovery's, where
            // its cwnd (never inflated) is already the reduced one and the
            // recovery's ssthresh stays; an inflated NewReno cwnd there
            // would set it above the window that lost.
            super::SsthreshFrom::Cwnd => (
                self.win.cwnd,
                matches!(
                    self.cstate,
                    CongestionState::Open | CongestionState::Disorder
                ) || self.snd_una >= self.recover
                    || (self.cstate == CongestionState::Loss && first),
            ),
        };
        let (flight, new_ssthresh) = if self.config.profile == super::Profile::Ns3
            && self.config.ssthresh_from == super::SsthreshFrom::FlightSize
        {
            // ns-3 3.44 (`TcpSocketBase::ReTxTimeout`) sets ssthresh on
            // every timeout, a repeated one too: its test of "the head not
            // yet resent by the timer" comes after `SetSentListLost` has
            // cleared every retransmitted mark, so it always passes. Its
            // flight is `BytesInFlight` before the timeout: in the Loss
            // state only what was sent since the last timeout (the segments
            // it had not resent yet are marked lost).
            let since_rto = self.snd_nxt.since(self.snd_una).max(0) as u64;
            let ns3_flight = if self.cstate == CongestionState::Loss {
                since_rto
            } else {
                flight
            };
            (ns3_flight, true)
        } else {
            (flight, new_ssthresh)
        };
        if self.config.profile == super::Profile::Ns3
            && self.cstate == CongestionState::Recovery
            && self.recovery == Recovery::NewReno
        {
            // ns-3's cwnd through a classic recovery is ssthresh (the
            // inflation is only its `m_cWndInfl`); a controller that takes
            // ssthresh from cwnd (CUBIC's `GetSsThresh`) sees that one.
            self.win.cwnd = self.win.ssthresh;
        }
        // ssthresh kept on a repeated timeout.
        self.cc
            .on_rto(&mut self.win, flight, smss, new_ssthresh, now, self.snd_max);
        self.dup_delivered = 0;
        self.rate.dup_credit = 0;
        self.consecutive_rtos += 1;
        // RFC 6582 §3.2 step 4 / RFC 6675 §5.1: recover = HighData, leave recovery.
        self.recover = self.snd_max;
        self.dupacks = 0;
        self.lt_bytes = 0;
        self.partial_acks = 0;
        self.rescue_rxt = None;
        self.pending_rtx = None;
        // RFC 2018 §8: forget SACKed marks after a timeout.
        self.scoreboard.clear();
        if self.logs_sends() {
            self.log_on_rto(now);
        }
        self.high_rxt = self.snd_una;
        self.set_cstate(CongestionState::Loss);
        // RFC 6298 (5.4): retransmit the earliest unacknowledged segment,
        // then go back N under cwnd.
        self.snd_nxt = self.snd_una;
        self.rtt_probe = None;
        self.frto_new = 0;
        self.frto = if frto {
            let rtx_end = self.snd_una + outstanding.min(smss) as u32;
            self.frto_originals = (rtx_end.max(self.rtx_high), self.snd_max);
            self.frto_acked = self.frto_originals_acked();
            Frto::First { rtx_end }
        } else {
            Frto::Off
        };
        // RFC 6298 (5.5): back off; (5.6): restart the timer.
        self.rtt.back_off();
        self.timers.set(Timer::Rto, now + self.rtt.rto());
        self.events.push_back(Event::RetransmissionTimeout {
            rto: self.rtt.rto(),
        });
    }

    /// Whether the sender is blocked by the peer's window with nothing in
    /// flight below SND.NXT: a zero window, or one too small for sender SWS
    /// avoidance to use. Only the persist timer can then unblock it (a
    /// window update may have been lost).
    pub(crate) fn persist_mode(&self) -> bool {
        if self.snd_nxt != self.snd_una || !self.has_unsent() {
            return false;
        }
        let unsent = self.snd_buf_end.since(self.snd_nxt).max(0) as u64;
        if unsent == 0 {
            // Only the FIN is left; it needs no window.
            return false;
        }
        self.snd_wnd < unsent.min(u64::from(self.smss))
    }

    /// Data or a FIN waits at or above SND.NXT.
    pub(crate) fn has_unsent(&self) -> bool {
        self.snd_nxt < self.snd_buf_end || self.fin_seq().is_some_and(|f| self.snd_nxt <= f)
    }

    /// Interval before the next zero-window probe: RTO doubled per probe, capped.
    fn persist_interval(&self) -> Dur {
        let factor = 1u64
            .checked_shl(self.persist_backoff.min(63))
            .unwrap_or(u64::MAX);
        self.rtt
            .rto()
            .saturating_mul(factor)
            .min(self.config.max_rto)
    }

    /// The persist timer expired: send a probe and back off (RFC 9293 SHLD-29/30).
    pub(crate) fn on_persist(&mut self, now: Time) {
        if !self.persist_mode() || self.frozen {
            return;
        }
        self.probe_due = true;
        self.persist_backoff = self.persist_backoff.saturating_add(1);
        self.timers
            .set(Timer::Persist, now + self.persist_interval());
    }

    /// Arms or stops the RTO and persist timers after any input or output.
    pub(crate) fn update_timers(&mut self, now: Time) {
        match self.state {
            State::Closed | State::Listen | State::TimeWait => return,
            State::SynSent | State::SynReceived => {
                if self.snd_max > self.snd_una && !self.timers.is_set(Timer::Rto) {
                    self.timers.set(Timer::Rto, now + self.rtt.rto());
                }
                return;
            }
            _ => {}
        }
        if self.frozen {
            return;
        }
        if self.persist_mode() {
            self.timers.stop(Timer::Rto);
            if !self.timers.is_set(Timer::Persist) {
                // RFC 9293 SHLD-29: first probe after one RTO.
                self.timers
                    .set(Timer::Persist, now + self.persist_interval());
            }
            return;
        }
        self.timers.stop(Timer::Persist);
        if self.snd_wnd > 0 {
            // The window opened: the next zero window starts a fresh back-off.
            self.persist_backoff = 0;
        }
        if self.snd_max > self.snd_una {
            if !self.timers.is_set(Timer::Rto) {
                // RFC 6298 (5.1): data outstanding and the timer off: start it.
                self.timers.set(Timer::Rto, now + self.rtt.rto());
            }
        } else {
            self.timers.stop(Timer::Rto);
        }
    }
}

/// Bytes in `[from, to)` covered by the union of two sorted lists of
/// disjoint ranges.
pub(crate) fn union_len(
    a: &[(SeqNum, SeqNum)],
    b: &[(SeqNum, SeqNum)],
    from: SeqNum,
    to: SeqNum,
) -> u64 {
    let (mut i, mut j) = (0, 0);
    let mut total = 0u64;
    // The end of the union's span counted so far.
    let mut reach = from;
    while i < a.len() || j < b.len() {
        let take_a = j == b.len() || (i < a.len() && a[i].0 <= b[j].0);
        let (l, r) = if take_a { a[i] } else { b[j] };
        if take_a {
            i += 1;
        } else {
            j += 1;
        }
        let (l, r) = (l.max(reach), r.min(to));
        if l < r {
            total += (r - l) as u64;
            reach = r;
        }
    }
    total
}
