//! The wireless hop as a plug-in: one interface ([`Hop`]) that every model
//! of the air between the base station and the wireless hosts implements,
//! and through which both engines drive it.
//!
//! # Stations
//!
//! A hop connects stations: station [`BS`] (0) is the base station or
//! access point; station `k >= 1` is the interface of wireless host
//! `k - 1` on this hop. Every frame goes between the BS and one host
//! (infrastructure mode).
//!
//! # The contract
//!
//! The engine calls [`Hop::enqueue`] when a node hands a packet to its
//! interface, [`Hop::handle_timer`] when one of the hop's own timers is due,
//! and [`Hop::set_blocked`] when the channel's availability changes
//! (a primary user, a blackout). Each call gets a [`HopIo`]: the hop
//! schedules its timers through [`TimerSink`] (opaque [`HopTimer`] tokens
//! that the engine stores and hands back) and appends what the engine must
//! act on to `out` as [`HopOut`]: packets that arrived, packets dropped
//! with a reason, signals its radios published (PU detection, per-frame
//! MAC delivery reports), and frames put on the air (for captures). The
//! engine acts on the outputs in order after the call returns; a call made
//! while acting on them (a reply sent at once) gets a fresh `out`. Time only
//! moves forward; a timer handed back that is no longer wanted (a stale
//! generation) is ignored by the hop.
//!
//! The hop answers for every packet it accepted: it arrives, is dropped
//! (with a reason), or is counted by [`Hop::in_flight`] at the end.
//!
//! # The kinds
//!
//! - [`p2p::P2pHop`] (`kind = "p2p"`): two point-to-point link directions
//!   (a queue, a rate, a delay and a loss process each) gated by the
//!   availability process.
//! - [`lrwpan::LrwpanHop`] (`kind = "lrwpan"`): one 802.15.4 CSMA-CA MAC
//!   per station on one shared medium, a PU detector at each station.
//! - [`wifi::WifiHop`] (`kind = "wifi"`): one 802.11a/b DCF per station on
//!   one shared channel, SNR-driven frame errors, MAC delivery reports and
//!   energy per station.
//!
//! # Adding a hop kind
//!
//! Write `hop/<kind>.rs` with a type that implements [`Hop`], add its line
//! to the registry (`hop_kinds!` in this file) and to [`build`] (the
//! scenario's `kind` picks it). Nothing in the engines changes. The kinds the papers still need fit as follows:
//!
//! - **A per-receiver scheduled downlink** (paper 004): the 802.11 hop
//!   keeps one queue per destination station (the `to` of
//!   [`Hop::enqueue`]) and picks the next frame by its scheduler
//!   (`[wireless] scheduler`: proportional fair, round robin; see
//!   [`wifi::sched`]); the engine does not see the queues.
//! - **Several interfaces per host** (paper 003, built): `[[wireless]]`
//!   entries give the world several hops ([`build_all`]), each with its
//!   own stations and random streams (the first hop's are those of a
//!   one-hop scenario); every wireless host has station `h + 1` on each.
//!   A packet carries the interface it takes (`PacketMeta::iface`, 0
//!   unless an agent such as the UCL sets it); the engine stamps each
//!   hop's timers with its index (`HopTimer::hop`) and each signal with
//!   its interface (`NodeSignal::iface`). A hop never knows about the
//!   others.

mod held;
pub mod lrwpan;
pub mod p2p;
pub mod wifi;

use crate::net::link::{DropReason, LinkStats};
use crate::scenario::{FlowSpec, HopKind, Scenario, WirelessSpec};
use crate::signal::{MacDelays, Signal, UndeliveredReason};
use crate::time::Time;
use crate::wire::Packet;
use serde::Serialize;

/// A station of a hop: [`BS`] or `host + 1`.
pub type Station = usize;

/// The base station (access point).
pub const BS: Station = 0;

/// A hop's timer as the engine stores it: small, `Copy`, and opaque to the
/// engine. Each hop encodes its own timers into it (`kind` says which,
/// `a` and `b` carry its fields) and decodes them in
/// [`Hop::handle_timer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HopTimer {
    /// A wide field (a transmission number, a generation).
    pub b: u64,
    /// A small field (a station, a link direction).
    pub a: u32,
    /// Which of the hop's timers.
    pub kind: TimerKind,
    /// Which of the engine's hops set it: the engine stamps it (a hop
    /// makes its timers with [`HopTimer::new`] and never reads it).
    pub hop: u8,
}

impl HopTimer {
    /// A timer of kind `kind` with fields `a` and `b`.
    #[inline]
    pub const fn new(kind: TimerKind, a: u32, b: u64) -> HopTimer {
        HopTimer { b, a, kind, hop: 0 }
    }
}

