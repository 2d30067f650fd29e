//! The schemes' agents at the base station, driven on real datagrams as
//! the simulator drives them (`sim/world.rs`): the same agents, built by
//! [`xltcp_core::schemes::build`], see each datagram's compact packet at
//! [`Tap::BsDown`] (from a wired host, before the air) and [`Tap::BsUp`]
//! (from the air, before the wired link), in the scenario's order, the
//! first verdict other than `Pass` ending the walk; then their actions are
//! drained and their deadlines re-armed on the hop's deadline heap.
//!
//! The emulator's side of the contract ([`xltcp_core::schemes::agent`]):
//!
//! - `Pass`: the datagram goes on; a rewrite of its ACK number or window
//!   is written into the real bytes (checksum updated), other rewrites
//!   are not carried (no BS agent makes one).
//! - `Consume` / `Drop`: the datagram is freed, counted delivered /
//!   dropped (the reason in the summary's `emu.dropped_other`).
//! - `Hold`: the datagram is freed; the agent's [`Agent::held`] counts it
//!   in flight at the end.
//! - `Emit`: the packet is serialised with [`xltcp_core::wire::emit`]
//!   (valid IPv4 and TCP checksums), put in the slab, counted injected and
//!   sent from the BS on the air or the wired link. The emulator has no
//!   payload bytes of its own: an emitted packet that carries payload is
//!   dropped (`agent_payload`), since pattern bytes would corrupt a real
//!   stream.
//! - `Tcp` commands: the BS has no TCP; ignored, as in the simulator.
//!
//! An agent at a host that commands its TCP (TCP-LR: retransmit this
//! range now) cannot act on a real Linux TCP; the orchestration refuses
//! scenarios that place one ([`host_agents`]). Those of [`RUNS_AT_HOSTS`]
//! act below their host's TCP or on its behalf, and run here at the
//! host's interface (between its TUN device and the air):
//!
//! - CR-aware TCP listens to its host's radio (the emulated hop's PU
//!   detector at the host's station) and commands its TCP to freeze and
//!   resume; the commands are queued ([`BsAgents::host_commands`]) and
//!   carried out at the host's interface, since Linux TCP has no freeze of
//!   its own (see [`crate::hop::Hop`]: a frozen host's datagrams are held
//!   there).
//! - The UCL's host half acts below IP, so nothing of it needs Linux's
//!   TCP: every datagram the host sends is shown to it at
//!   [`Tap::HostOut`] (it picks the interface, holds packets while its
//!   link's handshake runs or a switch drains, seals them), every one the
//!   air delivers at [`Tap::HostIn`] (it opens them, consumes handshake
//!   messages); its emissions (handshake messages, resends on another
//!   interface) and releases leave from the host onto the air. With its
//!   security on, the real datagrams are sealed and opened through the
//!   pair's [`ucl::Air`] ([`BsAgents::ucl_air`]; see
//!   [`xltcp_core::schemes::ucl::secure`]), whose handshakes draw their
//!   ephemeral keys from the OS ([`os_entropy`]) unless the scenario says
//!   `seeded_keys = true`.
//! - PHY-LR (local recovery's sender agent, `local_recovery = "phy"`)
//!   keeps the host's data frames it saw leave ([`Tap::HostOut`]) and
//!   resends the ones a BS report marks lost; the emulator keeps the real
//!   bytes of the host's recent data frames at its interface
//!   ([`crate::hop::Hop`]) and sends a resend with the bytes of the frame
//!   it copies. The BS's reports reach the agent at [`Tap::HostIn`] and
//!   are consumed there, never written to Linux. TCP-LR, which commands
//!   the sender's TCP, is refused.
//! - C-Snoop's host half (`[[agent]] scheme = "c_snoop" at = "hosts"`)
//!   caches the uplink data frames it sees leave ([`Tap::HostOut`]) and
//!   resends those its host's MAC reports undelivered: its MAC's
//!   `delivered` / `undelivered` reports come from the emulated hop at
//!   the host's station, and a resend leaves the host's interface with
//!   the real bytes of the frame it copies (kept there as for PHY-LR;
//!   [`resends_frames`]). The duplicate ACKs it keeps from its TCP
//!   ([`Tap::HostIn`]) are consumed before Linux sees them. The BS's
//!   half (and Snoop's) resends downlink frames with the bytes the BS
//!   sent onto the air, kept the same way.
//! - CLAMP's host half (`scheme = "clamp"`) runs its window controller on
//!   the data the host receives ([`Tap::HostIn`]) and rewrites the window
//!   field of every ACK the host's Linux sends ([`Tap::HostOut`]); the
//!   rewrite goes into the real bytes with the checksum updated, as for
//!   the BS's rewrites. The AP's price reaches it through the
//!   [`xltcp_core::schemes::clamp::PriceBoard`] the two halves share, as
//!   in the simulator (the stand-in for a field the AP would stamp).
//! - L2-CLAMP's host half (`scheme = "l2clamp"`) consumes the standalone
//!   non-duplicate ACKs the host's Linux sends ([`Tap::HostOut`]; the BS
//!   makes them instead from the MAC's reports); the others pass.
//! - SNACK's host half (SNACK-TCP, `scheme = "snack"`) keeps copies of
//!   the uplink data frames its host sends ([`Tap::HostOut`]), consumes
//!   the BS's SNACKs at [`Tap::HostIn`] (forged segments naming the
//!   missing blocks; Linux never sees them) and resends every named hole
//!   from its copies, with the real bytes of the frames it copies (kept
//!   at the interface as for PHY-LR; [`resends_frames`]); the FH's
//!   duplicate ACKs for a hole it is repairing are consumed before Linux
//!   sees them. Nothing of it commands the host's TCP.

