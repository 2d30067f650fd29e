//! `[tcp]` (and `[flow.tcp]` overrides): [`TcpSpec`], its defaults, the
//! endpoint's types it names, and the endpoint configuration it gives.

use crate::time::Dur;

/// Congestion controls the `cc` key accepts: the simulator models those in
/// [`crate::tcp::CcAlgorithm::ALL`] (`newreno`, `cubic`: RFC 9438,
/// `westwood`: Westwood+, `vegas`, `bbr`: BBR v1 with pacing); the
/// emulator (`xltcp emu`) runs Linux's module of the same name, `reno` for
/// `newreno`. A name the endpoint does not model would run only in the
/// emulator ([`crate::sim::check`]).
pub const KNOWN_CC: &[&str] = &["newreno", "cubic", "westwood", "vegas", "bbr"];

/// Which reference behaviour TCP follows where implementations differ
/// (`profile`): the endpoint's own [`crate::tcp::Profile`].
pub use crate::tcp::Profile as TcpProfile;

/// Loss recovery in use (`recovery`): the endpoint's own
/// [`crate::tcp::Recovery`] (SACK recovery falls back to NewReno when the
/// peer does not permit SACK).
pub use crate::tcp::Recovery as RecoverySpec;

/// Where the minimum RTO applies (`min_rto_mode`): the endpoint's own
/// [`crate::tcp::MinRtoMode`].
pub use crate::tcp::MinRtoMode;

/// Where RTT samples come from (`rtt_sampling`): the endpoint's own
/// [`crate::tcp::RttSampling`].
pub use crate::tcp::RttSampling;

/// What a loss halves into ssthresh (`ssthresh_from`): the endpoint's own
/// [`crate::tcp::SsthreshFrom`].
pub use crate::tcp::SsthreshFrom;

/// How SRTT and the RTO's variance term are kept (`rtt_estimator`): the
/// endpoint's own [`crate::tcp::RttEstimatorKind`].
pub use crate::tcp::RttEstimatorKind;

/// Which F-RTO runs (`frto_variant`): the endpoint's own
/// [`crate::tcp::FrtoVariant`].
pub use crate::tcp::FrtoVariant;

/// Whose RACK (`rack_variant`: its round trip and its DSACK rule): the endpoint's own
/// [`crate::tcp::RackVariant`].
pub use crate::tcp::RackVariant;

/// Whose CUBIC congestion avoidance (`cubic_variant`): the endpoint's own
/// [`crate::tcp::CubicVariant`].
pub use crate::tcp::CubicVariant;

/// Which rules PRR follows (`prr_variant`): the endpoint's own
/// [`crate::tcp::PrrVariant`].
pub use crate::tcp::PrrVariant;

