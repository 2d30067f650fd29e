//! The 802.11 DCF of one station (802.11-2016 §10.3): carrier sense with
//! NAV, DIFS/EIFS, slotted binary exponential backoff with post-backoff,
//! ACK after SIFS, ACK/CTS timeouts, short/long retry limits, optional
//! RTS/CTS, duplicate detection, and per-frame rate control.

use super::arf::{Arf, RateControl};
use super::events::{DcfStats, MacEvent, UndeliveredReason};
use super::frame::{Addr, Frame, Transmission, TxKind};
use super::{control_response_rate, effective_preamble, txtime, Preamble, Rate, Standard};
use super::{ACK_BYTES, CTS_BYTES, MAX_PSDU_BYTES, RTS_BYTES, SEQ_MODULUS};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use rand::RngExt;
use std::collections::{BTreeMap, VecDeque};

mod receiver;

/// Station configuration. [`DcfConfig::new`] gives the standard's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DcfConfig {
    /// PHY and with it the DCF timing.
    pub standard: Standard,
    /// PLCP format of this station's 11b frames (ignored by 11a).
    pub preamble: Preamble,
    /// Rate of data frames.
    pub rate_control: RateControl,
    /// `dot11RTSThreshold`: data frames whose PSDU is longer than this are
    /// protected by RTS/CTS and count against the long retry limit.
    /// `u32::MAX` (the default) turns RTS/CTS off. (ns-2 defaults to 0,
    /// i.e. RTS/CTS before every frame.)
    pub rts_threshold: u32,
    /// `dot11ShortRetryLimit` (7): attempts of frames ≤ the RTS threshold
    /// and of RTS frames.
    pub short_retry_limit: u8,
    /// `dot11LongRetryLimit` (4): attempts of frames > the RTS threshold.
    pub long_retry_limit: u8,
    /// `aCWmin` (15 for 11a, 31 for 11b).
    pub cw_min: u16,
    /// `aCWmax` (1023).
    pub cw_max: u16,
    /// Frames that may wait behind the one in progress; more are refused
    /// with [`UndeliveredReason::QueueFull`]. Not a standard attribute.
    pub queue_limit: usize,
}

impl DcfConfig {
    /// The standard's defaults (Tables 16-4 / 17-21, retry limits 7/4,
    /// RTS/CTS off) at a fixed `rate`, long preamble, 100 queued frames.
    pub fn new(rate: Rate) -> DcfConfig {
        let standard = rate.standard();
        DcfConfig {
            standard,
            preamble: Preamble::Long,
            rate_control: RateControl::Fixed(rate),
            rts_threshold: u32::MAX,
            short_retry_limit: 7,
            long_retry_limit: 4,
            cw_min: standard.cw_min(),
            cw_max: standard.cw_max(),
            queue_limit: 100,
        }
    }
}

/// Where the station is in sending the frame at the head of its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// No frame in hand (a post-backoff may still be counting).
    Idle,
    /// Deferring: medium idle for DIFS/EIFS, then the backoff slots.
    Contend,
    /// Our RTS or data frame is on the air until `until`.
    Tx { kind: TxKind, until: Time },
    /// Waiting for the ACK (after data) or CTS (after RTS).
    Await {
        response: TxKind,
        sent_end: Time,
        until: Time,
    },
    /// The CTS arrived: the data frame goes SIFS after it, at `at`.
    SifsData { at: Time },
}

/// The frame in progress.
#[derive(Clone, Copy, Debug)]
struct Current {
    frame: Frame,
    seq: u16,
    enqueued_at: Time,
    hol_at: Time,
    /// Station short retry count for this frame (SRC).
    src: u8,
    /// Station long retry count for this frame (LRC).
    lrc: u8,
    /// Data transmissions so far.
    data_attempts: u8,
    /// RTS transmissions so far.
    rts_attempts: u8,
}

