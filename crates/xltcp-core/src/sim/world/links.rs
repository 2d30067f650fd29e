//! The world's links: the wired access links (a frame serialised, then
//! arriving after the delay) and the wireless hops (what a packet is
//! offered to, and what the hop reports back), with the channel's
//! availability.

use super::Ev;
use super::Timers;
use super::World;
use crate::hop::{self, AnyHop, Hop, HopIo, HopOut, Station, BS};
use crate::net::link::Dest;
use crate::schemes::{Node, NodeSignal, Tap, Verdict, Via};
use crate::signal::Signal;
use crate::sim::flow::Side;
use crate::time::Time;
use crate::wire::Packet;

impl World {
    /// Offers `p` to wired link `link` at `now`. Its departure is known at
    /// once ([`crate::net::link::Link::send`]): the arrival is scheduled
    /// now if it heads the link's pipe, else when the packet ahead of it
    /// arrives; a serialisation end is no event.
    pub(super) fn send_wired(&mut self, now: Time, link: usize, p: Packet) {
        match self.links[link].send(now, p) {
            Ok(sent) => {
                if self.output.capturing() {
                    if sent.start == now {
                        self.output.capture(link, now, &p);
                    } else {
                        self.capture_later(link, sent.start, p);
                    }
                }
                if let Some(part) = self.split.as_mut() {
                    // The other side receives it (wired links lose
                    // nothing: the packet is in the pipe).
                    debug_assert!(!sent.lost);
                    let (at, p) = self.links[link].take_back().expect("just sent");
                    let link = link as u32;
                    part.outbox
                        .push(super::super::split::Crossing { at, link, p });
                } else if let Some(at) = sent.arrival {
                    self.q.schedule(at, Ev::Arrive { link: link as u32 });
                }
            }
            Err(why) => {
                let why = hop::HopDrop::Link(why);
                self.note_drop(now, &p, Some(why), false);
                self.accounting.dropped += 1;
                self.output.capture_drop(link, now, &p, why);
            }
        }
    }

    /// Records `p`'s transmission from `source`, which starts at `start`,
    /// later than now, at an observer event then (so that a capture file
    /// stays in time order). A source is a wired link (its index) or a
    /// direction of hop k (`2 * flows + 2k + up`): one queue of packets per
    /// transmitter, in the order they start. Observer events take no part
    /// in the model: the others keep their order among themselves.
    fn capture_later(&mut self, source: usize, start: Time, p: Packet) {
        if self.starting.len() <= source {
            self.starting.resize_with(source + 1, Default::default);
        }
        self.starting[source].push_back(p);
        let source = source as u32;
        self.q.schedule(start, Ev::CaptureStart { source });
    }

    pub(super) fn on_capture_start(&mut self, now: Time, source: usize) {
        self.observer_events += 1;
        let wired = self.links.len();
        // Every hop's direction records into the hop's capture of it.
        let capture = if source < wired {
            source
        } else {
            wired + (source - wired) % 2
        };
        if let Some(p) = self.starting.get_mut(source).and_then(|q| q.pop_front()) {
            self.output.capture(capture, now, &p);
        }
    }

    pub(super) fn on_arrive(&mut self, now: Time, link: usize) {
        let (packet, next) = self.links[link].arrive(now);
        if let Some(at) = next {
            self.q.schedule(at, Ev::Arrive { link: link as u32 });
        }
        let Some(mut p) = packet else { return };
        self.output.capture_rx(link, now, &p);
        let flow = p.meta.flow as usize;
        match self.links[link].dest {
            // At the BS, from a wired host: onto the air.
            Dest::Bs => {
                let v = self.tap(now, Node::Bs, Tap::BsDown, &mut p);
                if v == Verdict::Pass {
                    self.send_from(now, Node::Bs, Via::Air, &p);
                }
                self.settle(v);
                self.drain(now, Node::Bs);
            }
            Dest::Ch(_) | Dest::ShOfFlow => self.deliver(now, flow, Side::Ch, p),
        }
    }

