//! Endpoint configuration: what the endpoint offers in its SYN and how it
//! sends, acknowledges and recovers.

use crate::time::Dur;

/// Loss recovery algorithm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recovery {
    /// NewReno fast recovery (RFC 6582, careful variant).
    NewReno,
    /// Conservative SACK-based recovery (RFC 6675). Used only when both ends
    /// permitted SACK; otherwise the endpoint falls back to NewReno.
    #[default]
    Sack,
}

/// Congestion control (`cc`; see `cc/`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CcAlgorithm {
    /// RFC 5681 slow start and congestion avoidance, RFC 6582's reduction.
    #[default]
    NewReno,
    /// CUBIC (RFC 9438); HyStart++ (RFC 9406) with `hystart`.
    Cubic,
    /// Westwood+ (Mascolo et al. 2001; Linux's `westwood`).
    Westwood,
    /// Vegas (Brakmo and Peterson 1995; Linux's `vegas`).
    Vegas,
    /// BBR v1 (Cardwell et al. 2016; Linux's `bbr`), with pacing.
    Bbr,
}

impl CcAlgorithm {
    /// Every algorithm the endpoint runs, with the name the `cc` key gives it.
    pub const ALL: &'static [(&'static str, CcAlgorithm)] = &[
        ("newreno", CcAlgorithm::NewReno),
        ("cubic", CcAlgorithm::Cubic),
        ("westwood", CcAlgorithm::Westwood),
        ("vegas", CcAlgorithm::Vegas),
        ("bbr", CcAlgorithm::Bbr),
    ];

    /// The algorithm named `name` (as the `cc` key writes it), if modelled.
    pub fn from_name(name: &str) -> Option<CcAlgorithm> {
        CcAlgorithm::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, a)| a)
    }
}

/// Which reference behaviour to follow where implementations differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    /// The RFCs as written (SPECS §1).
    #[default]
    Rfc,
    /// ns-3 3.44 `TcpNewReno` where it departs from the RFCs (see the module doc).
    Ns3,
}

/// Where the minimum RTO applies (`min_rto_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MinRtoMode {
    /// RFC 6298 (2.4): RTO = max(SRTT + max(G, 4·RTTVAR), min_rto).
    #[default]
    Rfc6298,
    /// Linux (`tcp_rtt_estimator` / `__tcp_set_rto`): the minimum bounds
    /// the variance term, RTO = SRTT + max(4·RTTVAR, min_rto), so the RTO
    /// is never below SRTT + min_rto.
    Linux,
}

/// What a loss halves into ssthresh (`ssthresh_from`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SsthreshFrom {
    /// RFC 5681 eq. (4): max(FlightSize/2, 2·SMSS).
    #[default]
    FlightSize,
    /// Linux's Reno (`tcp_reno_ssthresh`): max(cwnd/2, 2·SMSS).
    Cwnd,
}

/// How SRTT and the variance term of the RTO are kept (`rtt_estimator`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RttEstimatorKind {
    /// RFC 6298 (2.2)-(2.3): RTTVAR moves by a quarter of each sample's
    /// deviation; where the minimum applies is `min_rto_mode`.
    #[default]
    Rfc6298,
    /// Linux (`tcp_rtt_estimator`, `__tcp_set_rto`): the first sample sets
    /// the variance term to twice the RTT (at least the minimum RTO); a
    /// sample below SRTT moves it with an eighth of RFC 6298's gain; its
    /// largest value within a round trip is held, at least the minimum RTO,
    /// and lowered by a quarter of the way towards the round trip's own
    /// largest once per round trip (SND.UNA passing the SND.NXT of the
    /// last lowering). RTO = SRTT + that held term; `min_rto_mode` then
    /// makes no difference.
    Linux,
}

