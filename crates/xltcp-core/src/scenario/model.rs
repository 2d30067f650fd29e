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

mod links;
mod output;
mod schemes;
mod tcp;
mod wireless;

pub use links::{AvailabilitySpec, BlockedMode, LinkSpec, LossSpec, LossSteps, Period, QueueLimit};
pub use output::{CapturePoint, OutputSpec, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_SNAPLEN};
pub use schemes::{
    AgentPlace, AgentScheme, AgentSpec, LocalRecoverySpec, PuDetectionSpec, SchemesSpec,
};
pub use tcp::{
    CubicVariant, FrtoVariant, MinRtoMode, PrrVariant, RackVariant, RecoverySpec, RttEstimatorKind,
    RttSampling, SsthreshFrom, TcpProfile, TcpSpec, KNOWN_CC,
};
pub use wireless::{
    ApScheduler, DsaSpec, HopKind, LayoutPreset, LrwpanSpec, StationSpec, TfpQueue, WifiSpec,
    WirelessSpec,
};

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

/// `[sim]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    /// `duration`: simulated time (default "60s"); > 0.
    pub duration: Dur,
    /// `seed`: default seed when the command line gives none (default 1); an integer >= 0.
    pub seed: u64,
    /// `sample_interval`: time-series sampling period (default "100ms"); > 0.
    pub sample_interval: Dur,
    /// `threads`: 1 (the default) or 2, the run cut at the wired access
    /// links ([`crate::sim::split`]).
    pub threads: u8,
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

impl Default for SimSpec {
    /// The documented defaults.
    fn default() -> Self {
        SimSpec {
            duration: Dur::from_secs(60),
            seed: 1,
            sample_interval: Dur::from_millis(100),
            threads: 1,
        }
    }
}
