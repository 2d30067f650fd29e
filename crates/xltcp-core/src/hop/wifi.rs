//! The 802.11a/b wireless hop (`[wireless] kind = "wifi"`): one
//! [`Dcf`] per station (the AP is station 0, wireless host `h` is station
//! `h + 1`) on one shared channel, with an [`EnergyMeter`] per radio.
//!
//! The channel is one collision domain without propagation delay:
//! - every station's carrier sense is busy while another station transmits
//!   or the channel is blocked (the availability process: a primary user);
//! - a frame is destroyed if another station's frame overlaps it in time
//!   (a collision: both are lost) or if the channel is blocked at any
//!   instant of it;
//! - a frame that survives both is lost with the packet error rate of its
//!   PSDU at its rate and preamble at the SNR of its link at the frame's
//!   end (the error model: NIST or YANS for OFDM, DSSS/CCK for 11b), drawn
//!   from its receiver's stream
//!   `wifi.<station>.fate`; a data frame is further lost by the loss
//!   process of its direction (`[wireless.loss.down|up]`, stream
//!   `wireless.<dir>.loss`): one draw per transmission, or with
//!   `loss_per = "packet"` one per data frame, the first time one of its
//!   transmissions escapes collisions and blockages, kept for all its
//!   retries (a packet the link drops whatever the MAC does). ACK, RTS and
//!   CTS frames go through the same bit errors and are not in the loss
//!   process.
//!   One draw per frame: the stations overhearing it (for their NAV) get
//!   the same outcome as its receiver;
//! - every station that did not transmit during the frame gets it: intact
//!   ([`Dcf::handle_frame`]) or in error ([`Dcf::handle_frame_error`], so
//!   its next deferral is an EIFS).
//!
//! A link's SNR is its host's ([`crate::radio::snr`]: fixed, a process with
//! shadowing and fading drawn from `wifi.<station>.shadowing` and
//! `wifi.<station>.fading`, or a trace), the same in both directions.
//!
//! Each DCF draws its back-offs from `wifi.<station>.backoff`. The streams
//! are per station and per process, so the pattern of losses does not
//! depend on the TCP scheme that runs over the hop.
//!
//! A packet handed to a MAC leaves the hop when its data frame is first
//! received intact ([`HopOut::Arrived`]; duplicates are rejected by the
//! receiver's DCF and counted), or is dropped ([`HopOut::Dropped`]) when
//! the MAC gives it up before that (retry limit, full queue, frame too
//! long). Every `Delivered` and `Undelivered` MAC report becomes a
//! [`HopOut::Signal`] at the sending station carrying the frame's packet.
//!
//! Energy: each radio is in Tx while its own frame is on the air, in Rx
//! while another station's frame is, Idle otherwise (no power save: never
//! Sleep); `[wireless.energy] model = "per_packet"` charges instead each
//! frame in full when it starts, `tx_w` times its airtime to its sender
//! and `rx_w` times it to every other station (paper 002's ns-2
//! accounting), and `model = "ns2"` charges each only from the end of the
//! last frame that station was charged for, as ns-2.35's `WirelessPhy`
//! does (overlaps once). The summary section ([`WifiStats`]) gives each station's time
//! per state and joules up to the end of the run, when its battery ran out,
//! and the TCP payload bits received per joule. A battery that runs out is
//! reported (`on_empty = "report"`, the default: the radio goes on) or
//! switches the radio off (`"off"`: from then on the station neither sends
//! nor receives; a frame on the air to or from it is lost, frames in its
//! MAC stay there, counted in flight).
//!
//! Captures: every data frame put on the air is an [`HopOut::OnAir`] (its
//! IP packet, for `wireless.pcap` in the IPv4 link type that TCP tools
//! read); while capturing, every frame that leaves the air — data, ACK,
//! RTS, CTS, intact or not — is also an [`HopOut::Air`] with its MAC header
//! and a radiotap header ([`crate::radio::wifi::capture`]), for `air.pcap`,
//! where Wireshark shows retries, sequence numbers, NAV and lost frames.
//!
//! The AP's downlink: one FIFO queue in its DCF (`scheduler = "fifo"`,
//! the default), or one queue per receiver served by round robin or
//! proportional fair (`"rr"`, `"pf"`: [`sched`]), each queue holding
//! `[wireless] queue` frames; the scheduler hands the DCF one frame
//! whenever it has none in hand.
//!
//! Oracle capacity of a flow (one saturated sender, SPECS §5.4):
//!
//! ```text
//! capacity = OracleCapacity { rate, preamble, IP = 40 + ts + MSS, payload = MSS,
//!                             TCP ACK = 40 + ts bytes every d segments }.bps()
//!            / (1 + p)
//! p        = 1 − E[1 − PER(data PSDU, rate, SNR)] · (1 − mean loss of the direction)
//! ```
//!
//! where the mean is over the flow's host's SNR: exact for a fixed SNR and
//! a trace (time-weighted over the run), a Monte Carlo estimate over the
//! shadowing and fading distribution otherwise.
//!
//! with `ts` = 12 with timestamps, `d` the delayed-ACK count and `rate` the
//! configured rate. With ARF the bound is an ideal rate choice instead: the
//! mean over the SNR of the best rate's `capacity / (1 + p)` at that SNR,
//! which no rate controller can beat. `frame_overhead` is not used: the
//! 802.11 framing is fixed (36 bytes around the packet).

