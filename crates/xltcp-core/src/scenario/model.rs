//! The validated scenario: plain values in SI base units (bits per second,
//! bytes, [`Dur`]). The loader ([`super::load_file`]) builds it from TOML and
//! checks every rule documented here; engines consume it and may assume it
//! is valid.
//!
//! Value syntax: durations, rates and periods are strings with a unit
//! ("20ms", "10Mbps", "exp(4s)"); sizes are strings with a unit ("4MiB") or
//! a plain integer of bytes; probabilities are numbers (0.01) or percentages
//! ("1%"). See [`super::units`].

pub use crate::radio::snr::{Fading, SnrSpec};
use crate::time::Dur;

/// A whole scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// `name`: a label for reports (default: the file stem).
    pub name: String,
    /// `[sim]` table.
    pub sim: SimSpec,
    /// `[tcp]` table: defaults for every flow.
    pub tcp: TcpSpec,
    /// `[wired]` table: the access link of every wired host (CH) to the BS.
    pub wired: LinkSpec,
    /// `[wireless]` table: the hop between the BS and the wireless hosts
    /// (with `[[wireless]]` entries: the first of them).
    pub wireless: WirelessSpec,
    /// The further `[[wireless]]` entries: more hops, each on its own
    /// channel. Every wireless host has one interface on each hop (one IP
    /// address above them); packets take the first hop unless an agent
    /// picks another (`PacketMeta::iface`). Empty for one hop.
    pub more_hops: Vec<WirelessSpec>,
    /// `[[flow]]` entries, expanded (`count = n` gives n flows).
    pub flows: Vec<FlowSpec>,
    /// `[output]` table.
    pub output: OutputSpec,
    /// `[schemes]` table: the cross-layer schemes switched on.
    pub schemes: SchemesSpec,
    /// `[pu_detection]` table: primary-user detection at each station's PHY
    /// (used by the `lrwpan` hop).
    pub pu_detection: PuDetectionSpec,
    /// `[[agent]]` entries: schemes placed on nodes, after those `[schemes]`
    /// switches on, in the order they see packets on a node.
    pub agents: Vec<AgentSpec>,
    /// `[hosts]` table: every host's stack latency.
    pub hosts: HostsSpec,
}

/// `[hosts]`: the time a host's stack takes to put on its interface what
/// its TCP sends (real hosts answer an arriving segment tens of
/// microseconds later; the simulator's, by default, at once). Each
/// segment an endpoint sends leaves its host `stack_delay` plus a uniform
/// draw in [0, `stack_jitter`] later (stream `hosts.<flow>.<ch|sh>.stack`),
/// never before the endpoint's previous segment; the host's agents see it
/// as it leaves. Both default to "0s": the segment leaves at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostsSpec {
    /// `stack_delay`: the constant part, at most "1s".
    pub stack_delay: Dur,
    /// `stack_jitter`: the spread above it, at most "1s".
    pub stack_jitter: Dur,
}

/// One `[[agent]]`: `scheme`, `at`, and the scheme's own keys.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    /// `scheme` (required) and its keys.
    pub scheme: AgentScheme,
    /// `at`: "bs", "hosts" (default: every wireless host) or one host's name.
    pub at: AgentPlace,
}

/// Where an `[[agent]]` sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentPlace {
    /// `"bs"`: the base station.
    Bs,
    /// `"hosts"`: every wireless host.
    Hosts,
    /// A wireless host by name (a flow's `host`, or the flow's name).
    Host(String),
}

