//! Scripted cases for the primary-user detector.

use super::*;
use crate::rng::stream;

fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

fn detector(delay_ms: u64, t_idle_ms: u64, miss: f64) -> PuDetector {
    let config = PuDetectorConfig {
        signalling_delay: Dur::from_millis(delay_ms),
        t_idle: Dur::from_millis(t_idle_ms),
        missed_detection: miss,
    };
    PuDetector::new(config, stream(7, "test.pu_detect"))
}

/// Drives the detector through `edges` (time in ms, level), stepping every
/// deadline in between, and returns each signal with its emission time.
fn run(d: &mut PuDetector, edges: &[(u64, bool)], until_ms: u64) -> Vec<(u64, Signal)> {
    let mut out = Vec::new();
    let mut drain = |d: &mut PuDetector, at: Time| {
        while let Some(s) = d.poll_signal() {
            out.push((at.as_nanos() / 1_000_000, s));
        }
    };
    for &(t, level) in edges.iter().chain(std::iter::once(&(until_ms, false))) {
        while let Some(at) = d.poll_timeout() {
            if at > ms(t) {
                break;
            }
            d.handle_timeout(at);
            drain(d, at);
        }
        if t < until_ms {
            d.handle_pu(ms(t), level);
            drain(d, ms(t));
        }
    }
    out
}

