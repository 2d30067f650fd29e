//! CLAMP and L2-CLAMP (paper 004, Sridhar; CLAMP after Andrew, Hanly and
//! Mukhtar): the receiver's advertised window, set from a congestion price
//! of the AP's queue, controls an unmodified TCP sender.
//!
//! **Reconstruction.** The CLAMP papers' equations could not be read
//! (SPECS §4.1 marks the gap); paper 004 gives the price and a window
//! update in a garbled form. What runs here, with each choice stated:
//!
//! - **Price** (paper 004, eq. 1 with `b = 1`): `p(q) = max((q - a) / mu_c,
//!   0)` seconds, where `q` is the packets in the receiver's AP queue (the
//!   AP keeps one queue per receiver, paper 004 §IV; all flows to one
//!   receiver share it and its price) and `mu_c` the queue's service rate
//!   (packets/s), measured from the MAC's delivery reports
//!   ([`QueueMeter`]): each delivered frame gives the interval `min(now -
//!   previous delivery, the frame's own queueing + transmission delay)`,
//!   smoothed with gain 1/8 (ours; the paper measures it with a "Sync"
//!   packet it does not specify). The offset `a`: with `alpha` set, that
//!   many packets, fixed, as the paper has it ("α is free to be chosen by
//!   the AP, but is fixed once chosen"); without it (ours), `a =
//!   target_delay * mu_c`, so that the price is the queueing delay above
//!   `target_delay` whatever the service rate (`target_delay`, default
//!   100 ms: the paper's "queue delay" parameter, swept 20-100 ms).
//! - **Window** (paper 004's algorithm: `dw = tau - p(q) mu*`, halve on
//!   `dw <= 0` or 3 duplicate ACKs, "stop slow start", `AWND = min(w,
//!   AWND)`), per connection at each data segment ([`Controller`]): `mu*`
//!   is the connection's received rate (bytes/s, exponentially weighted
//!   over `rate_time`, default 200 ms, ours) and `tau` bytes (`tau`,
//!   default 1500 B, ours: the paper says only "fixed size in bytes").
//!   Until the first halving the window grows by each segment's bytes (the
//!   slow start the paper stops). After it, how `dw` enters the window is
//!   not written in the paper (`growth`): `"window"` (default, ours) adds
//!   `dw * bytes / w` per segment, i.e. `dw` per window of data (per round
//!   trip); `"segment"` adds `dw` per segment, `w(t_k+1) = w(t_k) +
//!   dw(t_k)` read literally. A halving on `dw <= 0` (`halving`):
//!   `"once_per_window"` (default, ours: not in the paper) at most once per
//!   window of data received, as TCP's once per round trip (the price lags
//!   the window by a round trip); `"every"` at each such segment, as the
//!   algorithm is written. The window stays within [`min_window`, the
//!   receiver's own window] (`min_window`, default 2 segments). In
//!   equilibrium `p(q) mu* = tau`: each connection keeps about `tau` bytes
//!   of its own above the offset, and connections sharing a queue get
//!   equal rates.
//! - **The advertised window** is `min(w, AWND)` and never moves the right
//!   edge left (RFC 9293 SHLD-14).
//!
//! The two schemes run the same controller in different places:
//!
//! - **CLAMP** (`scheme = "clamp"`): [`ClampAp`] at the BS computes each
//!   receiver's price; [`ClampHost`] at each wireless host runs the
//!   controller and rewrites the window of every ACK its TCP sends. The
//!   price reaches the host through a [`PriceBoard`] shared by the two: the
//!   simulator's stand-in for the header field the AP would stamp on each
//!   downlink packet. The host reads it as each data segment arrives, i.e.
//!   the AP's queue as the segment's frame completes (the frame is still
//!   counted until its MAC ACK), which is what a stamp put on the frame as
//!   it leaves the queue would say, give or take that frame.
//! - **L2-CLAMP** (`scheme = "l2clamp"`): see [`l2`].

pub mod l2;
#[cfg(test)]
mod tests;

pub use l2::{L2ClampBs, L2ClampHost, L2ClampStats};