mod capacity;
mod channel;
pub mod dsa;
mod medium;
mod queue;
pub mod sched;
mod stats;

pub use capacity::tcp_capacity;
pub use dsa::DsaStats;
pub use stats::{SchedStats, StationEnergy, WifiDirStats, WifiStats};

use super::held::HeldFrames;
use super::{Hop, HopIo, HopOut, HopSection, HopTimer, TimerKind, TimerSink};
use crate::net::link::{Drops, LinkStats};
use crate::net::loss::LossProcess;
use crate::radio::snr::SnrProcess;
use crate::radio::wifi::{
    Addr, ArfConfig, Dcf, DcfConfig, EnergyMeter, Preamble, Rate, RateControl, Transmission,
};
use crate::rng::{stream, Rng};
use crate::scenario::{ApScheduler, FlowSpec, LossSpec, QueueLimit, WifiSpec};
use crate::signal::Signal;
use crate::time::{Dur, Time};
use crate::wire::Packet;

use std::collections::BTreeMap;

/// A timer of the hop, carried by the engine as a [`HopTimer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HopEv {
    /// A station's DCF deadline may be due.
    Mac {
        /// Station index.
        station: u32,
    },
    /// A scheduled transmission (a response SIFS after a frame) begins.
    TxStart {
        /// Transmission number.
        tx: u64,
    },
    /// A transmission ends.
    TxEnd {
        /// Transmission number.
        tx: u64,
    },
    /// A station's battery may have run out (`on_empty = "off"`).
    Battery {
        /// Station index.
        station: u32,
    },
    /// Every host's radio reports its link's SNR (`snr_report`).
    SnrReport,
    /// A retune clears a station's MAC queue (`tfp_queue = "flush"`), an
    /// instant after the TFP's signals.
    Flush {
        /// Station index.
        station: u32,
    },
    /// A timer of the DSA cell (encoded by `dsa::DsaEv`).
    Dsa {
        /// Host.
        a: u32,
        /// Which process, and start or end.
        b: u64,
    },
}

/// A packet handed to a MAC.
#[derive(Debug)]
struct Held {
    packet: Packet,
    received: bool,
    /// The receiving station.
    to: u16,
}

/// One station: its DCF, its radio's energy and its frames (in the order
/// they were handed over; the DCF serves them in that order).
#[derive(Debug)]
struct Station {
    dcf: Dcf,
    energy: EnergyMeter,
    fate: Rng,
    held: HeldFrames<Held>,
    next_id: u64,
    armed: Time,
    /// Busy level last reported to the DCF.
    busy: bool,
    /// Start and end of the station's last transmission on the air.
    last_tx: (Time, Time),
    /// The SNR of the station's link to the AP (none for the AP).
    snr: Option<SnrProcess>,
    /// The battery ran out with `on_empty = "off"`: the radio is off.
    dead: bool,
}

impl Station {
    /// Whether the station transmitted while `t` was on the air.
    fn deaf_to(&self, t: &Transmission) -> bool {
        self.last_tx.1 > t.start && self.last_tx.0 < t.end()
    }
}

