//! A sans-IO TCP endpoint, faithful to the RFCs (SPECS §1).
//!
//! [`Endpoint`] is driven from outside: [`Endpoint::handle_segment`] and
//! [`Endpoint::handle_timeout`] are its inputs, [`Endpoint::poll_transmit`],
//! [`Endpoint::poll_timeout`] and [`Endpoint::poll_event`] its outputs. No
//! payload bytes exist: data is counted in bytes and tracked as sequence
//! ranges.
//!
//! What is modelled:
//! - three-way handshake with MSS, window scale, SACK-permitted and timestamp
//!   negotiation; SYN retransmission with RFC 6298 (5.7);
//! - slow start (`cwnd += min(N, SMSS)`), congestion avoidance by byte
//!   counting, restart after idle (RFC 5681), initial window in segments;
//! - NewReno fast recovery (RFC 6582 careful variant) and conservative SACK
//!   recovery (RFC 6675), Limited Transmit (RFC 3042);
//! - RTO per RFC 6298 with Karn's rule, or samples from TSecr when
//!   timestamps are on; go-back-N from SND.UNA after a timeout;
//! - receiver with delayed ACKs, immediate ACKs around gaps, SACK blocks
//!   (RFC 2018 §4), SWS avoidance on both sides, zero-window probing.
//!
//! Choices and simplifications, and what they cost:
//! - `recover` is kept with BSD's *exclusive* meaning (the SND.MAX when
//!   recovery began, initialised to ISS), so the careful test is
//!   `ACK > recover`. Losing the first data segment therefore still triggers
//!   fast retransmit (the literal RFC 6582 initial value would refuse it).
//! - With SACK, entering recovery sets `ssthresh = max(FlightSize/2, 2*SMSS)`
//!   (RFC 5681's floor) and `cwnd = ssthresh`; Limited Transmit is the
//!   RFC 3042 one for both recoveries (at most two new segments).
//! - The delayed ACK counts bytes: an ACK is due once `delayed_ack_segments`
//!   times the largest segment seen so far has arrived unacknowledged.
//! - No Nagle: a partial segment is sent when it is the tail of the written
//!   data (or half the largest window seen, RFC 9293 §3.8.6.2.1).
//! - The persist timer runs whenever nothing is in flight and the peer's
//!   window is too small for the next segment: with a zero window it sends a
//!   one-byte probe (SND.NXT rolled back, as BSD), with a small non-zero
//!   window it sends what fits (the SWS override timer). This also recovers
//!   from a lost window update.
//! - Limited Transmit with SACK uses the RFC 3042 allowance, not the
//!   RFC 6675 §5 step 3 pipe rule, and does not check that the dupACK brought
//!   new SACK information.
//! - During go-back-N after a timeout, bytes SACKed again since the timeout
//!   are skipped and do not count as in flight.
//! - A dupACK in the RFC 6675 sense (new SACK information) counts only when
//!   it does not advance SND.UNA.
//! - Pure ACKs carry SND.MAX as their sequence number (SND.NXT while a
//!   zero-window probe is outstanding).
//! - `Config::mss` is the payload per full segment, whatever the options
//!   (with timestamps, 1448 B is what Linux sends over a 1500 B MTU); it is
//!   also the MSS option value. With timestamps every ACK that advances SND.UNA yields an RTT sample from TSecr
//!   (1 ms clock). PAWS is not implemented.
//! - TIME-WAIT lasts 2 s (2*MSL with MSL = 1 s). A closed endpoint (and a
//!   listening one, to an ACK) answers with a RST (RFC 9293 §3.10.7.1-2), so
//!   a peer whose last ACK came too late still closes; a received RST inside
//!   the window closes the endpoint (no RFC 5961 challenge ACKs).
//! - `Profile::Ns3` follows ns-3 3.44 where it differs, each switch in one
//!   place: slow start adds one SMSS per ACK of at least one whole segment
//!   and congestion avoidance adds SMSS*SMSS/cwnd per such ACK whatever it
//!   acknowledges, both on an ACK that reaches ssthresh with segments to
//!   spare (cc.rs: with delayed ACKs cwnd grows about half as fast as by
//!   byte counting); the ACK that ends fast recovery also runs that growth
//!   after cwnd = ssthresh, and the one that ends a timeout's recovery
//!   grows only by the segments above `recover` (recovery.rs); an ACK of
//!   new data that restarts the timer also ends the RTO's back-off
//!   (recovery.rs, ns-3's `NewAck`; RFC 6298 keeps it until a valid RTT
//!   sample); ssthresh on
//!   fast retransmit from FlightSize - 3 SMSS with Limited Transmit segments
//!   counted (cc.rs, recovery.rs), cwnd = ssthresh when recovery ends
//!   (recovery.rs), fast retransmit also
//!   allowed when the ACK equals `recover` (recovery.rs), the first data
//!   segment is ACKed at once (recv.rs), the active opener sends the
//!   handshake's ACK on its own before its data (send.rs), the SYN's back-off doubles with no
//!   cap and a connection whose SYN or SYN-ACK timed out keeps its initial
//!   window and its estimator's RTO (recovery.rs, recv.rs; RFC 5681 §3.1
//!   and RFC 6298 (5.7) in the RFC profile), which takes a sample from the
//!   first SYN (or SYN-ACK) to the answer of its retransmission (send.rs;
//!   ns-3's RTT history never marks the zero-length SYN retransmitted;
//!   Karn's rule in the RFC profile), a partial ACK in NewReno
//!   recovery leaves cwnd at ssthresh plus the dupACKed segments still
//!   above SND.UNA rather than deflating it below ssthresh (recovery.rs),
//!   and a go-back-N
//!   retransmission waits for room for a whole segment, as new data does
//!   (send.rs; the RFC profile sends what the window allows). The 60 s RTO cap is
//!   `max_rto`'s default in both profiles.
//! - On a timeout, ssthresh = max((FlightSize - data known delivered)/2,
//!   2*SMSS): SACKed bytes, or one SMSS per duplicate ACK without SACK, are
//!   left out. RFC 5681 eq. (4) is an upper bound ("no more than"); the
//!   literal FlightSize after a long NewReno recovery counts a window of data
//!   the receiver already holds, and the next slow start overshoots again.
//!   Linux and ns-3 leave the same data out.
//!
//! Hooks for cross-layer schemes: [`Endpoint::freeze`] / [`Endpoint::resume`]
//! (CR-aware TCP). New congestion controllers are variants of
//! [`CongestionControl`]; a new loss recovery is a variant of [`Recovery`]
//! handled in `recovery.rs` and `send.rs`. While the controller gives a
//! pacing rate (BBR), segments sent under cwnd wait for [`Timer::Pacing`].
//!
//! Poll order: after every input, call `poll_transmit` until it returns
//! `None`, then drain `poll_event`, then ask `poll_timeout`. Time passed in
//! must never go backwards; a `handle_timeout` before the deadline is a no-op.

