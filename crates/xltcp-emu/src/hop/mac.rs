//! The hop kinds with a MAC of their own (802.15.4, 802.11): the
//! simulator's hop in [`crate::air::Air`] carries the frames, and its
//! outputs (frames on the air, drops, arrivals, signals) are acted on here.

use crate::signals::Signal;
use xltcp_core::hop::{Hop as _, HopOut, Station, BS};
use xltcp_core::schemes::{ucl, Node, NodeSignal};
use xltcp_core::time::Time;
use xltcp_core::wire::Packet;

/// Where delivered datagrams go: the host namespace of `side`.
use super::datagram::drop_name;
use super::Hop;

impl Hop {
    /// Hands `p` to the simulator's hop: from the BS to its flow's host
    /// (`down`) or from the host to the BS; `first`: ahead of the packets
    /// waiting at the sending station.
    /// The packet goes on the hop its `meta.iface` names (the scenario's
    /// hops in order; dropped as `no_interface` past the last).
    pub(super) fn air_send(&mut self, now: Time, down: bool, p: Packet, first: bool) {
        let Some(air) = self.air.as_mut() else { return };
        let k = usize::from(p.meta.iface);
        if k >= air.hops.len() {
            self.slab.remove(p.meta.uid);
            return self.drop_other("no_interface");
        }
        let st = air.station_of_flow[p.meta.flow as usize];
        let (from, to) = if down { (BS, st) } else { (st, BS) };
        let capture = self.capture.is_some();
        let out = air.call(k, &mut self.deadlines, now, capture, |h, now, io| {
            if first {
                h.enqueue_first(now, from, to, &p, io)
            } else {
                h.enqueue(now, from, to, &p, io)
            }
        });
        self.act_air(now, k, out);
    }

    /// Tells the simulator's hop that the channel became (un)available.
    pub(super) fn air_set_blocked(&mut self, now: Time, blocked: bool) {
        let Some(air) = self.air.as_mut() else { return };
        let capture = self.capture.is_some();
        // The availability process is the first hop's, as in the simulator.
        let out = air.call(0, &mut self.deadlines, now, capture, |h, now, io| {
            h.set_blocked(now, blocked, io)
        });
        self.act_air(now, 0, out);
    }

    /// Acts on hop `k`'s outputs, in order.
    pub(super) fn act_air(&mut self, now: Time, k: usize, out: Vec<HopOut>) {
        for o in &out {
            match *o {
                HopOut::Arrived {
                    station: BS,
                    mut packet,
                } => {
                    packet.meta.iface = k as u8;
                    if let Some(cap) = self.capture.as_mut() {
                        cap.record_rx(self.wl_up, now, self.slab.get_mut(packet.meta.uid));
                    }
                    self.emit(
                        now,
                        Signal::Delivered {
                            dir: "up",
                            flow: packet.meta.flow,
                            bytes: packet.ip_len() as u32,
                        },
                    );
                    self.at_bs(now, true, packet);
                }
                HopOut::Arrived { mut packet, .. } => {
                    packet.meta.iface = k as u8;
                    if let Some(cap) = self.capture.as_mut() {
                        cap.record_rx(self.wl_down, now, self.slab.get_mut(packet.meta.uid));
                    }
                    self.emit(
                        now,
                        Signal::Delivered {
                            dir: "down",
                            flow: packet.meta.flow,
                            bytes: packet.ip_len() as u32,
                        },
                    );
                    self.reach_host(now, packet);
                }
                HopOut::Dropped {
                    station,
                    packet,
                    why,
                } => {
                    self.counters.accounting.dropped += 1;
                    if let Some(cap) = self.capture.as_mut() {
                        let link = if station == BS {
                            self.wl_down
                        } else {
                            self.wl_up
                        };
                        cap.record_drop(link, now, self.slab.get_mut(packet.meta.uid), why);
                    }
                    self.slab.remove(packet.meta.uid);
                    let reason = drop_name(why);
                    if let Some(air) = self.air.as_mut() {
                        air.count_drop(k, reason);
                    }
                    self.emit(
                        now,
                        Signal::Undelivered {
                            dir: if station == BS { "down" } else { "up" },
                            flow: packet.meta.flow,
                            bytes: packet.ip_len() as u32,
                            reason,
                        },
                    );
                }
                HopOut::Signal {
                    station,
                    mut signal,
                    reason,
                    packet,
                    delays,
                } => {
                    if let xltcp_core::signal::Signal::Snr { iface, .. } = &mut signal {
                        *iface = k as u8;
                    }
                    let s = NodeSignal {
                        signal,
                        reason,
                        packet,
                        delays,
                        iface: k as u8,
                    };
                    self.publish(now, station, s);
                }
                // A UCL handshake message is no IPv4 datagram: not captured.
                HopOut::OnAir { packet, .. }
                    if packet.meta.link_frame & ucl::secure::CONTROL != 0 => {}
                // The emulator's hops do not schedule departures ahead
                // (`OnAirAt` is the simulator's).
                HopOut::OnAir { down, packet } | HopOut::OnAirAt { down, packet, .. } => {
                    let link = if down { self.wl_down } else { self.wl_up };
                    if let Some(cap) = self.capture.as_mut() {
                        cap.record(link, now, self.slab.get_mut(packet.meta.uid));
                    }
                }
                HopOut::Air(_) => {}
            }
        }
        if let Some(air) = self.air.as_mut() {
            air.recycle(out);
        }
    }

    /// The signal bus: counts a radio's signal, hands it to the agents of
    /// its station (the BS's run here), traces it if one used it.
    fn publish(&mut self, now: Time, station: Station, s: NodeSignal) {
        let name = s.signal.name();
        let Some(air) = self.air.as_mut() else { return };
        air.signals.count_published(name);
        let node = if station == BS {
            Node::Bs
        } else {
            Node::Host(station as u32 - 1)
        };
        if !self.agents.on_signal(now, node, &s) {
            return;
        }
        if let Some(air) = self.air.as_mut() {
            air.signals.count_delivered(name);
            air.trace(now, station, s.iface, s.signal);
        }
        self.drain_agents(now);
    }
}
