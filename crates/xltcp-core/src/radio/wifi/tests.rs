//! 802.11a/b constants, airtime, control-response rates, the capacity
//! formulas (SPECS §5.4 sanity table) and ARF.

use super::*;
use crate::time::Dur;

fn us(n: u64) -> Dur {
    Dur::from_micros(n)
}

fn ns(n: u64) -> Dur {
    Dur::from_nanos(n)
}

// ---- constants (SPECS §5.1) ------------------------------------------------

#[test]
fn dcf_timing_constants() {
    let a = Standard::A11;
    assert_eq!(
        (a.slot(), a.sifs(), a.difs(), a.pifs()),
        (us(9), us(16), us(34), us(25))
    );
    assert_eq!((a.cw_min(), a.cw_max()), (15, 1023));
    assert_eq!(a.eifs(), us(16 + 34 + 44));
    assert_eq!(a.ack_timeout(Preamble::Long), us(16 + 9 + 20));
    assert_eq!(a.preamble_and_header(Preamble::Short), us(20));
    let b = Standard::B11;
    assert_eq!(
        (b.slot(), b.sifs(), b.difs(), b.pifs()),
        (us(20), us(10), us(50), us(30))
    );
    assert_eq!((b.cw_min(), b.cw_max()), (31, 1023));
    // EIFS uses the 1 Mb/s ACK, which only exists with the long preamble.
    assert_eq!(b.eifs(), us(10 + 50 + 304));
    assert_eq!(b.ack_timeout(Preamble::Long), us(10 + 20 + 192));
    assert_eq!(b.ack_timeout(Preamble::Short), us(10 + 20 + 96));
}

#[test]
fn ofdm_rate_table() {
    // (rate, N_BPSC, N_CBPS, N_DBPS) from Table 17-4.
    let table = [
        (Rate::Ofdm6, 1, 48, 24),
        (Rate::Ofdm9, 1, 48, 36),
        (Rate::Ofdm12, 2, 96, 48),
        (Rate::Ofdm18, 2, 96, 72),
        (Rate::Ofdm24, 4, 192, 96),
        (Rate::Ofdm36, 4, 192, 144),
        (Rate::Ofdm48, 6, 288, 192),
        (Rate::Ofdm54, 6, 288, 216),
    ];
    for (rate, bpsc, cbps, dbps) in table {
        assert_eq!(rate.n_bpsc(), Some(bpsc));
        assert_eq!(rate.n_cbps(), Some(cbps));
        assert_eq!(rate.n_dbps(), Some(dbps));
        // N_DBPS = N_CBPS · R.
        let r = rate.code_rate().unwrap().as_f64();
        assert!((cbps as f64 * r - dbps as f64).abs() < 1e-9, "{rate:?}");
    }
    assert_eq!(Standard::A11.rates().len(), 8);
    assert_eq!(Rate::Cck11.n_dbps(), None);
    assert!(Rate::Ofdm24.is_mandatory() && !Rate::Ofdm54.is_mandatory());
    assert!(Rate::Dsss2.is_mandatory() && !Rate::Cck11.is_mandatory());
    assert_eq!(Rate::Ofdm54.up(), None);
    assert_eq!(Rate::Ofdm54.down(), Some(Rate::Ofdm48));
    assert_eq!(Rate::Dsss1.down(), None);
    assert_eq!(Rate::Cck5_5.up(), Some(Rate::Cck11));
}

#[test]
fn airtime_formulas() {
    let l = Preamble::Long;
    // OFDM: 20 + 4·⌈(22 + 8L)/N_DBPS⌉.
    assert_eq!(txtime(Rate::Ofdm54, 1536, l), us(20 + 4 * 57));
    assert_eq!(txtime(Rate::Ofdm6, 1536, l), us(20 + 4 * 513));
    // ACK (14 B = 112 bits + 22): ⌈134/24⌉ = 6, ⌈134/48⌉ = 3, ⌈134/96⌉ = 2.
    assert_eq!(txtime(Rate::Ofdm6, ACK_BYTES, l), us(44));
    assert_eq!(txtime(Rate::Ofdm12, ACK_BYTES, l), us(32));
    assert_eq!(txtime(Rate::Ofdm24, ACK_BYTES, l), us(28));
    // DSSS/CCK: PLCP + ⌈8L/R⌉.
    assert_eq!(txtime(Rate::Dsss1, ACK_BYTES, l), us(304));
    assert_eq!(txtime(Rate::Dsss2, ACK_BYTES, l), us(248));
    assert_eq!(txtime(Rate::Dsss2, ACK_BYTES, Preamble::Short), us(152));
    assert_eq!(txtime(Rate::Cck11, 1536, l), us(192 + 1118));
    assert_eq!(txtime(Rate::Cck5_5, 1536, l), us(192 + 2235)); // 12288/5.5 = 2234.2
    assert_eq!(txtime(Rate::Cck11, 1536, Preamble::Short), us(96 + 1118));
    // No short preamble at 1 Mb/s.
    assert_eq!(txtime(Rate::Dsss1, ACK_BYTES, Preamble::Short), us(304));
    assert_eq!(
        effective_preamble(Rate::Dsss1, Preamble::Short),
        Preamble::Long
    );
    assert_eq!(data_psdu_bytes(1500), 1536);
    assert_eq!(data_psdu_bytes(40), 76);
}