/// The 802.11 DCF of one station, sans-IO.
///
/// Inputs: [`enqueue`](Dcf::enqueue) (an MSDU to send),
/// [`handle_timeout`](Dcf::handle_timeout),
/// [`handle_channel`](Dcf::handle_channel) (physical carrier sense: another
/// station's transmission or any other energy began or ended; never the
/// station's own transmissions), [`handle_frame`](Dcf::handle_frame) (a
/// frame ended intact at this station: addressed to it, answered; to
/// others, read for its NAV), [`handle_frame_error`](Dcf::handle_frame_error)
/// (a reception ended in error: the next deferral is an EIFS). Outputs, to
/// drain after every input: [`poll_transmit`](Dcf::poll_transmit) (frames
/// to put on the air, possibly starting later, e.g. an ACK SIFS after the
/// data), [`poll_event`](Dcf::poll_event), then
/// [`poll_timeout`](Dcf::poll_timeout).
///
/// Time only moves forward; a `now` earlier than a previous one is treated
/// as that previous time. Every input first runs the deadlines at or
/// before `now`, each at its own time, so a late `handle_timeout` loses no
/// accuracy and an early one is a no-op. Exception: a frame or error that
/// ends at `now` is handled before deadlines falling exactly at `now` (an
/// ACK ending on its timeout counts). A transmission starting at the slot
/// boundary where this station's backoff ends is not heard in time: the
/// station transmits too (a collision), as in the standard. The engine
/// reports every frame other stations put on the air through
/// `handle_channel` as well, responses included: an ACK or CTS counts only
/// if its start was sensed inside the ACK/CTS timeout (an 11b ACK outlasts
/// the 222 µs timeout).
///
/// Backoff (§10.3.4.3): after the medium has been idle for DIFS (EIFS
/// after an errored reception; counted from the later of the end of the
/// busy medium, the NAV, the station's own transmission and an expired
/// ACK/CTS timeout), the counter drops by one per idle `aSlotTime` and
/// freezes while the medium is busy; the frame goes out at the boundary
/// where it reaches zero. The counter is drawn uniformly in [0, CW] after
/// every success, failure and drop (post-backoff: it keeps counting with an
/// empty queue); a frame arriving at an idle station whose medium is idle
/// goes out as soon as the medium has been idle for DIFS (an ACK the
/// station has scheduled but not started does not make it busy).
///
/// Randomness comes only from the `Rng` given at construction.
#[derive(Debug)]
pub struct Dcf {
    config: DcfConfig,
    addr: Addr,
    rng: Rng,
    now: Time,
    phase: Phase,
    current: Option<Current>,
    queue: VecDeque<(Frame, Time)>,
    next_seq: u16,
    cw: u16,
    /// Backoff slots left, as of the slot boundary `backoff_ref`; `None`
    /// when no backoff is in progress (never drawn, or a post-backoff that
    /// has run out).
    backoff: Option<u32>,
    backoff_ref: Time,
    /// Physical carrier sense (as reported by the engine).
    phys_busy: bool,
    phys_idle_since: Time,
    /// Virtual carrier sense: the NAV expires at this time.
    nav_until: Time,
    /// The station's own last (or scheduled) transmission ends then.
    own_tx_until: Time,
    /// ... and starts then (a response is scheduled SIFS ahead).
    own_tx_from: Time,
    /// The deferral may not start before this (end of a timeout or of a
    /// reception).
    access_floor: Time,
    /// The last reception ended in error: defer EIFS instead of DIFS.
    eifs: bool,
    /// Receiver duplicate cache: last sequence number per transmitter.
    rx_seq: BTreeMap<Addr, u16>,
    arf: BTreeMap<Addr, Arf>,
    transmits: VecDeque<Transmission>,
    events: VecDeque<MacEvent>,
    stats: DcfStats,
}

impl Dcf {
    /// An idle station at `addr` drawing its backoffs from `rng` (give it
    /// its own named stream, e.g. `rng::stream(seed, "sta3.dcf")`). The
    /// medium counts as idle since time zero.
    pub fn new(config: DcfConfig, addr: Addr, rng: Rng) -> Dcf {
        Dcf {
            config,
            addr,
            rng,
            now: Time::ZERO,
            phase: Phase::Idle,
            current: None,
            queue: VecDeque::new(),
            next_seq: 0,
            cw: config.cw_min,
            backoff: None,
            backoff_ref: Time::ZERO,
            phys_busy: false,
            phys_idle_since: Time::ZERO,
            nav_until: Time::ZERO,
            own_tx_until: Time::ZERO,
            own_tx_from: Time::ZERO,
            access_floor: Time::ZERO,
            eifs: false,
            rx_seq: BTreeMap::new(),
            arf: BTreeMap::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            stats: DcfStats::default(),
        }
    }

