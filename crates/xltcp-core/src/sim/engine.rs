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
/// Three parts, merged at each pop by their least keys: a wheel of slots
/// for the events due within about 16.8 ms of the clock (a packet's
/// arrival after a link's delay, a MAC's slots and backoffs: most of a
/// run's events), each slot an unsorted list of
/// entries found through a bitmap of occupied slots; the entries of the
/// clock's own slot (`near`), sorted; and a binary heap (`far`) for the
/// events further ahead (TCP's timers, sampling ticks). An event scheduled
/// within the window costs a list insertion; when the clock reaches a
/// slot, the slot's entries move into `near` and are sorted once, and each
/// of their pops takes the last (where a walk of the slot's list at every
/// pop cost the square of its length: thousands of flows with equal paths
/// put hundreds of events in one slot). Keys are unique, so the pop order
/// is the key order whichever part holds an entry.
///
/// The slots' entries live in one pool of nodes, linked per slot, with
/// freed nodes reused: the pool grows to the most entries the wheel ever
/// held at once and then allocates no more; `near` to the most entries of
/// one slot.
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
    /// The absolute slot of the clock: the slots' lists hold slots after
    /// it, `near` every entry of it or before.
    cur: u64,
    /// Sorted by key, the least last.
    near: Vec<Entry<E>>,
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
            near: Vec::with_capacity(64),
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
        if slot <= self.cur {
            // Usually the least (due now): the end, with nothing to move.
            let i = self.near.partition_point(|e| e.key > key);
            self.near.insert(i, Entry { key, event });
        } else if slot < self.cur + SLOTS as u64 {
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

    /// Schedules `events` in order, as [`EventQueue::schedule`] would one
    /// by one, but with one sort of the clock's slot for all of those due
    /// in it rather than an insertion into it each. Each such event comes
    /// after all the others in the slot (its sequence number is the
    /// largest), so its insertion moved every entry before it: a world of
    /// n flows that all start at one instant paid n²/2 moves (1.6 GB of
    /// copying at 10,000 flows).
    pub fn schedule_all(&mut self, events: impl IntoIterator<Item = (Time, E)>) {
        let before = self.near.len();
        for (at, event) in events {
            if at.as_nanos() >> SLOT_SHIFT > self.cur {
                self.schedule(at, event);
                continue;
            }
            debug_assert!(at >= self.now, "event scheduled in the past");
            let key = (u128::from(at.as_nanos()) << 64) | u128::from(self.next_seq);
            self.next_seq += 1;
            self.near.push(Entry { key, event });
        }
        if self.near.len() > before {
            self.near.sort_unstable_by_key(|e| Reverse(e.key));
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

    /// The first occupied slot of the wheel after the clock's: its index
    /// and its absolute slot.
    #[inline]
    fn next_slot(&self) -> (usize, u64) {
        let start = self.cur as usize % SLOTS;
        let i = self
            .occupied_from(start)
            .or_else(|| self.occupied_from(0))
            .expect("an occupied slot");
        let ahead = (i + SLOTS - start) % SLOTS;
        (i, self.cur + ahead as u64)
    }

    /// Moves the entries of slot `i` (absolute slot `abs`) into `near`,
    /// sorted, and the clock's slot to it (`near` is empty).
    #[inline]
    fn load(&mut self, i: usize, abs: u64) {
        let mut n = self.heads[i];
        while n != NIL {
            let node = self.nodes[n as usize];
            self.near.push(node.entry);
            self.nodes[n as usize].next = self.free;
            self.free = n;
            self.in_wheel -= 1;
            n = node.next;
        }
        self.heads[i] = NIL;
        self.bits[i / 64] &= !(1 << (i % 64));
        if self.bits[i / 64] == 0 {
            self.summary[i / 4096] &= !(1 << ((i / 64) % 64));
        }
        if self.near.len() > 1 {
            self.near.sort_unstable_by_key(|e| Reverse(e.key));
        }
        self.cur = abs;
    }

    /// Pops `entry`, the only one of slot `i` (absolute slot `abs`), in
    /// node `n`, if it is due no later than `limit`.
    #[inline]
    fn pop_lone(
        &mut self,
        i: usize,
        abs: u64,
        n: u32,
        entry: Entry<E>,
        limit: Time,
    ) -> Option<(Time, E)> {
        let at = Time((entry.key >> 64) as u64);
        if at > limit {
            return None;
        }
        self.heads[i] = NIL;
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.bits[i / 64] &= !(1 << (i % 64));
        if self.bits[i / 64] == 0 {
            self.summary[i / 4096] &= !(1 << ((i / 64) % 64));
        }
        self.in_wheel -= 1;
        self.now = at;
        self.cur = abs;
        self.popped += 1;
        Some((at, entry.event))
    }

    /// Removes the earliest event if it is due no later than `limit`, and
    /// advances the clock to it.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        if self.near.is_empty() && self.in_wheel > 0 {
            let (i, abs) = self.next_slot();
            // An entry of `far` in an earlier slot goes first; one in the
            // same slot is compared with the slot's entries below.
            let far_first = self
                .far
                .peek()
                .is_some_and(|Reverse(f)| ((f.key >> 64) as u64 >> SLOT_SHIFT) < abs);
            if !far_first {
                if abs << SLOT_SHIFT > limit.as_nanos() {
                    return None;
                }
                let head = self.heads[i];
                let lone = self.nodes[head as usize];
                let far = self.far.peek().map(|Reverse(f)| f.key);
                if lone.next == NIL && far.is_none_or(|f| lone.entry.key < f) {
                    // A lone entry (the usual slot): it pops from its list.
                    return self.pop_lone(i, abs, head, lone.entry, limit);
                }
                self.load(i, abs);
            }
        }
        let near = self.near.last().map(|e| e.key);
        let far = self.far.peek().map(|Reverse(e)| e.key);
        let (key, from_near) = match (near, far) {
            (Some(n), f) if f.is_none_or(|f| n < f) => (n, true),
            (_, Some(f)) => (f, false),
            _ => return None,
        };
        if (key >> 64) as u64 > limit.as_nanos() {
            return None;
        }
        let e = if from_near {
            self.near.pop()
        } else {
            self.far.pop().map(|Reverse(e)| e)
        }
        .expect("peeked");
        let at = Time((e.key >> 64) as u64);
        self.now = at;
        self.cur = self.cur.max(at.as_nanos() >> SLOT_SHIFT);
        self.popped += 1;
        Some((at, e.event))
    }

    /// The event that will pop `k` places after the next one, if the
    /// clock's slot holds it: a hint only (an event scheduled meanwhile may
    /// pop first).
    #[inline]
    pub fn peek_near(&self, k: usize) -> Option<&E> {
        let i = self.near.len().checked_sub(k + 1)?;
        Some(&self.near[i].event)
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
        self.in_wheel + self.near.len() + self.far.len()
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
    fn a_slot_loaded_past_the_limit_still_takes_earlier_events() {
        // The slot of t = 5000 starts before the limit: its two entries
        // move into `near` though neither is due; an event scheduled after
        // that, in an earlier slot, still pops first.
        let mut q = EventQueue::default();
        q.schedule(Time(5000), 'b');
        q.schedule(Time(5001), 'd');
        assert_eq!(q.pop_until(Time(4500)), None);
        q.schedule(Time(3000), 'a');
        q.schedule(Time(5000), 'c');
        let order: Vec<char> =
            std::iter::from_fn(|| q.pop_until(Time::NEVER).map(|e| e.1)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn a_crowded_slot_pops_in_key_order() {
        // A thousand entries in one slot, scheduled out of order, with
        // more joining the clock's slot while it drains.
        let mut q = EventQueue::default();
        let mut reference = std::collections::BTreeSet::new();
        for k in 0..1000u64 {
            let at = Time(2048 + (k * 7919) % 1000);
            q.schedule(at, k);
            reference.insert((at, k));
        }
        let mut k = 1000;
        while let Some((at, e)) = q.pop_until(Time::NEVER) {
            assert_eq!(Some((at, e)), reference.pop_first());
            if k < 1500 {
                let next = Time(at.as_nanos() + k % 3);
                q.schedule(next, k);
                reference.insert((next, k));
                k += 1;
            }
        }
        assert!(reference.is_empty());
    }
    #[test]
    fn scheduling_all_at_once_pops_as_one_by_one() {
        // Entries due in the clock's slot (some tied), after it and far
        // ahead, into a queue already holding some: the same pops.
        let times = |k: u64| Time([0, 3, 0, 900, 5000, 0, 40_000_000][k as usize % 7] + k % 2);
        let (mut one, mut all) = (EventQueue::default(), EventQueue::default());
        for q in [&mut one, &mut all] {
            q.schedule(Time(2), 100u64);
            q.schedule(Time(0), 101);
        }
        for k in 0..50 {
            one.schedule(times(k), k);
        }
        all.schedule_all((0..50).map(|k| (times(k), k)));
        assert_eq!(one.len(), all.len());
        while let Some(e) = one.pop_until(Time::NEVER) {
            assert_eq!(all.pop_until(Time::NEVER), Some(e));
        }
        assert!(all.is_empty());
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
