//! The event queue: events ordered by (time, insertion sequence).
//!
//! Ties at the same nanosecond are broken by the order in which events were
//! scheduled, so a run is a pure function of its scenario and seed. Events
//! are small `Copy` values; the heap grows to its working size once and then
//! allocates no more.

use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A scheduled entry. The ordering key packs `(time, sequence)` into one
/// integer (time in the high 64 bits), so that the heap compares once per
/// step; the event itself takes no part in the order.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// A deterministic min-queue of events.
#[derive(Debug)]
pub struct EventQueue<E: Ord + Copy> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Ord + Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: Time::ZERO,
            popped: 0,
        }
    }
}

impl<E: Ord + Copy> EventQueue<E> {
    /// Schedules `event` at `at`. Scheduling in the past is a contract
    /// violation (time only moves forward).
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        let key = (u128::from(at.as_nanos()) << 64) | u128::from(seq);
        self.heap.push(Reverse(Entry { key, event }));
    }

    /// Removes the earliest event if it is due no later than `limit`, and
    /// advances the clock to it.
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        match self.heap.peek() {
            Some(Reverse(e)) if (e.key >> 64) as u64 <= limit.as_nanos() => {
                let Reverse(e) = self.heap.pop().expect("peeked");
                let at = Time((e.key >> 64) as u64);
                self.now = at;
                self.popped += 1;
                Some((at, e.event))
            }
            _ => None,
        }
    }

    /// The time of the last event popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Events still scheduled.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(Time(5), 'b');
        q.schedule(Time(1), 'z');
        q.schedule(Time(5), 'a');
        q.schedule(Time(5), 'c');
        let order: Vec<char> =
            std::iter::from_fn(|| q.pop_until(Time::NEVER).map(|e| e.1)).collect();
        assert_eq!(order, vec!['z', 'b', 'a', 'c']);
        assert_eq!(q.now(), Time(5));
        assert_eq!(q.popped(), 4);
    }

    #[test]
    fn pop_until_respects_the_limit() {
        let mut q = EventQueue::default();
        q.schedule(Time(10), 1u8);
        assert_eq!(q.pop_until(Time(9)), None);
        assert_eq!(q.pop_until(Time(10)), Some((Time(10), 1)));
    }
}
