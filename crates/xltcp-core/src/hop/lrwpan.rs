//! The 802.15.4 wireless hop (`[wireless] kind = "lrwpan"`): one
//! [`Mac`] per station (the BS is station 0, the wireless host of flow `i`
//! is station `i + 1`) on one shared medium, and a primary-user detector
//! ([`PuDetector`]) at each station's PHY.
//!
//! The medium is one collision domain without propagation delay:
//! - every station's CCA reads busy while another station transmits or a
//!   primary user (PU) is on (the availability process: blocked = PU on);
//! - a frame is destroyed if another station's frame overlaps it in time
//!   (a collision, both are lost) or if a PU is on at any instant of it;
//! - a frame that survives both is lost with the probability of its
//!   direction of travel: `[wireless.loss.down|up]` drawn per frame from
//!   the streams `wireless.<dir>.loss` (data) and `wireless.<dir>.ack_loss`
//!   (MAC ACKs), or the O-QPSK packet error rate of its PPDU at `snr_db`;
//! - the receiver's MAC ACKs an intact data frame; a frame carrying the
//!   same data sequence number as the last one received from that sender
//!   (its ACK was lost and the sender retried) is ACKed again but not
//!   passed up: a duplicate, counted.
//!
//! A packet handed to a MAC leaves the hop when its frame is first received
//! intact, or is dropped when the MAC gives it up before that (retry limit,
//! channel-access failure, full queue, frame too long), each with a counter.
//! A frame given up after it was received (only its ACKs were lost) is not a
//! drop. Each MAC draws its back-offs from `lrwpan.<station>.backoff`, each
//! detector from `lrwpan.<station>.pu_detect`.

use super::held::HeldFrames;
use super::{Hop, HopDrop, HopIo, HopOut, HopSection, HopTimer, TimerKind, TimerSink};
use crate::net::link::{Drops, LinkStats};
use crate::net::loss::LossProcess;
use crate::radio::lrwpan::{
    Frame, FrameLayout, Mac, MacConfig, MacEvent, OracleCapacity, TxKind, UndeliveredReason,
};
use crate::radio::oqpsk;
use crate::radio::pu::{PuDetector, PuDetectorConfig};
use crate::rng::{stream, Rng};
use crate::scenario::{
    Direction, FlowSpec, LayoutPreset, LossSpec, LrwpanSpec, PuDetectionSpec, QueueLimit,
};

use crate::time::Time;
use crate::wire::Packet;
use rand::RngExt;
use serde::Serialize;
use std::collections::BTreeMap;

/// A timer of the hop, carried by the engine as a [`HopTimer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HopEv {
    /// A station's MAC deadline may be due.
    Mac {
        /// Station index.
        station: u32,
    },
    /// A station's PU detector deadline may be due.
    Detector {
        /// Station index.
        station: u32,
    },
    /// A scheduled transmission (a MAC ACK) begins.
    TxStart {
        /// Transmission number.
        tx: u64,
    },
    /// A transmission ends.
    TxEnd {
        /// Transmission number.
        tx: u64,
    },
}

/// Counters of one direction of the hop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HopDirStats {
    /// Packets handed to a MAC.
    pub offered: u64,
    /// Data frames put on the air (attempts).
    pub frames_sent: u64,
    /// Of those, the MAC's retransmissions (attempts after the first):
    /// link-layer retransmissions below any scheme's.
    pub frames_retried: u64,
    /// IP bytes of the data frames put on the air.
    pub bytes_sent: u64,
    /// Longest MAC transmit queue seen, in frames.
    pub max_queue: u64,
    /// Packets received intact (first copies).
    pub arrived: u64,
    /// Duplicate data frames rejected by data sequence number.
    pub duplicates: u64,
    /// Data frames destroyed by a collision.
    pub collided: u64,
    /// Data frames destroyed by a primary user.
    pub pu_destroyed: u64,
    /// Data frames lost to the loss process / bit errors.
    pub lost: u64,
    /// Data frames the receiver could not hear (it was transmitting).
    pub deaf: u64,
    /// MAC ACKs lost (collision, PU or loss process).
    pub acks_lost: u64,
    /// Packets dropped after `macMaxFrameRetries`.
    pub drop_retry_limit: u64,
    /// Packets dropped after a channel-access failure.
    pub drop_channel_access: u64,
    /// Packets refused by a full MAC queue.
    pub drop_queue_full: u64,
    /// Packets refused as longer than 127 B.
    pub drop_too_long: u64,
    /// Frames given up after their receiver got them (ACKs lost): not drops.
    pub undelivered_after_receipt: u64,
}

