//! The emulator's own section of `summary.json` (`"emu"`): what only a
//! real-time run on real Linux TCP has (dispatch lateness, CPU, refused
//! datagrams, the applications' and Linux's own counts, warnings). The
//! simulator writes no such section; both engines share [`super::Summary`].

use serde::Serialize;
use std::collections::BTreeMap;

/// Lateness statistics of the emulator's deadline dispatches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LatenessSummary {
    /// Deadlines dispatched.
    pub count: u64,
    /// Median lateness, microseconds.
    pub median_us: f64,
    /// 99th percentile, microseconds.
    pub p99_us: f64,
    /// Largest, microseconds.
    pub max_us: f64,
}

/// What the emulator's real-time loop measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LoopReport {
    /// Dispatch lateness.
    pub lateness: LatenessSummary,
    /// Dispatch lateness per kind of deadline: the emulator's own
    /// (`link_tx_done`, `link_arrive`, `availability`, `agent`, `end`)
    /// and the simulator's hop's timers by the hop's names (`mac`,
    /// `tx_start`, `tx_end`, `pu_detector`, ...).
    pub lateness_by_timer: BTreeMap<String, LatenessSummary>,
    /// Delivery delay of the datagrams written to the hosts: from the
    /// model's instant of delivery (the deadline whose dispatch delivered
    /// it, or the read that did) to the return of the write that carried
    /// it, so dispatch lateness, the wait in the queue to the writer
    /// thread and the write itself (the receiving host's TCP runs inside
    /// it) together. `count` is the datagrams written.
    pub delivery_delay: LatenessSummary,
    /// CPU seconds of the data path: the dispatch thread and the writer
    /// thread together.
    pub cpu_s: f64,
    /// CPU seconds of the writer thread alone (part of `cpu_s`).
    pub writer_cpu_s: f64,
    /// Times the dispatch thread found the queue to the writer full and
    /// waited for room.
    pub queue_full_waits: u64,
    /// Wall seconds the loop ran.
    pub wall_s: f64,
    /// Failed reads of a device.
    pub read_errors: u64,
    /// Frames read from the devices (a datagram, or a TCP super-packet
    /// when the kernel used the devices' segmentation offload).
    pub frames_read: u64,
    /// Super-packets among them, each cut into the segments it carried.
    pub super_packets: u64,
    /// Datagrams handed to the hop (a super-packet counts its segments).
    pub datagrams_read: u64,
    /// Frames written to the devices (a datagram, or a super-packet of
    /// segments of one connection that waited together for the writer).
    pub frames_written: u64,
    /// Super-packets among them.
    pub super_packets_written: u64,
    /// Times the dispatch thread gave its CPU away after 330 us without
    /// sleeping (20 us each, so ordinary tasks are not starved into
    /// preempting it).
    pub yields: u64,
    /// Whether the devices took the checksum and TCP segmentation offloads.
    pub offloads: bool,
    /// Whether the data path's threads (dispatch and writer) ran with
    /// real-time priority.
    pub realtime: bool,
    /// Whether CPU idle states with a wake-up latency were ruled out
    /// during the run (PM QoS `/dev/cpu_dma_latency` = 0).
    pub low_latency_idle: bool,
}

/// CR-aware TCP's freezes and resumes of a real Linux sender: the
/// emulator holds a frozen host's datagrams at its interface.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct FreezeReport {
    /// Freezes (a host's interface began holding).
    pub freezes: u64,
    /// Resumes (it sent what it held, in order).
    pub resumes: u64,
    /// Datagrams held at a frozen host's interface.
    pub datagrams_held: u64,
    /// Of those, TCP segments with payload.
    pub data_segments_held: u64,
    /// Most datagrams one host held at once.
    pub most_held: u64,
}

/// The emulator's results beyond the shared summary.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct EmuDetails {
    /// Deadline dispatch lateness and data-path CPU.
    #[serde(flatten)]
    pub datapath: LoopReport,
    /// Data-path CPU seconds per wall second.
    pub cpu_share: f64,
    /// Datagrams refused at the base station, by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Datagrams dropped after entering for reasons links do not count
    /// (an agent's drop reason among them).
    pub dropped_other: BTreeMap<String, u64>,
    /// Packets the simulator's hop (802.15.4, 802.11) dropped, by reason
    /// (its link counters say which direction).
    pub hop_drops: BTreeMap<String, u64>,
    /// The same per hop (by `[[wireless]] name`), with several hops;
    /// absent with one.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub hop_drops_by_hop: BTreeMap<String, BTreeMap<String, u64>>,
    /// The sender-side freezes of CR-aware TCP, if it ran.
    pub sender_freeze: Option<FreezeReport>,
    /// Non-TCP IPv4 datagrams carried.
    pub non_tcp_forwarded: u64,
    /// Datagrams of the flows' control connections (iperf3's), sent from
    /// one side's hosts to the other's around the links.
    pub control_bypassed: u64,
    /// Blocked intervals of the wireless hop, seconds from the start.
    pub blocked_intervals: Vec<(f64, f64)>,
    /// Bytes each flow's application reported received (iperf3's own
    /// count, over its own test interval, after the queue drained).
    pub app_bytes: Vec<u64>,
    /// Seconds each flow's application measured (its test interval), per
    /// flow; a bulk flow's interval starts after its connection set-up, so
    /// it may end a little after the scenario's end.
    pub app_seconds: Vec<f64>,
    /// Where each flow's `retransmissions` come from: `"iperf3"` (its
    /// final report), `"socket"` (iperf3 gave no report: the sender's data
    /// socket read at the scenario's end, the same kernel count), `"file"`
    /// (a file flow's sender socket), `"unknown"` (no count: shown as 0).
    pub retransmissions_from: Vec<String>,
    /// Linux's TCP recovery counters per namespace ("ch", "sh").
    pub linux_tcp: BTreeMap<String, BTreeMap<String, u64>>,
    /// Linux congestion control per flow.
    pub linux_cc: Vec<String>,
    /// Sysctls the run set on both hosts beyond the ones the scenario's
    /// `tcp` keys give (`--sysctl`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sysctls: Vec<String>,
    /// What may make the results less trustworthy.
    pub warnings: Vec<String>,
}