    /// Hands `p` to the interface `p.meta.iface` of station `from`, for
    /// `to` (`first`: ahead of the packets waiting there).
    pub(super) fn hop_send(
        &mut self,
        now: Time,
        from: Station,
        to: Station,
        p: &Packet,
        first: bool,
    ) {
        let k = usize::from(p.meta.iface);
        if k >= self.hops.len() {
            self.no_interface += 1;
            self.accounting.dropped += 1;
            return;
        }
        if first {
            self.drive_hop(now, k, |hop, now, io| {
                hop.enqueue_first(now, from, to, p, io)
            });
        } else {
            self.drive_hop(now, k, |hop, now, io| hop.enqueue(now, from, to, p, io));
        }
    }

    /// Calls into hop `k` with its timers and an output buffer, then acts
    /// on the outputs in order.
    #[inline]
    pub(super) fn drive_hop(
        &mut self,
        now: Time,
        k: usize,
        call: impl FnOnce(&mut AnyHop, Time, HopIo<'_, Timers<'_>>),
    ) {
        let mut out = self.hop_out.pop().unwrap_or_default();
        let io = HopIo {
            timers: &mut Timers(&mut self.q, k as u8),
            out: &mut out,
            capture: self.output.capturing(),
        };
        call(&mut self.hops[k], now, io);
        for o in &out {
            match o {
                HopOut::Arrived {
                    station: BS,
                    packet,
                } => {
                    self.output
                        .capture_rx(2 * self.flows.len() + 1, now, packet);
                    let mut packet = *packet;
                    packet.meta.iface = k as u8;
                    let v = self.tap(now, Node::Bs, Tap::BsUp, &mut packet);
                    if v == Verdict::Pass {
                        self.send_from(now, Node::Bs, Via::Wire, &packet);
                    }
                    self.settle(v);
                    self.drain(now, Node::Bs);
                }
                HopOut::Arrived { packet, .. } => {
                    self.output.capture_rx(2 * self.flows.len(), now, packet);
                    let mut packet = *packet;
                    packet.meta.iface = k as u8;
                    self.deliver(now, packet.meta.flow as usize, Side::Sh, packet)
                }
                HopOut::Dropped {
                    station,
                    packet,
                    why,
                } => {
                    self.accounting.dropped += 1;
                    // The availability process blocks the first hop only.
                    let blocked = k == 0 && self.availability.blocked();
                    self.note_drop(now, packet, Some(*why), blocked);
                    // The sender's direction: the BS sends down.
                    let capture = 2 * self.flows.len() + usize::from(*station != BS);
                    self.output.capture_drop(capture, now, packet, *why);
                }
                HopOut::Signal {
                    station,
                    signal,
                    reason,
                    packet,
                    delays,
                } => {
                    let mut signal = *signal;
                    if let Signal::Snr { iface, .. } = &mut signal {
                        *iface = k as u8;
                    }
                    let s = NodeSignal {
                        signal,
                        reason: *reason,
                        packet: *packet,
                        delays: *delays,
                        iface: k as u8,
                    };
                    self.publish(now, *station, s)
                }
                HopOut::OnAir { down, packet } => {
                    let capture = 2 * self.flows.len() + usize::from(!down);
                    self.output.capture(capture, now, packet);
                }
                HopOut::OnAirAt { down, packet, at } => {
                    let source = self.links.len() + 2 * k + usize::from(!down);
                    self.capture_later(source, *at, *packet);
                }
                HopOut::Air(frame) => self.output.capture_air(now, frame),
            }
        }
        out.clear();
        self.hop_out.push(out);
    }

    pub(super) fn on_availability(&mut self, now: Time) {
        self.availability.advance();
        let blocked = self.availability.blocked();
        if blocked {
            self.blocked_since = Some(now);
        } else if let Some(since) = self.blocked_since.take() {
            self.blocked_total += now - since;
            self.unblocked_at = now;
        }
        self.output.hop_blocked(now, blocked);
        self.drive_hop(now, 0, |hop, now, io| hop.set_blocked(now, blocked, io));
        let next = self.availability.next_change();
        if next < self.end {
            self.q.schedule(next, Ev::Availability);
        }
    }
}