    // ---- inputs ------------------------------------------------------

    /// Hands an MSDU to the MAC. A PSDU over 4095 bytes or a frame arriving
    /// at a full queue is refused at once with an `Undelivered` event.
    pub fn enqueue(&mut self, now: Time, frame: Frame) {
        self.enqueue_at(now, frame, false, None);
    }

    /// As [`Dcf::enqueue`], for a frame that has waited since `queued_at`
    /// in a queue outside the MAC (a scheduler's): its reported queueing
    /// delay counts from then.
    pub fn enqueue_queued_at(&mut self, now: Time, frame: Frame, queued_at: Time) {
        self.enqueue_at(now, frame, false, Some(queued_at));
    }

    /// As [`Dcf::enqueue`], but at the head of the queue (next after the
    /// frame in progress): a frame with priority over those waiting.
    pub fn enqueue_first(&mut self, now: Time, frame: Frame) {
        self.enqueue_at(now, frame, true, None);
    }

    fn enqueue_at(&mut self, now: Time, frame: Frame, first: bool, queued_at: Option<Time>) {
        let now = self.advance(now);
        if frame.psdu_bytes > MAX_PSDU_BYTES {
            self.stats.too_long_drops += 1;
            self.undelivered(frame.id, UndeliveredReason::FrameTooLong);
            return;
        }
        if self.current.is_some() && self.queue.len() >= self.config.queue_limit {
            self.stats.queue_full_drops += 1;
            self.undelivered(frame.id, UndeliveredReason::QueueFull);
            return;
        }
        self.stats.enqueued += 1;
        let since = queued_at.map_or(now, |t| t.min(now));
        if first {
            self.queue.push_front((frame, since));
        } else {
            self.queue.push_back((frame, since));
        }
        self.start_next(now);
        self.advance(now);
    }

    /// Clears the queue, as a driver does when its radio retunes (MadWifi's
    /// `ath_chan_set` drains the transmit queues: "clear pending tx
    /// frames"): every waiting frame, and the frame in progress unless it
    /// is on the air or awaiting its response, is given up with
    /// `Undelivered { reason: Flushed }`.
    pub fn flush(&mut self, now: Time) {
        let now = self.advance(now);
        if self.current.is_some() && self.phase == Phase::Contend {
            let cur = self.current.take().expect("checked");
            self.finish(now);
            self.undelivered(cur.frame.id, UndeliveredReason::Flushed);
        }
        while let Some((frame, _)) = self.queue.pop_front() {
            self.undelivered(frame.id, UndeliveredReason::Flushed);
        }
        self.advance(now);
    }

    /// Takes back the frames for `dst` that have not reached the air: the
    /// waiting ones, and the frame in progress if it is still contending
    /// (its retry counts are forgotten). No event is reported for them;
    /// the caller owns them again. In queue order.
    pub fn withdraw(&mut self, now: Time, dst: Addr) -> Vec<Frame> {
        let now = self.advance(now);
        let mut taken = Vec::new();
        if self.phase == Phase::Contend && self.current.is_some_and(|c| c.frame.dst == dst) {
            let cur = self.current.take().expect("checked");
            // The backoff drawn for it goes on as a post-backoff.
            self.phase = Phase::Idle;
            taken.push(cur.frame);
        }
        let mut kept = VecDeque::with_capacity(self.queue.len());
        for (frame, at) in self.queue.drain(..) {
            if frame.dst == dst {
                taken.push(frame);
            } else {
                kept.push_back((frame, at));
            }
        }
        self.queue = kept;
        self.start_next(now);
        self.advance(now);
        taken
    }

