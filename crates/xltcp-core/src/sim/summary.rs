//! Results of a run and the oracle bound.
//!
//! # The oracle bound
//!
//! The most goodput the scenario allows a flow, were it alone and perfectly
//! served; the formula (shared with the emulator) is in [`super::oracle`].
//! `T` is the run's duration and the usable time counts every second the hop
//! was not blocked. ACKs travel the other direction of the full-duplex hop
//! and cost the data direction nothing. Handshake and slow start are not
//! subtracted, so the bound is never reached but never exceeded. The same
//! bound for all flows of one direction together (sharing the hop) is
//! reported per direction.
//!
//! ## The 802.15.4 hop (`[wireless] kind = "lrwpan"`)
//!
//! `capacity_wireless / (1 + p)` is replaced by the hop's saturation
//! goodput, [`OracleCapacity`](crate::radio::lrwpan::OracleCapacity) (formula in its doc): one acknowledged data
//! frame of the layout with `mss` bytes of payload costs the mean first
//! back-off, a CCA, two turnarounds, the PPDU, the MAC ACK and the IFS; an
//! attempt is lost (data frame or its MAC ACK lost, `p = 1 - (1 - p_data)(1 -
//! p_ack)`, from the loss tables or the O-QPSK error rate at `snr_db`) with
//! probability `p`, so a delivered frame costs `p / (1 - p)` lost attempts;
//! the receiver's TCP ACK frames (one per `delayed_ack` data frames) are
//! charged their medium occupancy. The usable time is the time no primary
//! user is on, so the detector's `t_idle` is a cost the bound does not
//! forgive. Collisions between the two stations are not in the formula
//! either: paper 000's TCP-LR+CR (standard preset family: 802.15.4
//! retries, 0.1 frame loss each way) with no primary user reaches 0.880 of
//! it (the one no-PU figure the project quotes; `xltcp reproduce byun2016`,
//! seeds 1-10).

use super::agents::{LocalRxmitStats, SignalStats};
use super::emu_section::EmuDetails;
use super::oracle;
use super::world::{Accounting, World};
use crate::hop::{Hop, HopSection};
use crate::net::link::LinkStats;
use crate::scenario::{Direction, Scenario};
use crate::schemes::AgentStats;
use crate::time::Dur;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Per-flow results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// "down" (CH -> SH) or "up".
    pub direction: &'static str,
    /// In-order bytes delivered to the receiving application x 8 / duration.
    pub goodput_bps: f64,
    /// Seconds the flow was active: from its start to its completion (a
    /// file transfer that completed) or to the end of the run.
    pub active_s: f64,
    /// bytes_delivered x 8 / active_s: the rate the flow moved at (for a
    /// file transfer, over its own transfer time rather than the run).
    pub active_goodput_bps: f64,
    /// The fastest rate the flow could have moved at while active
    /// ([`oracle::flow_rate_while_active`]).
    pub active_oracle_bps: f64,
    /// In-order bytes delivered to the receiving application.
    pub bytes_delivered: u64,
    /// Data segments the sender retransmitted.
    pub retransmissions: u64,
    /// Retransmission timeouts of data at the sender (after the handshake).
    pub rto_count: u64,
    /// Timeouts of the client's SYN and the server's SYN-ACK, apart from
    /// `rto_count`.
    pub syn_timeouts: u64,
    /// `rto_count` by cause (the simulator; see [`super::rto_cause`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_causes: Option<super::rto_cause::RtoCauses>,
    /// Of `rto_count`, the timeouts F-RTO (RFC 5682) or Eifel (RFC 3522)
    /// found spurious and undid; only with `tcp.frto` or `tcp.eifel`
    /// (the emulator: Linux's `TCPLossUndo` with `tcp.eifel`, as Linux
    /// undoes by timestamps whatever F-RTO says; else `TCPSpuriousRTOs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spurious_rtos: Option<u64>,
    /// SACK recoveries undone because their retransmissions all came back
    /// as DSACKs; only with `tcp.dsack_undo` (the emulator: Linux's
    /// `TCPDSACKUndo` + `TCPFullUndo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dsack_undos: Option<u64>,
    /// Tail loss probes sent (RFC 8985 §7); only with `tcp.tlp = true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tlp_probes: Option<u64>,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// Data segments the sender sent (first transmissions and retransmissions).
    pub data_segments_sent: u64,
    /// The oracle bound of the flow, bits per second.
    pub oracle_bps: f64,
    /// goodput / oracle; for a file transfer active_goodput /
    /// active_oracle (its own bound caps a file's bits, so goodput / oracle
    /// would be 100 % for every transfer that completes).
    pub efficiency: f64,
    /// For a file transfer: seconds from start to the last byte read.
    pub completion_s: Option<f64>,
    /// Smoothed RTT at the end, seconds.
    pub final_srtt_s: Option<f64>,
}

