//! Units as people write them: rates ("10Mbps"), durations ("20ms"), sizes
//! ("4MiB"), queue limits ("100p"), ON/OFF periods ("exp(4s)") and
//! probabilities ("1%").
//!
//! Numbers are read as exact decimals (never through `f64`), so "1.5s" is
//! exactly 1 500 000 000 ns and "0.1Gbps" exactly 100 000 000 bit/s. A value
//! finer than the base unit ("0.5ns", "1.5B") is refused rather than rounded.
//! Every parser returns an error message that says what is allowed.

use super::model::{Period, QueueLimit};
use crate::time::Dur;

/// Rate units (decimal SI), matched after lower-casing: multiplier in bit/s.
const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("bit/s", 1),
    ("kbps", 1_000),
    ("kbit/s", 1_000),
    ("mbps", 1_000_000),
    ("mbit/s", 1_000_000),
    ("gbps", 1_000_000_000),
    ("gbit/s", 1_000_000_000),
    ("tbps", 1_000_000_000_000),
    ("tbit/s", 1_000_000_000_000),
];
const RATE_HELP: &str = "units: bps, kbps, Mbps, Gbps, Tbps or bit/s, kbit/s, Mbit/s, Gbit/s";

/// Duration units (case-sensitive): multiplier in ns.
const DUR_UNITS: &[(&str, u64)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("min", 60_000_000_000),
    ("h", 3_600_000_000_000),
];
const DUR_HELP: &str = "units: ns, us, ms, s, min, h";

/// Size units (case-sensitive): SI decimal and IEC binary, multiplier in bytes.
const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("kB", 1_000),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];
const SIZE_HELP: &str = "units: B, kB, MB, GB (x1000) or KiB, MiB, GiB (x1024)";

/// Packet-count suffixes of a queue limit.
const PACKET_UNITS: &[&str] = &["p", "pkt", "pkts", "packet", "packets"];

/// A non-negative decimal number, exactly: `digits / 10^scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decimal {
    digits: u128,
    scale: u32,
}

/// At most this many digits: keeps `digits * multiplier` inside u128.
const MAX_DIGITS: usize = 24;

/// Splits `text` (trimmed) into a leading decimal number and its unit
/// (surrounding spaces removed). `Err` carries a short reason.
fn split_number(text: &str) -> Result<(Decimal, &str), &'static str> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err("must not be negative");
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    let num: String = num.chars().filter(|&c| c != '_').collect();
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num.as_str(), ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err("no number");
    }
    if frac_part.contains('.') {
        return Err("malformed number");
    }
    let all = format!("{int_part}{frac_part}");
    let significant = all.trim_start_matches('0');
    if significant.len() > MAX_DIGITS {
        return Err("number too large");
    }
    let digits = if significant.is_empty() {
        0
    } else {
        significant
            .parse::<u128>()
            .map_err(|_| "malformed number")?
    };
    Ok((
        Decimal {
            digits,
            scale: frac_part.len() as u32,
        },
        unit.trim(),
    ))
}

/// `d * multiplier` as a whole u64, or an error if it is fractional or too big.
fn scale_exact(d: Decimal, multiplier: u64, base: &str) -> Result<u64, String> {
    let num = d.digits * multiplier as u128;
    // Trailing zeros of the fraction may make the scale exceed u128's range.
    let Some(den) = 10u128.checked_pow(d.scale) else {
        return if num == 0 {
            Ok(0)
        } else {
            Err(format!("finer than one {base}"))
        };
    };
    if !num.is_multiple_of(den) {
        return Err(format!("finer than one {base}"));
    }
    u64::try_from(num / den).map_err(|_| "too large".to_string())
}

/// Parses a value with a unit from `units`; `what`/`example`/`help` make
/// the error message.
fn parse_with_units(
    text: &str,
    units: &[(&str, u64)],
    fold_case: bool,
    base: &str,
    what: &str,
    example: &str,
    help: &str,
) -> Result<u64, String> {
    let expected = || format!("expected {what} like \"{example}\" ({help}), got \"{text}\"");
    let (number, unit) = split_number(text).map_err(|why| match why {
        "must not be negative" => format!("{} must not be negative, got \"{text}\"", cap(what)),
        _ => expected(),
    })?;
    if unit.is_empty() {
        return Err(format!("{}; a bare number has no unit", expected()));
    }
    let key = if fold_case {
        unit.to_ascii_lowercase()
    } else {
        unit.to_string()
    };
    let Some(&(_, mult)) = units.iter().find(|(u, _)| *u == key) else {
        return Err(expected());
    };
    scale_exact(number, mult, base).map_err(|why| format!("{} \"{text}\" is {why}", cap(what)))
}

