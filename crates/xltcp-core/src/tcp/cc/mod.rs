//! Congestion control behind an enum-dispatched interface.
//!
//! The controller owns only its private state; `cwnd` and `ssthresh` live in
//! [`Window`], which the endpoint owns, so that loss recovery and
//! cross-layer hooks can read and set them too.
//!
//! The hooks are those of Linux's `tcp_congestion_ops`, called by the
//! endpoint at the same points:
//!
//! | hook | Linux | when |
//! |---|---|---|
//! | [`CongestionControl::on_sample`] | `pkts_acked` | every ACK, with what it acknowledged and its RTT sample |
//! | [`CongestionControl::on_dupack`] | `in_ack_event` (slow path) | a duplicate ACK |
//! | [`CongestionControl::on_ack`] | `cong_avoid` | an ACK of new data outside loss recovery |
//! | [`CongestionControl::ssthresh_on_loss`] | `ssthresh` | fast retransmit (recovery entry), a repaired tail loss |
//! | [`CongestionControl::on_recovery_exit`] | `set_state(Open)` | fast recovery ends |
//! | [`CongestionControl::on_rto`] | `set_state(Loss)` | the retransmission timer expires |
//! | [`CongestionControl::pacing_rate`] | `sk_pacing_rate` | before each new segment |
//! | [`CongestionControl::on_rate_sample`] | `cong_control` | every ACK, with its delivery-rate sample, after loss recovery's own changes (only the controllers that [`want rate samples`](CongestionControl::wants_rate_samples)) |
//!
//! The dispatch is a `match` over the algorithms (no virtual call per ACK),
//! and no hook allocates.

pub(crate) mod bbr;
pub(crate) mod cubic;
pub(crate) mod cubic_linux;
pub(crate) mod cubic_ns3;
mod hystart_classic;
mod newreno;
pub(crate) mod vegas;
pub(crate) mod westwood;

pub use bbr::{Bbr, BbrMode, RateInput};
pub use cubic::Cubic;
pub use newreno::NewReno;
pub use vegas::Vegas;
pub use westwood::Westwood;

use super::config::{CcAlgorithm, Config, CubicVariant, Profile};
use super::rate::RateState;
use super::{CongestionState, Timer};
use crate::time::{Dur, Time};
use crate::wire::SeqNum;

/// The congestion window and the slow start threshold, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window (cwnd).
    pub cwnd: u64,
    /// Slow start threshold (ssthresh).
    pub ssthresh: u64,
}

/// What one ACK tells the controller (Linux's `ack_sample`).
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    /// When the ACK arrived.
    pub now: Time,
    /// Data bytes it newly acknowledged cumulatively.
    pub acked: u64,
    /// The RTT sample it gave, if any (Karn's rule applied).
    pub rtt: Option<Dur>,
    /// The smoothed RTT after it, once there is one.
    pub srtt: Option<Dur>,
    /// SND.UNA after it.
    pub una: SeqNum,
    /// SND.NXT when it arrived (the end of the data sent so far).
    pub nxt: SeqNum,
    /// Bytes outstanding after it (SND.MAX - SND.UNA).
    pub in_flight: u64,
    /// In a NewReno fast recovery, whose cwnd the dupACKs inflate (ns-3's
    /// cwnd there is ssthresh).
    pub fast_recovery: bool,
}

/// Congestion controllers.
#[derive(Clone, Debug)]
pub enum CongestionControl {
    /// RFC 5681 slow start and congestion avoidance.
    NewReno(NewReno),
    /// CUBIC (RFC 9438), optionally with HyStart++ (RFC 9406).
    Cubic(Cubic),
    /// Westwood+ (bandwidth estimation sets ssthresh after a loss).
    Westwood(Westwood),
    /// Vegas (delay-based congestion avoidance).
    Vegas(Vegas),
    /// BBR v1 (model-based: paces at the measured bottleneck rate).
    Bbr(Box<Bbr>),
}

