//! The hosts' side of the world: delivering a packet to an endpoint, its
//! timers, pumping its application and TCP, and sending what it emits.

use super::Ev;
use super::World;
use crate::hop::{self, BS};
use crate::schemes::{Node, Tap, Verdict, Via};
use crate::sim::flow::Side;
use crate::sim::rto_cause::FlowView;
use crate::time::{Dur, Time};
use crate::wire::{Packet, PacketMeta, SeqNum};

impl World {
    /// The node of a flow's endpoint.
    fn node_of(&self, flow: usize, side: Side) -> Node {
        match side {
            Side::Ch => Node::Wired(flow as u32),
            Side::Sh => Node::Host(self.topology.host_of()[flow]),
        }
    }

    pub(super) fn deliver(&mut self, now: Time, flow: usize, side: Side, mut p: Packet) {
        let node = self.node_of(flow, side);
        let v = self.tap(now, node, Tap::HostIn, &mut p);
        if v == Verdict::Pass {
            self.accounting.delivered += 1;
            let ep = &mut self.flows[flow].ep[side as usize];
            if p.meta.forged && p.tcp.payload_len > 0 {
                // An agent's local retransmission: was it needed?
                self.local_rxmits.delivered += 1;
                let end = p.tcp.seq + p.tcp.payload_len;
                if ep.holds(p.tcp.seq, end) {
                    self.local_rxmits.unnecessary += 1;
                }
            }
            ep.handle_segment(now, &p.tcp);
        }
        self.settle(v);
        self.drain(now, node);
        if v == Verdict::Pass {
            self.pump(now, flow, side);
        }
    }

    pub(super) fn on_timer(&mut self, now: Time, flow: usize, side: usize) {
        let f = &mut self.flows[flow];
        if f.timer_armed[side] == now {
            f.timer_armed[side] = Time::NEVER;
        }
        match f.ep[side].poll_timeout() {
            Some(t) if t <= now => {
                let ep = &f.ep[side];
                let (rtos, una, rto) = (ep.stats().rto_count, ep.snd_una(), ep.rto());
                f.ep[side].handle_timeout(now);
                let sender = f.sender_side() as usize == side;
                if sender && f.ep[side].stats().rto_count > rtos {
                    self.classify_rto(now, flow, side, una, rto);
                }
            }
            _ => {}
        }
        let s = if side == 0 { Side::Ch } else { Side::Sh };
        self.pump(now, flow, s);
    }

    /// Puts the data RTO that flow `flow`'s `side` just had (`snd_una` was
    /// `una`, the expired timer `rto` long) in its cause
    /// ([`super::rto_cause`]).
    fn classify_rto(&mut self, now: Time, flow: usize, side: usize, una: SeqNum, rto: Dur) {
        let held = self.flows[flow].ep[1 - side].rcv_nxt() > una;
        let view = self.flow_view(flow, una);
        let (blocked_now, unblocked_at) = (self.blocked_since.is_some(), self.unblocked_at);
        self.forensics
            .classify(now, flow, rto, held, view, |since| {
                blocked_now || unblocked_at > since
            });
    }

    /// Notes a dropped packet for the RTO causes of its flow.
    pub(super) fn note_drop(
        &mut self,
        now: Time,
        p: &Packet,
        why: Option<hop::HopDrop>,
        blocked: bool,
    ) {
        let flow = p.meta.flow as usize;
        let Some(f) = self.flows.get(flow) else {
            return;
        };
        let view = self.flow_view(flow, f.sender().snd_una());
        self.forensics.note_drop(now, p, why, blocked, view);
    }

    /// What the RTO causes need of flow `flow`, its sender at `snd_una`.
    fn flow_view(&self, flow: usize, snd_una: SeqNum) -> FlowView {
        let side = self.flows[flow].sender_side();
        FlowView {
            sender_addr: self.topology.addresses(flow, side).0,
            snd_una,
            una_rel: self.flows[flow].sender().snd_una_rel(),
        }
    }

    /// Records the hop's blocked time when flow `flow`'s file transfer has
    /// just completed (for its usable time while active).
    fn note_completion(&mut self, now: Time, flow: usize) {
        let f = &mut self.flows[flow];
        if f.completed_at.is_some() && f.blocked_at_completion.is_none() {
            f.blocked_at_completion =
                Some(self.blocked_total + self.blocked_since.map_or(Dur::ZERO, |s| now - s));
        }
    }

