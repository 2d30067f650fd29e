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
//! | [`CongestionControl::on_ack`] | `cong_avoid` | an ACK of new data outside loss recovery |
//! | [`CongestionControl::ssthresh_on_loss`] | `ssthresh` | fast retransmit (recovery entry), a repaired tail loss |
//! | [`CongestionControl::on_recovery_exit`] | `set_state(Open)` | fast recovery ends |
//! | [`CongestionControl::on_rto`] | `set_state(Loss)` | the retransmission timer expires |
//! | [`CongestionControl::pacing_rate`] | `sk_pacing_rate` | before each new segment |
//!
//! The dispatch is a `match` over the algorithms (no virtual call per ACK),
//! and no hook allocates.

pub(crate) mod cubic;
mod newreno;
pub(crate) mod vegas;
pub(crate) mod westwood;

pub use cubic::Cubic;
pub use newreno::NewReno;
pub use vegas::Vegas;
pub use westwood::Westwood;

use super::config::{CcAlgorithm, Config, Profile};
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
                CongestionControl::Cubic(Cubic::new(config.abc_limit, config.hystart))
            }
            CcAlgorithm::Westwood => CongestionControl::Westwood(Westwood::new(config.abc_limit)),
            CcAlgorithm::Vegas => CongestionControl::Vegas(Vegas::new(config.abc_limit)),
        }
    }

    /// Any ACK that acknowledged data or gave an RTT sample, in or out of
    /// loss recovery (Linux's `pkts_acked`): controllers that measure the
    /// path (delay, bandwidth) take their samples here.
    #[inline]
    pub fn on_sample(&mut self, w: &mut Window, ack: &AckInfo, _smss: u64) {
        match self {
            CongestionControl::NewReno(_) => {}
            CongestionControl::Cubic(s) => s.on_sample(w, ack),
            CongestionControl::Westwood(s) => s.on_sample(ack),
            CongestionControl::Vegas(s) => s.on_sample(ack),
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
        }
    }

    /// Fast recovery ended (cwnd already set by the recovery's rule).
    pub fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {
        if let CongestionControl::Vegas(s) = self {
            s.on_recovery_exit();
        }
    }

    /// The retransmission timer expired. `first` is false for a repeated
    /// timeout of the same segment, which leaves ssthresh unchanged.
    pub fn on_rto(&mut self, w: &mut Window, flight: u64, smss: u64, first: bool, _now: Time) {
        match self {
            CongestionControl::NewReno(s) => s.on_rto(w, flight, smss, first),
            CongestionControl::Cubic(s) => s.on_rto(w, flight, smss, first),
            CongestionControl::Westwood(s) => s.on_rto(w, smss, first),
            CongestionControl::Vegas(s) => s.on_rto(w, flight, smss, first),
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
        }
    }
}
