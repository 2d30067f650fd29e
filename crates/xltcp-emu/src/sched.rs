//! The hop's bookkeeping: its deadlines (ordered by time, then insertion)
//! and the slab of real datagrams its links carry by uid.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use xltcp_core::hop::HopTimer;
use xltcp_core::time::Time;

/// A deadline of the hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    /// A link finished serialising the frame of this generation.
    TxDone {
        /// Link index.
        link: u32,
        /// Transmission generation.
        gen: u32,
    },
    /// The head of a link's propagation pipe arrives.
    Arrive {
        /// Link index.
        link: u32,
    },
    /// The wireless hop's availability changes.
    Availability,
    /// The scenario's end: the hop stays open for the applications' wind-down.
    End,
    /// A base-station agent's deadline may be due.
    Agent {
        /// The agent's slot.
        slot: u32,
    },
    /// One of the simulator's hop's own timers (802.15.4, 802.11) is due.
    Hop(HopTimer),
}

/// Deadlines ordered by (time, insertion order).
#[derive(Debug, Default)]
pub struct Deadlines {
    heap: BinaryHeap<Reverse<(Time, u64, Ev)>>,
    seq: u64,
}

impl Deadlines {
    /// Schedules `ev` at `at`.
    pub fn schedule(&mut self, at: Time, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, ev)));
    }
    /// The earliest deadline, if any.
    pub fn next(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse(e)| e.0)
    }
    /// Removes the earliest deadline if it is due by `now`.
    pub fn pop_due(&mut self, now: Time) -> Option<(Time, Ev)> {
        match self.heap.peek() {
            Some(Reverse(e)) if e.0 <= now => self.heap.pop().map(|Reverse((at, _, ev))| (at, ev)),
            _ => None,
        }
    }
}

/// Real datagrams held while their compact packet is in a link. A
/// packet's uid is its slot index in the low 32 bits and the count of
/// insertions before it in the high 32, so a slot reused for a new
/// datagram gives it a new uid: an agent that keys its state by uid (as
/// L2-CLAMP's BS half keys the ACKs waiting for the MAC's reports, which
/// may come after the frame was written out and its slot freed) never
/// mistakes one datagram for another. Buffers are reused, so a warm slab
/// does not allocate.
#[derive(Debug, Default)]
pub struct Slab {
    bufs: Vec<Vec<u8>>,
    free: Vec<u32>,
    live: usize,
    inserted: u32,
}

impl Slab {
    /// Stores a copy of `bytes`; returns its uid.
    pub fn insert(&mut self, bytes: &[u8]) -> u64 {
        self.live += 1;
        let slot = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                self.bufs.push(Vec::with_capacity(bytes.len().max(1600)));
                self.bufs.len() - 1
            }
        };
        let b = &mut self.bufs[slot];
        b.clear();
        b.extend_from_slice(bytes);
        let uid = u64::from(self.inserted) << 32 | slot as u64;
        self.inserted = self.inserted.wrapping_add(1);
        uid
    }
    /// The datagram of `uid`.
    pub fn get_mut(&mut self, uid: u64) -> &mut Vec<u8> {
        &mut self.bufs[uid as u32 as usize]
    }
    /// Releases `uid`.
    pub fn remove(&mut self, uid: u64) {
        self.live -= 1;
        self.free.push(uid as u32);
    }
    /// Datagrams held.
    pub fn live(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn a_reused_slot_gives_a_new_uid() {
        let mut slab = Slab::default();
        let a = slab.insert(b"first");
        slab.remove(a);
        let b = slab.insert(b"second");
        assert_ne!(a, b, "the slot is reused, the uid is not");
        assert_eq!(a as u32, b as u32, "same slot");
        assert_eq!(slab.get_mut(b).as_slice(), b"second");
        assert_eq!(slab.live(), 1);
    }
}