use super::agent::{Agent, NodeSignal, Tap, Verdict};
use super::cache::{ack_key, data_key, ConnKey};
use super::AgentStats;
use crate::signal::Signal;
use crate::time::{Dur, Time};
use crate::wire::{Packet, SeqNum};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The controller's parameters (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClampConfig {
    /// `target_delay`: the queueing delay the price starts at (100 ms),
    /// when `alpha` is not given.
    pub target_delay: Dur,
    /// `alpha`: the price's offset `a` in packets, fixed (paper 004: "α is
    /// free to be chosen by the AP, but is fixed once chosen"). `None`:
    /// `a = target_delay * mu_c`, following the measured service rate
    /// (ours).
    pub alpha: Option<f64>,
    /// `tau`: bytes the window grows by per update at zero price (1500 B).
    pub tau: u64,
    /// `growth`: how `dw` enters the window after slow start.
    pub growth: Growth,
    /// `halving`: how often a non-positive `dw` may halve the window.
    pub halving: HalvingRule,
    /// `rate_time`: the time constant of the received rate `mu*` (200 ms).
    pub rate_time: Dur,
    /// `min_window`: the least window, in segments (2).
    pub min_window: u32,
    /// `initial_window`: the window before any data, in segments (4).
    pub initial_window: u32,
    /// `window_updates` (L2-CLAMP only): what the receiver's agent does
    /// with its TCP's window updates.
    pub window_updates: WindowUpdates,
}

/// What an L2-CLAMP receiver does with a standalone ACK that only moves
/// its window (`window_updates`; see [`l2`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowUpdates {
    /// `"pass"` (default, ours): let one through when the right edge has
    /// moved by half a window (or left), so that the BS knows the edge.
    Pass,
    /// `"drop"`: drop it, as paper 004 drops "all standalone non-duplicate
    /// TCP ACK packets"; the BS then takes the receiver's window to stay the
    /// size it last saw.
    Drop,
}

impl WindowUpdates {
    /// The TOML names.
    pub const NAMES: [(&'static str, WindowUpdates); 2] =
        [("pass", WindowUpdates::Pass), ("drop", WindowUpdates::Drop)];

    /// The TOML name.
    pub fn name(self) -> &'static str {
        match self {
            WindowUpdates::Pass => "pass",
            WindowUpdates::Drop => "drop",
        }
    }
}

/// How `dw = tau - p(q) mu*` moves the window after slow start
/// (`growth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// `"window"` (default, ours): `w += dw * bytes / w` at each segment,
    /// i.e. `dw` per window of data (per round trip).
    Window,
    /// `"segment"`: `w += dw` at each segment, paper 004's
    /// `w(t_k+1) = w(t_k) + dw(t_k)` read with `t_k` the arrival of each
    /// data packet (the algorithm runs per packet).
    Segment,
}

/// When a non-positive `dw` halves the window (`halving`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalvingRule {
    /// `"once_per_window"` (default, ours): at most once per window of
    /// data received, as TCP halves once per round trip.
    OncePerWindow,
    /// `"every"`: at every segment whose `dw <= 0` (paper 004's algorithm
    /// as written).
    Every,
}

