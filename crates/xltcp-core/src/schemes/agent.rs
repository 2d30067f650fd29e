//! The agent interface: how a cross-layer scheme plugs into a node.
//!
//! An [`Agent`] sits at one node — the base station, a wireless host, or a
//! wired host — and sees, through default-no-op hooks:
//!
//! - every packet crossing its node at a [`Tap`], which it may pass, rewrite
//!   (the packet is `&mut`), consume or drop ([`Verdict`]);
//! - the signals the node's radio publishes ([`NodeSignal`]: PU detection,
//!   per-frame MAC delivery reports with their packet);
//! - the events of the node's TCP endpoints ([`crate::tcp::Event`]);
//! - its own deadline ([`Agent::poll_timeout`] / [`Agent::on_timeout`]).
//!
//! It acts only through [`Agent::poll_action`]: emit a packet from its node
//! (a forged ACK, a local retransmission, a loss report) or command a TCP
//! endpoint of its node ([`crate::tcp::Command`]).
//!
//! # The engine's side of the contract
//!
//! - After an input the engine first acts on the verdict (forwards or
//!   delivers the packet, or not), then drains `poll_action` of the node's
//!   agents in their order, then re-reads each one's `poll_timeout`. Time
//!   only moves forward; an early `on_timeout` is a no-op.
//! - Packets an agent emits get a fresh uid and enter the network at the
//!   agent's node, after its agents: agents do not see their own emissions.
//! - A consumed packet counts as delivered (it reached its destination: the
//!   agent); a dropped one as dropped; a held one (an agent that buffers)
//!   is reported by [`Agent::held`] and counts as in flight at the end.
//! - Several agents on one node see each packet in the order the scenario
//!   declares them; the first verdict other than `Pass` ends the walk.
//!
//! Signals go to every agent of the node; one that uses a signal says so
//! (`on_signal` returns true) and the engine counts and traces it as
//! delivered.

use super::AgentStats;
use crate::signal::{MacDelays, Signal, UndeliveredReason};
use crate::tcp::{Command, Event};
use crate::time::Time;
use crate::wire::Packet;

/// A node of the topology, as agents and the engine name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Node {
    /// The base station.
    Bs,
    /// Wireless host `i`.
    Host(u32),
    /// The wired host (CH) of flow `i`.
    Wired(u32),
}

/// Where on its node a packet is seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tap {
    /// At the BS: from the wired side, about to go on the air.
    BsDown,
    /// At the BS: from the air, about to go to the wired side.
    BsUp,
    /// At a host: from its TCP, about to leave through its interface.
    HostOut,
    /// At a host: from the network, about to reach its TCP.
    HostIn,
}

/// What happens to a packet an agent has seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It goes on (possibly rewritten).
    Pass,
    /// It ends here: the agent took it (a report meant for it, a
    /// suppressed duplicate ACK). Counted as delivered.
    Consume,
    /// The agent keeps it and will emit it (or a copy) later; counted in
    /// [`Agent::held`] until then.
    Hold,
    /// Dropped, for this reason (counted per reason by the agent).
    Drop(&'static str),
}

/// Which way an emitted packet leaves its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// Onto the wireless hop: from the BS toward the packet's host, from a
    /// host toward the BS.
    Air,
    /// As `Air`, ahead of the packets waiting in the node's interface
    /// queue (on hops that have one: the 802.11 MAC queue; elsewhere as
    /// `Air`).
    AirFirst,
    /// Onto the wired side: from the BS toward the packet's wired host,
    /// from a wired host toward the BS.
    Wire,
}

/// What an agent asks its engine to do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Send `packet` from the agent's node.
    Emit {
        /// The packet (the engine assigns its uid).
        packet: Packet,
        /// Which way.
        via: Via,
    },
    /// Send on a packet the agent held ([`Verdict::Hold`]): the same
    /// packet (same uid), not a new one, so it is not counted again.
    Release {
        /// The packet.
        packet: Packet,
        /// Which way.
        via: Via,
    },
    /// Take back what the node's interface holds for wireless host `host`
    /// (at the BS; at a host, what it holds for the BS) and has not put on
    /// the air: the engine hands the packets to
    /// [`Agent::on_withdrawn`] at once, and the agent holds them from then
    /// on (as if it had answered [`Verdict::Hold`]).
    Withdraw {
        /// The wireless host (index among the hosts).
        host: u32,
    },
    /// Command TCP at the agent's node: the endpoint of `flow`, or every
    /// endpoint of the node when `flow` is `None`.
    Tcp {
        /// The flow, or all of the node's.
        flow: Option<u32>,
        /// What to do.
        cmd: Command,
    },
}

/// A signal as a node's agents receive it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeSignal {
    /// The signal.
    pub signal: Signal,
    /// For `Undelivered`: the MAC's reason.
    pub reason: Option<UndeliveredReason>,
    /// For delivery reports: the packet the frame carried.
    pub packet: Option<Packet>,
    /// For `Delivered`, where the MAC measures them: the frame's queueing
    /// and transmission delays.
    pub delays: Option<MacDelays>,
    /// Which of the node's interfaces (the scenario's hops, in order) the
    /// radio that published it belongs to.
    pub iface: u8,
}

/// A scheme's state machine at one node (see the module doc). `Send`, so
/// an engine may drive it on a thread of its own (the emulator does).
pub trait Agent: std::fmt::Debug + Send {
    /// A packet crosses the node at `tap`.
    fn on_packet(&mut self, now: Time, tap: Tap, packet: &mut Packet) -> Verdict {
        let _ = (now, tap, packet);
        Verdict::Pass
    }

    /// The node's radio published a signal; returns whether the agent
    /// used it.
    fn on_signal(&mut self, now: Time, signal: &NodeSignal) -> bool {
        let _ = (now, signal);
        false
    }

    /// A TCP endpoint of the node (of `flow`) reported an event.
    fn on_tcp_event(&mut self, now: Time, flow: u32, event: &Event) {
        let _ = (now, flow, event);
    }

    /// The packets an [`Action::Withdraw`] of this agent for `host` took
    /// back, in the order they were handed to the interface. The agent holds them
    /// now and must count them in [`Agent::held`]; an agent that never
    /// asks for a withdrawal never gets here.
    fn on_withdrawn(&mut self, now: Time, host: u32, packets: &[Packet]) {
        let _ = (now, host, packets);
    }

    /// The agent's deadline may be due.
    fn on_timeout(&mut self, now: Time) {
        let _ = now;
    }

    /// The next thing to do, if any; drained after every input.
    #[must_use]
    fn poll_action(&mut self) -> Option<Action> {
        None
    }

    /// When `on_timeout` should next be called.
    #[must_use]
    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    /// Packets held (see [`Verdict::Hold`]).
    fn held(&self) -> u64 {
        0
    }

    /// The agent's counters for `summary.json`: agents of one kind add up
    /// into one section. None: the agent has no section.
    fn stats(&self) -> Option<AgentStats> {
        None
    }
}