pub(crate) mod cc;
mod config;
mod frto;
mod inspect;
mod rack;
pub mod rate;
mod recovery;
mod recv;
mod rtt;
mod scoreboard;
mod send;
mod stats;
mod timers;

#[cfg(test)]
#[macro_use]
mod fixture;
#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bbr;
#[cfg(test)]
mod tests_cc;
#[cfg(test)]
mod tests_cr;
#[cfg(test)]
mod tests_frto;
#[cfg(test)]
mod tests_harness;
#[cfg(test)]
mod tests_rack;
#[cfg(test)]
mod tests_recovery;
#[cfg(test)]
mod tests_recv;

pub use cc::{AckInfo, Bbr, BbrMode, CongestionControl, NewReno, RateInput, Window};
pub use config::{
    CcAlgorithm, Config, CubicVariant, FrtoVariant, MinRtoMode, Profile, PrrVariant, RackVariant,
    Recovery, RttEstimatorKind, RttSampling, SsthreshFrom,
};
pub use rtt::{RttEstimator, CLOCK_GRANULARITY};
pub use scoreboard::{NextSeg, Scoreboard, DUP_THRESH};
pub use stats::Stats;
pub use timers::{Timer, TimerTable};

use crate::time::{Dur, Time};
use crate::wire::{Segment, SeqNum};
use std::collections::VecDeque;

/// The most write ends an endpoint remembers for PSH (one per application
/// write; a bulk writer makes one per ACK).
pub const MAX_PUSH_MARKS: usize = 1 << 16;

/// Linux's shortest delayed-ACK timeout (`TCP_ATO_MIN`), with
/// `Config::delayed_ack_ato`.
pub const ATO_MIN: Dur = Dur::from_millis(40);

/// Linux's window before its receive buffer grows: `tcp_rmem[1]`
/// (131 072 B) at half for overhead, with `Config::ack_window_growth`.
pub const LINUX_INIT_RCV_SPACE: u64 = 65_536;