impl CongestionControl {
    /// The standard controller (RFC 5681: one SMSS per ACK in slow start).
    pub fn new_reno() -> CongestionControl {
        CongestionControl::new_reno_abc(1)
    }

    /// The standard controller growing by at most `abc_limit` SMSS per ACK
    /// in slow start (RFC 3465's L), or by all it acknowledges with 0.
    pub fn new_reno_abc(abc_limit: u32) -> CongestionControl {
        CongestionControl::NewReno(NewReno::new(abc_limit))
    }

    /// The controller `config` names (`Config::cc`).
    pub fn from_config(config: &Config) -> CongestionControl {
        match config.cc {
            CcAlgorithm::NewReno => CongestionControl::new_reno_abc(config.abc_limit),
            CcAlgorithm::Cubic => {
                let ns3 = config.profile == Profile::Ns3;
                let linux = config.cubic_variant == CubicVariant::Linux;
                let cubic = Cubic::new(config.abc_limit, config.hystart)
                    .with_ns3(ns3)
                    .with_linux(linux);
                CongestionControl::Cubic(cubic)
            }
            CcAlgorithm::Westwood => CongestionControl::Westwood(Westwood::new(config.abc_limit)),
            CcAlgorithm::Vegas => CongestionControl::Vegas(Vegas::new(config.abc_limit)),
            CcAlgorithm::Bbr => {
                CongestionControl::Bbr(Box::new(Bbr::new(crate::rng::stream(0, "tcp.bbr"))))
            }
        }
    }

    /// Gives the controller the stream of its random choices (BBR's
    /// PROBE_BW start phase); the others draw nothing.
    pub fn set_rng(&mut self, rng: crate::rng::Rng) {
        if let CongestionControl::Bbr(b) = self {
            b.set_rng(rng);
        }
    }

    /// BBR's state, when it is the controller.
    pub fn bbr(&self) -> Option<&Bbr> {
        match self {
            CongestionControl::Bbr(b) => Some(b),
            _ => None,
        }
    }

    /// Whether the controller takes a delivery-rate sample on every ACK
    /// ([`on_rate_sample`](Self::on_rate_sample)) and sets cwnd itself, as
    /// Linux's `cong_control` does: the endpoint then stamps each segment
    /// (`rate.rs`) and skips the RFC 5681 restart after idle. One
    /// comparison: the other controllers pay nothing more.
    #[inline]
    pub fn wants_rate_samples(&self) -> bool {
        matches!(self, CongestionControl::Bbr(_))
    }

    /// Whether the controller needs an RTT sample on every ACK (Vegas, and
    /// CUBIC's HyStart++), as Linux hands each ACK's sample to
    /// `pkts_acked` whatever the RTO estimator takes: with timed RTT
    /// sampling the endpoint then keeps its transmission log and gives
    /// the controller the log's sample, the estimator still one a round.
    #[inline]
    pub fn wants_ack_rtt(&self) -> bool {
        match self {
            CongestionControl::Vegas(_) => true,
            CongestionControl::Cubic(c) => c.has_hystart(),
            _ => false,
        }
    }

    /// Every ACK, after loss recovery has done its part (Linux's
    /// `cong_control`), for the controllers that
    /// [`want rate samples`](Self::wants_rate_samples); `c` is the
    /// connection's delivery state (BBR's PROBE_RTT marks it
    /// application-limited).
    pub fn on_rate_sample(&mut self, w: &mut Window, inp: &RateInput, c: &mut RateState) {
        if let CongestionControl::Bbr(b) = self {
            b.on_rate_sample(w, inp, c);
        }
    }

    /// Before a segment is paced: BBR's initial pacing rate from the
    /// handshake's RTT (Linux's `bbr_init_pacing_rate_from_rtt`).
    #[inline]
    pub fn before_send(&mut self, now: Time, w: &Window, srtt: Option<Dur>, smss: u64) {
        if let CongestionControl::Bbr(b) = self {
            b.init(now, w, srtt, smss);
        }
    }

