//! The 802.15.4 MAC of one station: a transmit queue, unslotted CSMA-CA
//! (802.15.4-2006 §7.5.1.4) and acknowledged retransmission (§7.5.6.4).

use super::{
    ack_wait_duration, cca_duration, ifs, ppdu_airtime, turnaround_time, unit_backoff_period,
    ACK_MPDU_BYTES, A_MAX_PHY_PACKET_SIZE,
};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use rand::RngExt;
use std::collections::VecDeque;

/// MAC attributes (802.15.4-2006 Table 86), defaults as in the standard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacConfig {
    /// `macMinBE`: the back-off exponent at the start of each CSMA-CA (3).
    pub min_be: u8,
    /// `macMaxBE`: the largest back-off exponent (5).
    pub max_be: u8,
    /// `macMaxCSMABackoffs`: busy CCAs tolerated before a channel-access
    /// failure (4, i.e. at most 5 CCAs per CSMA-CA).
    pub max_csma_backoffs: u8,
    /// `macMaxFrameRetries`: retransmissions after a missing ACK (3, i.e. at
    /// most 4 attempts).
    pub max_frame_retries: u8,
    /// Frames that may wait behind the one being sent; more are refused
    /// with [`UndeliveredReason::QueueFull`]. Not a standard attribute.
    pub queue_limit: usize,
}

impl Default for MacConfig {
    fn default() -> MacConfig {
        MacConfig {
            min_be: 3,
            max_be: 5,
            max_csma_backoffs: 4,
            max_frame_retries: 3,
            queue_limit: 100,
        }
    }
}

/// A data frame handed to the MAC: an opaque id and the MPDU length (MAC
/// header + payload + FCS) in bytes. Every frame requests an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Opaque id chosen by the caller; reported back in [`MacEvent`]s.
    pub id: u64,
    /// MPDU (= PSDU) length, at most `aMaxPHYPacketSize` (127 B).
    pub mpdu_len: u16,
}

/// What a [`Transmission`] carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxKind {
    /// A data frame handed to [`Mac::enqueue`]; the receiver answers with
    /// [`Mac::handle_data`].
    Data,
    /// The MAC ACK of the received data frame `frame.id` (5-byte MPDU); its
    /// addressee gets it through [`Mac::handle_ack`] at the end of its airtime.
    Ack,
}

/// A frame to put on the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    /// Data or ACK.
    pub kind: TxKind,
    /// The frame (for an ACK: the acknowledged frame's id, MPDU 5 B).
    pub frame: Frame,
    /// When its first symbol leaves the antenna.
    pub start: Time,
    /// PPDU airtime: the medium is busy from `start` to `start + airtime`.
    pub airtime: Dur,
    /// 1 for the first transmission, 2.. for retransmissions (1 for an ACK).
    pub attempt: u8,
}

pub use crate::signal::UndeliveredReason;

/// What the MAC reports about a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacEvent {
    /// The ACK of `frame` arrived after `attempts` transmissions.
    Delivered {
        /// The frame's id.
        frame: u64,
        /// Transmissions it took (1 = first try).
        attempts: u8,
    },
    /// The MAC dropped `frame`.
    Undelivered {
        /// The frame's id.
        frame: u64,
        /// Why.
        reason: UndeliveredReason,
    },
}

impl From<MacEvent> for crate::signal::Signal {
    /// The cross-layer form of a delivery report (C-Snoop's
    /// `DELIVERED` / `UNDELIVERED`).
    fn from(e: MacEvent) -> crate::signal::Signal {
        match e {
            MacEvent::Delivered { frame, .. } => crate::signal::Signal::Delivered { frame },
            MacEvent::Undelivered { frame, .. } => crate::signal::Signal::Undelivered { frame },
        }
    }
}

/// The CSMA-CA variables of the frame in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Csma {
    /// `NB`: busy CCAs so far in this CSMA-CA.
    pub nb: u8,
    /// `BE`: the current back-off exponent.
    pub be: u8,
    /// Transmissions of this frame so far.
    pub attempts: u8,
}