#[test]
fn control_response_rates() {
    let pairs = [
        (Rate::Ofdm6, Rate::Ofdm6),
        (Rate::Ofdm9, Rate::Ofdm6),
        (Rate::Ofdm12, Rate::Ofdm12),
        (Rate::Ofdm18, Rate::Ofdm12),
        (Rate::Ofdm24, Rate::Ofdm24),
        (Rate::Ofdm36, Rate::Ofdm24),
        (Rate::Ofdm48, Rate::Ofdm24),
        (Rate::Ofdm54, Rate::Ofdm24),
        (Rate::Dsss1, Rate::Dsss1),
        (Rate::Dsss2, Rate::Dsss2),
        (Rate::Cck5_5, Rate::Dsss2),
        (Rate::Cck11, Rate::Dsss2),
    ];
    for (data, ack) in pairs {
        assert_eq!(control_response_rate(data), ack, "{data:?}");
    }
    assert_eq!(ack_txtime(Rate::Ofdm54, Preamble::Long), us(28));
    assert_eq!(ack_txtime(Rate::Cck11, Preamble::Long), us(248));
}

// ---- SPECS §5.4 sanity table -------------------------------------------------

fn within(got: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (got / want - 1.0).abs() <= rel,
        "{what}: got {got:.4e}, want {want:.4e}"
    );
}

/// Cycle, UDP ceiling, TCP with delayed ACKs and TCP with an ACK per
/// segment, each within ±2 % of the table (cycles exactly).
#[test]
fn sanity_table_of_spec_5_4() {
    // (rate, preamble, cycle ns, UDP, TCP delayed, TCP every) in Mb/s.
    let rows = [
        (Rate::Cck11, Preamble::Long, 1_928_000, 6.1, 4.95, 4.2),
        (Rate::Cck11, Preamble::Short, 1_736_000, 6.8, 5.6, 4.9),
        (Rate::Ofdm54, Preamble::Long, 393_500, 29.9, 24.2, 20.5),
        (Rate::Ofdm24, Preamble::Long, 681_500, 17.3, 15.0, 13.4),
    ];
    for (rate, pre, cycle, udp, tcp2, tcp1) in rows {
        let what = format!("{rate:?} {pre:?}");
        let u = OracleCapacity::udp(rate, pre);
        assert_eq!(u.cycle(), ns(cycle), "{what}");
        within(u.bps(), udp * 1e6, 0.02, &format!("{what} UDP"));
        let delayed = OracleCapacity::tcp(rate, pre, 2.0);
        within(
            delayed.serialised_bps(),
            tcp2 * 1e6,
            0.02,
            &format!("{what} TCP delayed"),
        );
        let every = OracleCapacity::tcp(rate, pre, 1.0);
        within(
            every.serialised_bps(),
            tcp1 * 1e6,
            0.02,
            &format!("{what} TCP every"),
        );
        // The bound charges ACK packets their occupancy only: above the table.
        assert!(delayed.bps() > delayed.serialised_bps());
        assert_eq!(u.serialised_bps(), u.bps(), "no reverse traffic: same");
    }
    // The parts of the 11b long-preamble cycle: 50 + 310 + 1310 + 10 + 248.
    let u = OracleCapacity::udp(Rate::Cck11, Preamble::Long);
    assert_eq!(u.mean_backoff(), us(310));
    assert_eq!(u.frame_cycle(40), us(50 + 310 + 248 + 10 + 248));
    // The bound: 2·1460·8 / (2·1928 + 50 + 248 + 10 + 248) = 5.295 Mb/s.
    let t = OracleCapacity::tcp(Rate::Cck11, Preamble::Long, 2.0);
    assert_eq!(t.reverse_ack_occupancy(), us(556));
    assert_eq!(t.reverse_ack_cycle(), us(866));
    within(t.bps(), 23_360.0 / 4412e-6, 1e-12, "bound");
}