/// Which of a hop's timers a [`HopTimer`] is: eight kinds per hop. An enum
/// rather than a number so that the engine's event stays 16 bytes (the
/// unused values carry the event's own tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum TimerKind {
    K0,
    K1,
    K2,
    K3,
    K4,
    K5,
    K6,
    K7,
}

/// Where a hop schedules its timers: the engine's event queue in the
/// simulator, its deadline heap in the emulator.
pub trait TimerSink {
    /// Calls [`Hop::handle_timer`] with `timer` at `at` (not before now).
    fn schedule(&mut self, at: Time, timer: HopTimer);
}

/// What a call into a hop may use.
pub struct HopIo<'a, T: TimerSink> {
    /// The hop's timers.
    pub timers: &'a mut T,
    /// What the engine must act on, appended in order.
    pub out: &'a mut Vec<HopOut>,
    /// Whether the engine captures frames: [`HopOut::OnAir`] is wanted.
    pub capture: bool,
}

/// Why a hop dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopDrop {
    /// A point-to-point link direction dropped it.
    Link(DropReason),
    /// A MAC gave it up.
    Mac(UndeliveredReason),
}

/// What the engine must act on after a call into a hop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HopOut {
    /// `packet` was received intact at `station` (first copy only). A
    /// packet arriving at a host is handed to the host of its flow.
    Arrived {
        /// Receiving station.
        station: Station,
        /// The packet.
        packet: Packet,
    },
    /// A packet was dropped before it reached its receiver.
    Dropped {
        /// Sending station.
        station: Station,
        /// The packet.
        packet: Packet,
        /// Why.
        why: HopDrop,
    },
    /// A station's radio published a signal (PU detector, MAC report).
    Signal {
        /// Emitting station.
        station: Station,
        /// The signal.
        signal: Signal,
        /// For `Undelivered`: the MAC's reason.
        reason: Option<UndeliveredReason>,
        /// For delivery reports: the frame's packet.
        packet: Option<Packet>,
        /// For `Delivered`, where the MAC measures them: the frame's delays.
        delays: Option<MacDelays>,
    },
    /// A data frame went on the air (for the capture of its direction).
    OnAir {
        /// True for BS -> host.
        down: bool,
        /// The packet.
        packet: Packet,
    },
    /// A data frame goes on the air at `at`, later than now (a hop that
    /// knows its departures ahead, [`p2p::P2pHop::know_departures`]); the
    /// engine records it then.
    OnAirAt {
        /// True for BS -> host.
        down: bool,
        /// The packet.
        packet: Packet,
        /// When its transmission starts.
        at: Time,
    },
    /// A frame left the air with its link-layer header (for the capture of
    /// the medium, [`Hop::air_link_type`]); only while capturing.
    Air(AirFrame),
}

/// A frame on the air with its link-layer framing, for a capture of the
/// medium. One variant per hop kind that has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AirFrame {
    /// An 802.11 frame (radiotap + MAC header).
    Wifi(crate::radio::wifi::capture::AirFrame),
}

impl AirFrame {
    /// Appends the capture record's bytes to `buf`, the IP datagram cut to
    /// `ip_snaplen`; returns the uncut length.
    pub fn encode(&self, ip_snaplen: usize, buf: &mut Vec<u8>) -> usize {
        match self {
            AirFrame::Wifi(f) => f.encode(ip_snaplen, buf),
        }
    }
}

/// A hop's own section of `summary.json` (beside the per-direction link
/// counters every hop gives). One variant per hop kind that has one.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HopSection {
    /// `"lrwpan"`: the 802.15.4 hop's counters.
    Lrwpan(lrwpan::HopStats),
    /// `"wifi"`: the 802.11 hop's counters and energy per station.
    Wifi(wifi::WifiStats),
}

impl HopSection {
    /// The 802.15.4 counters, if this is their section.
    pub fn lrwpan(&self) -> Option<lrwpan::HopStats> {
        match self {
            HopSection::Lrwpan(h) => Some(*h),
            HopSection::Wifi(_) => None,
        }
    }

    /// The 802.11 counters, if this is their section.
    pub fn wifi(&self) -> Option<&wifi::WifiStats> {
        match self {
            HopSection::Wifi(w) => Some(w),
            HopSection::Lrwpan(_) => None,
        }
    }
}

/// The wireless hop, whatever its kind (see the module doc). Engines hold
/// an [`AnyHop`]; the calls are generic over the engine's [`TimerSink`] so
/// that the per-frame path is monomorphised and inlined.
pub trait Hop: std::fmt::Debug {
    /// Station `from` hands `packet` to its interface, for station `to`.
    fn enqueue<T: TimerSink>(
        &mut self,
        now: Time,
        from: Station,
        to: Station,
        packet: &Packet,
        io: HopIo<'_, T>,
    );