use crate::sched::{Deadlines, Ev};
use xltcp_core::scenario::{AgentScheme, LocalRecoverySpec, Scenario};
use xltcp_core::schemes::{self, ucl, Action, Agent, AgentStats, Node, NodeSignal, Tap, Verdict};
use xltcp_core::sim::agents::AgentSlot;
use xltcp_core::sim::summary::{agent_sections, Sections};
use xltcp_core::sim::topology::Topology;
use xltcp_core::tcp::Command;
use xltcp_core::time::Time;
use xltcp_core::wire::Packet;

/// The OS's randomness for the UCL's ephemeral keys: real traffic gets
/// fresh session keys every run (a scenario may ask for seeded ones,
/// `seeded_keys = true`).
pub fn os_entropy() -> ucl::Entropy {
    ucl::Entropy::new(|| {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| e.to_string())?;
        Ok(bytes)
    })
}

/// Schemes whose host agents the emulator runs on the host's behalf
/// (see the module doc), by section name; local recovery's only as PHY-LR
/// (see [`phy_lr`]).
pub const RUNS_AT_HOSTS: &[&str] = &[
    "cr_aware",
    "ucl",
    "local_recovery",
    "c_snoop",
    "clamp",
    "l2clamp",
    "snack",
];

/// Whether `scenario` runs an agent that resends data frames from its own
/// copy of them (PHY-LR at the sender, Snoop, C-Snoop and SNACK's BS half
/// at the base station, C-Snoop at a host, the UCL's resend on another
/// interface without its security, which keeps the plaintext itself): the
/// emulator then keeps the real bytes of the recent data frames sent onto
/// the air ([`crate::hop::Hop`]), so a resend carries the bytes its frame
/// had.
pub fn resends_frames(scenario: &Scenario) -> bool {
    phy_lr(scenario)
        || scenario.agents.iter().any(|a| match &a.scheme {
            AgentScheme::Snoop | AgentScheme::CSnoop | AgentScheme::Snack => true,
            AgentScheme::Ucl(c) => c.resend && c.security.is_none(),
            _ => false,
        })
}

/// Whether `scenario` runs local recovery's sender agent as PHY-LR (it
/// resends from a link buffer of the host's own frames, which the
/// emulator keeps at the host's interface).
pub fn phy_lr(scenario: &Scenario) -> bool {
    scenario.schemes.local_recovery == LocalRecoverySpec::Phy
        || scenario.agents.iter().any(|a| {
            matches!(
                a.scheme,
                AgentScheme::LrSender {
                    mode: LocalRecoverySpec::Phy,
                    ..
                }
            )
        })
}

