//! Numbers survive a trip through the JSON the core writes and reads: an
//! `snr` signal's value read back from `signals.jsonl` is the value written,
//! to the last bit (serde_json's `float_roundtrip`; without it the parser
//! is off by one ULP for some values).

use xltcp_core::signal::Signal;

/// Deterministic spread of finite f64 values over many exponents.
fn values() -> impl Iterator<Item = f64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    std::iter::from_fn(move || {
        // splitmix64
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Some(f64::from_bits(z ^ (z >> 31)))
    })
    .filter(|v| v.is_finite())
}

#[test]
fn snr_values_round_trip_bit_for_bit() {
    for db in values()
        .take(200_000)
        .chain([0.1 + 0.2, 1e-300, 17.456_789_012_345_67])
    {
        let s = Signal::Snr {
            iface: 0,
            db,
            node: None,
        };
        let back: Signal = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        match back {
            Signal::Snr { db: got, .. } => assert_eq!(got.to_bits(), db.to_bits(), "{db:e}"),
            other => panic!("{other:?}"),
        }
    }
}
