//! DSASync (paper 001, Kumar and Shin): a base-station agent that keeps TCP
//! running across the transmission freeze periods (TFPs) of a
//! dynamic-spectrum-access cell — sensing quiet periods, channel switches,
//! primary users — without touching either TCP endpoint.
//!
//! It learns the TFPs from the cell's `tfp_start` / `tfp_end` signals at the
//! BS (`node` names a host's own sensing; none means the whole cell) and
//! the new channel's rate from `capacity` (DSASync_LL); on the 802.15.4
//! hop, which has no DSA processes, the BS's primary-user detector
//! (`pu_start` / `pu_stop`) marks whole-cell TFPs instead. It acts on the
//! packets crossing the BS (DSASync_TCP):
//!
//! - **Algorithm 1** (each packet from a CH, at `Tap::BsDown`): outside its
//!   host's TFP it goes on to the air; inside (or while older packets for the
//!   host are still buffered, to keep their order) the BS buffers it. Then,
//!   unless `hold` is already set: when the free buffer falls below `b_low`,
//!   set `hold` and advertise a zero window to every CH; otherwise when the
//!   connection's buffered data reaches the window its host last advertised
//!   (`SN_new >= SN_last + rwin`), advertise a zero window to that CH. While
//!   `hold` (or that connection is paused), a window probe for a frozen host
//!   is answered with a zero window. A segment with the sequence number of
//!   a buffered one replaces it (the older copy is dropped, counted).
//! - **Algorithm 2**: `hold` clears when the free buffer reaches `b_high`;
//!   a host's buffered packets go to the air when its TFP ends; while
//!   `hold`, every ACK from a host has its window rewritten to 0.
//!   The paper runs this on a periodic timer; here it runs on every TFP
//!   signal and every buffer change, which is the same schedule with a
//!   zero period. At most `tx_window` downlink packets are in the AP's MAC
//!   at a time (passed or released; the MAC's delivery reports say when
//!   one leaves); past that, packets wait in the BS buffer even outside a
//!   TFP, so that a release does not overflow the MAC queue — the paper's
//!   transmit queue is not bounded, ours is.
//!   Line 11 ("buffer any i's pkt from transmit queue"): when host `i`'s
//!   TFP begins, the agent takes back what the AP's MAC holds for it and
//!   has not put on the air ([`Action::Withdraw`]) and puts it at the head
//!   of `i`'s buffer, in order; on a cell whose driver clears its queue
//!   when it retunes (`tfp_queue = "flush"`) this is what saves them.
//! - **Algorithm 4** (`smoothing = "cell"`, default) or **3** (`"node"`):
//!   every TCP packet from the hosts toward the CHs — the data of SH-CH
//!   connections and the hosts' ACKs of downlink data alike, as the paper
//!   has it ("the ACKs are sent to the CH at a lower but steady rate, even
//!   during TFPs", VI-C2) — waits in one FIFO (4) and leaves when
//!   `size(p) / elapsed < beta * D` (line 10), `elapsed` the time since the
//!   last packet left; otherwise the pacer waits `size(p) / (beta * D) -
//!   elapsed` (line 13). `beta = max(alpha, alpha_min)` (line 6), `alpha =
//!   1 - TFP time / window` over the last `window` (eq. 1), per host (3) or
//!   averaged over the hosts (4), `D` the rate at which the hosts' packets
//!   reach the BS (eq. 2), per host (3) or for the cell (4).
//!   `rate_over` says what `D` is measured over. `"active"` (default, our
//!   reading): the *non-TFP* part of the window (bytes / (window - TFP
//!   time)): the paper's "actual data-rate at which src's outgoing TCP
//!   packets are received at the BS" (IV-B b) is the rate while the host
//!   can send, and then `beta * D` is the long-run arrival rate, which
//!   spreads the packets of the active periods over the TFPs, what the
//!   paper says the algorithm is for. `"window"`: the whole window (bytes /
//!   window, the other reading of "the rate at which \[they\] enter the BS's
//!   outgoing queue ... in the moving time-window"): `beta * D` is then
//!   below the arrival rate whenever `beta < 1` and a self-clocked TCP
//!   slows to the pacer's rate, window after window.
//!   `max_wait` bounds a packet's wait: `"none"` (default) as the paper,
//!   whose only bound on the shaping is `alpha_min` ("the alpha_min
//!   parameter provides control over (a) excessive delays", IV-B b);
//!   `"mean_tfp"` (the reconstruction's earlier default, ours): no packet
//!   waits longer than the mean TFP seen so far (and so, before the first
//!   TFP, none waits at all; the paper's pacer, at `alpha = 1`, paces at
//!   `D`).
//!   What the pacer costs (`xltcp reproduce dsasync --seeds 1..50`,
//!   `pacer.csv`, downlink): with `rate_over = "active"`, `beta * D` is the
//!   long-run arrival rate, so the pacer is a server loaded at exactly 1
//!   over its window; the packets, which arrive in bursts (an ACK per two
//!   segments the air delivers between TFPs), queue in it, and only the
//!   TCP's window bounds the queue: 99 % of the host's ACKs wait, 114 ms
//!   each, srtt 208 ms against 59 without smoothing, goodput 3.63 against
//!   10.49 Mbit/s. `D`, measured on what comes back from what the pacer
//!   released, follows the TCP down. `"mean_tfp"` holds the wait to 48 ms
//!   (5.85 Mbit/s), `alpha_min = 1` (a load of alpha < 1) to 15 ms (9.13);
//!   with no TFP at all DSASync costs 7.8 % down and 11.7 % up (the pacer
//!   still at load 1; the paper measured 1.9 %, VI-C1). A larger window does not
//!   save it: with MAC retries that never run out the wait grows to 195 ms
//!   and the 256 KB receive window limits (7.11 against 10.99 Mbit/s).
//! - **Algorithm 5** (`capacity` signal of a channel switch): for each host
//!   whose downlink rate over the last `window` exceeds `efficiency *
//!   C_new`, three duplicates of its last ACK to each of its CHs, so they
//!   fast-retransmit and halve their windows instead of timing out.
//!
//! The buffer never loses a packet it accepted: `accepted + withdrawn =
//! released + buffered` at every instant (`buffered` counts in the run's in-flight
//! packets). A newer copy of a buffered segment is not accepted beside it:
//! it takes the buffered packet's place (`replaced` counts such copies), so
//! the place is released once. A packet that does not fit is refused
//! (dropped, counted), never accepted and then lost.

