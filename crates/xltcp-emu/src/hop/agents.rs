//! The schemes' agents at the base station and the wireless hosts: packets
//! through their taps, what they emit, hold and release, and the freezes
//! they ask of a host's TCP.

use xltcp_core::hop::{Hop as _, BS};
use xltcp_core::schemes::{ucl, Action, Node, Tap, Via};
use xltcp_core::sim::flow::Side;
use xltcp_core::tcp::Command;
use xltcp_core::time::Time;
use xltcp_core::wire::{emit, Packet};

/// Where delivered datagrams go: the host namespace of `side`.
use super::datagram::decrement_ttl;
use super::Hop;

impl Hop {
    /// A datagram reached the BS (`from_air`: from the wireless hop, else
    /// from a wired host); the BS routes it on through its agents: from a
    /// wired host onto the air, from the air to the flow's wired host. It
    /// decrements the TTL as a router does: from the air after its agents
    /// (the UCL opens the frame the host sealed), toward the air before
    /// them (the UCL seals what goes on the air).
    pub(super) fn at_bs(&mut self, at: Time, from_air: bool, p: Packet) {
        let flow = p.meta.flow as usize;
        if from_air {
            let Some(p) = self.through_agents(at, Tap::BsUp, p) else {
                return self.drain_agents(at);
            };
            self.take_opened(p.meta.uid);
            if !decrement_ttl(self.slab.get_mut(p.meta.uid)) {
                self.slab.remove(p.meta.uid);
                self.drop_other("ttl_expired");
                return self.drain_agents(at);
            }
            self.send(at, 2 * flow + 1, p);
        } else {
            if !decrement_ttl(self.slab.get_mut(p.meta.uid)) {
                self.slab.remove(p.meta.uid);
                return self.drop_other("ttl_expired");
            }
            if !self.agents.is_empty() {
                self.stage(p.meta.uid);
                self.keep_copy(&p);
            }
            let Some(p) = self.through_agents(at, Tap::BsDown, p) else {
                return self.drain_agents(at);
            };
            self.send(at, self.wl_down, p);
        }
        if !self.agents.is_empty() {
            self.drain_agents(at);
        }
    }

    /// A datagram reached the hosts of `to`: counted in order at its
    /// receiver, written with the next flush.
    pub(super) fn deliver_to(&mut self, to: Side, p: Packet) {
        let flow = p.meta.flow as usize;
        let bytes = self.slab.get_mut(p.meta.uid);
        if to == self.receiver[flow] && bytes[9] == 6 {
            self.inorder.on_segment(flow as u32, &p.tcp);
        }
        self.ready.push((to, p.meta.uid));
    }

    /// Shows a datagram crossing the BS to its agents and honours their
    /// verdict (see [`crate::agents`]); the packet to send on, if any.
    /// The caller sends it, then carries out the agents' actions.
    fn through_agents(&mut self, at: Time, tap: Tap, p: Packet) -> Option<Packet> {
        if self.agents.is_empty() {
            return Some(p);
        }
        let mut q = p;
        let verdict = self.agents.tap(at, tap, &mut q);
        self.settle(verdict, p, q)
    }

    /// Carries out the agents' actions (the BS's, and those the hosts'
    /// agents take at the host's interface) and re-arms their deadlines.
    pub(super) fn drain_agents(&mut self, at: Time) {
        let actions = self.agents.drain(at, &mut self.deadlines);
        for &(node, a) in &actions {
            let host = match node {
                Node::Host(h) => Some(h),
                _ => None,
            };
            match a {
                Action::Emit { packet, via } => self.emit_from(at, host, packet, via),
                Action::Release { packet, via } => self.release(at, host, packet, via),
                Action::Tcp { .. } | Action::Withdraw { .. } => {}
            }
        }
        self.agents.recycle(actions);
        let withdrawals = std::mem::take(&mut self.agents.withdrawals);
        for &(slot, node, host) in &withdrawals {
            self.withdraw(at, slot, node, host);
        }
        if !withdrawals.is_empty() {
            // What the agents do with the packets they took back.
            return self.drain_agents(at);
        }
        let commands = std::mem::take(&mut self.agents.host_commands);
        for c in commands {
            match c.cmd {
                Command::Freeze => self.freeze_host(at, c.host, true),
                Command::Resume => self.freeze_host(at, c.host, false),
                // No agent the emulator runs at a host retransmits.
                Command::Retransmit { .. } => self.agents.host_actions_ignored += 1,
            }
        }
    }