#[test]
fn ordinary_on_off_gives_start_then_stop_after_t_idle() {
    let mut d = detector(0, 1000, 0.0);
    let got = run(&mut d, &[(2000, true), (6000, false)], 20_000);
    assert_eq!(got, vec![(2000, Signal::PuStart), (7000, Signal::PuStop)]);
    assert!(!d.is_frozen());
    assert_eq!(d.stats().starts, 1);
    assert_eq!(d.stats().stops, 1);
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn frozen_while_on_and_while_the_idle_timer_runs() {
    let mut d = detector(0, 1000, 0.0);
    d.handle_pu(ms(10), true);
    assert_eq!(d.poll_signal(), Some(Signal::PuStart));
    assert!(d.is_frozen());
    assert_eq!(d.poll_timeout(), None, "no deadline while the PU is on");
    d.handle_pu(ms(500), false);
    assert_eq!(d.poll_timeout(), Some(ms(1500)));
    d.handle_timeout(ms(1499));
    assert_eq!(d.poll_signal(), None, "early timeout is a no-op");
    assert!(d.is_frozen());
    d.handle_timeout(ms(1500));
    assert_eq!(d.poll_signal(), Some(Signal::PuStop));
    assert!(!d.is_frozen());
}

#[test]
fn off_gap_shorter_than_t_idle_is_bridged() {
    let mut d = detector(0, 1000, 0.0);
    // ON 1..3 s, OFF 0.8 s (< t_idle), ON 3.8..5 s, then quiet.
    let got = run(
        &mut d,
        &[(1000, true), (3000, false), (3800, true), (5000, false)],
        10_000,
    );
    assert_eq!(got, vec![(1000, Signal::PuStart), (6000, Signal::PuStop)]);
    assert_eq!(d.stats().gaps_bridged, 1);
}

#[test]
fn off_gap_equal_to_t_idle_is_not_bridged() {
    let mut d = detector(0, 1000, 0.0);
    // The idle timer expires at 4 s, before the edge at the same instant.
    let got = run(
        &mut d,
        &[(1000, true), (3000, false), (4000, true), (5000, false)],
        10_000,
    );
    assert_eq!(
        got,
        vec![
            (1000, Signal::PuStart),
            (4000, Signal::PuStop),
            (4000, Signal::PuStart),
            (6000, Signal::PuStop),
        ]
    );
    assert_eq!(d.stats().gaps_bridged, 0);
}

#[test]
fn signalling_delay_postpones_only_the_start() {
    let mut d = detector(50, 1000, 0.0);
    let got = run(&mut d, &[(1000, true), (3000, false)], 10_000);
    assert_eq!(got, vec![(1050, Signal::PuStart), (4000, Signal::PuStop)]);
}

#[test]
fn on_period_shorter_than_the_delay_is_still_announced() {
    let mut d = detector(50, 1000, 0.0);
    let got = run(&mut d, &[(1000, true), (1020, false)], 10_000);
    assert_eq!(got, vec![(1050, Signal::PuStart), (2020, Signal::PuStop)]);
}

#[test]
fn stop_never_precedes_its_start() {
    // Delay longer than ON + t_idle: the stop follows the start at once.
    let mut d = detector(500, 100, 0.0);
    let got = run(&mut d, &[(1000, true), (1010, false)], 10_000);
    assert_eq!(got, vec![(1500, Signal::PuStart), (1500, Signal::PuStop)]);
}

#[test]
fn missed_period_is_invisible() {
    let mut d = detector(0, 1000, 1.0);
    let got = run(&mut d, &[(1000, true), (3000, false)], 10_000);
    assert_eq!(got, vec![]);
    assert_eq!(d.stats().missed, 1);
    assert_eq!(d.stats().on_periods, 1);
    assert!(!d.is_frozen());
}

#[test]
fn missed_period_does_not_cancel_the_idle_timer() {
    // Hear the first period (p = 0), then miss the second (p = 1).
    let mut d = detector(0, 1000, 0.0);
    d.handle_pu(ms(1000), true);
    d.handle_pu(ms(2000), false);
    d.config.missed_detection = 1.0;
    d.handle_pu(ms(2500), true); // missed: the timer still runs
    assert_eq!(d.poll_signal(), Some(Signal::PuStart));
    assert_eq!(d.poll_timeout(), Some(ms(3000)));
    d.handle_timeout(ms(3000));
    assert_eq!(d.poll_signal(), Some(Signal::PuStop));
    d.handle_pu(ms(4000), false); // the missed period's end: nothing
    assert_eq!(d.poll_signal(), None);
    assert_eq!(d.poll_timeout(), None);
    assert_eq!(d.stats().gaps_bridged, 0);
}

#[test]
fn missed_detection_rate_matches_its_probability() {
    let mut d = detector(0, 1, 0.25);
    let mut edges = Vec::new();
    for i in 0..20_000u64 {
        edges.push((i * 10, true));
        edges.push((i * 10 + 5, false));
    }
    let got = run(&mut d, &edges, 200_010);
    let s = *d.stats();
    assert_eq!(s.on_periods, 20_000);
    assert_eq!(s.starts, s.on_periods - s.missed);
    assert_eq!(s.stops, s.starts);
    assert_eq!(got.len() as u64, 2 * s.starts);
    // Binomial(20000, 0.25): sd = 61; allow 5 sd.
    assert!((4695..=5305).contains(&s.missed), "missed {}", s.missed);
}

#[test]
fn signals_alternate_and_start_first() {
    let mut d = detector(3, 40, 0.3);
    let mut edges = Vec::new();
    let mut t = 0;
    for i in 0..2000u64 {
        t += 1 + (i * 7919) % 97;
        edges.push((t, i.is_multiple_of(2)));
    }
    let got = run(&mut d, &edges, t + 1000);
    assert!(!got.is_empty());
    for (i, (_, s)) in got.iter().enumerate() {
        let want = if i.is_multiple_of(2) {
            Signal::PuStart
        } else {
            Signal::PuStop
        };
        assert_eq!(*s, want, "signal {i}");
    }
    assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
}

#[test]
fn repeated_level_is_counted_and_ignored() {
    let mut d = detector(0, 1000, 0.0);
    d.handle_pu(ms(0), false);
    d.handle_pu(ms(10), true);
    d.handle_pu(ms(20), true);
    assert_eq!(d.stats().redundant_edges, 2);
    assert_eq!(d.stats().on_periods, 1);
    assert_eq!(d.poll_signal(), Some(Signal::PuStart));
    assert_eq!(d.poll_signal(), None);
}

#[test]
fn same_seed_same_decisions() {
    let edges: Vec<(u64, bool)> = (0..400u64).map(|i| (i * 50, i.is_multiple_of(2))).collect();
    let a = run(&mut detector(0, 10, 0.5), &edges, 30_000);
    let b = run(&mut detector(0, 10, 0.5), &edges, 30_000);
    assert_eq!(a, b);
}
