//! The world's side of the agents (their slots are [`super::super::agents`]):
//! packets through a node's taps, the verdicts and actions that come back,
//! their timers, and the signals published to them.

use super::Ev;
use super::World;
use crate::hop::{Hop, Station, BS};
use crate::schemes::{Action, Node, NodeSignal, Tap, Verdict};
use crate::sim::flow::Side;
use crate::time::Time;
use crate::wire::Packet;

impl World {
    pub(super) fn slots_of(&self, node: Node) -> &[u32] {
        if self.agents.is_empty() {
            return &[];
        }
        self.node_agents
            .get(node_index(node))
            .map_or(&[], |v| v.as_slice())
    }

    /// Shows `p` to the node's agents in order; the first verdict other
    /// than `Pass` ends the walk.
    #[inline(always)]
    pub(super) fn tap(&mut self, now: Time, node: Node, tap: Tap, p: &mut Packet) -> Verdict {
        // A world without agents (the common case) pays one test per
        // packet and node, not a call.
        if self.agents.is_empty() {
            return Verdict::Pass;
        }
        self.tap_agents(now, node, tap, p)
    }

    fn tap_agents(&mut self, now: Time, node: Node, tap: Tap, p: &mut Packet) -> Verdict {
        for k in 0..self.slots_of(node).len() {
            let slot = self.slots_of(node)[k] as usize;
            let v = self.agents[slot].agent.on_packet(now, tap, p);
            if v != Verdict::Pass {
                if let Verdict::Drop(_) = v {
                    let blocked = self.availability.blocked();
                    self.note_drop(now, p, None, blocked);
                }
                return v;
            }
        }
        Verdict::Pass
    }

    /// Accounts for a verdict other than `Pass` (a consumed packet counts
    /// as delivered, a held one as in flight).
    pub(super) fn settle(&mut self, v: Verdict) {
        match v {
            Verdict::Pass | Verdict::Hold => {}
            Verdict::Consume => self.accounting.delivered += 1,
            Verdict::Drop(_) => self.accounting.dropped += 1,
        }
    }

    /// Carries out what the node's agents ask, re-arms their deadlines and,
    /// if they commanded TCP, pumps the node's endpoints. Returns whether
    /// it pumped.
    #[inline]
    pub(super) fn drain(&mut self, now: Time, node: Node) -> bool {
        if self.agents.is_empty() {
            return false;
        }
        self.drain_agents(now, node)
    }

    fn drain_agents(&mut self, now: Time, node: Node) -> bool {
        let mut commanded = false;
        for k in 0..self.slots_of(node).len() {
            let slot = self.slots_of(node)[k] as usize;
            while let Some(a) = self.agents[slot].agent.poll_action() {
                if let Action::Withdraw { host } = a {
                    self.withdraw(now, slot, node, host);
                    continue;
                }
                commanded |= self.act(now, node, a);
            }
            if let Some(at) = self.agents[slot].arm(now) {
                self.q.schedule(at, Ev::Agent { slot: slot as u32 });
            }
        }
        if commanded {
            for k in 0..self.flows_of(node).len() {
                let (flow, side) = self.flows_of(node)[k];
                self.pump(now, flow, side);
            }
        }
        commanded
    }

    /// The endpoints at `node`: (flow, side).
    fn flows_of(&self, node: Node) -> &[(usize, Side)] {
        match node {
            Node::Host(h) => self.topology.endpoints_of_host(h as usize),
            Node::Wired(f) => self.topology.endpoint_of_wired(f as usize),
            Node::Bs => &[],
        }
    }

    /// Carries out one action; returns whether it commanded TCP.
    fn act(&mut self, now: Time, node: Node, a: Action) -> bool {
        match a {
            Action::Emit { mut packet, via } => {
                packet.meta.uid = self.next_uid;
                self.next_uid += 1;
                self.accounting.injected += 1;
                self.send_from(now, node, via, &packet);
                false
            }
            Action::Release { packet, via } => {
                self.send_from(now, node, via, &packet);
                false
            }
            // Carried out by `drain_agents`, which knows the agent.
            Action::Withdraw { .. } => false,
            Action::Tcp { flow, cmd } => {
                for k in 0..self.flows_of(node).len() {
                    let (f, side) = self.flows_of(node)[k];
                    if flow.is_none_or(|x| x as usize == f) {
                        self.flows[f].ep[side as usize].command(now, cmd);
                    }
                }
                true
            }
        }
    }

    /// Carries out agent `slot`'s [`Action::Withdraw`]: every hop of the
    /// node gives back what it holds for `host` (for the BS at a host),
    /// and the agent takes it.
    fn withdraw(&mut self, now: Time, slot: usize, node: Node, host: u32) {
        let (from, to) = match node {
            Node::Bs => (BS, host as usize + 1),
            Node::Host(h) => (h as usize + 1, BS),
            Node::Wired(_) => return,
        };
        for k in 0..self.hops.len() {
            let mut taken = Vec::new();
            self.drive_hop(now, k, |hop, now, io| {
                taken = hop.withdraw(now, from, to, io);
            });
            if !taken.is_empty() {
                self.agents[slot].agent.on_withdrawn(now, host, &taken);
            }
        }
    }

    pub(super) fn on_agent_timer(&mut self, now: Time, slot: usize) {
        let a = &mut self.agents[slot];
        if a.armed == now {
            a.armed = Time::NEVER;
        }
        a.agent.on_timeout(now);
        let node = a.node;
        self.drain(now, node);
    }

    /// The signal bus: count, hand to the node's agents, trace what they
    /// used.
    pub(super) fn publish(&mut self, now: Time, station: Station, s: NodeSignal) {
        let signal = s.signal;
        self.signals.count_published(signal.name());
        let node = if station == BS {
            Node::Bs
        } else {
            Node::Host(station as u32 - 1)
        };
        let mut used = false;
        for k in 0..self.slots_of(node).len() {
            let slot = self.slots_of(node)[k] as usize;
            used |= self.agents[slot].agent.on_signal(now, &s);
        }
        if !used {
            return;
        }
        self.signals.count_delivered(signal.name());
        if let Some(log) = self.signal_log.as_mut() {
            let record = crate::signal::SignalRecord {
                at: now,
                node: station as u32,
                iface: s.iface,
                signal,
            };
            if log.len() >= self.signal_log_max {
                self.output.signals_not_logged(now, 1);
            } else if self.output.admit_signal(now, record.line_bound()) {
                // Charged a bound of its line in signals.jsonl (no formatting
                // here): the traces' budget bounds what is written.
                log.push_record(record);
            }
        }
        self.drain(now, node);
    }
}
/// The index of a node in `node_agents` (`None`-like past the end for
/// wired hosts, which carry no agents yet).
pub(super) fn node_index(node: Node) -> usize {
    match node {
        Node::Bs => 0,
        Node::Host(h) => 1 + h as usize,
        Node::Wired(_) => usize::MAX,
    }
}
