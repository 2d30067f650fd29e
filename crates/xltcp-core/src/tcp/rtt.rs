//! RTT estimation and the retransmission timeout (RFC 6298).
//!
//! Clock granularity G is 1 ms. Samples are whole nanoseconds; the RTO is
//! clamped to `[min_rto, max_rto]` and backed off by doubling.

use crate::time::Dur;

/// Clock granularity G of RFC 6298 (2.2).
pub const CLOCK_GRANULARITY: Dur = Dur::from_millis(1);

/// SRTT, RTTVAR and the (backed-off) RTO.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    /// RTO computed from the samples, before back-off.
    base_rto: Dur,
    /// Number of doublings since the last valid sample.
    backoff: u32,
    min_rto: Dur,
    max_rto: Dur,
    /// Back-offs of the handshake that `max_rto` does not cap (ns-3's SYN
    /// retries), until [`RttEstimator::end_syn_backoff`].
    uncapped: bool,
    /// `min_rto` bounds 4·RTTVAR rather than the RTO (Linux).
    min_on_variance: bool,
}

impl RttEstimator {
    /// A fresh estimator: RTO = `initial_rto` (RFC 6298 (2.1)).
    pub fn new(initial_rto: Dur, min_rto: Dur, max_rto: Dur) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            base_rto: initial_rto,
            backoff: 0,
            min_rto,
            max_rto,
            uncapped: false,
            min_on_variance: false,
        }
    }

    /// As Linux computes it: `min_rto` bounds the variance term, RTO =
    /// SRTT + max(4·RTTVAR, min_rto) ([`crate::tcp::MinRtoMode::Linux`]).
    pub fn with_min_on_variance(mut self) -> RttEstimator {
        self.min_on_variance = true;
        self
    }

    /// Feeds one RTT measurement `r`; clears the back-off (RFC 6298 (5.7)).
    pub fn on_sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                // RFC 6298 (2.2): SRTT = R, RTTVAR = R/2.
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR first, from the old SRTT; beta = 1/4.
                let delta = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + delta) / 4);
                // Then SRTT; alpha = 1/8.
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        // RFC 6298 (2.2)/(2.3): RTO = SRTT + max(G, K*RTTVAR), K = 4; Linux
        // puts its minimum in place of G.
        let floor = if self.min_on_variance {
            self.min_rto.max(CLOCK_GRANULARITY)
        } else {
            CLOCK_GRANULARITY
        };
        self.base_rto = srtt + floor.max(self.rttvar.saturating_mul(4));
        self.backoff = 0;
    }

    /// RFC 6298 (5.5): doubles the RTO (capped at the maximum).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff = self.backoff.saturating_add(1);
        }
    }

    /// ns-3's SYN back-off: doubles the RTO with no cap, until
    /// [`RttEstimator::end_syn_backoff`].
    pub fn back_off_uncapped(&mut self) {
        self.uncapped = true;
        self.backoff = self.backoff.saturating_add(1);
    }

    /// The handshake is over: `max_rto` caps the RTO again.
    pub fn end_syn_backoff(&mut self) {
        self.uncapped = false;
    }

    /// RFC 6298 (5.7): after a SYN timed out, the RTO for data is at least 3 s.
    pub fn reset_after_syn_timeout(&mut self) {
        let three = Dur::from_secs(3);
        if self.rto() < three {
            self.base_rto = three;
            self.backoff = 0;
        }
    }

    /// The current RTO: the clamped base value doubled `backoff` times, at most `max_rto`.
    pub fn rto(&self) -> Dur {
        // RFC 6298 (2.4): round up to min_rto; (2.5): cap at max_rto.
        let base = self.base_rto.max(self.min_rto).min(self.max_rto);
        let factor = 1u64.checked_shl(self.backoff.min(63)).unwrap_or(u64::MAX);
        let rto = base.saturating_mul(factor);
        if self.uncapped {
            rto
        } else {
            rto.min(self.max_rto)
        }
    }

    /// Smoothed RTT, once a sample exists.
    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    /// RTT variation, once a sample exists.
    pub fn rttvar(&self) -> Option<Dur> {
        self.srtt.map(|_| self.rttvar)
    }

    /// Doublings since the last valid sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Dur::from_secs(1), Dur::from_millis(200), Dur::from_secs(60))
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.on_sample(Dur::from_millis(100));
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rttvar(), Some(Dur::from_millis(50)));
        // 100 + 4*50 = 300 ms.
        assert_eq!(e.rto(), Dur::from_millis(300));
    }

    #[test]
    fn rttvar_is_updated_with_the_old_srtt() {
        let mut e = est();
        e.on_sample(Dur::from_millis(100));
        e.on_sample(Dur::from_millis(200));
        // RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5 ms (old SRTT used).
        assert_eq!(e.rttvar(), Some(Dur::from_micros(62_500)));
        // SRTT = 7/8*100 + 1/8*200 = 112.5 ms.
        assert_eq!(e.srtt(), Some(Dur::from_micros(112_500)));
        assert_eq!(e.rto(), Dur::from_micros(112_500 + 250_000));
    }

    #[test]
    fn rto_is_clamped_and_backed_off() {
        let mut e = RttEstimator::new(Dur::from_secs(1), Dur::from_secs(1), Dur::from_secs(60));
        e.on_sample(Dur::from_millis(10));
        assert_eq!(e.rto(), Dur::from_secs(1), "min RTO");
        for expect in [2, 4, 8, 16, 32, 60, 60] {
            e.back_off();
            assert_eq!(e.rto(), Dur::from_secs(expect));
        }
        e.on_sample(Dur::from_millis(10));
        assert_eq!(
            e.rto(),
            Dur::from_secs(1),
            "a new sample clears the back-off"
        );
    }

    #[test]
    fn granularity_floor_applies_when_rttvar_is_zero() {
        let mut e = RttEstimator::new(Dur::from_secs(1), Dur::ZERO, Dur::from_secs(60));
        e.on_sample(Dur::ZERO);
        assert_eq!(e.rto(), CLOCK_GRANULARITY);
    }

    #[test]
    fn linux_puts_the_minimum_on_the_variance_term() {
        let (one, min) = (Dur::from_secs(1), Dur::from_millis(1000));
        let mut rfc = RttEstimator::new(one, min, Dur::from_secs(60));
        let mut linux = RttEstimator::new(one, min, Dur::from_secs(60)).with_min_on_variance();
        for _ in 0..50 {
            rfc.on_sample(Dur::from_millis(170));
            linux.on_sample(Dur::from_millis(170));
        }
        // A steady 170 ms path: RFC 6298 rounds up to 1 s, Linux adds SRTT.
        assert_eq!(rfc.rto(), min);
        let srtt = linux.srtt().unwrap();
        assert_eq!(linux.rto(), srtt + min);
        assert!(linux.rto() > Dur::from_millis(1160));
        // Doubling starts from there.
        linux.back_off();
        assert_eq!(linux.rto(), (srtt + min).saturating_mul(2));
    }
}