    /// Runs every deadline at or before `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        self.advance(now);
    }

    /// Physical carrier sense became busy (`true`) or idle (`false`) at `now`.
    pub fn handle_channel(&mut self, now: Time, busy: bool) {
        let now = self.advance(now);
        if busy == self.phys_busy {
            return;
        }
        self.settle(now);
        self.phys_busy = busy;
        if !busy {
            self.phys_idle_since = now;
            return;
        }
        // §10.3.2.9: a reception starting inside the ACK (CTS) timeout may
        // be the response; wait for it to end (its expected length, plus a
        // slot of tolerance).
        if let Phase::Await {
            response,
            sent_end,
            until,
        } = self.phase
        {
            if now > sent_end {
                let rate = self.data_rate_of_current();
                let bytes = if response == TxKind::Ack {
                    ACK_BYTES
                } else {
                    CTS_BYTES
                };
                let end = now + self.response_txtime(rate, bytes) + self.config.standard.slot();
                self.phase = Phase::Await {
                    response,
                    sent_end,
                    until: until.max(end),
                };
            }
        }
    }

    /// The frame `tx` ended intact at this station at `now`. Addressed to
    /// this station: a data frame is ACKed SIFS later (and reported
    /// `Received` or `Duplicate`); an RTS is answered by a CTS SIFS later if
    /// the NAV is clear; an ACK or CTS completes the pending exchange.
    /// Addressed to another station: its Duration field updates the NAV.
    pub fn handle_frame(&mut self, now: Time, tx: &Transmission) {
        let now = self.advance_before(now);
        self.settle(now);
        if tx.from == self.addr {
            return;
        }
        if self.own_tx_until > tx.start {
            self.stats.rx_while_transmitting += 1;
            self.advance(now);
            return;
        }
        self.eifs = false;
        self.access_floor = self.access_floor.max(now);
        if tx.to != self.addr {
            // §10.3.2.4: virtual carrier sense from the Duration field.
            self.nav_until = self.nav_until.max(now + tx.duration);
        } else {
            match tx.kind {
                TxKind::Data => self.receive_data(now, tx),
                TxKind::Rts => self.receive_rts(now, tx),
                TxKind::Cts => self.receive_cts(now),
                TxKind::Ack => self.receive_ack(now),
            }
        }
        self.advance(now);
    }

    /// A reception ended in error at `now` (collision, bit errors): the
    /// next deferral is EIFS instead of DIFS (§10.3.2.3.7).
    pub fn handle_frame_error(&mut self, now: Time) {
        let now = self.advance_before(now);
        self.settle(now);
        self.stats.rx_errors += 1;
        self.eifs = true;
        self.access_floor = self.access_floor.max(now);
        self.advance(now);
    }

    // ---- outputs -----------------------------------------------------

    /// The next frame to put on the air, once. Its `start` may lie in the
    /// future (a response SIFS after a reception).
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Transmission> {
        self.transmits.pop_front()
    }

    /// The next report.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<MacEvent> {
        self.events.pop_front()
    }

    /// When [`handle_timeout`](Dcf::handle_timeout) must next be called.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Time> {
        self.deadline()
    }

    // ---- inspection --------------------------------------------------

    /// This station's address.
    pub fn addr(&self) -> Addr {
        self.addr
    }

    /// The current contention window.
    pub fn cw(&self) -> u16 {
        self.cw
    }

    /// Backoff slots left, if a backoff is in progress.
    pub fn backoff(&self) -> Option<u32> {
        self.backoff
    }

    /// (SRC, LRC) of the frame in progress.
    pub fn retry_counts(&self) -> Option<(u8, u8)> {
        self.current.map(|c| (c.src, c.lrc))
    }

    /// When the NAV expires.
    pub fn nav_until(&self) -> Time {
        self.nav_until
    }

    /// Frames waiting behind the one in progress.
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no frame is in progress.
    pub fn is_idle(&self) -> bool {
        self.phase == Phase::Idle
    }

    /// The receiver of the frame in service, if any.
    pub fn current_dst(&self) -> Option<Addr> {
        self.current.as_ref().map(|c| c.frame.dst)
    }

    /// Uses `rate_control` from now on (a channel switch); ARF starts over.
    pub fn set_rate_control(&mut self, rate_control: RateControl) {
        self.config.rate_control = rate_control;
        self.arf.clear();
    }

    /// The rate the next data frame to `dst` would use.
    pub fn data_rate(&self, dst: Addr) -> Rate {
        match self.config.rate_control {
            RateControl::Fixed(rate) => rate,
            RateControl::Arf(cfg) => self.arf.get(&dst).map_or(cfg.initial, Arf::rate),
        }
    }

    /// The counters.
    pub fn stats(&self) -> &DcfStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &DcfConfig {
        &self.config
    }

    // ---- clock and carrier sense ----------------------------------------

    fn deadline(&self) -> Option<Time> {
        match self.phase {
            Phase::Idle => None,
            Phase::Contend => self.access_time(),
            Phase::Tx { until, .. } | Phase::Await { until, .. } => Some(until),
            Phase::SifsData { at } => Some(at),
        }
    }

    /// Moves the clock to `now` (never backwards), running due deadlines.
    fn advance(&mut self, now: Time) -> Time {
        self.now = self.now.max(now);
        while let Some(at) = self.deadline() {
            if at > self.now {
                break;
            }
            self.expire(at);
        }
        self.now
    }

    /// Like [`advance`](Self::advance) but leaves deadlines at `now` itself.
    fn advance_before(&mut self, now: Time) -> Time {
        while let Some(at) = self.deadline() {
            if at >= now.max(self.now) {
                break;
            }
            self.now = self.now.max(at);
            self.expire(at);
        }
        self.now = self.now.max(now);
        self.now
    }

    /// Whether the medium is busy at `now` for §10.3.4.2's "the medium is
    /// idle when a frame is queued": physical or virtual carrier sense, or
    /// the station's own transmission on the air. A response it has only
    /// scheduled (the ACK due SIFS after the frame it has just received)
    /// does not count: a frame queued at the end of that reception (a TCP
    /// ACK the received segment triggered) gets immediate access, DIFS
    /// after the response, as ns-3 grants it
    /// (`ChannelAccessManager::NeedBackoffUponAccess`).
    fn medium_busy(&self, now: Time) -> bool {
        let own = self.own_tx_from <= now && now < self.own_tx_until;
        self.phys_busy || now < self.nav_until || own
    }

    /// Records the station's own transmission over [`from`, `until`).
    fn note_own_tx(&mut self, from: Time, until: Time) {
        if until >= self.own_tx_until {
            self.own_tx_from = from;
            self.own_tx_until = until;
        }
    }

    /// The inter-frame space to defer: EIFS after an errored reception.
    fn ifs(&self) -> Dur {
        if self.eifs {
            self.config.standard.eifs()
        } else {
            self.config.standard.difs()
        }
    }

    /// When backoff slots start to count, if the medium is idle now.
    fn count_start(&self) -> Option<Time> {
        if self.phys_busy {
            return None;
        }
        let idle = self
            .phys_idle_since
            .max(self.nav_until)
            .max(self.own_tx_until)
            .max(self.access_floor);
        Some(idle + self.ifs())
    }

    /// When the pending backoff ends, if the medium stays idle.
    fn access_time(&self) -> Option<Time> {
        let start = self.count_start()?.max(self.backoff_ref);
        let slots = u64::from(self.backoff.unwrap_or(0));
        Some(start + self.config.standard.slot().saturating_mul(slots))
    }

    /// Counts the idle slots completed before `now` off the backoff. Must
    /// run before any change to the carrier-sense state.
    fn settle(&mut self, now: Time) {
        let Some(start) = self.count_start() else {
            return;
        };
        let reference = start.max(self.backoff_ref);
        let Some(left) = self.backoff else {
            return;
        };
        if now < reference {
            return;
        }
        let slot = self.config.standard.slot().as_nanos();
        let done = ((now - reference).as_nanos() / slot).min(u64::from(left));
        let left = left - done as u32;
        self.backoff = Some(left);
        self.backoff_ref = reference + Dur::from_nanos(done * slot);
        if left == 0 && self.phase == Phase::Idle {
            // Post-backoff over: a frame arriving later may go at once.
            self.backoff = None;
            self.backoff_ref = self.backoff_ref.max(now);
        }
    }

    /// §10.3.3: a uniform integer in [0, CW].
    fn draw_backoff(&mut self, now: Time) {
        let slots: u32 = self.rng.random_range(0..=u32::from(self.cw));
        self.stats.backoffs += 1;
        self.stats.backoff_slots += u64::from(slots);
        self.backoff = Some(slots);
        self.backoff_ref = now;
    }

    // ---- sender ------------------------------------------------------

    /// The deadline `at` has come: one transition.
    fn expire(&mut self, at: Time) {
        match self.phase {
            Phase::Idle => {}
            Phase::Contend => self.access(at),
            Phase::Tx { kind, until } => {
                let response = if kind == TxKind::Rts {
                    TxKind::Cts
                } else {
                    TxKind::Ack
                };
                // §10.3.2.9 / §10.3.2.7: ACKTimeout (CTSTimeout).
                let timeout = self.config.standard.ack_timeout(self.config.preamble);
                self.phase = Phase::Await {
                    response,
                    sent_end: until,
                    until: until + timeout,
                };
            }
            Phase::Await { response, .. } => self.response_timeout(at, response),
            Phase::SifsData { at } => self.send_data(at),
        }
    }

    /// The backoff reached zero on an idle medium at `at`: transmit.
    fn access(&mut self, at: Time) {
        let Some(cur) = self.current else {
            self.phase = Phase::Idle;
            return;
        };
        if cur.frame.psdu_bytes > self.config.rts_threshold {
            self.send_rts(at);
        } else {
            self.send_data(at);
        }
    }

    fn send_rts(&mut self, at: Time) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        cur.rts_attempts = cur.rts_attempts.saturating_add(1);
        let (frame, seq, attempt) = (cur.frame, cur.seq, cur.rts_attempts);
        let data_rate = self.data_rate(frame.dst);
        // RTS at a basic rate: the control-response rate of the data rate.
        let rate = control_response_rate(data_rate);
        let sifs = self.config.standard.sifs();
        // §9.3.1.2: Duration = 3·SIFS + CTS + DATA + ACK.
        let duration = sifs.saturating_mul(3)
            + self.response_txtime(rate, CTS_BYTES)
            + self.txtime(data_rate, frame.psdu_bytes)
            + self.response_txtime(data_rate, ACK_BYTES);
        self.stats.rts_tx += 1;
        self.put_on_air(
            TxKind::Rts,
            at,
            frame,
            seq,
            false,
            RTS_BYTES,
            rate,
            duration,
            attempt,
        );
    }

    fn send_data(&mut self, at: Time) {
        let Some(cur) = self.current.as_mut() else {
            self.phase = Phase::Idle;
            return;
        };
        cur.data_attempts = cur.data_attempts.saturating_add(1);
        let (frame, seq, attempt) = (cur.frame, cur.seq, cur.data_attempts);
        let rate = self.data_rate(frame.dst);
        // §9.3.2.1 (no fragmentation): Duration = SIFS + ACK.
        let duration = self.config.standard.sifs() + self.response_txtime(rate, ACK_BYTES);
        self.stats.data_tx += 1;
        if attempt > 1 {
            self.stats.retransmissions += 1;
        }
        let retry = attempt > 1;
        self.put_on_air(
            TxKind::Data,
            at,
            frame,
            seq,
            retry,
            frame.psdu_bytes,
            rate,
            duration,
            attempt,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn put_on_air(
        &mut self,
        kind: TxKind,
        at: Time,
        frame: Frame,
        seq: u16,
        retry: bool,
        psdu_bytes: u32,
        rate: Rate,
        duration: Dur,
        attempt: u8,
    ) {
        let airtime = self.txtime(rate, psdu_bytes);
        self.transmits.push_back(Transmission {
            kind,
            from: self.addr,
            to: frame.dst,
            frame: frame.id,
            seq,
            retry,
            psdu_bytes,
            rate,
            preamble: effective_preamble(rate, self.config.preamble),
            start: at,
            airtime,
            duration,
            attempt,
        });
        self.note_own_tx(at, at + airtime);
        self.eifs = false;
        self.backoff = None;
        self.backoff_ref = at;
        self.phase = Phase::Tx {
            kind,
            until: at + airtime,
        };
    }

    /// No ACK (CTS) within the timeout: count the failure against the
    /// short or long retry counter (§10.3.4.4), double CW, retry or drop.
    fn response_timeout(&mut self, at: Time, response: TxKind) {
        let Some(mut cur) = self.current else {
            self.phase = Phase::Idle;
            return;
        };
        let long = cur.frame.psdu_bytes > self.config.rts_threshold;
        let limit_hit = if response == TxKind::Cts {
            self.stats.cts_timeouts += 1;
            cur.src = cur.src.saturating_add(1);
            cur.src >= self.config.short_retry_limit
        } else {
            self.stats.ack_timeouts += 1;
            self.rate_feedback(cur.frame.dst, false);
            if long {
                cur.lrc = cur.lrc.saturating_add(1);
                cur.lrc >= self.config.long_retry_limit
            } else {
                cur.src = cur.src.saturating_add(1);
                cur.src >= self.config.short_retry_limit
            }
        };
        self.current = Some(cur);
        self.access_floor = self.access_floor.max(at);
        if limit_hit {
            if long && response == TxKind::Ack {
                self.stats.long_retry_drops += 1;
            } else {
                self.stats.short_retry_drops += 1;
            }
            self.finish(at);
            self.undelivered(cur.frame.id, UndeliveredReason::RetryLimit);
            self.start_next(at);
        } else {
            // §10.3.3: CW = min(2·(CW + 1) − 1, aCWmax).
            self.cw = (2 * (self.cw + 1) - 1).min(self.config.cw_max);
            self.draw_backoff(at);
            self.phase = Phase::Contend;
        }
    }

    /// Ends the frame in progress (success or drop): CW back to CWmin, a
    /// fresh (post-)backoff, phase idle.
    fn finish(&mut self, at: Time) {
        self.current = None;
        self.cw = self.config.cw_min;
        self.draw_backoff(at);
        self.phase = Phase::Idle;
    }

    fn receive_ack(&mut self, now: Time) {
        let (
            Phase::Await {
                response: TxKind::Ack,
                ..
            },
            Some(cur),
        ) = (self.phase, self.current)
        else {
            self.stats.unexpected_responses += 1;
            return;
        };
        self.stats.delivered += 1;
        self.rate_feedback(cur.frame.dst, true);
        self.events.push_back(MacEvent::Delivered {
            frame: cur.frame.id,
            queue_delay: cur.hol_at - cur.enqueued_at,
            tx_delay: now - cur.hol_at,
            attempts: cur.data_attempts,
        });
        self.finish(now);
        self.start_next(now);
    }

    fn receive_cts(&mut self, now: Time) {
        let (
            Phase::Await {
                response: TxKind::Cts,
                ..
            },
            Some(cur),
        ) = (self.phase, self.current.as_mut())
        else {
            self.stats.unexpected_responses += 1;
            return;
        };
        // §10.3.4.4: the SRC is reset when the CTS arrives.
        cur.src = 0;
        self.phase = Phase::SifsData {
            at: now + self.config.standard.sifs(),
        };
    }

    /// Takes the next queued frame if no frame is in progress.
    fn start_next(&mut self, now: Time) {
        if self.phase != Phase::Idle || self.current.is_some() {
            return;
        }
        let Some((frame, enqueued_at)) = self.queue.pop_front() else {
            return;
        };
        let seq = self.next_seq;
        self.next_seq = (self.next_seq + 1) % SEQ_MODULUS;
        self.current = Some(Current {
            frame,
            seq,
            enqueued_at,
            hol_at: now,
            src: 0,
            lrc: 0,
            data_attempts: 0,
            rts_attempts: 0,
        });
        self.settle(now);
        if self.backoff.is_none() {
            if self.medium_busy(now) {
                // §10.3.4.2: the medium is busy when the frame arrives.
                self.draw_backoff(now);
            } else {
                self.backoff = Some(0);
                self.backoff_ref = self.backoff_ref.max(now);
            }
        }
        self.phase = Phase::Contend;
    }

    fn undelivered(&mut self, frame: u64, reason: UndeliveredReason) {
        self.events
            .push_back(MacEvent::Undelivered { frame, reason });
    }

    fn rate_feedback(&mut self, dst: Addr, success: bool) {
        if let RateControl::Arf(cfg) = self.config.rate_control {
            let arf = self.arf.entry(dst).or_insert_with(|| Arf::new(cfg));
            if success {
                arf.on_success();
            } else {
                arf.on_failure();
            }
        }
    }

    fn data_rate_of_current(&self) -> Rate {
        match self.current {
            Some(cur) => self.data_rate(cur.frame.dst),
            None => self.config.standard.lowest_rate(),
        }
    }

    fn txtime(&self, rate: Rate, psdu_bytes: u32) -> Dur {
        txtime(rate, psdu_bytes, self.config.preamble)
    }

    /// TXTIME of a `bytes`-long control response to a frame at `rate`.
    fn response_txtime(&self, rate: Rate, bytes: u32) -> Dur {
        txtime(control_response_rate(rate), bytes, self.config.preamble)
    }
}