// ---- Bianchi -------------------------------------------------------------

#[test]
fn bianchi_one_station_is_the_oracle() {
    for (rate, pre) in [
        (Rate::Cck11, Preamble::Long),
        (Rate::Ofdm54, Preamble::Long),
    ] {
        let b = Bianchi::basic(rate, pre, 1, 1500, 1472).solve();
        assert_eq!(b.p, 0.0);
        let w = f64::from(rate.standard().cw_min()) + 1.0;
        assert!((b.tau - 2.0 / (w + 1.0)).abs() < 1e-15);
        within(b.bps, OracleCapacity::udp(rate, pre).bps(), 1e-9, "n = 1");
    }
}

#[test]
fn bianchi_fixed_point_and_forms() {
    let m = Bianchi::basic(Rate::Cck11, Preamble::Long, 10, 1500, 1472);
    assert_eq!(m.w_and_m(), (32.0, 5));
    assert_eq!(
        Bianchi::basic(Rate::Ofdm54, Preamble::Long, 10, 1500, 1472).w_and_m(),
        (16.0, 6)
    );
    // The series form equals the paper's closed form away from p = 1/2.
    for p in [0.05, 0.2, 0.35, 0.49, 0.51, 0.7] {
        let (w, mm) = m.w_and_m();
        let closed = 2.0 * (1.0 - 2.0 * p)
            / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(mm)));
        assert!((m.tau(p) - closed).abs() < 1e-12, "p = {p}");
    }
    let s = m.solve();
    assert!((s.p - (1.0 - (1.0 - s.tau).powi(9))).abs() < 1e-12);
    // T_s = 1310 + 10 + 248 + 50; T_c = 1310 + EIFS 364.
    assert_eq!((s.t_s, s.t_c), (us(1618), us(1674)));
    // More stations: more collisions.
    let mut last = 0.0;
    for n in [2, 5, 10, 20, 50] {
        let p = Bianchi::basic(Rate::Cck11, Preamble::Long, n, 1500, 1472)
            .solve()
            .p;
        assert!(p > last, "n = {n}");
        last = p;
    }
}

#[test]
fn bianchi_rts_cts_times() {
    let m = Bianchi {
        access: Access::RtsCts,
        ..Bianchi::basic(Rate::Cck11, Preamble::Long, 5, 1500, 1472)
    };
    // RTS 272 + 10 + CTS 248 + 10 + DATA 1310 + 10 + ACK 248 + DIFS 50;
    // a collision costs RTS 272 + EIFS 364.
    assert_eq!(m.times(), (us(2158), us(636)));
}

// ---- ARF -------------------------------------------------------------------

#[test]
fn arf_thresholds() {
    let mut a = Arf::new(ArfConfig::starting_at(Rate::Ofdm24));
    for _ in 0..9 {
        a.on_success();
    }
    assert_eq!(a.rate(), Rate::Ofdm24);
    a.on_success();
    assert_eq!(a.rate(), Rate::Ofdm36, "10 successes");
    assert!(a.is_probing());
    a.on_failure();
    assert_eq!(a.rate(), Rate::Ofdm24, "failed probe");
    a.on_failure();
    assert_eq!(a.rate(), Rate::Ofdm24, "one failure only");
    a.on_failure();
    assert_eq!(a.rate(), Rate::Ofdm18, "two consecutive failures");
    // Timer: 9 successes and a failure, then 5 successes (15 attempts).
    for _ in 0..9 {
        a.on_success();
    }
    a.on_failure();
    for _ in 0..4 {
        a.on_success();
    }
    assert_eq!(a.rate(), Rate::Ofdm18);
    a.on_success();
    assert_eq!(a.rate(), Rate::Ofdm24, "timer of 15 attempts");
    // A probe that succeeds stays.
    a.on_success();
    assert!(!a.is_probing());
    assert_eq!(a.rate(), Rate::Ofdm24);
}

#[test]
fn arf_stays_inside_the_rate_set() {
    let mut a = Arf::new(ArfConfig::starting_at(Rate::Dsss1));
    for _ in 0..10 {
        a.on_failure();
    }
    assert_eq!(a.rate(), Rate::Dsss1);
    for _ in 0..100 {
        a.on_success();
    }
    assert_eq!(a.rate(), Rate::Cck11);
}
