//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! congestion-based congestion control", ACM Queue 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00), as Linux's `tcp_bbr.c`
//! (v1) runs it.
//!
//! BBR models the path by two numbers: the bottleneck bandwidth BtlBw, the
//! largest delivery rate ([`crate::tcp::rate`]) seen over the last 10 round
//! trips, and RTprop, the least RTT seen over the last 10 s. It paces at
//! `pacing_gain · BtlBw` and keeps at most `cwnd_gain · BDP` in flight,
//! BDP = BtlBw · RTprop, through four modes ([`BbrMode`]):
//!
//! - STARTUP: both gains 2/ln 2 = 2.885, until the bandwidth has not grown
//!   by 25 % in three rounds (the pipe is full, `bbr_check_full_bw_reached`);
//! - DRAIN: pacing gain ln 2/2 until the bytes in flight fall to one BDP
//!   (`bbr_check_drain`);
//! - PROBE_BW: cwnd gain 2, pacing gain cycling through
//!   [1.25, 0.75, 1, 1, 1, 1, 1, 1], a phase lasting one RTprop (the 1.25
//!   phase until a BDP·1.25 is in flight, the 0.75 one at most until the
//!   flight falls to one BDP); the cycle starts at a random phase other
//!   than 0.75 (`bbr_reset_probe_bw_mode`), drawn from the flow's own
//!   stream;
//! - PROBE_RTT: when RTprop has not been renewed for 10 s, cwnd = 4
//!   segments for max(200 ms, one round), then back to PROBE_BW (or
//!   STARTUP if the pipe was never full) with cwnd restored
//!   (`bbr_update_min_rtt`).
//!
//! cwnd = cwnd_gain·BDP + 3 pacing quanta of 2 segments, rounded up to an
//! even number of segments, plus 2 segments in the 1.25 phase
//! (`bbr_quantization_budget`); it grows towards that target by the bytes
//! each ACK delivers, never below 4 segments. In fast recovery the first
//! round conserves packets (cwnd = in flight + delivered), later rounds
//! follow the model again; leaving recovery (or a timeout's Loss state)
//! restores the cwnd before it (`bbr_set_cwnd_to_recover_or_restore`). A
//! timeout sets cwnd to one segment, from which it grows by what each ACK
//! delivers. Loss does not otherwise change the model: BBR v1 ignores loss.
//!
//! Left out: long-term bandwidth sampling (`lt_bw`, the policer
//! detection); the cwnd reduction by the segments an ACK marks lost
//! (`rs->losses`); the idle restart (`CA_EVENT_TX_START`) that paces at
//! BtlBw after an application-limited idle period; Linux's 1 % pacing
//! margin (kernels from 4.20). The bandwidth filter is an exact maximum
//! over the per-round maxima of the last 10 rounds (Linux's Kathleen
//! Nichols filter approximates it with three samples). Units are bytes and
//! bytes per second where Linux counts segments.

use super::Window;
use crate::rng::Rng;
use crate::tcp::rate::{RateSample, RateState};
use crate::tcp::CongestionState;
use crate::time::{Dur, Time};
use rand::RngExt;

/// Gains are in thousandths: 1000 is 1.
pub const GAIN_UNIT: u64 = 1000;
/// STARTUP's pacing and cwnd gain, 2/ln 2 (`bbr_high_gain`).
pub const HIGH_GAIN: u64 = 2885;
/// DRAIN's pacing gain, ln 2/2 (`bbr_drain_gain`, the inverse of HIGH_GAIN).
pub const DRAIN_GAIN: u64 = 347;
/// PROBE_BW's cwnd gain (`bbr_cwnd_gain`).
pub const CWND_GAIN: u64 = 2000;
/// PROBE_BW's pacing gains (`bbr_pacing_gain`), one phase each.
pub const CYCLE: [u64; 8] = [1250, 750, 1000, 1000, 1000, 1000, 1000, 1000];
/// Rounds of the BtlBw max filter (`bbr_bw_rtts`).
pub const BW_ROUNDS: usize = 10;
/// RTprop's window (`bbr_min_rtt_win_sec`).
pub const MIN_RTT_WINDOW: Dur = Dur::from_secs(10);
/// Time at least spent at the minimum cwnd in PROBE_RTT (`bbr_probe_rtt_mode_ms`).
pub const PROBE_RTT_TIME: Dur = Dur::from_millis(200);
/// The least cwnd, and PROBE_RTT's, in segments (`bbr_cwnd_min_target`).
pub const MIN_CWND_SEGMENTS: u64 = 4;
/// Rounds without 25 % growth that mean the pipe is full (`bbr_full_bw_cnt`).
pub const FULL_BW_ROUNDS: u32 = 3;
/// The pacing quantum cwnd allows for, in segments (Linux's TSO goal of
/// two segments at rates above 1.2 Mbit/s; `bbr_tso_segs_goal`).
pub const QUANTUM_SEGMENTS: u64 = 2;
/// Linux's initial window (`TCP_INIT_CWND`), the BDP while RTprop is unknown.
const INIT_CWND_SEGMENTS: u64 = 10;

