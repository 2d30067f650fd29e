//! Two endpoints joined by a pipe with a fixed one-way delay, stepping to
//! the earliest deadline; a test chooses which segments are lost.

use super::{Config, Endpoint, State};
use crate::time::{Dur, Time};
use crate::wire::{Segment, SeqNum};

/// Direction of a segment on the pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// From the client (active opener) to the server.
    AtoB,
    /// From the server to the client.
    BtoA,
}

/// Decides whether the `n`-th segment sent in `dir` is lost.
pub type LossFn = Box<dyn FnMut(Dir, u64, &Segment) -> bool>;

/// The pipe and its two endpoints.
pub struct Harness {
    pub a: Endpoint,
    pub b: Endpoint,
    pub now: Time,
    pub delay: Dur,
    /// (arrival, insertion order, direction, segment)
    in_flight: Vec<(Time, u64, Dir, Segment)>,
    order: u64,
    sent: [u64; 2],
    right_edge: [Option<SeqNum>; 2],
    pub lost: [u64; 2],
    loss: LossFn,
    /// Bytes the client still has to write.
    pub to_write: u64,
    /// Bytes the server application has read.
    pub read: u64,
    /// Bytes the server still has to write (data in the other direction).
    pub to_write_b: u64,
    /// Bytes the client application has read.
    pub read_a: u64,
    pub close_when_done: bool,
    pub steps: u64,
    /// When set, the server reads at most `read_chunk` bytes once per period.
    pub read_period: Option<Dur>,
    /// Bytes per periodic read.
    pub read_chunk: u64,
    next_read: Time,
}

impl Harness {
    /// A client and a server with the given configs; the client connects at time zero.
    pub fn new(ca: Config, cb: Config, delay: Dur, loss: LossFn) -> Harness {
        let mut a = Endpoint::new(ca, 1000, 80, SeqNum(0xFFFF_F000));
        let mut b = Endpoint::new(cb, 80, 1000, SeqNum(7_000_000));
        b.listen();
        a.connect(Time::ZERO);
        Harness {
            a,
            b,
            now: Time::ZERO,
            delay,
            in_flight: Vec::new(),
            order: 0,
            sent: [0; 2],
            right_edge: [None; 2],
            lost: [0; 2],
            loss,
            to_write: 0,
            read: 0,
            to_write_b: 0,
            read_a: 0,
            close_when_done: false,
            steps: 0,
            read_period: None,
            read_chunk: u64::MAX,
            next_read: Time::ZERO,
        }
    }

    fn flush(&mut self) {
        loop {
            let mut any = false;
            for dir in [Dir::AtoB, Dir::BtoA] {
                let ep = match dir {
                    Dir::AtoB => &mut self.a,
                    Dir::BtoA => &mut self.b,
                };
                while let Some(t) = ep.poll_transmit(self.now) {
                    any = true;
                    let i = dir as usize;
                    // RFC 9293 SHLD-14: the right edge never moves left.
                    if t.segment.flags.ack() && !t.segment.flags.syn() && !t.segment.flags.rst() {
                        let w = u64::from(t.segment.window) << ep.rcv_wscale;
                        let edge = t.segment.ack + w as u32;
                        if let Some(prev) = self.right_edge[i] {
                            assert!(edge >= prev, "{dir:?} window shrank");
                        }
                        self.right_edge[i] = Some(edge);
                    }
                    let n = self.sent[i];
                    self.sent[i] += 1;
                    if (self.loss)(dir, n, &t.segment) {
                        self.lost[i] += 1;
                        continue;
                    }
                    self.order += 1;
                    self.in_flight
                        .push((self.now + self.delay, self.order, dir, t.segment));
                }
            }
            // Applications: the client writes, the server reads everything.
            if self.to_write > 0 {
                let n = self.a.write(self.to_write);
                self.to_write -= n;
                any |= n > 0;
            } else if self.close_when_done
                && matches!(self.a.state(), State::Established | State::CloseWait)
            {
                self.a.close();
                any = true;
            }
            let r = match self.read_period {
                None => self.b.read(u64::MAX),
                Some(p) if self.now >= self.next_read && self.b.readable() > 0 => {
                    self.next_read = self.now + p;
                    self.b.read(self.read_chunk)
                }
                Some(_) => 0,
            };
            self.read += r;
            any |= r > 0;
            if self.to_write_b > 0
                && matches!(self.b.state(), State::Established | State::CloseWait)
            {
                let n = self.b.write(self.to_write_b);
                self.to_write_b -= n;
                any |= n > 0;
            }
            let ra = self.a.read(u64::MAX);
            self.read_a += ra;
            any |= ra > 0;
            if self.b.state() == State::CloseWait && self.to_write_b == 0 {
                self.b.close();
                any = true;
            }
            if !any {
                break;
            }
        }
    }

    /// The earliest pending arrival or timer.
    fn next_deadline(&self) -> Option<Time> {
        let arrivals = self.in_flight.iter().map(|e| e.0).min();
        let read = (self.read_period.is_some() && self.b.readable() > 0)
            .then_some(self.next_read.max(self.now));
        [arrivals, read, self.a.poll_timeout(), self.b.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs until nothing is pending or `until` is reached.
    pub fn run(&mut self, until: Time) {
        self.flush();
        while let Some(t) = self.next_deadline() {
            if t > until {
                break;
            }
            self.steps += 1;
            assert!(self.steps < 2_000_000, "harness runaway");
            self.now = t;
            self.in_flight.sort_by_key(|e| (e.0, e.1));
            let due: Vec<_> = self
                .in_flight
                .iter()
                .filter(|e| e.0 <= t)
                .copied()
                .collect();
            self.in_flight.retain(|e| e.0 > t);
            // Each arrival is its own event: outputs are collected after each.
            for (_, _, dir, seg) in due {
                match dir {
                    Dir::AtoB => self.b.handle_segment(t, &seg),
                    Dir::BtoA => self.a.handle_segment(t, &seg),
                }
                self.flush();
            }
            self.a.handle_timeout(t);
            self.b.handle_timeout(t);
            self.flush();
        }
    }
}