/// A transmission on (or about to go on) the air.
#[derive(Clone, Copy, Debug)]
struct Air {
    tx: u64,
    t: Transmission,
    started: bool,
    collided: bool,
    blocked: bool,
}

impl Air {
    fn live(&self, now: Time) -> bool {
        self.started && self.t.end() > now
    }
}

/// The 802.11 hop (see the module doc).
#[derive(Debug)]
pub struct WifiHop {
    stations: Vec<Station>,
    air: Vec<Air>,
    next_tx: u64,
    blocked: bool,
    spec: WifiSpec,
    /// PERs at fixed SNRs, by (rate, preamble, PSDU bytes, SNR dB bits).
    per_cache: BTreeMap<(Rate, Preamble, u32, u64), f64>,
    loss_down: LossProcess,
    loss_up: LossProcess,
    /// With `loss_per = "packet"`: the loss process's draw for each data
    /// frame in progress, by (sending station, frame id).
    doomed: BTreeMap<(u16, u64), bool>,
    end: Time,
    /// Whether the engine captures (then [`HopOut::Air`] is emitted).
    capture: bool,
    /// The DSA cell's sensing and channel switches, if configured.
    dsa: Option<dsa::DsaCell>,
    /// The AP's per-receiver queues and scheduler (`rr`, `pf`), if any.
    sched: Option<sched::Scheduler>,
    /// Frames refused at a full receiver queue, per station.
    sched_refused: Vec<u64>,
    /// Counters per direction (energy is read from the meters).
    pub stats: WifiStats,
}

impl WifiHop {
    /// The hop of the wireless hosts named `hosts` and the AP; `queue` is
    /// each MAC's queue, `loss` the extra loss per data frame (down, up),
    /// `end` the end of the run (when the energy is read).
    pub fn new(
        spec: &WifiSpec,
        queue: QueueLimit,
        loss: (&LossSpec, &LossSpec),
        hosts: &[&str],
        end: Time,
        seed: u64,
    ) -> WifiHop {
        let rate_control = if spec.arf {
            RateControl::Arf(ArfConfig::starting_at(spec.rate))
        } else {
            RateControl::Fixed(spec.rate)
        };
        let config = DcfConfig {
            preamble: spec.preamble,
            rate_control,
            rts_threshold: spec.rts_threshold.unwrap_or(u32::MAX),
            short_retry_limit: spec.retry_short,
            long_retry_limit: spec.retry_long,
            queue_limit: match queue {
                QueueLimit::Packets(n) => n.max(1) as usize,
                QueueLimit::Bytes(_) => 100,
            },
            ..DcfConfig::new(spec.rate)
        };
        let limit = config.queue_limit;
        let sched = match spec.scheduler {
            ApScheduler::Fifo => None,
            ApScheduler::RoundRobin => Some((sched::Discipline::RoundRobin, Dur::from_millis(100))),
            ApScheduler::ProportionalFair { time_constant } => {
                Some((sched::Discipline::ProportionalFair, time_constant))
            }
        }
        .map(|(d, tc)| sched::Scheduler::new(d, hosts.len(), limit, tc));
        let stations = (0..=hosts.len())
            .map(|i| Station {
                dcf: Dcf::new(
                    config,
                    Addr(i as u16),
                    stream(seed, &format!("wifi.{i}.backoff")),
                ),
                energy: EnergyMeter::new(spec.power, spec.battery_j)
                    .accounting(spec.energy_accounting),
                fate: stream(seed, &format!("wifi.{i}.fate")),
                held: HeldFrames::default(),
                next_id: 0,
                armed: Time::NEVER,
                busy: false,
                last_tx: (Time::ZERO, Time::ZERO),
                snr: i.checked_sub(1).map(|h| {
                    SnrProcess::new(
                        spec.snr_of(hosts[h]),
                        stream(seed, &format!("wifi.{i}.shadowing")),
                        stream(seed, &format!("wifi.{i}.fading")),
                    )
                }),
                dead: false,
            })
            .collect();
        WifiHop {
            stations,
            air: Vec::with_capacity(8),
            next_tx: 0,
            blocked: false,
            spec: spec.clone(),
            per_cache: BTreeMap::new(),
            loss_down: LossProcess::new(loss.0, stream(seed, "wireless.down.loss")),
            loss_up: LossProcess::new(loss.1, stream(seed, "wireless.up.loss")),
            doomed: BTreeMap::new(),
            end,
            capture: false,
            dsa: spec
                .dsa
                .as_ref()
                .map(|d| dsa::DsaCell::new(d, hosts.len(), seed)),
            sched,
            sched_refused: vec![0; hosts.len() + 1],
            stats: WifiStats::default(),
        }
    }

