//! TCP sequence numbers: 32-bit, compared modulo 2^32 (RFC 9293 §3.4).

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A TCP sequence or acknowledgment number. Ordering is modular: `a < b`
/// iff `b - a`, taken as a signed 32-bit number, is positive. Only compare
/// numbers less than 2^31 apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeqNum(pub u32);

impl SeqNum {
    /// The distance from `earlier` to `self` in bytes (negative if `self` is earlier).
    pub fn since(self, earlier: SeqNum) -> i32 {
        self.0.wrapping_sub(earlier.0) as i32
    }
    /// The larger of two sequence numbers, modulo 2^32.
    pub fn max(self, other: SeqNum) -> SeqNum {
        if self >= other {
            self
        } else {
            other
        }
    }
    /// `self` kept at most [`SeqNum::MAX_LAG`] behind `lead`: a mark left
    /// behind by a flow (a recovery point, an ISS) compares as "behind"
    /// only while it is less than 2^31 behind; 2^31 bytes later it reads as
    /// ahead. Pulling it up to `lead - MAX_LAG` whenever `lead` advances
    /// (by less than 2^30 at a time) keeps every comparison with a number
    /// above `lead - MAX_LAG` as the true distance says.
    #[must_use]
    pub fn trailing(self, lead: SeqNum) -> SeqNum {
        let lag = lead.0.wrapping_sub(self.0);
        if lag > Self::MAX_LAG && lag < 1 << 31 {
            lead - Self::MAX_LAG
        } else {
            self
        }
    }

    /// The farthest a mark may trail its lead (see [`SeqNum::trailing`]): 2^30.
    pub const MAX_LAG: u32 = 1 << 30;

    /// The smaller of two sequence numbers, modulo 2^32.
    pub fn min(self, other: SeqNum) -> SeqNum {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for SeqNum {
    fn partial_cmp(&self, other: &SeqNum) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for SeqNum {
    fn cmp(&self, other: &SeqNum) -> Ordering {
        self.since(*other).cmp(&0)
    }
}

impl Add<u32> for SeqNum {
    type Output = SeqNum;
    fn add(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_add(n))
    }
}
impl AddAssign<u32> for SeqNum {
    fn add_assign(&mut self, n: u32) {
        self.0 = self.0.wrapping_add(n);
    }
}
impl Sub<u32> for SeqNum {
    type Output = SeqNum;
    fn sub(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_sub(n))
    }
}
impl Sub<SeqNum> for SeqNum {
    type Output = i32;
    fn sub(self, rhs: SeqNum) -> i32 {
        self.since(rhs)
    }
}
impl fmt::Display for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_wraps() {
        let a = SeqNum(u32::MAX - 10);
        let b = a + 20;
        assert_eq!(b.0, 9);
        assert!(a < b);
        assert_eq!(b - a, 20);
        assert_eq!(a.max(b), b);
    }

    #[test]
    fn a_trailing_mark_is_pulled_up_to_its_lead() {
        let lead = SeqNum(5);
        // Within 2^30 behind, or ahead: unchanged.
        assert_eq!((lead - 1000).trailing(lead), lead - 1000);
        assert_eq!(SeqNum(100).trailing(lead), SeqNum(100));
        assert_eq!(
            (lead - SeqNum::MAX_LAG).trailing(lead),
            lead - SeqNum::MAX_LAG
        );
        // Farther behind (but still behind): pulled up to 2^30 behind.
        let far = lead - (SeqNum::MAX_LAG + 7);
        assert_eq!(far.trailing(lead), lead - SeqNum::MAX_LAG);
        assert!(far.trailing(lead) < lead);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Adding a distance below 2^31 moves a number ahead by exactly
            /// that distance, across 2^31 and 2^32 alike.
            #[test]
            fn distances_below_2_pow_31_order_and_subtract(a in any::<u32>(), d in 0u32..(1 << 31)) {
                let (a, b) = (SeqNum(a), SeqNum(a) + d);
                prop_assert_eq!(b - a, d as i32);
                prop_assert_eq!(a - b, -(d as i32));
                prop_assert_eq!(a <= b, true);
                prop_assert_eq!(a < b, d > 0);
                prop_assert_eq!(a.max(b), b);
                prop_assert_eq!(a.min(b), a);
                prop_assert_eq!(b - d, a);
            }

            /// A mark pulled up behind its lead compares with every number
            /// less than 2^30 behind the lead or ahead of it as its true
            /// distance says; left alone it may not.
            #[test]
            fn a_trailing_mark_keeps_true_order(
                lead in any::<u32>(),
                lag in 0u32..(1 << 31),
                x_off in (1 - (1i64 << 30))..(1i64 << 30),
            ) {
                let lead = SeqNum(lead);
                let mark = lead - lag;
                let x = SeqNum((i64::from(lead.0) + x_off).rem_euclid(1 << 32) as u32);
                // The true distance from the mark to x, without wrapping.
                let truth = x_off + i64::from(lag);
                let kept = mark.trailing(lead);
                prop_assert!(kept <= lead);
                prop_assert!(kept >= mark);
                prop_assert_eq!(kept.cmp(&x), 0.cmp(&truth));
            }
        }
    }
}