use super::agent::{Action, Agent, NodeSignal, Tap, Verdict, Via};
use super::AgentStats;
use crate::signal::{Signal, TfpCause};
use crate::time::{Dur, Time};
use crate::wire::Packet;
use serde::Serialize;
use std::collections::{BTreeSet, VecDeque};

/// Which uplink smoothing runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Smoothing {
    /// None: uplink packets go on at once.
    Off,
    /// Algorithm 3: per host.
    Node,
    /// Algorithm 4: one pacer for the cell.
    Cell,
}

/// What the pacer's rate `D` is measured over (`rate_over`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateOver {
    /// `"active"` (default, our reading of IV-B b): the non-TFP part of
    /// the window, so that `beta * D` is the long-run arrival rate.
    Active,
    /// `"window"`: the whole window, TFPs included.
    Window,
}

impl RateOver {
    /// The TOML names.
    pub const NAMES: [(&'static str, RateOver); 2] =
        [("active", RateOver::Active), ("window", RateOver::Window)];

    /// The TOML name.
    pub fn name(self) -> &'static str {
        match self {
            RateOver::Active => "active",
            RateOver::Window => "window",
        }
    }
}

/// The longest a packet waits in the pacer (`max_wait`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxWait {
    /// `"none"` (default): as the paper, only `alpha_min` bounds the
    /// shaping.
    None,
    /// `"mean_tfp"` (ours, the earlier default): the mean length of the
    /// TFPs seen so far.
    MeanTfp,
}