/// Linux's receive-window threshold and buffer autotuning, in window bytes
/// (`rcv_ssthresh`, `window_clamp`, `rcvq_space`, `rcv_rtt_est`), with
/// `Config::ack_window_growth`; zero until the first data.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RcvWindowGrowth {
    /// `rcv_ssthresh`: the most the receiver would offer now.
    pub ssthresh: u64,
    /// `window_clamp`: the window of the buffer as autotuned.
    pub clamp: u64,
    /// `rcvq_space`: data read in the last measured round trip, and where
    /// and when that round began.
    pub space: u64,
    pub space_seq: SeqNum,
    pub space_time: Time,
    /// `rcv_rtt_est`: the least time seen to receive one window, and the
    /// measurement under way (the sequence number that ends it, its start).
    pub rtt: Option<Dur>,
    pub rtt_seq: SeqNum,
    pub rtt_time: Option<Time>,
}

/// Connection states (RFC 9293 §3.3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// No connection.
    Closed,
    /// Waiting for a SYN.
    Listen,
    /// SYN sent, waiting for SYN-ACK.
    SynSent,
    /// SYN received and SYN-ACK sent, waiting for its ACK.
    SynReceived,
    /// Data flows both ways.
    Established,
    /// We closed; our FIN is not yet acknowledged.
    FinWait1,
    /// Our FIN is acknowledged; waiting for the peer's FIN.
    FinWait2,
    /// The peer closed; we may still send.
    CloseWait,
    /// Both closed at once; waiting for the ACK of our FIN.
    Closing,
    /// The peer closed first, then we did; waiting for the ACK of our FIN.
    LastAck,
    /// Both closed; lingering before Closed.
    TimeWait,
}

/// F-RTO (RFC 5682 §2 and §3, or Linux's) after a retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Frto {
    /// Not detecting (disabled, or conventional recovery chosen).
    Off,
    /// Step 2: the first ACK after the retransmission of `[snd_una, rtx_end)`.
    First {
        /// End of the segment retransmitted on the timeout.
        rtx_end: SeqNum,
    },
    /// Step 3: new data went out; the next ACK decides.
    Second,
}

/// Sender congestion state, as Linux names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionState {
    /// No loss suspected.
    Open,
    /// One or two duplicate ACKs (or SACKs) seen.
    Disorder,
    /// In fast recovery (NewReno or SACK).
    Recovery,
    /// After a retransmission timeout, until everything sent before it is acknowledged.
    Loss,
}

/// Something the endpoint reports to its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The handshake completed.
    Established,
    /// The endpoint reached Closed (after TIME-WAIT, LAST-ACK or a reset).
    Closed,
    /// A reset was accepted.
    Reset,
    /// The peer's FIN arrived in order: no more data will come.
    PeerClosed,
    /// A segment was emitted (only with `trace_segments`).
    SegmentSent {
        /// Sequence number.
        seq: SeqNum,
        /// Payload length.
        len: u32,
        /// Whether it resends sequence space.
        retransmission: bool,
    },
    /// A segment was received (only with `trace_segments`).
    SegmentReceived {
        /// Sequence number.
        seq: SeqNum,
        /// Payload length.
        len: u32,
        /// Acknowledgment number.
        ack: SeqNum,
    },
    /// The retransmission timer expired; `rto` is the new, backed-off value.
    RetransmissionTimeout {
        /// RTO after the back-off.
        rto: Dur,
    },
    /// The congestion state changed.
    CongestionStateChanged(CongestionState),
}

/// What an agent beside TCP may ask of the endpoint (CR-aware TCP,
/// TCP-level local recovery).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Stop sending and cancel the RTO timer, keeping cwnd, ssthresh and
    /// the RTO value ([`Endpoint::freeze`]).
    Freeze,
    /// Undo a freeze and retransmit the oldest unacknowledged segment
    /// ([`Endpoint::resume`]).
    Resume,
    /// Retransmit `[left, right)` now ([`Endpoint::retransmit_range`]).
    Retransmit {
        /// First byte.
        left: SeqNum,
        /// One past the last byte.
        right: SeqNum,
    },
}

/// A segment to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// The segment.
    pub segment: Segment,
    /// It resends sequence space sent before.
    pub retransmission: bool,
}

