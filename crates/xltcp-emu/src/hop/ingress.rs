//! Datagrams entering the base station from the hosts and leaving to
//! them: parsing and refusing, the control connections' bypass, the
//! agents' verdicts at the hosts, and the slab of real bytes.

use xltcp_core::schemes::{Tap, Verdict};
use xltcp_core::sim::flow::Side;
use xltcp_core::time::Time;
use xltcp_core::wire::{parse_with, Packet, PacketMeta, ParseError, ParseOptions, TcpHeaderMut};

/// Where delivered datagrams go: the host namespace of `side`.
use super::datagram::{decrement_ttl, other_side, reject_reason, stand_in};
use super::Hop;

impl Hop {
    /// Refuses a datagram (or a device's frame) read from the hosts of
    /// `from` at `now` for `why`: counted, and captured with its reason.
    pub fn reject(&mut self, now: Time, from: Side, why: &'static str, bytes: &[u8]) {
        *self.counters.rejected.entry(why).or_insert(0) += 1;
        if let Some(cap) = self.capture.as_mut() {
            cap.record_rejected(now, from, bytes, why);
        }
    }

    /// A datagram read from the hosts of `from` at `now`.
    pub fn ingress(&mut self, now: Time, from: Side, bytes: &[u8]) {
        self.ingress_checked(now, from, bytes, true)
    }

    /// A datagram read from the hosts of `from` at `now`; `verify`: check
    /// its checksums (false for a datagram whose checksums the emulator
    /// computed itself, see [`crate::tun::split`]).
    pub fn ingress_checked(&mut self, now: Time, from: Side, bytes: &[u8], verify: bool) {
        let verify = ParseOptions {
            verify_checksums: verify,
        };
        let mut packet = match parse_with(bytes, verify) {
            Ok(p) => p.into_packet(),
            Err(ParseError::NotTcp(_)) => match stand_in(bytes) {
                Some(p) => p,
                None => return self.reject(now, from, "bad_ip_checksum", bytes),
            },
            Err(e) => return self.reject(now, from, reject_reason(&e), bytes),
        };
        let (own, far) = if from == Side::Ch {
            (packet.src, packet.dst)
        } else {
            (packet.dst, packet.src)
        };
        let (Some(flow), Some(_)) = (self.flow_of(own, Side::Ch), self.flow_of(far, Side::Sh))
        else {
            return self.reject(now, from, "unknown_address", bytes);
        };
        let tcp = bytes.len() >= 10 && bytes[9] == 6;
        // The client sends the flow's data: its receiver is the other side.
        let from_client = from != self.receiver[flow as usize];
        let around = tcp && self.control.around(flow as usize, from_client, &packet.tcp);
        if !tcp {
            self.counters.non_tcp += 1;
        } else if packet.tcp.payload_len > 0 && !around {
            self.counters.data_segments[flow as usize][from as usize] += 1;
        }
        self.counters.accounting.injected += 1;
        packet.meta = PacketMeta {
            flow,
            uid: self.slab.insert(bytes),
            retransmission: false,
            forged: false,
            iface: 0,
            ..PacketMeta::default()
        };
        if around {
            // Routed by the BS all the same: its TTL one less.
            self.counters.control_bypassed += 1;
            if !decrement_ttl(self.slab.get_mut(packet.meta.uid)) {
                self.slab.remove(packet.meta.uid);
                return self.drop_other("ttl_expired");
            }
            return self.deliver_to(other_side(from), packet);
        }
        if from == Side::Ch {
            return self.send(now, 2 * flow as usize, packet);
        }
        let host = self.host_of[flow as usize] as usize;
        if self.host_frozen[host] {
            return self.hold_at_host(host, packet, tcp);
        }
        self.leave_host(now, host, packet);
    }