/// "a rate" -> "A rate".
fn cap(what: &str) -> String {
    let mut c = what.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A rate in bit/s: "10Mbps", "1.5 Gbps", "250kbps", "1Gbit/s" (decimal SI).
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let unit_start = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    if t[unit_start..].contains('B') {
        return Err(format!(
            "rates are in bits per second (\"B\" means bytes): expected a rate like \"10Mbps\" \
             ({RATE_HELP}), got \"{text}\""
        ));
    }
    parse_with_units(
        text, RATE_UNITS, true, "bit/s", "a rate", "10Mbps", RATE_HELP,
    )
}

/// A duration: "20ms", "1.5s", "250us", "100ns", "2min".
pub fn parse_duration(text: &str) -> Result<Dur, String> {
    parse_with_units(
        text,
        DUR_UNITS,
        false,
        "nanosecond",
        "a duration",
        "20ms",
        DUR_HELP,
    )
    .map(Dur)
}

/// A size in bytes: "1448B", "4MiB", "1.5MB", "64KiB", "100KB".
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_with_units(
        text, SIZE_UNITS, false, "byte", "a size", "1448B", SIZE_HELP,
    )
}

/// A queue limit: "100p" / "100packets", or a size ("256KiB").
pub fn parse_queue(text: &str) -> Result<QueueLimit, String> {
    let expected = || {
        format!(
            "expected a queue limit like \"100p\" (packets: p, packets) or a size like \
             \"256KiB\" ({SIZE_HELP}), got \"{text}\""
        )
    };
    let (number, unit) = split_number(text).map_err(|_| expected())?;
    if PACKET_UNITS.contains(&unit) {
        let n =
            scale_exact(number, 1, "packet").map_err(|why| format!("Queue \"{text}\" is {why}"))?;
        return u32::try_from(n)
            .map(QueueLimit::Packets)
            .map_err(|_| format!("Queue \"{text}\" is too large"));
    }
    if SIZE_UNITS.iter().any(|(u, _)| *u == unit) {
        return parse_size(text).map(QueueLimit::Bytes);
    }
    Err(expected())
}

/// An ON/OFF period: "exp(4s)" (exponential, mean 4 s) or "4s" (fixed).
pub fn parse_period(text: &str) -> Result<Period, String> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("exp(").and_then(|r| r.strip_suffix(')')) {
        return parse_duration(inner).map(Period::Exp).map_err(|e| {
            format!("in \"{text}\": {e}; expected a period like \"exp(4s)\" or \"4s\"")
        });
    }
    parse_duration(t).map(Period::Fixed).map_err(|e| {
        format!("{e}; expected a period like \"exp(4s)\" (exponential) or \"4s\" (fixed)")
    })
}

/// A probability written as text: "1%" or "0.01". Range checks are the
/// caller's (a loss probability must be < 1, for instance).
pub fn parse_probability(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let expected = || format!("expected a probability like 0.01 or \"1%\", got \"{text}\"");
    let (num, div) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), 100.0),
        None => (t, 1.0),
    };
    if num.starts_with('-') {
        return Err(format!("Probability must not be negative, got \"{text}\""));
    }
    // Only plain decimals: no "nan", "inf" or exponents hiding in the text.
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(expected());
    }
    let x: f64 = num.parse().map_err(|_| expected())?;
    Ok(x / div)
}

/// Formats `value` (in base units) with the largest unit of `units` (powers
/// of ten, ascending) not larger than it, as an exact decimal ("1.5Gbps").
fn format_exact(value: u64, units: &[(&str, u64)]) -> String {
    let (name, mult) = units
        .iter()
        .rev()
        .find(|(_, m)| value >= *m)
        .copied()
        .unwrap_or(units[0]);
    let whole = value / mult;
    let rest = value % mult;
    if rest == 0 {
        return format!("{whole}{name}");
    }
    let width = mult.ilog10() as usize;
    let frac = format!("{rest:0width$}");
    format!("{whole}.{}{name}", frac.trim_end_matches('0'))
}

/// A rate for people: 1_500_000_000 -> "1.5Gbps".
pub fn format_rate(bps: u64) -> String {
    format_exact(
        bps,
        &[
            ("bps", 1),
            ("kbps", 1_000),
            ("Mbps", 1_000_000),
            ("Gbps", 1_000_000_000),
        ],
    )
}