/// Whose CUBIC congestion avoidance (`cubic_variant`), with `cc = cubic`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CubicVariant {
    /// RFC 9438 §4.2-4.5: the per-ACK formula in real numbers, W_est
    /// growing by alpha_cubic, then by 1 once it reaches cwnd_prior.
    #[default]
    Rfc9438,
    /// Linux's `tcp_cubic.c` (`bictcp_update`, `tcp_cong_avoid_ai`,
    /// `bictcp_recalc_ssthresh`): whole segments, the Reno estimate
    /// restarted from cwnd with every epoch and growing by alpha_cubic
    /// throughout, the cubic target one delay_min ahead, and with
    /// `hystart` Linux's classic HyStart (see `cc/cubic_linux.rs`).
    Linux,
}

/// Which rules PRR follows (`prr_variant`), when `prr` is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrrVariant {
    /// RFC 6937's PRR-SSRB: RecoverFS is the FlightSize at the start of
    /// recovery, and every ACK may send one SMSS more than it delivered
    /// once pipe is at or below ssthresh (an ACK that delivers nothing
    /// included).
    #[default]
    Rfc6937,
    /// Linux's `tcp_cwnd_reduction`, the rules RFC 9937 kept: an ACK that
    /// delivers nothing leaves cwnd alone; at or below ssthresh an ACK
    /// sends what was delivered (PRR-CRB), one SMSS more only when it
    /// advances SND.UNA and marks nothing newly lost (PRR-SSRB on a "safe"
    /// ACK); RecoverFS is cwnd at the start of recovery.
    Linux,
}

/// Whose RACK (`rack_variant`), when `rack` is on: which segment's round
/// trip it keeps as `RACK.rtt`, and which DSACKs widen its reordering
/// window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RackVariant {
    /// RFC 8985 §6.2 step 2: the newly delivered segments are taken in
    /// the order they were sent, so `RACK.rtt` is the round trip of the
    /// most recently sent one.
    #[default]
    Rfc8985,
    /// Linux's `tcp_rack_advance`, called for each newly SACKed segment in
    /// sequence order (`tcp_sacktag_write_queue`) and then for each newly
    /// cumulatively acknowledged one (`tcp_clean_rtx_queue`): `RACK.rtt` is
    /// the round trip of the last of them, so an ACK that covers an old
    /// hole gives that hole's (longer) round trip even when it SACKs later
    /// data. A resent segment counts only once `min_RTT` is known and its
    /// round trip is not below it. A DSACK widens the reordering window
    /// only once reordering was seen (`tcp_dsack_seen`), where RFC 8985
    /// §6.2 step 4 widens it for any. After a timeout RACK goes on judging
    /// every segment, and a resent one found lost again starts fast
    /// recovery at once (Linux's Loss state on `FLAG_LOST_RETRANS`);
    /// `min_RTT` takes the handshake's round trip too.
    Linux,
}

/// Where RTT samples come from (`rtt_sampling`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RttSampling {
    /// RFC 6298 (3) with Karn's rule: one segment timed at a time, sampled
    /// when the cumulative ACK covers it (every ACK with timestamps).
    #[default]
    Timed,
    /// As Linux: every ACK that newly acknowledges (or SACKs) a segment
    /// never resent gives a sample, taken before the echoed timestamp; and
    /// an ACK that only SACKs data sent before the first unacknowledged
    /// segment's last transmission restarts the retransmission timer (see
    /// `rack.rs`).
    EveryAck,
}

/// Which F-RTO runs (`frto_variant`), when `frto` is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrtoVariant {
    /// RFC 5682 as written: the basic algorithm (§2) without SACK, the
    /// SACK-enhanced one (§3) with SACK.
    #[default]
    Rfc5682,
    /// Linux's (`tcp_process_loss`, with or without SACK): any ACK that
    /// acknowledges or SACKs data sent before the timeout and never resent
    /// shows it spurious at once, also before new data has gone out; F-RTO
    /// also runs on a timeout that repeats one, not on one that ends fast
    /// recovery.
    Linux,
}