    /// Packets held by the MACs and not yet received.
    pub fn in_flight(&self) -> u64 {
        let held = self.stations.iter().map(|s| s.held.count(|h| !h.received));
        held.sum::<usize>() as u64
    }

    /// A station's DCF (for its counters).
    pub fn dcf(&self, station: usize) -> &Dcf {
        &self.stations[station].dcf
    }

    fn dir(&mut self, down: bool) -> &mut WifiDirStats {
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
        self.enqueue_at(now, (from, to), packet, false, q, out);
    }

    /// Handles one of the hop's events.
    pub fn handle(&mut self, now: Time, ev: HopEv, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        match ev {
            HopEv::Dsa { a, b } => self.on_dsa(now, dsa::DsaEv::decode(a, b), q, out),
            HopEv::Flush { station } => {
                let i = station as usize;
                self.stations[i].dcf.flush(now);
                self.drain(now, i, q, out);
            }
            HopEv::SnrReport => {
                for h in 1..self.stations.len() {
                    let Some(snr) = self.stations[h].snr.as_mut() else {
                        continue;
                    };
                    let db = snr.db_at(now);
                    let node = Some(h as u32 - 1);
                    out.push(signal_out(
                        h,
                        Signal::Snr {
                            iface: 0,
                            db,
                            node: None,
                        },
                    ));
                    out.push(signal_out(0, Signal::Snr { iface: 0, db, node }));
                }
                if let Some(every) = self.spec.snr_report {
                    q.schedule(now + every, HopEv::SnrReport.into());
                }
            }
            HopEv::Battery { station } => {
                let i = station as usize;
                let s = &mut self.stations[i];
                s.energy.handle_timeout(now);
                if s.dead || s.energy.depleted_at().is_none() {
                    return;
                }
                s.dead = true;
                self.stats.batteries_emptied += 1;
                self.freeze_air(now, Some(i), true);
                self.update_channel(now, q, out);
            }
            HopEv::Mac { station } => {
                let i = station as usize;
                let s = &mut self.stations[i];
                if s.armed == now {
                    s.armed = Time::NEVER;
                }
                s.dcf.handle_timeout(now);
                self.drain(now, i, q, out);
            }
            HopEv::TxStart { tx } => {
                if let Some(k) = self.air.iter().position(|a| a.tx == tx) {
                    self.begin(now, k);
                    self.charge_frame(now, k, q);
                    self.update_channel(now, q, out);
                }
            }
            HopEv::TxEnd { tx } => {
                if let Some(k) = self.air.iter().position(|a| a.tx == tx) {
                    let a = self.air.remove(k);
                    self.finish(now, a, q, out);
                    self.update_channel(now, q, out);
                }
            }
        }
    }
}

/// A signal of `station`'s radio that carries no frame.
fn signal_out(station: usize, signal: Signal) -> HopOut {
    HopOut::Signal {
        station,
        signal,
        reason: None,
        packet: None,
        delays: None,
    }
}

impl From<HopEv> for HopTimer {
    fn from(e: HopEv) -> HopTimer {
        let (kind, a, b) = match e {
            HopEv::Mac { station } => (TimerKind::K0, station, 0),
            HopEv::TxStart { tx } => (TimerKind::K2, 0, tx),
            HopEv::TxEnd { tx } => (TimerKind::K3, 0, tx),
            HopEv::Dsa { a, b } => (TimerKind::K4, a, b),
            HopEv::Battery { station } => (TimerKind::K5, station, 0),
            HopEv::SnrReport => (TimerKind::K6, 0, 0),
            HopEv::Flush { station } => (TimerKind::K7, station, 0),
        };
        HopTimer::new(kind, a, b)
    }
}