    /// As [`Hop::enqueue`], ahead of the packets waiting at `from` (a
    /// local retransmission with priority). Hops without such a queue take
    /// it as `enqueue`; the 802.11 hop puts it at the head of the MAC queue.
    fn enqueue_first<T: TimerSink>(
        &mut self,
        now: Time,
        from: Station,
        to: Station,
        packet: &Packet,
        io: HopIo<'_, T>,
    ) {
        self.enqueue(now, from, to, packet, io);
    }

    /// Takes back the packets station `from` has handed over for station
    /// `to` that have not reached the air, in the order they were handed
    /// over (DSASync's Algorithm 2, line 11: "buffer any i's pkt from
    /// transmit queue"). They are no longer the hop's: the caller holds
    /// them. Hops whose frames cannot be recalled give nothing back.
    fn withdraw<T: TimerSink>(
        &mut self,
        now: Time,
        from: Station,
        to: Station,
        io: HopIo<'_, T>,
    ) -> Vec<Packet> {
        let _ = (now, from, to, io);
        Vec::new()
    }

    /// One of the hop's timers is due.
    fn handle_timer<T: TimerSink>(&mut self, now: Time, timer: HopTimer, io: HopIo<'_, T>);

    /// The run begins: the hop arms its own processes' first timers.
    fn start<T: TimerSink>(&mut self, now: Time, io: HopIo<'_, T>) {
        let _ = (now, io);
    }

    /// The channel became unavailable (`blocked`) or available again.
    fn set_blocked<T: TimerSink>(&mut self, now: Time, blocked: bool, io: HopIo<'_, T>);

    /// Packets accepted and not yet arrived or dropped.
    fn in_flight(&self) -> u64;

    /// The packet timer `t` will hand to a station, and that station, if
    /// the hop can tell without changing anything: a hint for the engine
    /// to bring that packet's flow into the cache ahead of the event.
    /// `None` (the default) costs nothing but the hint.
    fn arriving(&self, t: HopTimer) -> Option<(Station, &Packet)> {
        let _ = t;
        None
    }

    /// Counters of each direction, in the shape of a link's: `[down, up]`
    /// with their names (`bs-air`, `air-bs`).
    fn link_stats(&self) -> [(&str, LinkStats); 2];

    /// Payload bits per second the hop carries for `flow`'s data
    /// direction while available, alone and perfectly served: the hop's
    /// part of the oracle bound (formula in each kind's doc).
    fn capacity_bps(&self, flow: &FlowSpec) -> f64;

    /// Whether the hop's radios publish signals (then the summary reports
    /// the signal bus).
    fn publishes_signals(&self) -> bool {
        false
    }

    /// The hop's own section of `summary.json`, if it has one.
    fn section(&self) -> Option<(&'static str, HopSection)> {
        None
    }

    /// The pcap link type of the hop's [`HopOut::Air`] frames and the
    /// longest header they put before the IP datagram, if it captures the
    /// medium with link-layer framing.
    fn air_link_type(&self) -> Option<(u32, usize)> {
        None
    }

    /// A short name of the hop's timer kind `kind` (e.g. "mac",
    /// "tx_end"), for reports per kind such as the emulator's dispatch
    /// lateness.
    fn timer_name(&self, kind: TimerKind) -> &'static str {
        let _ = kind;
        "hop"
    }
}

/// Declares the registry of hop kinds: the [`AnyHop`] enum and its
/// dispatch. A new kind is one line here.
macro_rules! hop_kinds {
    ($($(#[$doc:meta])* $kind:ident($ty:ty),)*) => {
        /// A hop of any kind. (A world holds one hop, so the size of the
        /// largest kind costs nothing; not boxing keeps the frame path direct.)
        #[derive(Debug)]
        #[allow(clippy::large_enum_variant)]
        pub enum AnyHop {
            $($(#[$doc])* $kind($ty),)*
        }

        impl Hop for AnyHop {
            #[inline]
            fn enqueue<T: TimerSink>(
                &mut self,
                now: Time,
                from: Station,
                to: Station,
                packet: &Packet,
                io: HopIo<'_, T>,
            ) {
                match self {
                    $(AnyHop::$kind(h) => Hop::enqueue(h, now, from, to, packet, io),)*
                }
            }

            fn enqueue_first<T: TimerSink>(
                &mut self,
                now: Time,
                from: Station,
                to: Station,
                packet: &Packet,
                io: HopIo<'_, T>,
            ) {
                match self {
                    $(AnyHop::$kind(h) => Hop::enqueue_first(h, now, from, to, packet, io),)*
                }
            }

            fn withdraw<T: TimerSink>(
                &mut self,
                now: Time,
                from: Station,
                to: Station,
                io: HopIo<'_, T>,
            ) -> Vec<Packet> {
                match self {
                    $(AnyHop::$kind(h) => Hop::withdraw(h, now, from, to, io),)*
                }
            }

            #[inline]
            fn handle_timer<T: TimerSink>(&mut self, now: Time, timer: HopTimer, io: HopIo<'_, T>) {
                match self {
                    $(AnyHop::$kind(h) => Hop::handle_timer(h, now, timer, io),)*
                }
            }

            fn start<T: TimerSink>(&mut self, now: Time, io: HopIo<'_, T>) {
                match self {
                    $(AnyHop::$kind(h) => Hop::start(h, now, io),)*
                }
            }

            fn set_blocked<T: TimerSink>(&mut self, now: Time, blocked: bool, io: HopIo<'_, T>) {
                match self {
                    $(AnyHop::$kind(h) => Hop::set_blocked(h, now, blocked, io),)*
                }
            }

            fn in_flight(&self) -> u64 {
                match self {
                    $(AnyHop::$kind(h) => Hop::in_flight(h),)*
                }
            }

            #[inline]
            fn arriving(&self, t: HopTimer) -> Option<(Station, &Packet)> {
                match self {
                    $(AnyHop::$kind(h) => Hop::arriving(h, t),)*
                }
            }

            fn link_stats(&self) -> [(&str, LinkStats); 2] {
                match self {
                    $(AnyHop::$kind(h) => Hop::link_stats(h),)*
                }
            }

            fn capacity_bps(&self, flow: &FlowSpec) -> f64 {
                match self {
                    $(AnyHop::$kind(h) => Hop::capacity_bps(h, flow),)*
                }
            }

            fn publishes_signals(&self) -> bool {
                match self {
                    $(AnyHop::$kind(h) => Hop::publishes_signals(h),)*
                }
            }

            fn section(&self) -> Option<(&'static str, HopSection)> {
                match self {
                    $(AnyHop::$kind(h) => Hop::section(h),)*
                }
            }

            fn air_link_type(&self) -> Option<(u32, usize)> {
                match self {
                    $(AnyHop::$kind(h) => Hop::air_link_type(h),)*
                }
            }

            fn timer_name(&self, kind: TimerKind) -> &'static str {
                match self {
                    $(AnyHop::$kind(h) => Hop::timer_name(h, kind),)*
                }
            }
        }
    };
}

hop_kinds! {
    /// `kind = "p2p"`.
    P2p(p2p::P2pHop),
    /// `kind = "lrwpan"`.
    Lrwpan(lrwpan::LrwpanHop),
    /// `kind = "wifi"`.
    Wifi(wifi::WifiHop),
}

/// The hops `scenario` describes (`[wireless]`, or each `[[wireless]]`
/// entry in order), with `hosts` wireless hosts, their random streams
/// derived from `seed` (the first hop's from `seed` itself, so that adding
/// a hop changes nothing on the first).
pub fn build_all(scenario: &Scenario, hosts: usize, seed: u64) -> Vec<AnyHop> {
    let mut hops = vec![build(scenario, &scenario.wireless, hosts, seed)];
    for spec in &scenario.more_hops {
        let seed = crate::rng::derive_seed(seed, &format!("hop.{}", spec.name));
        hops.push(build(scenario, spec, hosts, seed));
    }
    hops
}

/// The hop `spec` describes (one of `scenario`'s), with `hosts` wireless
/// hosts, its random streams derived from `seed`.
pub fn build(scenario: &Scenario, wl: &WirelessSpec, hosts: usize, seed: u64) -> AnyHop {
    match &wl.kind {
        HopKind::P2p => AnyHop::P2p(p2p::P2pHop::new(wl, seed)),
        HopKind::Lrwpan(spec) => AnyHop::Lrwpan(
            lrwpan::LrwpanHop::new(
                spec,
                wl.link.queue,
                (&wl.loss_down, &wl.loss_up),
                &scenario.pu_detection,
                hosts,
                seed,
            )
            .with_mac_hold(scenario.schemes.mac_hold),
        ),
        HopKind::Wifi(spec) => AnyHop::Wifi(wifi::WifiHop::new(
            spec,
            wl.link.queue,
            (&wl.loss_down, &wl.loss_up),
            &crate::scenario::host_names(&scenario.flows),
            Time::ZERO + scenario.sim.duration,
            seed,
        )),
    }
}