    /// A datagram leaves wireless host `host` through its interface: its
    /// agents see it ([`Tap::HostOut`]), then it goes on the air.
    pub(super) fn leave_host(&mut self, now: Time, host: usize, packet: Packet) {
        if !self.agents.any_at_hosts() {
            return self.send(now, self.wl_up, packet);
        }
        self.stage(packet.meta.uid);
        self.keep_copy(&packet);
        let mut q = packet;
        let v = self.agents.tap_host(now, host as u32, Tap::HostOut, &mut q);
        if let Some(q) = self.settle(v, packet, q) {
            self.host_send(now, q, false);
        }
        self.drain_agents(now);
    }

    /// Sends a packet from a wireless host onto the air (`first`: ahead
    /// of its interface's queue).
    pub(super) fn host_send(&mut self, now: Time, p: Packet, first: bool) {
        if self.air.is_some() {
            return self.air_send(now, false, p, first);
        }
        self.send(now, self.wl_up, p);
    }

    /// A datagram reached its wireless host from the air: the host's
    /// agents see it ([`Tap::HostIn`]) before it is written to the host.
    pub(super) fn reach_host(&mut self, now: Time, p: Packet) {
        if !self.agents.any_at_hosts() {
            return self.deliver_to(Side::Sh, p);
        }
        let host = self.host_of[p.meta.flow as usize];
        let mut q = p;
        let v = self.agents.tap_host(now, host, Tap::HostIn, &mut q);
        if let Some(q) = self.settle(v, p, q) {
            self.take_opened(q.meta.uid);
            self.deliver_to(Side::Sh, q);
        }
        self.drain_agents(now);
    }

    /// Keeps the real bytes of the data frame `p` going onto the air, for
    /// an agent's resend of it (with such an agent only).
    pub(super) fn keep_copy(&mut self, p: &Packet) {
        if let Some(copies) = self.link_copies.as_mut() {
            if p.tcp.payload_len > 0 {
                copies.keep(p, self.slab.get_mut(p.meta.uid));
            }
        }
    }

    /// Stages the real bytes of `uid` for the UCL to seal (with its
    /// security on).
    pub(super) fn stage(&mut self, uid: u64) {
        if let Some(air) = &self.agents.ucl_air {
            air.stage(uid, self.slab.get_mut(uid));
        }
    }

    /// Puts the datagram the UCL opened from `uid`'s frame in the slab:
    /// what was sealed, and nothing else, goes on.
    pub(super) fn take_opened(&mut self, uid: u64) {
        if let Some(opened) = self
            .agents
            .ucl_air
            .as_ref()
            .and_then(|a| a.take_opened(uid))
        {
            let buf = self.slab.get_mut(uid);
            buf.clear();
            buf.extend_from_slice(&opened);
        }
    }

    /// Honours the agents' verdict on `p` (`q`: as they left it; see
    /// [`crate::agents`]); the packet to send on, if it goes on.
    pub(super) fn settle(&mut self, v: Verdict, p: Packet, mut q: Packet) -> Option<Packet> {
        let uid = p.meta.uid;
        if v != Verdict::Hold {
            if let Some(air) = &self.agents.ucl_air {
                air.unstage(uid);
            }
        }
        match v {
            Verdict::Pass => {
                if (q.tcp.ack, q.tcp.window) != (p.tcp.ack, p.tcp.window) {
                    if let Ok(mut h) = TcpHeaderMut::new_checked(self.slab.get_mut(uid)) {
                        h.set_ack(q.tcp.ack);
                        h.set_window(q.tcp.window);
                    }
                }
                // The agents may pick the interface and seal (meta's
                // iface and link fields); the uid and flow stay.
                q.meta.uid = uid;
                q.meta.flow = p.meta.flow;
                Some(q)
            }
            Verdict::Consume => {
                self.slab.remove(uid);
                self.counters.accounting.delivered += 1;
                None
            }
            Verdict::Drop(why) => {
                self.slab.remove(uid);
                self.drop_other(why);
                None
            }
            // The agent's `held` counts it until it releases it; its
            // bytes wait in the slab.
            Verdict::Hold => {
                self.held_uids.insert(uid);
                None
            }
        }
    }

    pub(super) fn drop_other(&mut self, why: &'static str) {
        self.counters.accounting.dropped += 1;
        *self.counters.dropped_other.entry(why).or_insert(0) += 1;
    }
}