/// Counters of the hop, per direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HopStats {
    /// BS -> SH.
    pub down: HopDirStats,
    /// SH -> BS.
    pub up: HopDirStats,
}

/// A frame handed to a MAC.
#[derive(Debug)]
struct Held {
    packet: Packet,
    to: usize,
    received: bool,
}

/// One station: its MAC, its PU detector and its frames.
#[derive(Debug)]
struct Station {
    mac: Mac,
    detector: PuDetector,
    held: HeldFrames<Held>,
    next_dsn: u64,
    /// Last frame id received from each sender station.
    last_rx: BTreeMap<usize, u64>,
    mac_armed: Time,
    detector_armed: Time,
    /// Busy level last reported to the MAC.
    busy: bool,
    /// The station whose data frame the next MAC ACK answers.
    ack_to: usize,
}

/// A transmission on (or about to go on) the air.
#[derive(Clone, Copy, Debug)]
struct Air {
    tx: u64,
    station: usize,
    to: usize,
    kind: TxKind,
    frame: u64,
    mpdu: u16,
    end: Time,
    started: bool,
    collided: bool,
    pu_hit: bool,
}

/// Per-frame loss of one direction.
#[derive(Debug)]
enum Fate {
    Process { data: LossProcess, ack: LossProcess },
    Snr { db: f64, rng: Rng },
}

impl Fate {
    fn lost(&mut self, kind: TxKind, ppdu_bytes: u32) -> bool {
        match self {
            Fate::Process { data, ack } => match kind {
                TxKind::Data => data.lose_next(),
                TxKind::Ack => ack.lose_next(),
            },
            Fate::Snr { db, rng } => rng.random::<f64>() < oqpsk::per_from_sinr_db(*db, ppdu_bytes),
        }
    }
}

/// The 802.15.4 hop (see the module doc).
#[derive(Debug)]
pub struct LrwpanHop {
    stations: Vec<Station>,
    air: Vec<Air>,
    next_tx: u64,
    pu_on: bool,
    layout: LayoutPreset,
    min_be: u8,
    down: Fate,
    up: Fate,
    /// Whether a wireless host's MAC is held between its detector's
    /// `pu_start` and `pu_stop` ([`Mac::set_hold`]).
    mac_hold: bool,
    /// Counters.
    pub stats: HopStats,
}

impl LrwpanHop {
    /// The hop of `flows` wireless hosts and the BS.
    pub fn new(
        spec: &LrwpanSpec,
        queue: QueueLimit,
        loss: (&LossSpec, &LossSpec),
        det: &PuDetectionSpec,
        flows: usize,
        seed: u64,
    ) -> LrwpanHop {
        let config = MacConfig {
            min_be: spec.min_be,
            max_be: spec.max_be,
            max_csma_backoffs: spec.max_csma_backoffs,
            max_frame_retries: spec.max_frame_retries,
            queue_limit: match queue {
                QueueLimit::Packets(n) => n as usize,
                QueueLimit::Bytes(_) => 100,
            },
        };
        let dcfg = PuDetectorConfig {
            signalling_delay: det.signalling_delay,
            t_idle: det.t_idle,
            missed_detection: det.missed_detection,
        };
        let stations = (0..=flows)
            .map(|i| {
                let name = if i == 0 {
                    "bs".to_string()
                } else {
                    format!("sh{}", i - 1)
                };
                Station {
                    mac: Mac::new(config, stream(seed, &format!("lrwpan.{name}.backoff"))),
                    detector: PuDetector::new(
                        dcfg,
                        stream(seed, &format!("lrwpan.{name}.pu_detect")),
                    ),
                    held: HeldFrames::default(),
                    next_dsn: 0,
                    last_rx: BTreeMap::new(),
                    mac_armed: Time::NEVER,
                    detector_armed: Time::NEVER,
                    busy: false,
                    ack_to: 0,
                }
            })
            .collect();
        let fate = |spec: &LossSpec, dir: &str| Fate::Process {
            data: LossProcess::new(spec, stream(seed, &format!("wireless.{dir}.loss"))),
            ack: LossProcess::new(spec, stream(seed, &format!("wireless.{dir}.ack_loss"))),
        };
        let (down, up) = match spec.snr_db {
            Some(db) => (
                Fate::Snr {
                    db,
                    rng: stream(seed, "wireless.down.loss"),
                },
                Fate::Snr {
                    db,
                    rng: stream(seed, "wireless.up.loss"),
                },
            ),
            None => (fate(loss.0, "down"), fate(loss.1, "up")),
        };
        LrwpanHop {
            stations,
            air: Vec::with_capacity(8),
            next_tx: 0,
            pu_on: false,
            layout: spec.layout,
            min_be: spec.min_be,
            down,
            up,
            mac_hold: false,
            stats: HopStats::default(),
        }
    }