/// The scheme of an `[[agent]]`. Paper 000's (`cr_aware`, `lr_bs`,
/// `lr_sender`) need `[wireless] kind = "lrwpan"`, DSASync `kind = "wifi"`;
/// paper 002's say what they need below.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentScheme {
    /// `"cr_aware"` (at hosts): CR-aware TCP; `max_freeze` (default "30s"),
    /// `probe_interval` ("1s"), `access_failures` (2; 1..=100), as the
    /// `cr_*` keys of `[schemes]`.
    CrAware {
        /// Watchdog of a freeze with no `pu_stop`.
        max_freeze: Dur,
        /// Probe period after channel-access failures.
        probe_interval: Dur,
        /// Consecutive access failures that count as a missed `pu_start`.
        access_failures: u32,
    },
    /// `"lr_bs"` (at "bs"): local recovery's gap monitor and reports for
    /// every uplink flow.
    LrBs,
    /// `"lr_sender"` (at hosts): local recovery at each uplink flow's
    /// sender; `mode` "phy" or "tcp" (default), `buffer` (64; 1..=4096).
    LrSender {
        /// PHY-LR or TCP-LR.
        mode: LocalRecoverySpec,
        /// PHY-LR's link buffer, in packets.
        buffer: u32,
    },
    /// `"dsasync"` (at "bs"): DSASync (paper 001); keys `buffer`, `b_low`,
    /// `b_high`, `alpha_min`, `window`, `efficiency`, `smoothing` ("cell",
    /// "node", "off"), `tx_window`, `rate_over` ("active", "window"),
    /// `max_wait` ("none", "mean_tfp") (see `schemes::dsasync`).
    DsaSync(crate::schemes::dsasync::DsaSyncConfig),
    /// `"snoop"` (at "bs"): Snoop's cache and local retransmission of
    /// downlink data (any hop).
    Snoop,
    /// `"c_snoop"` (at "bs" for downlink data, at hosts for the uplink
    /// data they send): C-Snoop's cache, driven by the MAC's delivery
    /// reports (`[wireless] kind = "wifi"` or `"lrwpan"`).
    CSnoop,
    /// `"snack"` (SNACK-S at "bs", SNACK-TCP at hosts; a reconstruction,
    /// see `schemes::snack`): several holes repaired per report; needs
    /// `[tcp] sack = true` (the MH's SACK blocks are its downlink report).
    Snack,
    /// `"ucl"` (at "bs" and at hosts: one entry each): the Universal
    /// Convergence Layer's interface choice (paper 003); needs several
    /// `[[wireless]]` hops. Keys `rule` ("threshold", "hysteresis",
    /// "goodput"), `threshold`, `hysteresis_db`, `gain`, `margin_db`, `dwell`, `reorder`
    /// ("barrier", "none"), `max_hold`, `resend` (see `schemes::ucl`).
    /// `security` ("off", "on"; on both entries or neither, and then one
    /// hop will do) and with it `keys` ("seed", "files" with `identity`
    /// and `trusted`), `replay_window`, `rekey_frames` (0: never by
    /// count), `rekey_bytes`, `rekey_grace`, `handshake_timeout`,
    /// `handshake_backoff_max`, `handshake_tries`, `max_held`,
    /// `seeded_keys`, and what the entry's own node's frames suffer on the
    /// air: `tamper_every`, `adversary`, `adversary_every` (see
    /// `schemes::ucl::secure`).
    Ucl(crate::schemes::ucl::UclConfig),
    /// `"clamp"` (at hosts; its AP half goes to the BS with it): CLAMP,
    /// a reconstruction (see `schemes::clamp`); keys `target_delay`,
    /// `tau`, `rate_time`, `min_window`, `initial_window`.
    Clamp(crate::schemes::clamp::ClampConfig),
    /// `"l2clamp"` (at hosts; its BS half goes to the BS with it):
    /// L2-CLAMP (paper 004; see `schemes::clamp::l2`); CLAMP's keys.
    L2Clamp(crate::schemes::clamp::ClampConfig),
}

/// Congestion controls the `cc` key accepts: the simulator models those in
/// [`crate::tcp::CcAlgorithm::ALL`] (`newreno`, `cubic`: RFC 9438,
/// `westwood`: Westwood+, `vegas`); the
/// emulator (`xltcp emu`) runs Linux's module of the same name, `reno` for
/// `newreno`. A name the endpoint does not model (`bbr`) runs only in the
/// emulator.
pub const KNOWN_CC: &[&str] = &["newreno", "cubic", "westwood", "vegas", "bbr"];

/// `[sim]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    /// `duration`: simulated time (default "60s"); > 0.
    pub duration: Dur,
    /// `seed`: default seed when the command line gives none (default 1); an integer >= 0.
    pub seed: u64,
    /// `sample_interval`: time-series sampling period (default "100ms"); > 0.
    pub sample_interval: Dur,
}

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

/// Queue limit of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// `queue = "100p"`: at most this many packets.
    Packets(u32),
    /// `queue = "256KiB"`: at most this many bytes.
    Bytes(u64),
}

