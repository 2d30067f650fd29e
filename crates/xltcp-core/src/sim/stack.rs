//! The hosts' stack latency (`[hosts]`): each endpoint's segments wait in
//! a pipe of their own between its TCP and its host's interface, as a
//! real host's take tens of microseconds to get from the socket to the
//! wire. Without it an endpoint answers an arriving segment in the same
//! instant, which puts a wireless host's 802.15.4 backoff slots at a fixed
//! offset from its peer's.

use crate::rng::{stream, Rng};
use crate::scenario::HostsSpec;
use crate::time::{Dur, Time};
use crate::wire::Packet;
use rand::RngExt;
use std::collections::VecDeque;

/// One endpoint's segments on their way to its host's interface, in the
/// order sent.
#[derive(Debug)]
pub struct StackPipe {
    delay: Dur,
    jitter: Dur,
    rng: Rng,
    queue: VecDeque<(Time, Packet)>,
}

impl StackPipe {
    /// The pipe of the endpoint `name` (`"<flow>.ch"` or `"<flow>.sh"`) for
    /// `seed`, or `None` when `spec` leaves segments at once.
    pub fn new(spec: &HostsSpec, seed: u64, name: &str) -> Option<StackPipe> {
        (spec.stack_delay + spec.stack_jitter > Dur::ZERO).then(|| StackPipe {
            delay: spec.stack_delay,
            jitter: spec.stack_jitter,
            rng: stream(seed, &format!("hosts.{name}.stack")),
            queue: VecDeque::new(),
        })
    }

    /// Takes `p`, sent at `now`; returns when it leaves: `now` plus the
    /// delay and a draw of the jitter, no earlier than the segment before.
    pub fn push(&mut self, now: Time, p: Packet) -> Time {
        let mut at = now + self.delay;
        if self.jitter > Dur::ZERO {
            at += Dur(self.rng.random_range(0..=self.jitter.0));
        }
        if let Some(&(last, _)) = self.queue.back() {
            at = at.max(last);
        }
        self.queue.push_back((at, p));
        at
    }

    /// The oldest segment, if it leaves by `now`.
    pub fn pop(&mut self, now: Time) -> Option<Packet> {
        match self.queue.front() {
            Some(&(at, _)) if at <= now => self.queue.pop_front().map(|(_, p)| p),
            _ => None,
        }
    }

    /// Segments in the pipe.
    pub fn held(&self) -> u64 {
        self.queue.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hop::p2p::tests::frame;

    fn spec(delay_us: u64, jitter_us: u64) -> HostsSpec {
        HostsSpec {
            stack_delay: Dur::from_micros(delay_us),
            stack_jitter: Dur::from_micros(jitter_us),
        }
    }

    #[test]
    fn no_latency_gives_no_pipe() {
        assert!(StackPipe::new(&spec(0, 0), 1, "st.sh").is_none());
        assert!(StackPipe::new(&spec(0, 1), 1, "st.sh").is_some());
    }

    #[test]
    fn segments_leave_in_order_within_the_delay_and_jitter() {
        let mut pipe = StackPipe::new(&spec(20, 60), 7, "st.sh").unwrap();
        let mut leaves = Vec::new();
        for k in 0..1000u64 {
            let now = Time::ZERO + Dur::from_micros(10 * k);
            leaves.push((now, pipe.push(now, frame(k))));
        }
        assert!(leaves.windows(2).all(|w| w[0].1 <= w[1].1));
        // Each leaves at least the delay after it was sent, and later than
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
        while let Some(p) = pipe.pop(end) {
            order.push(p.meta.uid);
        }
        assert_eq!(order, (0..1000).collect::<Vec<u64>>());
        assert_eq!(pipe.held(), 0);
    }

    #[test]
    fn a_segment_waits_until_its_time() {
        let mut pipe = StackPipe::new(&spec(50, 0), 1, "st.ch").unwrap();
        let at = pipe.push(Time::ZERO, frame(0));
        assert_eq!(at, Time::ZERO + Dur::from_micros(50));
        assert!(pipe.pop(Time::ZERO + Dur::from_nanos(49_999)).is_none());
        assert_eq!(pipe.held(), 1);
        assert!(pipe.pop(at).is_some());
    }
}