/// Counters for every outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacStats {
    /// Frames accepted into the queue.
    pub enqueued: u64,
    /// Frames acknowledged.
    pub delivered: u64,
    /// Frames dropped after the retry limit.
    pub retry_limit_drops: u64,
    /// Frames dropped after a channel-access failure.
    pub channel_access_failures: u64,
    /// Frames refused because the queue was full.
    pub queue_full_drops: u64,
    /// Frames refused because their MPDU exceeds 127 B.
    pub too_long_drops: u64,
    /// Frames put on the air (first tries and retransmissions).
    pub transmissions: u64,
    /// Of those, retransmissions.
    pub retransmissions: u64,
    /// `macAckWaitDuration` expiries.
    pub ack_timeouts: u64,
    /// ACKs that matched no frame awaiting one (late, duplicate, stray).
    pub unexpected_acks: u64,
    /// Back-off waits drawn.
    pub backoffs: u64,
    /// Unit back-off periods drawn in total (mean = this / `backoffs`).
    pub backoff_periods: u64,
    /// CCAs that found the channel idle.
    pub cca_idle: u64,
    /// CCAs that found the channel busy.
    pub cca_busy: u64,
    /// Data frames received and acknowledged.
    pub acks_sent: u64,
    /// Data frames reported received while this station was turning to
    /// TX or transmitting (a half-duplex radio cannot have heard them):
    /// ignored, no ACK.
    pub rx_while_transmitting: u64,
    /// Holds begun ([`Mac::set_hold`]).
    pub holds: u64,
    /// Frames whose CSMA-CA a hold interrupted (kept, resumed on release).
    pub parked: u64,
}

/// Where the station is in sending the current frame. Each phase ends at
/// its deadline; only `AckWait` can also end early (on the ACK).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing to send.
    Idle,
    /// Waiting the drawn number of unit back-off periods.
    Backoff { until: Time },
    /// Clear channel assessment over `[start, until)`; `busy` once the
    /// medium was seen busy in it.
    Cca {
        start: Time,
        until: Time,
        busy: bool,
    },
    /// RX→TX turnaround after an idle CCA.
    Turnaround { until: Time },
    /// The frame is on the air.
    OnAir { until: Time },
    /// Waiting `macAckWaitDuration` for the ACK.
    AckWait { until: Time },
    /// Inter-frame space after an acknowledged frame.
    Ifs { until: Time },
}

impl Phase {
    fn deadline(self) -> Option<Time> {
        match self {
            Phase::Idle => None,
            Phase::Backoff { until }
            | Phase::Cca { until, .. }
            | Phase::Turnaround { until }
            | Phase::OnAir { until }
            | Phase::AckWait { until }
            | Phase::Ifs { until } => Some(until),
        }
    }
}

/// The frame being sent and its CSMA-CA state.
#[derive(Clone, Copy, Debug)]
struct Current {
    frame: Frame,
    csma: Csma,
}

/// The 802.15.4 MAC of one station, sans-IO.
///
/// Inputs: [`enqueue`](Mac::enqueue), [`handle_timeout`](Mac::handle_timeout),
/// [`handle_channel`](Mac::handle_channel) (the medium as this station's CCA
/// sees it: another transmitter or a primary user; never the station's own
/// transmissions), [`handle_ack`](Mac::handle_ack) (the ACK of a frame it
/// sent), [`handle_data`](Mac::handle_data) (a data frame it received, to
/// be acknowledged). Outputs, to drain after
/// every input: [`poll_transmit`](Mac::poll_transmit),
/// [`poll_event`](Mac::poll_event), then [`poll_timeout`](Mac::poll_timeout).
///
/// Time only moves forward; a `now` earlier than a previous one is treated
/// as that previous time. Every input first runs the phases whose deadline
/// is at or before `now`, each at its own deadline, so a late
/// `handle_timeout` loses no accuracy and an early one is a no-op. A CCA
/// covers `[start, start + 8 symbols)` and reports busy if the medium was
/// busy at any instant of it: a change reported exactly at its end does not
/// affect it, and the level at its start is the last one reported at that
/// instant.
///
/// One frame is in progress at a time, in FIFO order:
/// back-off → CCA → turnaround → on air → ACK wait → IFS → next frame.
#[derive(Debug)]
pub struct Mac {
    config: MacConfig,
    rng: Rng,
    now: Time,
    phase: Phase,
    current: Option<Current>,
    queue: VecDeque<Frame>,
    channel_busy: bool,
    /// The radio is busy sending an ACK until then: CCAs overlapping it
    /// report busy.
    radio_busy_until: Time,
    transmits: VecDeque<Transmission>,
    events: VecDeque<MacEvent>,
    /// Held by the upper layer: no CSMA-CA starts or continues.
    held: bool,
    /// The frame whose CSMA-CA a hold interrupted, with its attempts.
    parked: Option<Current>,
    stats: MacStats,
}