impl Growth {
    /// The TOML names.
    pub const NAMES: [(&'static str, Growth); 2] =
        [("window", Growth::Window), ("segment", Growth::Segment)];

    /// The TOML name.
    pub fn name(self) -> &'static str {
        match self {
            Growth::Window => "window",
            Growth::Segment => "segment",
        }
    }
}

impl HalvingRule {
    /// The TOML names.
    pub const NAMES: [(&'static str, HalvingRule); 2] = [
        ("once_per_window", HalvingRule::OncePerWindow),
        ("every", HalvingRule::Every),
    ];

    /// The TOML name.
    pub fn name(self) -> &'static str {
        match self {
            HalvingRule::OncePerWindow => "once_per_window",
            HalvingRule::Every => "every",
        }
    }
}

impl Default for ClampConfig {
    fn default() -> ClampConfig {
        ClampConfig {
            target_delay: Dur::from_millis(100),
            alpha: None,
            tau: 1500,
            growth: Growth::Window,
            halving: HalvingRule::OncePerWindow,
            rate_time: Dur::from_millis(200),
            min_window: 2,
            initial_window: 4,
            window_updates: WindowUpdates::Pass,
        }
    }
}

impl ClampConfig {
    /// Receiver `h`'s price on `meter` under this configuration.
    fn price(&self, meter: &QueueMeter, h: usize) -> f64 {
        match self.alpha {
            Some(a) => meter.price_above(h, a),
            None => meter.price(h, self.target_delay),
        }
    }
}

/// Counters of CLAMP (the summary's `"clamp"` section).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ClampStats {
    /// Data segments the controllers saw.
    pub segments: u64,
    /// Window halvings on a non-positive `dw` (price above `tau / mu*`).
    pub price_halvings: u64,
    /// Window halvings on 3 duplicate ACKs.
    pub dupack_halvings: u64,
    /// ACKs whose advertised window was rewritten (made smaller).
    pub windows_clamped: u64,
    /// The largest price published, in microseconds.
    pub max_price_us: u64,
}

impl std::ops::AddAssign for ClampStats {
    fn add_assign(&mut self, o: ClampStats) {
        self.segments += o.segments;
        self.price_halvings += o.price_halvings;
        self.dupack_halvings += o.dupack_halvings;
        self.windows_clamped += o.windows_clamped;
        self.max_price_us = self.max_price_us.max(o.max_price_us);
    }
}

/// The window controller of one connection (see the module doc).
#[derive(Clone, Debug)]
pub struct Controller {
    w: f64,
    slow_start: bool,
    rate: f64,
    rate_at: Option<Time>,
    since_cut: f64,
    cut_at_window: f64,
    mss: u32,
    /// The smallest MSS option of the connection's SYNs (0: none seen).
    syn_mss: u32,
    last_ack: Option<SeqNum>,
    dupacks: u32,
}

/// Why a controller halved its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halving {
    /// `dw <= 0`.
    Price,
    /// 3 duplicate ACKs.
    DupAcks,
}

impl Controller {
    /// A controller before any data (the window is `initial_window`
    /// segments of the connection's MSS: the larger of the first
    /// segment's size and the smallest MSS its SYNs offered, see
    /// [`Controller::on_syn`]).
    pub fn new() -> Controller {
        Controller {
            w: 0.0,
            slow_start: true,
            rate: 0.0,
            rate_at: None,
            since_cut: 0.0,
            cut_at_window: 0.0,
            mss: 0,
            syn_mss: 0,
            last_ack: None,
            dupacks: 0,
        }
    }

    /// The window, bytes.
    pub fn window(&self) -> u64 {
        self.w as u64
    }

    /// The received rate `mu*`, bytes/s, at the last segment.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// A SYN of the connection offered `mss` (its MSS option): the
    /// segments will be at most the smallest offer, and the window before
    /// any data, and its floor, are counted in segments of it. Without
    /// it, a connection whose first segment is small (a real
    /// application's greeting, such as iperf3's 37-byte cookie) would
    /// start with a window of a few small segments, less than one full
    /// segment, which a sender avoiding silly windows does not fill.
    pub fn on_syn(&mut self, mss: Option<u16>) {
        if let Some(m) = mss.map(u32::from).filter(|&m| m > 0) {
            self.syn_mss = if self.syn_mss == 0 {
                m
            } else {
                self.syn_mss.min(m)
            };
        }
    }