    /// The hop with each wireless host's MAC held from its detector's
    /// `pu_start` to its `pu_stop` (`[schemes] mac_hold`): the secondary's
    /// PHY stops while it believes a primary user on, its queue kept. The
    /// hold begins when the signal is emitted, so `signalling_delay` delays
    /// it as it delays TCP's freeze; the BS is never held.
    pub fn with_mac_hold(mut self, on: bool) -> LrwpanHop {
        self.mac_hold = on;
        self
    }

    /// MPDU bytes of the frame carrying `p`.
    pub fn mpdu_len(&self, p: &Packet) -> u16 {
        let tcp = p.tcp.header_len() + p.tcp.payload_len as usize;
        let n = match self.layout {
            // 9 B MHR + 2 B FCS around the whole IPv4 datagram.
            LayoutPreset::TcpIpv4 => 11 + p.air_len(),
            // 19 B MHR + 2 B FCS, the 12-byte TCP header replacing the
            // 20-byte one, no IP header.
            LayoutPreset::Paper => 21 + tcp - 8 + usize::from(p.meta.link_overhead),
        };
        n.min(u16::MAX as usize) as u16
    }

    /// Packets held by the MACs and not yet received.
    pub fn in_flight(&self) -> u64 {
        let held = self.stations.iter().map(|s| s.held.count(|h| !h.received));
        held.sum::<usize>() as u64
    }

    /// Whether a PU is on the channel now.
    pub fn pu_on(&self) -> bool {
        self.pu_on
    }

    /// Whether station `station`'s detector has announced a PU.
    pub fn detector_frozen(&self, station: usize) -> bool {
        self.stations[station].detector.is_frozen()
    }

    /// Transmit-queue length of a station's MAC.
    pub fn queue_len(&self, station: usize) -> usize {
        self.stations[station].mac.queue_len()
    }

    fn dir(&mut self, down: bool) -> &mut HopDirStats {
        if down {
            &mut self.stats.down
        } else {
            &mut self.stats.up
        }
    }

    /// Hands `packet` to station `from`'s MAC, for station `to`.
    pub fn enqueue(
        &mut self,
        now: Time,
        from: usize,
        to: usize,
        packet: Packet,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
        self.dir(from == 0).offered += 1;
        let mpdu_len = self.mpdu_len(&packet);
        let s = &mut self.stations[from];
        // Frame ids: the station's data sequence number (never reused).
        let id = s.next_dsn;
        s.next_dsn += 1;
        s.held.push(
            id,
            Held {
                packet,
                to,
                received: false,
            },
        );
        s.mac.enqueue(now, Frame { id, mpdu_len });
        let queued = s.mac.queue_len() as u64;
        let d = self.dir(from == 0);
        d.max_queue = d.max_queue.max(queued);
        self.drain(now, from, q, out);
    }

    /// The PU came on (`on`) or went off at `now`.
    pub fn set_pu(&mut self, now: Time, on: bool, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        self.pu_on = on;
        if on {
            for a in self.air.iter_mut().filter(|a| a.started) {
                a.pu_hit = true;
            }
        }
        for i in 0..self.stations.len() {
            self.stations[i].detector.handle_pu(now, on);
            self.drain_detector(now, i, q, out);
        }
        self.update_channel(now, q, out);
    }

    /// Handles one of the hop's events.
    pub fn handle(&mut self, now: Time, ev: HopEv, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        match ev {
            HopEv::Mac { station } => {
                let i = station as usize;
                let s = &mut self.stations[i];
                if s.mac_armed == now {
                    s.mac_armed = Time::NEVER;
                }
                s.mac.handle_timeout(now);
                self.drain(now, i, q, out);
            }
            HopEv::Detector { station } => {
                let i = station as usize;
                let s = &mut self.stations[i];
                if s.detector_armed == now {
                    s.detector_armed = Time::NEVER;
                }
                s.detector.handle_timeout(now);
                self.drain_detector(now, i, q, out);
            }
            HopEv::TxStart { tx } => {
                if let Some(k) = self.air.iter().position(|a| a.tx == tx) {
                    self.begin(k);
                    self.update_channel(now, q, out);
                }
            }
            HopEv::TxEnd { tx } => {
                if let Some(k) = self.air.iter().position(|a| a.tx == tx) {
                    let a = self.air.remove(k);
                    self.update_channel(now, q, out);
                    self.finish(now, a, q, out);
                }
            }
        }
    }

