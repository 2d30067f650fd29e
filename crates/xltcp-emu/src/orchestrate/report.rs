//! The run's `summary.json`: the hop's and the links' counters, the
//! applications' results and the emulator's own section.

use super::processes::Counters;
use crate::apps::AppResult;
use crate::bridge::LoopReport;
use crate::hop::Hop;
use crate::summary::{self, LATE_P99_WARN_US};
use xltcp_core::hop::Hop as _;
use xltcp_core::scenario::{self, Scenario};
use xltcp_core::sim::emu_section::EmuDetails;
use xltcp_core::sim::summary::{HopSummary, MoreHopSummary, Sections};
use xltcp_core::sim::{LinkSummary, Summary};
use xltcp_core::time::Time;

#[allow(clippy::too_many_arguments)]
pub(super) fn build_summary(
    s: &Scenario,
    seed: u64,
    hop: &Hop,
    report: LoopReport,
    apps: &[Option<AppResult>],
    cc: Vec<String>,
    counters: Counters,
    mut warnings: Vec<String>,
) -> Summary {
    if report.lateness.p99_us > LATE_P99_WARN_US {
        warnings.push(format!(
            "the emulation could not keep up: dispatch lateness p99 {:.0} us (median {:.0} us) exceeds {LATE_P99_WARN_US:.0} us",
            report.lateness.p99_us, report.lateness.median_us
        ));
    }
    if hop.agents.host_actions_ignored > 0 {
        warnings.push(format!(
            "{} actions of agents at the hosts could not be carried out on Linux TCP",
            hop.agents.host_actions_ignored
        ));
    }
    let flows = summary::flow_summaries(s, hop, apps, &counters);
    let directions = summary::direction_summaries(s, hop, &flows);
    let blocked = hop.blocked_s();
    let to_s = |t: Time| t.as_nanos() as f64 / 1e9;
    let mut links: Vec<LinkSummary> = hop
        .links
        .iter()
        .map(|l| LinkSummary {
            name: l.name.clone(),
            stats: l.stats,
        })
        .collect();
    if let Some(air) = &hop.air {
        // The wireless directions are the simulator's hops'.
        links.truncate(links.len() - 2);
        for (h, name) in air.hops.iter().zip(&air.names) {
            let [(_, down), (_, up)] = h.link_stats();
            links.push(LinkSummary {
                name: format!("bs-{name}"),
                stats: down,
            });
            links.push(LinkSummary {
                name: format!("{name}-bs"),
                stats: up,
            });
        }
    }
    let strings = |m: &std::collections::BTreeMap<&'static str, u64>| {
        m.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    Summary {
        xltcp_version: env!("CARGO_PKG_VERSION"),
        engine: Some("emu"),
        scenario: scenario::echo(s),
        seed,
        duration_s: s.sim.duration.as_secs_exact(),
        events: hop.counters.events,
        packets: links.iter().map(|l| l.stats.transmitted).sum(),
        wall_seconds: 0.0,
        flows,
        directions,
        links,
        accounting: hop.counters.accounting,
        hop: HopSummary {
            blocked_s: blocked,
            usable_s: s.sim.duration.as_secs_f64() - blocked,
            no_interface: 0,
        },
        hop_sections: Sections(hop.air.iter().filter_map(|a| a.first().section()).collect()),
        more_hops: hop
            .air
            .iter()
            .flat_map(|a| a.hops.iter().zip(&a.names).skip(1))
            .map(|(h, name)| MoreHopSummary {
                name: name.clone(),
                sections: Sections(h.section().into_iter().collect()),
            })
            .collect(),
        signals: hop
            .air
            .as_ref()
            .filter(|a| a.publishes_signals())
            .map(|a| a.signals.clone()),
        output: None,
        agents: hop.agents.sections(),
        local_retransmissions: None,
        emu: Some(EmuDetails {
            cpu_share: if report.wall_s > 0.0 {
                report.cpu_s / report.wall_s
            } else {
                0.0
            },
            datapath: report,
            rejected: strings(&hop.counters.rejected),
            dropped_other: strings(&hop.counters.dropped_other),
            non_tcp_forwarded: hop.counters.non_tcp,
            control_bypassed: hop.counters.control_bypassed,
            sender_freeze: (!hop.agents.commanding_hosts().is_empty()).then_some(hop.freeze),
            hop_drops: hop
                .air
                .as_ref()
                .map(|a| strings(&a.drops))
                .unwrap_or_default(),
            hop_drops_by_hop: hop
                .air
                .iter()
                .filter(|a| a.hops.len() > 1)
                .flat_map(|a| a.names.iter().zip(&a.drops_by_hop))
                .map(|(name, m)| (name.clone(), strings(m)))
                .collect(),
            blocked_intervals: hop
                .blocked_intervals
                .iter()
                .map(|&(a, b)| (to_s(a), to_s(b)))
                .collect(),
            app_bytes: apps
                .iter()
                .map(|a| a.as_ref().map_or(0, |r| r.bytes_received))
                .collect(),
            app_seconds: apps
                .iter()
                .map(|a| a.as_ref().map_or(0.0, |r| r.seconds))
                .collect(),
            retransmissions_from: apps
                .iter()
                .map(|a| {
                    a.as_ref()
                        .and_then(|r| r.retransmits_from)
                        .unwrap_or("unknown")
                        .to_string()
                })
                .collect(),
            linux_tcp: counters,
            linux_cc: cc,
            sysctls: Vec::new(),
            warnings,
        }),
    }
}