impl MaxWait {
    /// The TOML names.
    pub const NAMES: [(&'static str, MaxWait); 2] =
        [("none", MaxWait::None), ("mean_tfp", MaxWait::MeanTfp)];

    /// The TOML name.
    pub fn name(self) -> &'static str {
        match self {
            MaxWait::None => "none",
            MaxWait::MeanTfp => "mean_tfp",
        }
    }
}

/// DSASync's parameters (defaults from the paper where it gives them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsaSyncConfig {
    /// `buffer`: B_alloc, bytes (paper: 500 MB).
    pub buffer: u64,
    /// `b_low`: set `hold` when the free buffer falls below it (400 MB).
    pub b_low: u64,
    /// `b_high`: clear `hold` when the free buffer reaches it (500 MB; the
    /// paper's B_high equals its buffer, so "exceeds" is read as "reaches").
    pub b_high: u64,
    /// `alpha_min`: the least pacing factor (0.5).
    pub alpha_min: f64,
    /// `window`: ΔT of the rate and TFP estimates (ours: 1 s).
    pub window: Dur,
    /// `efficiency`: e, TCP's share of the PHY rate (ours: 0.6, the
    /// simulator's 802.11a TCP goodput at 24 Mb/s over the rate).
    pub efficiency: f64,
    /// `smoothing`: Algorithm 4 ("cell"), 3 ("node") or "off".
    pub smoothing: Smoothing,
    /// `tx_window`: released packets in the AP's MAC at once (ours: 50).
    pub tx_window: usize,
    /// `rate_over`: what the pacer's `D` is measured over ("active").
    pub rate_over: RateOver,
    /// `max_wait`: the longest wait in the pacer ("none", as the paper).
    pub max_wait: MaxWait,
}

impl Default for DsaSyncConfig {
    fn default() -> DsaSyncConfig {
        DsaSyncConfig {
            buffer: 500_000_000,
            b_low: 400_000_000,
            b_high: 500_000_000,
            alpha_min: 0.5,
            window: Dur::from_secs(1),
            efficiency: 0.6,
            smoothing: Smoothing::Cell,
            tx_window: 50,
            rate_over: RateOver::Active,
            max_wait: MaxWait::None,
        }
    }
}

/// DSASync's counters (the summary's `"dsasync"` section).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DsaSyncStats {
    /// Downlink packets accepted into the buffer.
    pub accepted: u64,
    /// Buffered packets released to the air.
    pub released: u64,
    /// Packets taken back from the AP's MAC queue when their host's TFP
    /// began (Algorithm 2, line 11), then buffered.
    pub withdrawn: u64,
    /// Newer copies that took a buffered packet's place (Algorithm 1); not
    /// counted in `accepted`.
    pub replaced: u64,
    /// Buffered at the end of the run.
    pub buffered: u64,
    /// Packets refused because the buffer was full (never accepted).
    pub refused_full: u64,
    /// Most bytes buffered at once.
    pub max_buffered_bytes: u64,
    /// Times `hold` was set.
    pub holds: u64,
    /// Zero-window ACKs made for the CHs (hold, full window, probes).
    pub zero_window_acks: u64,
    /// Of those, answers to window probes.
    pub probes_answered: u64,
    /// ACKs from hosts whose window was rewritten to 0 during `hold`.
    pub windows_rewritten: u64,
    /// Duplicate ACKs sent on capacity drops (Algorithm 5).
    pub capacity_dupacks: u64,
    /// Uplink packets paced (Algorithms 3/4).
    pub paced: u64,
    /// Longest time an uplink packet waited in the pacer, seconds.
    pub max_pacing_delay_s: f64,
    /// Of the paced packets, those the pacer held for any time at all.
    pub paced_waited: u64,
    /// Total time the paced packets waited in the pacer, seconds (over
    /// `paced`: the mean delay the pacer adds to each uplink packet, which
    /// the uplink TCP sees as a longer RTT).
    pub pacing_delay_total_s: f64,
}

