//! Bit and packet error rates of the IEEE 802.15.4 2450 MHz O-QPSK PHY
//! (802.15.4-2006 Annex E; the same expression as ns-3's
//! `lr-wpan-error-model.cc`).
//!
//! ```text
//! BER = (8/15) · (1/16) · Σ_{k=2}^{16} (−1)^k · C(16,k) · exp(20 · SINR · (1/k − 1))
//! PSR = (1 − BER)^(8·n)      for an n-byte chunk
//! PER = 1 − PSR
//! ```
//!
//! with SINR linear. The expression models DSSS with 16-ary orthogonal
//! symbols (32 chips each) under AWGN; it ignores fading and the
//! correlation of bit errors inside a symbol, so it is a per-bit i.i.d.
//! approximation.
//!
//! Clamping: at SINR → 0 (linear) the exact value is 1/2; the alternating
//! sum of terms up to C(16,8) = 12870 loses a few digits there, and at high
//! SINR the sum underflows towards zero. The result is therefore clamped to
//! [0, 0.5]; a NaN or negative linear SINR is treated as no signal (BER 0.5).

/// Binomial coefficients C(16, k) for k = 0..=16.
const C16: [f64; 17] = [
    1.0, 16.0, 120.0, 560.0, 1820.0, 4368.0, 8008.0, 11440.0, 12870.0, 11440.0, 8008.0, 4368.0,
    1820.0, 560.0, 120.0, 16.0, 1.0,
];

/// Bit error rate at a linear SINR (Annex E), clamped to [0, 0.5].
pub fn ber_from_sinr(sinr: f64) -> f64 {
    if sinr.is_nan() || sinr <= 0.0 {
        return 0.5;
    }
    let mut sum = 0.0;
    for (k, c) in C16.iter().enumerate().skip(2) {
        let sign = if k.is_multiple_of(2) { 1.0 } else { -1.0 };
        sum += sign * c * (20.0 * sinr * (1.0 / k as f64 - 1.0)).exp();
    }
    let ber = (8.0 / 15.0) * (1.0 / 16.0) * sum;
    // Guard against cancellation: the true value lies in [0, 0.5].
    if ber.is_nan() {
        0.5
    } else {
        ber.clamp(0.0, 0.5)
    }
}

/// Bit error rate at an SINR given in dB.
pub fn ber_from_sinr_db(db: f64) -> f64 {
    ber_from_sinr(db_to_linear(db))
}

/// A power ratio in dB as a linear ratio.
pub fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Probability that all `8 · bytes` bits of a chunk survive: `(1 − ber)^(8n)`.
pub fn psr(ber: f64, bytes: u32) -> f64 {
    let ber = if ber.is_nan() {
        0.5
    } else {
        ber.clamp(0.0, 1.0)
    };
    (1.0 - ber).powf(8.0 * f64::from(bytes))
}

/// Packet error rate of a `bytes`-byte chunk (usually the whole PPDU) at an
/// SINR given in dB.
pub fn per_from_sinr_db(db: f64, bytes: u32) -> f64 {
    1.0 - psr(ber_from_sinr_db(db), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, rel: f64) {
        assert!(
            (got - want).abs() <= rel * want.abs(),
            "got {got:e}, want {want:e} (±{rel})"
        );
    }

    /// SPECS §7.3 vectors (two significant digits).
    #[test]
    fn ber_matches_the_reference_vectors() {
        close(ber_from_sinr_db(0.0), 1.6e-4, 0.02);
        close(ber_from_sinr_db(1.0), 1.3e-5, 0.02);
        close(ber_from_sinr_db(2.0), 5.1e-7, 0.02);
        close(ber_from_sinr_db(-2.0), 5.2e-3, 0.02);
    }

    /// PER of the largest PPDU (133 B), SPECS §7.3.
    #[test]
    fn per_matches_the_reference_vectors() {
        close(per_from_sinr_db(0.0, 133), 0.158, 0.02);
        close(per_from_sinr_db(1.0, 133), 0.0136, 0.02);
        assert!(per_from_sinr_db(-2.0, 133) > 0.99);
        assert!(per_from_sinr_db(10.0, 133) < 1e-30);
    }

    #[test]
    fn ber_is_clamped_and_monotone() {
        assert_eq!(ber_from_sinr(0.0), 0.5);
        assert_eq!(ber_from_sinr(-1.0), 0.5);
        assert_eq!(ber_from_sinr(f64::NAN), 0.5);
        assert_eq!(ber_from_sinr(f64::INFINITY), 0.0);
        // Near zero SINR the exact value tends to 1/2.
        close(ber_from_sinr(1e-9), 0.5, 1e-6);
        let mut prev = 0.5;
        for tenth_db in -300..=150 {
            let b = ber_from_sinr_db(tenth_db as f64 / 10.0);
            assert!((0.0..=0.5).contains(&b));
            assert!(b <= prev, "not monotone at {tenth_db}/10 dB");
            prev = b;
        }
    }

    #[test]
    fn psr_of_nothing_is_one_and_of_certain_error_is_zero() {
        assert_eq!(psr(0.3, 0), 1.0);
        assert_eq!(psr(0.0, 127), 1.0);
        assert_eq!(psr(1.0, 1), 0.0);
        close(psr(1e-3, 1), 0.999f64.powi(8), 1e-12);
    }
}
