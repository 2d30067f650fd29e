//! Availability of the wireless hop: when it is blocked (a primary user is
//! active, a blackout), nothing is sent on it in either direction.
//!
//! The schedule is generated lazily from its own named stream, so memory
//! does not grow with the run's length and every scheme sees the same
//! blockages for a given seed.

use crate::rng::Rng;
use crate::scenario::{AvailabilitySpec, Period};
use crate::time::{Dur, Time};
use rand::RngExt;
use rand_distr::{Distribution, Exp1};

/// A two-state (available / blocked) process.
#[derive(Debug)]
pub struct Availability {
    kind: Kind,
    blocked: bool,
    next_change: Time,
    rng: Rng,
}

#[derive(Debug)]
enum Kind {
    Always,
    OnOff { on: Period, off: Period },
    Intervals { list: Vec<(Dur, Dur)>, next: usize },
}

/// One period of `period` (at least 1 ns).
pub(crate) fn draw(period: Period, rng: &mut Rng) -> Dur {
    match period {
        Period::Fixed(d) => d,
        Period::Exp(mean) => {
            let x: f64 = Exp1.sample(rng);
            // At least 1 ns so that the schedule always moves forward.
            Dur::from_nanos(((mean.as_nanos() as f64) * x).round().max(1.0) as u64)
        }
    }
}

impl Availability {
    /// The process of `spec`, starting at time zero.
    pub fn new(spec: &AvailabilitySpec, mut rng: Rng) -> Availability {
        let (kind, blocked, next_change) = match spec {
            AvailabilitySpec::Always => (Kind::Always, false, Time::NEVER),
            AvailabilitySpec::OnOff {
                on,
                off,
                start_blocked,
            } => {
                let first = draw(if *start_blocked { *off } else { *on }, &mut rng);
                let kind = Kind::OnOff { on: *on, off: *off };
                (kind, *start_blocked, Time::ZERO + first)
            }
            AvailabilitySpec::Intervals(list) => {
                let kind = Kind::Intervals {
                    list: list.clone(),
                    next: 0,
                };
                let mut a = Availability {
                    kind,
                    blocked: false,
                    next_change: Time::NEVER,
                    rng,
                };
                a.next_change = a.interval_edge();
                if a.next_change == Time::ZERO {
                    a.advance();
                }
                return a;
            }
        };
        // Keep the stream from being unused for deterministic kinds.
        let _ = rng.random::<u8>();
        Availability {
            kind,
            blocked,
            next_change,
            rng,
        }
    }

    fn interval_edge(&self) -> Time {
        match &self.kind {
            Kind::Intervals { list, next } => match list.get(*next) {
                Some(&(start, end)) => Time::ZERO + if self.blocked { end } else { start },
                None => Time::NEVER,
            },
            _ => unreachable!(),
        }
    }

    /// Whether the hop is blocked now.
    pub fn blocked(&self) -> bool {
        self.blocked
    }

    /// When the state changes next ([`Time::NEVER`] if never).
    pub fn next_change(&self) -> Time {
        self.next_change
    }

    /// Flips the state at `next_change` and draws the following change.
    pub fn advance(&mut self) {
        let at = self.next_change;
        self.blocked = !self.blocked;
        match &mut self.kind {
            Kind::Always => self.next_change = Time::NEVER,
            Kind::OnOff { on, off } => {
                let period = if self.blocked { *off } else { *on };
                self.next_change = at + draw(period, &mut self.rng);
            }
            Kind::Intervals { next, .. } => {
                if !self.blocked {
                    *next += 1;
                }
                self.next_change = self.interval_edge();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn blocked_share(spec: &AvailabilitySpec, until: Time) -> f64 {
        let mut a = Availability::new(spec, stream(3, "pu"));
        let (mut t, mut blocked) = (Time::ZERO, Dur::ZERO);
        while t < until {
            let next = a.next_change().min(until);
            if a.blocked() {
                blocked += next - t;
            }
            t = next;
            if t < until {
                a.advance();
            }
        }
        blocked.as_secs_f64() / until.as_secs_f64()
    }

    #[test]
    fn onoff_exponential_shares_time_by_means() {
        let spec = AvailabilitySpec::OnOff {
            on: Period::Exp(Dur::from_secs(4)),
            off: Period::Exp(Dur::from_secs(1)),
            start_blocked: false,
        };
        let share = blocked_share(&spec, Time::ZERO + Dur::from_secs(200_000));
        assert!((share - 0.2).abs() < 0.01, "blocked share {share}");
    }

    #[test]
    fn intervals_block_exactly_the_listed_times() {
        let spec = AvailabilitySpec::Intervals(vec![
            (Dur::ZERO, Dur::from_secs(1)),
            (Dur::from_secs(3), Dur::from_secs(4)),
        ]);
        let mut a = Availability::new(&spec, stream(1, "pu"));
        assert!(a.blocked());
        assert_eq!(a.next_change(), Time::ZERO + Dur::from_secs(1));
        a.advance();
        assert!(!a.blocked());
        assert_eq!(a.next_change(), Time::ZERO + Dur::from_secs(3));
        a.advance();
        assert!(a.blocked());
        a.advance();
        assert_eq!(a.next_change(), Time::NEVER);
        assert!(!a.blocked());
    }

    #[test]
    fn fixed_periods_alternate() {
        let spec = AvailabilitySpec::OnOff {
            on: Period::Fixed(Dur::from_secs(2)),
            off: Period::Fixed(Dur::from_secs(1)),
            start_blocked: false,
        };
        assert!((blocked_share(&spec, Time::ZERO + Dur::from_secs(30)) - 1.0 / 3.0).abs() < 1e-9);
    }
}