impl Mac {
    /// An idle MAC drawing its back-offs from `rng` (give it its own named
    /// stream, e.g. `rng::stream(seed, "st.mac")`).
    pub fn new(config: MacConfig, rng: Rng) -> Mac {
        Mac {
            config,
            rng,
            now: Time::ZERO,
            phase: Phase::Idle,
            current: None,
            queue: VecDeque::new(),
            channel_busy: false,
            radio_busy_until: Time::ZERO,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            held: false,
            parked: None,
            stats: MacStats::default(),
        }
    }

    /// Holds (`true`) or releases the transmitter at `now`: a cognitive
    /// radio's PHY stopped while a primary user is on. While held no
    /// CSMA-CA begins or continues, so no CCA meets the primary user and no
    /// frame fails channel access: the queue is kept (and still takes
    /// frames up to its limit). A frame in back-off or CCA when the hold
    /// begins is parked with its attempt count and starts a fresh CSMA-CA
    /// on release; one already turning around, on the air or awaiting its
    /// ACK finishes that step, and a retry it needs waits for the release.
    /// ACKs of received frames are still sent (the receiver answers within
    /// `aTurnaroundTime`, no CCA).
    pub fn set_hold(&mut self, now: Time, held: bool) {
        let now = self.advance(now);
        if held == self.held {
            return;
        }
        self.held = held;
        if held {
            self.stats.holds += 1;
            if matches!(self.phase, Phase::Backoff { .. } | Phase::Cca { .. }) {
                self.park();
            }
        } else if self.phase == Phase::Idle {
            self.start_next(now);
        }
        self.advance(now);
    }

    /// Whether the transmitter is held.
    pub fn is_held(&self) -> bool {
        self.held
    }

    /// Sets the frame in progress aside until the hold is released.
    fn park(&mut self) {
        if let Some(cur) = self.current.take() {
            self.stats.parked += 1;
            self.parked = Some(cur);
        }
        self.phase = Phase::Idle;
    }

    /// Hands a frame to the MAC. A frame longer than 127 B or one arriving
    /// at a full queue is refused at once with an `Undelivered` event.
    pub fn enqueue(&mut self, now: Time, frame: Frame) {
        let now = self.advance(now);
        if frame.mpdu_len > A_MAX_PHY_PACKET_SIZE {
            self.stats.too_long_drops += 1;
            self.report_undelivered(frame.id, UndeliveredReason::FrameTooLong);
            return;
        }
        if self.queue.len() >= self.config.queue_limit {
            self.stats.queue_full_drops += 1;
            self.report_undelivered(frame.id, UndeliveredReason::QueueFull);
            return;
        }
        self.stats.enqueued += 1;
        self.queue.push_back(frame);
        self.start_next(now);
        self.advance(now);
    }