/// A wired point-to-point link (same parameters both ways). In `[wired]` and
/// `[wireless]`, `rate` and `delay` are required; `queue` defaults to "100p".
/// A byte limit must hold a full-size segment (`[tcp]` mss + 80 B of headers).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// `rate`: bits per second, e.g. "100Mbps"; > 0.
    pub rate_bps: u64,
    /// `delay`: one-way propagation delay, e.g. "10ms".
    pub delay: Dur,
    /// `queue`: drop-tail limit, "100p" (packets) or "256KiB" (bytes); > 0.
    pub queue: QueueLimit,
    /// `jitter` (`[wired]` only): each packet's delay is `delay` plus a
    /// uniform draw in [0, jitter] from the stream `wired.<link>.jitter`,
    /// never overtaking the packet before it: the spread of real hosts'
    /// and switches' processing times. Default "0s": none.
    pub jitter: Dur,
}

/// A frame-loss process.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// `model = "none"` (the default when the table is absent; a present
    /// table must name its `model`).
    None,
    /// `model = "iid"`, `p`: each frame lost with probability p in [0, 1).
    Iid {
        /// Loss probability.
        p: f64,
    },
    /// `model = "gilbert"`, `mean_loss` in [0, 1), `mean_burst` >= 1 (frames);
    /// simple Gilbert (SPECS §8): loss in Bad only. Requires
    /// mean_loss <= mean_burst / (1 + mean_burst).
    Gilbert {
        /// Average loss P_L.
        mean_loss: f64,
        /// Mean burst length L_b, in frames.
        mean_burst: f64,
        /// `steps`: which frames advance the chain.
        steps: LossSteps,
    },
}

/// Which frames advance a Gilbert chain (`[wireless.loss.<dir>] steps`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LossSteps {
    /// `"own"` (default): one step per frame of this direction.
    #[default]
    Own,
    /// `"both"` (point-to-point hop only): also one step, without a loss
    /// decision, per frame the other direction of the hop puts on the air,
    /// as a per-packet error model shared by both devices of a link does in
    /// ns-3 (the other direction's frames keep their own loss process). The
    /// chain's mean loss and burst then hold per frame of the hop, not per
    /// frame of this direction.
    Both,
}

/// How long each ON or OFF period lasts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period {
    /// `"exp(4s)"`: exponential with this mean.
    Exp(Dur),
    /// `"4s"`: always this long.
    Fixed(Dur),
}

/// Availability of the wireless hop (primary users, blackouts).
#[derive(Clone, Debug, PartialEq)]
pub enum AvailabilitySpec {
    /// `model = "always"` (default).
    Always,
    /// `model = "onoff"`, `on` / `off` periods (ON = available), `start` =
    /// "on" (default) or "off".
    OnOff {
        /// Available periods.
        on: Period,
        /// Blocked periods.
        off: Period,
        /// The hop starts blocked.
        start_blocked: bool,
    },
    /// `model = "file"`, `file`: blocked intervals, one "start end" pair of
    /// seconds per line, sorted and disjoint (path relative to the scenario).
    /// Each number is seconds ("1.5") or a duration ("1500ms"); `#` starts a
    /// comment; blank lines are skipped; start < end; touching is allowed.
    Intervals(Vec<(Dur, Dur)>),
}

/// What the point-to-point hop does while the channel is blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockedMode {
    /// `"defer"` (default): the transmitters sense the primary user and
    /// hold their queues; only the frame on the air when the blockage
    /// begins is lost. A secondary user that senses perfectly — the
    /// behaviour a cognitive radio is built to have, and the one the
    /// shipped results were made with.
    Defer,
    /// `"lose"`: the transmitters do not sense the primary user and keep
    /// sending; every frame whose airtime overlaps a blockage is destroyed
    /// (counted as `blocked`), both directions — an error model on the
    /// wireless device, as an ns-3 setup of the same scenario has.
    Lose,
}

/// `[wireless]`, or one `[[wireless]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct WirelessSpec {
    /// `name`: the hop's label in link names and the summary (default
    /// "air" for the first hop, `"air<k>"` for entry k of `[[wireless]]`).
    pub name: String,
    /// Rate, delay and queue of each direction.
    pub link: LinkSpec,
    /// `[wireless.loss.down]` (BS -> SH frames).
    pub loss_down: LossSpec,
    /// `[wireless.loss.up]` (SH -> BS frames).
    pub loss_up: LossSpec,
    /// `[wireless.availability]`: blocks both directions while unavailable.
    pub availability: AvailabilitySpec,
    /// `[wireless.availability] blocked`: what a blockage does to the
    /// point-to-point hop (default "defer").
    pub blocked: BlockedMode,
    /// `frame_overhead`: link-layer bytes added to each IP packet (default "0B"); <= 65535.
    pub frame_overhead: u32,
    /// `kind`: "p2p" (default: a queue, rate and delay per direction) or
    /// "lrwpan" (an IEEE 802.15.4 shared medium, see [`LrwpanSpec`]).
    pub kind: HopKind,
}

