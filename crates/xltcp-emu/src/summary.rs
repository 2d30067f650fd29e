//! `summary.json` of an emulator run: the simulator's [`Summary`] (flows,
//! directions, links, accounting, hop, the agents' sections), with
//! `engine = "emu"` and an `emu` section ([`EmuDetails`]: dispatch
//! lateness, CPU, refused datagrams by reason, the applications' own byte
//! counts, warnings).
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
use crate::hop::Hop;
use std::collections::BTreeMap;
use xltcp_core::hop::Hop as _;
use xltcp_core::scenario::{AppSpec, Direction, FlowSpec, Scenario};
use xltcp_core::sim::oracle;
use xltcp_core::sim::{self, DirectionSummary, FlowSummary};
#[cfg(doc)]
use xltcp_core::sim::{emu_section::EmuDetails, Summary};
use xltcp_core::time::{Dur, Time};

/// Lateness p99 above which the summary warns that the emulation could not
/// keep up, microseconds.
pub const LATE_P99_WARN_US: f64 = 1000.0;

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
    if let Some(air) = &hop.air {
        // With several hops, their sum, as the simulator's bound.
        return air.hops.iter().map(|h| h.capacity_bps(f)).sum();
    }
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
            let alone = s
                .flows
                .iter()
                .filter(|g| g.direction == f.direction)
                .count()
                == 1;
            let ns = if sender == 0 { "ch" } else { "sh" };
            let count = |k: &str| {
                if alone {
                    linux.get(ns).and_then(|m| m.get(k)).copied().unwrap_or(0)
                } else {
                    0
                }
            };
            let done = matches!(f.app, AppSpec::File { .. }) && r.completed_s.is_some();
            let start = f.start.min(s.sim.duration);
            let active = if done {
                Dur::from_secs_f64(r.seconds).min(s.sim.duration - start)
            } else {
                s.sim.duration - start
            };
            let from = Time::ZERO + start;
            let usable = active - blocked_within(&hop.blocked_intervals, from, from + active);
            let active_goodput = ratio(delivered as f64 * 8.0, active.as_secs_f64());
            let active_oracle =
                oracle::flow_rate_while_active(s, f, wireless_rate(s, hop, f), active, usable);
            let efficiency = match f.app {
                AppSpec::File { .. } => ratio(active_goodput, active_oracle),
                AppSpec::Bulk => ratio(goodput, oracle),
            };
            FlowSummary {
                name: f.name.clone(),
                direction: name_of(f.direction),
                goodput_bps: goodput,
                active_s: active.as_secs_f64(),
                active_goodput_bps: active_goodput,
                active_oracle_bps: active_oracle,
                bytes_delivered: delivered,
                retransmissions: r.retransmits,
                // Not in iperf3's report: Linux counts them per namespace,
                // its timeouts with the handshake's (one SYN or SYN-ACK
                // resent per timeout).
                rto_count: count("TCPTimeouts").saturating_sub(count("TCPSynRetrans")),
                syn_timeouts: count("TCPSynRetrans"),
                rto_causes: None,
                // Linux's own count (F-RTO runs as `tcp.frto` says; with
                // timestamps it also undoes by them, counted with F-RTO's
                // undos in `TCPLossUndo`).
                spurious_rtos: if f.tcp.eifel {
                    Some(count("TCPLossUndo"))
                } else {
                    f.tcp.frto.then(|| count("TCPSpuriousRTOs"))
                },
                dsack_undos: f
                    .tcp
                    .dsack_undo
                    .then(|| count("TCPDSACKUndo") + count("TCPFullUndo")),
                tlp_probes: f.tcp.tlp.then(|| count("TCPLossProbes")),
                fast_retransmits: count("TCPSackRecovery") + count("TCPRenoRecovery"),
                data_segments_sent: hop.counters.data_segments[i][sender],
                oracle_bps: oracle,
                efficiency,
                completion_s: r.completed_s,
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
    let end = Time::ZERO + s.sim.duration;
    let usable = s.sim.duration - blocked_within(&hop.blocked_intervals, Time::ZERO, end);
    sim::direction_summaries(
        s,
        flows,
        usable,
        |i| oracle_bits(s, hop, &s.flows[i]),
        |i| wireless_rate(s, hop, &s.flows[i]),
    )
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
