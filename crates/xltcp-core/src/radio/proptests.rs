//! Property tests: the MAC under arbitrary input scripts keeps its
//! accounting and timing invariants; the PU detector agrees with a small
//! reference model of its documented semantics.

use super::lrwpan::{Frame, Mac, MacConfig, MacEvent, Transmission, TxKind};
use super::pu::{PuDetector, PuDetectorConfig};
use crate::rng::stream;
use crate::signal::Signal;
use crate::time::{Dur, Time};
use proptest::prelude::*;
use rand::RngExt;

/// One scripted input to the MAC, applied `gap_us` after the previous one.
#[derive(Clone, Debug)]
enum Op {
    Enqueue {
        mpdu_len: u16,
    },
    Channel(bool),
    /// ACK the latest data frame put on the air (possibly stale), or a stray id.
    Ack {
        latest: bool,
    },
    Data,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (5u16..=130).prop_map(|mpdu_len| Op::Enqueue { mpdu_len }),
        2 => any::<bool>().prop_map(Op::Channel),
        3 => any::<bool>().prop_map(|latest| Op::Ack { latest }),
        1 => Just(Op::Data),
    ]
}

#[derive(Default)]
struct Trace {
    data: Vec<Transmission>,
    events: Vec<MacEvent>,
}

fn drain(m: &mut Mac, now: Time, trace: &mut Trace) {
    while let Some(tx) = m.poll_transmit() {
        assert!(tx.start >= now, "a transmission in the past");
        if tx.kind == TxKind::Data {
            trace.data.push(tx);
        }
    }
    while let Some(e) = m.poll_event() {
        trace.events.push(e);
    }
    if let Some(t) = m.poll_timeout() {
        assert!(t >= now, "stale deadline {t} at {now}");
    }
}