/// How the wireless hop is modelled. (One per scenario: the size of the
/// largest kind costs nothing.)
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum HopKind {
    /// `kind = "p2p"`: two point-to-point link directions gated by the
    /// availability process.
    P2p,
    /// `kind = "lrwpan"`: one 802.15.4 MAC per station on a shared medium.
    Lrwpan(LrwpanSpec),
    /// `kind = "wifi"`: one 802.11a/b DCF per station on a shared channel.
    Wifi(WifiSpec),
}

/// How a TCP segment fills an 802.15.4 frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutPreset {
    /// `layout = "tcp_ipv4"` (default): 9 B MAC header, 2 B FCS, real
    /// IPv4 + TCP headers (options included); at most 76 B of payload.
    TcpIpv4,
    /// `layout = "paper"`: paper 000's compact frame: 19 B MAC header, 2 B
    /// FCS, a 12-byte TCP header (plus options), no IP header; at most 94 B
    /// of payload.
    Paper,
}

/// `[wireless]` keys of `kind = "lrwpan"`. `rate` defaults to (and must
/// be) "250kbps"; `delay` defaults to "0s" and is not used (the medium is
/// one collision domain without propagation delay); `queue` (packets only)
/// is each MAC's transmit queue. `[wireless.loss.*]` is the loss of each
/// data frame and each MAC ACK travelling that way.
#[derive(Clone, Debug, PartialEq)]
pub struct LrwpanSpec {
    /// `layout`: "tcp_ipv4" (default) or "paper".
    pub layout: LayoutPreset,
    /// `snr_db`: if set, every frame is lost with the O-QPSK packet error
    /// rate at this SNR (802.15.4 Annex E) instead of `[wireless.loss]`.
    pub snr_db: Option<f64>,
    /// `max_frame_retries`: macMaxFrameRetries (default 3); 0..=7.
    pub max_frame_retries: u8,
    /// `max_csma_backoffs`: macMaxCSMABackoffs (default 4); 0..=5.
    pub max_csma_backoffs: u8,
    /// `min_be`: macMinBE (default 3); 0..=max_be.
    pub min_be: u8,
    /// `max_be`: macMaxBE (default 5); 3..=8.
    pub max_be: u8,
}

impl Default for LrwpanSpec {
    /// The standard's defaults with the `tcp_ipv4` layout.
    fn default() -> Self {
        LrwpanSpec {
            layout: LayoutPreset::TcpIpv4,
            snr_db: None,
            max_frame_retries: 3,
            max_csma_backoffs: 4,
            min_be: 3,
            max_be: 5,
        }
    }
}