/// `[tcp]` (and `[flow.tcp]` overrides).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSpec {
    /// `profile`: "rfc" (default) or "ns3".
    pub profile: TcpProfile,
    /// `cc`: congestion control; "newreno" (default, RFC 5681), "cubic"
    /// (RFC 9438), "westwood" (Westwood+) or "vegas". The loader accepts
    /// the names in [`KNOWN_CC`].
    pub cc: String,
    /// `hystart`: HyStart++ (RFC 9406) in CUBIC's first slow start
    /// (default false; Linux runs its own HyStart by default).
    pub hystart: bool,
    /// `recovery`: "newreno" or "sack" (default "sack").
    pub recovery: RecoverySpec,
    /// `sack`: offer SACK-permitted (default true).
    pub sack: bool,
    /// `timestamps`: offer timestamps, RFC 7323 (default false).
    pub timestamps: bool,
    /// `window_scale`: offer window scaling (default true).
    pub window_scale: bool,
    /// `mss`: bytes of payload per segment (default "1448B"); 64..=65495.
    pub mss: u32,
    /// `initial_window`: segments (default 10, RFC 6928); 1..=100.
    pub initial_window: u32,
    /// `abc_limit`: most SMSS one ACK adds to cwnd in slow start, RFC
    /// 3465's L: 1 (default, RFC 5681's min(N, SMSS)), 2 (RFC 3465), ...,
    /// or 0: all it acknowledges, up to ssthresh, as Linux; 0..=64.
    pub abc_limit: u32,
    /// `limited_transmit`: RFC 3042 (default true).
    pub limited_transmit: bool,
    /// `delayed_ack`: ACK at least every this many full segments (default 2;
    /// 1..=64); 1 disables delay.
    pub delayed_ack_segments: u32,
    /// `delayed_ack_timeout`: default "200ms"; > 0 and < 500 ms (RFC 1122).
    pub delayed_ack_timeout: Dur,
    /// `initial_rto`: default "1s"; > 0.
    pub initial_rto: Dur,
    /// `min_rto`: default "1s" (RFC 6298 2.4); > 0.
    pub min_rto: Dur,
    /// `max_rto`: default "60s"; >= min_rto.
    pub max_rto: Dur,
    /// `min_rto_mode`: "rfc6298" (default: RTO = max(SRTT + 4·RTTVAR,
    /// min_rto)) or "linux" (RTO = SRTT + max(4·RTTVAR, min_rto), as
    /// Linux computes it).
    pub min_rto_mode: MinRtoMode,
    /// `rtt_estimator`: "rfc6298" (default) or "linux" (Linux's estimator:
    /// the variance term held at its largest for a round trip, at least
    /// min_rto, RTO = SRTT + that term).
    pub rtt_estimator: RttEstimatorKind,
    /// `ssthresh_from`: "flight_size" (default: RFC 5681's max(FlightSize/2,
    /// 2·SMSS)) or "cwnd" (max(cwnd/2, 2·SMSS), as Linux's Reno).
    pub ssthresh_from: SsthreshFrom,
    /// `frto`: F-RTO (RFC 5682) after a timeout (default false; Linux runs
    /// it by default, `net.ipv4.tcp_frto`).
    pub frto: bool,
    /// `frto_variant`: "rfc5682" (default: RFC 5682's basic algorithm
    /// without SACK, its SACK-enhanced one with SACK) or "linux" (Linux's
    /// F-RTO, with or without SACK).
    pub frto_variant: FrtoVariant,
    /// `rack`: RACK loss detection, RFC 8985 §6, with SACK recovery
    /// (default false; Linux runs it by default, `net.ipv4.tcp_recovery`).
    pub rack: bool,
    /// `rack_variant`: "rfc8985" (default: `RACK.rtt` is the round trip of
    /// the most recently sent segment an ACK delivers) or "linux" (the
    /// last one Linux processes: the highest newly SACKed, then the
    /// highest newly cumulatively acknowledged, so an ACK covering an old
    /// hole gives that hole's round trip; a DSACK widens the reordering
    /// window only once reordering was seen; after a timeout a resent
    /// segment found lost again starts fast recovery at once).
    pub rack_variant: RackVariant,
    /// `tlp`: Tail Loss Probe, RFC 8985 §7, with SACK (default false;
    /// Linux runs it by default, `net.ipv4.tcp_early_retrans`).
    pub tlp: bool,
    /// `rtt_sampling`: "timed" (default: one segment timed at a time, RFC
    /// 6298 with Karn's rule) or "every_ack" (every ACK of data never
    /// resent, as Linux).
    pub rtt_sampling: RttSampling,
    /// `prr`: Proportional Rate Reduction, RFC 6937, in SACK recovery
    /// (default false: RFC 6675's cwnd = ssthresh; Linux always runs it).
    pub prr: bool,
    /// `prr_variant`: "rfc6937" (default: PRR-SSRB, RecoverFS = FlightSize)
    /// or "linux" (Linux's `tcp_cwnd_reduction`, the rules RFC 9937 kept:
    /// nothing on an ACK that delivered nothing, SSRB only on an ACK that
    /// advances SND.UNA without a new loss, RecoverFS = cwnd).
    pub prr_variant: PrrVariant,
    /// `cubic_variant`: "rfc9438" (default: RFC 9438 §4.2-4.5) or "linux"
    /// (Linux's `bictcp_update` and `tcp_cong_avoid_ai` in whole segments:
    /// the Reno estimate restarted with every epoch, alpha_cubic
    /// throughout, the target one delay_min ahead; with `hystart`, Linux's
    /// classic HyStart in place of HyStart++).
    pub cubic_variant: CubicVariant,
    /// `eifel`: Eifel detection of spurious timeouts by timestamps, RFC
    /// 3522, undone as F-RTO undoes them (default false; Linux does it
    /// whenever timestamps are on).
    pub eifel: bool,
    /// `dsack`: the receiver reports duplicate segments (DSACK, RFC 2883)
    /// with SACK, and RACK widens its reordering window on them (RFC 8985
    /// §6.2 step 4); default false (Linux sends them, `net.ipv4.tcp_dsack`).
    pub dsack: bool,
    /// `dsack_undo`: undo a SACK recovery, or a timeout, whose every
    /// retransmission came back as a DSACK, cwnd and ssthresh restored
    /// (default false; Linux does it whenever DSACKs arrive).
    pub dsack_undo: bool,
    /// `quickacks`: quick ACKs after the first data, a wholly duplicate
    /// segment or an idle gap (Linux's quick-ACK mode), 0..=64; default 0
    /// (off; Linux 16, always).
    pub quickacks: u32,
    /// `ack_pushed`: the receiver ACKs at once an in-order segment that
    /// ends an application write (PSH) or is shorter than the largest seen
    /// (Linux's `ICSK_ACK_PUSHED`); default false (RFC 9293's delayed ACK;
    /// Linux always).
    pub ack_pushed: bool,
    /// `delayed_ack_ato`: the delayed-ACK timer follows the arrivals as
    /// Linux's does (40 ms and up, at most the SRTT and
    /// `delayed_ack_timeout`); default false (RFC 9293's fixed
    /// `delayed_ack_timeout`; Linux always).
    pub delayed_ack_ato: bool,
    /// `snd_buffer_auto`: the application keeps at most 2·max(cwnd, 10
    /// segments) unacknowledged, within `snd_buffer`, as Linux sizes a
    /// send buffer left alone, and fills it two segments at a time;
    /// default false (the whole `snd_buffer`, any amount at a time).
    pub snd_buffer_auto: bool,
    /// `ack_window_growth`: the receiver ACKs at once each segment that
    /// grows its window threshold while Linux's receive-buffer
    /// autotuning would (`tcp_grow_window`); default false (RFC 9293's
    /// delayed ACK throughout).
    pub ack_window_growth: bool,
    /// `syn_linear_timeouts`: the first this many timeouts of a connecting
    /// SYN keep the RTO (Linux's `net.ipv4.tcp_syn_linear_timeouts`, which
    /// the emulator sets from it), 0..=127; default 0 (RFC 6298: each
    /// doubles it; Linux's default is 4).
    pub syn_linear_timeouts: u32,
    /// `rcv_buffer`: receive buffer bytes (default "4MiB"); mss..=1GiB (RFC 7323 window limit).
    pub rcv_buffer: u64,
    /// `snd_buffer`: send buffer bytes (default "4MiB"); >= mss.
    pub snd_buffer: u64,
}

