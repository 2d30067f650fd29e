//! The sender's SACK scoreboard (RFC 2018 §5, RFC 6675 §4).
//!
//! SACKed ranges above SND.UNA are kept sorted and merged. Because no
//! SACKed byte lies inside a hole, IsLost is the same for every byte of a
//! hole, so SetPipe and NextSeg work on holes instead of single bytes.

use crate::wire::{SackBlock, SeqNum};

/// RFC 6675 DupThresh.
pub const DUP_THRESH: u64 = 3;

/// SACKed ranges `[left, right)`, sorted, disjoint and non-adjacent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    ranges: Vec<(SeqNum, SeqNum)>,
}

/// What NextSeg chose (RFC 6675 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit `[seq, seq+len)` (rules 1 and 3).
    Retransmit {
        /// First byte.
        seq: SeqNum,
        /// Length in bytes.
        len: u32,
    },
    /// Send new data (rule 2).
    NewData,
    /// Rescue retransmission of `[seq, seq+len)` (rule 4).
    Rescue {
        /// First byte.
        seq: SeqNum,
        /// Length in bytes.
        len: u32,
    },
}

impl Scoreboard {
    /// The SACKed ranges, lowest first.
    pub fn ranges(&self) -> &[(SeqNum, SeqNum)] {
        &self.ranges
    }

    /// Whether nothing is SACKed.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// RFC 2018 §8: forgets every SACKed mark (done on RTO).
    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    /// Highest SACKed sequence number (exclusive end), if any.
    pub fn highest_sacked(&self) -> Option<SeqNum> {
        self.ranges.last().map(|r| r.1)
    }

    /// Adds one block, already clipped to `(snd_una, snd_max]`. Returns the
    /// number of bytes newly SACKed.
    pub fn add(&mut self, b: SackBlock) -> u64 {
        if b.left >= b.right {
            return 0;
        }
        let before = self.sacked_bytes();
        // Ranges [i, j) touch or overlap the block; merge them in place.
        let i = self.ranges.partition_point(|&(_, r)| r < b.left);
        let j = self.ranges.partition_point(|&(l, _)| l <= b.right);
        let (mut left, mut right) = (b.left, b.right);
        if i < j {
            left = left.min(self.ranges[i].0);
            right = right.max(self.ranges[j - 1].1);
            self.ranges.drain(i + 1..j);
            self.ranges[i] = (left, right);
        } else {
            self.ranges.insert(i, (left, right));
        }
        self.sacked_bytes() - before
    }