/// A sans-IO TCP endpoint.
///
/// Inputs: [`handle_segment`](Self::handle_segment),
/// [`handle_timeout`](Self::handle_timeout) and the application calls
/// (`connect`, `listen`, `write`, `read`, `close`, `freeze`, `resume`).
/// Outputs: [`poll_transmit`](Self::poll_transmit) (call until `None`
/// after every input), [`poll_event`](Self::poll_event) and
/// [`poll_timeout`](Self::poll_timeout). Time only moves forward; calling
/// `handle_timeout` before the deadline does nothing.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub(crate) config: Config,
    pub(crate) local_port: u16,
    pub(crate) remote_port: u16,
    pub(crate) state: State,
    pub(crate) timers: TimerTable,
    pub(crate) events: VecDeque<Event>,
    pub(crate) stats: Stats,
    // Negotiated at the handshake.
    /// Payload bytes per full segment (Eff.snd.MSS).
    pub(crate) smss: u32,
    pub(crate) sack_ok: bool,
    /// Both ends sent the window scale option.
    pub(crate) ws_ok: bool,
    pub(crate) ts_ok: bool,
    /// The ACK being processed gave an RTT sample from the send log
    /// (every-ACK sampling), which takes precedence over its timestamp.
    pub(crate) ack_sampled: bool,
    /// Shift applied to windows we receive.
    pub(crate) snd_wscale: u8,
    /// Shift applied to windows we send.
    pub(crate) rcv_wscale: u8,
    /// Recovery in use, resolved at the handshake.
    pub(crate) recovery: Recovery,
    // Send side (RFC 9293 §3.3.1 names).
    pub(crate) iss: SeqNum,
    pub(crate) snd_una: SeqNum,
    /// How far SND.UNA has moved from the ISS, in 64 bits (the SYN counts
    /// one): sequence space acknowledged over the connection's life.
    pub(crate) una_advanced: u64,
    pub(crate) snd_nxt: SeqNum,
    /// Highest sequence number sent, plus one.
    pub(crate) snd_max: SeqNum,
    /// End of the data written by the application.
    pub(crate) snd_buf_end: SeqNum,
    /// Where the application's writes ended, above SND.UNA, oldest first:
    /// the segment holding one carries PSH (RFC 9293 §3.9.1, as BSD and
    /// Linux set it; not with the ns-3 profile). At most [`MAX_PUSH_MARKS`].
    pub(crate) push_marks: VecDeque<SeqNum>,
    pub(crate) fin_queued: bool,
    pub(crate) snd_wnd: u64,
    pub(crate) max_snd_wnd: u64,
    pub(crate) snd_wl1: SeqNum,
    pub(crate) snd_wl2: SeqNum,
    pub(crate) win: Window,
    pub(crate) cc: CongestionControl,
    /// The RTT sample the ACK being processed gave, if any.
    pub(crate) ack_rtt: Option<Dur>,
    /// When the last ACK arrived (the time congestion-control hooks see
    /// outside an ACK's own processing).
    pub(crate) last_ack_at: Time,
    pub(crate) rtt: RttEstimator,
    /// The segment being timed (end sequence, send time), Karn's rule.
    pub(crate) rtt_probe: Option<(SeqNum, Time)>,
    /// Timeouts since SND.UNA last advanced.
    pub(crate) consecutive_rtos: u32,
    pub(crate) syn_retransmitted: bool,
    /// The `ns3` profile's handshake ACK, sent on its own before any data.
    pub(crate) pure_ack_first: bool,
    pub(crate) last_data_sent: Option<Time>,
    // Loss recovery.
    pub(crate) dupacks: u32,
    /// Bytes sent by Limited Transmit since the last new ACK.
    pub(crate) lt_bytes: u64,
    /// Bytes that duplicate ACKs show have left the network without being
    /// cumulatively acknowledged (one SMSS per dupACK, as Linux's Reno
    /// `sacked_out`); only used without SACK.
    pub(crate) dup_delivered: u64,
    /// RFC 6582 `recover`, exclusive (see module doc); also RFC 6675 RecoveryPoint.
    pub(crate) recover: SeqNum,
    pub(crate) cstate: CongestionState,
    pub(crate) partial_acks: u32,
    /// Where F-RTO (RFC 5682) stands after a timeout.
    pub(crate) frto: Frto,
    /// New segments F-RTO may still send whatever cwnd says (step 2b).
    pub(crate) frto_new: u8,
    /// cwnd and ssthresh before the timeout, restored if it was spurious.
    pub(crate) frto_prior: (u64, u64),
    /// The data sent before the timeout and never resent (the SACK-enhanced
    /// and Linux variants): `[start, end)`.
    pub(crate) frto_originals: (SeqNum, SeqNum),
    /// The ranges SACKed when the timeout fired, kept with F-RTO or Eifel
    /// (the scoreboard forgets them): F-RTO must not take them for new
    /// acknowledgements, and an undo gives them back to the scoreboard.
    pub(crate) sacked_at_rto: Vec<(SeqNum, SeqNum)>,
    /// Bytes of `frto_originals` acknowledged (cumulatively or by SACK)
    /// when the last decision was taken.
    pub(crate) frto_acked: u64,
    /// End of the highest retransmission since the last timeout episode
    /// began: data below it is not "never resent".
    pub(crate) rtx_high: SeqNum,
    /// Eifel (RFC 3522): the timestamp of the first retransmission of the
    /// timeout's episode, and cwnd and ssthresh before it.
    pub(crate) eifel: Option<(u32, (u64, u64))>,
    /// A retransmission of the segment at this sequence number is due now.
    pub(crate) pending_rtx: Option<SeqNum>,
    pub(crate) scoreboard: Scoreboard,
    /// Per-segment transmissions (only with RACK, TLP or every-ACK RTT samples).
    pub(crate) sent: rack::SentLog,
    pub(crate) rack: rack::Rack,
    pub(crate) tlp: rack::TlpEpisode,
    /// New data went out or an ACK advanced SND.UNA: re-arm the probe timer.
    pub(crate) tlp_rearm: bool,
    /// The probe timer fired: a probe goes out at the next transmit.
    pub(crate) tlp_due: bool,
    /// The segment being built is a probe (it does not re-arm the timer).
    pub(crate) tlp_sending: bool,
    /// The connection's delivery state and the last ACK's rate sample
    /// (`rate.rs`; kept only when the controller wants samples).
    pub(crate) rate: rate::RateState,
    pub(crate) rate_sample: rate::RateSample,
    /// When pacing lets the next segment leave.
    pub(crate) pacing_next: Time,
    /// PRR (RFC 6937): bytes delivered and sent since recovery began, and
    /// the FlightSize when it began (RecoverFS).
    pub(crate) prr_delivered: u64,
    pub(crate) prr_out: u64,
    pub(crate) recover_fs: u64,
    /// DSACK undo (`dsack_undo`): SND.UNA when the recovery began, while
    /// it may still be undone.
    pub(crate) undo_marker: Option<SeqNum>,
    /// Retransmissions of this recovery not yet reported as DSACKs; -1
    /// before the first (Linux's `undo_retrans`).
    pub(crate) undo_retrans: i64,
    /// cwnd and ssthresh to restore on an undo.
    pub(crate) undo_prior: (u64, u64),
    pub(crate) high_rxt: SeqNum,
    pub(crate) rescue_rxt: Option<SeqNum>,
    pub(crate) persist_backoff: u32,
    pub(crate) probe_due: bool,
    pub(crate) frozen: bool,
    /// cwnd, ssthresh and the RTT estimator (so the RTO value) at the
    /// freeze, restored at the resume.
    pub(crate) frozen_state: Option<(Window, RttEstimator)>,
    /// Ranges a local-recovery agent asked to retransmit now.
    pub(crate) lr_rtx: VecDeque<(SeqNum, SeqNum)>,
    // Receive side.
    pub(crate) irs: SeqNum,
    pub(crate) rcv_nxt: SeqNum,
    /// Right edge of the window advertised so far (never moves left).
    pub(crate) rcv_adv: SeqNum,
    /// Out-of-order data above RCV.NXT, sorted and merged.
    pub(crate) ooo: Vec<(SeqNum, SeqNum)>,
    pub(crate) rcv_fin: Option<SeqNum>,
    pub(crate) unread: u64,
    /// SACK blocks in the order last reported.
    pub(crate) sack_reported: Vec<(SeqNum, SeqNum)>,
    /// A duplicate segment's range, reported first in the next ACK's SACK
    /// option (DSACK, RFC 2883 §4).
    pub(crate) dsack_pending: Option<(SeqNum, SeqNum)>,
    /// Spare buffer for reordering the SACK blocks.
    pub(crate) sack_scratch: Vec<(SeqNum, SeqNum)>,
    pub(crate) ack_now: bool,
    pub(crate) unacked_bytes: u64,
    pub(crate) rcv_mss_seen: u32,
    pub(crate) data_received: bool,
    /// Quick ACKs left (`Config::quickacks`), and when data last came.
    pub(crate) quick: u32,
    /// Linux's delayed-ACK timeout (`Config::delayed_ack_ato`; zero before
    /// the first data) and when in-order data last came.
    pub(crate) ato: Dur,
    pub(crate) ato_last: Option<Time>,
    /// The send buffer `Config::snd_buffer_auto` has grown to.
    pub(crate) snd_buffer_grown: u64,
    /// Linux's receive-window growth (`Config::ack_window_growth`).
    pub(crate) rwin: RcvWindowGrowth,
    pub(crate) last_data_at: Option<Time>,
    pub(crate) ts_recent: u32,
    pub(crate) last_ack_sent: SeqNum,
    /// A reset answering a segment that found no connection.
    pub(crate) reset_reply: Option<Segment>,
}

