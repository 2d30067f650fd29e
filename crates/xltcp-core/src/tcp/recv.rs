//! Segment input: the handshake, the acceptability test, reassembly,
//! ACK generation (delayed and immediate), SACK blocks and the advertised
//! window.

use super::{Endpoint, Event, Profile, Recovery, State, Timer, ATO_MIN, LINUX_INIT_RCV_SPACE};
use crate::time::{Dur, Time};
use crate::wire::{SackBlock, SackBlocks, Segment, SeqNum, TcpFlags, TcpOptions};

/// MSS assumed when the peer sends no MSS option (RFC 9293 §3.7.1).
const DEFAULT_MSS: u32 = 536;
/// Largest shift allowed by RFC 7323 §2.3.
const MAX_WSCALE: u8 = 14;
/// Longest payload accepted (an IPv4 datagram cannot carry more).
const MAX_PAYLOAD: u32 = 65_535;
/// TIME-WAIT length: 2*MSL with MSL = 1 s.
pub const TIME_WAIT: Dur = Dur::from_secs(2);

impl Endpoint {
    /// Processes one received segment.
    pub fn handle_segment(&mut self, now: Time, seg: &Segment) {
        self.stats.segments_received += 1;
        if self.config.trace_segments {
            self.events.push_back(Event::SegmentReceived {
                seq: seg.seq,
                len: seg.payload_len,
                ack: seg.ack,
            });
        }
        if seg.payload_len > MAX_PAYLOAD {
            // No real segment is that long; its sequence space would wrap.
            self.stats.dropped_bad_state += 1;
            return;
        }
        if seg.dst_port != self.local_port || seg.src_port != self.remote_port {
            self.stats.dropped_bad_state += 1;
            return;
        }
        match self.state {
            State::Closed => {
                self.stats.dropped_bad_state += 1;
                self.queue_reset(seg);
            }
            State::Listen => self.on_listen(seg),
            State::SynSent => self.on_syn_sent(now, seg),
            _ => self.on_synchronized(now, seg),
        }
        self.update_timers(now);
    }

    /// The shift that lets `rcv_buffer` fit the 16-bit window field.
    pub(crate) fn wanted_wscale(&self) -> u8 {
        let mut s = 0u8;
        while s < MAX_WSCALE && (65_535u64 << s) < self.config.rcv_buffer {
            s += 1;
        }
        s
    }

    /// Window announced in a SYN or SYN-ACK (never scaled, RFC 7323 §2.2).
    pub(crate) fn syn_window(&self) -> u16 {
        self.config.rcv_buffer.min(65_535) as u16
    }

    /// Takes the peer's SYN options and sequence number.
    fn negotiate(&mut self, seg: &Segment) {
        let o = &seg.options;
        let peer_mss = o.mss.map_or(DEFAULT_MSS, u32::from);
        self.sack_ok = self.config.sack && o.sack_permitted;
        self.ts_ok = self.config.timestamps && o.timestamps.is_some();
        match (self.config.window_scale, o.window_scale) {
            (true, Some(s)) => {
                self.ws_ok = true;
                self.snd_wscale = s.min(MAX_WSCALE);
                self.rcv_wscale = self.wanted_wscale();
            }
            _ => {
                self.ws_ok = false;
                self.snd_wscale = 0;
                self.rcv_wscale = 0;
            }
        }
        // `mss` is the payload per segment; options do not reduce it.
        self.smss = self.config.mss.min(peer_mss).max(1);
        self.recovery = match self.config.recovery {
            Recovery::Sack if self.sack_ok => Recovery::Sack,
            _ => Recovery::NewReno,
        };
        if let Some((tsval, _)) = o.timestamps {
            self.ts_recent = tsval;
        }
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq + 1;
        self.rcv_adv = self.rcv_nxt + u32::from(self.syn_window());
        self.last_ack_sent = self.rcv_nxt;
        self.win.cwnd = u64::from(self.config.initial_window.max(1)) * u64::from(self.smss);
    }

    fn on_listen(&mut self, seg: &Segment) {
        if !seg.flags.syn() || seg.flags.ack() || seg.flags.rst() {
            self.stats.dropped_bad_state += 1;
            if seg.flags.ack() {
                // RFC 9293 §3.10.7.2: an ACK in LISTEN gets a reset.
                self.queue_reset(seg);
            }
            return;
        }
        self.negotiate(seg);
        self.snd_wnd = u64::from(seg.window);
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = seg.seq;
        self.set_state(State::SynReceived);
    }