/// A duration for people: 1_500_000_000 ns -> "1.5s".
pub fn format_duration(d: Dur) -> String {
    format_exact(
        d.as_nanos(),
        &[
            ("ns", 1),
            ("us", 1_000),
            ("ms", 1_000_000),
            ("s", 1_000_000_000),
        ],
    )
}

/// A size for people: an exact IEC unit when one fits ("4MiB"), else an
/// exact SI decimal ("1.5MB"), else bytes.
pub fn format_size(bytes: u64) -> String {
    for (name, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{name}", bytes >> shift);
        }
    }
    if bytes >= 1_000 && bytes.is_multiple_of(100) {
        return format_exact(
            bytes,
            &[
                ("B", 1),
                ("kB", 1_000),
                ("MB", 1_000_000),
                ("GB", 1_000_000_000),
            ],
        );
    }
    format!("{bytes}B")
}

/// A period for people: "exp(4s)" or "4s".
pub fn format_period(p: Period) -> String {
    match p {
        Period::Exp(d) => format!("exp({})", format_duration(d)),
        Period::Fixed(d) => format_duration(d),
    }
}

/// A queue limit for people: "100p" or "256KiB".
pub fn format_queue(q: QueueLimit) -> String {
    match q {
        QueueLimit::Packets(n) => format!("{n}p"),
        QueueLimit::Bytes(b) => format_size(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_in_every_spelling() {
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("1.5 Gbps"), Ok(1_500_000_000));
        assert_eq!(parse_rate("250kbps"), Ok(250_000));
        assert_eq!(parse_rate("100bps"), Ok(100));
        assert_eq!(parse_rate("1Gbit/s"), Ok(1_000_000_000));
        assert_eq!(parse_rate("64 kbit/s"), Ok(64_000));
        assert_eq!(parse_rate(" 0.1Gbps "), Ok(100_000_000));
        assert_eq!(parse_rate("1_000kbps"), Ok(1_000_000));
    }

    #[test]
    fn rate_errors_say_what_is_allowed() {
        assert_eq!(
            parse_rate("10").unwrap_err(),
            "expected a rate like \"10Mbps\" (units: bps, kbps, Mbps, Gbps, Tbps or bit/s, \
             kbit/s, Mbit/s, Gbit/s), got \"10\"; a bare number has no unit"
        );
        assert!(parse_rate("10MBps")
            .unwrap_err()
            .contains("\"B\" means bytes"));
        assert!(parse_rate("10furlongs")
            .unwrap_err()
            .starts_with("expected a rate"));
        assert_eq!(
            parse_rate("-1Mbps").unwrap_err(),
            "A rate must not be negative, got \"-1Mbps\""
        );
        assert!(parse_rate("").unwrap_err().starts_with("expected a rate"));
        assert!(parse_rate("NaNMbps").is_err());
        assert!(parse_rate("infGbps").is_err());
        assert!(parse_rate("1.2.3Mbps").is_err());
        assert!(parse_rate(".Mbps").is_err());
        assert_eq!(
            parse_rate("0.5bps").unwrap_err(),
            "A rate \"0.5bps\" is finer than one bit/s"
        );
        // u64::MAX bit/s is about 18.4 Ebit/s.
        assert_eq!(parse_rate("18446744Tbps"), Ok(18_446_744_000_000_000_000));
        assert_eq!(
            parse_rate("18446745Tbps").unwrap_err(),
            "A rate \"18446745Tbps\" is too large"
        );
        assert!(parse_rate("1000000000000000000000000000000Tbps").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("20ms"), Ok(Dur::from_millis(20)));
        assert_eq!(parse_duration("1.5s"), Ok(Dur(1_500_000_000)));
        assert_eq!(parse_duration("250us"), Ok(Dur::from_micros(250)));
        assert_eq!(parse_duration("250µs"), Ok(Dur::from_micros(250)));
        assert_eq!(parse_duration("100ns"), Ok(Dur(100)));
        assert_eq!(parse_duration("2min"), Ok(Dur::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Dur::from_secs(3600)));
        assert_eq!(parse_duration("0s"), Ok(Dur::ZERO));
        assert_eq!(parse_duration("0.000000001s"), Ok(Dur(1)));
        // Trailing zeros beyond the nanosecond are fine.
        assert_eq!(
            parse_duration("1.0000000000000000000000s"),
            Ok(Dur::from_secs(1))
        );
        assert_eq!(
            parse_duration("0.0000000000000000000000000000000000000000s"),
            Ok(Dur(0))
        );
    }

    #[test]
    fn duration_errors() {
        assert_eq!(
            parse_duration("20").unwrap_err(),
            "expected a duration like \"20ms\" (units: ns, us, ms, s, min, h), got \"20\"; \
             a bare number has no unit"
        );
        assert!(parse_duration("20MS").is_err());
        assert!(parse_duration("-1s")
            .unwrap_err()
            .contains("must not be negative"));
        assert_eq!(
            parse_duration("0.5ns").unwrap_err(),
            "A duration \"0.5ns\" is finer than one nanosecond"
        );
        assert!(parse_duration("1e3ms").is_err());
        assert!(parse_duration("nan s").is_err());
        assert!(parse_duration("99999999999h")
            .unwrap_err()
            .ends_with("too large"));
        assert!(parse_duration("s").is_err());
    }

    #[test]
    fn sizes_si_and_iec() {
        assert_eq!(parse_size("1448B"), Ok(1448));
        assert_eq!(parse_size("4MiB"), Ok(4 << 20));
        assert_eq!(parse_size("1.5MB"), Ok(1_500_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("100KB"), Ok(100_000));
        assert_eq!(parse_size("100kB"), Ok(100_000));
        assert_eq!(parse_size("0.5KiB"), Ok(512));
        assert_eq!(
            parse_size("1.5B").unwrap_err(),
            "A size \"1.5B\" is finer than one byte"
        );
        assert!(parse_size("100kb").is_err());
        assert!(parse_size("1448").unwrap_err().contains("bare number"));
        assert!(parse_size("16EiB").is_err());
    }

    #[test]
    fn queues() {
        assert_eq!(parse_queue("100p"), Ok(QueueLimit::Packets(100)));
        assert_eq!(parse_queue("100 packets"), Ok(QueueLimit::Packets(100)));
        assert_eq!(parse_queue("256KiB"), Ok(QueueLimit::Bytes(262_144)));
        assert!(parse_queue("100")
            .unwrap_err()
            .starts_with("expected a queue limit"));
        assert!(parse_queue("1.5p").is_err());
        assert_eq!(
            parse_queue("5000000000p").unwrap_err(),
            "Queue \"5000000000p\" is too large"
        );
    }

    #[test]
    fn periods() {
        assert_eq!(parse_period("exp(4s)"), Ok(Period::Exp(Dur::from_secs(4))));
        assert_eq!(
            parse_period("exp( 250ms )"),
            Ok(Period::Exp(Dur::from_millis(250)))
        );
        assert_eq!(parse_period("4s"), Ok(Period::Fixed(Dur::from_secs(4))));
        assert!(parse_period("exp(4)").unwrap_err().contains("exp(4s)"));
        assert!(parse_period("uniform(4s)").is_err());
        assert!(parse_period("exp(4s").is_err());
    }

    #[test]
    fn probabilities() {
        assert_eq!(parse_probability("1%"), Ok(0.01));
        assert_eq!(parse_probability("0.05"), Ok(0.05));
        assert_eq!(parse_probability("100%"), Ok(1.0));
        assert!(parse_probability("-1%").is_err());
        assert!(parse_probability("nan").is_err());
        assert!(parse_probability("inf%").is_err());
        assert!(parse_probability("1e-3").is_err());
        assert!(parse_probability("%").is_err());
        assert!(parse_probability("").is_err());
    }

    #[test]
    fn formatting_is_exact_and_parses_back() {
        assert_eq!(format_rate(1_500_000_000), "1.5Gbps");
        assert_eq!(format_rate(10_000_000), "10Mbps");
        assert_eq!(format_rate(999), "999bps");
        assert_eq!(format_rate(0), "0bps");
        assert_eq!(format_duration(Dur::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Dur(1)), "1ns");
        assert_eq!(format_duration(Dur::from_micros(1200)), "1.2ms");
        assert_eq!(format_size(4 << 20), "4MiB");
        assert_eq!(format_size(1448), "1448B");
        assert_eq!(format_size(1_500_000), "1.5MB");
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_period(Period::Exp(Dur::from_secs(4))), "exp(4s)");
        assert_eq!(format_queue(QueueLimit::Packets(100)), "100p");
        for v in [0, 1, 7, 999, 1_000, 1_234_567, 1_500_000_000, u64::MAX] {
            assert_eq!(parse_rate(&format_rate(v)), Ok(v));
            assert_eq!(parse_duration(&format_duration(Dur(v))), Ok(Dur(v)));
            assert_eq!(parse_size(&format_size(v)), Ok(v));
        }
    }
}