impl Endpoint {
    /// A closed endpoint. `iss` is the initial send sequence number (the caller draws it).
    pub fn new(config: Config, local_port: u16, remote_port: u16, iss: SeqNum) -> Endpoint {
        let mut rtt = RttEstimator::new(config.initial_rto, config.min_rto, config.max_rto);
        if config.min_rto_mode == MinRtoMode::Linux {
            rtt = rtt.with_min_on_variance();
        }
        if config.rtt_estimator == RttEstimatorKind::Linux {
            rtt = rtt.as_linux();
        }
        let smss = config.mss.max(1);
        let recovery = config.recovery;
        Endpoint {
            local_port,
            remote_port,
            state: State::Closed,
            timers: TimerTable::default(),
            events: VecDeque::new(),
            stats: Stats::default(),
            smss,
            sack_ok: false,
            ws_ok: false,
            ts_ok: false,
            ack_sampled: false,
            snd_wscale: 0,
            rcv_wscale: 0,
            recovery,
            iss,
            snd_una: iss,
            una_advanced: 0,
            snd_nxt: iss,
            snd_max: iss,
            snd_buf_end: iss + 1,
            push_marks: VecDeque::new(),
            fin_queued: false,
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: SeqNum(0),
            snd_wl2: iss,
            win: Window {
                cwnd: config.initial_window.max(1) as u64 * smss as u64,
                ssthresh: u64::MAX,
            },
            cc: CongestionControl::from_config(&config),
            ack_rtt: None,
            last_ack_at: Time::ZERO,
            rtt,
            rtt_probe: None,
            consecutive_rtos: 0,
            syn_retransmitted: false,
            pure_ack_first: false,
            last_data_sent: None,
            dupacks: 0,
            lt_bytes: 0,
            dup_delivered: 0,
            recover: iss,
            cstate: CongestionState::Open,
            partial_acks: 0,
            frto: Frto::Off,
            frto_new: 0,
            frto_prior: (0, 0),
            frto_originals: (SeqNum(0), SeqNum(0)),
            sacked_at_rto: Vec::new(),
            frto_acked: 0,
            rtx_high: iss,
            eifel: None,
            pending_rtx: None,
            scoreboard: Scoreboard::default(),
            sent: rack::SentLog::default(),
            rack: rack::Rack::new(iss),
            tlp: rack::TlpEpisode::default(),
            tlp_rearm: false,
            tlp_due: false,
            tlp_sending: false,
            rate: rate::RateState::default(),
            rate_sample: rate::RateSample::default(),
            pacing_next: Time::ZERO,
            prr_delivered: 0,
            prr_out: 0,
            undo_marker: None,
            undo_retrans: -1,
            undo_prior: (0, 0),
            recover_fs: 0,
            high_rxt: iss,
            rescue_rxt: None,
            persist_backoff: 0,
            probe_due: false,
            frozen: false,
            frozen_state: None,
            lr_rtx: VecDeque::new(),
            irs: SeqNum(0),
            rcv_nxt: SeqNum(0),
            rcv_adv: SeqNum(0),
            ooo: Vec::new(),
            rcv_fin: None,
            unread: 0,
            sack_reported: Vec::new(),
            dsack_pending: None,
            sack_scratch: Vec::new(),
            ack_now: false,
            unacked_bytes: 0,
            rcv_mss_seen: 0,
            data_received: false,
            quick: 0,
            ato: Dur::ZERO,
            ato_last: None,
            snd_buffer_grown: 0,
            rwin: RcvWindowGrowth::default(),
            last_data_at: None,
            ts_recent: 0,
            last_ack_sent: SeqNum(0),
            reset_reply: None,
            config,
        }
    }

