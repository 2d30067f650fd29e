//! Per-station energy accounting: time and joules per radio state, and an
//! optional battery that runs out.
//!
//! Sans-IO like the rest: the engine calls [`EnergyMeter::set_state`] at
//! every state change (the DCF's transmissions give Tx, the medium's busy
//! periods Rx, the rest Idle, and a power-save policy Sleep); the meter
//! integrates power over time. [`EnergyMeter::poll_timeout`] tells when the
//! battery will be empty at the current draw, so the engine can switch the
//! station off then.
//!
//! Default powers: transmit 0.6 W and receive 0.3 W, as in the 802.11
//! energy study the project reproduces (paper 002). Idle 0.26 W and sleep
//! 0.015 W are this model's choice: Feeney & Nilsson ("Investigating the
//! energy consumption of a wireless network interface in an ad hoc
//! networking environment", INFOCOM 2001) measured a 2 Mb/s WaveLAN card at
//! about 1.33 W transmit, 0.97 W receive, 0.84 W idle and 0.05 W sleep
//! (figures recalled, not re-read here): idle ≈ 0.87 and sleep ≈ 0.05 of
//! the receive power. Scaled to the 0.3 W receive figure, that gives the
//! defaults. Idle listening costing almost as much as receiving is the
//! point those measurements make; a model with idle ≈ 0 would overstate
//! the benefit of short transfers.
//!
//! Three accountings ([`Accounting`]): by time (the default),
//! the state's power over the time in it, so overlapping frames (a
//! collision, a frame heard while sending) cost the radio once; or per
//! packet, as ns-2's `EnergyModel` behind paper 002's figures: every frame
//! a station sends costs it `tx_w` times the frame's airtime and every
//! frame it hears `rx_w` times that airtime, charged whole when the frame
//! starts ([`EnergyMeter::charge`]), overlaps or not; Idle and Sleep are
//! still drawn over time.
//!
//! ns-2 itself (2.35, `mac/wireless-phy.cc`, `WirelessPhy::sendDown` and
//! `sendUp`) charges each frame at its start too, but only from
//! `MAX(channel_idle_time_, NOW)`: the end of the last frame the radio was
//! charged for, sent or heard. A frame that overlaps an earlier one costs
//! only the part beyond it, at its own power (a transmission begun while
//! receiving costs `Pt` only after the reception's end). The third accounting
//! is that rule ([`Accounting::Ns2`], `[wireless.energy] model =
//! "ns2"`). ns-2's other defaults: `P_idle_ = 0.0`, `P_sleep_ = 0.00`
//! (charged only when a script sets `-idlePower`), and a node whose
//! energy reaches 0 neither sends nor receives (`on_empty = "off"`).

use crate::time::{Dur, Time};

/// What the radio is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RadioState {
    /// Transmitting.
    Tx,
    /// Receiving (the medium is busy with a frame this radio hears).
    Rx,
    /// Awake and listening to an idle medium.
    Idle,
    /// Dozing (power save).
    Sleep,
}

impl RadioState {
    /// All states, in a fixed order.
    pub const ALL: [RadioState; 4] = [
        RadioState::Tx,
        RadioState::Rx,
        RadioState::Idle,
        RadioState::Sleep,
    ];

    fn index(self) -> usize {
        match self {
            RadioState::Tx => 0,
            RadioState::Rx => 1,
            RadioState::Idle => 2,
            RadioState::Sleep => 3,
        }
    }
}

/// How a meter charges the frames it sends and hears.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Accounting {
    /// Each state's power over the time in it: overlapping frames once.
    #[default]
    Time,
    /// Each frame whole at its start ([`EnergyMeter::charge`]), overlaps
    /// or not; Idle and Sleep over time.
    PerPacket,
    /// Each frame at its start from the end of the last frame charged,
    /// sent or heard, to its own end: ns-2.35's `WirelessPhy::sendDown`
    /// and `sendUp` (`start_time = MAX(channel_idle_time_, NOW)`), so
    /// overlapping frames cost once, each part at the power of the frame
    /// that reached it first; Idle and Sleep over time.
    Ns2 {
        /// The end of the last frame charged (ns-2's `channel_idle_time_`).
        charged_until: Time,
    },
}

