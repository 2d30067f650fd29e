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

pub mod dsa;
pub mod sched;
mod stats;

pub use dsa::DsaStats;
pub use stats::{SchedStats, StationEnergy, WifiDirStats, WifiStats};

use super::{AirFrame, Hop, HopDrop, HopIo, HopOut, HopSection, HopTimer, TimerKind, TimerSink};
use crate::net::link::{Drops, LinkStats};
use crate::net::loss::LossProcess;
use crate::radio::snr::{mean_over, SnrProcess};
use crate::radio::wifi::capture::AirFrame as WifiAir;
use crate::radio::wifi::effective_preamble;
use crate::radio::wifi::error::{db_to_linear, per};
use crate::radio::wifi::{
    data_psdu_bytes, Addr, ArfConfig, Dcf, DcfConfig, EnergyMeter, Frame, MacEvent, OracleCapacity,
    Preamble, RadioState, Rate, RateControl, ReverseAck, Transmission, TxKind, UndeliveredReason,
};
use crate::rng::{stream, Rng};
use crate::scenario::{ApScheduler, Direction, FlowSpec, LossSpec, QueueLimit, TcpSpec, WifiSpec};
use crate::signal::{MacDelays, Signal, TfpCause, UndeliveredReason as SignalReason};
use crate::time::{Dur, Time};
use crate::wire::Packet;
use rand::RngExt;
use std::collections::{BTreeMap, VecDeque};

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
    held: VecDeque<(u64, Held)>,
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
    fn held_mut(&mut self, id: u64) -> Option<&mut Held> {
        self.held.iter_mut().find(|(k, _)| *k == id).map(|(_, h)| h)
    }

    fn take(&mut self, id: u64) -> Option<Held> {
        let k = self.held.iter().position(|(k, _)| *k == id)?;
        self.held.remove(k).map(|(_, h)| h)
    }

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
                held: VecDeque::new(),
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
        let held = self
            .stations
            .iter()
            .map(|s| s.held.iter().filter(|(_, h)| !h.received).count());
        held.sum::<usize>() as u64
    }

    /// A station's DCF (for its counters).
    pub fn dcf(&self, station: usize) -> &Dcf {
        &self.stations[station].dcf
    }

    /// The packet error rate of `t` at `now`, at the SNR of its link
    /// (the link of its host: whichever end is not the AP).
    fn link_per(&mut self, now: Time, t: &Transmission) -> f64 {
        let host = t.from.0.max(t.to.0) as usize;
        let model = self.spec.error_model;
        let Some(snr) = self.stations[host].snr.as_mut() else {
            return 0.0;
        };
        let db = snr.db_at(now);
        let at = |db: f64| per(model, t.rate, t.preamble, db_to_linear(db), t.psdu_bytes);
        if snr.is_fixed() {
            let key = (t.rate, t.preamble, t.psdu_bytes, db.to_bits());
            *self.per_cache.entry(key).or_insert_with(|| at(db))
        } else {
            at(db)
        }
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

    /// Hands `packet` to station `from`'s MAC (`ends` = (from, to)), at the
    /// head of its queue if `first`.
    fn enqueue_at(
        &mut self,
        now: Time,
        (from, to): (usize, usize),
        packet: Packet,
        first: bool,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
        self.dir(from == 0).offered += 1;
        let s = &mut self.stations[from];
        let id = s.next_id;
        s.next_id += 1;
        let held = Held {
            packet,
            received: false,
            to: to as u16,
        };
        s.held.push_back((id, held));
        let frame = Frame {
            id,
            dst: Addr(to as u16),
            psdu_bytes: data_psdu_bytes(packet.air_len() as u32),
        };
        if from == 0 && self.sched.is_some() {
            self.schedule_frame(now, frame, first, q, out);
            return;
        }
        if self.dsa.as_ref().is_some_and(|d| d.drops_when_frozen()) && self.frozen(from) {
            // The station's driver is stopped for the TFP.
            self.undelivered(from, id, UndeliveredReason::Flushed, out);
            return;
        }
        let s = &mut self.stations[from];
        if first {
            s.dcf.enqueue_first(now, frame);
        } else {
            s.dcf.enqueue(now, frame);
        }
        let queued = s.dcf.queue_len() as u64;
        let d = self.dir(from == 0);
        d.max_queue = d.max_queue.max(queued);
        self.drain(now, from, q, out);
    }

    /// Takes back what station `from`'s MAC holds for station `to` and has
    /// not put on the air (see [`Hop::withdraw`]); the frames in the AP's
    /// per-receiver queues (`scheduler`) stay.
    pub fn withdraw(
        &mut self,
        now: Time,
        from: usize,
        to: usize,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) -> Vec<Packet> {
        let frames = self.stations[from].dcf.withdraw(now, Addr(to as u16));
        let mut packets = Vec::with_capacity(frames.len());
        for f in frames {
            self.doomed.remove(&(from as u16, f.id));
            if let Some(h) = self.stations[from].take(f.id) {
                packets.push(h.packet);
            }
        }
        self.dir(from == 0).withdrawn += packets.len() as u64;
        self.drain(now, from, q, out);
        packets
    }

    /// Puts `frame` in its receiver's queue at the AP (refused at a full
    /// queue, as the MAC refuses one) and lets the scheduler feed the MAC.
    fn schedule_frame(
        &mut self,
        now: Time,
        frame: Frame,
        first: bool,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
        let Some(sched) = self.sched.as_mut() else {
            return;
        };
        if let Err(f) = sched.push(now, frame, first) {
            self.sched_refused[f.dst.0 as usize] += 1;
            self.undelivered(0, f.id, UndeliveredReason::QueueFull, out);
        }
        let queued = self.sched.as_ref().map_or(0, |s| s.len()) as u64;
        let d = self.dir(true);
        d.max_queue = d.max_queue.max(queued);
        self.drain(now, 0, q, out);
    }

    /// `mu_i` of the scheduler (see [`sched`]): the AP's data rate to
    /// `station` times the chance that a `psdu`-byte frame gets through at
    /// the SNR of the station's link now.
    fn current_rate(&mut self, now: Time, station: usize, psdu: u32) -> f64 {
        let rate = self.stations[0].dcf.data_rate(Addr(station as u16));
        let preamble = effective_preamble(rate, self.spec.preamble);
        let model = self.spec.error_model;
        let Some(snr) = self.stations.get_mut(station).and_then(|s| s.snr.as_mut()) else {
            return rate.bps() as f64;
        };
        let db = snr.db_at(now);
        let at = |db: f64| per(model, rate, preamble, db_to_linear(db), psdu);
        let p = if snr.is_fixed() {
            let key = (rate, preamble, psdu, db.to_bits());
            *self.per_cache.entry(key).or_insert_with(|| at(db))
        } else {
            at(db)
        };
        rate.bps() as f64 * (1.0 - p)
    }

    /// Hands the AP's DCF the scheduler's next frame if it has none in
    /// hand; returns whether it did.
    fn feed(&mut self, now: Time) -> bool {
        let dcf = &self.stations[0].dcf;
        if !dcf.is_idle() || dcf.queue_len() > 0 {
            return false;
        }
        let Some(mut sched) = self.sched.take() else {
            return false;
        };
        let next = sched.pick(now, |i, f| self.current_rate(now, i, f.psdu_bytes));
        self.sched = Some(sched);
        let Some((frame, queued_at)) = next else {
            return false;
        };
        self.stations[0]
            .dcf
            .enqueue_queued_at(now, frame, queued_at);
        true
    }

    /// The channel became blocked (a primary user) or free at `now`.
    pub fn set_channel_blocked(
        &mut self,
        now: Time,
        blocked: bool,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
        if blocked == self.blocked {
            return;
        }
        self.blocked = blocked;
        if blocked {
            for a in self.air.iter_mut().filter(|a| a.live(now)) {
                a.blocked = true;
            }
        }
        self.publish_cell_tfp(TfpCause::PuOn, blocked, out);
        if blocked && self.dsa.as_ref().is_some_and(|d| d.drops_when_frozen()) {
            for station in 0..self.stations.len() as u32 {
                q.schedule(now, HopEv::Flush { station }.into());
            }
        }
        self.note_frozen(now);
        self.update_channel(now, q, out);
    }

    /// `tfp_start` / `tfp_end` of a cell-wide cause at every station.
    fn publish_cell_tfp(&self, cause: TfpCause, start: bool, out: &mut Vec<HopOut>) {
        if self.dsa.is_none() {
            return;
        }
        for station in 0..self.stations.len() {
            let signal = if start {
                Signal::TfpStart { cause, node: None }
            } else {
                Signal::TfpEnd { cause, node: None }
            };
            out.push(signal_out(station, signal));
        }
    }

    /// Updates each host's frozen time.
    fn note_frozen(&mut self, now: Time) {
        let frozen: Vec<bool> = (1..self.stations.len()).map(|i| self.frozen(i)).collect();
        if let Some(d) = self.dsa.as_mut() {
            for (h, f) in frozen.into_iter().enumerate() {
                d.note_frozen(now, h, f);
            }
        }
    }

    /// Arms the DSA cell's first timers.
    fn start_dsa(&mut self, q: &mut dyn TimerSink) {
        if let Some(d) = self.dsa.as_mut() {
            for (at, ev) in d.start() {
                let (a, b) = ev.encode();
                q.schedule(at, HopTimer::new(TimerKind::K4, a, b));
            }
        }
    }

    /// A DSA timer: the TFP it begins or ends, its signals, its effect on
    /// the air and on the stations.
    fn on_dsa(&mut self, now: Time, ev: dsa::DsaEv, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        let Some(d) = self.dsa.as_mut() else {
            return;
        };
        let (change, next) = d.handle(now, ev);
        for (at, ev) in next {
            let (a, b) = ev.encode();
            q.schedule(at, HopTimer::new(TimerKind::K4, a, b));
        }
        if d.flushes() {
            let stations = match change.flushes() {
                dsa::Flush::Nobody => 0..0,
                dsa::Flush::All => 0..self.stations.len() as u32,
                dsa::Flush::Host(h) => h + 1..h + 2,
            };
            for station in stations {
                q.schedule(now, HopEv::Flush { station }.into());
            }
        }
        match change {
            dsa::Change::CellSensing(start) => {
                self.freeze_air(now, None, start);
                self.publish_cell_tfp(TfpCause::CellSensing, start, out);
            }
            dsa::Change::NodeSensing(h, start) => {
                let station = h as usize + 1;
                self.freeze_air(now, Some(station), start);
                let (own, bs) = if start {
                    let c = TfpCause::NodeSensing;
                    (
                        Signal::TfpStart {
                            cause: c,
                            node: None,
                        },
                        Signal::TfpStart {
                            cause: c,
                            node: Some(h),
                        },
                    )
                } else {
                    let c = TfpCause::NodeSensing;
                    (
                        Signal::TfpEnd {
                            cause: c,
                            node: None,
                        },
                        Signal::TfpEnd {
                            cause: c,
                            node: Some(h),
                        },
                    )
                };
                out.push(signal_out(station, own));
                out.push(signal_out(0, bs));
            }
            dsa::Change::SwitchStart(channel, rate) => {
                self.freeze_air(now, None, true);
                self.publish_cell_tfp(TfpCause::Switching, true, out);
                out.push(signal_out(
                    0,
                    Signal::ChannelSwitch {
                        channel: channel as u16,
                    },
                ));
                out.push(signal_out(0, Signal::Capacity { bps: rate.bps() }));
            }
            dsa::Change::SwitchEnd(_, rate) => {
                let rc = if self.spec.arf {
                    RateControl::Arf(ArfConfig::starting_at(rate))
                } else {
                    RateControl::Fixed(rate)
                };
                for s in &mut self.stations {
                    s.dcf.set_rate_control(rc);
                }
                self.publish_cell_tfp(TfpCause::Switching, false, out);
            }
        }
        self.note_frozen(now);
        self.update_channel(now, q, out);
    }

    /// A TFP begins: the frames on the air to or from `station` (every
    /// frame for a cell-wide one) are lost.
    fn freeze_air(&mut self, now: Time, station: Option<usize>, start: bool) {
        if !start {
            return;
        }
        for a in self.air.iter_mut().filter(|a| a.live(now)) {
            let hit = station.is_none_or(|s| a.t.from.0 as usize == s || a.t.to.0 as usize == s);
            a.blocked |= hit;
        }
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

    /// Marks transmission `k` started: collisions with every other frame
    /// on the air, and the blockage.
    fn begin(&mut self, now: Time, k: usize) {
        let mut hit = false;
        for (j, a) in self.air.iter_mut().enumerate() {
            if j != k && a.live(now) {
                a.collided = true;
                hit = true;
            }
        }
        let (from, to) = (self.air[k].t.from.0 as usize, self.air[k].t.to.0 as usize);
        let frozen = self.frozen(from) || self.frozen(to);
        let a = &mut self.air[k];
        a.started = true;
        a.collided |= hit;
        a.blocked |= frozen;
        let from = a.t.from.0 as usize;
        self.stations[from].last_tx = (a.t.start, a.t.end());
    }

    /// Per-packet energy (`[wireless.energy] model = "per_packet"`): the
    /// frame `k` starting now costs its sender `tx_w` and every other
    /// station `rx_w` times its airtime, in full.
    fn charge_frame(&mut self, now: Time, k: usize, q: &mut dyn TimerSink) {
        if !self.spec.energy_accounting.per_frame() {
            return;
        }
        let (from, airtime) = (self.air[k].t.from.0 as usize, self.air[k].t.airtime);
        let off = self.spec.battery_off;
        for (i, s) in self.stations.iter_mut().enumerate() {
            let state = if i == from {
                RadioState::Tx
            } else {
                RadioState::Rx
            };
            if s.energy.charge(now, state, airtime) && off && !s.dead {
                q.schedule(now, HopEv::Battery { station: i as u32 }.into());
            }
        }
    }

    /// Reports the channel to every station whose view changed and moves
    /// each radio to its state.
    fn update_channel(&mut self, now: Time, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        for i in 0..self.stations.len() {
            let own = self
                .air
                .iter()
                .any(|a| a.live(now) && a.t.from.0 as usize == i);
            let other = self
                .air
                .iter()
                .any(|a| a.live(now) && a.t.from.0 as usize != i);
            let state = if own {
                RadioState::Tx
            } else if other {
                RadioState::Rx
            } else {
                RadioState::Idle
            };
            let busy = other || self.frozen(i) || (i == 0 && self.ap_stalled());
            let off = self.spec.battery_off;
            let s = &mut self.stations[i];
            if s.energy.state() != state {
                s.energy.set_state(now, state);
                if let Some(at) = s.energy.poll_timeout().filter(|_| off && !s.dead) {
                    q.schedule(at.max(now), HopEv::Battery { station: i as u32 }.into());
                }
            }
            if busy != s.busy {
                s.busy = busy;
                s.dcf.handle_channel(now, busy);
                self.drain(now, i, q, out);
            }
        }
    }

    /// Whether a frame that escaped collisions and blockages is lost:
    /// bit errors at the SNR (drawn by its receiver) and, for data, the
    /// loss process of its direction.
    fn lost(&mut self, now: Time, t: &Transmission) -> bool {
        let p = self.link_per(now, t);
        let rx = &mut self.stations[t.to.0 as usize];
        let errored = p > 0.0 && rx.fate.random::<f64>() < p;
        let dropped = t.kind == TxKind::Data && {
            let process = if t.from.0 == 0 {
                &mut self.loss_down
            } else {
                &mut self.loss_up
            };
            if self.spec.loss_per_packet {
                *self
                    .doomed
                    .entry((t.from.0, t.frame))
                    .or_insert_with(|| process.lose_next())
            } else {
                process.lose_next()
            }
        };
        errored || dropped
    }

    /// A transmission ended: decide its fate and hand it to every station
    /// that listened.
    fn finish(&mut self, now: Time, a: Air, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        let lost = !a.collided && !a.blocked && self.lost(now, &a.t);
        let intact = !a.collided && !a.blocked && !lost;
        let sender = a.t.from.0 as usize;
        let receiver = a.t.to.0 as usize;
        let d = self.dir(sender == 0);
        if a.t.kind == TxKind::Data {
            if a.collided {
                d.collided += 1;
            } else if a.blocked {
                d.blocked_destroyed += 1;
            } else if lost {
                d.lost += 1;
            }
        } else if !intact {
            d.control_lost += 1;
        }
        if self.capture {
            self.capture_air(now, &a, intact, out);
        }
        for j in 0..self.stations.len() {
            if j == sender {
                continue;
            }
            if self.stations[j].deaf_to(&a.t) {
                if j == receiver && a.t.kind == TxKind::Data && intact {
                    self.dir(sender == 0).deaf += 1;
                }
                continue;
            }
            let dcf = &mut self.stations[j].dcf;
            if intact {
                dcf.handle_frame(now, &a.t);
            } else {
                dcf.handle_frame_error(now);
            }
            self.drain(now, j, q, out);
        }
    }

    /// The capture record of a frame that left the air.
    fn capture_air(&mut self, now: Time, a: &Air, intact: bool, out: &mut Vec<HopOut>) {
        let host = a.t.from.0.max(a.t.to.0) as usize;
        let snr_db = self.stations[host]
            .snr
            .as_mut()
            .map_or(f64::INFINITY, |s| s.db_at(now));
        let packet = match a.t.kind {
            TxKind::Data => self.stations[a.t.from.0 as usize]
                .held
                .iter()
                .find(|(k, _)| *k == a.t.frame)
                .map(|(_, h)| h.packet),
            _ => None,
        };
        out.push(HopOut::Air(AirFrame::Wifi(WifiAir {
            tx: a.t,
            packet,
            snr_db,
            intact,
            standard: self.spec.standard,
        })));
    }

    /// Whether station `i` may neither transmit nor receive: the channel
    /// is blocked (a primary user) or the cell or the station is in a TFP.
    fn frozen(&self, i: usize) -> bool {
        self.blocked
            || self.stations[i].dead
            || self.dsa.as_ref().is_some_and(|d| {
                d.cell_frozen() || (i > 0 && d.node.get(i - 1).copied().unwrap_or(false))
            })
    }

    /// Whether the AP holds its head-of-line frame: its receiver is in a
    /// TFP of its own (see [`dsa`]).
    fn ap_stalled(&self) -> bool {
        self.dsa.as_ref().is_some_and(|d| !d.flushes())
            && self.stations[0]
                .dcf
                .current_dst()
                .is_some_and(|d| self.frozen(d.0 as usize))
    }

    /// Drains station `i`'s DCF after an input and re-arms its timer.
    fn drain(&mut self, now: Time, i: usize, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        loop {
            while let Some(t) = self.stations[i].dcf.poll_transmit() {
                self.launch(now, t, q, out);
            }
            while let Some(e) = self.stations[i].dcf.poll_event() {
                self.report(now, i, e, out);
            }
            if i == 0 && self.sched.is_some() && self.feed(now) {
                continue;
            }
            // A new head-of-line frame may be for a frozen host (or no
            // longer be): the AP's carrier sense follows.
            if i != 0 || self.dsa.is_none() {
                break;
            }
            let other = self.air.iter().any(|a| a.live(now) && a.t.from.0 != 0);
            let busy = other || self.frozen(0) || self.ap_stalled();
            if busy == self.stations[0].busy {
                break;
            }
            self.stations[0].busy = busy;
            self.stations[0].dcf.handle_channel(now, busy);
        }
        let s = &mut self.stations[i];
        if let Some(at) = s.dcf.poll_timeout() {
            let at = at.max(now);
            if at < s.armed {
                s.armed = at;
                q.schedule(at, HopEv::Mac { station: i as u32 }.into());
            }
        }
    }

    /// Puts a transmission on the air now or schedules its start.
    fn launch(&mut self, now: Time, t: Transmission, q: &mut dyn TimerSink, out: &mut Vec<HopOut>) {
        let tx = self.next_tx;
        self.next_tx += 1;
        let i = t.from.0 as usize;
        let down = i == 0;
        match t.kind {
            TxKind::Data => {
                let packet = self.stations[i]
                    .held
                    .iter()
                    .find(|(k, _)| *k == t.frame)
                    .map(|(_, h)| h.packet);
                let d = self.dir(down);
                d.frames_sent += 1;
                if t.attempt > 1 {
                    d.retransmissions += 1;
                }
                if let Some(packet) = packet {
                    d.bytes_sent += packet.ip_len() as u64;
                    out.push(HopOut::OnAir { down, packet });
                }
            }
            TxKind::Rts => self.dir(down).rts_sent += 1,
            TxKind::Ack | TxKind::Cts => {}
        }
        self.air.push(Air {
            tx,
            t,
            started: false,
            collided: false,
            blocked: false,
        });
        q.schedule(t.end().max(now), HopEv::TxEnd { tx }.into());
        if t.start <= now {
            let k = self.air.len() - 1;
            self.begin(now, k);
            self.charge_frame(now, k, q);
            self.update_channel(now, q, out);
        } else {
            q.schedule(t.start, HopEv::TxStart { tx }.into());
        }
    }

    /// A MAC report at station `i`.
    fn report(&mut self, now: Time, i: usize, e: MacEvent, out: &mut Vec<HopOut>) {
        match e {
            MacEvent::Received { frame, from } => {
                let from = from.0 as usize;
                let down = from == 0;
                let Some(h) = self.stations[from].held_mut(frame) else {
                    return;
                };
                if h.received {
                    return;
                }
                h.received = true;
                let packet = h.packet;
                let d = self.dir(down);
                d.arrived += 1;
                d.payload_bytes_arrived += u64::from(packet.tcp.payload_len);
                out.push(HopOut::Arrived { station: i, packet });
            }
            MacEvent::Duplicate { from, .. } => self.dir(from.0 == 0).duplicates += 1,
            MacEvent::Delivered {
                frame,
                queue_delay,
                tx_delay,
                attempts,
            } => {
                self.doomed.remove(&(i as u16, frame));
                let held = self.stations[i].take(frame);
                if let (Some(h), Some(s)) = (&held, self.sched.as_mut().filter(|_| i == 0)) {
                    s.served(now, h.to as usize, 8.0 * h.packet.ip_len() as f64);
                }
                let packet = held.map(|h| h.packet);
                out.push(HopOut::Signal {
                    station: i,
                    signal: Signal::Delivered { frame },
                    reason: None,
                    packet,
                    delays: Some(MacDelays {
                        queue: queue_delay,
                        tx: tx_delay,
                        attempts,
                    }),
                });
            }
            MacEvent::Undelivered { frame, reason } => self.undelivered(i, frame, reason, out),
        }
    }

    /// The MAC of station `i` gave `frame` up: a drop unless it arrived.
    fn undelivered(
        &mut self,
        i: usize,
        frame: u64,
        reason: UndeliveredReason,
        out: &mut Vec<HopOut>,
    ) {
        let reason = match reason {
            UndeliveredReason::RetryLimit => SignalReason::RetryLimit,
            UndeliveredReason::QueueFull => SignalReason::QueueFull,
            UndeliveredReason::FrameTooLong => SignalReason::FrameTooLong,
            UndeliveredReason::Flushed => SignalReason::Flushed,
        };
        self.doomed.remove(&(i as u16, frame));
        let held = self.stations[i].take(frame);
        let packet = held.as_ref().map(|h| h.packet);
        if let Some(h) = held {
            let d = self.dir(i == 0);
            if h.received {
                d.undelivered_after_receipt += 1;
            } else {
                match reason {
                    SignalReason::QueueFull => d.drop_queue_full += 1,
                    SignalReason::FrameTooLong => d.drop_too_long += 1,
                    SignalReason::Flushed => d.drop_flushed += 1,
                    _ => d.drop_retry_limit += 1,
                }
                if reason == SignalReason::Flushed {
                    if let Some(dsa) = self.dsa.as_mut() {
                        dsa.count_flushed(1);
                    }
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
            signal: Signal::Undelivered { frame },
            reason: Some(reason),
            packet,
            delays: None,
        });
    }

    /// The counters with each station's energy at `now`.
    pub fn stats_at(&self, now: Time) -> WifiStats {
        let secs = |m: &EnergyMeter, s: RadioState| m.time_in(s, now).as_secs_f64();
        let stations: Vec<StationEnergy> = self
            .stations
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let m = &s.energy;
                let depleted = m
                    .depleted_at()
                    .or_else(|| m.poll_timeout().filter(|&t| t <= now));
                StationEnergy {
                    station: i,
                    tx_s: secs(m, RadioState::Tx),
                    rx_s: secs(m, RadioState::Rx),
                    idle_s: secs(m, RadioState::Idle),
                    sleep_s: secs(m, RadioState::Sleep),
                    energy_j: m.energy_j(now),
                    battery_depleted_at_s: depleted.map(|t| (t - Time::ZERO).as_secs_f64()),
                }
            })
            .collect();
        let joules: f64 = stations.iter().map(|s| s.energy_j).sum();
        let bytes = self.stats.down.payload_bytes_arrived + self.stats.up.payload_bytes_arrived;
        WifiStats {
            down: self.stats.down,
            up: self.stats.up,
            bits_per_joule: crate::radio::wifi::energy::bits_per_joule(8 * bytes, joules),
            stations,
            batteries_emptied: self.stats.batteries_emptied,
            dsa: self.dsa.as_ref().map(|d| d.stats_at(now)),
            scheduler: self.sched.as_ref().map(|s| {
                Box::new(SchedStats {
                    discipline: match self.spec.scheduler {
                        ApScheduler::RoundRobin => "rr",
                        _ => "pf",
                    },
                    frames: s.decisions[1..].to_vec(),
                    refused: self.sched_refused[1..].to_vec(),
                    queue_every_s: sched::SAMPLE_EVERY.as_secs_f64(),
                    queue: s.samples.clone(),
                })
            }),
        }
    }

    /// The hop's capacity for `flow` (formula in the module doc).
    pub fn capacity(&self, flow: &FlowSpec) -> f64 {
        let tcp = &flow.tcp;
        let (model, preamble) = (self.spec.error_model, self.spec.preamble);
        let snr = self.spec.snr_of(flow.host_name());
        let process = if flow.direction == Direction::Down {
            &self.loss_down
        } else {
            &self.loss_up
        };
        let kept = 1.0 - process.mean_loss();
        if self.spec.arf {
            // An ideal rate choice at every SNR: a bound on any controller.
            let caps: Vec<_> = (self.spec.standard.rates().iter())
                .map(|&rate| tcp_capacity(&self.spec, tcp, rate, flow.link_overhead))
                .collect();
            return mean_over(snr, self.end, |db| {
                let x = db_to_linear(db);
                caps.iter()
                    .map(|cap| {
                        let psdu = data_psdu_bytes(cap.ip_bytes);
                        let p = 1.0 - (1.0 - per(model, cap.rate, preamble, x, psdu)) * kept;
                        cap.bps() / (1.0 + p)
                    })
                    .fold(0.0, f64::max)
            });
        }
        let cap = tcp_capacity(&self.spec, tcp, self.spec.rate, flow.link_overhead);
        let psdu = data_psdu_bytes(cap.ip_bytes);
        let rate = self.spec.rate;
        let success = mean_over(snr, self.end, |db| {
            1.0 - per(model, rate, preamble, db_to_linear(db), psdu)
        });
        let p = 1.0 - success * kept;
        cap.bps() / (1.0 + p)
    }
}

/// The medium-time model of TCP over an 802.11 hop of `spec` at `rate`:
/// segments of `tcp`'s MSS one way, its ACKs (one per
/// `delayed_ack_segments`) the other, each frame carrying `link_overhead`
/// bytes of a layer below IP (the UCL's security) besides its IP packet.
/// The oracle's and the UCL's.
pub fn tcp_capacity(
    spec: &WifiSpec,
    tcp: &TcpSpec,
    rate: Rate,
    link_overhead: u32,
) -> OracleCapacity {
    let ts = if tcp.timestamps { 12 } else { 0 } + link_overhead;
    OracleCapacity {
        rate,
        preamble: spec.preamble,
        ip_bytes: 40 + ts + tcp.mss,
        payload_bytes: tcp.mss,
        reverse_ack: Some(ReverseAck {
            ip_bytes: 40 + ts,
            data_frames_per_ack: f64::from(tcp.delayed_ack_segments.max(1)),
        }),
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
