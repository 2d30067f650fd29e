//! `[[agent]]` entries and `[schemes]`: which cross-layer schemes run where,
//! with their settings, and the primary-user detection they rely on.

use crate::time::Dur;

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