impl From<HopTimer> for HopEv {
    fn from(t: HopTimer) -> HopEv {
        match t.kind {
            TimerKind::K0 => HopEv::Mac { station: t.a },
            TimerKind::K2 => HopEv::TxStart { tx: t.b },
            TimerKind::K4 => HopEv::Dsa { a: t.a, b: t.b },
            TimerKind::K5 => HopEv::Battery { station: t.a },
            TimerKind::K6 => HopEv::SnrReport,
            TimerKind::K7 => HopEv::Flush { station: t.a },
            _ => HopEv::TxEnd { tx: t.b },
        }
    }
}

impl Hop for WifiHop {
    fn timer_name(&self, kind: TimerKind) -> &'static str {
        match HopEv::from(HopTimer::new(kind, 0, 0)) {
            HopEv::Mac { .. } => "mac",
            HopEv::TxStart { .. } => "tx_start",
            HopEv::TxEnd { .. } => "tx_end",
            HopEv::Dsa { .. } => "dsa",
            HopEv::Battery { .. } => "battery",
            HopEv::SnrReport => "snr_report",
            HopEv::Flush { .. } => "flush",
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
        self.capture = io.capture;
        WifiHop::enqueue(self, now, from, to, *p, io.timers, io.out);
    }

    fn withdraw<T: TimerSink>(
        &mut self,
        now: Time,
        from: usize,
        to: usize,
        io: HopIo<'_, T>,
    ) -> Vec<Packet> {
        self.capture = io.capture;
        WifiHop::withdraw(self, now, from, to, io.timers, io.out)
    }

    fn enqueue_first<T: TimerSink>(
        &mut self,
        now: Time,
        from: usize,
        to: usize,
        p: &Packet,
        io: HopIo<'_, T>,
    ) {
        self.enqueue_at(now, (from, to), *p, true, io.timers, io.out);
    }

    fn handle_timer<T: TimerSink>(&mut self, now: Time, timer: HopTimer, io: HopIo<'_, T>) {
        self.capture = io.capture;
        self.handle(now, timer.into(), io.timers, io.out);
    }

    fn start<T: TimerSink>(&mut self, now: Time, io: HopIo<'_, T>) {
        self.capture = io.capture;
        self.start_dsa(io.timers);
        if let Some(every) = self.spec.snr_report {
            io.timers.schedule(now + every, HopEv::SnrReport.into());
        }
        if self.spec.battery_off {
            for (i, s) in self.stations.iter().enumerate() {
                if let Some(at) = s.energy.poll_timeout() {
                    let ev = HopEv::Battery { station: i as u32 };
                    io.timers.schedule(at.max(now), ev.into());
                }
            }
        }
    }

    fn set_blocked<T: TimerSink>(&mut self, now: Time, blocked: bool, io: HopIo<'_, T>) {
        self.capture = io.capture;
        self.set_channel_blocked(now, blocked, io.timers, io.out);
    }

    fn in_flight(&self) -> u64 {
        WifiHop::in_flight(self)
    }

    /// Transmitted = data frames put on the air; drops: `queue_full` = a
    /// full MAC queue, `loss` = the retry limit (or a frame too long),
    /// `blocked` = cleared from the queue by a retune (`tfp_queue = "flush"`).
    fn link_stats(&self) -> [(&str, LinkStats); 2] {
        let link = |d: &WifiDirStats| LinkStats {
            offered: d.offered,
            transmitted: d.frames_sent,
            bytes_transmitted: d.bytes_sent,
            arrived: d.arrived,
            drops: Drops {
                queue_full: d.drop_queue_full,
                loss: d.drop_retry_limit + d.drop_too_long,
                blocked: d.drop_flushed,
            },
            max_queue: d.max_queue,
        };
        [
            ("bs-air", link(&self.stats.down)),
            ("air-bs", link(&self.stats.up)),
        ]
    }

    /// See the module doc.
    fn capacity_bps(&self, flow: &FlowSpec) -> f64 {
        self.capacity(flow)
    }

    fn publishes_signals(&self) -> bool {
        true
    }

    fn section(&self) -> Option<(&'static str, HopSection)> {
        Some(("wifi", HopSection::Wifi(self.stats_at(self.end))))
    }

    fn air_link_type(&self) -> Option<(u32, usize)> {
        use crate::radio::wifi::capture::{LINKTYPE_IEEE802_11_RADIOTAP, MAX_HEADER_LEN};
        Some((LINKTYPE_IEEE802_11_RADIOTAP, MAX_HEADER_LEN))
    }
}

#[cfg(test)]
mod tests;