    fn on_syn_sent(&mut self, now: Time, seg: &Segment) {
        if seg.flags.ack() && seg.ack != self.iss + 1 {
            // RFC 9293 §3.10.7.3: unacceptable ACK (we never send RSTs).
            self.stats.dropped_bad_ack += 1;
            return;
        }
        if seg.flags.rst() {
            if seg.flags.ack() {
                self.reset();
            } else {
                self.stats.dropped_bad_state += 1;
            }
            return;
        }
        if !seg.flags.syn() || !seg.flags.ack() {
            // Simultaneous open is not supported.
            self.stats.dropped_bad_state += 1;
            return;
        }
        self.negotiate(seg);
        self.syn_acked(now, seg);
        self.snd_wnd = u64::from(seg.window);
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = seg.ack;
        self.ack_now = true;
        // ns-3 sends the ACK on its own, then the data (ProcessSynSent).
        self.pure_ack_first = self.config.profile == Profile::Ns3;
        self.set_state(State::Established);
    }

    /// Our SYN (or SYN-ACK) is acknowledged: RTT sample and RFC 6298 (5.7).
    fn syn_acked(&mut self, now: Time, seg: &Segment) {
        self.una_advanced += seg.ack.since(self.snd_una).max(0) as u64;
        self.snd_una = seg.ack;
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        self.take_rtt_sample(now, seg);
        if self.syn_retransmitted {
            match self.config.profile {
                Profile::Rfc => {
                    // RFC 6298 (5.7): RTO back to 3 s once data transfer starts.
                    self.rtt.reset_after_syn_timeout(self.config.initial_rto);
                    // RFC 5681 §3.1: after a lost SYN or SYN-ACK, IW = 1 segment.
                    self.win.cwnd = u64::from(self.smss);
                }
                // ns-3 keeps its initial window and takes the RTO from its
                // estimator (the SYN's backed-off value until a sample).
                Profile::Ns3 => self.rtt.end_syn_backoff(),
            }
        }
        self.consecutive_rtos = 0;
        self.timers.stop(Timer::Rto);
    }