    /// Active open: queues a SYN.
    pub fn connect(&mut self, now: Time) {
        if self.state != State::Closed {
            return;
        }
        self.set_state(State::SynSent);
        self.timers.set(Timer::Rto, now + self.rtt.rto());
    }

    /// Passive open: waits for a SYN.
    pub fn listen(&mut self) {
        if self.state == State::Closed {
            self.set_state(State::Listen);
        }
    }

    /// Handles every timer expired at `now`; an early call is a no-op.
    pub fn handle_timeout(&mut self, now: Time) {
        for t in Timer::ALL {
            if !self.timers.expire(t, now) {
                continue;
            }
            match t {
                Timer::Rto => self.on_rto(now),
                Timer::DelayedAck => {
                    // Linux: a delayed ACK that had to wait inflates the timeout.
                    if self.config.delayed_ack_ato {
                        self.ato = self.ato.saturating_mul(2).min(self.rtt.rto());
                    }
                    self.ack_now = true;
                }
                Timer::Persist => self.on_persist(now),
                Timer::TimeWait => self.close_now(),
                Timer::Rack => self.on_rack_timer(now),
                Timer::Tlp => self.on_tlp_timer(),
                // The held segment goes out at the next `poll_transmit`.
                Timer::Pacing => {}
            }
        }
    }