/// Results of all flows of one direction together.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DirectionSummary {
    /// "down" or "up".
    pub direction: &'static str,
    /// Flows in this direction.
    pub flows: usize,
    /// Sum of the flows' goodput.
    pub goodput_bps: f64,
    /// The oracle bound of the hop in this direction.
    pub oracle_bps: f64,
    /// goodput / oracle.
    pub efficiency: f64,
}

/// The aggregate of each direction that has flows, as both engines
/// report it: the flows' goodput summed, against the hop's oracle bound,
/// which carries at most its capacity during its `usable` (unblocked) time
/// and no flow more than its own bound (`flow_oracle_bits(i)`, bits over
/// the run; `wireless_rate(i)`, the hop's capacity for flow i, bit/s).
pub fn direction_summaries(
    scenario: &Scenario,
    flows: &[FlowSummary],
    usable: Dur,
    flow_oracle_bits: impl Fn(usize) -> f64,
    wireless_rate: impl Fn(usize) -> f64,
) -> Vec<DirectionSummary> {
    let t = scenario.sim.duration.as_secs_f64();
    [Direction::Down, Direction::Up]
        .into_iter()
        .filter_map(|d| {
            let idx: Vec<usize> = (0..scenario.flows.len())
                .filter(|&i| scenario.flows[i].direction == d)
                .collect();
            let first = *idx.first()?;
            let goodput: f64 = idx.iter().map(|&i| flows[i].goodput_bps).sum();
            let sum: f64 = idx.iter().map(|&i| flow_oracle_bits(i)).sum();
            let oracle = oracle::direction_bits(sum, wireless_rate(first), usable) / t;
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

/// Per-link-direction results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkSummary {
    /// Link name (`ch0-bs`, `bs-air`, ...).
    pub name: String,
    /// Counters.
    #[serde(flatten)]
    pub stats: LinkStats,
}

/// The wireless hop's availability over the run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HopSummary {
    /// Seconds the hop was blocked.
    pub blocked_s: f64,
    /// Seconds the hop was usable.
    pub usable_s: f64,
    /// Packets an agent sent to an interface its node does not have
    /// (dropped); written when any was.
    #[serde(skip_serializing_if = "is_zero")]
    pub no_interface: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A hop beyond the first (`[[wireless]]` entries): its name and its own
/// section (its link counters are in `links`, as `bs-<name>` and
/// `<name>-bs`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MoreHopSummary {
    /// The hop's `name`.
    pub name: String,
    /// Its own section (`"wifi"`: the 802.11 counters), if it has one.
    #[serde(flatten)]
    pub sections: Sections<HopSection>,
}

/// Everything `summary.json` holds, in both engines: the simulator's
/// fields, and with the emulator its `engine` name and `emu` section.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// Version of the core that produced it.
    pub xltcp_version: &'static str,
    /// `"emu"` from the emulator; absent from the simulator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<&'static str>,
    /// The scenario, as validated.
    pub scenario: serde_json::Value,
    /// The seed of the run.
    pub seed: u64,
    /// Scenario seconds.
    pub duration_s: f64,
    /// Events processed (the emulator: deadlines dispatched).
    pub events: u64,
    /// Link transmissions started (all links).
    pub packets: u64,
    /// Wall-clock seconds of the run (filled in by the caller; 0 in the core).
    pub wall_seconds: f64,
    /// Per-flow results.
    pub flows: Vec<FlowSummary>,
    /// Per-direction aggregates.
    pub directions: Vec<DirectionSummary>,
    /// Per-link counters.
    pub links: Vec<LinkSummary>,
    /// Packet conservation (the emulator: of the datagrams that entered
    /// the base station's links, and of the agents' emissions).
    pub accounting: Accounting,
    /// The wireless hop.
    pub hop: HopSummary,
    /// The hop's own section (`"lrwpan"`: the 802.15.4 hop's counters).
    #[serde(flatten)]
    pub hop_sections: Sections<HopSection>,
    /// The hops beyond the first, in the scenario's order; absent with one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_hops: Vec<MoreHopSummary>,
    /// Cross-layer signals published and delivered (hops whose radios
    /// publish signals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signals: Option<SignalStats>,
    /// The agents' counters, one section per kind (`"cr_aware"`,
    /// `"local_recovery"`, ...), each summed over the nodes.
    #[serde(flatten)]
    pub agents: Sections<AgentStats>,
    /// Agents' local retransmissions (Snoop, C-Snoop, SNACK) as their
    /// receivers found them: present once one reached its receiver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_retransmissions: Option<LocalRxmitStats>,
    /// The emulator's own results; absent from the simulator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emu: Option<EmuDetails>,
    /// Where the traces stopped at `[output] max_bytes`; absent when every
    /// record was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<super::output::OutputCut>,
}