impl std::ops::AddAssign for DsaSyncStats {
    fn add_assign(&mut self, o: DsaSyncStats) {
        self.accepted += o.accepted;
        self.released += o.released;
        self.withdrawn += o.withdrawn;
        self.replaced += o.replaced;
        self.buffered += o.buffered;
        self.refused_full += o.refused_full;
        self.max_buffered_bytes = self.max_buffered_bytes.max(o.max_buffered_bytes);
        self.holds += o.holds;
        self.zero_window_acks += o.zero_window_acks;
        self.probes_answered += o.probes_answered;
        self.windows_rewritten += o.windows_rewritten;
        self.capacity_dupacks += o.capacity_dupacks;
        self.paced += o.paced;
        self.max_pacing_delay_s = self.max_pacing_delay_s.max(o.max_pacing_delay_s);
        self.paced_waited += o.paced_waited;
        self.pacing_delay_total_s += o.pacing_delay_total_s;
    }
}

/// What DSASync knows of one TCP connection (one flow).
#[derive(Clone, Copy, Debug, Default)]
struct Conn {
    /// The host's latest ACK toward the CH (the template of made ACKs).
    last_ack: Option<Packet>,
    /// Its window in bytes (scaled).
    rwin: u64,
    /// Window scale the host announced, and whether the CH offered one.
    host_wscale: u8,
    ch_wscale: bool,
    /// A zero window was advertised for this connection alone.
    paused: bool,
}

/// The DSASync agent at the BS (see the module doc).
#[derive(Debug)]
pub struct DsaSync {
    cfg: DsaSyncConfig,
    /// Each flow's host and whether it is an uplink flow.
    host_of: Vec<u32>,
    /// TFP causes of the whole cell in force.
    cell: BTreeSet<TfpCause>,
    /// Hosts in a TFP of their own.
    node: Vec<bool>,
    /// Since when each host is frozen, and its closed TFPs in the window.
    frozen_since: Vec<Option<Time>>,
    tfps: Vec<VecDeque<(Time, Time)>>,
    buffer: Vec<VecDeque<Packet>>,
    buffered_bytes: u64,
    hold: bool,
    /// Released packets (by uid) not yet reported by the AP's MAC.
    in_mac: BTreeSet<u64>,
    conns: Vec<Conn>,
    /// Downlink arrivals per host over the window: (time, bytes).
    down_rate: Vec<VecDeque<(Time, u64)>>,
    /// Uplink arrivals per host over the window.
    up_rate: Vec<VecDeque<(Time, u64)>>,
    /// The pacer's queue: (packet, host, arrival).
    pacer: VecDeque<(Packet, u32, Time)>,
    /// Last dequeue of the pacer (per host for Algorithm 3, [0] for 4).
    last_dequeue: Vec<Time>,
    next_release: Option<Time>,
    /// TFPs seen (count, total length), for the pacer's bound.
    tfp_seen: (u64, Dur),
    /// Time the released uplink packets waited in the pacer, summed
    /// exactly (the stats' seconds are made from it).
    pacing_waited_total: Dur,
    actions: VecDeque<Action>,
    stats: DsaSyncStats,
}

impl DsaSync {
    /// The agent for flows whose wireless hosts are `host_of`.
    pub fn new(cfg: DsaSyncConfig, host_of: Vec<u32>) -> DsaSync {
        let hosts = host_of.iter().map(|&h| h as usize + 1).max().unwrap_or(0);
        let flows = host_of.len();
        DsaSync {
            cfg,
            host_of,
            cell: BTreeSet::new(),
            node: vec![false; hosts],
            frozen_since: vec![None; hosts],
            tfps: vec![VecDeque::new(); hosts],
            buffer: vec![VecDeque::new(); hosts],
            buffered_bytes: 0,
            hold: false,
            in_mac: BTreeSet::new(),
            conns: vec![Conn::default(); flows],
            down_rate: vec![VecDeque::new(); hosts],
            up_rate: vec![VecDeque::new(); hosts],
            pacer: VecDeque::new(),
            last_dequeue: vec![Time::ZERO; hosts.max(1)],
            next_release: None,
            tfp_seen: (0, Dur::ZERO),
            pacing_waited_total: Dur::ZERO,
            actions: VecDeque::new(),
            stats: DsaSyncStats::default(),
        }
    }