    /// RFC 9293 §3.10.7.1: the reset answering a segment that has no
    /// connection (never for a reset).
    fn queue_reset(&mut self, seg: &Segment) {
        if seg.flags.rst() {
            return;
        }
        let (seq, ack, flags) = if seg.flags.ack() {
            (seg.ack, SeqNum(0), TcpFlags::RST)
        } else {
            (
                SeqNum(0),
                seg.seq + seg.seq_len(),
                TcpFlags::RST | TcpFlags::ACK,
            )
        };
        self.reset_reply = Some(Segment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq,
            ack,
            flags,
            window: 0,
            options: TcpOptions::default(),
            payload_len: 0,
        });
    }

    fn reset(&mut self) {
        self.stats.resets_received += 1;
        self.events.push_back(Event::Reset);
        self.close_now();
    }

    /// RFC 9293 §3.10.7.4: segment arrives in a synchronised state.
    fn on_synchronized(&mut self, now: Time, seg: &Segment) {
        if self.state == State::SynReceived && seg.flags.syn() && !seg.flags.ack() {
            if seg.seq == self.irs {
                // Our SYN-ACK was lost: send it again.
                self.snd_nxt = self.iss;
            } else {
                self.stats.dropped_bad_state += 1;
            }
            return;
        }
        if !self.acceptable(seg) {
            if !seg.flags.rst() {
                self.ack_now = true;
            }
            if self.state == State::TimeWait && seg.flags.fin() {
                // RFC 9293 §3.10.7.4: a retransmitted FIN restarts the 2*MSL wait.
                self.timers.set(Timer::TimeWait, now + TIME_WAIT);
            }
            let end = seg.seq + seg.seq_len();
            if seg.payload_len > 0 {
                // Linux's `tcp_data_queue`: data wholly old or beyond the
                // window puts the receiver in quick-ACK mode.
                self.enter_quickack();
            }
            if seg.payload_len > 0 && end <= self.rcv_nxt {
                self.stats.duplicate_bytes_received += u64::from(seg.payload_len);
                self.report_duplicate(seg.seq, seg.seq + seg.payload_len);
            } else {
                self.stats.dropped_out_of_window += 1;
            }
            // RFC 9293 §3.10.7.4: with a zero receive window, valid ACKs still count.
            if self.rcv_window() == 0 && seg.flags.ack() && !seg.flags.rst() && !seg.flags.syn() {
                self.on_ack_segment(now, seg);
            }
            return;
        }
        if seg.flags.rst() {
            self.reset();
            return;
        }
        if seg.flags.syn() {
            // RFC 9293 §3.10.7.4 (fourth): SYN in a synchronised state.
            self.stats.dropped_bad_state += 1;
            self.ack_now = true;
            return;
        }
        if !seg.flags.ack() {
            self.stats.dropped_bad_state += 1;
            return;
        }
        if self.state == State::SynReceived {
            if seg.ack != self.iss + 1 {
                self.stats.dropped_bad_ack += 1;
                return;
            }
            self.syn_acked(now, seg);
            self.set_state(State::Established);
            if self.fin_queued {
                // RFC 9293 §3.10.4: a CLOSE in SYN-RECEIVED waits for ESTABLISHED.
                self.set_state(State::FinWait1);
            }
        }
        if !self.on_ack_segment(now, seg) {
            return;
        }
        if self.ts_ok {
            if let Some((tsval, _)) = seg.options.timestamps {
                // RFC 7323 §4.3 (simplified): remember TSval of in-order segments.
                if seg.seq <= self.last_ack_sent {
                    self.ts_recent = tsval;
                }
            }
        }
        self.on_data(now, seg);
        if seg.flags.fin() {
            self.rcv_fin = Some(seg.seq + seg.payload_len);
        }
        self.consume_fin(now);
    }

    /// Receive window currently offered: RCV.ADV - RCV.NXT.
    pub(crate) fn rcv_window(&self) -> u64 {
        self.rcv_adv.since(self.rcv_nxt).max(0) as u64
    }

    /// RFC 9293 §3.10.7.4 acceptability test (the four cases).
    fn acceptable(&self, seg: &Segment) -> bool {
        let len = seg.seq_len();
        let wnd = self.rcv_window() as u32;
        let in_window = |s: SeqNum| self.rcv_nxt <= s && s < self.rcv_nxt + wnd;
        match (len, wnd) {
            (0, 0) => seg.seq == self.rcv_nxt,
            (0, _) => in_window(seg.seq),
            (_, 0) => false,
            _ => in_window(seg.seq) || in_window(seg.seq + (len - 1)),
        }
    }

    /// Places payload in order or out of order and decides how to ACK.
    fn on_data(&mut self, now: Time, seg: &Segment) {
        if seg.payload_len == 0 {
            return;
        }
        if !matches!(
            self.state,
            State::Established | State::FinWait1 | State::FinWait2
        ) {
            self.stats.dropped_bad_state += 1;
            return;
        }
        let mut start = seg.seq;
        let mut end = seg.seq + seg.payload_len;
        if start < self.rcv_nxt {
            self.stats.duplicate_bytes_received += (self.rcv_nxt - start) as u64;
            self.report_duplicate(start, self.rcv_nxt.min(end));
            start = self.rcv_nxt;
        }
        let right = self.rcv_adv.max(self.rcv_nxt);
        if end > right {
            self.stats.dropped_out_of_window += 1;
            end = right;
        }
        let first_data = !self.data_received;
        // Quick ACKs after a gap in the data longer than the RTO (tracked
        // only with quick ACKs on).
        let idle = self.config.quickacks > 0
            && self
                .last_data_at
                .replace(now)
                .is_some_and(|t| now.saturating_since(t) > self.rtt.rto());
        if start >= end {
            // Nothing new (a duplicate, or beyond the window): Linux
            // enters quick-ACK mode as well as ACKing at once.
            self.enter_quickack();
            self.ack_now = true;
            return;
        }
        if first_data || idle {
            self.enter_quickack();
        }
        self.rcv_mss_seen = self.rcv_mss_seen.max(seg.payload_len);
        self.data_received = true;
        if start == self.rcv_nxt {
            if self.config.delayed_ack_ato {
                self.update_ato(now);
            }
            let filled_gap = !self.ooo.is_empty();
            let before = self.rcv_nxt;
            self.rcv_nxt = end;
            self.merge_ooo();
            let advanced = (self.rcv_nxt - before) as u64;
            self.unread += advanced;
            self.unacked_bytes += advanced;
            self.update_sack_order(None);
            if self.config.ack_window_growth {
                self.grow_window_in_order(now, seg.payload_len);
            }
            if filled_gap {
                // RFC 5681 §4.2: immediate ACK for a segment that fills (part of) a gap.
                self.ack_now = true;
            } else if self.config.profile == Profile::Ns3 && first_data {
                // ns-3: the first data segment is acknowledged at once.
                self.ack_now = true;
            } else {
                self.delay_ack(now, seg);
            }
        } else {
            // RFC 5681 §4.2: immediate (duplicate) ACK for out-of-order data.
            self.stats.out_of_order_segments += 1;
            if self.ooo.iter().any(|&(l, r)| l <= start && end <= r) {
                self.stats.duplicate_bytes_received += (end - start) as u64;
                self.report_duplicate(start, end);
            }
            self.insert_ooo(start, end);
            self.update_sack_order(Some(start));
            if self.config.ack_window_growth && self.sack_ok {
                self.grow_window((end - start).max(0) as u32);
            }
            self.ack_now = true;
        }
    }

    /// RFC 9293 §3.8.6.3: ACK every `delayed_ack_segments` full segments, or on the timer.
    fn delay_ack(&mut self, now: Time, seg: &Segment) {
        let n = u64::from(self.config.delayed_ack_segments);
        let full = u64::from(self.rcv_mss_seen.max(seg.payload_len));
        let pushed =
            self.config.ack_pushed && (seg.flags.psh() || u64::from(seg.payload_len) < full);
        if n <= 1 || self.quick > 0 || pushed || self.unacked_bytes >= n * full {
            self.ack_now = true;
        } else if !self.timers.is_set(Timer::DelayedAck) {
            let timeout = if self.config.delayed_ack_ato {
                self.ato_timeout()
            } else {
                self.config.delayed_ack_timeout
            };
            self.timers.set(Timer::DelayedAck, now + timeout);
        }
    }

    /// Linux's `tcp_event_data_recv`: the delayed-ACK timeout follows the
    /// gaps between in-order segments.
    fn update_ato(&mut self, now: Time) {
        let half = Dur(ATO_MIN.0 / 2);
        match self.ato_last.replace(now) {
            _ if self.ato == Dur::ZERO => self.ato = ATO_MIN,
            Some(last) => {
                let m = now.saturating_since(last);
                if m <= half {
                    self.ato = Dur(self.ato.0 / 2) + half;
                } else if m < self.ato {
                    self.ato = (Dur(self.ato.0 / 2) + m).min(self.rtt.rto());
                }
            }
            None => {}
        }
    }

    /// Linux's `tcp_send_delayed_ack`: the timeout, at most the SRTT (at
    /// least `ATO_MIN`) above `ATO_MIN`, and at most `delayed_ack_timeout`.
    fn ato_timeout(&self) -> Dur {
        let mut ato = self.ato.max(ATO_MIN);
        if ato > ATO_MIN {
            let mut most = Dur::from_millis(500);
            if let Some(srtt) = self.rtt.srtt() {
                most = most.min(srtt.max(ATO_MIN));
            }
            ato = ato.min(most);
        }
        ato.min(self.config.delayed_ack_timeout)
    }

    /// Linux's `tcp_rcv_rtt_measure` and `tcp_grow_window` for an in-order
    /// segment of `len` bytes, then `tcp_rcv_space_adjust` as the
    /// application reads it at once: the buffer grows once a receiver round
    /// trip from what was read in it (twice that, more while it grows, plus
    /// the span held out of order), and the window threshold follows.
    fn grow_window_in_order(&mut self, now: Time, len: u32) {
        let mss = u64::from(self.rcv_mss_seen.max(1));
        let w = &mut self.rwin;
        if w.ssthresh == 0 {
            // `tcp_select_initial_window` and `tcp_init_buffer_space`.
            let space = LINUX_INIT_RCV_SPACE.min(self.config.rcv_buffer);
            w.clamp = space;
            w.ssthresh = (space / mss * mss).max(mss);
            w.space = w.ssthresh.min(10 * mss);
            w.space_seq = self.rcv_nxt - len;
            w.space_time = now;
        }
        // The receiver's round trip: the least time to receive one window.
        let ended = self.rcv_nxt >= w.rtt_seq;
        if let (Some(t), true) = (w.rtt_time, ended) {
            let sample = now.saturating_since(t).max(Dur::from_micros(1));
            w.rtt = Some(w.rtt.map_or(sample, |r| r.min(sample)));
        }
        if w.rtt_time.is_none() || ended {
            w.rtt_seq = self.rcv_nxt + w.ssthresh as u32;
            w.rtt_time = Some(now);
        }
        self.grow_window(len);
        let w = &mut self.rwin;
        let Some(rtt) = w.rtt else { return };
        if now.saturating_since(w.space_time) < rtt {
            return;
        }
        let copied = (self.rcv_nxt - w.space_seq) as u64;
        if copied > w.space {
            // `tcp_rcvbuf_grow`.
            let mut win = 2 * copied;
            win += 2 * (win * (copied - w.space) / w.space.max(1));
            if let Some(&(_, right)) = self.ooo.last() {
                win += (right - self.rcv_nxt) as u64;
            }
            w.clamp = w.clamp.max(win.min(self.config.rcv_buffer));
            w.space = copied;
        }
        w.space_seq = self.rcv_nxt;
        w.space_time = now;
    }

    /// Linux's `tcp_grow_window` for a segment of `len` bytes (in order, or
    /// held out of order with SACK): while the threshold is below the
    /// buffer's window less what is held out of order, it grows by two
    /// segments, and the growth owes a quick ACK.
    fn grow_window(&mut self, len: u32) {
        let w = &mut self.rwin;
        if len < 128 || w.ssthresh == 0 {
            return;
        }
        let mss = u64::from(self.rcv_mss_seen.max(1));
        let held: u64 = self.ooo.iter().map(|&(l, r)| (r - l) as u64).sum();
        let room = w.clamp.saturating_sub(held).saturating_sub(w.ssthresh);
        if room > 0 {
            w.ssthresh += room.min(2 * mss.max(u64::from(len)));
            self.quick |= 1;
        }
    }

    /// Linux's `tcp_incr_quickack`: up to `Config::quickacks` quick ACKs,
    /// no more than the window over two MSS and no fewer than two.
    fn enter_quickack(&mut self) {
        let most = self.config.quickacks;
        if most == 0 {
            return;
        }
        if self.config.delayed_ack_ato && self.ato > Dur::ZERO {
            self.ato = ATO_MIN;
        }
        let mss = u64::from(self.rcv_mss_seen.max(self.config.mss).max(1));
        let window = self.rcv_adv.since(self.rcv_nxt).max(0) as u64;
        let n = (window / (2 * mss)).max(2).min(u64::from(most)) as u32;
        self.quick = self.quick.max(n);
    }

    fn insert_ooo(&mut self, start: SeqNum, end: SeqNum) {
        let (mut l, mut r) = (start, end);
        self.ooo.retain(|&(a, b)| {
            if b < l || a > r {
                true
            } else {
                l = l.min(a);
                r = r.max(b);
                false
            }
        });
        let pos = self
            .ooo
            .iter()
            .position(|&(a, _)| a > l)
            .unwrap_or(self.ooo.len());
        self.ooo.insert(pos, (l, r));
    }

    /// Pulls queued out-of-order ranges that now touch RCV.NXT.
    fn merge_ooo(&mut self) {
        while let Some(&(l, r)) = self.ooo.first() {
            if l > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(r);
            self.ooo.remove(0);
        }
    }

    /// RFC 2018 §4: the block holding the triggering segment first, then the
    /// most recently reported ones.
    fn update_sack_order(&mut self, trigger: Option<SeqNum>) {
        if self.ooo.is_empty() {
            // Nothing held above RCV.NXT: no block to report (the common
            // case, every in-order segment).
            self.sack_reported.clear();
            return;
        }
        let containing = |ooo: &[(SeqNum, SeqNum)], s: SeqNum| {
            ooo.iter().copied().find(|&(l, r)| l <= s && s < r)
        };
        // Reuses last round's buffer: no allocation per segment.
        let mut order = std::mem::take(&mut self.sack_scratch);
        order.clear();
        let mut push = |b: Option<(SeqNum, SeqNum)>| {
            if let Some(b) = b {
                if !order.contains(&b) {
                    order.push(b);
                }
            }
        };
        if let Some(s) = trigger {
            push(containing(&self.ooo, s));
        }
        for &(l, _) in &self.sack_reported {
            push(containing(&self.ooo, l));
        }
        for &b in self.ooo.iter().rev() {
            push(Some(b));
        }
        self.sack_scratch = std::mem::replace(&mut self.sack_reported, order);
    }

    /// A duplicate segment `[start, end)` arrived: with DSACK, the next ACK
    /// reports it first (RFC 2883 §4), and goes at once.
    fn report_duplicate(&mut self, start: SeqNum, end: SeqNum) {
        if self.config.dsack && self.sack_ok && start < end {
            self.dsack_pending = Some((start, end));
            self.ack_now = true;
        }
    }

    /// SACK blocks for the next ACK: up to 4, 3 with timestamps, a pending
    /// DSACK block first (RFC 2883 §4: then the block holding it, if any).
    pub(crate) fn sack_blocks(&self) -> SackBlocks {
        let mut blocks = SackBlocks::new();
        if !self.sack_ok {
            return blocks;
        }
        let max = if self.ts_ok { 3 } else { SackBlocks::MAX };
        if let Some((left, right)) = self.dsack_pending {
            blocks.push(SackBlock { left, right });
            let holder = self.ooo.iter().find(|&&(l, r)| l <= left && right <= r);
            if let Some(&(l, r)) = holder {
                blocks.push(SackBlock { left: l, right: r });
            }
        }
        for &(left, right) in &self.sack_reported {
            if blocks.len() >= max {
                break;
            }
            let b = SackBlock { left, right };
            if !blocks.as_slice().contains(&b) {
                blocks.push(b);
            }
        }
        blocks
    }

    /// Consumes the peer's FIN once all data before it has arrived.
    fn consume_fin(&mut self, now: Time) {
        let Some(fin) = self.rcv_fin else { return };
        if fin != self.rcv_nxt {
            return;
        }
        self.rcv_fin = None;
        self.rcv_nxt = fin + 1;
        self.ack_now = true;
        self.events.push_back(Event::PeerClosed);
        match self.state {
            State::Established | State::SynReceived => self.set_state(State::CloseWait),
            State::FinWait1 => self.set_state(State::Closing),
            State::FinWait2 => self.enter_time_wait(now),
            _ => {}
        }
    }

    /// The window field for a non-SYN segment: receiver SWS avoidance
    /// (RFC 9293 §3.8.6.2.2), never shrinking the right edge (SHLD-14),
    /// scaled by our shift (RFC 7323). Records the new right edge.
    pub(crate) fn advertise_window(&mut self) -> u16 {
        let shift = self.rcv_wscale;
        let (edge, keep) = self.candidate_edge();
        let wnd = edge.since(self.rcv_nxt).max(0) as u64;
        let field = if keep {
            wnd.div_ceil(1 << shift)
        } else {
            wnd >> shift
        }
        .min(65_535);
        let adv = self.rcv_nxt + (field << shift) as u32;
        self.rcv_adv = self.rcv_adv.max(adv);
        field as u16
    }

    /// The right edge to advertise and whether it is the old one kept.
    fn candidate_edge(&self) -> (SeqNum, bool) {
        let max_wnd = 65_535u64 << self.rcv_wscale;
        let avail = self
            .config
            .rcv_buffer
            .saturating_sub(self.unread)
            .min(max_wnd);
        let candidate = self.rcv_nxt + avail as u32;
        let current = self.rcv_adv.max(self.rcv_nxt);
        let sws = (self.config.rcv_buffer / 2).min(u64::from(self.smss));
        if candidate > current && (candidate - current) as u64 >= sws {
            (candidate, false)
        } else {
            (current, true)
        }
    }

    /// After a read: ACK at once if the window opens by 2 MSS or half the buffer.
    pub(crate) fn maybe_window_update(&mut self) {
        if !matches!(
            self.state,
            State::Established | State::FinWait1 | State::FinWait2
        ) {
            return;
        }
        let (edge, keep) = self.candidate_edge();
        if keep {
            return;
        }
        let opens = edge.since(self.rcv_adv.max(self.rcv_nxt)).max(0) as u64;
        let threshold = (2 * u64::from(self.smss)).min(self.config.rcv_buffer / 2);
        if opens >= threshold {
            self.ack_now = true;
        }
    }

    /// Enters TIME-WAIT for 2*MSL with MSL = 1 s.
    pub(crate) fn enter_time_wait(&mut self, now: Time) {
        self.set_state(State::TimeWait);
        self.timers.stop(Timer::Rto);
        self.timers.stop(Timer::Persist);
        self.timers.set(Timer::TimeWait, now + TIME_WAIT);
    }
}