/// BBR's mode, with what each one keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    /// Exponential search for the bottleneck bandwidth.
    Startup,
    /// Draining the queue STARTUP built.
    Drain,
    /// Steady state, cycling the pacing gain.
    ProbeBw {
        /// Index into the gain cycle, `CYCLE`.
        phase: usize,
        /// When the phase began.
        since: Time,
    },
    /// Flight cut to 4 segments (`MIN_CWND_SEGMENTS`) to measure RTprop.
    ProbeRtt {
        /// When it may end, once the flight fell to the minimum.
        done_at: Option<Time>,
        /// A round passed since the flight fell to the minimum.
        round_done: bool,
    },
}

/// What one ACK tells BBR (Linux's `cong_control` arguments and what it
/// reads from the socket).
#[derive(Clone, Copy, Debug)]
pub struct RateInput {
    /// When the ACK arrived.
    pub now: Time,
    /// Its delivery-rate sample.
    pub rs: RateSample,
    /// Bytes delivered over the connection after it (`tp->delivered`).
    pub delivered: u64,
    /// Bytes in flight after it (`tcp_packets_in_flight`).
    pub in_flight: u64,
    /// Bytes in flight before it (`rs->prior_in_flight`).
    pub prior_in_flight: u64,
    /// The sender's congestion state after it (`icsk_ca_state`).
    pub cstate: CongestionState,
    /// The sender's SMSS.
    pub smss: u64,
}

/// An exact windowed maximum over the per-round maxima of the last
/// [`BW_ROUNDS`] rounds.
#[derive(Clone, Debug, Default)]
struct BwFilter {
    rounds: [u64; BW_ROUNDS],
    last: u64,
}

impl BwFilter {
    fn update(&mut self, round: u64, bw: u64) {
        if round > self.last {
            let fresh = (round - self.last).min(BW_ROUNDS as u64);
            for k in 0..fresh {
                self.rounds[((round - k) % BW_ROUNDS as u64) as usize] = 0;
            }
            self.last = round;
        }
        let slot = &mut self.rounds[(round % BW_ROUNDS as u64) as usize];
        *slot = (*slot).max(bw);
    }

    fn get(&self) -> u64 {
        self.rounds.iter().copied().max().unwrap_or(0)
    }
}

fn recovering(s: CongestionState) -> bool {
    matches!(s, CongestionState::Recovery | CongestionState::Loss)
}

/// State of the BBR v1 controller.
#[derive(Clone, Debug)]
pub struct Bbr {
    mode: BbrMode,
    /// The stream the PROBE_BW start phase is drawn from.
    rng: Rng,
    bw: BwFilter,
    /// RTprop and when it was last renewed; `None` before any RTT.
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    /// Round counting (`rtt_cnt`, `next_rtt_delivered`, `round_start`).
    rounds: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// Full-pipe detection (`full_bw`, `full_bw_cnt`, `full_bw_reached`).
    full_bw: u64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    /// cwnd before recovery or PROBE_RTT (`prior_cwnd`).
    prior_cwnd: u64,
    prev_cstate: CongestionState,
    packet_conservation: bool,
    /// Bytes per second; zero before the connection's first send.
    pacing_rate: u64,
    smss: u64,
    /// The cwnd BBR last set (0 before): NewReno recovery's inflation by
    /// duplicate ACKs (RFC 6582) is not BBR's, which counts them as
    /// delivered instead.
    cwnd: u64,
}