    /// Any ACK that acknowledged data or gave an RTT sample, in or out of
    /// loss recovery (Linux's `pkts_acked`): controllers that measure the
    /// path (delay, bandwidth) take their samples here.
    #[inline]
    pub fn on_sample(&mut self, w: &mut Window, ack: &AckInfo, smss: u64) {
        match self {
            CongestionControl::NewReno(_) => {}
            CongestionControl::Cubic(s) => s.on_sample(w, ack, smss),
            CongestionControl::Westwood(s) => s.on_sample(ack, smss),
            CongestionControl::Vegas(s) => s.on_sample(ack),
            CongestionControl::Bbr(_) => {}
        }
    }

    /// A duplicate ACK (RFC 5681 §2, or RFC 6675 §2 with SACK), in or out
    /// of recovery: Westwood+ counts it as one SMSS delivered.
    #[inline]
    pub fn on_dupack(&mut self, w: &mut Window, ack: &AckInfo, smss: u64) {
        debug_assert!(self.wants_dupacks());
        match self {
            CongestionControl::Westwood(s) => s.on_dupack(ack.now, ack.srtt, smss),
            CongestionControl::Cubic(s) => s.on_dupack(w, ack, smss),
            _ => {}
        }
    }

    /// An ACK newly acknowledged `ack.acked` bytes outside loss recovery
    /// (Linux's `cong_avoid`): grow cwnd.
    #[inline]
    pub fn on_ack(&mut self, w: &mut Window, ack: &AckInfo, smss: u64, profile: Profile) {
        match self {
            CongestionControl::NewReno(s) => s.on_ack(w, ack.acked, smss, profile),
            CongestionControl::Cubic(s) => s.on_ack(w, ack, smss, profile),
            CongestionControl::Westwood(s) => s.on_ack(w, ack.acked, smss, profile),
            CongestionControl::Vegas(s) => s.on_ack(w, ack, smss, profile),
            CongestionControl::Bbr(_) => {}
        }
    }

    /// A loss was detected by duplicate ACKs, SACK or RACK (recovery
    /// entry), or a tail loss probe repaired one: returns the new ssthresh.
    /// `flight` is the FlightSize without Limited Transmit segments (or
    /// cwnd, with `ssthresh_from = cwnd`); `w` is the window before the
    /// reduction.
    pub fn ssthresh_on_loss(
        &mut self,
        w: &Window,
        flight: u64,
        smss: u64,
        profile: Profile,
        _now: Time,
    ) -> u64 {
        match self {
            CongestionControl::NewReno(s) => s.ssthresh_on_loss(flight, smss, profile),
            CongestionControl::Cubic(s) => s.ssthresh_on_loss(w, flight, smss),
            CongestionControl::Westwood(s) => s.ssthresh_on_loss(smss),
            CongestionControl::Vegas(s) => s.ssthresh_on_loss(flight, smss, profile),
            CongestionControl::Bbr(s) => s.ssthresh_on_loss(w),
        }
    }

    /// Fast recovery ended (cwnd already set by the recovery's rule).
    pub fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {
        if let CongestionControl::Vegas(s) = self {
            s.on_recovery_exit();
        }
    }

    /// Whether [`on_dupack`](Self::on_dupack) does anything (so that the
    /// others' duplicate ACKs cost nothing).
    #[inline]
    pub fn wants_dupacks(&self) -> bool {
        match self {
            CongestionControl::Westwood(_) => true,
            CongestionControl::Cubic(c) => c.follows_ns3(),
            _ => false,
        }
    }

    /// The retransmission timer expired. `first` is false for a repeated
    /// timeout of the same segment, which leaves ssthresh unchanged.
    /// `snd_max` is the highest sequence sent (where ns-3's HyStart round
    /// ends after it).
    pub fn on_rto(
        &mut self,
        w: &mut Window,
        flight: u64,
        smss: u64,
        first: bool,
        now: Time,
        snd_max: SeqNum,
    ) {
        match self {
            CongestionControl::NewReno(s) => s.on_rto(w, flight, smss, first),
            CongestionControl::Cubic(s) => {
                s.on_rto(w, flight, smss, first);
                s.after_rto(now, snd_max);
            }
            CongestionControl::Westwood(s) => s.on_rto(w, smss, first),
            CongestionControl::Vegas(s) => s.on_rto(w, flight, smss, first),
            CongestionControl::Bbr(s) => s.on_rto(w, smss, first),
        }
    }

