//! A delay line: packets leave in the order they entered, each a fixed
//! delay after it entered plus, with a jitter, a uniform draw in
//! [0, jitter], never before the packet ahead of it. A link's propagation
//! (`[wired] jitter`) and a host's stack (`[hosts]`) are both one.

use crate::rng::Rng;
use crate::time::{Dur, Time};
use crate::wire::Packet;
use rand::RngExt as _;
use std::collections::VecDeque;

/// Packets on their way, in order, with the instant each leaves.
#[derive(Debug)]
pub struct DelayLine {
    delay: Dur,
    jitter: Option<(Dur, Rng)>,
    pipe: VecDeque<(Time, Packet)>,
}

impl DelayLine {
    /// A line of `delay`, with `jitter` (its width and the stream it is
    /// drawn from) or none.
    pub fn new(delay: Dur, jitter: Option<(Dur, Rng)>) -> DelayLine {
        DelayLine {
            delay,
            jitter,
            // Grown on first use (a link's or a host's line is built per
            // flow; many carry few packets at once).
            pipe: VecDeque::new(),
        }
    }

    /// Takes `p` at `now`; returns when it leaves.
    pub fn push(&mut self, now: Time, p: Packet) -> Time {
        let mut at = now + self.delay;
        if let Some((jitter, rng)) = &mut self.jitter {
            at += Dur(rng.random_range(0..=jitter.0));
        }
        if let Some(&(last, _)) = self.pipe.back() {
            at = at.max(last);
        }
        self.pipe.push_back((at, p));
        at
    }

    /// Takes back the packet entered last, with when it would leave.
    pub fn pop_back(&mut self) -> Option<(Time, Packet)> {
        self.pipe.pop_back()
    }

    /// Enters `p`, which leaves at `at` (no earlier than the packet ahead
    /// of it): a packet whose departure another line computed.
    pub fn push_at(&mut self, at: Time, p: Packet) {
        debug_assert!(self.pipe.back().is_none_or(|&(last, _)| last <= at));
        self.pipe.push_back((at, p));
    }

    /// When the packet at the head leaves, if there is one.
    pub fn next(&self) -> Option<Time> {
        self.pipe.front().map(|e| e.0)
    }

    /// The packet at the head, if any.
    #[inline]
    pub fn head(&self) -> Option<&Packet> {
        self.pipe.front().map(|e| &e.1)
    }

    /// The packet at the head, if it leaves by `now`.
    pub fn pop(&mut self, now: Time) -> Option<Packet> {
        match self.pipe.front() {
            Some(&(at, _)) if at <= now => self.pipe.pop_front().map(|(_, p)| p),
            _ => None,
        }
    }

    /// Packets on the line.
    pub fn len(&self) -> usize {
        self.pipe.len()
    }

    /// Whether the line is empty.
    pub fn is_empty(&self) -> bool {
        self.pipe.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hop::p2p::tests::frame;
    use crate::rng::stream;

    fn line(delay_us: u64, jitter_us: u64) -> DelayLine {
        let jitter = (jitter_us > 0).then(|| (Dur::from_micros(jitter_us), stream(7, "test")));
        DelayLine::new(Dur::from_micros(delay_us), jitter)
    }

    #[test]
    fn packets_leave_in_order_within_the_delay_and_jitter() {
        let mut l = line(20, 60);
        let mut leaves = Vec::new();
        for k in 0..1000u64 {
            let now = Time::ZERO + Dur::from_micros(10 * k);
            leaves.push((now, l.push(now, frame(k))));
        }
        assert!(leaves.windows(2).all(|w| w[0].1 <= w[1].1));
        // Each leaves at least the delay after it entered, and later than
        // delay + jitter only behind its predecessor.
        let mut spread = std::collections::BTreeSet::new();
        for (k, &(sent, at)) in leaves.iter().enumerate() {
            assert!(at >= sent + Dur::from_micros(20));
            if k == 0 || leaves[k - 1].1 < sent + Dur::from_micros(20) {
                assert!(at <= sent + Dur::from_micros(80));
            }
            spread.insert((at - sent).0 / 10_000);
        }
        assert!(
            spread.len() >= 6,
            "the jitter spreads the delays: {spread:?}"
        );
        let mut order = Vec::new();
        let end = leaves.last().unwrap().1;
        while let Some(p) = l.pop(end) {
            order.push(p.meta.uid);
        }
        assert_eq!(order, (0..1000).collect::<Vec<u64>>());
        assert!(l.is_empty());
    }

    #[test]
    fn a_packet_waits_until_its_time() {
        let mut l = line(50, 0);
        let at = l.push(Time::ZERO, frame(0));
        assert_eq!(at, Time::ZERO + Dur::from_micros(50));
        assert_eq!(l.next(), Some(at));
        assert!(l.pop(Time::ZERO + Dur::from_nanos(49_999)).is_none());
        assert_eq!(l.len(), 1);
        assert!(l.pop(at).is_some());
        assert_eq!(l.next(), None);
    }
}