impl Bbr {
    /// A controller in STARTUP that draws its PROBE_BW start phase from `rng`.
    pub fn new(rng: Rng) -> Bbr {
        Bbr {
            mode: BbrMode::Startup,
            rng,
            bw: BwFilter::default(),
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            full_bw: 0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            prior_cwnd: 0,
            prev_cstate: CongestionState::Open,
            packet_conservation: false,
            pacing_rate: 0,
            smss: 1,
            cwnd: 0,
        }
    }

    /// Replaces the stream of the PROBE_BW start phase.
    pub fn set_rng(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// The current mode.
    pub fn mode(&self) -> BbrMode {
        self.mode
    }

    /// BtlBw, bytes per second (0 before the first sample).
    pub fn btl_bw(&self) -> u64 {
        self.bw.get()
    }

    /// RTprop, once known.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// Whether the pipe was found full (STARTUP's exit condition).
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// The pacing gain of the mode, in thousandths (`bbr_update_gains`).
    pub fn pacing_gain(&self) -> u64 {
        match self.mode {
            BbrMode::Startup => HIGH_GAIN,
            BbrMode::Drain => DRAIN_GAIN,
            BbrMode::ProbeBw { phase, .. } => CYCLE[phase],
            BbrMode::ProbeRtt { .. } => GAIN_UNIT,
        }
    }

    /// The cwnd gain of the mode, in thousandths (`bbr_update_gains`).
    pub fn cwnd_gain(&self) -> u64 {
        match self.mode {
            BbrMode::Startup | BbrMode::Drain => HIGH_GAIN,
            BbrMode::ProbeBw { .. } => CWND_GAIN,
            BbrMode::ProbeRtt { .. } => GAIN_UNIT,
        }
    }

    /// The pacing rate, bytes per second, once set.
    pub fn pacing_rate(&self) -> Option<u64> {
        (self.pacing_rate > 0).then_some(self.pacing_rate)
    }

    /// `gain`·BDP in bytes, rounded up (`bbr_bdp`); the initial window
    /// while RTprop is unknown.
    pub fn bdp(&self, bw: u64, gain: u64) -> u64 {
        let Some(rtt) = self.min_rtt else {
            return INIT_CWND_SEGMENTS * self.smss;
        };
        let scaled = u128::from(bw) * u128::from(rtt.0) * u128::from(gain);
        scaled.div_ceil(1_000_000_000 * u128::from(GAIN_UNIT)) as u64
    }

    /// `gain`·BDP plus the quantization allowance (`bbr_quantization_budget`).
    pub fn target_cwnd(&self, bw: u64, gain: u64) -> u64 {
        let smss = self.smss;
        let bytes = self.bdp(bw, gain) + 3 * QUANTUM_SEGMENTS * smss;
        let mut segs = bytes.div_ceil(smss);
        segs += segs & 1;
        if matches!(self.mode, BbrMode::ProbeBw { phase: 0, .. }) {
            segs += 2;
        }
        segs * smss
    }

    /// The one transition function.
    fn set_mode(&mut self, mode: BbrMode) {
        self.mode = mode;
    }

    /// Linux `bbr_init` and `bbr_init_pacing_rate_from_rtt`, at the first
    /// send: RTprop from the handshake's RTT, pacing at 2.885 · cwnd/RTT.
    pub(crate) fn init(&mut self, now: Time, w: &Window, srtt: Option<Dur>, smss: u64) {
        if self.pacing_rate > 0 {
            return;
        }
        self.smss = smss;
        self.min_rtt = srtt;
        self.min_rtt_stamp = now;
        let rtt = srtt.unwrap_or(Dur::from_millis(1)).max(Dur(1));
        let bw = u128::from(w.cwnd) * 1_000_000_000 / u128::from(rtt.0);
        self.pacing_rate = ((bw * u128::from(HIGH_GAIN) / u128::from(GAIN_UNIT)) as u64).max(1);
    }

    /// Linux `bbr_ssthresh` (loss recovery begins): remembers cwnd and
    /// leaves ssthresh as it is; returns the ssthresh to use, cwnd (no
    /// reduction: BBR sets cwnd itself on every ACK).
    pub(crate) fn ssthresh_on_loss(&mut self, w: &Window) -> u64 {
        self.save_cwnd(w.cwnd);
        w.cwnd
    }

    /// Linux `tcp_enter_loss` and `bbr_set_state(TCP_CA_Loss)`: cwnd = 1
    /// segment; the full-pipe search restarts its count.
    pub(crate) fn on_rto(&mut self, w: &mut Window, smss: u64, first: bool) {
        if first {
            self.save_cwnd(w.cwnd);
        }
        w.cwnd = smss;
        self.prev_cstate = CongestionState::Loss;
        self.full_bw = 0;
        self.round_start = true;
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self, cwnd: u64) {
        let probing_rtt = matches!(self.mode, BbrMode::ProbeRtt { .. });
        if !recovering(self.prev_cstate) && !probing_rtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// Linux `bbr_main`: every ACK updates the model, then the pacing rate
    /// and cwnd.
    pub(crate) fn on_rate_sample(&mut self, w: &mut Window, inp: &RateInput, c: &mut RateState) {
        self.smss = inp.smss.max(1);
        if self.pacing_rate == 0 {
            self.init(inp.now, w, inp.rs.rtt, self.smss);
        }
        self.update_bw(inp);
        self.update_cycle_phase(inp);
        self.check_full_bw_reached(inp);
        self.check_drain(w, inp);
        self.update_min_rtt(w, inp, c);
        let bw = self.bw.get();
        self.set_pacing_rate(bw);
        self.set_cwnd(w, inp, bw);
    }

    /// Linux `bbr_update_bw`: round counting and the BtlBw filter.
    fn update_bw(&mut self, inp: &RateInput) {
        self.round_start = false;
        let rs = &inp.rs;
        if !rs.is_valid() {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = inp.delivered;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = rs.rate();
        // An application-limited sample counts only if it raises the estimate.
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(self.rounds, bw);
        }
    }

    /// Linux `bbr_is_next_cycle_phase` and `bbr_advance_cycle_phase`.
    fn update_cycle_phase(&mut self, inp: &RateInput) {
        let BbrMode::ProbeBw { phase, since } = self.mode else {
            return;
        };
        let full_length = self
            .min_rtt
            .is_some_and(|m| inp.now.saturating_since(since) > m);
        let gain = CYCLE[phase];
        let bw = self.bw.get();
        let next = if gain == GAIN_UNIT {
            full_length
        } else if gain > GAIN_UNIT {
            full_length && inp.prior_in_flight >= self.target_cwnd(bw, gain)
        } else {
            full_length || inp.prior_in_flight <= self.target_cwnd(bw, GAIN_UNIT)
        };
        if next {
            let phase = (phase + 1) % CYCLE.len();
            self.set_mode(BbrMode::ProbeBw {
                phase,
                since: inp.now,
            });
        }
    }

    /// Linux `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, inp: &RateInput) {
        if self.full_bw_reached || !self.round_start || inp.rs.is_app_limited {
            return;
        }
        let max_bw = self.bw.get();
        if max_bw >= self.full_bw * 5 / 4 {
            self.full_bw = max_bw;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_ROUNDS;
    }

    /// Linux `bbr_check_drain`.
    fn check_drain(&mut self, w: &mut Window, inp: &RateInput) {
        let bw = self.bw.get();
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.set_mode(BbrMode::Drain);
            w.ssthresh = self.target_cwnd(bw, GAIN_UNIT);
        }
        if self.mode == BbrMode::Drain && inp.in_flight <= self.target_cwnd(bw, GAIN_UNIT) {
            self.enter_probe_bw(inp.now);
        }
    }

    /// Linux `bbr_reset_probe_bw_mode`: a random phase, never the 0.75 one.
    fn enter_probe_bw(&mut self, now: Time) {
        let r = (self.rng.random::<u64>() % (CYCLE.len() as u64 - 1)) as usize;
        let phase = (CYCLE.len() - r) % CYCLE.len();
        self.set_mode(BbrMode::ProbeBw { phase, since: now });
    }

    /// Linux `bbr_update_min_rtt`: RTprop's filter and PROBE_RTT.
    fn update_min_rtt(&mut self, w: &mut Window, inp: &RateInput, c: &mut RateState) {
        let now = inp.now;
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(rtt) = inp.rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        let probing = matches!(self.mode, BbrMode::ProbeRtt { .. });
        if expired && !probing {
            self.save_cwnd(w.cwnd);
            self.set_mode(BbrMode::ProbeRtt {
                done_at: None,
                round_done: false,
            });
        }
        let BbrMode::ProbeRtt {
            done_at,
            round_done,
        } = self.mode
        else {
            return;
        };
        // Samples taken at the minimum cwnd say nothing of the bottleneck.
        c.mark_app_limited(inp.in_flight);
        match done_at {
            None if inp.in_flight <= MIN_CWND_SEGMENTS * self.smss => {
                self.next_round_delivered = inp.delivered;
                self.set_mode(BbrMode::ProbeRtt {
                    done_at: Some(now + PROBE_RTT_TIME),
                    round_done: false,
                });
            }
            None => {}
            Some(at) => {
                let round_done = round_done || self.round_start;
                self.set_mode(BbrMode::ProbeRtt {
                    done_at,
                    round_done,
                });
                if round_done && now > at {
                    self.min_rtt_stamp = now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    if self.full_bw_reached {
                        self.enter_probe_bw(now);
                    } else {
                        self.set_mode(BbrMode::Startup);
                    }
                }
            }
        }
    }

    /// Linux `bbr_set_pacing_rate`: gain·BtlBw, only upwards before the
    /// pipe is full.
    fn set_pacing_rate(&mut self, bw: u64) {
        if bw == 0 {
            return;
        }
        let rate = (u128::from(bw) * u128::from(self.pacing_gain()) / u128::from(GAIN_UNIT)) as u64;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate.max(1);
        }
    }