    /// The rate to pace new segments at, in bytes per second, for the
    /// algorithms that ask for pacing; `None`: send as the window allows.
    #[inline]
    pub fn pacing_rate(&self) -> Option<u64> {
        match self {
            CongestionControl::NewReno(_)
            | CongestionControl::Cubic(_)
            | CongestionControl::Westwood(_)
            | CongestionControl::Vegas(_) => None,
            CongestionControl::Bbr(b) => b.pacing_rate(),
        }
    }
}

impl super::Endpoint {
    /// What the ACK being processed tells the controller.
    #[inline]
    pub(crate) fn ack_info(&self, now: Time, acked: u64) -> AckInfo {
        AckInfo {
            now,
            acked,
            rtt: self.ack_rtt,
            srtt: self.rtt.srtt(),
            una: self.snd_una,
            nxt: self.snd_nxt,
            in_flight: self.snd_max.since(self.snd_una).max(0) as u64,
            fast_recovery: self.cstate == CongestionState::Recovery
                && self.recovery == super::Recovery::NewReno,
        }
    }

    /// Hands the ACK just processed to a controller that
    /// [`wants rate samples`](CongestionControl::wants_rate_samples)
    /// (Linux's `tcp_cong_control` with `cong_control`).
    pub(crate) fn cc_control(&mut self, now: Time) {
        let smss = u64::from(self.smss);
        let outstanding = self.snd_max.since(self.snd_una).max(0) as u64;
        // Linux's `tcp_packets_in_flight`: RFC 6675 pipe in SACK recovery,
        // else the outstanding bytes not SACKed (without SACK, less one
        // SMSS per duplicate ACK).
        let in_flight = if self.cstate == CongestionState::Recovery && self.sack_ok {
            self.recovery_pipe()
        } else if self.sack_ok {
            outstanding.saturating_sub(self.scoreboard.sacked_bytes())
        } else {
            outstanding.saturating_sub(self.dup_delivered)
        };
        let mut rs = self.rate_sample;
        if !self.sack_ok && self.cstate == CongestionState::Loss {
            // Going back N without SACK, a cumulative ACK also covers data
            // the receiver held since before the timeout: its rate would
            // count long-delivered data as delivered now.
            rs.interval = Dur::ZERO;
        }
        let inp = RateInput {
            now,
            rs,
            delivered: self.rate.delivered,
            in_flight,
            prior_in_flight: in_flight + rs.newly_delivered,
            cstate: self.cstate,
            smss,
        };
        self.cc.on_rate_sample(&mut self.win, &inp, &mut self.rate);
    }

    /// Pacing (Linux's internal pacing, one segment per quantum): whether
    /// the next segment must wait for the pacing timer, which this arms.
    #[inline]
    pub(crate) fn pacing_holds(&mut self, now: Time) -> bool {
        let smss = u64::from(self.smss);
        self.cc.before_send(now, &self.win, self.rtt.srtt(), smss);
        if self.cc.pacing_rate().is_none() || now >= self.pacing_next {
            return false;
        }
        self.timers.set(Timer::Pacing, self.pacing_next);
        true
    }

    /// A paced segment of `len` bytes left at `now`: the next may leave
    /// `len / rate` later (Linux's `tcp_update_skb_after_send`).
    #[inline]
    pub(crate) fn paced(&mut self, now: Time, len: u32) {
        if let Some(rate) = self.cc.pacing_rate() {
            let ns = u128::from(len) * 1_000_000_000 / u128::from(rate.max(1));
            self.pacing_next = now + Dur(ns as u64);
            self.timers.stop(Timer::Pacing);
        }
    }
}