impl Summary {
    /// The 802.15.4 hop's counters, if the hop was one.
    pub fn lrwpan(&self) -> Option<crate::hop::lrwpan::HopStats> {
        self.hop_sections.0.iter().find_map(|(_, s)| s.lrwpan())
    }

    /// The 802.11 hop's counters and energy, if the hop was one.
    pub fn wifi(&self) -> Option<&crate::hop::wifi::WifiStats> {
        self.hop_sections.0.iter().find_map(|(_, s)| s.wifi())
    }

    /// CR-aware TCP's counters, if it ran.
    pub fn cr_aware(&self) -> Option<crate::schemes::CrAwareStats> {
        self.agents.0.iter().find_map(|(_, s)| match s {
            AgentStats::CrAware(c) => Some(*c),
            _ => None,
        })
    }

    /// Local recovery's counters, if it ran.
    pub fn local_recovery(&self) -> Option<crate::schemes::LrStats> {
        self.agents.0.iter().find_map(|(_, s)| match s {
            AgentStats::LocalRecovery(l) => Some(*l),
            _ => None,
        })
    }

    /// The UCL's counters (its security's among them), if it ran.
    pub fn ucl(&self) -> Option<&crate::schemes::ucl::UclStats> {
        self.agents.0.iter().find_map(|(_, s)| match s {
            AgentStats::Ucl(u) => Some(u),
            _ => None,
        })
    }
}

