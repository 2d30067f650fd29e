//! Cross-layer schemes, one file each: sans-IO state machines that take
//! packets, signals and timeouts and return actions for the engine to
//! carry out. None of them knows which engine drives it; each plugs into a
//! node through the [`agent::Agent`] interface.
//!
//! - [`cr_aware`]: CR-aware TCP (paper 000): freeze TCP on `pu_start`,
//!   resume on `pu_stop`, with fallbacks for missed signals.
//! - [`local_recovery`]: gap detection at the BS, SACK-style loss reports
//!   and their retransmission by the sender's link layer (PHY-LR) or its
//!   TCP (TCP-LR).
//! - [`dsasync`]: DSASync (paper 001): BS buffering, zero-window flow
//!   control and uplink pacing across the TFPs of a DSA cell.
//! - [`c_snoop`]: C-Snoop at the BS and the MH (paper 002), driven by the
//!   MAC's delivery reports.
//! - [`snack`]: SNACK (SNACK-S at the BS, SNACK-TCP at the MH), a
//!   documented reconstruction.
//! - [`snoop`]: Snoop at the BS (paper 002's baseline, with ns-2's rules).
//! - [`ucl`]: the Universal Convergence Layer (paper 003): per-packet
//!   interface choice for hosts with several interfaces and
//!   link security.
//! - [`clamp`]: CLAMP and L2-CLAMP (paper 004), a documented
//!   reconstruction: the receiver's advertised window from the price of
//!   its AP queue, set at the receiver (CLAMP) or with BS-made ACKs held
//!   until the MAC delivers (L2-CLAMP).
//! - [`cache`]: what the caching schemes share (connection keys, the
//!   local round-trip time, their counters).
//!
//! # Adding a scheme
//!
//! Write `schemes/<scheme>.rs` with a type that implements
//! [`agent::Agent`]; give its counters a variant of [`AgentStats`] and
//! place it on its nodes in [`build`] (from its scenario keys).

pub mod agent;
pub mod c_snoop;
pub mod cache;
#[cfg(test)]
mod cache_proptests;
pub mod clamp;
pub mod cr_aware;
pub mod dsasync;
pub mod local_recovery;
pub mod snack;
pub mod snoop;
pub mod ucl;

pub use agent::{Action, Agent, Node, NodeSignal, Tap, Verdict, Via};
pub use c_snoop::CSnoop;
pub use cache::{CacheStats, Retransmits};
pub use cr_aware::{CrAction, CrAware, CrAwareConfig, CrAwareStats, FreezeCause};
pub use local_recovery::{
    GapMonitor, LrAction, LrAgent, LrBs, LrMode, LrReport, LrSender, LrStats, ReportTo,
};
pub use snack::{SnackBs, SnackStats, SnackTcp};
pub use snoop::Snoop;

use crate::scenario::{AgentPlace, AgentScheme, Direction, LocalRecoverySpec, Scenario};
use serde::Serialize;

/// An agent's counters, one variant per kind of section in
/// `summary.json`. Agents whose counters share a section (the BS and sender
/// halves of local recovery) add up into it; sections appear in the order
/// of the variants.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AgentStats {
    /// `"cr_aware"`.
    CrAware(CrAwareStats),
    /// `"local_recovery"`.
    LocalRecovery(LrStats),
    /// `"dsasync"`.
    DsaSync(dsasync::DsaSyncStats),
    /// `"snoop"`.
    Snoop(CacheStats),
    /// `"c_snoop"`.
    CSnoop(CacheStats),
    /// `"snack"`.
    Snack(SnackStats),
    /// `"ucl"`: the UCL's interface choice.
    Ucl(ucl::UclStats),
    /// `"clamp"`.
    Clamp(clamp::ClampStats),
    /// `"l2clamp"`.
    L2Clamp(clamp::L2ClampStats),
}

