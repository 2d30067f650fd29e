//! `summary.json` of an emulator run: the simulator's shape (flows,
//! directions, links, accounting, hop), plus an `emu` section (dispatch
//! lateness, CPU, refused datagrams by reason, the applications' own
//! byte counts, warnings).
//!
//! Goodput is the simulator's definition: in-order bytes at the receiver
//! by the scenario's end, over its duration, counted at the base station
//! ([`crate::inorder`]). The applications' reports (retransmissions, RTT,
//! received bytes) are kept beside it; their byte count runs over the
//! application's own interval, so it is a cross-check, not the goodput.
//!
//! The oracle bound is the simulator's formula (`xltcp_core::sim::oracle`), with
//! the usable time of the hop as the emulation measured it.

use crate::apps::AppResult;
use crate::bridge::LoopReport;
use crate::hop::Hop;
use serde::Serialize;
use std::collections::BTreeMap;
use xltcp_core::scenario::{AppSpec, Direction, FlowSpec, Scenario};
use xltcp_core::sim::oracle;
use xltcp_core::sim::summary::HopSummary;
use xltcp_core::sim::{Accounting, DirectionSummary, FlowSummary, LinkSummary};
use xltcp_core::time::{Dur, Time};

/// Lateness p99 above which the summary warns that the emulation could not
/// keep up, microseconds.
pub const LATE_P99_WARN_US: f64 = 1000.0;

/// The emulator's own results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EmuDetails {
    /// Deadline dispatch lateness and data-path CPU.
    #[serde(flatten)]
    pub datapath: LoopReport,
    /// Data-path CPU seconds per wall second.
    pub cpu_share: f64,
    /// Datagrams refused at the base station, by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Datagrams dropped after entering for reasons links do not count.
    pub dropped_other: BTreeMap<String, u64>,
    /// Non-TCP IPv4 datagrams carried.
    pub non_tcp_forwarded: u64,
    /// Blocked intervals of the wireless hop, seconds from the start.
    pub blocked_intervals: Vec<(f64, f64)>,
    /// Bytes each flow's application reported received (iperf3's own
    /// count, over its own test interval, after the queue drained).
    pub app_bytes: Vec<u64>,
    /// Seconds each flow's application measured (its test interval), per
    /// flow; a bulk flow's interval starts after its connection set-up, so
    /// it may end a little after the scenario's end.
    pub app_seconds: Vec<f64>,
    /// Linux's TCP recovery counters per namespace ("ch", "sh").
    pub linux_tcp: BTreeMap<String, BTreeMap<String, u64>>,
    /// Linux congestion control per flow.
    pub linux_cc: Vec<String>,
    /// What may make the results less trustworthy.
    pub warnings: Vec<String>,
}

/// Everything an emulator `summary.json` holds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EmuSummary {
    /// Version of the core that produced it.
    pub xltcp_version: &'static str,
    /// Always "emu".
    pub engine: &'static str,
    /// The scenario, as validated.
    pub scenario: serde_json::Value,
    /// The seed of the run.
    pub seed: u64,
    /// Scenario seconds.
    pub duration_s: f64,
    /// Deadlines dispatched.
    pub events: u64,
    /// Link transmissions started (all links).
    pub packets: u64,
    /// Wall-clock seconds of the run, set-up and teardown included.
    pub wall_seconds: f64,
    /// Per-flow results.
    pub flows: Vec<FlowSummary>,
    /// Per-direction aggregates.
    pub directions: Vec<DirectionSummary>,
    /// Per-link counters.
    pub links: Vec<LinkSummary>,
    /// Datagram conservation at the base station.
    pub accounting: Accounting,
    /// The wireless hop.
    pub hop: HopSummary,
    /// Emulator specifics.
    pub emu: EmuDetails,
}

/// Blocked time within `[from, to]`.
fn blocked_within(intervals: &[(Time, Time)], from: Time, to: Time) -> Dur {
    intervals.iter().fold(Dur::ZERO, |acc, &(a, b)| {
        let (a, b) = (a.max(from), b.min(to));
        if b > a {
            acc + (b - a)
        } else {
            acc
        }
    })
}

