//! Simulated time: an integer count of nanoseconds.
//!
//! Nothing in the core reads a clock. Engines pass `Time` in; the simulator
//! starts at [`Time::ZERO`], the emulator maps its monotonic clock onto it.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

impl Time {
    /// The start of every run.
    pub const ZERO: Time = Time(0);
    /// Later than any event; used as "never".
    pub const NEVER: Time = Time(u64::MAX);

    /// Nanoseconds since the start.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds since the start, for reports only (never for ordering).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    /// No time at all.
    pub const ZERO: Dur = Dur(0);
    /// A span of `n` nanoseconds.
    pub const fn from_nanos(n: u64) -> Dur {
        Dur(n)
    }
    /// A span of `n` microseconds.
    pub const fn from_micros(n: u64) -> Dur {
        Dur(n * 1_000)
    }
    /// A span of `n` milliseconds.
    pub const fn from_millis(n: u64) -> Dur {
        Dur(n * 1_000_000)
    }
    /// A span of `n` seconds.
    pub const fn from_secs(n: u64) -> Dur {
        Dur(n * 1_000_000_000)
    }
    /// The span nearest to `s` seconds (negative and NaN become zero).
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else {
            Dur((s * 1e9).round().min(u64::MAX as f64) as u64)
        }
    }
    /// Nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds, for arithmetic on rates and for reports.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Seconds as a report prints them: the nearest `f64` to the exact
    /// value (60 s is 60, where [`Dur::as_secs_f64`]'s product gives
    /// 60.00000000000001), for durations up to 2^53 ns (104 days).
    pub fn as_secs_exact(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// `self * k`, saturating.
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
    /// Time to serialise `bytes` at `bits_per_second` (rounded up to a nanosecond).
    pub fn transmission(bytes: u64, bits_per_second: u64) -> Dur {
        debug_assert!(bits_per_second > 0);
        // Any frame below 2 GiB fits 64 bits (a cheaper division, the same
        // quotient).
        if bytes <= u64::MAX / 8_000_000_000 {
            return Dur((bytes * 8_000_000_000).div_ceil(bits_per_second));
        }
        let bits = bytes as u128 * 8 * 1_000_000_000;
        let bps = bits_per_second as u128;
        Dur(bits.div_ceil(bps) as u64)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    /// Panics in debug builds if `rhs` is later than `self`: time only moves forward.
    fn sub(self, rhs: Time) -> Dur {
        debug_assert!(self.0 >= rhs.0, "time went backwards");
        Dur(self.0.saturating_sub(rhs.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns.is_multiple_of(1_000_000_000) {
            write!(f, "{}s", ns / 1_000_000_000)
        } else if ns.is_multiple_of(1_000_000) {
            write!(f, "{}ms", ns / 1_000_000)
        } else if ns.is_multiple_of(1_000) {
            write!(f, "{}us", ns / 1_000)
        } else {
            write!(f, "{ns}ns")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_rounds_up() {
        // 1500 B at 10 Mbit/s = 1.2 ms exactly.
        assert_eq!(Dur::transmission(1500, 10_000_000), Dur::from_micros(1200));
        // 1 B at 3 bit/s = 2.666.. s, rounded up.
        assert_eq!(Dur::transmission(1, 3), Dur(2_666_666_667));
    }

    #[test]
    fn display_picks_the_largest_exact_unit() {
        assert_eq!(Dur::from_millis(20).to_string(), "20ms");
        assert_eq!(Dur::from_secs(3).to_string(), "3s");
        assert_eq!(Dur(1500).to_string(), "1500ns");
    }
}