    /// A data segment of `bytes` arrived at `now` with the receiver's
    /// price `price` (s); `cap` is the receiver's own window (bytes).
    pub fn on_data(
        &mut self,
        now: Time,
        bytes: u32,
        price: f64,
        cap: u64,
        cfg: &ClampConfig,
    ) -> Option<Halving> {
        if bytes == 0 {
            return None;
        }
        if self.rate_at.is_none() {
            self.mss = self.mss.max(bytes).max(self.syn_mss);
            self.w = f64::from(cfg.initial_window) * f64::from(self.mss);
        } else if bytes > self.mss {
            self.mss = bytes;
        }
        let t = cfg.rate_time.as_secs_f64().max(1e-6);
        if let Some(at) = self.rate_at {
            self.rate *= (-(now - at).as_secs_f64() / t).exp();
        }
        self.rate += f64::from(bytes) / t;
        self.rate_at = Some(now);
        self.since_cut += f64::from(bytes);
        let dw = cfg.tau as f64 - price * self.rate;
        let mut halved = None;
        if dw <= 0.0 {
            if self.halve(cfg) {
                halved = Some(Halving::Price);
            }
        } else if self.slow_start {
            self.w += f64::from(bytes);
        } else {
            self.w += match cfg.growth {
                Growth::Window => dw * f64::from(bytes) / self.w.max(1.0),
                Growth::Segment => dw,
            };
        }
        self.bound(cap, cfg);
        halved
    }

    /// The receiver's TCP acknowledged `ack` (a pure ACK): counts
    /// duplicates; the third in a row halves the window.
    pub fn on_ack(&mut self, ack: SeqNum, cfg: &ClampConfig) -> Option<Halving> {
        if self.last_ack == Some(ack) {
            self.dupacks += 1;
            if self.dupacks == 3 && self.halve(cfg) {
                return Some(Halving::DupAcks);
            }
        } else if self.last_ack.is_none_or(|l| ack > l) {
            self.last_ack = Some(ack);
            self.dupacks = 0;
        }
        None
    }

    /// Halves the window unless `cfg.halving` is once per window and it
    /// was halved less than a window of data ago.
    fn halve(&mut self, cfg: &ClampConfig) -> bool {
        let guarded = cfg.halving == HalvingRule::OncePerWindow;
        if guarded && !self.slow_start && self.since_cut < self.cut_at_window {
            return false;
        }
        self.slow_start = false;
        self.w /= 2.0;
        let floor = f64::from(cfg.min_window) * f64::from(self.mss.max(1));
        self.w = self.w.max(floor);
        self.since_cut = 0.0;
        self.cut_at_window = self.w;
        true
    }

    fn bound(&mut self, cap: u64, cfg: &ClampConfig) {
        let floor = f64::from(cfg.min_window) * f64::from(self.mss.max(1));
        self.w = self.w.min(cap.max(1) as f64).max(floor);
    }
}

impl Default for Controller {
    fn default() -> Controller {
        Controller::new()
    }
}

/// Each receiver's current price (seconds), shared by the AP's agent that
/// writes it and the receivers' agents that read it (see the module doc).
#[derive(Clone, Debug)]
pub struct PriceBoard(Arc<Vec<AtomicU64>>);

impl PriceBoard {
    /// A board for `hosts` receivers, every price 0.
    pub fn new(hosts: usize) -> PriceBoard {
        PriceBoard(Arc::new((0..hosts).map(|_| AtomicU64::new(0)).collect()))
    }

    /// Host `h`'s price, seconds.
    pub fn price(&self, h: usize) -> f64 {
        self.0
            .get(h)
            .map_or(0.0, |a| f64::from_bits(a.load(Ordering::Relaxed)))
    }

    fn set(&self, h: usize, p: f64) {
        if let Some(a) = self.0.get(h) {
            a.store(p.to_bits(), Ordering::Relaxed);
        }
    }
}

/// The AP's view of each receiver's queue: packets handed to the air and
/// not yet reported by the MAC, and the queue's service rate.
#[derive(Clone, Debug, Default)]
pub struct QueueMeter {
    q: Vec<u64>,
    interval: Vec<Option<f64>>,
    last_delivery: Vec<Option<Time>>,
}

impl QueueMeter {
    /// A meter of `hosts` receiver queues.
    pub fn new(hosts: usize) -> QueueMeter {
        QueueMeter {
            q: vec![0; hosts],
            interval: vec![None; hosts],
            last_delivery: vec![None; hosts],
        }
    }

    /// A packet for host `h` went to the AP's MAC.
    pub fn enqueued(&mut self, h: usize) {
        if let Some(q) = self.q.get_mut(h) {
            *q += 1;
        }
    }