impl Accounting {
    /// ns-2's rule, nothing charged yet.
    pub const NS2: Accounting = Accounting::Ns2 {
        charged_until: Time::ZERO,
    };

    /// Whether Tx and Rx are charged per frame.
    pub fn per_frame(self) -> bool {
        self != Accounting::Time
    }
}

/// Power drawn in each state, in watts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerProfile {
    /// Transmitting (0.6 W).
    pub tx_w: f64,
    /// Receiving (0.3 W).
    pub rx_w: f64,
    /// Idle listening (0.26 W; see the module doc).
    pub idle_w: f64,
    /// Sleeping (0.015 W; see the module doc).
    pub sleep_w: f64,
}

impl Default for PowerProfile {
    fn default() -> PowerProfile {
        PowerProfile {
            tx_w: 0.6,
            rx_w: 0.3,
            idle_w: 0.26,
            sleep_w: 0.015,
        }
    }
}

impl PowerProfile {
    /// Power in `state`, in watts (negative and NaN read as 0).
    pub fn watts(&self, state: RadioState) -> f64 {
        let w = match state {
            RadioState::Tx => self.tx_w,
            RadioState::Rx => self.rx_w,
            RadioState::Idle => self.idle_w,
            RadioState::Sleep => self.sleep_w,
        };
        if w.is_nan() {
            0.0
        } else {
            w.max(0.0)
        }
    }
}

/// Time and energy per radio state of one station.
///
/// Inputs: [`set_state`](EnergyMeter::set_state) at each change and
/// [`handle_timeout`](EnergyMeter::handle_timeout); output:
/// [`poll_timeout`](EnergyMeter::poll_timeout), the instant the battery
/// empties at the current draw. Time only moves forward (an earlier `now`
/// counts as the last one). Once the battery is empty the meter stops
/// counting and [`depleted_at`](EnergyMeter::depleted_at) says when.
#[derive(Clone, Debug)]
pub struct EnergyMeter {
    profile: PowerProfile,
    battery_j: Option<f64>,
    state: RadioState,
    since: Time,
    time_in: [Dur; 4],
    /// Joules used in completed intervals.
    used_j: f64,
    depleted_at: Option<Time>,
    /// How Tx and Rx are charged.
    accounting: Accounting,
}

impl EnergyMeter {
    /// A meter starting in `Idle` at time zero; `battery_j` is the
    /// capacity in joules (`None`: unlimited).
    pub fn new(profile: PowerProfile, battery_j: Option<f64>) -> EnergyMeter {
        EnergyMeter {
            profile,
            battery_j: battery_j.map(|j| if j.is_nan() { 0.0 } else { j.max(0.0) }),
            state: RadioState::Idle,
            since: Time::ZERO,
            time_in: [Dur::ZERO; 4],
            used_j: 0.0,
            depleted_at: None,
            accounting: Accounting::Time,
        }
    }

    /// The same meter with `accounting`: per frame, Tx and Rx cost only
    /// what [`charge`](EnergyMeter::charge) adds, while the time in them is
    /// still counted; Idle and Sleep are drawn over time in every case.
    #[must_use]
    pub fn accounting(mut self, accounting: Accounting) -> EnergyMeter {
        self.accounting = accounting;
        self
    }

    /// Per-packet accounting: a frame of `airtime` sent (`Tx`) or heard
    /// (`Rx`) from `now` costs that state's power times `airtime`, charged
    /// at once. Returns whether this emptied the battery (then
    /// [`depleted_at`](EnergyMeter::depleted_at) is `now`). Ignored with
    /// time accounting, for Idle and Sleep, and on an empty battery.
    pub fn charge(&mut self, now: Time, state: RadioState, airtime: Dur) -> bool {
        let now = self.account(now);
        if !self.accounting.per_frame()
            || self.depleted_at.is_some()
            || !matches!(state, RadioState::Tx | RadioState::Rx)
        {
            return false;
        }
        let charged = match &mut self.accounting {
            Accounting::Ns2 { charged_until } => {
                let start = now.max(*charged_until);
                let end = (now + airtime).max(*charged_until);
                *charged_until = end;
                end.saturating_since(start)
            }
            _ => airtime,
        };
        self.used_j += charged.as_secs_f64() * self.profile.watts(state);
        match self.battery_j {
            Some(b) if self.used_j >= b => {
                self.used_j = b;
                self.depleted_at = Some(now);
                true
            }
            _ => false,
        }
    }

