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
//! A Gilbert chain with `steps = "both"` is also advanced, without a loss
//! decision, by every frame the other direction puts on the air (whose end
//! is not a blockage's), as one per-packet error model on both devices of a
//! link is in ns-3.
//!
//! Without an availability process and without `steps = "both"`, an
//! engine may ask for departures known at enqueue
//! ([`P2pHop::know_departures`], [`Link::send`]): a frame's arrival is
//! scheduled when it is handed over, and only a lost frame's end is a timer
//! (its report). The frames, their times and their fates are the same.
//!
//! Oracle capacity: `R * MSS / (MSS + headers + frame_overhead) / (1 + p)`
//! (see [`crate::sim::oracle`]).

use super::{Hop, HopDrop, HopIo, HopOut, HopTimer, Station, TimerKind, TimerSink, BS};
use crate::net::framing;
use crate::net::link::{DropReason, Link, LinkStats, Wake};
use crate::scenario::{AvailabilitySpec, BlockedMode, FlowSpec, WirelessSpec};
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
    /// `cross[d]`: frames of the other direction step direction d's chain.
    cross: [bool; 2],
    /// Departures computed at enqueue ([`P2pHop::know_departures`]).
    known: bool,
    /// Whether nothing can block the channel (no availability process).
    unblockable: bool,
}

impl P2pHop {
    /// The hop of `scenario`'s `[wireless]` table.
    pub fn new(wl: &WirelessSpec, seed: u64) -> P2pHop {
        P2pHop {
            links: [Link::air(wl, true, seed), Link::air(wl, false, seed)],
            blocked: false,
            lose: wl.blocked == BlockedMode::Lose,
            hit: [false; 2],
            rate_bps: wl.link.rate_bps,
            frame_overhead: wl.frame_overhead,
            cross: [wl.loss_down.steps_both(), wl.loss_up.steps_both()],
            known: false,
            unblockable: wl.availability == AvailabilitySpec::Always,
        }
    }

    /// Computes each frame's departure when it is handed over, if nothing
    /// can make it differ from first in, first out at the hop's rate: no
    /// blockage, and no chain stepped by the other direction's frame ends.
    /// Returns whether it does. For an engine whose timers are cheap to
    /// schedule ahead (the simulator): half the hop's events go.
    pub fn know_departures(&mut self) -> bool {
        self.known = self.unblockable && !self.cross[0] && !self.cross[1];
        self.known
    }

    /// Brings the counters of transmissions up to `now` (with departures
    /// known, a queued frame's start is counted when it comes).
    pub fn settle(&mut self, now: Time) {
        for l in &mut self.links {
            l.settle(now);
        }
    }