    /// Whether host `h` is in a TFP (its own or the cell's).
    pub fn frozen(&self, h: usize) -> bool {
        !self.cell.is_empty() || self.node.get(h).copied().unwrap_or(false)
    }

    /// Whether `hold` is set.
    pub fn holding(&self) -> bool {
        self.hold
    }

    /// The counters so far.
    pub fn stats_now(&self) -> DsaSyncStats {
        DsaSyncStats {
            buffered: self.buffer.iter().map(|b| b.len() as u64).sum(),
            pacing_delay_total_s: self.pacing_waited_total.as_secs_f64(),
            ..self.stats
        }
    }

    fn free(&self) -> u64 {
        self.cfg.buffer.saturating_sub(self.buffered_bytes)
    }

    /// Host and connection of a packet, if it belongs to a known flow.
    fn place(&self, p: &Packet) -> Option<(usize, usize)> {
        let f = p.meta.flow as usize;
        self.host_of.get(f).map(|&h| (h as usize, f))
    }

    /// A zero-window ACK for connection `f` from its last host ACK.
    fn zero_window(&mut self, f: usize) -> bool {
        let Some(mut ack) = self.conns[f].last_ack else {
            return false;
        };
        ack.tcp.window = 0;
        ack.tcp.payload_len = 0;
        ack.meta.forged = true;
        self.actions.push_back(Action::Emit {
            packet: ack,
            via: Via::Wire,
        });
        self.stats.zero_window_acks += 1;
        true
    }

    /// Algorithm 1 after buffering a packet of connection `f`.
    fn after_buffering(&mut self, p: &Packet, f: usize) {
        if self.hold {
            return;
        }
        if self.free() < self.cfg.b_low {
            self.hold = true;
            self.stats.holds += 1;
            for c in 0..self.conns.len() {
                self.zero_window(c);
            }
            return;
        }
        let c = self.conns[f];
        let Some(last) = c.last_ack else {
            return;
        };
        // SN_new >= SN_last + rwin: the host's window is full.
        let sn_new = p.tcp.seq + p.tcp.payload_len;
        let edge = last.tcp.ack + c.rwin.min(u64::from(u32::MAX >> 1)) as u32;
        if p.tcp.payload_len > 0 && !c.paused && sn_new.since(edge) >= 0 {
            self.conns[f].paused = self.zero_window(f);
        }
    }

    /// A packet from a CH toward host `h` (Algorithm 1).
    fn downlink(&mut self, now: Time, p: &Packet, h: usize, f: usize) -> Verdict {
        if p.tcp.flags.syn() && p.tcp.options.window_scale.is_some() {
            self.conns[f].ch_wscale = true;
        }
        push_rate(
            &mut self.down_rate[h],
            now,
            p.ip_len() as u64,
            self.cfg.window,
        );
        if !self.frozen(h) && self.buffer[h].is_empty() && self.in_mac.len() < self.cfg.tx_window {
            self.in_mac.insert(p.meta.uid);
            return Verdict::Pass;
        }
        // A window probe while this connection is held, for a frozen host.
        let probe = p.tcp.payload_len <= 1 && (self.hold || self.conns[f].paused);
        if probe && self.frozen(h) {
            self.stats.probes_answered += 1;
            self.zero_window(f);
        }
        // A copy of a buffered segment replaces it.
        let same = |q: &Packet| {
            q.meta.flow == p.meta.flow && q.tcp.seq == p.tcp.seq && q.tcp.payload_len > 0
        };
        if p.tcp.payload_len > 0 {
            if let Some(old) = self.buffer[h].iter_mut().find(|q| same(q)) {
                let uid = old.meta.uid;
                *old = *p;
                old.meta.uid = uid;
                self.stats.replaced += 1;
                return Verdict::Drop("dsasync_replaced_by_newer_copy");
            }
        }
        let len = p.ip_len() as u64;
        if self.buffered_bytes + len > self.cfg.buffer {
            self.stats.refused_full += 1;
            return Verdict::Drop("dsasync_buffer_full");
        }
        self.buffer[h].push_back(*p);
        self.buffered_bytes += len;
        self.stats.accepted += 1;
        self.stats.max_buffered_bytes = self.stats.max_buffered_bytes.max(self.buffered_bytes);
        self.after_buffering(p, f);
        Verdict::Hold
    }