/// Payload rate of the hop for `f`'s data direction while usable.
fn wireless_rate(s: &Scenario, hop: &Hop, f: &FlowSpec) -> f64 {
    let link = hop.links.len() - if f.direction == Direction::Down { 2 } else { 1 };
    oracle::p2p_wireless_rate(s, f, hop.links[link].mean_loss())
}

/// The simulator's oracle bound of `f`, in bits, with the hop's usable
/// time as the emulation measured it.
fn oracle_bits(s: &Scenario, hop: &Hop, f: &FlowSpec) -> f64 {
    let t = s.sim.duration;
    let start = f.start.min(t);
    let end = Time::ZERO + t;
    let usable = (t - start) - blocked_within(&hop.blocked_intervals, Time::ZERO + start, end);
    oracle::flow_bits(s, f, wireless_rate(s, hop, f), usable)
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

fn name_of(d: Direction) -> &'static str {
    match d {
        Direction::Down => "down",
        Direction::Up => "up",
    }
}

/// Per-flow results from the applications' reports (`None`: no report);
/// a flow alone in sending from its namespace gets that namespace's
/// RTO and recovery counts.
pub fn flow_summaries(
    s: &Scenario,
    hop: &Hop,
    apps: &[Option<AppResult>],
    linux: &BTreeMap<String, BTreeMap<String, u64>>,
) -> Vec<FlowSummary> {
    let t = s.sim.duration.as_secs_f64();
    s.flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let r = apps[i].clone().unwrap_or_default();
            let delivered = hop.delivered_by_end()[i];
            let goodput = delivered as f64 * 8.0 / t;
            let oracle = oracle_bits(s, hop, f) / t;
            let sender = if f.direction == Direction::Down { 0 } else { 1 };
            let alone = s.flows.iter().filter(|g| g.direction == f.direction).count() == 1;
            let ns = if sender == 0 { "ch" } else { "sh" };
            let count = |k: &str| if alone { linux.get(ns).and_then(|m| m.get(k)).copied().unwrap_or(0) } else { 0 };
            let done = matches!(f.app, AppSpec::File { bytes } if apps[i].is_some() && r.bytes_received >= bytes);
            FlowSummary {
                name: f.name.clone(),
                direction: name_of(f.direction),
                goodput_bps: goodput,
                bytes_delivered: delivered,
                retransmissions: r.retransmits,
                // Not in iperf3's report: Linux counts them per namespace.
                rto_count: count("TCPTimeouts"),
                fast_retransmits: count("TCPSackRecovery") + count("TCPRenoRecovery"),
                data_segments_sent: hop.counters.data_segments[i][sender],
                oracle_bps: oracle,
                efficiency: ratio(goodput, oracle),
                completion_s: done.then_some(r.seconds),
                final_srtt_s: r.mean_rtt_s,
            }
        })
        .collect()
}

/// Per-direction aggregates, as the simulator computes them.
pub fn direction_summaries(
    s: &Scenario,
    hop: &Hop,
    flows: &[FlowSummary],
) -> Vec<DirectionSummary> {
    let t = s.sim.duration.as_secs_f64();
    [Direction::Down, Direction::Up]
        .into_iter()
        .filter_map(|d| {
            let idx: Vec<usize> = (0..s.flows.len())
                .filter(|&i| s.flows[i].direction == d)
                .collect();
            let first = &s.flows[*idx.first()?];
            let goodput: f64 = idx.iter().map(|&i| flows[i].goodput_bps).sum();
            let sum: f64 = idx.iter().map(|&i| oracle_bits(s, hop, &s.flows[i])).sum();
            let end = Time::ZERO + s.sim.duration;
            let usable = s.sim.duration - blocked_within(&hop.blocked_intervals, Time::ZERO, end);
            let oracle = oracle::direction_bits(sum, wireless_rate(s, hop, first), usable) / t;
            Some(DirectionSummary {
                direction: name_of(d),
                flows: idx.len(),
                goodput_bps: goodput,
                oracle_bps: oracle,
                efficiency: ratio(goodput, oracle),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_time_is_clipped_to_the_window() {
        let iv = [(Time(10), Time(20)), (Time(30), Time(40))];
        assert_eq!(blocked_within(&iv, Time(15), Time(35)), Dur(10));
        assert_eq!(blocked_within(&iv, Time(0), Time(100)), Dur(20));
        assert_eq!(blocked_within(&iv, Time(20), Time(30)), Dur(0));
    }
}
