//! The event queue: events ordered by (time, insertion sequence).
//!
//! Ties at the same nanosecond are broken by the order in which events were
//! scheduled, so a run is a pure function of its scenario and seed. Events
//! are small `Copy` values; the queue's storage (a wheel's node pool and a
//! heap, see [`EventQueue`]) grows to its working size once and then
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

/// Width of a slot of the wheel: 2^10 ns (about a microsecond).
const SLOT_SHIFT: u32 = 10;
/// Slots of the wheel: 2^14 of them span about 16.8 ms ahead of the clock.
const SLOTS: usize = 1 << 14;
/// Words of the bitmap of occupied slots, and of its summary.
const WORDS: usize = SLOTS / 64;
const SUMMARY: usize = WORDS / 64;

/// No node: the end of a slot's list, or of the free list.
const NIL: u32 = u32::MAX;

/// A wheel entry and the next of its slot's list (or of the free list).
#[derive(Clone, Copy, Debug)]
struct Node<E> {
    entry: Entry<E>,
    next: u32,
}

/// A deterministic min-queue of events.
///
/// Two parts, merged at each pop by their least keys: a wheel of slots
/// for the events due within about 16.8 ms of the clock (a packet's
/// serialisation end, its arrival after a link's delay, a MAC's slots and
/// backoffs: most of a run's events), each slot an unsorted handful of
/// entries found through a bitmap of occupied slots; and a binary heap for
/// the events further ahead (TCP's timers, sampling ticks). An event
/// scheduled within the window costs a list insertion, and its pop a
/// bitmap search and a walk of its slot, where a heap walks its depth on
/// every push and pop (most events are due sooner than the timers far
/// ahead, so they climb to its top). Keys are unique, so the pop order is
/// the key order whichever part holds an entry.
///
/// The slots' entries live in one pool of nodes, linked per slot, with
/// freed nodes reused: the pool grows to the most entries the wheel ever
/// held at once and then allocates no more.
#[derive(Debug)]
pub struct EventQueue<E: Copy> {
    /// The first node of absolute slot `s` (`at >> SLOT_SHIFT`) at
    /// `heads[s % SLOTS]`, for `s` in `[cur, cur + SLOTS)`; `NIL`: empty.
    heads: Vec<u32>,
    nodes: Vec<Node<E>>,
    /// The first free node.
    free: u32,
    /// Bit `i % 64` of word `i / 64` is set when slot `i` holds entries.
    bits: Vec<u64>,
    /// Bit `w % 64` of word `w / 64` is set when `bits[w]` is not 0.
    summary: [u64; SUMMARY],
    in_wheel: usize,
    /// The absolute slot of the clock.
    cur: u64,
    far: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heads: vec![NIL; SLOTS],
            nodes: Vec::with_capacity(1024),
            free: NIL,
            bits: vec![0; WORDS],
            summary: [0; SUMMARY],
            in_wheel: 0,
            cur: 0,
            far: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: Time::ZERO,
            popped: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    /// Schedules `event` at `at`. Scheduling in the past is a contract
    /// violation (time only moves forward).
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        let key = (u128::from(at.as_nanos()) << 64) | u128::from(seq);
        let slot = at.as_nanos() >> SLOT_SHIFT;
        if slot < self.cur + SLOTS as u64 {
            let i = slot as usize % SLOTS;
            let next = self.heads[i];
            if next == NIL {
                self.bits[i / 64] |= 1 << (i % 64);
                self.summary[i / 4096] |= 1 << ((i / 64) % 64);
            }
            let node = Node {
                entry: Entry { key, event },
                next,
            };
            let n = if self.free != NIL {
                let n = self.free;
                self.free = self.nodes[n as usize].next;
                self.nodes[n as usize] = node;
                n
            } else {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            };
            self.heads[i] = n;
            self.in_wheel += 1;
        } else {
            self.far.push(Reverse(Entry { key, event }));
        }
    }

    /// The first occupied slot in `[from, SLOTS)`.
    #[inline]
    fn occupied_from(&self, from: usize) -> Option<usize> {
        let w = from / 64;
        let m = self.bits[w] & (!0u64 << (from % 64));
        if m != 0 {
            return Some(w * 64 + m.trailing_zeros() as usize);
        }
        let next = w + 1;
        let mut s = next / 64;
        if s >= SUMMARY {
            return None;
        }
        let mut m = self.summary[s] & (!0u64).checked_shl((next % 64) as u32).unwrap_or(0);
        loop {
            if m != 0 {
                let w = s * 64 + m.trailing_zeros() as usize;
                return Some(w * 64 + self.bits[w].trailing_zeros() as usize);
            }
            s += 1;
            if s >= SUMMARY {
                return None;
            }
            m = self.summary[s];
        }
    }

    /// The wheel's least entry: its slot, the node before it in the
    /// slot's list (`NIL`: it is the first), the node, and its key.
    #[inline]
    fn wheel_min(&self) -> Option<(usize, u32, u32, u128)> {
        if self.in_wheel == 0 {
            return None;
        }
        let start = self.cur as usize % SLOTS;
        let i = self
            .occupied_from(start)
            .or_else(|| self.occupied_from(0))
            .expect("an occupied slot");
        let (mut best_prev, mut best) = (NIL, self.heads[i]);
        let mut key = self.nodes[best as usize].entry.key;
        let (mut prev, mut n) = (best, self.nodes[best as usize].next);
        while n != NIL {
            let node = &self.nodes[n as usize];
            if node.entry.key < key {
                (best_prev, best, key) = (prev, n, node.entry.key);
            }
            (prev, n) = (n, node.next);
        }
        Some((i, best_prev, best, key))
    }

    /// Removes the earliest event if it is due no later than `limit`, and
    /// advances the clock to it.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        let far = self.far.peek().map(|Reverse(e)| e.key);
        let e = match (self.wheel_min(), far) {
            (Some((i, prev, n, key)), f) if f.is_none_or(|f| key < f) => {
                if (key >> 64) as u64 > limit.as_nanos() {
                    return None;
                }
                let node = self.nodes[n as usize];
                if prev == NIL {
                    self.heads[i] = node.next;
                } else {
                    self.nodes[prev as usize].next = node.next;
                }
                self.nodes[n as usize].next = self.free;
                self.free = n;
                if self.heads[i] == NIL {
                    self.bits[i / 64] &= !(1 << (i % 64));
                    if self.bits[i / 64] == 0 {
                        self.summary[i / 4096] &= !(1 << ((i / 64) % 64));
                    }
                }
                self.in_wheel -= 1;
                node.entry
            }
            (_, Some(f)) => {
                if (f >> 64) as u64 > limit.as_nanos() {
                    return None;
                }
                let Reverse(e) = self.far.pop().expect("peeked");
                e
            }
            _ => return None,
        };
        let at = Time((e.key >> 64) as u64);
        self.now = at;
        self.cur = at.as_nanos() >> SLOT_SHIFT;
        self.popped += 1;
        Some((at, e.event))
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
        self.in_wheel + self.far.len()
    }

    /// Whether nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    #[test]
    fn pops_in_key_order_as_a_sorted_set_would() {
        // Pushes and pops interleaved, with many ties and times far apart:
        // the queue pops by (time, insertion order), as a sorted set does.
        let mut q = EventQueue::default();
        let mut reference = std::collections::BTreeSet::new();
        let mut x = 12345u64;
        let mut seq = 0u32;
        let mut popped = 0;
        for round in 0..5000u64 {
            for _ in 0..(round % 5) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Mostly soon, sometimes far ahead, often at the same time.
                let ahead = match x >> 62 {
                    0 => 0,
                    1 => (x >> 40) % 16,
                    2 => (x >> 20) % 100_000,
                    _ => (x >> 8) % 10_000_000_000,
                };
                let at = Time(q.now().as_nanos() + ahead);
                q.schedule(at, seq);
                reference.insert((at, seq));
                seq += 1;
            }
            if round % 3 != 0 {
                assert_eq!(q.pop_until(Time::NEVER), reference.pop_first());
                popped += 1;
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(e) = reference.pop_first() {
            assert_eq!(q.pop_until(Time::NEVER), Some(e));
            popped += 1;
        }
        assert!(q.is_empty());
        assert_eq!(q.pop_until(Time::NEVER), None);
        assert_eq!(q.popped(), popped);
    }
}