    /// A packet from host `h` toward a CH: the host's ACK state, the
    /// window rewrite while holding, and the pacer.
    fn uplink(&mut self, now: Time, p: &mut Packet, h: usize, f: usize) -> Verdict {
        let c = &mut self.conns[f];
        if p.tcp.flags.syn() {
            c.host_wscale = p.tcp.options.window_scale.unwrap_or(0);
        }
        if p.tcp.flags.ack() && !p.tcp.flags.syn() {
            let scale = if c.ch_wscale { c.host_wscale } else { 0 };
            c.rwin = u64::from(p.tcp.window) << scale;
            c.last_ack = Some(*p);
            if c.paused && c.rwin > 0 {
                c.paused = false;
            }
        }
        if self.hold && p.tcp.flags.ack() && p.tcp.window != 0 {
            p.tcp.window = 0;
            self.stats.windows_rewritten += 1;
        }
        // Algorithms 3/4 shape every packet of the hosts toward the CHs,
        // their ACKs of downlink data included (see the module doc).
        if self.cfg.smoothing == Smoothing::Off {
            return Verdict::Pass;
        }
        push_rate(
            &mut self.up_rate[h],
            now,
            p.ip_len() as u64,
            self.cfg.window,
        );
        self.pacer.push_back((*p, h as u32, now));
        self.stats.paced += 1;
        // Held either way: `pace` may release it at once, as an action.
        self.pace(now);
        Verdict::Hold
    }

    /// TFP seconds of host `h` in `[now - window, now]`.
    fn tfp_in_window(&mut self, now: Time, h: usize) -> Dur {
        let from = Time(now.0.saturating_sub(self.cfg.window.0));
        let list = &mut self.tfps[h];
        while list.front().is_some_and(|&(_, e)| e <= from) {
            list.pop_front();
        }
        let closed: Dur = list
            .iter()
            .map(|&(s, e)| e - s.max(from))
            .fold(Dur::ZERO, |a, b| a + b);
        let open = self.frozen_since[h].map_or(Dur::ZERO, |s| now - s.max(from));
        closed + open
    }

    /// The pacing rate (bytes per second) of host `h` (Algorithm 3) or of
    /// the cell (`None`, Algorithm 4); `None` when nothing is known yet.
    fn pace_rate(&mut self, now: Time, h: Option<usize>) -> Option<f64> {
        let span = Dur(now.0.min(self.cfg.window.0));
        if span.0 == 0 {
            return None;
        }
        let hosts: Vec<usize> = match h {
            Some(h) => vec![h],
            None => (0..self.node.len()).collect(),
        };
        let mut bytes = 0u64;
        let mut tfp = 0.0;
        for &k in &hosts {
            trim_rate(&mut self.up_rate[k], now, self.cfg.window);
            bytes += self.up_rate[k].iter().map(|&(_, b)| b).sum::<u64>();
            tfp += self.tfp_in_window(now, k).as_secs_f64();
        }
        let tfp = tfp / hosts.len().max(1) as f64;
        let over = match self.cfg.rate_over {
            RateOver::Active => (span.as_secs_f64() - tfp).max(1e-3),
            RateOver::Window => span.as_secs_f64(),
        };
        let d = bytes as f64 / over;
        let alpha = 1.0 - tfp / span.as_secs_f64();
        let beta = alpha.max(self.cfg.alpha_min).min(1.0);
        (d > 0.0).then_some(beta * d)
    }

    /// The mean length of the TFPs seen so far (zero before the first).
    fn mean_tfp(&self) -> Dur {
        let (n, total) = self.tfp_seen;
        Dur(total.0.checked_div(n).unwrap_or(0))
    }

