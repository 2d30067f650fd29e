//! The channel's blockage (a primary user) and the DSA cell's sensing and
//! retunes as the hop acts on them: freezing the air, flushing or keeping
//! the queues, and the transmission-free periods it publishes.

use super::{dsa, signal_out, HopEv, WifiHop};
use crate::hop::{HopOut, HopTimer, TimerKind, TimerSink};
use crate::radio::wifi::{ArfConfig, RateControl};
use crate::signal::{Signal, TfpCause};
use crate::time::Time;

impl WifiHop {
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
    pub(super) fn start_dsa(&mut self, q: &mut dyn TimerSink) {
        if let Some(d) = self.dsa.as_mut() {
            for (at, ev) in d.start() {
                let (a, b) = ev.encode();
                q.schedule(at, HopTimer::new(TimerKind::K4, a, b));
            }
        }
    }

    /// A DSA timer: the TFP it begins or ends, its signals, its effect on
    /// the air and on the stations.
    pub(super) fn on_dsa(
        &mut self,
        now: Time,
        ev: dsa::DsaEv,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
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
    pub(super) fn freeze_air(&mut self, now: Time, station: Option<usize>, start: bool) {
        if !start {
            return;
        }
        for a in self.air.iter_mut().filter(|a| a.live(now)) {
            let hit = station.is_none_or(|s| a.t.from.0 as usize == s || a.t.to.0 as usize == s);
            a.blocked |= hit;
        }
    }
}