    /// Marks transmission `k` started: collisions with every other frame
    /// on the air, and the PU.
    fn begin(&mut self, k: usize) {
        let mut hit = false;
        let station = self.air[k].station;
        for (j, a) in self.air.iter_mut().enumerate() {
            if j != k && a.started && a.station != station {
                a.collided = true;
                hit = true;
            }
        }
        let a = &mut self.air[k];
        a.started = true;
        a.collided |= hit;
        a.pu_hit |= self.pu_on;
    }

    /// Reports the medium to every station whose view changed.
    fn update_channel(&mut self, now: Time, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        for i in 0..self.stations.len() {
            let busy = self.pu_on || self.air.iter().any(|a| a.started && a.station != i);
            if busy != self.stations[i].busy {
                self.stations[i].busy = busy;
                self.stations[i].mac.handle_channel(now, busy);
                self.drain(now, i, q, out);
            }
        }
    }

    /// A transmission ended: decide its fate and tell its receiver.
    fn finish(&mut self, now: Time, a: Air, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        let down = a.station == 0;
        let ppdu = u32::from(a.mpdu) + 6;
        let lost = !a.collided && !a.pu_hit && {
            let fate = if down { &mut self.down } else { &mut self.up };
            fate.lost(a.kind, ppdu)
        };
        let intact = !a.collided && !a.pu_hit && !lost;
        let d = self.dir(down);
        match a.kind {
            TxKind::Ack => {
                if intact {
                    self.stations[a.to].mac.handle_ack(now, a.frame);
                    self.drain(now, a.to, q, out);
                } else {
                    d.acks_lost += 1;
                }
            }
            TxKind::Data => {
                if a.collided {
                    d.collided += 1;
                } else if a.pu_hit {
                    d.pu_destroyed += 1;
                } else if lost {
                    d.lost += 1;
                }
                if intact {
                    self.receive(now, a, q, out);
                }
            }
        }
    }

    /// An intact data frame at its receiver.
    fn receive(&mut self, now: Time, a: Air, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        let down = a.station == 0;
        let r = &mut self.stations[a.to];
        let acks = r.mac.stats().acks_sent;
        r.ack_to = a.station;
        r.mac.handle_data(now, a.frame);
        let heard = r.mac.stats().acks_sent > acks;
        let dup = heard && r.last_rx.get(&a.station) == Some(&a.frame);
        if heard {
            r.last_rx.insert(a.station, a.frame);
        }
        self.drain(now, a.to, q, out);
        if !heard {
            self.dir(down).deaf += 1;
            return;
        }
        if dup {
            self.dir(down).duplicates += 1;
            return;
        }
        if let Some(h) = self.stations[a.station].held.get_mut(a.frame) {
            if !h.received {
                h.received = true;
                let packet = h.packet;
                self.dir(down).arrived += 1;
                out.push(HopOut::Arrived {
                    station: a.to,
                    packet,
                });
            }
        }
    }

    /// Drains station `i`'s MAC after an input and re-arms its timer.
    fn drain(&mut self, now: Time, i: usize, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        while let Some(t) = self.stations[i].mac.poll_transmit() {
            self.launch(now, i, t, q, out);
        }
        while let Some(e) = self.stations[i].mac.poll_event() {
            self.report(i, e, out);
        }
        let s = &mut self.stations[i];
        if let Some(at) = s.mac.poll_timeout() {
            let at = at.max(now);
            if at < s.mac_armed {
                s.mac_armed = at;
                q.schedule(at, HopEv::Mac { station: i as u32 }.into());
            }
        }
    }