    /// Releases what the pacer may release at `now` and arms its timer.
    fn pace(&mut self, now: Time) {
        self.next_release = None;
        let per_node = self.cfg.smoothing == Smoothing::Node;
        let mut k = 0;
        while k < self.pacer.len() {
            let (p, h, at) = self.pacer[k];
            let slot = if per_node { h as usize } else { 0 };
            // A host frozen now cannot have its packet here ahead of time;
            // pace by the packet's own host (3) or the cell (4).
            let rate = self.pace_rate(now, per_node.then_some(h as usize));
            let due = match rate {
                None => now,
                Some(r) => self.last_dequeue[slot] + Dur::from_secs_f64(p.ip_len() as f64 / r),
            };
            // `max_wait = "mean_tfp"` (ours): spreading over a TFP never
            // holds a packet longer than a TFP lasts (the mean so far).
            let due = match self.cfg.max_wait {
                MaxWait::None => due,
                MaxWait::MeanTfp => due.min(at + self.mean_tfp()),
            };
            if due <= now {
                self.pacer.remove(k);
                self.last_dequeue[slot] = now;
                let waited = now - at;
                self.pacing_waited_total += waited;
                if waited > Dur::ZERO {
                    self.stats.paced_waited += 1;
                }
                let waited = waited.as_secs_f64();
                self.stats.max_pacing_delay_s = self.stats.max_pacing_delay_s.max(waited);
                self.actions.push_back(Action::Release {
                    packet: p,
                    via: Via::Wire,
                });
                continue;
            }
            self.next_release = Some(self.next_release.map_or(due, |t| t.min(due)));
            if !per_node {
                break;
            }
            k += 1;
        }
    }

    /// Algorithm 2: hosts out of their TFP get their buffered packets, as
    /// many as the MAC window allows; `hold` clears when the buffer has
    /// room again.
    fn release(&mut self) {
        for h in 0..self.buffer.len() {
            if self.frozen(h) {
                continue;
            }
            while self.in_mac.len() < self.cfg.tx_window {
                let Some(p) = self.buffer[h].pop_front() else {
                    break;
                };
                self.buffered_bytes -= p.ip_len() as u64;
                self.in_mac.insert(p.meta.uid);
                self.stats.released += 1;
                self.actions.push_back(Action::Release {
                    packet: p,
                    via: Via::Air,
                });
            }
        }
        if self.hold && self.free() >= self.cfg.b_high {
            self.hold = false;
        }
    }

    /// Host `h` enters or leaves a TFP (any cause): its TFP history.
    fn note(&mut self, now: Time, was: Vec<bool>) {
        for (h, w) in was.into_iter().enumerate() {
            let f = self.frozen(h);
            match (w, f) {
                (false, true) => self.frozen_since[h] = Some(now),
                (true, false) => {
                    if let Some(s) = self.frozen_since[h].take() {
                        self.tfps[h].push_back((s, now));
                        self.tfp_seen.0 += 1;
                        self.tfp_seen.1 += now - s;
                    }
                }
                _ => {}
            }
        }
    }

    /// A TFP of `cause` begins (`start`) or ends, for host `node` or (none)
    /// the whole cell; hosts out of every TFP get their buffered packets.
    fn tfp(&mut self, now: Time, start: bool, cause: TfpCause, node: Option<u32>) {
        let was: Vec<bool> = (0..self.node.len()).map(|h| self.frozen(h)).collect();
        match node {
            Some(h) => {
                if let Some(n) = self.node.get_mut(h as usize) {
                    *n = start;
                }
            }
            None if start => {
                self.cell.insert(cause);
            }
            None => {
                self.cell.remove(&cause);
            }
        }
        self.note(now, was.clone());
        // Line 11: a host whose TFP begins gets its packets back from the
        // transmit queue.
        for (h, w) in was.into_iter().enumerate() {
            if !w && self.frozen(h) {
                self.actions.push_back(Action::Withdraw { host: h as u32 });
            }
        }
        self.release();
    }