    /// The radio is in `state` from `now` on.
    pub fn set_state(&mut self, now: Time, state: RadioState) {
        let now = self.account(now);
        if self.depleted_at.is_none() {
            self.state = state;
            self.since = now;
        }
    }

    /// Notices a battery running out at or before `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        self.account(now);
    }

    /// When the battery empties if the state does not change.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Time> {
        if self.depleted_at.is_some() {
            return None;
        }
        let left = self.battery_j? - self.used_j;
        let w = self.draw(self.state);
        if w <= 0.0 {
            return None;
        }
        Some(self.since + Dur::from_secs_f64(left.max(0.0) / w))
    }

    /// The state the meter is in.
    pub fn state(&self) -> RadioState {
        self.state
    }

    /// When the battery ran out, if it did.
    pub fn depleted_at(&self) -> Option<Time> {
        self.depleted_at
    }

    /// Joules used up to `now` (not beyond depletion).
    pub fn energy_j(&self, now: Time) -> f64 {
        let (_, j) = self.open_interval(now);
        self.used_j + j
    }

    /// Time spent in `state` up to `now`.
    pub fn time_in(&self, state: RadioState, now: Time) -> Dur {
        let mut d = self.time_in[state.index()];
        if state == self.state {
            d += self.open_interval(now).0;
        }
        d
    }

    /// Joules left in the battery at `now` (`None`: unlimited).
    pub fn remaining_j(&self, now: Time) -> Option<f64> {
        self.battery_j.map(|b| (b - self.energy_j(now)).max(0.0))
    }

    /// The power profile.
    pub fn profile(&self) -> &PowerProfile {
        &self.profile
    }

    /// The interval since the last change, cut at depletion: (length, joules).
    fn open_interval(&self, now: Time) -> (Dur, f64) {
        let end = match (self.depleted_at, self.poll_timeout()) {
            (Some(at), _) => at.min(now.max(self.since)),
            (None, Some(empty)) => empty.min(now.max(self.since)),
            (None, None) => now.max(self.since),
        };
        let d = end.saturating_since(self.since);
        (d, d.as_secs_f64() * self.draw(self.state))
    }

    /// The power drawn over time in `state` (Tx and Rx draw nothing over
    /// time with per-packet accounting: their frames are charged).
    fn draw(&self, state: RadioState) -> f64 {
        match state {
            RadioState::Tx | RadioState::Rx if self.accounting.per_frame() => 0.0,
            _ => self.profile.watts(state),
        }
    }

    /// Closes the open interval at `now` (or at depletion) and returns `now`.
    fn account(&mut self, now: Time) -> Time {
        let now = now.max(self.since);
        if self.depleted_at.is_some() {
            return now;
        }
        let empty = self.poll_timeout();
        let (d, j) = self.open_interval(now);
        self.time_in[self.state.index()] += d;
        self.used_j += j;
        self.since += d;
        if let Some(at) = empty {
            if at <= now {
                self.depleted_at = Some(at);
                if let Some(b) = self.battery_j {
                    self.used_j = b;
                }
            }
        }
        now
    }
}