    /// A segment of flow `flow`'s `side` endpoint is through its host's
    /// stack.
    pub(super) fn on_stack_out(&mut self, now: Time, flow: usize, side: usize) {
        let Some(p) = self
            .stacks
            .get_mut(2 * flow + side)
            .and_then(Option::as_mut)
            .and_then(|s| s.pop(now))
        else {
            return;
        };
        let side = if side == 0 { Side::Ch } else { Side::Sh };
        let node = self.node_of(flow, side);
        self.leave_host(now, node, p);
    }

    /// A segment an endpoint at `node` sent reaches its interface: its
    /// agents see it, then it leaves.
    fn leave_host(&mut self, now: Time, node: Node, mut packet: Packet) {
        let v = self.tap(now, node, Tap::HostOut, &mut packet);
        if v == Verdict::Pass {
            self.send_from(now, node, Via::Air, &packet);
        }
        self.settle(v);
        self.drain(now, node);
    }

    /// After any input to an endpoint: run its applications, send what it
    /// wants to send, tell the node's agents its events, and (re)arm its
    /// timer.
    pub(super) fn pump(&mut self, now: Time, flow: usize, side: Side) {
        let i = side as usize;
        let node = self.node_of(flow, side);
        let (src, dst) = self.topology.addresses(flow, side);
        self.flows[flow].run_apps(side, now);
        self.note_completion(now, flow);
        loop {
            let f = &mut self.flows[flow];
            let Some(tx) = f.ep[i].poll_transmit(now) else {
                break;
            };
            let ip_id = f.ip_id[i];
            f.ip_id[i] = ip_id.wrapping_add(1);
            let packet = Packet {
                src,
                dst,
                ip_id,
                ttl: 64,
                tcp: tx.segment,
                meta: PacketMeta {
                    flow: flow as u32,
                    uid: self.next_uid,
                    retransmission: tx.retransmission,
                    forged: false,
                    iface: 0,
                    ..PacketMeta::default()
                },
            };
            self.next_uid += 1;
            self.accounting.injected += 1;
            if let Some(pipe) = self.stacks.get_mut(2 * flow + i).and_then(Option::as_mut) {
                let at = pipe.push(now, packet);
                let (flow, side) = (flow as u32, i as u8);
                self.q.schedule(at, Ev::StackOut { flow, side });
            } else {
                self.leave_host(now, node, packet);
            }
            // Sending may have freed send-buffer space (e.g. a FIN queued).
            self.flows[flow].run_apps(side, now);
        }
        self.note_completion(now, flow);
        self.output.watch(now, flow, &self.flows[flow]);
        let listening = !self.slots_of(node).is_empty();
        let mut told = false;
        while let Some(e) = self.flows[flow].ep[i].poll_event() {
            if listening {
                for k in 0..self.slots_of(node).len() {
                    let slot = self.slots_of(node)[k] as usize;
                    self.agents[slot].agent.on_tcp_event(now, flow as u32, &e);
                }
                told = true;
            }
        }
        if told && self.drain(now, node) {
            // The agents commanded TCP; drain pumped the node again.
            return;
        }
        let f = &mut self.flows[flow];
        if let Some(t) = f.ep[i].poll_timeout() {
            let t = t.max(now);
            if t < f.timer_armed[i] {
                f.timer_armed[i] = t;
                let ev = Ev::Timer {
                    flow: flow as u32,
                    side: i as u8,
                };
                self.q.schedule(t, ev);
            }
        }
    }

    /// A packet leaves `node` (an endpoint or an agent there): a host has
    /// one way out (`via` only says whether ahead of its queue); the BS
    /// sends onto the air toward the packet's wireless host (`AirFirst`:
    /// ahead of its queue) or onto the wire toward its wired host.
    pub(super) fn send_from(&mut self, now: Time, node: Node, via: Via, p: &Packet) {
        let flow = p.meta.flow as usize;
        match (node, via) {
            (Node::Wired(_), _) => self.send_wired(now, 2 * flow, *p),
            (Node::Host(h), via) => self.hop_send(now, h as usize + 1, BS, p, via == Via::AirFirst),
            (Node::Bs, Via::Air | Via::AirFirst) => {
                let to = self.topology.station_of_flow(flow);
                self.hop_send(now, BS, to, p, via == Via::AirFirst);
            }
            (Node::Bs, Via::Wire) => self.send_wired(now, 2 * flow + 1, *p),
        }
    }
}
