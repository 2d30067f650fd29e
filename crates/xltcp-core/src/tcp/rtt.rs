//! RTT estimation and the retransmission timeout (RFC 6298).
//!
//! Clock granularity G is 1 ms. Samples are whole nanoseconds; the RTO is
//! clamped to `[min_rto, max_rto]` and backed off by doubling.

use crate::time::Dur;
use crate::wire::SeqNum;

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
    /// Linux's estimator, when it runs ([`RttEstimator::as_linux`]).
    linux: Option<LinuxVariance>,
}

/// Linux's variance state (`tcp_sock`'s `mdev_us`, `mdev_max_us`,
/// `rttvar_us`, `rtt_seq`), each in the units of RFC 6298's 4·RTTVAR.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxVariance {
    /// The smoothed deviation.
    mdev: Dur,
    /// Its largest value in the current round trip (at least `min_rto`).
    mdev_max: Dur,
    /// The variance term of the RTO: the largest `mdev_max`, lowered once
    /// per round trip.
    held: Dur,
    /// SND.NXT when the current round trip began.
    rtt_seq: SeqNum,
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
            linux: None,
        }
    }

    /// Linux's estimator ([`crate::tcp::RttEstimatorKind::Linux`]): it needs
    /// SND.UNA and SND.NXT with each sample ([`RttEstimator::on_ack_sample`]).
    pub fn as_linux(mut self) -> RttEstimator {
        self.linux = Some(LinuxVariance::default());
        self
    }

    /// Feeds one RTT measurement `r` taken from an ACK after which SND.UNA
    /// is `snd_una` and SND.NXT (the highest sent) `snd_nxt`: Linux's
    /// `tcp_rtt_estimator` when it runs, RFC 6298 otherwise.
    pub fn on_ack_sample(&mut self, r: Dur, snd_una: SeqNum, snd_nxt: SeqNum) {
        let Some(mut v) = self.linux else {
            return self.on_sample(r);
        };
        let min = self.min_rto;
        let srtt = match self.srtt {
            None => {
                // RTO = 3·RTT at the first sample (at least SRTT + min_rto).
                v.mdev = r.saturating_mul(2);
                v.held = v.mdev.max(min);
                v.mdev_max = v.held;
                v.rtt_seq = snd_nxt;
                r
            }
            Some(srtt) => {
                let err = Dur(srtt.0.abs_diff(r.0));
                let quarter = Dur(v.mdev.0 / 4);
                v.mdev = if err < quarter {
                    // 3/4 of mdev plus the error, whichever way it went.
                    v.mdev - (quarter - err)
                } else if r < srtt {
                    // A falling RTT raises mdev at an eighth of the gain.
                    v.mdev + Dur((err - quarter).0 / 8)
                } else {
                    v.mdev + (err - quarter)
                };
                if v.mdev > v.mdev_max {
                    v.mdev_max = v.mdev;
                    v.held = v.held.max(v.mdev_max);
                }
                if snd_una > v.rtt_seq {
                    // A round trip has passed: lower the held term a quarter
                    // of the way to this round trip's largest, start the next.
                    if v.mdev_max < v.held {
                        v.held = v.held - Dur((v.held - v.mdev_max).0 / 4);
                    }
                    v.rtt_seq = snd_nxt;
                    v.mdev_max = min;
                }
                Dur((7 * srtt.0 + r.0) / 8)
            }
        };
        self.srtt = Some(srtt);
        self.rttvar = Dur(v.mdev.0 / 4);
        self.base_rto = srtt + v.held;
        self.backoff = 0;
        self.linux = Some(v);
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

    /// RFC 6298 (5.7): after a SYN timed out, an implementation whose
    /// initial RTO is below 3 s starts its data with an RTO of 3 s, however
    /// far the SYN's backed off (as Linux, `tcp_init_metrics`).
    pub fn reset_after_syn_timeout(&mut self, initial_rto: Dur) {
        let three = Dur::from_secs(3);
        if initial_rto < three {
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

    /// Drops the back-off without a sample: the RTO is the estimator's
    /// again (ns-3, on every ACK that restarts the timer).
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
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

    fn linux(min_ms: u64) -> RttEstimator {
        let min = Dur::from_millis(min_ms);
        RttEstimator::new(Dur::from_secs(1), min, Dur::from_secs(120)).as_linux()
    }

    #[test]
    fn linux_starts_at_three_rtts_or_srtt_plus_the_minimum() {
        let mut e = linux(200);
        e.on_ack_sample(Dur::from_millis(100), SeqNum(1), SeqNum(10));
        assert_eq!(e.rto(), Dur::from_millis(300));
        let mut e = linux(1000);
        e.on_ack_sample(Dur::from_millis(100), SeqNum(1), SeqNum(10));
        assert_eq!(e.rto(), Dur::from_millis(1100));
    }

    #[test]
    fn linux_holds_the_variance_for_a_round_trip_and_lowers_it_by_a_quarter() {
        let ms = |x: f64| Dur((x * 1e6) as u64);
        let in_ms = |d: Dur| d.as_secs_f64() * 1e3;
        let close = |d: Dur, want: f64| (in_ms(d) - want).abs() < 1e-3;
        let mut e = linux(200);
        let mut rfc = est();
        e.on_ack_sample(ms(100.0), SeqNum(1), SeqNum(10));
        rfc.on_sample(ms(100.0));
        // Twenty samples of 1.7 s while SND.UNA stays (SACKs of segments
        // held through a blockage): mdev peaks at 3575.1953125 ms, and
        // Linux keeps that peak for the round trip; RFC 6298's RTTVAR falls
        // back as SRTT (1589.27 ms) rises.
        for _ in 0..20 {
            e.on_ack_sample(ms(1700.0), SeqNum(1), SeqNum(10));
            rfc.on_sample(ms(1700.0));
        }
        assert!(close(e.rto(), 1589.2659859 + 3575.1953125), "{:?}", e.rto());
        assert!(close(rfc.rto(), 2435.1808278), "{:?}", rfc.rto());
        // SND.UNA passes the round trip's SND.NXT with a 100 ms sample: the
        // round trip's largest was the held term itself, which stays.
        e.on_ack_sample(ms(100.0), SeqNum(11), SeqNum(20));
        assert!(close(e.rto(), 1403.1077377 + 3575.1953125), "{:?}", e.rto());
        // The next round trip's largest is its mdev, 1137.10 ms: the held
        // term goes a quarter of the way down to it, to 2965.67 ms.
        e.on_ack_sample(ms(100.0), SeqNum(21), SeqNum(30));
        assert!(close(e.rto(), 1240.2192705 + 2965.6716152), "{:?}", e.rto());
    }

    #[test]
    fn linux_raises_the_variance_slowly_when_the_rtt_falls() {
        let ms = |x: f64| Dur((x * 1e6) as u64);
        let mut e = linux(10);
        e.on_ack_sample(ms(400.0), SeqNum(1), SeqNum(10));
        // mdev 800; a 100 ms sample: |err| 300 < 200? no: 300 - 200 = 100,
        // an eighth of it: mdev 812.5 (RFC 6298 would take 900).
        e.on_ack_sample(ms(100.0), SeqNum(1), SeqNum(10));
        assert_eq!(e.rttvar(), Some(ms(812.5 / 4.0)));
        assert_eq!(e.srtt(), Some(ms(362.5)));
        assert_eq!(e.rto(), ms(362.5 + 812.5));
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
