//! Segment output: SYN and SYN-ACK, retransmissions, new data under
//! min(cwnd, rwnd) with sender SWS avoidance, zero-window probes, RFC 6675
//! NextSeg during SACK recovery, and pure ACKs.

use super::{
    CongestionState, Endpoint, Event, NextSeg, Recovery, RttSampling, State, Timer, Transmit,
    ATO_MIN,
};
use crate::time::Time;
use crate::wire::{Segment, SeqNum, TcpFlags, TcpOptions};

/// How a data segment moves SND.NXT.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Advance {
    /// The segment starts at SND.NXT, which moves past it.
    Nxt,
    /// An out-of-band retransmission or probe: SND.NXT stays.
    Stay,
}

impl Endpoint {
    /// The next segment to send, if any. Call until `None`.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        let t = self.next_transmit(now);
        if let Some(t) = &t {
            self.account(now, t);
        }
        self.update_timers(now);
        if self.tlp_rearm {
            self.tlp_update_timer(now);
        }
        t
    }

    fn next_transmit(&mut self, now: Time) -> Option<Transmit> {
        if let Some(segment) = self.reset_reply.take() {
            self.stats.resets_sent += 1;
            return Some(Transmit {
                segment,
                retransmission: false,
            });
        }
        match self.state {
            State::Closed | State::Listen => return None,
            State::SynSent | State::SynReceived => {
                return (self.snd_nxt == self.iss).then(|| self.syn(now));
            }
            _ => {}
        }
        if std::mem::take(&mut self.pure_ack_first) {
            let seg = self.segment(now, self.snd_max, 0, TcpFlags::ACK);
            return Some(Transmit {
                segment: seg,
                retransmission: false,
            });
        }
        if !self.frozen {
            if let Some(t) = self.pending_retransmission(now) {
                return Some(t);
            }
            if let Some(t) = self.lr_retransmission(now) {
                return Some(t);
            }
            if let Some(t) = self.probe(now) {
                return Some(t);
            }
            if let Some(t) = self.tail_loss_probe(now) {
                return Some(t);
            }
            if let Some(t) = self.send_data(now) {
                return Some(t);
            }
        }
        if self.ack_now {
            // A pure ACK carries SND.MAX (as BSD does), so that it stays
            // acceptable after a go-back-N; SND.NXT while a zero-window probe
            // is outstanding, where only RCV.NXT is acceptable.
            let seq = if self.snd_wnd == 0 {
                self.snd_nxt
            } else {
                self.snd_max
            };
            let seg = self.segment(now, seq, 0, TcpFlags::ACK);
            return Some(Transmit {
                segment: seg,
                retransmission: false,
            });
        }
        None
    }

    /// SYN (active open) or SYN-ACK (passive open).
    fn syn(&mut self, now: Time) -> Transmit {
        let retransmission = self.snd_max > self.iss;
        let passive = self.state == State::SynReceived;
        let mut options = TcpOptions {
            mss: Some(self.config.mss.min(65_535) as u16),
            ..TcpOptions::default()
        };
        let ts = Self::ts_now(now);
        if passive {
            options.window_scale = self.ws_ok.then_some(self.rcv_wscale);
            options.sack_permitted = self.sack_ok;
            options.timestamps = self.ts_ok.then_some((ts, self.ts_recent));
        } else {
            options.window_scale = self.config.window_scale.then(|| self.wanted_wscale());
            options.sack_permitted = self.config.sack;
            options.timestamps = self.config.timestamps.then_some((ts, 0));
        }
        let mut flags = TcpFlags::SYN;
        let ack = if passive {
            flags |= TcpFlags::ACK;
            self.ack_now = false;
            self.last_ack_sent = self.rcv_nxt;
            self.rcv_nxt
        } else {
            SeqNum(0)
        };
        let segment = Segment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.iss,
            ack,
            flags,
            window: self.syn_window(),
            options,
            payload_len: 0,
        };
        self.snd_nxt = self.iss + 1;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        if !retransmission {
            self.rtt_probe = Some((self.iss + 1, now));
        } else if self.config.profile == super::Profile::Rfc {
            // Karn: no sample from a retransmitted SYN. ns-3 keeps timing
            // the first one (its RTT history never marks a zero-length SYN
            // retransmitted), so the SYN-ACK gives a sample from there.
            self.rtt_probe = None;
        }
        if !self.timers.is_set(Timer::Rto) {
            self.timers.set(Timer::Rto, now + self.rtt.rto());
        }
        Transmit {
            segment,
            retransmission,
        }
    }

    /// A header with our ACK, window, timestamps and SACK blocks. Sending
    /// it settles any owed ACK.
    fn segment(&mut self, now: Time, seq: SeqNum, len: u32, flags: TcpFlags) -> Segment {
        let mut options = TcpOptions::default();
        if self.ts_ok {
            options.timestamps = Some((Self::ts_now(now), self.ts_recent));
        }
        options.sack = self.sack_blocks();
        self.dsack_pending = None;
        let window = self.advertise_window();
        if self.ack_now || self.unacked_bytes > 0 {
            // An ACK owed for data received: one quick ACK spent; Linux
            // leaves quick-ACK mode with its shortest timeout.
            if self.quick == 1 && self.config.delayed_ack_ato {
                self.ato = ATO_MIN;
            }
            self.quick = self.quick.saturating_sub(1);
        }
        self.ack_now = false;
        self.unacked_bytes = 0;
        self.timers.stop(Timer::DelayedAck);
        self.last_ack_sent = self.rcv_nxt;
        Segment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq,
            ack: self.rcv_nxt,
            flags: flags | TcpFlags::ACK,
            window,
            options,
            payload_len: len,
        }
    }

    /// A data (and/or FIN) segment at `seq` with at most `room` payload bytes.
    fn data_segment(
        &mut self,
        now: Time,
        seq: SeqNum,
        room: u64,
        adv: Advance,
    ) -> Option<Transmit> {
        let left = self.snd_buf_end.since(seq).max(0) as u64;
        let len = room.min(left).min(u64::from(self.smss)) as u32;
        let end = seq + len;
        let fin = self.fin_queued && end == self.snd_buf_end;
        if len == 0 && !fin {
            return None;
        }
        let mut flags = TcpFlags::ACK;
        if fin {
            flags |= TcpFlags::FIN;
        }
        if self.pushes(seq, end) {
            flags |= TcpFlags::PSH;
        }
        let retransmission = seq < self.snd_max;
        let seg_end = end + u32::from(fin);
        if adv == Advance::Nxt {
            self.snd_nxt = seg_end;
        }
        self.snd_max = self.snd_max.max(seg_end);
        if retransmission {
            if seg_end > self.rtx_high {
                self.rtx_high = seg_end;
            }
            // Karn's rule: a timed segment that is resent yields no sample.
            if self.rtt_probe.is_some_and(|(e, _)| seq < e) {
                self.rtt_probe = None;
            }
        } else if self.rtt_probe.is_none() && self.config.rtt_sampling == RttSampling::Timed {
            self.rtt_probe = Some((seg_end, now));
        }
        self.log_send(now, seq, seg_end);
        let segment = self.segment(now, seq, len, flags);
        Some(Transmit {
            segment,
            retransmission,
        })
    }

    /// Whether `(seq, end]` holds the end of an application write (the
    /// marks at or below SND.UNA are dropped on the way).
    fn pushes(&mut self, seq: SeqNum, end: SeqNum) -> bool {
        while self.push_marks.front().is_some_and(|&p| p <= self.snd_una) {
            self.push_marks.pop_front();
        }
        let i = self.push_marks.partition_point(|&p| p <= seq);
        self.push_marks.get(i).is_some_and(|&p| p <= end)
    }

    /// Counters, trace and the last-send time for an emitted segment.
    fn account(&mut self, now: Time, t: &Transmit) {
        let s = &t.segment;
        self.stats.segments_sent += 1;
        if s.payload_len > 0 {
            self.stats.data_segments_sent += 1;
        }
        if s.payload_len > 0 || s.flags.fin() {
            self.last_data_sent = Some(now);
        } else if !s.flags.syn() {
            self.stats.acks_sent += 1;
        }
        if self.config.prr && self.cstate == CongestionState::Recovery {
            self.prr_out += u64::from(s.payload_len);
        }
        if t.retransmission {
            if self.undo_marker.is_some() {
                self.undo_retrans = self.undo_retrans.max(0) + 1;
            }
            self.stats.retransmissions += 1;
            self.stats.bytes_retransmitted += u64::from(s.payload_len);
        }
        if self.config.trace_segments {
            self.events.push_back(Event::SegmentSent {
                seq: s.seq,
                len: s.payload_len,
                retransmission: t.retransmission,
            });
        }
    }

    /// A fast retransmission, partial-ACK retransmission or resume
    /// retransmission, sent whatever cwnd says.
    fn pending_retransmission(&mut self, now: Time) -> Option<Transmit> {
        let seq = self.pending_rtx.take()?.max(self.snd_una);
        if seq >= self.snd_max {
            return None;
        }
        // Up to SND.MAX, stopping short of data the receiver SACKed.
        let end = self
            .scoreboard
            .ranges()
            .iter()
            .map(|r| r.0)
            .find(|&l| l > seq)
            .map_or(self.snd_max, |l| l.min(self.snd_max));
        let room = end.since(seq) as u64;
        let t = self.data_segment(now, seq, room, Advance::Stay)?;
        if self.sack_recovery() {
            let end = seq + t.segment.payload_len;
            // RFC 6675 §5 step 4.3: HighRxt = RescueRxt = end of the retransmission.
            self.high_rxt = self.high_rxt.max(end);
            self.rescue_rxt.get_or_insert(end);
        }
        Some(t)
    }

    /// The next segment of a range asked for by
    /// [`retransmit_range`](Endpoint::retransmit_range), sent whatever cwnd
    /// says.
    fn lr_retransmission(&mut self, now: Time) -> Option<Transmit> {
        while let Some((left, right)) = self.lr_rtx.pop_front() {
            let left = left.max(self.snd_una);
            let right = right.min(self.snd_max);
            if left >= right {
                continue;
            }
            let Some(t) = self.data_segment(now, left, right.since(left) as u64, Advance::Stay)
            else {
                continue;
            };
            let end = left + t.segment.payload_len;
            if end < right {
                self.lr_rtx.push_front((end, right));
            }
            return Some(t);
        }
        None
    }

    fn sack_recovery(&self) -> bool {
        self.recovery == Recovery::Sack && self.cstate == CongestionState::Recovery
    }

    /// The persist timer fired: with a zero window, a probe of one byte of
    /// new data beyond the window (RFC 9293 §3.8.6.1); with a window too
    /// small for SWS avoidance, the override: send what the window allows
    /// (RFC 9293 §3.8.6.2.1).
    fn probe(&mut self, now: Time) -> Option<Transmit> {
        if !std::mem::take(&mut self.probe_due) || !self.persist_mode() {
            return None;
        }
        if self.snd_wnd == 0 {
            self.stats.zero_window_probes += 1;
            self.data_segment(now, self.snd_nxt, 1, Advance::Stay)
        } else {
            self.data_segment(now, self.snd_nxt, self.snd_wnd, Advance::Nxt)
        }
    }

    /// The probe timer fired (RFC 8985 §7.3): one new segment whatever cwnd
    /// says, if the data and the receiver's window allow, else the last
    /// segment again; then the RTO timer restarts.
    fn tail_loss_probe(&mut self, now: Time) -> Option<Transmit> {
        if !std::mem::take(&mut self.tlp_due) || !self.may_send() {
            return None;
        }
        let smss = u64::from(self.smss);
        let outstanding = self.snd_max.since(self.snd_una).max(0) as u64;
        let room = self.snd_wnd.saturating_sub(outstanding);
        let avail = self.snd_buf_end.since(self.snd_max).max(0) as u64;
        self.tlp_sending = true;
        let t = if avail > 0 && room >= avail.min(smss) {
            self.snd_nxt = self.snd_max;
            self.data_segment(now, self.snd_max, room.min(smss), Advance::Nxt)
        } else {
            let last = self.sent.last().copied();
            last.and_then(|r| self.data_segment(now, r.start, r.len(), Advance::Stay))
        };
        self.tlp_sending = false;
        let t = t?;
        self.stats.tlp_probes += 1;
        self.tlp.end = Some(self.snd_max);
        self.tlp.retransmitted = t.retransmission;
        self.timers.stop(Timer::Tlp);
        self.timers.set(Timer::Rto, now + self.rtt.rto());
        Some(t)
    }

    /// Whether the state lets data or a FIN go out.
    fn may_send(&self) -> bool {
        matches!(
            self.state,
            State::Established
                | State::CloseWait
                | State::FinWait1
                | State::Closing
                | State::LastAck
        )
    }

    /// New data, or go-back-N retransmissions after a timeout, under
    /// min(cwnd, rwnd); RFC 6675 NextSeg during SACK recovery.
    fn send_data(&mut self, now: Time) -> Option<Transmit> {
        if !self.may_send() {
            return None;
        }
        if self.sack_recovery() {
            return self.sack_next(now);
        }
        self.restart_after_idle(now);
        // Skip ranges the receiver already holds (RFC 2018 §5).
        while self.snd_nxt < self.snd_max {
            match self.scoreboard.sacked_until(self.snd_nxt) {
                Some(end) => self.snd_nxt = end,
                None => break,
            }
        }
        let smss = u64::from(self.smss);
        let mut limit = self.win.cwnd;
        if self.cstate == CongestionState::Disorder && self.config.limited_transmit {
            // RFC 3042 §2: one extra segment per dupACK, at most two.
            limit += u64::from(self.dupacks.min(2)) * smss;
        }
        let limit = limit.min(self.snd_wnd);
        // Going back N after a timeout, bytes SACKed since then below
        // SND.NXT are not in flight (elsewhere FlightSize is SND.NXT - SND.UNA).
        let sacked_below: u64 = if self.cstate == CongestionState::Loss {
            self.scoreboard
                .ranges()
                .iter()
                .filter(|r| r.0 < self.snd_nxt)
                .map(|&(l, r)| (r.min(self.snd_nxt) - l) as u64)
                .sum()
        } else {
            0
        };
        let in_flight =
            (self.snd_nxt.since(self.snd_una).max(0) as u64).saturating_sub(sacked_below);
        let mut usable = limit.saturating_sub(in_flight);
        if let Some(&(l, _)) = self.scoreboard.ranges().iter().find(|r| r.0 > self.snd_nxt) {
            usable = usable.min((l - self.snd_nxt) as u64);
        }
        let frto_new = self.frto_new > 0 && self.snd_nxt >= self.snd_max;
        if frto_new {
            // F-RTO step 2b (RFC 5682 §2): a new segment whatever cwnd
            // says, inside the receiver's window.
            let outstanding = self.snd_max.since(self.snd_una).max(0) as u64;
            usable = self.snd_wnd.saturating_sub(outstanding).min(smss);
        }
        let avail = self.snd_buf_end.since(self.snd_nxt).max(0) as u64;
        let fin_only = avail == 0 && self.has_unsent();
        if !fin_only {
            if usable == 0 {
                return None;
            }
            // RFC 9293 §3.8.6.2.1: full segments, the tail of the data, or
            // half the largest window; retransmissions are never held back,
            // but in the ns-3 profile a go-back-N retransmission is, as new
            // data is (`TcpSocketBase::SendPendingData` waits for a window
            // of a whole segment whatever it sends).
            let len = avail.min(usable).min(smss);
            let new = self.snd_nxt >= self.snd_max;
            let ok = len == smss || len == avail || 2 * len >= self.max_snd_wnd;
            if !ok && (new || self.config.profile == super::Profile::Ns3) {
                return None;
            }
        }
        if self.pacing_holds(now) {
            return None;
        }
        let t = self.data_segment(now, self.snd_nxt, usable, Advance::Nxt)?;
        self.paced(now, t.segment.payload_len);
        if frto_new {
            self.frto_new -= 1;
        }
        if !t.retransmission && self.cstate == CongestionState::Disorder {
            let sent = u64::from(t.segment.payload_len);
            if in_flight + sent > self.win.cwnd {
                self.lt_bytes += sent;
            }
        }
        Some(t)
    }

    /// RFC 5681 §4.1: after an idle period longer than the RTO, cwnd = min(cwnd, IW).
    fn restart_after_idle(&mut self, now: Time) {
        // Not for a controller that sets cwnd on every ACK (Linux's
        // `tcp_slow_start_after_idle_check` skips `cong_control` ones).
        if self.snd_max != self.snd_una || self.cc.wants_rate_samples() {
            return;
        }
        if let Some(last) = self.last_data_sent {
            if now.saturating_since(last) > self.rtt.rto() {
                let iw = u64::from(self.config.initial_window.max(1)) * u64::from(self.smss);
                self.win.cwnd = self.win.cwnd.min(iw);
                self.last_data_sent = None;
            }
        }
    }

    /// RFC 6675 §5 (C): while cwnd - pipe >= SMSS, send what NextSeg picks.
    fn sack_next(&mut self, now: Time) -> Option<Transmit> {
        let smss = u64::from(self.smss);
        let rack = self.rack_on();
        let pipe = self.recovery_pipe();
        if self.win.cwnd < pipe + smss {
            return None;
        }
        let avail = self.snd_buf_end.since(self.snd_max).max(0) as u64;
        let fin_unsent = self.fin_seq().is_some_and(|f| self.snd_max <= f);
        let wnd_room = (self.snd_una + self.snd_wnd.min(u32::MAX as u64) as u32)
            .since(self.snd_max)
            .max(0) as u64;
        let new_ok = (avail > 0 && wnd_room >= avail.min(smss)) || (avail == 0 && fin_unsent);
        let rescue_ok = self.rescue_rxt.is_none_or(|r| self.snd_una >= r);
        let choice = if rack {
            // RACK (see `rack.rs`): the first segment marked lost, else new data.
            match self.sent.first_lost() {
                Some(r) => Some(NextSeg::Retransmit {
                    seq: r.start,
                    len: r.len() as u32,
                }),
                None => new_ok.then_some(NextSeg::NewData),
            }
        } else {
            self.scoreboard.next_seg(
                self.snd_una,
                self.snd_max,
                self.high_rxt,
                self.smss,
                new_ok,
                rescue_ok,
            )
        };
        let choice = choice?;
        if self.pacing_holds(now) {
            return None;
        }
        let t = self.send_choice(now, choice, wnd_room)?;
        self.paced(now, t.segment.payload_len);
        Some(t)
    }

    /// Sends what NextSeg chose.
    fn send_choice(&mut self, now: Time, choice: NextSeg, wnd_room: u64) -> Option<Transmit> {
        let smss = u64::from(self.smss);
        match choice {
            NextSeg::Retransmit { seq, len } => {
                let t = self.data_segment(now, seq, u64::from(len), Advance::Stay)?;
                self.high_rxt = self.high_rxt.max(seq + t.segment.payload_len);
                Some(t)
            }
            NextSeg::NewData => {
                self.snd_nxt = self.snd_max;
                self.data_segment(now, self.snd_max, wnd_room.min(smss), Advance::Nxt)
            }
            NextSeg::Rescue { seq, len } => {
                // RFC 6675 NextSeg (4): RescueRxt = RecoveryPoint, HighRxt unchanged.
                self.rescue_rxt = Some(self.recover);
                self.data_segment(now, seq, u64::from(len), Advance::Stay)
            }
        }
    }
}