    /// Packets the AP's MAC gave back (line 11): to the head of their
    /// host's buffer, in order.
    fn withdrawn(&mut self, host: u32, packets: &[Packet]) {
        // Withdrawals are asked for the hosts of `node`, which `buffer`
        // matches one for one.
        let buffer = &mut self.buffer[host as usize];
        for p in packets.iter().rev() {
            self.in_mac.remove(&p.meta.uid);
            buffer.push_front(*p);
            self.buffered_bytes += p.ip_len() as u64;
            self.stats.withdrawn += 1;
        }
        self.stats.max_buffered_bytes = self.stats.max_buffered_bytes.max(self.buffered_bytes);
        self.release();
    }

    /// Algorithm 5: a channel switch to `bps`.
    fn capacity(&mut self, now: Time, bps: u64) {
        let limit = self.cfg.efficiency * bps as f64;
        for h in 0..self.down_rate.len() {
            trim_rate(&mut self.down_rate[h], now, self.cfg.window);
            let bytes: u64 = self.down_rate[h].iter().map(|&(_, b)| b).sum();
            let rate = 8.0 * bytes as f64 / self.cfg.window.as_secs_f64();
            if rate <= limit {
                continue;
            }
            for f in (0..self.conns.len()).filter(|&f| self.host_of[f] as usize == h) {
                let Some(mut ack) = self.conns[f].last_ack else {
                    continue;
                };
                ack.meta.forged = true;
                for _ in 0..3 {
                    self.actions.push_back(Action::Emit {
                        packet: ack,
                        via: Via::Wire,
                    });
                    self.stats.capacity_dupacks += 1;
                }
            }
        }
    }
}

/// Appends an arrival and forgets those older than `window`.
fn push_rate(q: &mut VecDeque<(Time, u64)>, now: Time, bytes: u64, window: Dur) {
    q.push_back((now, bytes));
    trim_rate(q, now, window);
}

fn trim_rate(q: &mut VecDeque<(Time, u64)>, now: Time, window: Dur) {
    while q
        .front()
        .is_some_and(|&(t, _)| now.saturating_since(t) > window)
    {
        q.pop_front();
    }
}

impl Agent for DsaSync {
    fn on_packet(&mut self, now: Time, tap: Tap, packet: &mut Packet) -> Verdict {
        let Some((h, f)) = self.place(packet) else {
            return Verdict::Pass;
        };
        match tap {
            Tap::BsDown => self.downlink(now, packet, h, f),
            Tap::BsUp => self.uplink(now, packet, h, f),
            _ => Verdict::Pass,
        }
    }

    fn on_signal(&mut self, now: Time, s: &NodeSignal) -> bool {
        match s.signal {
            Signal::TfpStart { cause, node } => self.tfp(now, true, cause, node),
            Signal::TfpEnd { cause, node } => self.tfp(now, false, cause, node),
            // The 802.15.4 hop's PU detector at the BS (paper 000's
            // scenario): a heard primary user freezes the whole cell.
            Signal::PuStart => self.tfp(now, true, TfpCause::PuOn, None),
            Signal::PuStop => self.tfp(now, false, TfpCause::PuOn, None),
            Signal::Capacity { bps } => self.capacity(now, bps),
            Signal::Delivered { .. } | Signal::Undelivered { .. } => {
                // One of the packets this agent let into the MAC left it.
                if !s.packet.is_some_and(|p| self.in_mac.remove(&p.meta.uid)) {
                    return false;
                }
                self.release();
            }
            _ => return false,
        }
        true
    }

    fn on_withdrawn(&mut self, _now: Time, host: u32, packets: &[Packet]) {
        self.withdrawn(host, packets);
    }

    fn on_timeout(&mut self, now: Time) {
        if self.next_release.is_some_and(|t| t <= now) {
            self.pace(now);
        }
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_release
    }

    fn held(&self) -> u64 {
        let buffered: usize = self.buffer.iter().map(VecDeque::len).sum();
        (buffered + self.pacer.len()) as u64
    }

    fn stats(&self) -> Option<AgentStats> {
        Some(AgentStats::DsaSync(self.stats_now()))
    }
}

#[cfg(test)]
mod tests;