impl AgentStats {
    /// The section's key in `summary.json`.
    pub fn section(&self) -> &'static str {
        match self {
            AgentStats::CrAware(_) => "cr_aware",
            AgentStats::LocalRecovery(_) => "local_recovery",
            AgentStats::DsaSync(_) => "dsasync",
            AgentStats::Snoop(_) => "snoop",
            AgentStats::CSnoop(_) => "c_snoop",
            AgentStats::Snack(_) => "snack",
            AgentStats::Ucl(_) => "ucl",
            AgentStats::Clamp(_) => "clamp",
            AgentStats::L2Clamp(_) => "l2clamp",
        }
    }

    /// The position of the section among the agents' sections.
    pub fn rank(&self) -> usize {
        match self {
            AgentStats::CrAware(_) => 0,
            AgentStats::LocalRecovery(_) => 1,
            AgentStats::DsaSync(_) => 2,
            AgentStats::Snoop(_) => 3,
            AgentStats::CSnoop(_) => 4,
            AgentStats::Snack(_) => 5,
            AgentStats::Ucl(_) => 6,
            AgentStats::Clamp(_) => 7,
            AgentStats::L2Clamp(_) => 8,
        }
    }

    /// Adds `other` (of the same section) into `self`.
    pub fn merge(&mut self, other: &AgentStats) {
        match (self, other) {
            (AgentStats::CrAware(a), AgentStats::CrAware(b)) => *a += *b,
            (AgentStats::LocalRecovery(a), AgentStats::LocalRecovery(b)) => *a += *b,
            (AgentStats::DsaSync(a), AgentStats::DsaSync(b)) => *a += *b,
            (AgentStats::Snoop(a), AgentStats::Snoop(b)) => *a += *b,
            (AgentStats::CSnoop(a), AgentStats::CSnoop(b)) => *a += *b,
            (AgentStats::Snack(a), AgentStats::Snack(b)) => *a += *b,
            (AgentStats::Ucl(a), AgentStats::Ucl(b)) => a.merge(b),
            (AgentStats::Clamp(a), AgentStats::Clamp(b)) => *a += *b,
            (AgentStats::L2Clamp(a), AgentStats::L2Clamp(b)) => *a += *b,
            _ => {}
        }
    }
}

/// The agents `scenario` switches on, each with its node, in the order
/// they see packets on a node. `host_of` gives each flow's wireless host.
///
/// `[schemes]`: CR-aware TCP at every wireless host; local recovery for
/// uplink flows: the gap monitor at the BS and (PHY-LR, TCP-LR) the
/// sender's agent at the flow's host; `"bs_reports"`: the gap monitor
/// alone, reporting to the sender's TCP. Then each `[[agent]]` in its order.
/// Seeded agents (the UCL's security) use `[sim] seed`; see [`build_seeded`].
pub fn build(scenario: &Scenario, host_of: &[u32]) -> Vec<(Node, Box<dyn Agent>)> {
    build_seeded(scenario, host_of, scenario.sim.seed)
}

/// As [`build`], for a run seeded with `seed`.
pub fn build_seeded(
    scenario: &Scenario,
    host_of: &[u32],
    seed: u64,
) -> Vec<(Node, Box<dyn Agent>)> {
    build_with(scenario, host_of, seed, false, None).0
}

/// Agents with their nodes, as [`build`] returns them.
pub type Placed = Vec<(Node, Box<dyn Agent>)>;

/// As [`build_seeded`], for an engine that carries real datagrams (the
/// emulator): the UCL's security seals and opens the real bytes the
/// engine exchanges through the returned air (present with security on;
/// see [`ucl::secure`]). With `entropy` (the OS's randomness) the UCL's
/// ephemeral keys come from it, unless the scenario says `seeded_keys =
/// true`.
pub fn build_carrying_real_bytes(
    scenario: &Scenario,
    host_of: &[u32],
    seed: u64,
    entropy: Option<ucl::Entropy>,
) -> (Placed, Option<ucl::Air>) {
    build_with(scenario, host_of, seed, true, entropy)
}

