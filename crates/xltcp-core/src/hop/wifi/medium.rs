//! The shared medium: a frame's rate and error probability, the
//! transmissions on the air, their collisions, blockage and losses, and
//! what each station's DCF hears of the channel.

use super::{Air, HopEv, WifiHop};
use crate::hop::{AirFrame, HopOut, TimerSink};
use crate::radio::wifi::capture::AirFrame as WifiAir;
use crate::radio::wifi::effective_preamble;
use crate::radio::wifi::error::{db_to_linear, per};
use crate::radio::wifi::{Addr, RadioState, Transmission, TxKind};
use crate::time::Time;
use rand::RngExt;

impl WifiHop {
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

    /// `mu_i` of the scheduler (see [`sched`]): the AP's data rate to
    /// `station` times the chance that a `psdu`-byte frame gets through at
    /// the SNR of the station's link now.
    pub(super) fn current_rate(&mut self, now: Time, station: usize, psdu: u32) -> f64 {
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

    /// Marks transmission `k` started: collisions with every other frame
    /// on the air, and the blockage.
    pub(super) fn begin(&mut self, now: Time, k: usize) {
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
    pub(super) fn charge_frame(&mut self, now: Time, k: usize, q: &mut dyn TimerSink) {
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
    pub(super) fn update_channel(
        &mut self,
        now: Time,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
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
    pub(super) fn finish(
        &mut self,
        now: Time,
        a: Air,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
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
                .get(a.t.frame)
                .map(|h| h.packet),
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
}