    /// Drops everything below the cumulative ACK `una`.
    pub fn advance(&mut self, una: SeqNum) {
        self.ranges.retain(|&(_, r)| r > una);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(una);
        }
    }

    /// Total SACKed bytes.
    pub fn sacked_bytes(&self) -> u64 {
        self.ranges.iter().map(|&(l, r)| (r - l) as u64).sum()
    }

    /// Whether `seq` lies inside a SACKed range.
    pub fn is_sacked(&self, seq: SeqNum) -> bool {
        self.ranges.iter().any(|&(l, r)| l <= seq && seq < r)
    }

    /// The end of the SACKed range starting at or covering `seq`, if any.
    pub fn sacked_until(&self, seq: SeqNum) -> Option<SeqNum> {
        self.ranges
            .iter()
            .find(|&&(l, r)| l <= seq && seq < r)
            .map(|r| r.1)
    }

    /// RFC 6675 IsLost(S) for a byte S whose next SACKed byte is at or above
    /// `above`: DupThresh discontiguous SACKed ranges above it, or more than
    /// (DupThresh - 1) * SMSS SACKed bytes above it.
    pub fn is_lost(&self, s: SeqNum, smss: u64) -> bool {
        let mut count = 0;
        let mut bytes = 0u64;
        for &(l, r) in &self.ranges {
            if r > s + 1 {
                count += 1;
                bytes += (r - l.max(s + 1)) as u64;
            }
        }
        count >= DUP_THRESH || bytes > (DUP_THRESH - 1) * smss
    }

    /// The un-SACKed holes in `[una, high_data)`, lowest first.
    pub fn holes(
        &self,
        una: SeqNum,
        high_data: SeqNum,
    ) -> impl Iterator<Item = (SeqNum, SeqNum)> + '_ {
        let mut at = una;
        let mut ranges = self.ranges.iter();
        let mut done = false;
        std::iter::from_fn(move || {
            while !done {
                let hole = match ranges.next() {
                    Some(&(l, r)) => {
                        let hole = (at, l.min(high_data));
                        at = at.max(r);
                        hole
                    }
                    None => {
                        done = true;
                        (at, high_data)
                    }
                };
                if hole.0 < hole.1 {
                    return Some(hole);
                }
            }
            None
        })
    }

    /// RFC 6675 SetPipe(): un-SACKed bytes in `[una, high_data)` not judged
    /// lost, plus those retransmitted (below `high_rxt`) once more.
    pub fn pipe(&self, una: SeqNum, high_data: SeqNum, high_rxt: SeqNum, smss: u64) -> u64 {
        let mut pipe = 0u64;
        for (l, r) in self.holes(una, high_data) {
            if !self.is_lost(l, smss) {
                pipe += (r - l) as u64;
            }
            if high_rxt > l {
                pipe += (high_rxt.min(r) - l) as u64;
            }
        }
        pipe
    }

    /// RFC 6675 NextSeg() rules 1-4. `new_data` says whether unsent data
    /// exists and the receive window allows it; `rescue_allowed` whether
    /// rule 4 may fire (HighACK > RescueRxt or RescueRxt unset).
    pub fn next_seg(
        &self,
        una: SeqNum,
        high_data: SeqNum,
        high_rxt: SeqNum,
        smss: u32,
        new_data: bool,
        rescue_allowed: bool,
    ) -> Option<NextSeg> {
        let highest = self.highest_sacked();
        // Candidates for rules 1 and 3: un-SACKed bytes above HighRxt and
        // below the highest SACKed byte.
        let candidates = self.holes(una, high_data).filter_map(|(l, r)| {
            let start = l.max(high_rxt);
            match highest {
                Some(h) if start < r && start < h => Some((start, r)),
                _ => None,
            }
        });
        let mut rule3 = None;
        for (start, end) in candidates {
            let len = ((end - start) as u32).min(smss);
            // RFC 6675 NextSeg (1): the first lost one.
            if self.is_lost(start, smss as u64) {
                return Some(NextSeg::Retransmit { seq: start, len });
            }
            rule3.get_or_insert(NextSeg::Retransmit { seq: start, len });
        }
        // RFC 6675 NextSeg (2): new data.
        if new_data {
            return Some(NextSeg::NewData);
        }
        // RFC 6675 NextSeg (3): any un-SACKed byte above HighRxt.
        if rule3.is_some() {
            return rule3;
        }
        // RFC 6675 NextSeg (4): one rescue retransmission per recovery, of
        // the segment holding the highest un-SACKed outstanding byte.
        if rescue_allowed {
            if let Some((l, r)) = self.holes(una, high_data).last() {
                let start = l.max(r - smss);
                return Some(NextSeg::Rescue {
                    seq: start,
                    len: (r - start) as u32,
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sb(ranges: &[(u32, u32)]) -> Scoreboard {
        let mut s = Scoreboard::default();
        for &(l, r) in ranges {
            s.add(SackBlock {
                left: SeqNum(l),
                right: SeqNum(r),
            });
        }
        s
    }

    #[test]
    fn add_merges_and_counts_new_bytes() {
        let mut s = sb(&[(300, 400), (100, 200)]);
        assert_eq!(
            s.ranges(),
            &[(SeqNum(100), SeqNum(200)), (SeqNum(300), SeqNum(400))]
        );
        assert_eq!(
            s.add(SackBlock {
                left: SeqNum(150),
                right: SeqNum(320)
            }),
            100
        );
        assert_eq!(s.ranges(), &[(SeqNum(100), SeqNum(400))]);
        assert_eq!(
            s.add(SackBlock {
                left: SeqNum(100),
                right: SeqNum(400)
            }),
            0
        );
        s.advance(SeqNum(250));
        assert_eq!(s.ranges(), &[(SeqNum(250), SeqNum(400))]);
    }

    #[test]
    fn is_lost_by_three_ranges_or_by_bytes() {
        // SMSS 100. Two ranges of 100 B above 0: not lost (200 B = 2 SMSS, not more).
        let s = sb(&[(100, 200), (300, 400)]);
        assert!(!s.is_lost(SeqNum(0), 100));
        // Three discontiguous ranges: lost.
        let s = sb(&[(100, 110), (300, 310), (500, 510)]);
        assert!(s.is_lost(SeqNum(0), 100));
        assert!(!s.is_lost(SeqNum(200), 100), "only two ranges above 200");
        // More than 2 SMSS SACKed above in one range: lost.
        let s = sb(&[(100, 301)]);
        assert!(s.is_lost(SeqNum(0), 100));
    }

    #[test]
    fn pipe_counts_unlost_holes_and_retransmissions_twice() {
        // Segments of 100: 0 lost, 100..400 SACKed, 400..500 outstanding.
        let s = sb(&[(100, 400)]);
        // Hole [0,100) has 300 B SACKed above: lost -> 0. Hole [400,500): not lost -> 100.
        assert_eq!(s.pipe(SeqNum(0), SeqNum(500), SeqNum(0), 100), 100);
        // After retransmitting [0,100): counted once more.
        assert_eq!(s.pipe(SeqNum(0), SeqNum(500), SeqNum(100), 100), 200);
    }

    #[test]
    fn next_seg_rules_in_order() {
        let s = sb(&[(100, 400)]);
        let una = SeqNum(0);
        let hd = SeqNum(500);
        // Rule 1: lost hole [0,100).
        assert_eq!(
            s.next_seg(una, hd, SeqNum(0), 100, true, true),
            Some(NextSeg::Retransmit {
                seq: SeqNum(0),
                len: 100
            })
        );
        // After retransmitting it (HighRxt = 100): rule 2, new data.
        assert_eq!(
            s.next_seg(una, hd, SeqNum(100), 100, true, true),
            Some(NextSeg::NewData)
        );
        // No new data, nothing above HighRxt below the highest SACK: rule 4.
        assert_eq!(
            s.next_seg(una, hd, SeqNum(100), 100, false, true),
            Some(NextSeg::Rescue {
                seq: SeqNum(400),
                len: 100
            })
        );
        assert_eq!(s.next_seg(una, hd, SeqNum(100), 100, false, false), None);
        // Rule 3: a hole that is not lost yet, below the highest SACK.
        let s = sb(&[(100, 200)]);
        assert_eq!(
            s.next_seg(una, SeqNum(300), SeqNum(0), 100, false, false),
            Some(NextSeg::Retransmit {
                seq: SeqNum(0),
                len: 100
            })
        );
        assert!(!s.is_lost(SeqNum(0), 100));
    }
}

#[cfg(test)]
mod model_tests {
    //! The scoreboard against a per-byte model.
    use super::*;
    use proptest::prelude::*;

    const SMSS: u64 = 10;
    const BASE: u32 = u32::MAX - 100; // exercise wrap-around

    fn seq(k: u32) -> SeqNum {
        SeqNum(BASE.wrapping_add(k))
    }

    proptest! {
        #[test]
        fn matches_a_byte_model(
            blocks in proptest::collection::vec((0u32..200, 1u32..40), 0..12),
            una in 0u32..100,
            high_rxt in 0u32..200,
        ) {
            let mut sb = Scoreboard::default();
            let mut model = [false; 240];
            for &(l, n) in &blocks {
                let new = sb.add(SackBlock { left: seq(l), right: seq(l + n) });
                let mut fresh = 0;
                for b in &mut model[l as usize..(l + n) as usize] {
                    fresh += u64::from(!*b);
                    *b = true;
                }
                prop_assert_eq!(new, fresh);
            }
            sb.advance(seq(una));
            for b in &mut model[..una as usize] {
                *b = false;
            }
            // Ranges: sorted, disjoint, non-adjacent, equal to the model.
            let mut from_ranges = [false; 240];
            for w in sb.ranges().windows(2) {
                prop_assert!(w[0].1 < w[1].0);
            }
            for &(l, r) in sb.ranges() {
                for k in (l - seq(0))..(r - seq(0)) {
                    from_ranges[k as usize] = true;
                }
            }
            prop_assert_eq!(&from_ranges[..], &model[..]);
            // IsLost per byte.
            let high = 240u32;
            for s in una..high {
                let above: Vec<usize> = (s as usize + 1..240).filter(|&k| model[k]).collect();
                let mut ranges = 0;
                for (i, &k) in above.iter().enumerate() {
                    if i == 0 || above[i - 1] + 1 != k {
                        ranges += 1;
                    }
                }
                let lost = ranges >= 3 || above.len() as u64 > 2 * SMSS;
                if !model[s as usize] {
                    prop_assert_eq!(sb.is_lost(seq(s), SMSS), lost, "byte {}", s);
                }
            }
            // SetPipe per byte.
            let mut pipe = 0;
            for s in una..high {
                if model[s as usize] {
                    continue;
                }
                let above: Vec<usize> = (s as usize + 1..240).filter(|&k| model[k]).collect();
                let mut ranges = 0;
                for (i, &k) in above.iter().enumerate() {
                    if i == 0 || above[i - 1] + 1 != k {
                        ranges += 1;
                    }
                }
                let lost = ranges >= 3 || above.len() as u64 > 2 * SMSS;
                pipe += u64::from(!lost) + u64::from(s < high_rxt);
            }
            prop_assert_eq!(sb.pipe(seq(una), seq(high), seq(high_rxt), SMSS), pipe);
        }
    }
}