    /// The MAC reported a frame for host `h` at `now`: delivered (with its
    /// queueing + transmission delay `sojourn`) or given up.
    pub fn reported(&mut self, now: Time, h: usize, sojourn: Option<Dur>) {
        let Some(q) = self.q.get_mut(h) else {
            return;
        };
        *q = q.saturating_sub(1);
        let Some(sojourn) = sojourn else {
            return;
        };
        let mut sample = sojourn.as_secs_f64();
        if let Some(last) = self.last_delivery[h] {
            sample = sample.min((now - last).as_secs_f64());
        }
        self.last_delivery[h] = Some(now);
        let i = &mut self.interval[h];
        *i = Some(match *i {
            Some(x) => 0.875 * x + 0.125 * sample,
            None => sample,
        });
    }

    /// Packets in host `h`'s queue.
    pub fn len(&self, h: usize) -> u64 {
        self.q.get(h).copied().unwrap_or(0)
    }

    /// Whether every queue is empty.
    pub fn is_empty(&self) -> bool {
        self.q.iter().all(|&q| q == 0)
    }

    /// `p(q) = max((q - a) / mu_c, 0)` of host `h`, with `a = target *
    /// mu_c`: the queueing delay above `target` (s). 0 before the first
    /// service-rate sample.
    pub fn price(&self, h: usize, target: Dur) -> f64 {
        match self.interval.get(h).copied().flatten() {
            Some(x) => (self.len(h) as f64 * x - target.as_secs_f64()).max(0.0),
            None => 0.0,
        }
    }

    /// `p(q) = max((q - alpha) / mu_c, 0)` of host `h` with a fixed
    /// `alpha` packets (paper 004, eq. 1 with `b = 1`), seconds. 0 before
    /// the first service-rate sample.
    pub fn price_above(&self, h: usize, alpha: f64) -> f64 {
        match self.interval.get(h).copied().flatten() {
            Some(x) => ((self.len(h) as f64 - alpha) * x).max(0.0),
            None => 0.0,
        }
    }
}

/// The host a packet's flow goes to.
fn host(host_of: &[u32], p: &Packet) -> Option<usize> {
    host_of.get(p.meta.flow as usize).map(|&h| h as usize)
}

/// The MAC's report of a downlink frame, as (packet, delivered, sojourn).
fn mac_report(s: &NodeSignal) -> Option<(Packet, bool, Option<Dur>)> {
    let p = s.packet?;
    match s.signal {
        Signal::Delivered { .. } => Some((p, true, s.delays.map(|d| d.queue + d.tx))),
        Signal::Undelivered { .. } => Some((p, false, None)),
        _ => None,
    }
}

/// CLAMP at the AP: each receiver's price from its queue, on the board.
#[derive(Debug)]
pub struct ClampAp {
    cfg: ClampConfig,
    host_of: Vec<u32>,
    meter: QueueMeter,
    board: PriceBoard,
    stats: ClampStats,
}

impl ClampAp {
    /// The AP's agent; `host_of` gives each flow's host.
    pub fn new(cfg: ClampConfig, host_of: Vec<u32>, board: PriceBoard) -> ClampAp {
        let hosts = host_of.iter().map(|&h| h as usize + 1).max().unwrap_or(0);
        ClampAp {
            cfg,
            host_of,
            meter: QueueMeter::new(hosts),
            board,
            stats: ClampStats::default(),
        }
    }

    fn publish(&mut self, h: usize) {
        let p = self.cfg.price(&self.meter, h);
        self.stats.max_price_us = self.stats.max_price_us.max((p * 1e6) as u64);
        self.board.set(h, p);
    }
}

impl Agent for ClampAp {
    fn on_packet(&mut self, _now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        if tap == Tap::BsDown {
            if let Some(h) = host(&self.host_of, p) {
                self.meter.enqueued(h);
                self.publish(h);
            }
        }
        Verdict::Pass
    }

    fn on_signal(&mut self, now: Time, s: &NodeSignal) -> bool {
        let Some((p, _, sojourn)) = mac_report(s) else {
            return false;
        };
        let Some(h) = host(&self.host_of, &p) else {
            return false;
        };
        self.meter.reported(now, h, sojourn);
        self.publish(h);
        true
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::Clamp(self.stats))
    }
}