    /// Carries out agent `slot`'s [`Action::Withdraw`] for `host`: the
    /// emulated air gives back what the node's station holds for it and
    /// has not sent; the agent holds the packets (their bytes stay in the
    /// slab) until it releases them.
    fn withdraw(&mut self, at: Time, slot: u32, node: Node, host: u32) {
        let (from, to) = match node {
            Node::Host(h) => (h as usize + 1, BS),
            _ => (BS, host as usize + 1),
        };
        let capture = self.capture.is_some();
        let hops = self.air.as_ref().map_or(0, |air| air.hops.len());
        let mut taken = Vec::new();
        for k in 0..hops {
            let Some(air) = self.air.as_mut() else { break };
            let out = air.call(k, &mut self.deadlines, at, capture, |h, now, io| {
                taken.extend(h.withdraw(now, from, to, io));
            });
            self.act_air(at, k, out);
        }
        for p in &taken {
            self.held_uids.insert(p.meta.uid);
        }
        self.agents.withdrawn(at, slot, host, &taken);
    }

    /// Freezes (or resumes) the TCP of wireless host `host`: Linux TCP
    /// has no freeze, so the host's interface holds what it sends while
    /// frozen and sends it, in order, on resume (see `docs/emulator.md`).
    pub(super) fn freeze_host(&mut self, at: Time, host: u32, freeze: bool) {
        let h = host as usize;
        let Some(f) = self.host_frozen.get_mut(h) else {
            return;
        };
        if *f == freeze {
            return;
        }
        *f = freeze;
        if freeze {
            self.freeze.freezes += 1;
            return;
        }
        self.freeze.resumes += 1;
        while let Some(p) = self.host_hold[h].pop_front() {
            self.leave_host(at, h, p);
        }
    }

    /// Holds a datagram a frozen host sent at its interface.
    pub(super) fn hold_at_host(&mut self, host: usize, packet: Packet, tcp: bool) {
        self.freeze.datagrams_held += 1;
        if tcp && packet.tcp.payload_len > 0 {
            self.freeze.data_segments_held += 1;
        }
        self.host_hold[host].push_back(packet);
        let n = self.host_hold[host].len() as u64;
        self.freeze.most_held = self.freeze.most_held.max(n);
    }

    /// Sends on a packet an agent held, with its real bytes: from the BS
    /// (`host` None) or from a wireless host's interface.
    fn release(&mut self, at: Time, host: Option<u32>, packet: Packet, via: Via) {
        if !self.held_uids.remove(&packet.meta.uid) || packet.meta.flow >= self.flows {
            // Not a datagram the BS holds: nothing real to send.
            self.counters.accounting.injected += 1;
            return self.drop_other("agent_release_unknown");
        }
        self.send_from(at, host, packet, via);
    }

    /// Sends `packet` (its bytes in the slab) from the BS (`host` None)
    /// or from a wireless host, the way `via` says.
    fn send_from(&mut self, at: Time, host: Option<u32>, packet: Packet, via: Via) {
        let flow = packet.meta.flow as usize;
        if host.is_some() {
            return self.host_send(at, packet, via == Via::AirFirst);
        }
        match via {
            Via::AirFirst if self.air.is_some() => self.air_send(at, true, packet, true),
            Via::Air | Via::AirFirst => self.send(at, self.wl_down, packet),
            Via::Wire => self.send(at, 2 * flow + 1, packet),
        }
    }

    /// Sends an agent's packet from its node (the BS, or wireless host
    /// `host`) as real bytes: a packet without payload serialised
    /// ([`emit`]); a UCL frame (`meta.link_frame`) with the bytes of its
    /// air: a handshake message, or the real datagram a resend seals again;
    /// a data frame an agent resends from its copy (PHY-LR and C-Snoop at
    /// a host, Snoop and C-Snoop at the BS) with the bytes the frame had
    /// when it went onto the air ([`LinkCopies`]). Other packets with
    /// payload, and resends whose bytes were forgotten, are dropped
    /// (`agent_payload`): pattern bytes would corrupt a real stream.
    fn emit_from(&mut self, at: Time, host: Option<u32>, mut packet: Packet, via: Via) {
        self.counters.accounting.injected += 1;
        let flow = packet.meta.flow;
        if flow >= self.flows {
            return self.drop_other("agent_payload");
        }
        let handle = packet.meta.link_frame;
        let ucl_bytes = match (&self.agents.ucl_air, handle) {
            (Some(air), h) if h & ucl::secure::CONTROL != 0 => air.frame(h),
            (Some(air), h) if h != 0 => air.plaintext(h),
            _ => None,
        };
        // A resend of a frame the node sent (PHY-LR, Snoop, C-Snoop): its
        // real bytes.
        let copy = match &self.link_copies {
            Some(c) if ucl_bytes.is_none() && packet.tcp.payload_len > 0 => c.get(&packet),
            _ => None,
        };
        if let Some(bytes) = copy {
            packet.meta.uid = self.slab.insert(bytes);
        } else if let Some(bytes) = ucl_bytes {
            packet.meta.uid = self.slab.insert(&bytes);
        } else {
            if packet.tcp.payload_len > 0 {
                return self.drop_other("agent_payload");
            }
            self.emit_buf.clear();
            emit(&packet, &mut self.emit_buf);
            packet.meta.uid = self.slab.insert(&self.emit_buf);
        }
        self.send_from(at, host, packet, via);
    }
}
