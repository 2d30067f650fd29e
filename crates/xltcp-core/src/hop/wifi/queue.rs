//! Frames handed to the stations' DCFs: queueing (at the tail, or at the
//! head for a resend), withdrawing, the AP's scheduler, starting what a DCF
//! sends, and acting on its reports (delivered, given up).

use super::{Air, Held, HopEv, WifiHop};
use crate::hop::{HopDrop, HopOut, TimerSink};
use crate::radio::wifi::{
    data_psdu_bytes, Addr, Frame, MacEvent, Transmission, TxKind, UndeliveredReason,
};
use crate::signal::{MacDelays, Signal, UndeliveredReason as SignalReason};
use crate::time::Time;
use crate::wire::Packet;

impl WifiHop {
    /// Hands `packet` to station `from`'s MAC (`ends` = (from, to)), at the
    /// head of its queue if `first`.
    pub(super) fn enqueue_at(
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
        s.held.push(id, held);
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
    ///
    /// [`Hop::withdraw`]: crate::hop::Hop::withdraw
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
            if let Some(h) = self.stations[from].held.remove(f.id) {
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

    /// Whether station `i` may neither transmit nor receive: the channel
    /// is blocked (a primary user) or the cell or the station is in a TFP.
    pub(super) fn frozen(&self, i: usize) -> bool {
        self.blocked
            || self.stations[i].dead
            || self.dsa.as_ref().is_some_and(|d| {
                d.cell_frozen() || (i > 0 && d.node.get(i - 1).copied().unwrap_or(false))
            })
    }

    /// Whether the AP holds its head-of-line frame: its receiver is in a
    /// TFP of its own (see [`dsa`]).
    pub(super) fn ap_stalled(&self) -> bool {
        self.dsa.as_ref().is_some_and(|d| !d.flushes())
            && self.stations[0]
                .dcf
                .current_dst()
                .is_some_and(|d| self.frozen(d.0 as usize))
    }

    /// Drains station `i`'s DCF after an input and re-arms its timer.
    pub(super) fn drain(
        &mut self,
        now: Time,
        i: usize,
        q: &mut dyn TimerSink,
        out: &mut Vec<HopOut>,
    ) {
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
                let packet = self.stations[i].held.get(t.frame).map(|h| h.packet);
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
                let Some(h) = self.stations[from].held.get_mut(frame) else {
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
                let held = self.stations[i].held.remove(frame);
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
        let held = self.stations[i].held.remove(frame);
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
}
