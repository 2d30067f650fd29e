//! The point-to-point hop (`[wireless] kind = "p2p"`): two link directions
//! ([`Link`]), `bs-air` (BS -> hosts) and `air-bs` (hosts -> BS), each a
//! drop-tail queue, a serialiser at the hop's rate, a propagation delay and
//! a frame-loss process drawn from `wireless.<dir>.loss`. Every host shares
//! them: the downlink is one FIFO whatever the receiver.
//!
//! Availability (`[wireless.availability] blocked`):
//! - `"defer"` (default): while the channel is blocked neither direction
//!   starts a frame (the transmitter defers, as if it sensed the primary
//!   user); the frame on the air when a blockage begins is lost (counted as
//!   `blocked`).
//! - `"lose"`: the transmitters keep sending; a frame whose airtime overlaps
//!   a blockage (it starts while blocked, or a blockage begins before it
//!   ends) is destroyed when its airtime ends, counted as `blocked`. The
//!   loss process is not drawn for a destroyed frame.
//!
//! Oracle capacity: `R * MSS / (MSS + headers + frame_overhead) / (1 + p)`
//! (see [`crate::sim::oracle`]).

use super::{Hop, HopDrop, HopIo, HopOut, HopTimer, Station, TimerKind, TimerSink, BS};
use crate::net::link::{Dest, Link, LinkStats, Wake};
use crate::net::loss::LossProcess;
use crate::rng::stream;
use crate::scenario::{BlockedMode, FlowSpec, WirelessSpec};
use crate::sim::oracle;
use crate::time::Time;
use crate::wire::Packet;

/// Timer kinds.
const TX_DONE: TimerKind = TimerKind::K0;
const ARRIVE: TimerKind = TimerKind::K1;

/// The two directions of the hop; index 0 is down.
#[derive(Debug)]
pub struct P2pHop {
    links: [Link; 2],
    blocked: bool,
    /// `blocked = "lose"`: frames are sent regardless and destroyed.
    lose: bool,
    /// Whether the frame on the air in each direction met a blockage.
    hit: [bool; 2],
    rate_bps: u64,
    frame_overhead: u32,
}

impl P2pHop {
    /// The hop of `scenario`'s `[wireless]` table.
    pub fn new(wl: &WirelessSpec, seed: u64) -> P2pHop {
        let l = &wl.link;
        let link = |name: &str, dest, loss| {
            Link::new(
                name.into(),
                dest,
                l.rate_bps,
                l.delay,
                l.queue,
                wl.frame_overhead,
                loss,
                true,
            )
        };
        let loss = |spec, name: &str| LossProcess::new(spec, stream(seed, name));
        P2pHop {
            links: [
                link(
                    "bs-air",
                    Dest::ShOfFlow,
                    loss(&wl.loss_down, "wireless.down.loss"),
                ),
                link("air-bs", Dest::Bs, loss(&wl.loss_up, "wireless.up.loss")),
            ],
            blocked: false,
            lose: wl.blocked == BlockedMode::Lose,
            hit: [false; 2],
            rate_bps: l.rate_bps,
            frame_overhead: wl.frame_overhead,
        }
    }

    /// Schedules what direction `d` asked for; `victim` is the packet a
    /// drop refers to.
    #[inline]
    fn apply<T: TimerSink>(
        &mut self,
        d: usize,
        wake: Wake,
        victim: Option<Packet>,
        io: &mut HopIo<'_, T>,
    ) {
        if let Some((at, gen)) = wake.tx_done {
            // A frame started while blocked is doomed (lose mode only; in
            // defer mode no frame starts while blocked).
            self.hit[d] = self.blocked;
            if let Some(p) = self.links[d].in_tx().filter(|_| io.capture) {
                io.out.push(HopOut::OnAir {
                    down: d == 0,
                    packet: *p,
                });
            }
            io.timers
                .schedule(at, HopTimer::new(TX_DONE, d as u32, u64::from(gen)));
        }
        if let Some(at) = wake.arrival {
            io.timers.schedule(at, HopTimer::new(ARRIVE, d as u32, 0));
        }
        if let (Some(why), Some(packet)) = (wake.dropped, victim) {
            io.out.push(HopOut::Dropped {
                station: station_of(d),
                packet,
                why: HopDrop::Link(why),
            });
        }
    }
}