    /// Runs every phase whose deadline is at or before `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        self.advance(now);
    }

    /// The medium, as this station's CCA would sense it, became busy (`true`)
    /// or idle (`false`) at `now`.
    pub fn handle_channel(&mut self, now: Time, busy: bool) {
        self.advance(now);
        self.channel_busy = busy;
        if let Phase::Cca {
            start, busy: seen, ..
        } = &mut self.phase
        {
            if *start == now && now >= self.radio_busy_until {
                // The level at the CCA's first instant is the last one
                // reported at that instant.
                *seen = busy;
            } else {
                *seen |= busy;
            }
        }
    }

    /// The ACK of `frame` has been fully received at `now`. An ACK that does
    /// not match the frame awaiting one is counted and ignored.
    pub fn handle_ack(&mut self, now: Time, frame: u64) {
        let now = self.advance(now);
        let matched = match (self.phase, self.current) {
            (Phase::AckWait { .. }, Some(cur)) if cur.frame.id == frame => Some(cur),
            _ => None,
        };
        let Some(cur) = matched else {
            self.stats.unexpected_acks += 1;
            return;
        };
        // §7.5.6.4.2: the ACK arrived within macAckWaitDuration: success.
        self.stats.delivered += 1;
        self.events.push_back(MacEvent::Delivered {
            frame,
            attempts: cur.csma.attempts,
        });
        self.current = None;
        // §7.5.1.3: the IFS follows the ACK of an acknowledged transmission.
        self.phase = Phase::Ifs {
            until: now + ifs(cur.frame.mpdu_len),
        };
        self.advance(now);
    }

    /// A data frame addressed to this station ended intact at `now`: answer
    /// with a MAC ACK `aTurnaroundTime` later, without CSMA-CA
    /// (§7.5.6.4.2), unless the radio is itself turning to TX or sending.
    /// While the ACK is turned around and sent, this station's CCA reads
    /// busy. Duplicate rejection (by data sequence number) is the
    /// receiver's upper layer's business: every intact frame is ACKed.
    pub fn handle_data(&mut self, now: Time, frame: u64) {
        let now = self.advance(now);
        if matches!(self.phase, Phase::Turnaround { .. } | Phase::OnAir { .. })
            || now < self.radio_busy_until
        {
            self.stats.rx_while_transmitting += 1;
            return;
        }
        let start = now + turnaround_time();
        let airtime = ppdu_airtime(ACK_MPDU_BYTES);
        self.radio_busy_until = start + airtime;
        self.stats.acks_sent += 1;
        self.transmits.push_back(Transmission {
            kind: TxKind::Ack,
            frame: Frame {
                id: frame,
                mpdu_len: ACK_MPDU_BYTES,
            },
            start,
            airtime,
            attempt: 1,
        });
        if let Phase::Cca { busy, .. } = &mut self.phase {
            *busy = true;
        }
    }

    /// The next frame to put on the air, once.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Transmission> {
        self.transmits.pop_front()
    }

    /// The next delivery report.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<MacEvent> {
        self.events.pop_front()
    }

    /// When [`handle_timeout`](Mac::handle_timeout) must next be called.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Time> {
        self.phase.deadline()
    }

    /// The CSMA-CA variables of the frame in progress, if any.
    pub fn csma(&self) -> Option<Csma> {
        self.current.map(|c| c.csma)
    }

    /// Frames waiting behind the one in progress.
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Whether the station has nothing to send and is not in an IFS.
    pub fn is_idle(&self) -> bool {
        self.phase == Phase::Idle
    }

    /// The counters.
    pub fn stats(&self) -> &MacStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &MacConfig {
        &self.config
    }

    /// Moves the clock to `now` (never backwards), running expired phases.
    fn advance(&mut self, now: Time) -> Time {
        self.now = self.now.max(now);
        while let Some(at) = self.phase.deadline() {
            if at > self.now {
                break;
            }
            self.expire(at);
        }
        self.now
    }

    /// The phase ending at `at` is over: one transition.
    fn expire(&mut self, at: Time) {
        match self.phase {
            Phase::Idle => {}
            Phase::Backoff { .. } => {
                // §7.5.1.4 step (3): perform a CCA (8 symbols).
                self.phase = Phase::Cca {
                    start: at,
                    until: at + cca_duration(),
                    busy: self.channel_busy || at < self.radio_busy_until,
                };
            }
            Phase::Cca { busy: false, .. } => {
                // §7.5.1.4 step (5): idle channel; turn the radio to TX.
                self.stats.cca_idle += 1;
                self.phase = Phase::Turnaround {
                    until: at + turnaround_time(),
                };
            }
            Phase::Cca { busy: true, .. } => self.cca_busy(at),
            Phase::Turnaround { .. } => self.put_on_air(at),
            Phase::OnAir { .. } => {
                // §7.5.6.4.2: wait macAckWaitDuration for the ACK.
                self.phase = Phase::AckWait {
                    until: at + ack_wait_duration(),
                };
            }
            Phase::AckWait { .. } => self.ack_timeout(at),
            Phase::Ifs { .. } => {
                self.phase = Phase::Idle;
                self.start_next(at);
            }
        }
    }

    /// §7.5.1.4 step (4): busy channel: NB += 1, BE = min(BE + 1, macMaxBE);
    /// give up once NB > macMaxCSMABackoffs, else back off again.
    fn cca_busy(&mut self, at: Time) {
        self.stats.cca_busy += 1;
        let Some(cur) = self.current.as_mut() else {
            self.phase = Phase::Idle;
            return;
        };
        cur.csma.nb = cur.csma.nb.saturating_add(1);
        cur.csma.be = (cur.csma.be.saturating_add(1)).min(self.config.max_be);
        if cur.csma.nb > self.config.max_csma_backoffs {
            self.stats.channel_access_failures += 1;
            self.give_up(at, UndeliveredReason::ChannelAccessFailure);
        } else {
            self.backoff(at);
        }
    }

    /// The turnaround is over: the frame's first symbol leaves now.
    fn put_on_air(&mut self, at: Time) {
        let Some(cur) = self.current.as_mut() else {
            self.phase = Phase::Idle;
            return;
        };
        cur.csma.attempts = cur.csma.attempts.saturating_add(1);
        let airtime = ppdu_airtime(cur.frame.mpdu_len);
        self.stats.transmissions += 1;
        if cur.csma.attempts > 1 {
            self.stats.retransmissions += 1;
        }
        self.transmits.push_back(Transmission {
            kind: TxKind::Data,
            frame: cur.frame,
            start: at,
            airtime,
            attempt: cur.csma.attempts,
        });
        self.phase = Phase::OnAir {
            until: at + airtime,
        };
    }

    /// §7.5.6.4.3: no ACK within macAckWaitDuration: retransmit with a new
    /// CSMA-CA, at most macMaxFrameRetries times.
    fn ack_timeout(&mut self, at: Time) {
        self.stats.ack_timeouts += 1;
        let Some(cur) = self.current else {
            self.phase = Phase::Idle;
            return;
        };
        let retries_done = cur.csma.attempts.saturating_sub(1);
        if retries_done >= self.config.max_frame_retries {
            self.stats.retry_limit_drops += 1;
            self.give_up(at, UndeliveredReason::RetryLimit);
        } else {
            self.begin_csma(at);
        }
    }

    /// Takes the next queued frame if the station is idle.
    fn start_next(&mut self, at: Time) {
        if self.phase != Phase::Idle || self.current.is_some() || self.held {
            return;
        }
        if let Some(cur) = self.parked.take() {
            self.current = Some(cur);
            self.begin_csma(at);
            return;
        }
        if let Some(frame) = self.queue.pop_front() {
            self.current = Some(Current {
                frame,
                csma: Csma {
                    nb: 0,
                    be: self.config.min_be,
                    attempts: 0,
                },
            });
            self.begin_csma(at);
        }
    }

    /// §7.5.1.4 step (1): NB = 0, BE = macMinBE; then back off.
    fn begin_csma(&mut self, at: Time) {
        if self.held {
            self.park();
            return;
        }
        if let Some(cur) = self.current.as_mut() {
            cur.csma.nb = 0;
            cur.csma.be = self.config.min_be.min(self.config.max_be);
        }
        self.backoff(at);
    }

    /// §7.5.1.4 step (2): wait a random integer in [0, 2^BE − 1] unit
    /// back-off periods.
    fn backoff(&mut self, at: Time) {
        let be = self.current.map_or(self.config.min_be, |c| c.csma.be);
        let periods = draw_backoff_periods(&mut self.rng, be);
        self.stats.backoffs += 1;
        self.stats.backoff_periods += periods;
        self.phase = Phase::Backoff {
            until: at + unit_backoff_period().saturating_mul(periods),
        };
    }

    /// Drops the frame in progress and moves on to the next.
    fn give_up(&mut self, at: Time, reason: UndeliveredReason) {
        if let Some(cur) = self.current.take() {
            self.report_undelivered(cur.frame.id, reason);
        }
        self.phase = Phase::Idle;
        self.start_next(at);
    }

    fn report_undelivered(&mut self, frame: u64, reason: UndeliveredReason) {
        self.events
            .push_back(MacEvent::Undelivered { frame, reason });
    }
}

/// A uniform random integer in `[0, 2^be − 1]`: the number of unit back-off
/// periods of one CSMA-CA back-off (`be` is capped at 30).
pub(super) fn draw_backoff_periods(rng: &mut Rng, be: u8) -> u64 {
    let max = (1u64 << be.min(30)) - 1;
    rng.random_range(0..=max)
}
