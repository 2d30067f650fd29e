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
//! goodput, [`OracleCapacity`] (formula in its doc): one acknowledged data
//! frame of the layout with `mss` bytes of payload costs the mean first
//! back-off, a CCA, two turnarounds, the PPDU, the MAC ACK and the IFS; a
//! lost attempt (data frame or its MAC ACK lost, `p = 1 - (1 - p_data)(1 -
//! p_ack)`, from the loss tables or the O-QPSK error rate at `snr_db`) costs
//! one more attempt; the receiver's TCP ACK frames (one per `delayed_ack`
//! data frames) are charged their medium occupancy. The usable time is the
//! time no primary user is on, so the detector's `t_idle` is a cost the bound
//! does not forgive. Collisions between the two stations are not in the
//! formula either: a lossless, PU-free uplink reaches about 88 % of it.

use super::link::{Link, LinkStats};
use super::oracle;
use super::world::{Accounting, World};
use crate::radio::lrwpan::{FrameLayout, OracleCapacity};
use crate::scenario::{Direction, HopKind, LrwpanSpec, TcpSpec};
use serde::Serialize;

/// Per-flow results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// "down" (CH -> SH) or "up".
    pub direction: &'static str,
    /// In-order bytes delivered to the receiving application x 8 / duration.
    pub goodput_bps: f64,
    /// In-order bytes delivered to the receiving application.
    pub bytes_delivered: u64,
    /// Data segments the sender retransmitted.
    pub retransmissions: u64,
    /// Retransmission timeouts at the sender.
    pub rto_count: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// Data segments the sender sent (first transmissions and retransmissions).
    pub data_segments_sent: u64,
    /// The oracle bound of the flow, bits per second.
    pub oracle_bps: f64,
    /// goodput / oracle.
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
}