    fn launch(
        &mut self,
        now: Time,
        i: usize,
        t: crate::radio::lrwpan::Transmission,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
        let tx = self.next_tx;
        self.next_tx += 1;
        let to = match t.kind {
            TxKind::Data => self.stations[i].held.get(t.frame.id).map_or(0, |h| h.to),
            // An ACK answers the station whose frame it acknowledges.
            TxKind::Ack => self.stations[i].ack_to,
        };
        if t.kind == TxKind::Data {
            let down = i == 0;
            let packet = self.stations[i].held.get(t.frame.id).map(|h| h.packet);
            let d = self.dir(down);
            d.frames_sent += 1;
            if t.attempt > 1 {
                d.frames_retried += 1;
            }
            if let Some(packet) = packet {
                d.bytes_sent += packet.ip_len() as u64;
                out.push(HopOut::OnAir { down, packet });
            }
        }
        let air = Air {
            tx,
            station: i,
            to,
            kind: t.kind,
            frame: t.frame.id,
            mpdu: t.frame.mpdu_len,
            end: t.start + t.airtime,
            started: false,
            collided: false,
            pu_hit: false,
        };
        self.air.push(air);
        q.schedule(air.end.max(now), HopEv::TxEnd { tx }.into());
        if t.start <= now {
            let k = self.air.len() - 1;
            self.begin(k);
            self.update_channel(now, q, out);
        } else {
            q.schedule(t.start, HopEv::TxStart { tx }.into());
        }
    }

    /// A MAC report: free the frame, count a drop, publish the signal.
    fn report(&mut self, i: usize, e: MacEvent, out: &mut Vec<HopOut>) {
        let down = i == 0;
        let (frame, reason) = match e {
            MacEvent::Delivered { frame, .. } => (frame, None),
            MacEvent::Undelivered { frame, reason } => (frame, Some(reason)),
        };
        let held = self.stations[i].held.remove(frame);
        let packet = held.as_ref().map(|h| h.packet);
        if let (Some(h), Some(reason)) = (held, reason) {
            let d = self.dir(down);
            if h.received {
                d.undelivered_after_receipt += 1;
            } else {
                match reason {
                    UndeliveredReason::RetryLimit => d.drop_retry_limit += 1,
                    UndeliveredReason::ChannelAccessFailure => d.drop_channel_access += 1,
                    UndeliveredReason::QueueFull => d.drop_queue_full += 1,
                    UndeliveredReason::FrameTooLong => d.drop_too_long += 1,
                    // The 802.15.4 MAC never retunes: it does not flush.
                    UndeliveredReason::Flushed => d.drop_queue_full += 1,
                }
                out.push(HopOut::Dropped {
                    station: i,
                    packet: h.packet,
                    why: HopDrop::Mac(reason),
                });
            }
        }
        out.push(HopOut::Signal {
            station: i,
            signal: e.into(),
            reason,
            packet,
            delays: None,
        });
    }

    fn drain_detector(
        &mut self,
        now: Time,
        i: usize,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
        let mut hold = None;
        let s = &mut self.stations[i];
        while let Some(signal) = s.detector.poll_signal() {
            match signal {
                crate::signal::Signal::PuStart => hold = Some(true),
                crate::signal::Signal::PuStop => hold = Some(false),
                _ => {}
            }
            out.push(HopOut::Signal {
                station: i,
                signal,
                reason: None,
                packet: None,
                delays: None,
            });
        }
        if let Some(at) = s.detector.poll_timeout() {
            let at = at.max(now);
            if at < s.detector_armed {
                s.detector_armed = at;
                q.schedule(at, HopEv::Detector { station: i as u32 }.into());
            }
        }
        if let (Some(on), true) = (hold, self.mac_hold && i != 0) {
            self.stations[i].mac.set_hold(now, on);
            self.drain(now, i, q, out);
        }
    }

    /// Mean loss of data frames in one direction (for the oracle bound),
    /// with the PPDU of a full-size frame of `mpdu` bytes.
    pub fn mean_loss(&self, down: bool, mpdu: u16) -> f64 {
        let f = if down { &self.down } else { &self.up };
        match f {
            Fate::Process { data, .. } => data.mean_loss(),
            Fate::Snr { db, .. } => oqpsk::per_from_sinr_db(*db, u32::from(mpdu) + 6),
        }
    }

    /// Mean loss of MAC ACKs travelling one way.
    pub fn mean_ack_loss(&self, down: bool) -> f64 {
        let f = if down { &self.down } else { &self.up };
        match f {
            Fate::Process { ack, .. } => ack.mean_loss(),
            Fate::Snr { db, .. } => oqpsk::per_from_sinr_db(*db, 11),
        }
    }
}