    /// The earliest armed timer.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Time> {
        self.timers.next()
    }

    /// The next event, oldest first.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Queues up to `bytes` for sending; returns the bytes accepted (send buffer space).
    pub fn write(&mut self, bytes: u64) -> u64 {
        let open = matches!(
            self.state,
            State::SynSent | State::SynReceived | State::Established | State::CloseWait
        );
        if !open || self.fin_queued {
            return 0;
        }
        if bytes == 0 && !self.config.snd_buffer_auto && !self.cc.wants_rate_samples() {
            return 0; // nothing to queue, nothing a write looks at (a full buffer)
        }
        if self.config.snd_buffer_auto {
            self.snd_buffer_grown = self.auto_snd_buffer();
        }
        if self.cc.wants_rate_samples() {
            self.check_app_limited();
        }
        let space = self.send_buffer_space();
        let mut n = bytes.min(space);
        if self.config.snd_buffer_auto
            && n == space
            && n < 2 * u64::from(self.smss)
            && self.send_buffer_used() > 0
        {
            // Linux's write queue is built of buffers of at least two
            // segments (`tcp_tso_autosize`'s floor, `tcp_min_tso_segs`): a
            // writer that would fill the send buffer writes once two
            // segments are free.
            n = 0;
        }
        self.snd_buf_end += n as u32;
        if n > 0 && self.config.profile == Profile::Rfc {
            // Beyond the bound, the latest write's end moves the last mark.
            if self.push_marks.len() >= MAX_PUSH_MARKS {
                self.push_marks.pop_back();
            }
            self.push_marks.push_back(self.snd_buf_end);
        }
        n
    }

    /// draft-cheng-iccrg-delivery-rate-estimation §3.4 (Linux's
    /// `tcp_rate_check_app_limited`, on each application write): less
    /// than a segment is left unsent, cwnd is not full and nothing lost
    /// awaits retransmission, so the application is what limits the rate.
    fn check_app_limited(&mut self) {
        let unsent = self.snd_buf_end.since(self.snd_max).max(0) as u64;
        let in_flight = self.snd_max.since(self.snd_una).max(0) as u64;
        let quiet = matches!(
            self.cstate,
            CongestionState::Open | CongestionState::Disorder
        );
        if unsent < u64::from(self.smss) && in_flight < self.win.cwnd && quiet {
            self.rate.mark_app_limited(in_flight);
        }
    }

    /// Free bytes in the send buffer.
    pub fn send_buffer_space(&self) -> u64 {
        // Sequence comparisons hold within 2^31: keep the buffer below 2^30.
        let mut buffer = self.config.snd_buffer.min(1 << 30);
        if self.config.snd_buffer_auto {
            buffer = buffer.min(self.auto_snd_buffer());
        }
        buffer.saturating_sub(self.send_buffer_used())
    }

    /// `Config::snd_buffer_auto`: 2·max(cwnd, 10 segments), never less
    /// than it has been.
    fn auto_snd_buffer(&self) -> u64 {
        let floor = 10 * u64::from(self.smss);
        self.snd_buffer_grown.max(2 * self.win.cwnd.max(floor))
    }

    /// Written bytes not yet acknowledged.
    fn send_buffer_used(&self) -> u64 {
        // Until our SYN is acknowledged SND.UNA is the ISS, one below the
        // first data byte. Never compare with the ISS once data flows:
        // 2^31 bytes later it reads as ahead of SND.UNA.
        let syn_unacked = matches!(
            self.state,
            State::Closed | State::Listen | State::SynSent | State::SynReceived
        );
        let acked_edge = if syn_unacked {
            self.data_start()
        } else {
            self.snd_una
        };
        self.snd_buf_end.since(acked_edge).max(0) as u64
    }

    /// Sends a FIN after all written data.
    pub fn close(&mut self) {
        match self.state {
            State::Closed | State::Listen | State::SynSent => self.close_now(),
            State::SynReceived => self.fin_queued = true,
            State::Established => {
                self.fin_queued = true;
                self.set_state(State::FinWait1);
            }
            State::CloseWait => {
                self.fin_queued = true;
                self.set_state(State::LastAck);
            }
            _ => {}
        }
    }

    /// Takes up to `max` in-order received bytes, which frees receive window.
    pub fn read(&mut self, max: u64) -> u64 {
        let n = max.min(self.unread);
        self.unread -= n;
        self.stats.bytes_delivered += n;
        if n > 0 {
            self.maybe_window_update();
        }
        n
    }

    /// In-order received bytes not yet read.
    pub fn readable(&self) -> u64 {
        self.unread
    }

    /// Carries out a command from an agent beside this endpoint (see
    /// [`Command`]): the one door through which schemes act on TCP.
    pub fn command(&mut self, now: Time, cmd: Command) {
        match cmd {
            Command::Freeze => self.freeze(now),
            Command::Resume => self.resume(now),
            Command::Retransmit { left, right } => self.retransmit_range(left, right),
        }
    }

    /// CR-aware hook: stops sending data and cancels the RTO timer, keeping
    /// cwnd, ssthresh and the RTO value.
    pub fn freeze(&mut self, _now: Time) {
        if !self.frozen {
            self.frozen_state = Some((self.win, self.rtt.clone()));
        }
        self.frozen = true;
        self.timers.stop(Timer::Rto);
        self.timers.stop(Timer::Persist);
        self.timers.stop(Timer::Tlp);
    }

    /// CR-aware hook: resumes sending, restarts the RTO timer with the frozen
    /// value and retransmits the oldest unacknowledged segment at once.
    pub fn resume(&mut self, now: Time) {
        if !self.frozen {
            return;
        }
        self.frozen = false;
        if let Some((win, rtt)) = self.frozen_state.take() {
            // What ACKs that arrived during the freeze did to the window and
            // the estimator is undone: the freeze keeps them as they were.
            self.win = win;
            self.rtt = rtt;
        }
        if self.snd_max > self.snd_una {
            self.pending_rtx = Some(self.snd_una);
            self.timers.set(Timer::Rto, now + self.rtt.rto());
        }
        self.update_timers(now);
    }

    /// Local-recovery hook: retransmit the data in `[left, right)` now, in
    /// full-size segments, whatever cwnd says (clipped to what is
    /// outstanding: `[SND.UNA, SND.MAX)`). Ignored while frozen until the
    /// resume.
    pub fn retransmit_range(&mut self, left: SeqNum, right: SeqNum) {
        if left < right {
            self.lr_rtx.push_back((left, right));
        }
    }

    /// Gives the congestion controller the stream of its random choices
    /// (see [`CongestionControl::set_rng`]).
    pub fn set_cc_rng(&mut self, rng: crate::rng::Rng) {
        self.cc.set_rng(rng);
    }

    /// The congestion controller.
    pub fn cc(&self) -> &CongestionControl {
        &self.cc
    }

    /// Whether the endpoint is frozen (see [`freeze`](Self::freeze)).
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    // ---- internal helpers shared by the submodules ----

    /// The one state transition function.
    pub(crate) fn set_state(&mut self, s: State) {
        if self.state == s {
            return;
        }
        self.state = s;
        match s {
            State::Established => self.events.push_back(Event::Established),
            State::Closed => self.events.push_back(Event::Closed),
            _ => {}
        }
    }

    pub(crate) fn set_cstate(&mut self, c: CongestionState) {
        if self.cstate != c {
            let recovering = |s| matches!(s, CongestionState::Recovery | CongestionState::Loss);
            if recovering(self.cstate) && !recovering(c) {
                self.rack.on_recovery_end();
            }
            self.cstate = c;
            self.events.push_back(Event::CongestionStateChanged(c));
        }
    }

    /// Goes to Closed and disarms every timer.
    pub(crate) fn close_now(&mut self) {
        for t in Timer::ALL {
            self.timers.stop(t);
        }
        self.set_state(State::Closed);
    }

    /// First data sequence number.
    pub(crate) fn data_start(&self) -> SeqNum {
        self.iss + 1
    }

    /// Sequence number of our FIN, once queued.
    pub(crate) fn fin_seq(&self) -> Option<SeqNum> {
        self.fin_queued.then_some(self.snd_buf_end)
    }

    /// The timestamp clock: milliseconds, wrapping.
    pub(crate) fn ts_now(now: Time) -> u32 {
        (now.as_nanos() / 1_000_000) as u32
    }
}
