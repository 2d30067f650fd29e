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
}