/// `[wireless]` keys of `kind = "wifi"` (802.11a/b DCF, see
/// `hop::wifi`). `rate` is the data rate of `standard` (default its
/// fastest: "54Mbps" for 11a, "11Mbps" for 11b); `delay` defaults to "0s"
/// and is not used (one collision domain, no propagation delay); `queue`
/// (packets only) is each MAC's transmit queue. `[wireless.loss.*]` adds a
/// loss process per data frame travelling that way, on top of the bit
/// errors at each link's SNR.
///
/// A host's link to the AP has one SNR in both directions: `snr_db` (a
/// fixed value) or `[wireless.snr]` (a process, see [`crate::radio::snr`])
/// for every host, and `[[wireless.station]]` entries for single hosts:
///
/// ```toml
/// [wireless.snr]             # every host: a mean with shadowing and fading
/// mean_db = 18
/// shadowing_db = 4           # σ of log-normal shadowing (default 0)
/// shadowing_time = "2s"      # its correlation time (default: fixed per host)
/// fading = "rayleigh"        # "none" (default), "rayleigh" or "rician"
/// k_db = 6                   # Rician K factor (rician only)
/// coherence = "20ms"         # fading block length (default "10ms")
///
/// [[wireless.station]]
/// host = "far"               # a host named by [[flow]] host (or a flow)
/// snr = { trace = "far-snr.txt" }   # or snr_db = 9, or a process table
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WifiSpec {
    /// `standard`: "11a" or "11b" (required).
    pub standard: crate::radio::wifi::Standard,
    /// `rate`: the data rate (with `rate_control = "arf"`, the first one).
    pub rate: crate::radio::wifi::Rate,
    /// `rate_control`: "fixed" (default) or "arf".
    pub arf: bool,
    /// `preamble`: "long" (default) or "short" (11b only).
    pub preamble: crate::radio::wifi::Preamble,
    /// `rts_threshold`: data frames with a longer PSDU go after RTS/CTS
    /// (bytes; default off).
    pub rts_threshold: Option<u32>,
    /// `retry_short`: dot11ShortRetryLimit (default 7); 1..=255.
    pub retry_short: u8,
    /// `retry_long`: dot11LongRetryLimit (default 4); 1..=255.
    pub retry_long: u8,
    /// `error_model`: "nist" (default) or "yans" (OFDM; 11b has one model).
    pub error_model: crate::radio::wifi::ErrorModel,
    /// `snr_db` or `[wireless.snr]`: the SNR of every host's link
    /// (default 40 dB fixed: no bit errors).
    pub snr: SnrSpec,
    /// `[[wireless.station]]`: hosts with their own SNR, by host name.
    pub stations: Vec<StationSpec>,
    /// `[wireless.dsa]`: sensing quiet periods and channel switches.
    pub dsa: Option<DsaSpec>,
    /// `[wireless.energy]`: `tx_w`, `rx_w`, `idle_w`, `sleep_w` (defaults
    /// 0.6, 0.3, 0.26, 0.015 W).
    pub power: crate::radio::wifi::PowerProfile,
    /// `[wireless.energy] battery_j`: each station's battery (default none).
    pub battery_j: Option<f64>,
    /// `loss_per`: what the loss process of `[wireless.loss.*]` draws for:
    /// "frame" (default: every transmission of a data frame, so the MAC's
    /// retries repair it) or "packet" (one draw per data frame, kept by all
    /// its retries: a lost packet is lost however often the MAC tries, and
    /// ends `undelivered`; collisions and bit errors are still retried).
    pub loss_per_packet: bool,
    /// `[wireless.energy] on_empty`: "report" (default: the radio goes on,
    /// the summary says when the battery ran out) or "off" (the radio
    /// stops: it neither sends nor receives again).
    pub battery_off: bool,
    /// `[wireless.energy] model`: "time" (default: each state's power over
    /// the time in it), "per_packet" (every frame sent costs `tx_w` and
    /// every frame heard `rx_w` times its airtime, overlapping frames each
    /// in full) or "ns2" (per packet, each frame charged only from the end
    /// of the last one the radio was charged for, as ns-2.35's
    /// `WirelessPhy`, paper 002); see `radio::wifi::energy`.
    pub energy_accounting: crate::radio::wifi::Accounting,
    /// `snr_report`: every this long, each host's radio reports its link's
    /// SNR (an `snr` signal at the host, and one naming the host at the
    /// AP), as a driver reports the signal quality of the beacons it hears
    /// (default none).
    pub snr_report: Option<Dur>,
    /// `scheduler`: how the AP serves its downlink: "fifo" (default: one
    /// queue, as every station), "rr" or "pf" (one queue per receiver; see
    /// `hop::wifi::sched`).
    pub scheduler: ApScheduler,
}

/// The AP's downlink discipline (`[wireless] scheduler`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ApScheduler {
    /// `"fifo"`: the AP's MAC keeps one queue (the default).
    #[default]
    Fifo,
    /// `"rr"`: one queue per receiver, round robin.
    RoundRobin,
    /// `"pf"`: one queue per receiver, proportional fair with averaging
    /// time constant `pf_time_constant` (default 100 ms).
    ProportionalFair {
        /// `pf_time_constant`.
        time_constant: crate::time::Dur,
    },
}