/// The window-scale state of a connection as one end sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scales {
    /// The data receiver's shift (its SYN), if it offered one.
    pub receiver: Option<u8>,
    /// The data sender's (its SYN), if it offered one.
    pub sender: Option<u8>,
}

impl Scales {
    /// The shift of the receiver's window field (RFC 7323: only if both
    /// ends offered it).
    pub fn shift(&self) -> u8 {
        match (self.receiver, self.sender) {
            (Some(r), Some(_)) => r.min(14),
            _ => 0,
        }
    }
}

/// Rewrites the window of `ack` (from the data receiver) to `min(w, its
/// own window)`, never moving the right edge left of `last_edge`; returns
/// whether it made the window smaller.
pub fn clamp_window(ack: &mut Packet, w: u64, shift: u8, last_edge: &mut Option<SeqNum>) -> bool {
    let own = u64::from(ack.tcp.window) << shift;
    let a = ack.tcp.ack;
    let mut want = w.min(own);
    if let Some(e) = *last_edge {
        let floor = e.since(a).max(0) as u64;
        want = want.max(floor.min(own));
    }
    let field = want.div_ceil(1 << shift).min(u64::from(ack.tcp.window)) as u16;
    let edge = a + ((u64::from(field) << shift).min(u64::from(u32::MAX >> 1)) as u32);
    *last_edge = Some(last_edge.map_or(edge, |e| e.max(edge)));
    let smaller = field < ack.tcp.window;
    ack.tcp.window = field;
    smaller
}

/// The receiver side of a connection at a CLAMP host.
#[derive(Clone, Debug, Default)]
struct HostConn {
    ctl: Controller,
    scales: Scales,
    last_edge: Option<SeqNum>,
}

/// CLAMP at a wireless host: the controller of each of its connections,
/// driven by the price on the board; rewrites its TCP's ACKs.
#[derive(Debug)]
pub struct ClampHost {
    cfg: ClampConfig,
    host: usize,
    board: PriceBoard,
    conns: BTreeMap<ConnKey, HostConn>,
    stats: ClampStats,
}

impl ClampHost {
    /// The agent of wireless host `host`.
    pub fn new(cfg: ClampConfig, host: u32, board: PriceBoard) -> ClampHost {
        ClampHost {
            cfg,
            host: host as usize,
            board,
            conns: BTreeMap::new(),
            stats: ClampStats::default(),
        }
    }
}

impl Agent for ClampHost {
    fn on_packet(&mut self, now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        match tap {
            Tap::HostIn => {
                let c = self.conns.entry(data_key(p)).or_default();
                if p.tcp.flags.syn() {
                    c.scales.sender = p.tcp.options.window_scale;
                    c.ctl.on_syn(p.tcp.options.mss);
                } else if p.tcp.payload_len > 0 {
                    self.stats.segments += 1;
                    let price = self.board.price(self.host);
                    let cap = u64::MAX >> 2;
                    if c.ctl.on_data(now, p.tcp.payload_len, price, cap, &self.cfg)
                        == Some(Halving::Price)
                    {
                        self.stats.price_halvings += 1;
                    }
                }
            }
            Tap::HostOut => {
                let c = self.conns.entry(ack_key(p)).or_default();
                if p.tcp.flags.syn() {
                    c.scales.receiver = p.tcp.options.window_scale;
                    c.ctl.on_syn(p.tcp.options.mss);
                } else if p.tcp.flags.ack() && c.ctl.rate_at.is_some() {
                    if super::cache::is_pure_ack(p)
                        && c.ctl.on_ack(p.tcp.ack, &self.cfg) == Some(Halving::DupAcks)
                    {
                        self.stats.dupack_halvings += 1;
                    }
                    let shift = c.scales.shift();
                    if clamp_window(p, c.ctl.window(), shift, &mut c.last_edge) {
                        self.stats.windows_clamped += 1;
                    }
                }
            }
            _ => {}
        }
        Verdict::Pass
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::Clamp(self.stats))
    }
}