/// Whether `scenario` runs local recovery's sender agent as TCP-LR (it
/// commands the sender's TCP to retransmit a range).
fn tcp_lr(scenario: &Scenario) -> bool {
    scenario.schemes.local_recovery == LocalRecoverySpec::Tcp
        || scenario.agents.iter().any(|a| {
            matches!(
                a.scheme,
                AgentScheme::LrSender {
                    mode: LocalRecoverySpec::Tcp,
                    ..
                }
            )
        })
}

/// A TCP command a host agent gave its host's TCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCommand {
    /// The wireless host.
    pub host: u32,
    /// The flow it names (`None`: every endpoint at the host).
    pub flow: Option<u32>,
    /// The command.
    pub cmd: Command,
}

/// The agents the emulator runs: the base station's, and the host agents
/// of [`RUNS_AT_HOSTS`].
#[derive(Debug, Default)]
pub struct BsAgents {
    slots: Vec<AgentSlot>,
    actions: Vec<(Node, Action)>,
    /// Withdrawals asked for ([`Action::Withdraw`]): (slot, node, host),
    /// for the caller to carry out and hand back with
    /// [`BsAgents::withdrawn`].
    pub withdrawals: Vec<(u32, Node, u32)>,
    /// TCP commands of the host agents, in order, for the sender side.
    pub host_commands: Vec<HostCommand>,
    /// Actions of host agents the emulator cannot carry out (none of
    /// [`RUNS_AT_HOSTS`] gives one), counted.
    pub host_actions_ignored: u64,
    /// The UCL pair's air with its security on: the real datagrams it
    /// seals and opens go through it.
    pub ucl_air: Option<ucl::Air>,
    /// Whether any agent sits at a host.
    at_hosts: bool,
}

impl BsAgents {
    /// The BS agents `scenario` switches on for a run with `seed`, and its
    /// host agents of [`RUNS_AT_HOSTS`] (others are left out; see
    /// [`host_agents`]).
    pub fn new(scenario: &Scenario, seed: u64) -> BsAgents {
        let topology = Topology::of(scenario);
        let (agents, ucl_air) = schemes::build_carrying_real_bytes(
            scenario,
            topology.host_of(),
            seed,
            Some(os_entropy()),
        );
        let slots: Vec<AgentSlot> = agents
            .into_iter()
            .filter(|(node, agent)| {
                *node == Node::Bs || RUNS_AT_HOSTS.contains(&agent_name(agent.as_ref()))
            })
            .map(|(node, agent)| AgentSlot::new(node, agent))
            .collect();
        BsAgents {
            at_hosts: slots.iter().any(|s| matches!(s.node, Node::Host(_))),
            slots,
            ucl_air,
            ..BsAgents::default()
        }
    }

    /// Whether any agent sits at a host (the data path then shows the
    /// hosts' datagrams to them).
    pub fn any_at_hosts(&self) -> bool {
        self.at_hosts
    }

    /// Shows `p` to the agents of host `host` at `tap`, in order; the
    /// first verdict other than `Pass` ends the walk.
    pub fn tap_host(&mut self, now: Time, host: u32, tap: Tap, p: &mut Packet) -> Verdict {
        for slot in self.slots.iter_mut().filter(|s| s.node == Node::Host(host)) {
            let v = slot.agent.on_packet(now, tap, p);
            if v != Verdict::Pass {
                return v;
            }
        }
        Verdict::Pass
    }

    /// The wireless hosts whose agents command their TCP (CR-aware TCP's).
    pub fn commanding_hosts(&self) -> Vec<u32> {
        let mut hosts: Vec<u32> = self
            .slots
            .iter()
            .filter_map(|s| match s.node {
                Node::Host(h) if agent_name(s.agent.as_ref()) == "cr_aware" => Some(h),
                _ => None,
            })
            .collect();
        hosts.sort_unstable();
        hosts.dedup();
        hosts
    }

    /// Whether there are none (the data path then skips them).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Shows `p` to the agents in order; the first verdict other than
    /// `Pass` ends the walk.
    pub fn tap(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        for slot in self.slots.iter_mut().filter(|s| s.node == Node::Bs) {
            let v = slot.agent.on_packet(now, tap, p);
            if v != Verdict::Pass {
                return v;
            }
        }
        Verdict::Pass
    }