fn build_with(
    scenario: &Scenario,
    host_of: &[u32],
    seed: u64,
    real_bytes: bool,
    entropy: Option<ucl::Entropy>,
) -> (Placed, Option<ucl::Air>) {
    let s = &scenario.schemes;
    // The UCL pair's air, shared by its halves (with security on).
    let secured = scenario.agents.iter().any(|a| match &a.scheme {
        AgentScheme::Ucl(c) => c.security.is_some(),
        _ => false,
    });
    let cx = Cx {
        seed,
        air: secured.then(|| {
            let air = if real_bytes {
                ucl::Air::carrying_real_bytes()
            } else {
                ucl::Air::new()
            };
            match entropy {
                Some(e) => air.with_entropy(e),
                None => air,
            }
        }),
    };
    let flows = &scenario.flows;
    let mut agents = Vec::new();
    let (bs, mode) = match s.local_recovery {
        LocalRecoverySpec::None => (None, None),
        LocalRecoverySpec::Phy => (Some(ReportTo::Agent), Some(LocalRecoverySpec::Phy)),
        LocalRecoverySpec::Tcp => (Some(ReportTo::Agent), Some(LocalRecoverySpec::Tcp)),
        LocalRecoverySpec::BsReports => (Some(ReportTo::Tcp), None),
    };
    if let Some(to) = bs.filter(|_| flows.iter().any(|f| f.direction == Direction::Up)) {
        place(
            &mut agents,
            scenario,
            host_of,
            &AgentScheme::LrBs,
            &AgentPlace::Bs,
            to,
            &cx,
        );
    }
    if s.cr_aware {
        let cr = AgentScheme::CrAware {
            max_freeze: s.cr_max_freeze,
            probe_interval: s.cr_probe_interval,
            access_failures: s.cr_access_failures,
        };
        place(
            &mut agents,
            scenario,
            host_of,
            &cr,
            &AgentPlace::Hosts,
            ReportTo::Agent,
            &cx,
        );
    }
    if let Some(mode) = mode {
        let lr = AgentScheme::LrSender {
            mode,
            buffer: s.lr_buffer,
        };
        place(
            &mut agents,
            scenario,
            host_of,
            &lr,
            &AgentPlace::Hosts,
            ReportTo::Agent,
            &cx,
        );
    }
    for spec in &scenario.agents {
        place(
            &mut agents,
            scenario,
            host_of,
            &spec.scheme,
            &spec.at,
            ReportTo::Agent,
            &cx,
        );
    }
    (agents, cx.air)
}

/// What placing an agent may need beside the scenario.
struct Cx {
    /// The run's seed.
    seed: u64,
    /// The UCL pair's air (with its security on).
    air: Option<ucl::Air>,
}