/// `[wireless.dsa]`: the disruptions of a dynamic-spectrum-access cell
/// besides primary users (which are `[wireless.availability]`): sensing
/// quiet periods of the whole cell and of each host, and channel switches.
/// Each begins and ends a transmission freeze period (TFP) published as
/// `tfp_start` / `tfp_end` signals (see `hop::wifi::dsa`).
///
/// ```toml
/// [wireless.dsa]
/// node_sensing_every = "500ms"   # each host senses for 25 ms every 500 ms
/// node_sensing_for = "25ms"      # (5% of its time; phases drawn per host)
/// cell_sensing_every = "2s"      # the whole cell is quiet ...
/// cell_sensing_for = "10ms"
/// switch_at = ["5s"]             # channel switches at these times, or
/// switch_every = "exp(10s)"      # ... at these intervals
/// switch_delay = "100ms"         # the cell is frozen while it switches
/// channels = ["24Mbps", "12Mbps"] # each switch moves to the next one
/// tfp_queue = "flush"            # a retune clears the station's queue
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DsaSpec {
    /// `node_sensing_every` / `node_sensing_for`: each host's own sensing.
    pub node_sensing: Option<(Dur, Dur)>,
    /// `cell_sensing_every` / `cell_sensing_for`: the whole cell's.
    pub cell_sensing: Option<(Dur, Dur)>,
    /// `switch_at`: channel switches at these times.
    pub switch_at: Vec<Dur>,
    /// `switch_every`: channel switches at these intervals.
    pub switch_every: Option<Period>,
    /// `switch_delay`: how long a switch freezes the cell (default 100 ms).
    pub switch_delay: Dur,
    /// `channels`: the data rate of each channel, the first being the
    /// hop's `rate` (default: that rate alone).
    pub channels: Vec<crate::radio::wifi::Rate>,
    /// `tfp_queue`: what a TFP does to the frames waiting in the MACs.
    pub tfp_queue: TfpQueue,
}

/// `tfp_queue` of `[wireless.dsa]`: what a transmission freeze period does
/// to the frames waiting in the stations' MAC queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TfpQueue {
    /// `"hold"` (default): frames wait out the TFP; the AP holds its
    /// head-of-line frame while its receiver is in a TFP of its own.
    #[default]
    Hold,
    /// `"flush"`: a driver that retunes its radio clears its transmit
    /// queue (MadWifi's `ath_chan_set`, the paper-001 testbed's driver):
    /// every station's queue at the start of a channel switch or a
    /// cell-wide sensing period, a host's own at the start of its own
    /// sensing. The AP does not know a host's sensing schedule: it sends
    /// to a sensing host and gives the frames up at the retry limit. A
    /// primary user is heard (carrier sense), not retuned for: frames
    /// wait, as with "hold".
    Flush,
    /// `"drop"`: as `"flush"`, and a station in a TFP, a primary user's
    /// included, has its driver stopped: its queue is cleared as the TFP
    /// begins and every frame handed to it until the TFP ends is dropped
    /// (a driver that takes its interface down while the radio is off its
    /// channel or silenced).
    Drop,
}

/// One `[[wireless.station]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct StationSpec {
    /// `host`: the wireless host ([`FlowSpec::host_name`]).
    pub host: String,
    /// `snr_db` or `snr`: its link's SNR.
    pub snr: SnrSpec,
}

impl WifiSpec {
    /// The SNR of the link of the host named `host`.
    pub fn snr_of(&self, host: &str) -> &SnrSpec {
        self.stations
            .iter()
            .find(|s| s.host == host)
            .map_or(&self.snr, |s| &s.snr)
    }

    /// The defaults of `standard`: its fastest rate, fixed, long preamble,
    /// no RTS/CTS, retry limits 7/4, NIST, 40 dB, the default powers.
    pub fn new(standard: crate::radio::wifi::Standard) -> WifiSpec {
        let rates = standard.rates();
        WifiSpec {
            standard,
            rate: rates[rates.len() - 1],
            arf: false,
            preamble: crate::radio::wifi::Preamble::Long,
            rts_threshold: None,
            retry_short: 7,
            retry_long: 4,
            error_model: crate::radio::wifi::ErrorModel::Nist,
            snr: SnrSpec::Fixed(40.0),
            stations: Vec::new(),
            dsa: None,
            power: crate::radio::wifi::PowerProfile::default(),
            battery_j: None,
            loss_per_packet: false,
            battery_off: false,
            energy_accounting: crate::radio::wifi::Accounting::Time,
            snr_report: None,
            scheduler: ApScheduler::Fifo,
        }
    }
}

/// Local recovery placement (paper 000).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalRecoverySpec {
    /// `local_recovery = "none"` (default).
    None,
    /// `"phy"`: the sender's link layer retransmits from its link buffer.
    Phy,
    /// `"tcp"`: the sender's TCP retransmits the reported segments.
    Tcp,
    /// `"bs_reports"`: the BS's gap monitor alone; its reports reach the
    /// sender's own TCP as SACK information (no agent at the sender).
    BsReports,
}