/// Delivered user bits per joule spent (0 when nothing was spent).
pub fn bits_per_joule(bits: u64, joules: f64) -> f64 {
    if joules > 0.0 {
        bits as f64 / joules
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn joules_are_power_times_time_per_state() {
        let mut m = EnergyMeter::new(PowerProfile::default(), None);
        m.set_state(at_ms(100), RadioState::Tx); // 100 ms idle
        m.set_state(at_ms(150), RadioState::Rx); // 50 ms tx
        m.set_state(at_ms(250), RadioState::Sleep); // 100 ms rx
        let now = at_ms(1250); // 1000 ms sleep
        let want = 0.1 * 0.26 + 0.05 * 0.6 + 0.1 * 0.3 + 1.0 * 0.015;
        assert!(
            (m.energy_j(now) - want).abs() < 1e-12,
            "{}",
            m.energy_j(now)
        );
        assert_eq!(m.time_in(RadioState::Idle, now), Dur::from_millis(100));
        assert_eq!(m.time_in(RadioState::Tx, now), Dur::from_millis(50));
        assert_eq!(m.time_in(RadioState::Rx, now), Dur::from_millis(100));
        assert_eq!(m.time_in(RadioState::Sleep, now), Dur::from_millis(1000));
        assert_eq!(m.poll_timeout(), None);
        assert_eq!(m.remaining_j(now), None);
        // Time does not go back.
        m.set_state(at_ms(10), RadioState::Idle);
        assert_eq!(m.time_in(RadioState::Sleep, at_ms(250)), Dur::ZERO);
        assert!((m.energy_j(at_ms(250)) - (want - 1.0 * 0.015)).abs() < 1e-12);
    }

    #[test]
    fn battery_runs_out_at_the_predicted_instant() {
        // 0.06 J: 100 ms of transmitting at 0.6 W.
        let mut m = EnergyMeter::new(PowerProfile::default(), Some(0.06));
        m.set_state(Time::ZERO, RadioState::Tx);
        assert_eq!(m.poll_timeout(), Some(at_ms(100)));
        m.set_state(at_ms(40), RadioState::Rx); // 0.024 J used, 0.036 left
        assert_eq!(m.poll_timeout(), Some(at_ms(160))); // 0.036 / 0.3 = 120 ms
        assert!((m.remaining_j(at_ms(100)).unwrap() - 0.018).abs() < 1e-12);
        m.handle_timeout(at_ms(500));
        assert_eq!(m.depleted_at(), Some(at_ms(160)));
        assert_eq!(m.poll_timeout(), None);
        assert!((m.energy_j(at_ms(900)) - 0.06).abs() < 1e-12);
        assert_eq!(m.time_in(RadioState::Rx, at_ms(900)), Dur::from_millis(120));
        // A dead radio stays dead.
        m.set_state(at_ms(1000), RadioState::Tx);
        assert_eq!(m.state(), RadioState::Rx);
        assert_eq!(m.remaining_j(at_ms(1000)), Some(0.0));
    }

    #[test]
    fn per_packet_charges_each_frame_whole_overlaps_or_not() {
        let p = PowerProfile {
            idle_w: 0.1,
            ..PowerProfile::default()
        };
        let mut time = EnergyMeter::new(p, None);
        let mut pkt = EnergyMeter::new(p, None).accounting(Accounting::PerPacket);
        // A 10 ms frame sent at 100 ms; a 4 ms frame heard from 105 ms,
        // overlapping it (a collision); a 2 ms frame heard at 200 ms.
        for m in [&mut time, &mut pkt] {
            m.set_state(at_ms(100), RadioState::Tx);
            m.set_state(at_ms(110), RadioState::Idle);
            m.set_state(at_ms(200), RadioState::Rx);
            m.set_state(at_ms(202), RadioState::Idle);
        }
        pkt.charge(at_ms(100), RadioState::Tx, Dur::from_millis(10));
        pkt.charge(at_ms(105), RadioState::Rx, Dur::from_millis(4));
        pkt.charge(at_ms(200), RadioState::Rx, Dur::from_millis(2));
        // Charging an Idle frame, or on a time meter, does nothing.
        assert!(!pkt.charge(at_ms(300), RadioState::Idle, Dur::from_millis(50)));
        time.charge(at_ms(300), RadioState::Tx, Dur::from_millis(50));
        let now = at_ms(1000);
        let idle = (1.0 - 0.012) * 0.1;
        let want_time = 0.010 * 0.6 + 0.002 * 0.3 + idle;
        let want_pkt = 0.010 * 0.6 + (0.004 + 0.002) * 0.3 + idle;
        assert!((time.energy_j(now) - want_time).abs() < 1e-12);
        assert!((pkt.energy_j(now) - want_pkt).abs() < 1e-12);
        // The time in each state is counted the same way by both.
        assert_eq!(pkt.time_in(RadioState::Tx, now), Dur::from_millis(10));
        assert_eq!(pkt.time_in(RadioState::Rx, now), Dur::from_millis(2));
    }

    #[test]
    fn ns2_charges_each_stretch_of_air_once_from_the_end_of_the_last_frame() {
        let p = PowerProfile {
            idle_w: 0.0,
            ..PowerProfile::default()
        };
        let mut m = EnergyMeter::new(p, None).accounting(Accounting::NS2);
        // A 10 ms frame heard from 100 ms; a 4 ms one heard from 105 ms
        // (inside it: nothing more); a 10 ms frame sent from 108 ms (only
        // 110-118 ms charged, at Tx power); a 2 ms frame heard at 200 ms.
        m.charge(at_ms(100), RadioState::Rx, Dur::from_millis(10));
        m.charge(at_ms(105), RadioState::Rx, Dur::from_millis(4));
        m.charge(at_ms(108), RadioState::Tx, Dur::from_millis(10));
        m.charge(at_ms(200), RadioState::Rx, Dur::from_millis(2));
        let want = 0.010 * 0.3 + 0.008 * 0.6 + 0.002 * 0.3;
        assert!(
            (m.energy_j(at_ms(1000)) - want).abs() < 1e-12,
            "{}",
            m.energy_j(at_ms(1000))
        );
        // The same frames without the rule: each in full.
        let mut whole = EnergyMeter::new(p, None).accounting(Accounting::PerPacket);
        whole.charge(at_ms(100), RadioState::Rx, Dur::from_millis(10));
        whole.charge(at_ms(105), RadioState::Rx, Dur::from_millis(4));
        whole.charge(at_ms(108), RadioState::Tx, Dur::from_millis(10));
        whole.charge(at_ms(200), RadioState::Rx, Dur::from_millis(2));
        let want = 0.016 * 0.3 + 0.010 * 0.6;
        assert!((whole.energy_j(at_ms(1000)) - want).abs() < 1e-12);
        // With a battery it still empties on the frame that exceeds it.
        let mut b = EnergyMeter::new(p, Some(0.005)).accounting(Accounting::NS2);
        assert!(!b.charge(at_ms(0), RadioState::Tx, Dur::from_millis(5)));
        assert!(!b.charge(at_ms(2), RadioState::Tx, Dur::from_millis(5)));
        assert!(b.charge(at_ms(10), RadioState::Tx, Dur::from_millis(5)));
        assert_eq!(b.depleted_at(), Some(at_ms(10)));
    }

    #[test]
    fn per_packet_battery_empties_on_the_frame_that_exceeds_it() {
        let p = PowerProfile {
            idle_w: 0.0,
            ..PowerProfile::default()
        };
        // 0.01 J: two 6 ms frames sent at 0.6 W (3.6 mJ each), then a
        // third that would bring it to 10.8 mJ.
        let mut m = EnergyMeter::new(p, Some(0.01)).accounting(Accounting::PerPacket);
        assert_eq!(m.poll_timeout(), None);
        assert!(!m.charge(at_ms(0), RadioState::Tx, Dur::from_millis(6)));
        assert!(!m.charge(at_ms(10), RadioState::Tx, Dur::from_millis(6)));
        assert!(m.charge(at_ms(20), RadioState::Tx, Dur::from_millis(6)));
        assert_eq!(m.depleted_at(), Some(at_ms(20)));
        assert_eq!(m.remaining_j(at_ms(30)), Some(0.0));
        assert!((m.energy_j(at_ms(30)) - 0.01).abs() < 1e-12);
        assert!(!m.charge(at_ms(40), RadioState::Rx, Dur::from_millis(6)));
    }

    #[test]
    fn bits_per_joule_helper() {
        assert_eq!(bits_per_joule(600, 2.0), 300.0);
        assert_eq!(bits_per_joule(600, 0.0), 0.0);
    }
}