    /// Linux `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`.
    fn set_cwnd(&mut self, w: &mut Window, inp: &RateInput, bw: u64) {
        let smss = self.smss;
        let acked = inp.rs.newly_delivered;
        let mut cwnd = if inp.cstate == CongestionState::Recovery && self.cwnd > 0 {
            self.cwnd
        } else {
            w.cwnd
        };
        if acked > 0 {
            let (prev, state) = (self.prev_cstate, inp.cstate);
            if state == CongestionState::Recovery && prev != CongestionState::Recovery {
                // The first round of recovery conserves packets.
                self.packet_conservation = true;
                self.next_round_delivered = inp.delivered;
                cwnd = inp.in_flight + acked;
            } else if recovering(prev) && !recovering(state) {
                cwnd = cwnd.max(self.prior_cwnd);
                self.packet_conservation = false;
            }
            self.prev_cstate = state;
            if self.packet_conservation {
                cwnd = cwnd.max(inp.in_flight + acked);
            } else {
                let target = self.target_cwnd(bw, self.cwnd_gain());
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || inp.delivered < INIT_CWND_SEGMENTS * smss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND_SEGMENTS * smss);
            }
        }
        if matches!(self.mode, BbrMode::ProbeRtt { .. }) {
            cwnd = cwnd.min(MIN_CWND_SEGMENTS * smss);
        }
        w.cwnd = cwnd;
        self.cwnd = cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bw_filter_keeps_the_max_of_ten_rounds() {
        let mut f = BwFilter::default();
        f.update(1, 100);
        f.update(2, 50);
        assert_eq!(f.get(), 100);
        for r in 3..=10 {
            f.update(r, 60);
        }
        assert_eq!(f.get(), 100, "round 1 is still one of the last ten");
        f.update(11, 60);
        assert_eq!(f.get(), 60);
        f.update(40, 10);
        assert_eq!(f.get(), 10, "a long gap forgets everything");
    }

    #[test]
    fn probe_bw_never_starts_in_the_drain_phase() {
        let mut b = Bbr::new(crate::rng::stream(1, "test.bbr"));
        let mut seen = [false; 8];
        for _ in 0..200 {
            b.enter_probe_bw(Time::ZERO);
            let BbrMode::ProbeBw { phase, .. } = b.mode() else {
                panic!("not in PROBE_BW");
            };
            seen[phase] = true;
        }
        assert_eq!(seen, [true, false, true, true, true, true, true, true]);
    }
}
