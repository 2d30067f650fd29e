//! One direction of a point-to-point link: a drop-tail queue, a serialiser
//! at a fixed rate, and a propagation delay: constant, or with a jitter
//! drawn per packet that never reorders ([`Link::wired`]): a packet's delay
//! is the link's plus a uniform draw in `[0, jitter]`, and no earlier than
//! the arrival of the packet before it (first in, first out).
//!
//! The link is passive: the world calls it and schedules what it returns.
//! Packets are held inline (no allocation per packet once the deques have
//! grown to their working size). Frames in propagation arrive in order, so
//! only the head arrival is ever scheduled.
//!
//! Two ways to drive it:
//! - [`Link::offer`], [`Link::tx_done`], [`Link::arrive`]: each
//!   serialisation end is an event of the caller's, where a blockage may
//!   destroy the frame on the air and the loss process decides its fate
//!   (the hop's directions, and the emulator's links in real time);
//! - [`Link::send`], [`Link::arrive`], [`Link::take_lost`]: for a link that
//!   is never gated (the simulator's wired links, and the hop's directions
//!   when nothing blocks the channel), a packet's departure is known when it
//!   is offered (first in, first out at a fixed rate), so it goes straight
//!   into the propagation pipe with its arrival time and the serialisation
//!   end is no event; only a frame the loss process takes (drawn for the
//!   frames in the order they are sent, as at their ends) leaves when its
//!   airtime ends, for the caller to report then.

use super::delay::DelayLine;
use super::loss::LossProcess;
use crate::rng::stream;
use crate::scenario::{LinkSpec, QueueLimit, WirelessSpec};
use crate::time::{Dur, Time};
use crate::wire::Packet;
use serde::Serialize;
use std::collections::VecDeque;

/// Why a link dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The drop-tail queue was full.
    QueueFull,
    /// The frame was lost on the air (loss process).
    Loss,
    /// The hop became blocked (a primary user appeared) during the frame.
    Blocked,
}

/// Per-reason drop counters of a link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Drops {
    /// Drop-tail overflow.
    pub queue_full: u64,
    /// Frame lost to the loss process.
    pub loss: u64,
    /// Frame destroyed by a blockage that began during its transmission.
    pub blocked: u64,
}

impl Drops {
    /// All drops.
    pub fn total(&self) -> u64 {
        self.queue_full + self.loss + self.blocked
    }
    fn count(&mut self, why: DropReason) {
        match why {
            DropReason::QueueFull => self.queue_full += 1,
            DropReason::Loss => self.loss += 1,
            DropReason::Blocked => self.blocked += 1,
        }
    }
}

/// Counters of a link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// Packets offered to the link.
    pub offered: u64,
    /// Transmissions started.
    pub transmitted: u64,
    /// IP bytes of the transmissions started.
    pub bytes_transmitted: u64,
    /// Packets that reached the far end.
    pub arrived: u64,
    /// Packets dropped, by reason.
    pub drops: Drops,
    /// Largest queue length seen, in packets.
    pub max_queue: u64,
}

impl LinkStats {
    /// Adds the counters of another copy of the same link (each event was
    /// counted by one copy only).
    pub fn absorb(&mut self, other: &LinkStats) {
        self.offered += other.offered;
        self.transmitted += other.transmitted;
        self.bytes_transmitted += other.bytes_transmitted;
        self.arrived += other.arrived;
        self.drops.queue_full += other.drops.queue_full;
        self.drops.loss += other.drops.loss;
        self.drops.blocked += other.drops.blocked;
        self.max_queue = self.max_queue.max(other.max_queue);
    }
}

/// Where a link's packets go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    /// The base station.
    Bs,
    /// The wired host (CH) of a flow.
    Ch(u32),
    /// The wireless host (SH) of the packet's own flow.
    ShOfFlow,
}

/// One direction of a link.
#[derive(Debug)]
pub struct Link {
    /// Name used in results and pcap file names.
    pub name: String,
    /// Where packets go.
    pub dest: Dest,
    /// Whether the wireless availability process gates this link.
    pub gated: bool,
    /// Counters.
    pub stats: LinkStats,
    rate_bps: u64,
    limit: QueueLimit,
    overhead: u32,
    queue: VecDeque<Packet>,
    queued_bytes: u64,
    in_tx: Option<Packet>,
    tx_gen: u32,
    pipe: DelayLine,
    loss: LossProcess,
    /// [`Link::send`]: when the serialiser is free, the start times and IP
    /// lengths of the packets that have not started, and the frames lost
    /// whose airtime has not ended.
    free_at: Time,
    starts: VecDeque<(Time, u32)>,
    lost: VecDeque<Packet>,
}