    /// [`Hop::enqueue`] with departures known.
    fn send<T: TimerSink>(&mut self, now: Time, d: usize, p: &Packet, io: &mut HopIo<'_, T>) {
        match self.links[d].send(now, *p) {
            Ok(sent) => {
                if io.capture {
                    io.out.push(if sent.start == now {
                        HopOut::OnAir {
                            down: d == 0,
                            packet: *p,
                        }
                    } else {
                        HopOut::OnAirAt {
                            down: d == 0,
                            packet: *p,
                            at: sent.start,
                        }
                    });
                }
                if sent.lost {
                    io.timers
                        .schedule(sent.end, HopTimer::new(TX_DONE, d as u32, 0));
                }
                if let Some(at) = sent.arrival {
                    io.timers.schedule(at, HopTimer::new(ARRIVE, d as u32, 0));
                }
            }
            Err(why) => io.out.push(HopOut::Dropped {
                station: station_of(d),
                packet: *p,
                why: HopDrop::Link(why),
            }),
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
        if self.known {
            return self.send(now, d, p, &mut io);
        }
        let wake = self.links[d].offer(now, *p, self.open());
        let victim = wake.dropped.map(|_| *p);
        self.apply(d, wake, victim, &mut io);
    }

    #[inline]
    fn handle_timer<T: TimerSink>(&mut self, now: Time, t: HopTimer, mut io: HopIo<'_, T>) {
        let d = t.a as usize;
        match t.kind {
            TimerKind::K0 if self.known => {
                if let Some(packet) = self.links[d].take_lost() {
                    io.out.push(HopOut::Dropped {
                        station: station_of(d),
                        packet,
                        why: HopDrop::Link(DropReason::Loss),
                    });
                }
            }
            TimerKind::K0 => {
                let victim = self.links[d].in_tx().copied();
                let wake = if self.hit[d] {
                    self.links[d].tx_done_blocked(now, t.b as u32, self.open())
                } else {
                    if self.cross[1 - d] && self.links[d].is_current(t.b as u32) {
                        self.links[1 - d].step_loss();
                    }
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

    fn arriving(&self, t: HopTimer) -> Option<(Station, &Packet)> {
        let d = t.a as usize;
        let p = self
            .links
            .get(d)
            .filter(|_| t.kind == ARRIVE)?
            .pipe_head()?;
        // As `handle_timer` hands it over: down to the host, up to the BS.
        Some((if d == 0 { 1 } else { BS }, p))
    }

    fn set_blocked<T: TimerSink>(&mut self, now: Time, blocked: bool, mut io: HopIo<'_, T>) {
        debug_assert!(!self.known, "a hop with known departures is never blocked");
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
        let share = framing::payload_share(
            flow.tcp.mss,
            framing::headers(flow),
            self.frame_overhead + flow.link_overhead,
        );
        self.rate_bps as f64 * share / (1.0 + self.links[d].mean_loss())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::loss::LossProcess;
    use crate::rng::stream;
    use crate::scenario::load_str;
    use crate::scenario::{LossSpec, LossSteps};
    use crate::wire::{PacketMeta, Segment, SeqNum, TcpFlags, TcpOptions};
    use std::net::Ipv4Addr;

    #[derive(Default)]
    struct Timers(Vec<(Time, HopTimer)>);

    impl TimerSink for Timers {
        fn schedule(&mut self, at: Time, timer: HopTimer) {
            self.0.push((at, timer));
        }
    }

    /// A 1000-byte data packet with run id `uid`.
    pub(crate) fn frame(uid: u64) -> Packet {
        Packet {
            src: Ipv4Addr::new(10, 1, 0, 1),
            dst: Ipv4Addr::new(10, 2, 0, 1),
            ip_id: uid as u16,
            ttl: 64,
            tcp: Segment {
                src_port: 5201,
                dst_port: 49152,
                seq: SeqNum(1),
                ack: SeqNum(1),
                flags: TcpFlags::ACK,
                window: 1000,
                options: TcpOptions::default(),
                payload_len: 1000,
            },
            meta: PacketMeta {
                uid,
                ..PacketMeta::default()
            },
        }
    }

    const SCENARIO: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
rate = "10Mbps"
delay = "1ms"

[wireless.loss.down]
model = "gilbert"
mean_loss = 0.3
mean_burst = 3
steps = "STEPS"

[[flow]]
direction = "down"
"#;

    /// One frame at a time, alternately down and up, each carried to its
    /// end before the next; the fates of the down frames (true: lost).
    fn down_fates(steps: &str, frames: u64) -> Vec<bool> {
        let text = SCENARIO.replace("STEPS", steps);
        let s = load_str(&text, "t.toml", std::path::Path::new("."), &[]).unwrap();
        let mut hop = P2pHop::new(&s.wireless, 7);
        let mut now = Time::ZERO;
        let mut fates = Vec::new();
        for uid in 0..frames {
            let (from, to) = if uid % 2 == 0 { (BS, 1) } else { (1, BS) };
            let (mut timers, mut out) = (Timers::default(), Vec::new());
            let io = HopIo {
                timers: &mut timers,
                out: &mut out,
                capture: false,
            };
            hop.enqueue(now, from, to, &frame(uid), io);
            while !timers.0.is_empty() {
                let i = (0..timers.0.len()).min_by_key(|&i| timers.0[i]).unwrap();
                let (at, t) = timers.0.swap_remove(i);
                now = at;
                let io = HopIo {
                    timers: &mut timers,
                    out: &mut out,
                    capture: false,
                };
                hop.handle_timer(at, t, io);
            }
            if from == BS {
                fates.push(out.iter().any(|o| matches!(o, HopOut::Dropped { .. })));
            }
            now = Time(now.0 + 1_000_000);
        }
        fates
    }

    /// The down direction's chain, decided on every frame of its stream.
    fn chain(frames: usize) -> Vec<bool> {
        let spec = LossSpec::Gilbert {
            mean_loss: 0.3,
            mean_burst: 3.0,
            steps: LossSteps::Own,
        };
        let mut lp = LossProcess::new(&spec, stream(7, "wireless.down.loss"));
        (0..frames).map(|_| lp.lose_next()).collect()
    }

    #[test]
    fn own_steps_see_consecutive_states_and_both_every_other() {
        let full = chain(400);
        // "own": the up frames leave the down chain alone.
        assert_eq!(down_fates("own", 400), full[..200].to_vec());
        // "both": each up frame takes a step between two down frames.
        let every_other: Vec<bool> = full.iter().step_by(2).copied().collect();
        let both = down_fates("both", 400);
        assert_eq!(both, every_other);
        assert!(both.iter().any(|&l| l) && both.iter().any(|&l| !l));
    }

    /// A hop with queues of 3 frames and losses in both directions.
    const LOSSY: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"
[wireless]
rate = "10Mbps"
delay = "1ms"
queue = "3p"
[wireless.loss.down]
model = "iid"
p = 0.2
[wireless.loss.up]
model = "gilbert"
mean_loss = 0.1
mean_burst = 2
[[flow]]
direction = "down"
"#;

    /// What the hop reported for frames handed over at `offers` (ns,
    /// increasing; odd offers go up, even down): each output with its
    /// instant, in order, and the counters at `end`; with departures known
    /// or not.
    fn reports(offers: &[u64], end: Time, known: bool) -> (Vec<String>, [LinkStats; 2], u64) {
        let s = load_str(LOSSY, "t.toml", std::path::Path::new("."), &[]).unwrap();
        let mut hop = P2pHop::new(&s.wireless, 3);
        if known {
            assert!(hop.know_departures());
        }
        let (mut timers, mut out) = (Timers::default(), Vec::new());
        let mut log = Vec::new();
        let mut next = 0;
        loop {
            // Timers first at an instant: a frame's end frees the
            // transmitter for a frame handed over then.
            let t = (0..timers.0.len()).min_by_key(|&i| timers.0[i]);
            let timer_at = t.map(|i| timers.0[i].0);
            let offer_at = offers.get(next).map(|&o| Time(o));
            let Some(now) = timer_at.into_iter().chain(offer_at).min() else {
                break;
            };
            if now > end {
                break;
            }
            let io = HopIo {
                timers: &mut timers,
                out: &mut out,
                capture: true,
            };
            if timer_at == Some(now) {
                let (at, timer) = io.timers.0.swap_remove(t.unwrap());
                hop.handle_timer(at, timer, io);
            } else {
                let (from, to) = if next % 2 == 1 { (1, BS) } else { (BS, 1) };
                hop.enqueue(now, from, to, &frame(next as u64), io);
                next += 1;
            }
            for o in out.drain(..) {
                // Where the transmission of a frame is reported ahead, its
                // instant is the one it names.
                let line = match o {
                    HopOut::OnAirAt { down, packet, at } => {
                        format!("{} on air {down} {}", at.0, packet.meta.uid)
                    }
                    HopOut::OnAir { down, packet } => {
                        format!("{} on air {down} {}", now.0, packet.meta.uid)
                    }
                    HopOut::Arrived { station, packet } => {
                        format!("{} arrived {station} {}", now.0, packet.meta.uid)
                    }
                    HopOut::Dropped { packet, why, .. } => {
                        format!("{} dropped {why:?} {}", now.0, packet.meta.uid)
                    }
                    other => format!("{other:?}"),
                };
                log.push(line);
            }
        }
        hop.settle(end);
        log.sort();
        let stats = [hop.links[0].stats, hop.links[1].stats];
        (log, stats, hop.in_flight())
    }

    #[test]
    fn known_departures_give_the_same_frames_times_and_fates() {
        // Bursts that fill the 3-frame queues, and gaps that empty them,
        // some on the instant a frame ends (airtime 1,040 B: 832 µs).
        let mut offers = Vec::new();
        let mut t = 0u64;
        for k in 0..600u64 {
            t += match k % 12 {
                0 => 9_000_000,
                1 => 832_000,
                2 => 2 * 832_000,
                _ => (k * 7919) % 100_000,
            };
            offers.push(t);
        }
        let end = Time(t - 5_000_000);
        let old = reports(&offers, end, false);
        let new = reports(&offers, end, true);
        assert!(old.0.iter().any(|l| l.contains("QueueFull")));
        assert!(old.0.iter().any(|l| l.contains("Loss")));
        assert!(old.1[0].drops.loss > 0 && old.1[1].drops.loss > 0);
        assert_eq!(old, new);
    }

    #[test]
    fn a_hop_that_can_be_blocked_keeps_its_events() {
        let blocked = [
            "wireless.availability={model = \"onoff\", on = \"1s\", off = \"100ms\"}".to_string(),
        ];
        let s = load_str(LOSSY, "t.toml", std::path::Path::new("."), &blocked).unwrap();
        assert!(!P2pHop::new(&s.wireless, 1).know_departures());
    }
}