/// Configuration of one endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Payload bytes per full segment (SMSS), whatever options the segment
    /// carries; also the MSS option value sent in the SYN.
    pub mss: u32,
    /// Initial window in segments (RFC 6928: 10).
    pub initial_window: u32,
    /// Offer SACK-permitted (RFC 2018).
    pub sack: bool,
    /// Offer RFC 7323 timestamps.
    pub timestamps: bool,
    /// Offer window scaling (RFC 7323).
    pub window_scale: bool,
    /// Limited Transmit (RFC 3042).
    pub limited_transmit: bool,
    /// Loss recovery algorithm.
    pub recovery: Recovery,
    /// ACK every Nth full segment (1 = every segment, no delay).
    pub delayed_ack_segments: u32,
    /// Longest an ACK is delayed (RFC 9293 MUST-40: below 500 ms).
    pub delayed_ack_timeout: Dur,
    /// RTO before any RTT sample (RFC 6298 (2.1)).
    pub initial_rto: Dur,
    /// Lower bound of the RTO (RFC 6298 (2.4)).
    pub min_rto: Dur,
    /// Upper bound of the RTO (RFC 6298 (2.5)).
    pub max_rto: Dur,
    /// Congestion control.
    pub cc: CcAlgorithm,
    /// HyStart++ (RFC 9406) in CUBIC's first slow start.
    pub hystart: bool,
    /// Most SMSS one ACK adds to cwnd in slow start (RFC 3465's L): 1 is
    /// RFC 5681's min(N, SMSS); 0 adds all N up to ssthresh, as Linux.
    pub abc_limit: u32,
    /// Where `min_rto` applies.
    pub min_rto_mode: MinRtoMode,
    /// How SRTT and the RTO's variance term are kept.
    pub rtt_estimator: RttEstimatorKind,
    /// What a loss (fast retransmit or timeout) halves into ssthresh.
    pub ssthresh_from: SsthreshFrom,
    /// F-RTO (RFC 5682): after a timeout, tell a spurious one from a real
    /// one by sending new data, and undo the window reduction if it was
    /// spurious (see `recovery.rs`).
    pub frto: bool,
    /// Which F-RTO, when `frto` is on.
    pub frto_variant: FrtoVariant,
    /// RACK loss detection (RFC 8985 §6), with SACK recovery (see `rack.rs`).
    pub rack: bool,
    /// Whose RACK, when `rack` is on (its round trip and its DSACK rule).
    pub rack_variant: RackVariant,
    /// Tail Loss Probe (RFC 8985 §7), with SACK (see `rack.rs`).
    pub tlp: bool,
    /// Where RTT samples come from.
    pub rtt_sampling: RttSampling,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) sets cwnd during
    /// SACK recovery (see `recovery.rs`).
    pub prr: bool,
    /// Which rules PRR follows.
    pub prr_variant: PrrVariant,
    /// Whose CUBIC congestion avoidance, with `cc = cubic`.
    pub cubic_variant: CubicVariant,
    /// The receiver reports duplicate segments in a first SACK block (DSACK,
    /// RFC 2883), with SACK; RACK widens its reordering window on them.
    pub dsack: bool,
    /// Undo a SACK recovery whose every retransmission came back as a
    /// DSACK (Linux's `tcp_try_undo_dsack` and `tcp_try_undo_recovery`;
    /// RFC 3708's detection): cwnd and ssthresh go back to what they were,
    /// also when the last DSACK arrives after the recovery ended (until
    /// the next recovery or timeout), as in Linux; and a timeout whose
    /// every retransmission came back as a DSACK (`tcp_try_undo_loss`).
    pub dsack_undo: bool,
    /// Eifel detection (RFC 3522) with timestamps: an ACK after a timeout
    /// that echoes a timestamp older than the retransmission's shows the
    /// timeout spurious, and it is undone as F-RTO undoes one.
    pub eifel: bool,
    /// Linux's quick-ACK mode at the receiver: after the first data, a
    /// segment wholly duplicate or beyond the window, or a gap in the data
    /// longer than the RTO, ACK each of the next this many segments at
    /// once (at most the window over two MSS, at least two) instead of
    /// every `delayed_ack_segments`; 0 = off (RFC 9293's delayed ACKs
    /// alone). Linux: 16 (`TCP_MAX_QUICKACKS`).
    pub quickacks: u32,
    /// The receiver ACKs at once an in-order segment that ends an
    /// application write (PSH) or is shorter than the largest it has
    /// seen, the application reading all it holds (Linux's
    /// `ICSK_ACK_PUSHED`, sent from `tcp_cleanup_rbuf`; for a full-sized
    /// segment with PSH since 2023), where RFC 9293's delayed ACK waits
    /// for a second full segment or the timer.
    pub ack_pushed: bool,
    /// The delayed-ACK timer follows the data's arrivals as Linux's does
    /// (`icsk_ack.ato`): 40 ms after the first data or quick-ACK mode,
    /// halved towards 20 ms plus the gap between in-order segments,
    /// doubled (up to the RTO) each time the timer fires, and bounded by
    /// the SRTT (at least 40 ms) and by `delayed_ack_timeout`. Off: the
    /// timer is `delayed_ack_timeout` (RFC 9293).
    pub delayed_ack_ato: bool,
    /// The application may keep at most 2·max(cwnd, 10 segments) written
    /// and not acknowledged (never more than `snd_buffer`), as Linux sizes
    /// a send buffer the application leaves alone (`tcp_sndbuf_expand`;
    /// payload here where Linux counts memory). The buffer only grows. A
    /// write that would fill it is taken only once two segments are free
    /// (Linux's write queue holds buffers of at least two segments).
    pub snd_buffer_auto: bool,
    /// The receiver ACKs at once each segment that grows its window
    /// threshold, as Linux's does while it autotunes its receive buffer
    /// (`tcp_grow_window` sets a quick ACK; `tcp_rcv_space_adjust` grows
    /// the buffer once a receiver round trip from the data read in it):
    /// in practice every segment through slow start and until the
    /// threshold reaches the buffer's window. The window advertised is
    /// not changed.
    pub ack_window_growth: bool,
    /// The first this many timeouts of a SYN leave the RTO as it is
    /// (Linux's `net.ipv4.tcp_syn_linear_timeouts`, 4 by default since
    /// Linux 6.5: SYNs at 1, 2, 3, 4 and 5 s, then 7, 11, 19 s); later ones
    /// double it. 0 = RFC 6298 (5.5), every timeout doubles.
    pub syn_linear_timeouts: u32,
    /// Receive buffer in bytes; the advertised window never exceeds it.
    pub rcv_buffer: u64,
    /// Send buffer in bytes; `write` accepts no more than its free space.
    pub snd_buffer: u64,
    /// Reference behaviour.
    pub profile: Profile,
    /// Emit [`super::Event::SegmentSent`] / [`super::Event::SegmentReceived`].
    pub trace_segments: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            mss: 1448,
            initial_window: 10,
            sack: true,
            timestamps: false,
            window_scale: true,
            limited_transmit: true,
            recovery: Recovery::Sack,
            delayed_ack_segments: 2,
            delayed_ack_timeout: Dur::from_millis(200),
            initial_rto: Dur::from_secs(1),
            min_rto: Dur::from_secs(1),
            max_rto: Dur::from_secs(60),
            cc: CcAlgorithm::NewReno,
            hystart: false,
            abc_limit: 1,
            min_rto_mode: MinRtoMode::Rfc6298,
            rtt_estimator: RttEstimatorKind::Rfc6298,
            ssthresh_from: SsthreshFrom::FlightSize,
            frto: false,
            frto_variant: FrtoVariant::Rfc5682,
            rack: false,
            rack_variant: RackVariant::Rfc8985,
            tlp: false,
            rtt_sampling: RttSampling::Timed,
            prr: false,
            prr_variant: PrrVariant::Rfc6937,
            cubic_variant: CubicVariant::Rfc9438,
            eifel: false,
            dsack: false,
            dsack_undo: false,
            quickacks: 0,
            ack_pushed: false,
            delayed_ack_ato: false,
            snd_buffer_auto: false,
            ack_window_growth: false,
            syn_linear_timeouts: 0,
            rcv_buffer: 4 << 20,
            snd_buffer: 4 << 20,
            profile: Profile::Rfc,
            trace_segments: false,
        }
    }
}