    /// Hands a signal of `node`'s radio to its agents; true if one used it.
    pub fn on_signal(&mut self, now: Time, node: Node, s: &NodeSignal) -> bool {
        let mut used = false;
        for slot in self.slots.iter_mut().filter(|s| s.node == node) {
            used |= slot.agent.on_signal(now, s);
        }
        used
    }

    /// Fires agent `slot`'s deadline, due at `now`.
    pub fn on_timeout(&mut self, now: Time, slot: u32) {
        if let Some(a) = self.slots.get_mut(slot as usize) {
            if a.armed == now {
                a.armed = Time::NEVER;
            }
            a.agent.on_timeout(now);
        }
    }

    /// Takes every agent's pending actions, in slot order, and schedules
    /// their deadlines; the caller carries out the emissions and releases,
    /// each from its node (the host agents' TCP commands go to
    /// [`BsAgents::host_commands`]).
    pub fn drain(&mut self, now: Time, deadlines: &mut Deadlines) -> Vec<(Node, Action)> {
        let mut out = std::mem::take(&mut self.actions);
        for (k, slot) in self.slots.iter_mut().enumerate() {
            while let Some(a) = slot.agent.poll_action() {
                match (slot.node, a) {
                    (Node::Host(host), Action::Tcp { flow, cmd }) => {
                        self.host_commands.push(HostCommand { host, flow, cmd })
                    }
                    (Node::Bs, Action::Tcp { .. }) => {}
                    (node, Action::Withdraw { host }) => {
                        self.withdrawals.push((k as u32, node, host))
                    }
                    (node @ (Node::Bs | Node::Host(_)), a) => out.push((node, a)),
                    _ => self.host_actions_ignored += 1,
                }
            }
            if let Some(at) = slot.arm(now) {
                deadlines.schedule(at, Ev::Agent { slot: k as u32 });
            }
        }
        out
    }

    /// Hands agent `slot` the packets its withdrawal for `host` took back.
    pub fn withdrawn(&mut self, now: Time, slot: u32, host: u32, packets: &[Packet]) {
        if let Some(s) = self.slots.get_mut(slot as usize) {
            s.agent.on_withdrawn(now, host, packets);
        }
    }

    /// Gives back the buffer [`BsAgents::drain`] returned, emptied.
    pub fn recycle(&mut self, mut buf: Vec<(Node, Action)>) {
        buf.clear();
        self.actions = buf;
    }

    /// Packets the agents hold.
    pub fn held(&self) -> u64 {
        self.slots.iter().map(|s| s.agent.held()).sum()
    }

    /// The agents' counters, one section per kind, as the simulator sums them.
    pub fn sections(&self) -> Sections<AgentStats> {
        agent_sections(self.slots.iter().filter_map(|s| s.agent.stats()))
    }
}

/// The schemes of `scenario` that would place agents at hosts, with the
/// reason each cannot run on real Linux TCP; empty if every agent runs
/// (at the BS, or at a host among [`RUNS_AT_HOSTS`]).
pub fn host_agents(scenario: &Scenario) -> Vec<String> {
    let topology = Topology::of(scenario);
    let mut found: Vec<&'static str> = schemes::build(scenario, topology.host_of())
        .iter()
        .filter(|(node, _)| *node != Node::Bs)
        .map(|(_, agent)| agent_name(agent.as_ref()))
        .collect();
    found.retain(|name| !RUNS_AT_HOSTS.contains(name));
    if tcp_lr(scenario) {
        found.push("local_recovery");
    }
    found.sort_unstable();
    found.dedup();
    found
        .into_iter()
        .map(|name| match name {
            "local_recovery" => "[schemes] local_recovery = \"tcp\": TCP-LR commands the \
                sender's TCP to retransmit a given range now; Linux TCP has no means to \
                be told that (future work: see docs/emulator.md); local_recovery = \
                \"phy\" (PHY-LR, resending from the host's interface) and \"bs_reports\" \
                (the BS's gap monitor alone) run"
                .to_string(),
            other => format!("[schemes] {other}: its agent runs at a host"),
        })
        .collect()
}

/// The section name of an agent's scheme.
fn agent_name(agent: &dyn Agent) -> &'static str {
    agent.stats().map_or("agent", |s| s.section())
}