/// Named sections of `summary.json`, written as keys in this order.
#[derive(Clone, Debug, PartialEq)]
pub struct Sections<T>(pub Vec<(&'static str, T)>);

impl<T> Default for Sections<T> {
    fn default() -> Self {
        Sections(Vec::new())
    }
}

impl<T: Serialize> Serialize for Sections<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl World {
    fn flow_oracle_bits(&self, i: usize) -> f64 {
        let f = &self.flows[i];
        let t = self.scenario.sim.duration;
        let blocked_after = self.blocked_total - f.blocked_before_start;
        let usable = (t - f.spec.start.min(t)) - blocked_after;
        oracle::flow_bits(&self.scenario, &f.spec, self.wireless_rate(i), usable)
    }

    /// The results of the finished run.
    pub fn summary(&self, scenario_echo: serde_json::Value) -> Summary {
        let t = self.scenario.sim.duration.as_secs_f64();
        let flows: Vec<FlowSummary> = (0..self.flows.len())
            .map(|i| self.flow_summary(i, t))
            .collect();
        let usable = self.scenario.sim.duration - self.blocked_total;
        let directions = direction_summaries(
            &self.scenario,
            &flows,
            usable,
            |i| self.flow_oracle_bits(i),
            |i| self.wireless_rate(i),
        );
        let links = self.link_summaries();
        Summary {
            xltcp_version: env!("CARGO_PKG_VERSION"),
            engine: None,
            scenario: scenario_echo,
            seed: self.seed,
            duration_s: self.scenario.sim.duration.as_secs_exact(),
            events: self.events(),
            packets: links.iter().map(|l| l.stats.transmitted).sum(),
            wall_seconds: 0.0,
            flows,
            directions,
            links,
            accounting: self.accounting,
            hop: HopSummary {
                blocked_s: self.blocked_total.as_secs_f64(),
                usable_s: (self.scenario.sim.duration - self.blocked_total).as_secs_f64(),
                no_interface: self.no_interface,
            },
            hop_sections: Sections(self.hops[0].section().into_iter().collect()),
            more_hops: self.hops[1..]
                .iter()
                .zip(&self.scenario.more_hops)
                .map(|(hop, spec)| MoreHopSummary {
                    name: spec.name.clone(),
                    sections: Sections(hop.section().into_iter().collect()),
                })
                .collect(),
            signals: self
                .hops
                .iter()
                .any(|h| h.publishes_signals())
                .then(|| self.signals.clone()),
            agents: self.agent_sections(),
            local_retransmissions: (self.local_rxmits.delivered > 0).then_some(self.local_rxmits),
            emu: None,
            output: self.output.cut(),
        }
    }

    /// Every link direction: the wired links, then each hop's two
    /// (`bs-<name>` down, `<name>-bs` up; the first hop's name is "air"
    /// unless the scenario names it).
    fn link_summaries(&self) -> Vec<LinkSummary> {
        let wired = self.links.iter().map(|l| LinkSummary {
            name: l.name.clone(),
            stats: l.stats,
        });
        let specs = std::iter::once(&self.scenario.wireless).chain(&self.scenario.more_hops);
        let hops = self.hops.iter().zip(specs).flat_map(|(hop, spec)| {
            let [(_, down), (_, up)] = hop.link_stats();
            [
                LinkSummary {
                    name: format!("bs-{}", spec.name),
                    stats: down,
                },
                LinkSummary {
                    name: format!("{}-bs", spec.name),
                    stats: up,
                },
            ]
        });
        wired.chain(hops).collect()
    }

    /// The agents' counters, summed per section, in the sections' order.
    fn agent_sections(&self) -> Sections<AgentStats> {
        agent_sections(self.agents.iter().filter_map(|slot| slot.agent.stats()))
    }

    /// Payload bits per second the wireless hop carries for flow `i`'s
    /// data direction while usable; with several hops, their sum: no
    /// choice of interface per packet can carry more (the better hop at
    /// each instant is at most the sum), though it is loose when one hop
    /// dominates.
    fn wireless_rate(&self, i: usize) -> f64 {
        let spec = &self.flows[i].spec;
        self.hops.iter().map(|h| h.capacity_bps(spec)).sum()
    }

    fn flow_summary(&self, i: usize, t: f64) -> FlowSummary {
        let f = &self.flows[i];
        let s = f.sender().stats();
        let goodput = f.delivered as f64 * 8.0 / t;
        let oracle = self.flow_oracle_bits(i) / t;
        let duration = self.scenario.sim.duration;
        let start = f.spec.start.min(duration);
        let (active, blocked) = match (f.completed_at, f.blocked_at_completion) {
            (Some(done), Some(blocked)) => (
                done.saturating_since(crate::time::Time::ZERO) - start,
                blocked,
            ),
            _ => (duration - start, self.blocked_total),
        };
        let usable = active - (blocked - f.blocked_before_start).min(active);
        let active_goodput = ratio(f.delivered as f64 * 8.0, active.as_secs_f64());
        let active_oracle = oracle::flow_rate_while_active(
            &self.scenario,
            &f.spec,
            self.wireless_rate(i),
            active,
            usable,
        );
        let efficiency = match f.spec.app {
            crate::scenario::AppSpec::File { .. } => ratio(active_goodput, active_oracle),
            crate::scenario::AppSpec::Bulk => ratio(goodput, oracle),
        };
        FlowSummary {
            name: f.spec.name.clone(),
            direction: name_of(f.spec.direction),
            goodput_bps: goodput,
            active_s: active.as_secs_f64(),
            active_goodput_bps: active_goodput,
            active_oracle_bps: active_oracle,
            bytes_delivered: f.delivered,
            retransmissions: s.retransmissions,
            rto_count: s.rto_count,
            syn_timeouts: f.ep.iter().map(|e| e.stats().syn_timeouts).sum(),
            rto_causes: Some(self.forensics.causes(i)),
            spurious_rtos: (f.spec.tcp.frto || f.spec.tcp.eifel).then_some(s.spurious_rtos),
            dsack_undos: f.spec.tcp.dsack_undo.then_some(s.dsack_undos),
            tlp_probes: f.spec.tcp.tlp.then_some(s.tlp_probes),
            fast_retransmits: s.fast_retransmits,
            data_segments_sent: s.data_segments_sent,
            oracle_bps: oracle,
            efficiency,
            completion_s: f.completed_at.map(|c| {
                (c.saturating_since(crate::time::Time::ZERO) - f.spec.start).as_secs_f64()
            }),
            final_srtt_s: f.sender().srtt().map(|d| d.as_secs_f64()),
        }
    }
}

/// Agents' counters summed per section, in the sections' order (what both
/// engines write).
pub fn agent_sections(stats: impl Iterator<Item = AgentStats>) -> Sections<AgentStats> {
    let mut sections: Vec<(&'static str, AgentStats)> = Vec::new();
    for stats in stats {
        match sections.iter_mut().find(|(k, _)| *k == stats.section()) {
            Some((_, total)) => total.merge(&stats),
            None => sections.push((stats.section(), stats)),
        }
    }
    sections.sort_by_key(|(_, s)| s.rank());
    Sections(sections)
}

fn name_of(d: Direction) -> &'static str {
    match d {
        Direction::Down => "down",
        Direction::Up => "up",
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}
