//! `[wireless]` (and `[[wireless]]` entries): the hop's kind and the
//! 802.15.4 and 802.11 hops' own tables (`[wireless.lrwpan]`,
//! `[wireless.wifi]`, `[wireless.dsa]`, per-station settings).

use super::{AvailabilitySpec, BlockedMode, LinkSpec, LossSpec, Period, SnrSpec};
use crate::time::Dur;

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
    /// `host`: the wireless host ([`FlowSpec::host_name`](super::FlowSpec::host_name)).
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