/// Places one scheme on the nodes `at` names (`to`: where the BS gap
/// monitor's reports go).
fn place(
    agents: &mut Vec<(Node, Box<dyn Agent>)>,
    scenario: &Scenario,
    host_of: &[u32],
    scheme: &AgentScheme,
    at: &AgentPlace,
    to: ReportTo,
    cx: &Cx,
) {
    let flows = &scenario.flows;
    let hosts = host_of.iter().map(|&h| h + 1).max().unwrap_or(0);
    let up = |i: usize| flows[i].direction == Direction::Up;
    // The hosts `at` names: every one, or one by name.
    let named = |h: u32| match at {
        AgentPlace::Bs => false,
        AgentPlace::Hosts => true,
        AgentPlace::Host(name) => {
            (0..flows.len()).any(|i| host_of[i] == h && flows[i].host_name() == name)
        }
    };
    match *scheme {
        AgentScheme::CrAware {
            max_freeze,
            probe_interval,
            access_failures,
        } => {
            let cfg = CrAwareConfig {
                max_freeze,
                probe_interval,
                access_failures,
            };
            for h in (0..hosts).filter(|&h| named(h)) {
                agents.push((Node::Host(h), Box::new(CrAware::new(cfg))));
            }
        }
        AgentScheme::DsaSync(cfg) => {
            let agent = dsasync::DsaSync::new(cfg, host_of.to_vec());
            agents.push((Node::Bs, Box::new(agent)));
        }
        AgentScheme::LrBs => {
            let monitor = LrBs::reporting_to(to, flows.len(), up);
            agents.push((Node::Bs, Box::new(monitor)));
        }
        AgentScheme::LrSender { mode, buffer } => {
            let mode = match mode {
                LocalRecoverySpec::Phy => LrMode::Phy,
                _ => LrMode::Tcp,
            };
            for i in (0..flows.len()).filter(|&i| up(i) && named(host_of[i])) {
                let lr = LrSender::new(i as u32, mode, buffer as usize);
                agents.push((Node::Host(host_of[i]), Box::new(lr)));
            }
        }
        AgentScheme::Snoop => agents.push((Node::Bs, Box::new(Snoop::new()))),
        AgentScheme::CSnoop if *at == AgentPlace::Bs => {
            agents.push((Node::Bs, Box::new(CSnoop::at_bs())));
        }
        AgentScheme::CSnoop => {
            for h in (0..hosts).filter(|&h| named(h)) {
                agents.push((Node::Host(h), Box::new(CSnoop::at_host())));
            }
        }
        AgentScheme::Snack if *at == AgentPlace::Bs => {
            agents.push((Node::Bs, Box::new(SnackBs::new())));
        }
        AgentScheme::Snack => {
            for h in (0..hosts).filter(|&h| named(h)) {
                agents.push((Node::Host(h), Box::new(SnackTcp::new())));
            }
        }
        AgentScheme::Ucl(ref cfg) => {
            let hops: Vec<_> = std::iter::once(&scenario.wireless)
                .chain(&scenario.more_hops)
                .collect();
            let tcp = flows.first().map_or(&scenario.tcp, |f| &f.tcp);
            // A flow of each host: the route of its control frames.
            let flow_of = |h: u32| host_of.iter().position(|&x| x == h).map(|i| i as u32);
            if *at == AgentPlace::Bs {
                let mut ucl = ucl::Ucl::at_bs(cfg.clone(), &hops, tcp, host_of);
                if let Some(air) = &cx.air {
                    let flows: Vec<_> = (0..hosts).map(flow_of).collect();
                    ucl.secure_bs(air.clone(), cx.seed, &flows);
                }
                agents.push((Node::Bs, Box::new(ucl)));
            } else {
                for h in (0..hosts).filter(|&h| named(h)) {
                    let mut ucl = ucl::Ucl::at_host(cfg.clone(), &hops, tcp);
                    if let Some(air) = &cx.air {
                        ucl.secure_host(air.clone(), cx.seed, h, flow_of(h));
                    }
                    agents.push((Node::Host(h), Box::new(ucl)));
                }
            }
        }
        AgentScheme::Clamp(cfg) => {
            let board = clamp::PriceBoard::new(hosts as usize);
            let ap = clamp::ClampAp::new(cfg, host_of.to_vec(), board.clone());
            agents.push((Node::Bs, Box::new(ap)));
            for h in (0..hosts).filter(|&h| named(h)) {
                let agent = clamp::ClampHost::new(cfg, h, board.clone());
                agents.push((Node::Host(h), Box::new(agent)));
            }
        }
        AgentScheme::L2Clamp(cfg) => {
            let ledger = clamp::l2::Ledger::default();
            let served = (0..hosts).map(named).collect();
            let bs = clamp::L2ClampBs::new(cfg, host_of.to_vec(), served, ledger.clone());
            agents.push((Node::Bs, Box::new(bs)));
            for h in (0..hosts).filter(|&h| named(h)) {
                agents.push((
                    Node::Host(h),
                    Box::new(clamp::L2ClampHost::new(ledger.clone(), cfg.window_updates)),
                ));
            }
        }
    }
}
