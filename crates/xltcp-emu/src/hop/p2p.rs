//! The point-to-point hop kind: the simulator's wireless links (one per
//! direction, with their loss processes) under the availability process,
//! and the wired access links every kind shares.

use crate::sched::Ev;
use crate::signals::Signal;
use std::sync::atomic::Ordering;
use xltcp_core::hop::HopDrop;
use xltcp_core::net::link::{Dest, DropReason, Wake};
use xltcp_core::sim::flow::Side;
use xltcp_core::time::Time;
use xltcp_core::wire::Packet;

/// Where delivered datagrams go: the host namespace of `side`.
use super::Hop;

impl Hop {
    pub(super) fn open(&self, link: usize) -> bool {
        !(self.links[link].gated && self.blocked())
    }

    pub(super) fn send(&mut self, now: Time, link: usize, p: Packet) {
        if self.air.is_some() && (link == self.wl_down || link == self.wl_up) {
            return self.air_send(now, link == self.wl_down, p, false);
        }
        let open = self.open(link);
        let wake = self.links[link].offer(now, p, open);
        self.apply(
            now,
            link,
            wake,
            Some((p.meta.uid, p.meta.flow, p.ip_len() as u32)),
        );
    }

    /// Schedules what a link asked for; `victim` is the packet a drop
    /// reported in `wake` refers to.
    pub(super) fn apply(
        &mut self,
        now: Time,
        link: usize,
        wake: Wake,
        victim: Option<(u64, u32, u32)>,
    ) {
        if let Some((at, gen)) = wake.tx_done {
            if let (Some(cap), Some(p)) = (self.capture.as_mut(), self.links[link].in_tx()) {
                cap.record(link, now, self.slab.get_mut(p.meta.uid));
            }
            self.deadlines.schedule(
                at,
                Ev::TxDone {
                    link: link as u32,
                    gen,
                },
            );
        }
        if let Some(at) = wake.arrival {
            self.deadlines
                .schedule(at, Ev::Arrive { link: link as u32 });
        }
        if let (Some(why), Some((uid, flow, bytes))) = (wake.dropped, victim) {
            // Counted by reason in the link's own stats.
            self.counters.accounting.dropped += 1;
            if let Some(cap) = self.capture.as_mut() {
                cap.record_drop(link, now, self.slab.get_mut(uid), HopDrop::Link(why));
            }
            self.slab.remove(uid);
            if self.links[link].gated {
                let reason = match why {
                    DropReason::QueueFull => "queue_full",
                    DropReason::Loss => "loss",
                    DropReason::Blocked => "blocked",
                };
                self.emit(
                    now,
                    Signal::Undelivered {
                        dir: self.dir_of(link),
                        flow,
                        bytes,
                        reason,
                    },
                );
            }
        }
    }

    pub(super) fn on_arrive(&mut self, at: Time, link: usize) {
        let (packet, next) = self.links[link].arrive(at);
        if let Some(t) = next {
            self.deadlines.schedule(t, Ev::Arrive { link: link as u32 });
        }
        let Some(p) = packet else { return };
        if let Some(cap) = self.capture.as_mut() {
            cap.record_rx(link, at, self.slab.get_mut(p.meta.uid));
        }
        if self.links[link].gated {
            let dir = self.dir_of(link);
            self.emit(
                at,
                Signal::Delivered {
                    dir,
                    flow: p.meta.flow,
                    bytes: p.ip_len() as u32,
                },
            );
        }
        match self.links[link].dest {
            Dest::Bs => self.at_bs(at, link == self.wl_up, p),
            Dest::Ch(_) => self.deliver_to(Side::Ch, p),
            Dest::ShOfFlow => self.reach_host(at, p),
        }
    }

    fn wireless(&self) -> [usize; 2] {
        [self.wl_down, self.wl_up]
    }

    pub(super) fn on_availability(&mut self, at: Time) {
        self.availability.advance();
        self.update_blocked(at, "pu");
        let next = self.availability.next_change();
        if next < self.end {
            self.deadlines.schedule(next, Ev::Availability);
        }
    }

    /// Acts on a change of the effective blocked state: a blockage
    /// destroys the frames on the air; the end of one restarts the hop.
    pub(super) fn update_blocked(&mut self, at: Time, cause: &'static str) {
        let blocked = self.blocked();
        if blocked == self.was_blocked {
            return;
        }
        self.was_blocked = blocked;
        if let Some(flag) = &self.blocked_flag {
            flag.store(blocked, Ordering::Relaxed);
        }
        if blocked {
            self.blocked_since = Some(at);
            self.emit(at, Signal::PuStart { cause });
            self.emit(at, Signal::TfpStart { cause });
            if self.air.is_some() {
                return self.air_set_blocked(at, true);
            }
            for link in self.wireless() {
                let victim = self.links[link]
                    .in_tx()
                    .map(|p| (p.meta.uid, p.meta.flow, p.ip_len() as u32));
                if let (Some(_), Some((uid, flow, bytes))) = (self.links[link].block(), victim) {
                    self.counters.accounting.dropped += 1;
                    if let Some(cap) = self.capture.as_mut() {
                        let why = HopDrop::Link(DropReason::Blocked);
                        cap.record_drop(link, at, self.slab.get_mut(uid), why);
                    }
                    self.slab.remove(uid);
                    let dir = self.dir_of(link);
                    self.emit(
                        at,
                        Signal::Undelivered {
                            dir,
                            flow,
                            bytes,
                            reason: "blocked",
                        },
                    );
                }
            }
        } else {
            if let Some(since) = self.blocked_since.take() {
                self.blocked_total += at - since;
                self.blocked_intervals.push((since, at));
            }
            self.emit(at, Signal::PuStop { cause });
            self.emit(at, Signal::TfpEnd { cause });
            if self.air.is_some() {
                return self.air_set_blocked(at, false);
            }
            self.kick_wireless(at);
        }
    }

    pub(super) fn kick_wireless(&mut self, at: Time) {
        if self.air.is_some() {
            // The simulator's hop restarts itself when unblocked.
            return;
        }
        for link in self.wireless() {
            let wake = self.links[link].kick(at, true);
            self.apply(at, link, wake, None);
        }
    }
}