impl Default for TcpSpec {
    /// The endpoint's defaults ([`crate::tcp::Config::default`]) with
    /// NewReno congestion control.
    fn default() -> Self {
        let c = crate::tcp::Config::default();
        TcpSpec {
            profile: c.profile,
            cc: "newreno".to_string(),
            hystart: c.hystart,
            recovery: c.recovery,
            sack: c.sack,
            timestamps: c.timestamps,
            window_scale: c.window_scale,
            mss: c.mss,
            initial_window: c.initial_window,
            abc_limit: c.abc_limit,
            limited_transmit: c.limited_transmit,
            delayed_ack_segments: c.delayed_ack_segments,
            delayed_ack_timeout: c.delayed_ack_timeout,
            initial_rto: c.initial_rto,
            min_rto: c.min_rto,
            max_rto: c.max_rto,
            min_rto_mode: c.min_rto_mode,
            rtt_estimator: c.rtt_estimator,
            ssthresh_from: c.ssthresh_from,
            frto: c.frto,
            frto_variant: c.frto_variant,
            rack: c.rack,
            rack_variant: c.rack_variant,
            tlp: c.tlp,
            rtt_sampling: c.rtt_sampling,
            prr: c.prr,
            prr_variant: c.prr_variant,
            cubic_variant: c.cubic_variant,
            eifel: c.eifel,
            dsack: c.dsack,
            dsack_undo: c.dsack_undo,
            quickacks: c.quickacks,
            ack_pushed: c.ack_pushed,
            delayed_ack_ato: c.delayed_ack_ato,
            snd_buffer_auto: c.snd_buffer_auto,
            ack_window_growth: c.ack_window_growth,
            syn_linear_timeouts: c.syn_linear_timeouts,
            rcv_buffer: c.rcv_buffer,
            snd_buffer: c.snd_buffer,
        }
    }
}

impl From<&TcpSpec> for crate::tcp::Config {
    /// The endpoint configuration a scenario's `[tcp]` describes.
    fn from(spec: &TcpSpec) -> crate::tcp::Config {
        crate::tcp::Config {
            mss: spec.mss,
            initial_window: spec.initial_window,
            // A name only the emulator runs is refused by `sim::check`.
            cc: crate::tcp::CcAlgorithm::from_name(&spec.cc).unwrap_or_default(),
            hystart: spec.hystart,
            abc_limit: spec.abc_limit,
            sack: spec.sack,
            timestamps: spec.timestamps,
            window_scale: spec.window_scale,
            limited_transmit: spec.limited_transmit,
            recovery: spec.recovery,
            delayed_ack_segments: spec.delayed_ack_segments,
            delayed_ack_timeout: spec.delayed_ack_timeout,
            initial_rto: spec.initial_rto,
            min_rto: spec.min_rto,
            max_rto: spec.max_rto,
            min_rto_mode: spec.min_rto_mode,
            rtt_estimator: spec.rtt_estimator,
            ssthresh_from: spec.ssthresh_from,
            frto: spec.frto,
            frto_variant: spec.frto_variant,
            rack: spec.rack,
            rack_variant: spec.rack_variant,
            tlp: spec.tlp,
            rtt_sampling: spec.rtt_sampling,
            prr: spec.prr,
            prr_variant: spec.prr_variant,
            cubic_variant: spec.cubic_variant,
            eifel: spec.eifel,
            dsack: spec.dsack,
            dsack_undo: spec.dsack_undo,
            quickacks: spec.quickacks,
            ack_pushed: spec.ack_pushed,
            delayed_ack_ato: spec.delayed_ack_ato,
            snd_buffer_auto: spec.snd_buffer_auto,
            ack_window_growth: spec.ack_window_growth,
            syn_linear_timeouts: spec.syn_linear_timeouts,
            rcv_buffer: spec.rcv_buffer,
            snd_buffer: spec.snd_buffer,
            profile: spec.profile,
            trace_segments: false,
        }
    }
}