fn step_to(m: &mut Mac, until: Time, trace: &mut Trace) {
    while let Some(t) = m.poll_timeout() {
        if t > until {
            break;
        }
        m.handle_timeout(t);
        drain(m, t, trace);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn mac_invariants_hold_under_any_script(
        script in prop::collection::vec((0u64..6_000, op()), 1..120),
        retries in 0u8..=4,
        queue_limit in 0usize..6,
        seed in any::<u64>(),
    ) {
        let config = MacConfig { max_frame_retries: retries, queue_limit, ..MacConfig::default() };
        let mut m = Mac::new(config, stream(seed, "prop.mac"));
        let mut trace = Trace::default();
        let mut now = Time::ZERO;
        let mut enqueues = 0u64;
        for (gap_us, op) in script {
            now += Dur::from_micros(gap_us);
            step_to(&mut m, now, &mut trace);
            match op {
                Op::Enqueue { mpdu_len } => {
                    m.enqueue(now, Frame { id: enqueues, mpdu_len });
                    enqueues += 1;
                }
                Op::Channel(busy) => m.handle_channel(now, busy),
                Op::Ack { latest } => {
                    let id = match trace.data.last() {
                        Some(tx) if latest => tx.frame.id,
                        _ => u64::MAX,
                    };
                    m.handle_ack(now, id);
                }
                Op::Data => m.handle_data(now, 7),
            }
            drain(&mut m, now, &mut trace);
        }
        // Let everything finish on an idle channel with no more ACKs.
        m.handle_channel(now, false);
        drain(&mut m, now, &mut trace);
        step_to(&mut m, Time::NEVER, &mut trace);
        prop_assert!(m.is_idle());

        // Every frame handed over ends in exactly one event.
        let mut ids: Vec<u64> = trace.events.iter().map(|e| match e {
            MacEvent::Delivered { frame, .. } | MacEvent::Undelivered { frame, .. } => *frame,
        }).collect();
        ids.sort_unstable();
        prop_assert_eq!(ids, (0..enqueues).collect::<Vec<_>>());

        // Data frames of one station never overlap on the air, and a
        // delivered frame reports as many attempts as it had transmissions.
        for w in trace.data.windows(2) {
            prop_assert!(w[1].start >= w[0].start + w[0].airtime);
        }
        for e in &trace.events {
            let sent = |id: u64| trace.data.iter().filter(|t| t.frame.id == id).count();
            match *e {
                MacEvent::Delivered { frame, attempts } => {
                    prop_assert_eq!(sent(frame), usize::from(attempts));
                    prop_assert!(attempts <= retries + 1);
                }
                MacEvent::Undelivered { frame, .. } => {
                    prop_assert!(sent(frame) <= usize::from(retries) + 1);
                }
            }
        }

        let s = *m.stats();
        prop_assert_eq!(s.enqueued, s.delivered + s.retry_limit_drops + s.channel_access_failures);
        prop_assert_eq!(s.enqueued + s.queue_full_drops + s.too_long_drops, enqueues);
        prop_assert_eq!(s.transmissions, trace.data.len() as u64);
        prop_assert_eq!(s.transmissions, s.delivered + s.ack_timeouts);
        prop_assert_eq!(s.cca_busy + s.cca_idle, s.backoffs);
    }

    /// With `signalling_delay < t_idle` the detector's signals are exactly
    /// those of the reference: heard ON periods (the same per-period draws)
    /// grouped while their OFF gaps are shorter than `t_idle`; each group
    /// starts at its first rising edge + delay and stops at its last falling
    /// edge + `t_idle`.
    #[test]
    fn pu_detector_matches_the_reference_model(
        durations_ms in prop::collection::vec(1u64..3_000, 1..60),
        t_idle_ms in 1u64..1_500,
        delay_frac in 0.0f64..1.0,
        p_miss in prop_oneof![Just(0.0), Just(1.0), 0.0f64..1.0],
        seed in any::<u64>(),
    ) {
        let t_idle = Dur::from_millis(t_idle_ms);
        let delay = Dur::from_secs_f64(t_idle.as_secs_f64() * delay_frac * 0.999);
        let config = PuDetectorConfig { signalling_delay: delay, t_idle, missed_detection: p_miss };
        let mut d = PuDetector::new(config, stream(seed, "prop.pu"));

        // Alternating ON/OFF periods starting with ON at 1 ms.
        let mut edges = Vec::new();
        let mut t = Time::ZERO + Dur::from_millis(1);
        for (i, ms) in durations_ms.iter().enumerate() {
            edges.push((t, i.is_multiple_of(2)));
            t += Dur::from_millis(*ms);
        }
        let end = t + t_idle + delay + Dur::from_secs(1);

        let mut got = Vec::new();
        for &(at, level) in &edges {
            while let Some(dl) = d.poll_timeout() {
                if dl > at { break; }
                d.handle_timeout(dl);
                while let Some(s) = d.poll_signal() { got.push((dl, s)); }
            }
            d.handle_pu(at, level);
            while let Some(s) = d.poll_signal() { got.push((at, s)); }
        }
        while let Some(dl) = d.poll_timeout() {
            prop_assert!(dl <= end);
            d.handle_timeout(dl);
            while let Some(s) = d.poll_signal() { got.push((dl, s)); }
        }

        // Reference: the same draws, one per ON period, in order.
        let mut r = stream(seed, "prop.pu");
        let mut heard: Vec<(Time, Option<Time>)> = Vec::new();
        for (i, &(at, level)) in edges.iter().enumerate() {
            if level {
                let u: f64 = r.random();
                if u >= p_miss {
                    heard.push((at, edges.get(i + 1).map(|e| e.0)));
                }
            }
        }
        let mut want = Vec::new();
        let mut group: Option<(Time, Option<Time>)> = None;
        for (on, off) in heard {
            group = match group {
                Some((first, Some(last_off))) if on < last_off + t_idle => Some((first, off)),
                Some((first, last)) => {
                    want.push((first + delay, Signal::PuStart));
                    if let Some(last_off) = last {
                        want.push((last_off + t_idle, Signal::PuStop));
                    }
                    Some((on, off))
                }
                None => Some((on, off)),
            };
        }
        if let Some((first, last)) = group {
            want.push((first + delay, Signal::PuStart));
            if let Some(last_off) = last {
                want.push((last_off + t_idle, Signal::PuStop));
            }
        }
        prop_assert_eq!(got, want);
    }
}