/// `[schemes]`. CR-aware TCP and PHY/TCP-LR need `[wireless] kind =
/// "lrwpan"`; CR-aware TCP runs at every wireless host, local recovery for
/// uplink flows (data from the wireless host, reported on by the BS).
/// `local_recovery = "bs_reports"` runs on either hop and needs SACK on the
/// uplink flows.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemesSpec {
    /// `cr_aware`: CR-aware TCP at each wireless host (default false).
    pub cr_aware: bool,
    /// `local_recovery`: "none" (default), "phy", "tcp" or "bs_reports".
    pub local_recovery: LocalRecoverySpec,
    /// `cr_max_freeze`: a freeze with no `pu_stop` ends after this long
    /// (default "30s"); > 0.
    pub cr_max_freeze: Dur,
    /// `cr_probe_interval`: after `cr_access_failures` MAC channel-access
    /// failures with no `pu_start` (a missed detection), TCP is frozen and
    /// probes the channel with its oldest segment this often (default
    /// "1s"); > 0.
    pub cr_probe_interval: Dur,
    /// `cr_access_failures`: consecutive MAC channel-access failures that
    /// count as a missed `pu_start` (default 2); 1..=100.
    pub cr_access_failures: u32,
    /// `lr_buffer`: segments kept in PHY-LR's link buffer (default 64); 1..=4096.
    pub lr_buffer: u32,
    /// `mac_hold`: each wireless host's 802.15.4 MAC is held from its
    /// detector's `pu_start` to `pu_stop`, its queue kept, no CSMA-CA
    /// meanwhile (paper 000's PHY stops while a primary user is on; default
    /// false: the MAC keeps contending and drops frames by channel-access
    /// failure). Independent of `cr_aware`.
    pub mac_hold: bool,
}

impl Default for SchemesSpec {
    /// Nothing switched on.
    fn default() -> Self {
        SchemesSpec {
            cr_aware: false,
            local_recovery: LocalRecoverySpec::None,
            cr_max_freeze: Dur::from_secs(30),
            cr_probe_interval: Dur::from_secs(1),
            cr_access_failures: 2,
            lr_buffer: 64,
            mac_hold: false,
        }
    }
}

/// `[pu_detection]`: the primary-user detector at each station.
#[derive(Clone, Debug, PartialEq)]
pub struct PuDetectionSpec {
    /// `t_idle`: silence before `pu_stop` (default "1s"); > 0.
    pub t_idle: Dur,
    /// `signalling_delay`: from a heard PU onset to `pu_start` (default "0s").
    pub signalling_delay: Dur,
    /// `missed_detection`: probability an ON period goes unheard (default 0); [0, 1].
    pub missed_detection: f64,
}

impl Default for PuDetectionSpec {
    /// The paper's setting: `t_idle` 1 s, instantaneous perfect detection.
    fn default() -> Self {
        PuDetectionSpec {
            t_idle: Dur::from_secs(1),
            signalling_delay: Dur::ZERO,
            missed_detection: 0.0,
        }
    }
}

/// Data direction of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// CH -> SH (`"down"`, the default).
    Down,
    /// SH -> CH (`"up"`).
    Up,
}

/// What the sending application does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppSpec {
    /// `app = "bulk"`: always has data.
    Bulk,
    /// `app = "file"`, `size`: sends this many bytes then closes (required,
    /// > 0; `size` on a bulk flow is an error).
    File {
        /// Bytes to transfer.
        bytes: u64,
    },
}

/// One `[[flow]]` (after `count` expansion).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// `name` (default "flow{i}", i = the `[[flow]]` entry's index from 0;
    /// with `count` > 1 a suffix ".{k}" is added, k from 0). Letters, digits,
    /// `_`, `-`, `.`; at most 64 characters; unique after expansion.
    /// `count`: how many identical flows this entry stands for (default 1,
    /// 1..=10000; at most 10000 flows in all). At least one flow is required.
    /// `stagger`: with `count`, copy k starts at `start + k * stagger`
    /// (default "0s": all at once); the last must start before the end.
    pub name: String,
    /// `direction`.
    pub direction: Direction,
    /// `app`.
    pub app: AppSpec,
    /// `start`: when the client opens the connection (default "0s"); before `sim.duration`.
    pub start: Dur,
    /// Effective TCP settings: `[tcp]` with `[flow.tcp]` overrides applied.
    pub tcp: TcpSpec,
    /// `host`: the name of the flow's wireless host (default: a host of its
    /// own). Flows naming the same host share it: one station on the hop,
    /// one address, its agents (several flows to one receiver, as paper
    /// 004 has). With `count`, every copy shares the host.
    pub host: Option<String>,
    /// Not a key: bytes a layer below IP adds to each of the flow's frames
    /// on the air, for the oracle bound ([`crate::schemes::ucl::security::FRAME_OVERHEAD`]
    /// when the UCL's security is on, else 0).
    pub link_overhead: u32,
}