/// What [`Link::send`] did with a packet it accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// When its serialisation starts (now, or when the packets ahead of it
    /// have left).
    pub start: Time,
    /// When its serialisation ends.
    pub end: Time,
    /// Its arrival time, if it is the head of the propagation pipe (the
    /// caller schedules only the head's arrival).
    pub arrival: Option<Time>,
    /// The loss process took it: the caller calls [`Link::take_lost`] at
    /// `end`.
    pub lost: bool,
}

/// What the world must schedule after a call into a link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wake {
    /// A transmission started: its end, with the generation to quote back.
    pub tx_done: Option<(Time, u32)>,
    /// The head of the propagation pipe changed: its arrival time.
    pub arrival: Option<Time>,
    /// A packet was dropped.
    pub dropped: Option<DropReason>,
}

impl Link {
    /// A link direction.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        dest: Dest,
        rate_bps: u64,
        delay: Dur,
        limit: QueueLimit,
        overhead: u32,
        loss: LossProcess,
        gated: bool,
    ) -> Link {
        Link::with_pipe(
            name,
            dest,
            rate_bps,
            DelayLine::new(delay, None),
            limit,
            overhead,
            loss,
            gated,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn with_pipe(
        name: String,
        dest: Dest,
        rate_bps: u64,
        pipe: DelayLine,
        limit: QueueLimit,
        overhead: u32,
        loss: LossProcess,
        gated: bool,
    ) -> Link {
        Link {
            name,
            dest,
            gated,
            stats: LinkStats::default(),
            rate_bps,
            limit,
            overhead,
            // Grown on first use: a world of many flows builds two links
            // per flow, most of which never queue more than a few packets.
            queue: VecDeque::new(),
            queued_bytes: 0,
            in_tx: None,
            tx_gen: 0,
            pipe,
            loss,
            free_at: Time::ZERO,
            starts: VecDeque::new(),
            lost: VecDeque::new(),
        }
    }

    /// A `[wired]` access link direction named `name` in a run seeded with
    /// `seed`, as both engines build it: lossless, ungated, its frame
    /// overhead serialised with each packet, its jitter (if any) drawn from
    /// the stream `wired.<name>.jitter`.
    pub fn wired(name: String, dest: Dest, spec: &LinkSpec, seed: u64) -> Link {
        let jitter = (spec.jitter > Dur::ZERO)
            .then(|| stream(seed, &format!("wired.{name}.jitter")))
            .map(|rng| (spec.jitter, rng));
        Link::with_pipe(
            name,
            dest,
            spec.rate_bps,
            DelayLine::new(spec.delay, jitter),
            spec.queue,
            spec.frame_overhead,
            LossProcess::None,
            false,
        )
    }

    /// A direction of the point-to-point wireless hop, as both engines
    /// build it: `bs-air` (down) or `air-bs`, its losses drawn from the
    /// stream `wireless.down.loss` or `wireless.up.loss`, so that one seed
    /// gives both engines the same losses.
    pub fn air(wl: &WirelessSpec, down: bool, seed: u64) -> Link {
        let (name, dest, spec, stream_name) = if down {
            (
                "bs-air",
                Dest::ShOfFlow,
                &wl.loss_down,
                "wireless.down.loss",
            )
        } else {
            ("air-bs", Dest::Bs, &wl.loss_up, "wireless.up.loss")
        };
        let l = &wl.link;
        Link::new(
            name.into(),
            dest,
            l.rate_bps,
            l.delay,
            l.queue,
            wl.frame_overhead,
            LossProcess::new(spec, stream(seed, stream_name)),
            true,
        )
    }

    /// Serialisation time of a packet, with the link-layer overhead.
    pub fn tx_time(&self, p: &Packet) -> Dur {
        Dur::transmission(p.air_len() as u64 + self.overhead as u64, self.rate_bps)
    }

    /// Packets held: queued, being sent and propagating.
    pub fn held(&self) -> u64 {
        (self.queue.len() + self.in_tx.is_some() as usize + self.pipe.len() + self.lost.len())
            as u64
    }

    /// Whether the transmission of generation `gen` is the frame on the
    /// air (its end is not stale).
    pub fn is_current(&self, gen: u32) -> bool {
        gen == self.tx_gen && self.in_tx.is_some()
    }

    /// Advances the loss process by one frame of the other direction
    /// (`steps = "both"`); decides nothing.
    pub fn step_loss(&mut self) {
        self.loss.step();
    }

    /// Long-run frame-loss probability of the link.
    pub fn mean_loss(&self) -> f64 {
        self.loss.mean_loss()
    }

    /// Whether a packet of `ip_len` bytes fits behind the `waiting` ones
    /// (`queued_bytes` of them).
    fn fits(&self, waiting: usize, ip_len: u64) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => waiting < n as usize,
            QueueLimit::Bytes(b) => self.queued_bytes + ip_len <= b,
        }
    }

    /// The time `p`, of `ip_len` IP bytes, takes on the wire.
    fn airtime(&self, p: &Packet, ip_len: u64) -> Dur {
        let air = ip_len + u64::from(p.meta.link_overhead) + u64::from(self.overhead);
        Dur::transmission(air, self.rate_bps)
    }

    /// Starts sending `p`, of `ip_len` IP bytes (measured once by the
    /// caller: a packet's length walks its options).
    fn start(&mut self, now: Time, p: Packet, ip_len: u64) -> (Time, u32) {
        self.stats.transmitted += 1;
        self.stats.bytes_transmitted += ip_len;
        let done = now + self.airtime(&p, ip_len);
        self.in_tx = Some(p);
        self.tx_gen = self.tx_gen.wrapping_add(1);
        (done, self.tx_gen)
    }

    /// The packet at the head of the propagation pipe, if any.
    #[inline]
    pub fn pipe_head(&self) -> Option<&Packet> {
        self.pipe.head()
    }

    /// The packet now on the air, if any (for capture).
    pub fn in_tx(&self) -> Option<&Packet> {
        self.in_tx.as_ref()
    }

    /// Offers a packet. `open` is false while the hop is blocked.
    pub fn offer(&mut self, now: Time, p: Packet, open: bool) -> Wake {
        self.stats.offered += 1;
        let ip_len = p.ip_len() as u64;
        if self.in_tx.is_none() && open && self.queue.is_empty() {
            return Wake {
                tx_done: Some(self.start(now, p, ip_len)),
                ..Wake::default()
            };
        }
        if !self.fits(self.queue.len(), ip_len) {
            self.stats.drops.count(DropReason::QueueFull);
            return Wake {
                dropped: Some(DropReason::QueueFull),
                ..Wake::default()
            };
        }
        self.queued_bytes += ip_len;
        self.queue.push_back(p);
        self.stats.max_queue = self.stats.max_queue.max(self.queue.len() as u64);
        Wake::default()
    }

    /// Starts the next queued packet if the link is idle and open.
    pub fn kick(&mut self, now: Time, open: bool) -> Wake {
        if self.in_tx.is_some() || !open {
            return Wake::default();
        }
        match self.queue.pop_front() {
            Some(p) => {
                let ip_len = p.ip_len() as u64;
                self.queued_bytes -= ip_len;
                Wake {
                    tx_done: Some(self.start(now, p, ip_len)),
                    ..Wake::default()
                }
            }
            None => Wake::default(),
        }
    }

    /// The transmission of generation `gen` ended at `now`. Stale
    /// generations (a frame destroyed by a blockage) are ignored.
    pub fn tx_done(&mut self, now: Time, gen: u32, open: bool) -> Wake {
        if gen != self.tx_gen {
            return Wake::default();
        }
        let Some(p) = self.in_tx.take() else {
            return Wake::default();
        };
        let mut wake = self.kick(now, open);
        if self.loss.lose_next() {
            self.stats.drops.count(DropReason::Loss);
            wake.dropped = Some(DropReason::Loss);
        } else {
            let first = self.pipe.is_empty();
            let at = self.pipe.push(now, p);
            if first {
                wake.arrival = Some(at);
            }
        }
        wake
    }

    /// The transmission of generation `gen` ended at `now`, destroyed by a
    /// blockage during its airtime (a transmitter that did not sense it):
    /// counted as `blocked`, and the next frame starts if `open`.
    pub fn tx_done_blocked(&mut self, now: Time, gen: u32, open: bool) -> Wake {
        if gen != self.tx_gen || self.in_tx.take().is_none() {
            return Wake::default();
        }
        self.stats.drops.count(DropReason::Blocked);
        let mut wake = self.kick(now, open);
        wake.dropped = Some(DropReason::Blocked);
        wake
    }

    /// A blockage began: the frame on the air, if any, is destroyed.
    pub fn block(&mut self) -> Option<DropReason> {
        self.in_tx.take().map(|_| {
            self.tx_gen = self.tx_gen.wrapping_add(1);
            self.stats.drops.count(DropReason::Blocked);
            DropReason::Blocked
        })
    }

    /// Offers `p` at `now` to a link that is never gated, whose departures
    /// are therefore known now: the packet starts when the serialiser is
    /// free, and goes into the propagation pipe with its arrival time (next
    /// seen by [`Link::arrive`]) or, if the loss process takes it, waits for
    /// [`Link::take_lost`] at its end. Queue-full drops are decided as by
    /// [`Link::offer`]: the packets counted are those whose serialisation
    /// has not started at `now`. Not to be mixed with [`Link::offer`] on
    /// one link.
    pub fn send(&mut self, now: Time, p: Packet) -> Result<Sent, DropReason> {
        debug_assert!(self.in_tx.is_none() && self.queue.is_empty());
        self.stats.offered += 1;
        self.settle(now);
        let ip_len = p.ip_len() as u64;
        let start = if self.free_at <= now {
            self.stats.transmitted += 1;
            self.stats.bytes_transmitted += ip_len;
            now
        } else {
            if !self.fits(self.starts.len(), ip_len) {
                self.stats.drops.count(DropReason::QueueFull);
                return Err(DropReason::QueueFull);
            }
            self.queued_bytes += ip_len;
            self.starts.push_back((self.free_at, ip_len as u32));
            self.stats.max_queue = self.stats.max_queue.max(self.starts.len() as u64);
            self.free_at
        };
        let end = start + self.airtime(&p, ip_len);
        self.free_at = end;
        if self.loss.lose_next() {
            self.lost.push_back(p);
            return Ok(Sent {
                start,
                end,
                arrival: None,
                lost: true,
            });
        }
        let first = self.pipe.is_empty();
        let at = self.pipe.push(end, p);
        Ok(Sent {
            start,
            end,
            arrival: first.then_some(at),
            lost: false,
        })
    }

    /// The oldest frame [`Link::send`] found lost, whose airtime has now
    /// ended: counted as lost and handed back for the report.
    pub fn take_lost(&mut self) -> Option<Packet> {
        let p = self.lost.pop_front()?;
        self.stats.drops.count(DropReason::Loss);
        Some(p)
    }

    /// Counts the transmissions of [`Link::send`] that have started by
    /// `now` (their counters are kept as time passes, so that a run's end
    /// counts exactly the transmissions begun by then).
    pub fn settle(&mut self, now: Time) {
        while let Some(&(start, len)) = self.starts.front() {
            if start > now {
                break;
            }
            self.starts.pop_front();
            self.queued_bytes -= u64::from(len);
            self.stats.transmitted += 1;
            self.stats.bytes_transmitted += u64::from(len);
        }
    }

    /// Takes back the packet [`Link::send`] just put into the propagation
    /// pipe, with its arrival time: a packet that another copy of the
    /// world receives ([`crate::sim::split`]).
    pub fn take_back(&mut self) -> Option<(Time, Packet)> {
        self.pipe.pop_back()
    }

    /// Enters `p`, arriving at `at`, into the propagation pipe: a packet
    /// another copy of this link sent. Returns whether it heads the pipe
    /// (its arrival is then to be scheduled).
    pub fn import(&mut self, at: Time, p: Packet) -> bool {
        let first = self.pipe.is_empty();
        self.pipe.push_at(at, p);
        first
    }

    /// Takes the packet arriving at `now`, and the next arrival time if any.
    pub fn arrive(&mut self, now: Time) -> (Option<Packet>, Option<Time>) {
        match self.pipe.pop(now) {
            Some(p) => {
                self.stats.arrived += 1;
                (Some(p), self.pipe.next())
            }
            None => (None, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hop::p2p::tests::frame as packet;
    use crate::scenario::LossSpec;
    use proptest::strategy::Strategy as _;

    /// Sends `n` packets back to back through a 100 Mbit/s, 1 ms link and
    /// returns their arrival times (in order of arrival) and uids.
    /// `[wired] frame_overhead` is on the wire with every packet: 2 B of
    /// PPP make a 1500-byte datagram take 1502 bytes' time at the link rate.
    #[test]
    fn a_wired_frame_overhead_lengthens_each_packet_on_the_wire() {
        let mut spec = LinkSpec {
            rate_bps: 100_000_000,
            delay: Dur::from_millis(1),
            queue: QueueLimit::Packets(10),
            jitter: Dur::ZERO,
            frame_overhead: 0,
        };
        let p = packet(1);
        let bare = Link::wired("ch0-bs".into(), Dest::Bs, &spec, 1).tx_time(&p);
        spec.frame_overhead = 2;
        let ppp = Link::wired("ch0-bs".into(), Dest::Bs, &spec, 1).tx_time(&p);
        let len = p.air_len() as u64;
        assert_eq!(bare, Dur::transmission(len, 100_000_000));
        assert_eq!(ppp, Dur::transmission(len + 2, 100_000_000));
        assert!(ppp > bare);
    }

    fn arrivals(jitter: Dur, n: u64) -> Vec<(Time, u64)> {
        let spec = LinkSpec {
            rate_bps: 100_000_000,
            delay: Dur::from_millis(1),
            queue: QueueLimit::Packets(1000),
            jitter,
            frame_overhead: 0,
        };
        let mut link = Link::wired("ch0-bs".into(), Dest::Bs, &spec, 1);
        let mut now = Time::ZERO;
        let mut pending = link.offer(now, packet(0), true).tx_done;
        for uid in 1..n {
            link.offer(now, packet(uid), true);
        }
        while let Some((end, gen)) = pending {
            now = end;
            pending = link.tx_done(now, gen, true).tx_done;
        }
        let mut out = Vec::new();
        while let Some(at) = link.pipe.next() {
            let (p, _) = link.arrive(at);
            out.push((at, p.expect("due").meta.uid));
        }
        out
    }

    #[test]
    fn jitter_spreads_the_delay_without_reordering() {
        let n = 200;
        let plain = arrivals(Dur::ZERO, n);
        let jittered = arrivals(Dur::from_micros(100), n);
        // Every packet arrives, in the order sent.
        let order: Vec<u64> = jittered.iter().map(|a| a.1).collect();
        assert_eq!(order, (0..n).collect::<Vec<_>>());
        assert!(jittered.windows(2).all(|w| w[0].0 <= w[1].0));
        // Each is late by at most the jitter (or by its predecessor's
        // lateness, which it may not overtake), never early.
        let mut extra = Vec::new();
        for (&(p, _), &(j, _)) in plain.iter().zip(&jittered) {
            assert!(j >= p);
            extra.push((j - p).0);
        }
        assert!(extra.iter().all(|&e| e <= Dur::from_micros(100).0));
        // The draws spread: not all equal.
        assert!(extra.iter().any(|&e| e != extra[0]));
    }

    #[test]
    fn zero_jitter_leaves_the_link_constant() {
        let plain = arrivals(Dur::ZERO, 5);
        let start = Time::ZERO + Dur::from_millis(1);
        assert!(plain.iter().all(|&(at, _)| at > start));
        let gaps: Vec<Dur> = plain.windows(2).map(|w| w[1].0 - w[0].0).collect();
        assert!(gaps.iter().all(|&g| g == gaps[0]), "{gaps:?}");
    }

    /// A link of 10 Mbit/s and 1 ms (jitter 100 µs when `jitter`), queue
    /// `limit`, frames lost with probability `loss`.
    fn lossy(limit: QueueLimit, loss: f64, jitter: bool) -> Link {
        let spec = LinkSpec {
            rate_bps: 10_000_000,
            delay: Dur::from_millis(1),
            queue: limit,
            jitter: if jitter {
                Dur::from_micros(100)
            } else {
                Dur::ZERO
            },
            frame_overhead: 4,
        };
        let mut l = Link::wired("x".into(), Dest::Bs, &spec, 5);
        let p = LossSpec::Iid { p: loss };
        l.loss = LossProcess::new(&p, stream(5, "loss"));
        l
    }

    /// What a link did with packets offered at `offers` (ns, increasing):
    /// (uid, arrival) of those that arrived, (uid, when) of those dropped,
    /// and its counters at `end`; driven the old way (an event per
    /// serialisation end) or with departures known (`Link::send`).
    #[allow(clippy::type_complexity)]
    fn drive(
        mut l: Link,
        offers: &[u64],
        end: Time,
        known: bool,
    ) -> (Vec<(u64, Time)>, Vec<(u64, Time)>, LinkStats, u64) {
        // A tiny event loop: (time, order, kind); kind 0 tx end, 1 arrival,
        // 2 offer of packet `uid`, 3 a lost frame's end.
        let mut evs: Vec<(Time, u64, u8, u64)> = offers
            .iter()
            .enumerate()
            .map(|(i, &t)| (Time(t), i as u64, 2, i as u64))
            .collect();
        let mut order = offers.len() as u64;
        let (mut arrived, mut dropped) = (Vec::new(), Vec::new());
        let mut in_tx: Option<u64> = None;
        // At one instant a serialisation end goes first: the link is then
        // free for a packet offered in that instant, as `send` takes it.
        let key = |e: &(Time, u64, u8, u64)| (e.0, e.2 != 0, e.1);
        while let Some(i) = (0..evs.len()).min_by_key(|&i| key(&evs[i])) {
            let (now, _, kind, arg) = evs.swap_remove(i);
            if now > end {
                break;
            }
            let mut at = |t: Time, k: u8, a: u64| {
                order += 1;
                evs.push((t, order, k, a));
            };
            match kind {
                2 if known => match l.send(now, packet(arg)) {
                    Ok(s) if s.lost => at(s.end, 3, 0),
                    Ok(s) => {
                        if let Some(t) = s.arrival {
                            at(t, 1, 0);
                        }
                    }
                    Err(_) => dropped.push((arg, now)),
                },
                2 => {
                    let w = l.offer(now, packet(arg), true);
                    if let Some((t, g)) = w.tx_done {
                        in_tx = l.in_tx().map(|p| p.meta.uid);
                        at(t, 0, u64::from(g));
                    }
                    if w.dropped.is_some() {
                        dropped.push((arg, now));
                    }
                }
                0 => {
                    let uid = in_tx.take().unwrap();
                    let w = l.tx_done(now, arg as u32, true);
                    if let Some((t, g)) = w.tx_done {
                        in_tx = l.in_tx().map(|p| p.meta.uid);
                        at(t, 0, u64::from(g));
                    }
                    if let Some(t) = w.arrival {
                        at(t, 1, 0);
                    }
                    if w.dropped.is_some() {
                        dropped.push((uid, now));
                    }
                }
                3 => {
                    let p = l.take_lost().unwrap();
                    dropped.push((p.meta.uid, now));
                }
                _ => {
                    let (p, next) = l.arrive(now);
                    arrived.push((p.unwrap().meta.uid, now));
                    if let Some(t) = next {
                        at(t, 1, 0);
                    }
                }
            }
        }
        l.settle(end);
        dropped.sort();
        (arrived, dropped, l.stats, l.held())
    }

    proptest::proptest! {
        /// Knowing departures at enqueue changes nothing a link does:
        /// the same packets arrive at the same instants, the same are
        /// dropped (queue full, or lost at their ends), and the counters
        /// and the packets held at the end agree.
        #[test]
        fn known_departures_change_nothing(
            gaps in proptest::collection::vec(
                // Or whole airtimes (1,044 B at 10 Mbit/s): an offer at
                // the instant a frame ends.
                proptest::prop_oneof![0u64..3_000_000, (0u64..4).prop_map(|k| k * 835_200)],
                1..300,
            ),
            packets in proptest::bool::ANY,
            limit in 1u64..12,
            loss in 0.0f64..0.3,
            jitter in proptest::bool::ANY,
            end_ms in 5u64..400,
        ) {
            let mut t = 0;
            let offers: Vec<u64> = gaps.iter().map(|g| { t += g; t }).collect();
            let limit = if packets {
                QueueLimit::Packets(limit as u32)
            } else {
                QueueLimit::Bytes(limit * 1040)
            };
            let end = Time(end_ms * 1_000_000);
            let old = drive(lossy(limit, loss, jitter), &offers, end, false);
            let new = drive(lossy(limit, loss, jitter), &offers, end, true);
            proptest::prop_assert_eq!(old, new);
        }
    }
}