/// Everything `summary.json` holds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// Version of the core that produced it.
    pub xltcp_version: &'static str,
    /// The scenario, as validated.
    pub scenario: serde_json::Value,
    /// The seed of the run.
    pub seed: u64,
    /// Simulated seconds.
    pub duration_s: f64,
    /// Events processed.
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
    /// Packet conservation.
    pub accounting: Accounting,
    /// The wireless hop.
    pub hop: HopSummary,
    /// 802.15.4 hop counters (`kind = "lrwpan"` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lrwpan: Option<super::lrwpan_hop::HopStats>,
    /// Cross-layer signals published and delivered (`kind = "lrwpan"` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signals: Option<super::world_cr::SignalStats>,
    /// CR-aware TCP counters, summed over the flows (when switched on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cr_aware: Option<crate::schemes::CrAwareStats>,
    /// Local-recovery counters (when switched on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_recovery: Option<crate::schemes::LrStats>,
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
        let directions = [Direction::Down, Direction::Up]
            .into_iter()
            .filter_map(|d| {
                let idx: Vec<usize> = (0..self.flows.len())
                    .filter(|&i| self.flows[i].spec.direction == d)
                    .collect();
                let first = *idx.first()?;
                let goodput: f64 = idx.iter().map(|&i| flows[i].goodput_bps).sum();
                // The hop carries at most its capacity during its usable
                // time, and no flow more than its own bound.
                let sum: f64 = idx.iter().map(|&i| self.flow_oracle_bits(i)).sum();
                let usable = self.scenario.sim.duration - self.blocked_total;
                let oracle = oracle::direction_bits(sum, self.wireless_rate(first), usable) / t;
                Some(DirectionSummary {
                    direction: name_of(d),
                    flows: idx.len(),
                    goodput_bps: goodput,
                    oracle_bps: oracle,
                    efficiency: ratio(goodput, oracle),
                })
            })
            .collect();
        Summary {
            xltcp_version: env!("CARGO_PKG_VERSION"),
            scenario: scenario_echo,
            seed: self.seed,
            duration_s: t,
            events: self.events(),
            packets: (0..self.links.len())
                .map(|i| self.link_stats(i).transmitted)
                .sum(),
            wall_seconds: 0.0,
            flows,
            directions,
            links: self
                .links
                .iter()
                .enumerate()
                .map(|(i, l): (usize, &Link)| LinkSummary {
                    name: l.name.clone(),
                    stats: self.link_stats(i),
                })
                .collect(),
            accounting: self.accounting,
            hop: HopSummary {
                blocked_s: self.blocked_total.as_secs_f64(),
                usable_s: (self.scenario.sim.duration - self.blocked_total).as_secs_f64(),
            },
            lrwpan: self.xl.hop.as_ref().map(|h| h.stats),
            signals: self.xl.hop.as_ref().map(|_| self.xl.signals.clone()),
            cr_aware: self.xl.cr_stats(),
            local_recovery: self.xl.lr_stats(),
        }
    }

    /// A link direction's counters; the wireless directions of the 802.15.4
    /// hop from its own counters: transmitted = frames put on the air,
    /// drops: `queue_full` = a full MAC queue, `loss` = the retry limit (or a
    /// frame too long), `blocked` = channel-access failures.
    fn link_stats(&self, i: usize) -> LinkStats {
        let Some(hop) = self.xl.hop.as_ref() else {
            return self.links[i].stats;
        };
        let d = if i == self.wl_down {
            hop.stats.down
        } else if i == self.wl_up {
            hop.stats.up
        } else {
            return self.links[i].stats;
        };
        LinkStats {
            offered: d.offered,
            transmitted: d.frames_sent,
            bytes_transmitted: d.bytes_sent,
            arrived: d.arrived,
            drops: super::link::Drops {
                queue_full: d.drop_queue_full,
                loss: d.drop_retry_limit + d.drop_too_long,
                blocked: d.drop_channel_access,
            },
            max_queue: d.max_queue,
        }
    }

    /// Payload bits per second the wireless hop carries for flow `i`'s
    /// data direction while usable.
    fn wireless_rate(&self, i: usize) -> f64 {
        let f = &self.flows[i];
        let wl = &self.scenario.wireless;
        if let (HopKind::Lrwpan(spec), Some(hop)) = (&wl.kind, self.xl.hop.as_ref()) {
            return lrwpan_capacity(spec, &f.spec.tcp, hop, f.spec.direction).bps();
        }
        let loss = self.links[self.data_link(i)].mean_loss();
        oracle::p2p_wireless_rate(&self.scenario, &f.spec, loss)
    }

    fn flow_summary(&self, i: usize, t: f64) -> FlowSummary {
        let f = &self.flows[i];
        let s = f.sender().stats();
        let goodput = f.delivered as f64 * 8.0 / t;
        let oracle = self.flow_oracle_bits(i) / t;
        FlowSummary {
            name: f.spec.name.clone(),
            direction: name_of(f.spec.direction),
            goodput_bps: goodput,
            bytes_delivered: f.delivered,
            retransmissions: s.retransmissions,
            rto_count: s.rto_count,
            fast_retransmits: s.fast_retransmits,
            data_segments_sent: s.data_segments_sent,
            oracle_bps: oracle,
            efficiency: ratio(goodput, oracle),
            completion_s: f.completed_at.map(|c| {
                (c.saturating_since(crate::time::Time::ZERO) - f.spec.start).as_secs_f64()
            }),
            final_srtt_s: f.sender().srtt().map(|d| d.as_secs_f64()),
        }
    }
}

/// The 802.15.4 hop's [`OracleCapacity`] for a flow: full-size data
/// frames of the layout with `mss` bytes of payload (header bytes of the
/// options a data segment carries: timestamps), the receiver's TCP ACKs
/// (one per `delayed_ack` data frames) sharing the medium, and a lost
/// attempt whenever the data frame or its MAC ACK is lost.
pub fn lrwpan_capacity(
    spec: &LrwpanSpec,
    tcp: &TcpSpec,
    hop: &super::lrwpan_hop::LrwpanHop,
    direction: Direction,
) -> OracleCapacity {
    let layout = crate::scenario::frame_layout(spec.layout);
    let ts = if tcp.timestamps { 12 } else { 0 };
    let data = FrameLayout {
        upper_header: layout.upper_header + ts,
        payload: tcp.mss.min(u32::from(u16::MAX)) as u16,
        ..layout
    };
    let down = direction == Direction::Down;
    let mpdu = data.mpdu_len();
    let p_data = hop.mean_loss(down, mpdu);
    let p_ack = hop.mean_ack_loss(!down);
    OracleCapacity {
        data,
        min_be: spec.min_be,
        reverse_ack_mpdu: Some(layout.mac_header + layout.fcs + layout.upper_header + ts),
        data_frames_per_ack: f64::from(tcp.delayed_ack_segments.max(1)),
        frame_loss: 1.0 - (1.0 - p_data) * (1.0 - p_ack),
    }
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