impl P2pHop {
    /// Whether a frame may start now.
    fn open(&self) -> bool {
        self.lose || !self.blocked
    }
}

fn station_of(d: usize) -> Station {
    // The sender of direction d: the BS sends down; "some host" sends up
    // (the link does not keep which), reported as station 1.
    if d == 0 {
        BS
    } else {
        1
    }
}

impl Hop for P2pHop {
    fn timer_name(&self, kind: TimerKind) -> &'static str {
        match kind {
            TX_DONE => "tx_done",
            _ => "arrive",
        }
    }

    #[inline]
    fn enqueue<T: TimerSink>(
        &mut self,
        now: Time,
        from: Station,
        _to: Station,
        p: &Packet,
        mut io: HopIo<'_, T>,
    ) {
        let d = usize::from(from != BS);
        let wake = self.links[d].offer(now, *p, self.open());
        let victim = wake.dropped.map(|_| *p);
        self.apply(d, wake, victim, &mut io);
    }

    #[inline]
    fn handle_timer<T: TimerSink>(&mut self, now: Time, t: HopTimer, mut io: HopIo<'_, T>) {
        let d = t.a as usize;
        match t.kind {
            TimerKind::K0 => {
                let victim = self.links[d].in_tx().copied();
                let wake = if self.hit[d] {
                    self.links[d].tx_done_blocked(now, t.b as u32, self.open())
                } else {
                    self.links[d].tx_done(now, t.b as u32, self.open())
                };
                self.apply(d, wake, victim, &mut io);
            }
            _ => {
                let (packet, next) = self.links[d].arrive(now);
                if let Some(at) = next {
                    io.timers.schedule(at, HopTimer::new(ARRIVE, d as u32, 0));
                }
                if let Some(packet) = packet {
                    // Down: the host of the packet's flow; up: the BS.
                    let station = if d == 0 { 1 } else { BS };
                    io.out.push(HopOut::Arrived { station, packet });
                }
            }
        }
    }

    fn set_blocked<T: TimerSink>(&mut self, now: Time, blocked: bool, mut io: HopIo<'_, T>) {
        self.blocked = blocked;
        if self.lose {
            // Frames on the air now are destroyed when they end; nothing
            // defers.
            for d in 0..2 {
                self.hit[d] |= blocked && self.links[d].in_tx().is_some();
            }
            return;
        }
        for d in 0..2 {
            if blocked {
                let victim = self.links[d].in_tx().copied();
                if let (Some(why), Some(packet)) = (self.links[d].block(), victim) {
                    io.out.push(HopOut::Dropped {
                        station: station_of(d),
                        packet,
                        why: HopDrop::Link(why),
                    });
                }
            } else {
                let wake = self.links[d].kick(now, true);
                self.apply(d, wake, None, &mut io);
            }
        }
    }

    fn in_flight(&self) -> u64 {
        self.links.iter().map(Link::held).sum()
    }

    fn link_stats(&self) -> [(&str, LinkStats); 2] {
        [
            (&self.links[0].name, self.links[0].stats),
            (&self.links[1].name, self.links[1].stats),
        ]
    }

    fn capacity_bps(&self, flow: &FlowSpec) -> f64 {
        let d = match flow.direction {
            crate::scenario::Direction::Down => 0,
            crate::scenario::Direction::Up => 1,
        };
        let share = oracle::payload_share(
            flow.tcp.mss,
            oracle::headers(flow),
            self.frame_overhead + flow.link_overhead,
        );
        self.rate_bps as f64 * share / (1.0 + self.links[d].mean_loss())
    }
}