impl From<HopEv> for HopTimer {
    fn from(e: HopEv) -> HopTimer {
        let (kind, a, b) = match e {
            HopEv::Mac { station } => (TimerKind::K0, station, 0),
            HopEv::Detector { station } => (TimerKind::K1, station, 0),
            HopEv::TxStart { tx } => (TimerKind::K2, 0, tx),
            HopEv::TxEnd { tx } => (TimerKind::K3, 0, tx),
        };
        HopTimer::new(kind, a, b)
    }
}

impl From<HopTimer> for HopEv {
    fn from(t: HopTimer) -> HopEv {
        match t.kind {
            TimerKind::K0 => HopEv::Mac { station: t.a },
            TimerKind::K1 => HopEv::Detector { station: t.a },
            TimerKind::K2 => HopEv::TxStart { tx: t.b },
            _ => HopEv::TxEnd { tx: t.b },
        }
    }
}

impl Hop for LrwpanHop {
    fn timer_name(&self, kind: TimerKind) -> &'static str {
        match HopEv::from(HopTimer::new(kind, 0, 0)) {
            HopEv::Mac { .. } => "mac",
            HopEv::Detector { .. } => "pu_detector",
            HopEv::TxStart { .. } => "tx_start",
            HopEv::TxEnd { .. } => "tx_end",
        }
    }

    fn enqueue<T: TimerSink>(
        &mut self,
        now: Time,
        from: usize,
        to: usize,
        p: &Packet,
        io: HopIo<'_, T>,
    ) {
        LrwpanHop::enqueue(self, now, from, to, *p, io.timers, io.out);
    }

    fn handle_timer<T: TimerSink>(&mut self, now: Time, timer: HopTimer, io: HopIo<'_, T>) {
        self.handle(now, timer.into(), io.timers, io.out);
    }

    fn set_blocked<T: TimerSink>(&mut self, now: Time, blocked: bool, io: HopIo<'_, T>) {
        self.set_pu(now, blocked, io.timers, io.out);
    }

    fn in_flight(&self) -> u64 {
        LrwpanHop::in_flight(self)
    }

    /// Transmitted = frames put on the air; drops: `queue_full` = a full MAC
    /// queue, `loss` = the retry limit (or a frame too long), `blocked` =
    /// channel-access failures.
    fn link_stats(&self) -> [(&str, LinkStats); 2] {
        let link = |d: &HopDirStats| LinkStats {
            offered: d.offered,
            transmitted: d.frames_sent,
            bytes_transmitted: d.bytes_sent,
            arrived: d.arrived,
            drops: Drops {
                queue_full: d.drop_queue_full,
                loss: d.drop_retry_limit + d.drop_too_long,
                blocked: d.drop_channel_access,
            },
            max_queue: d.max_queue,
        };
        [
            ("bs-air", link(&self.stats.down)),
            ("air-bs", link(&self.stats.up)),
        ]
    }

    /// The hop's [`OracleCapacity`] for a flow: full-size data frames of
    /// the layout with `mss` bytes of payload (header bytes of the options
    /// a data segment carries: timestamps), the receiver's TCP ACKs (one
    /// per `delayed_ack` data frames) sharing the medium, and `p / (1 − p)`
    /// lost attempts per delivered frame, an attempt being lost whenever the
    /// data frame or its MAC ACK is.
    fn capacity_bps(&self, flow: &FlowSpec) -> f64 {
        let tcp = &flow.tcp;
        let layout = crate::scenario::frame_layout(self.layout);
        let ts = if tcp.timestamps { 12 } else { 0 };
        // A layer below IP (the UCL's security) adds its bytes to every frame.
        let ts = ts + flow.link_overhead as u16;
        let data = FrameLayout {
            upper_header: layout.upper_header + ts,
            payload: tcp.mss.min(u32::from(u16::MAX)) as u16,
            ..layout
        };
        let down = flow.direction == Direction::Down;
        let mpdu = data.mpdu_len();
        let p_data = self.mean_loss(down, mpdu);
        let p_ack = self.mean_ack_loss(!down);
        OracleCapacity {
            data,
            min_be: self.min_be,
            reverse_ack_mpdu: Some(layout.mac_header + layout.fcs + layout.upper_header + ts),
            data_frames_per_ack: f64::from(tcp.delayed_ack_segments.max(1)),
            frame_loss: 1.0 - (1.0 - p_data) * (1.0 - p_ack),
        }
        .bps()
    }

    fn publishes_signals(&self) -> bool {
        true
    }

    fn section(&self) -> Option<(&'static str, HopSection)> {
        Some(("lrwpan", HopSection::Lrwpan(self.stats)))
    }
}

#[cfg(test)]
mod tests;