impl FlowSpec {
    /// The name of the flow's wireless host: its `host`, else its own name.
    pub fn host_name(&self) -> &str {
        self.host.as_deref().unwrap_or(&self.name)
    }
}

/// The wireless hosts' names, in the order of their first flow (host `h`
/// is station `h + 1` on the hop).
pub fn host_names(flows: &[FlowSpec]) -> Vec<&str> {
    let mut seen = std::collections::BTreeSet::new();
    flows
        .iter()
        .map(FlowSpec::host_name)
        .filter(|&n| seen.insert(n))
        .collect()
}

/// `[output]`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    /// `pcap`: write the packet captures, pcapng files in `pcap/`
    /// (default false): `wired-<flow>.pcapng` per flow's access link,
    /// `wireless.pcapng` for the hop and, where the hop shows its link
    /// layer, `air.pcapng`.
    pub pcap: bool,
    /// `pcap_snaplen`: bytes of each IP datagram captured, <= 65535;
    /// default 0 = [`DEFAULT_SNAPLEN`] (the IPv4 and TCP headers with every
    /// option, and the start of the payload). Values below 80 are raised to
    /// 80 so that the headers stay whole; 65535 keeps every datagram whole.
    pub pcap_snaplen: u32,
    /// `pcap_point`: where on each link a packet is captured (default
    /// `"sender"`).
    pub pcap_point: CapturePoint,
    /// `timeseries`: write per-flow time series (default true).
    pub timeseries: bool,
    /// `max_bytes`: the most bytes a run's results folder may take; its
    /// traces (time series, pcaps, signal log) get what is left after a
    /// reserve for `summary.json` and the other files
    /// ([`crate::sim::reserved_bytes`]), and records past it are counted,
    /// not written (default [`DEFAULT_MAX_OUTPUT_BYTES`]).
    pub max_bytes: Option<u64>,
}

/// The snapshot length of a capture without `[output] pcap_snaplen`:
/// 128 bytes, the IPv4 header (20) and the longest TCP header (60) whole,
/// with room to spare.
pub const DEFAULT_SNAPLEN: u32 = 128;

/// Where a capture records the packets of a link direction
/// (`[output] pcap_point`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CapturePoint {
    /// `"sender"` (default): as its transmission starts, so a frame later
    /// lost on the air is in the capture; every drop adds a record of the
    /// dropped packet carrying the reason as its comment.
    #[default]
    Sender,
    /// `"receiver"`: as it arrives at the far end, so only what got
    /// through is there (drops are still recorded, with their reason).
    Receiver,
    /// `"both"`: each direction twice, as two interfaces of its file.
    Both,
}

impl CapturePoint {
    /// Whether packets are captured as their transmission starts.
    pub fn sender(self) -> bool {
        self != CapturePoint::Receiver
    }

    /// Whether packets are captured as they arrive.
    pub fn receiver(self) -> bool {
        self != CapturePoint::Sender
    }

    /// The name a scenario file uses.
    pub fn name(self) -> &'static str {
        match self {
            CapturePoint::Sender => "sender",
            CapturePoint::Receiver => "receiver",
            CapturePoint::Both => "both",
        }
    }
}

/// The trace budget of a run without `[output] max_bytes`: 1 GiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 1 << 30;

impl OutputSpec {
    /// The trace budget in bytes.
    pub fn budget(&self) -> u64 {
        self.max_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES)
    }
}

impl Default for SimSpec {
    /// The documented defaults.
    fn default() -> Self {
        SimSpec {
            duration: Dur::from_secs(60),
            seed: 1,
            sample_interval: Dur::from_millis(100),
        }
    }
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

impl Default for OutputSpec {
    /// The documented defaults (time series on, pcap off).
    fn default() -> Self {
        OutputSpec {
            pcap: false,
            pcap_snaplen: 0,
            pcap_point: CapturePoint::Sender,
            timeseries: true,
            max_bytes: None,
        }
    }
}
