//! 802.15.4 PHY timing, layouts, oracle capacity and the CSMA-CA MAC.

use super::mac::draw_backoff_periods;
use super::*;
use crate::rng::{stream, Rng};
use crate::time::{Dur, Time};

fn us(n: u64) -> Dur {
    Dur::from_micros(n)
}

fn at_us(n: u64) -> Time {
    Time::ZERO + us(n)
}

fn mac_rng() -> Rng {
    stream(3, "test.mac")
}

fn mac(config: MacConfig) -> Mac {
    Mac::new(config, mac_rng())
}

/// A MAC whose first back-off is at least one unit long, so that the test
/// can act between the back-off and the CCA.
fn mac_with_first_backoff() -> Mac {
    let seed = (0..)
        .find(|&s| draw_backoff_periods(&mut stream(s, "test.mac"), 3) > 0)
        .unwrap();
    Mac::new(MacConfig::default(), stream(seed, "test.mac"))
}

fn frame(id: u64) -> Frame {
    Frame { id, mpdu_len: 111 }
}

/// What happened on one station, in order.
#[derive(Debug, PartialEq)]
enum Seen {
    Tx(Transmission),
    Ev(Time, MacEvent),
}

/// Drives `m` to quiescence (or `limit`): steps every deadline, and plays a
/// receiver that ACKs the attempts for which `ack(id, attempt)` is true
/// (the ACK completes `aTurnaroundTime` + 352 µs after the frame).
fn drive(m: &mut Mac, limit: Time, ack: impl Fn(u64, u8) -> bool) -> Vec<Seen> {
    let mut seen = Vec::new();
    let mut pending_ack: Option<(Time, u64)> = None;
    loop {
        let mut now = match (m.poll_timeout(), pending_ack) {
            (Some(t), Some((a, _))) => t.min(a),
            (Some(t), None) => t,
            (None, Some((a, _))) => a,
            (None, None) => break,
        };
        if now > limit {
            break;
        }
        match pending_ack {
            Some((a, id)) if a <= now => {
                now = a;
                pending_ack = None;
                m.handle_ack(a, id);
            }
            _ => m.handle_timeout(now),
        }
        while let Some(tx) = m.poll_transmit() {
            if ack(tx.frame.id, tx.attempt) {
                pending_ack = Some((ack_arrival(tx.start + tx.airtime), tx.frame.id));
            }
            seen.push(Seen::Tx(tx));
        }
        while let Some(e) = m.poll_event() {
            seen.push(Seen::Ev(now, e));
        }
    }
    seen
}

fn transmissions(seen: &[Seen]) -> Vec<Transmission> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Tx(t) => Some(*t),
            Seen::Ev(..) => None,
        })
        .collect()
}

fn events(seen: &[Seen]) -> Vec<MacEvent> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Ev(_, e) => Some(*e),
            Seen::Tx(_) => None,
        })
        .collect()
}

// ---- PHY timing -------------------------------------------------------

#[test]
fn phy_timing_constants() {
    assert_eq!(SYMBOL, us(16));
    assert_eq!(ppdu_airtime(127), us(4256));
    assert_eq!(ppdu_airtime(111), us(3744));
    assert_eq!(ack_airtime(), us(352));
    assert_eq!(unit_backoff_period(), us(320));
    assert_eq!(cca_duration(), us(128));
    assert_eq!(turnaround_time(), us(192));
    assert_eq!(MAC_ACK_WAIT_DURATION_SYMBOLS, 54);
    assert_eq!(ack_wait_duration(), us(864));
    assert_eq!(ifs(18), us(192), "SIFS up to aMaxSIFSFrameSize");
    assert_eq!(ifs(19), us(640), "LIFS above it");
    assert_eq!(ack_arrival(at_us(1000)), at_us(1544));
    // 250 kb/s: one byte in 32 µs.
    assert_eq!(
        ppdu_airtime(10) - ppdu_airtime(9),
        Dur::transmission(1, BIT_RATE_BPS)
    );
}

// ---- Frame layouts -----------------------------------------------------

#[test]
fn paper_layout_is_capped_at_127_bytes() {
    let l = FrameLayout::paper_000();
    assert_eq!((l.mac_header, l.fcs, l.upper_header), (19, 2, 12));
    assert_eq!(l.payload, 94);
    assert_eq!(l.mpdu_len(), 127);
    assert_eq!(l.ppdu_len(), 133);
    assert_eq!(l.airtime(), us(4256));
    assert_eq!(l.with_payload(95), None, "the paper's 128-byte MPDU");
    assert_eq!(l.with_payload(0).map(|a| a.mpdu_len()), Some(33));
}

#[test]
fn tcp_ipv4_layout_leaves_a_76_byte_mss() {
    let l = FrameLayout::tcp_ipv4();
    assert_eq!(l.overhead(), 51);
    assert_eq!(l.payload, 76);
    assert_eq!(l.max_payload(), 76);
    assert_eq!(l.mpdu_len(), 127);
    assert_eq!(FrameLayout::full(9, 2, 40), Some(l));
    assert_eq!(FrameLayout::full(100, 2, 40), None);
}

// ---- Oracle capacity ---------------------------------------------------

#[test]
fn oracle_cycle_matches_the_spec_sanity_value() {
    // SPECS §7.2: 100 B payload, 11 B MAC overhead, MPDU 111 B.
    let l = FrameLayout::full(9, 2, 0)
        .unwrap()
        .with_payload(100)
        .unwrap();
    let o = OracleCapacity::one_way(l);
    assert_eq!(o.mean_backoff(), us(1120));
    // 1120 + 128 + 192 + 3744 + 192 + 352 + 640 = 6368 µs ≈ 6.37 ms.
    assert_eq!(o.cycle(), us(6368));
    let bps = o.bps();
    assert!((bps - 800.0 / 6.368e-3).abs() < 1e-6, "{bps}");
    assert!((125_000.0..126_000.0).contains(&bps));
}

#[test]
fn oracle_charges_loss_and_reverse_acks() {
    let l = FrameLayout::paper_000();
    let base = OracleCapacity::one_way(l);
    // 1120 + 128 + 192 + 4256 + 192 + 352 + 640 = 6880 µs.
    assert_eq!(base.cycle(), us(6880));
    // 1120 + 128 + 192 + 4256 + 864 = 6560 µs.
    assert_eq!(base.lost_attempt(), us(6560));
    let lossy = OracleCapacity {
        frame_loss: 0.1,
        ..base
    };
    // Geometric retries: p / (1 − p) lost attempts per delivered frame.
    assert!((lossy.secs_per_frame() - (6880e-6 + 0.1 / 0.9 * 6560e-6)).abs() < 1e-12);
    let dead = OracleCapacity {
        frame_loss: 1.0,
        ..base
    };
    assert_eq!(dead.bps(), 0.0);
    let acked = OracleCapacity {
        reverse_ack_mpdu: l.with_payload(0).map(|a| a.mpdu_len()),
        data_frames_per_ack: 2.0,
        ..base
    };
    // TCP ACK frame: 39 B PPDU = 1248 µs, + 192 + 352 = 1792 µs, every 2nd frame.
    assert_eq!(acked.reverse_ack_occupancy(), us(1792));
    assert!((acked.secs_per_frame() - (6880e-6 + 896e-6)).abs() < 1e-12);
    assert!((acked.bps() - 8.0 * 94.0 / 7776e-6).abs() < 1e-6);
    assert!(acked.bps() < base.bps() && lossy.bps() < base.bps());
    // min_be changes the mean back-off: (2^5 − 1)/2 · 320 µs = 4960 µs.
    let be5 = OracleCapacity { min_be: 5, ..base };
    assert_eq!(be5.mean_backoff(), us(4960));
}

// ---- CSMA-CA and retransmissions ----------------------------------------

#[test]
fn first_attempt_timing_on_an_idle_channel() {
    let k = draw_backoff_periods(&mut mac_rng(), 3);
    let mut m = mac(MacConfig::default());
    m.enqueue(at_us(1000), frame(1));
    let csma = m.csma().unwrap();
    assert_eq!((csma.nb, csma.be, csma.attempts), (0, 3, 0));
    let seen = drive(&mut m, Time::NEVER, |_, _| true);
    // back-off k·320, CCA 128, turnaround 192, then on air.
    let start = at_us(1000 + k * 320 + 128 + 192);
    let end = start + us(3744);
    assert_eq!(
        seen,
        vec![
            Seen::Tx(Transmission {
                kind: TxKind::Data,
                frame: frame(1),
                start,
                airtime: us(3744),
                attempt: 1
            }),
            Seen::Ev(
                end + us(544),
                MacEvent::Delivered {
                    frame: 1,
                    attempts: 1
                }
            ),
        ]
    );
    // The LIFS follows the ACK; then the MAC is idle.
    assert!(m.is_idle());
    assert_eq!(m.stats().delivered, 1);
    assert_eq!(m.stats().cca_idle, 1);
}

#[test]
fn ifs_follows_the_ack_before_the_next_frame() {
    let mut m = mac(MacConfig::default());
    m.enqueue(Time::ZERO, frame(1));
    m.enqueue(Time::ZERO, frame(2));
    let mut ack_at = None;
    while ack_at.is_none() {
        let t = m.poll_timeout().unwrap();
        m.handle_timeout(t);
        if let Some(tx) = m.poll_transmit() {
            ack_at = Some(ack_arrival(tx.start + tx.airtime));
        }
    }
    let ack_at = ack_at.unwrap();
    m.handle_ack(ack_at, 1);
    // LIFS (111 B > 18 B): the next back-off starts 640 µs after the ACK.
    assert_eq!(m.poll_timeout(), Some(ack_at + us(640)));
    assert_eq!(m.csma(), None);
    m.handle_timeout(ack_at + us(640));
    assert_eq!(m.csma().map(|c| (c.nb, c.be, c.attempts)), Some((0, 3, 0)));
    assert_eq!(m.queue_len(), 0);
}

#[test]
fn ack_wait_is_864_us_after_the_frame() {
    let mut m = mac(MacConfig::default());
    m.enqueue(Time::ZERO, frame(9));
    let tx = loop {
        let t = m.poll_timeout().unwrap();
        m.handle_timeout(t);
        if let Some(tx) = m.poll_transmit() {
            break tx;
        }
    };
    let end = tx.start + tx.airtime;
    assert_eq!(m.poll_timeout(), Some(end));
    m.handle_timeout(end);
    assert_eq!(m.poll_timeout(), Some(end + us(864)));
    // An ACK just inside the wait is accepted.
    m.handle_ack(end + us(863), 9);
    assert_eq!(
        m.poll_event(),
        Some(MacEvent::Delivered {
            frame: 9,
            attempts: 1
        })
    );
}

#[test]
fn ack_at_the_end_of_the_wait_is_too_late() {
    let mut m = mac(MacConfig::default());
    m.enqueue(Time::ZERO, frame(9));
    let tx = loop {
        let t = m.poll_timeout().unwrap();
        m.handle_timeout(t);
        if let Some(tx) = m.poll_transmit() {
            break tx;
        }
    };
    let end = tx.start + tx.airtime;
    m.handle_ack(end + us(864), 9);
    assert_eq!(m.poll_event(), None);
    assert_eq!(m.stats().ack_timeouts, 1);
    assert_eq!(m.stats().unexpected_acks, 1);
    // A new CSMA-CA for the retransmission: NB = 0, BE = macMinBE.
    assert_eq!(m.csma().map(|c| (c.nb, c.be, c.attempts)), Some((0, 3, 1)));
}

#[test]
fn three_retries_then_undelivered() {
    let mut m = mac(MacConfig::default());
    m.enqueue(Time::ZERO, frame(5));
    let seen = drive(&mut m, Time::NEVER, |_, _| false);
    let txs = transmissions(&seen);
    assert_eq!(
        txs.iter().map(|t| t.attempt).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    // Each retransmission waits the ACK wait, then a fresh back-off of at
    // most 7 units + CCA + turnaround.
    for w in txs.windows(2) {
        let gap = w[1].start - (w[0].start + w[0].airtime);
        assert!(gap >= us(864 + 128 + 192), "{gap}");
        assert!(gap <= us(864 + 7 * 320 + 128 + 192), "{gap}");
    }
    let last_end = txs[3].start + txs[3].airtime;
    assert_eq!(
        seen.last(),
        Some(&Seen::Ev(
            last_end + us(864),
            MacEvent::Undelivered {
                frame: 5,
                reason: UndeliveredReason::RetryLimit
            }
        ))
    );
    let s = m.stats();
    assert_eq!(
        (s.transmissions, s.retransmissions, s.ack_timeouts),
        (4, 3, 4)
    );
    assert_eq!((s.retry_limit_drops, s.delivered), (1, 0));
}

#[test]
fn retry_limit_is_configurable_and_a_late_success_counts_attempts() {
    let config = MacConfig {
        max_frame_retries: 0,
        ..MacConfig::default()
    };
    let mut m = mac(config);
    m.enqueue(Time::ZERO, frame(1));
    let seen = drive(&mut m, Time::NEVER, |_, _| false);
    assert_eq!(transmissions(&seen).len(), 1);
    assert_eq!(m.stats().retry_limit_drops, 1);

    let mut m = mac(MacConfig::default());
    m.enqueue(Time::ZERO, frame(2));
    let seen = drive(&mut m, Time::NEVER, |_, attempt| attempt == 3);
    assert_eq!(
        events(&seen),
        vec![MacEvent::Delivered {
            frame: 2,
            attempts: 3
        }]
    );
}

#[test]
fn channel_access_failure_after_five_busy_ccas() {
    let mut m = mac(MacConfig::default());
    m.handle_channel(Time::ZERO, true);
    m.enqueue(Time::ZERO, frame(4));
    let mut trail = Vec::new();
    while let Some(t) = m.poll_timeout() {
        m.handle_timeout(t);
        if let Some(c) = m.csma() {
            trail.push((c.nb, c.be));
        }
    }
    // BE grows 3 → 4 → 5 and stays at macMaxBE; NB counts busy CCAs.
    trail.dedup();
    assert_eq!(trail, vec![(0, 3), (1, 4), (2, 5), (3, 5), (4, 5)]);
    assert_eq!(
        m.poll_event(),
        Some(MacEvent::Undelivered {
            frame: 4,
            reason: UndeliveredReason::ChannelAccessFailure
        })
    );
    assert_eq!(m.poll_transmit(), None);
    let s = m.stats();
    assert_eq!((s.cca_busy, s.cca_idle, s.backoffs), (5, 0, 5));
    assert_eq!(s.channel_access_failures, 1);
    assert!(m.is_idle());
}

#[test]
fn busy_ccas_then_idle_transmits_with_the_grown_be() {
    let mut m = mac(MacConfig::default());
    m.handle_channel(Time::ZERO, true);
    m.enqueue(Time::ZERO, frame(1));
    let mut busy_ccas = 0;
    let mut t = Time::ZERO;
    while busy_ccas < 2 {
        t = m.poll_timeout().unwrap();
        m.handle_timeout(t);
        busy_ccas = m.stats().cca_busy;
    }
    // Idle from the end of the second busy CCA on (even if the next
    // back-off is empty and the third CCA starts at this very instant).
    m.handle_channel(t, false);
    let seen = drive(&mut m, Time::NEVER, |_, _| true);
    assert_eq!(transmissions(&seen).len(), 1);
    assert_eq!(m.stats().cca_idle, 1);
    assert_eq!(m.stats().backoffs, 3);
}

/// Back-off draws per CSMA stage over many channel-access failures: each
/// is in [0, 2^BE − 1] unit periods with BE = 3, 4, 5, 5, 5, and over 3000
/// frames every stage reaches both ends of its range.
#[test]
fn backoff_ranges_grow_with_be() {
    let mut m = mac(MacConfig {
        queue_limit: 4000,
        ..MacConfig::default()
    });
    m.handle_channel(Time::ZERO, true);
    let mut lo = [u64::MAX; 5];
    let mut hi = [0u64; 5];
    let mut note = |m: &Mac, before: MacStats| {
        let s = m.stats();
        if s.backoffs > before.backoffs {
            // At most one draw per input: the frame's stage is its NB now.
            assert_eq!(s.backoffs, before.backoffs + 1);
            let units = s.backoff_periods - before.backoff_periods;
            let stage = usize::from(m.csma().unwrap().nb);
            lo[stage] = lo[stage].min(units);
            hi[stage] = hi[stage].max(units);
        }
    };
    for id in 0..3000 {
        let before = *m.stats();
        m.enqueue(Time::ZERO, frame(id));
        note(&m, before);
    }
    while let Some(t) = m.poll_timeout() {
        let before = *m.stats();
        m.handle_timeout(t);
        note(&m, before);
    }
    assert_eq!(m.stats().channel_access_failures, 3000);
    assert_eq!(m.stats().backoffs, 5 * 3000);
    assert_eq!(hi, [7, 15, 31, 31, 31]);
    assert_eq!(lo, [0, 0, 0, 0, 0]);
}

#[test]
fn mean_backoff_is_half_of_two_to_the_be_minus_one() {
    for (be, want) in [(3u8, 3.5f64), (5, 15.5)] {
        let mut m = mac(MacConfig {
            min_be: be,
            queue_limit: 30_000,
            ..MacConfig::default()
        });
        let n = 20_000;
        for id in 0..n {
            m.enqueue(Time::ZERO, frame(id));
        }
        let _ = drive(&mut m, Time::NEVER, |_, _| true);
        let s = m.stats();
        assert_eq!(s.delivered, n);
        assert_eq!(s.backoffs, n, "one back-off per frame on an idle channel");
        let mean = s.backoff_periods as f64 / s.backoffs as f64;
        // sd of the mean: sqrt((4^BE − 1)/12 / n); allow 5 sd.
        let sd = (((1u64 << (2 * be)) - 1) as f64 / 12.0 / n as f64).sqrt();
        assert!((mean - want).abs() < 5.0 * sd, "BE {be}: mean {mean}");
    }
}

#[test]
fn draws_cover_the_whole_range_uniformly() {
    let mut r = mac_rng();
    let mut counts = [0u32; 8];
    for _ in 0..80_000 {
        counts[draw_backoff_periods(&mut r, 3) as usize] += 1;
    }
    // Expected 10000 each, sd ≈ 94; allow 5 sd.
    for c in counts {
        assert!((9530..=10470).contains(&c), "{counts:?}");
    }
}

#[test]
fn cca_window_is_half_open() {
    // Busy pulse inside the CCA: busy.
    let mut m = mac_with_first_backoff();
    m.enqueue(Time::ZERO, frame(1));
    let cca_start = m.poll_timeout().unwrap();
    m.handle_timeout(cca_start);
    m.handle_channel(cca_start + us(50), true);
    m.handle_channel(cca_start + us(60), false);
    m.handle_timeout(cca_start + us(128));
    assert_eq!((m.stats().cca_busy, m.stats().cca_idle), (1, 0));

    // Busy exactly at the CCA's end: idle.
    let mut m = mac_with_first_backoff();
    m.enqueue(Time::ZERO, frame(1));
    let cca_start = m.poll_timeout().unwrap();
    m.handle_timeout(cca_start);
    m.handle_channel(cca_start + us(128), true);
    assert_eq!((m.stats().cca_busy, m.stats().cca_idle), (0, 1));

    // Idle at the very instant the CCA starts: idle.
    let mut m = mac_with_first_backoff();
    m.handle_channel(Time::ZERO, true);
    m.enqueue(Time::ZERO, frame(1));
    let cca_start = m.poll_timeout().unwrap();
    m.handle_timeout(cca_start);
    m.handle_channel(cca_start, false);
    m.handle_timeout(cca_start + us(128));
    assert_eq!((m.stats().cca_busy, m.stats().cca_idle), (0, 1));

    // Busy during the back-off only: idle.
    let mut m = mac_with_first_backoff();
    m.handle_channel(Time::ZERO, true);
    m.enqueue(Time::ZERO, frame(1));
    let cca_start = m.poll_timeout().unwrap();
    m.handle_channel(cca_start, false);
    m.handle_timeout(cca_start + us(128));
    assert_eq!((m.stats().cca_busy, m.stats().cca_idle), (0, 1));
}

#[test]
fn late_timeout_runs_each_phase_at_its_own_deadline() {
    let mut a = mac(MacConfig::default());
    let mut b = mac(MacConfig::default());
    a.enqueue(Time::ZERO, frame(1));
    b.enqueue(Time::ZERO, frame(1));
    let on_time = drive(&mut a, Time::NEVER, |_, _| false);
    b.handle_timeout(Time::ZERO + Dur::from_secs(1));
    let mut late = Vec::new();
    while let Some(tx) = b.poll_transmit() {
        late.push(tx);
    }
    assert_eq!(late, transmissions(&on_time));
    assert_eq!(b.poll_event(), events(&on_time).pop());
    assert_eq!(b.stats(), a.stats());
    // An early timeout changes nothing.
    let mut c = mac(MacConfig::default());
    c.enqueue(Time::ZERO, frame(1));
    let due = c.poll_timeout();
    c.handle_timeout(Time::ZERO);
    assert_eq!(c.poll_timeout(), due);
}

#[test]
fn queue_is_fifo_and_bounded() {
    let mut m = mac(MacConfig {
        queue_limit: 2,
        ..MacConfig::default()
    });
    for id in 1..=4 {
        m.enqueue(Time::ZERO, frame(id));
    }
    // Frame 1 is in progress, 2 and 3 wait, 4 is refused.
    assert_eq!(
        m.poll_event(),
        Some(MacEvent::Undelivered {
            frame: 4,
            reason: UndeliveredReason::QueueFull
        })
    );
    m.enqueue(
        Time::ZERO,
        Frame {
            id: 5,
            mpdu_len: 128,
        },
    );
    assert_eq!(
        m.poll_event(),
        Some(MacEvent::Undelivered {
            frame: 5,
            reason: UndeliveredReason::FrameTooLong
        })
    );
    let seen = drive(&mut m, Time::NEVER, |_, _| true);
    let order: Vec<u64> = transmissions(&seen).iter().map(|t| t.frame.id).collect();
    assert_eq!(order, vec![1, 2, 3]);
    let s = m.stats();
    assert_eq!(
        (
            s.enqueued,
            s.delivered,
            s.queue_full_drops,
            s.too_long_drops
        ),
        (3, 3, 1, 1)
    );
}

#[test]
fn stray_ack_is_counted_and_ignored() {
    let mut m = mac(MacConfig::default());
    m.handle_ack(Time::ZERO, 1);
    m.enqueue(Time::ZERO, frame(2));
    let tx = loop {
        let t = m.poll_timeout().unwrap();
        m.handle_timeout(t);
        if let Some(tx) = m.poll_transmit() {
            break tx;
        }
    };
    let end = tx.start + tx.airtime;
    m.handle_ack(end + us(10), 1); // wrong frame
    assert_eq!(m.poll_event(), None);
    assert_eq!(m.stats().unexpected_acks, 2);
    m.handle_ack(end + us(544), 2);
    assert!(matches!(
        m.poll_event(),
        Some(MacEvent::Delivered { frame: 2, .. })
    ));
}

#[test]
fn accounting_balances() {
    let mut m = mac(MacConfig {
        queue_limit: 50,
        ..MacConfig::default()
    });
    for id in 0..80 {
        m.enqueue(Time::ZERO, frame(id));
    }
    // Busy for a while, then ACK two attempts in three.
    m.handle_channel(Time::ZERO, true);
    m.handle_channel(Time::ZERO + Dur::from_millis(30), false);
    let seen = drive(&mut m, Time::NEVER, |id, a| (id + u64::from(a)) % 3 != 0);
    let s = *m.stats();
    // Every frame ends in exactly one event.
    assert_eq!(events(&seen).len(), 80);
    assert_eq!(
        s.enqueued,
        s.delivered + s.retry_limit_drops + s.channel_access_failures
    );
    assert_eq!(s.enqueued + s.queue_full_drops, 80);
    assert_eq!(s.transmissions, s.delivered + s.ack_timeouts);
}

// ---- Receive side: MAC ACKs ---------------------------------------------

#[test]
fn received_data_is_acked_after_the_turnaround() {
    let mut m = mac(MacConfig::default());
    m.handle_data(at_us(5000), 77);
    assert_eq!(
        m.poll_transmit(),
        Some(Transmission {
            kind: TxKind::Ack,
            frame: Frame {
                id: 77,
                mpdu_len: ACK_MPDU_BYTES
            },
            start: at_us(5192),
            airtime: us(352),
            attempt: 1,
        })
    );
    assert_eq!(m.poll_transmit(), None);
    assert_eq!(m.stats().acks_sent, 1);
    assert!(m.is_idle(), "an ACK needs no CSMA-CA and no state");
}

#[test]
fn no_ack_while_transmitting() {
    let mut m = mac(MacConfig::default());
    m.enqueue(Time::ZERO, frame(1));
    let tx = loop {
        let t = m.poll_timeout().unwrap();
        m.handle_timeout(t);
        if let Some(tx) = m.poll_transmit() {
            break tx;
        }
    };
    m.handle_data(tx.start + us(100), 9);
    assert_eq!(m.poll_transmit(), None);
    assert_eq!(m.stats().rx_while_transmitting, 1);
    assert_eq!(m.stats().acks_sent, 0);
}

#[test]
fn cca_during_own_ack_reads_busy() {
    // Data arrives during the back-off; the ACK (turnaround 192 µs + 352 µs)
    // covers the CCA, which must report busy.
    let mut m = mac_with_first_backoff();
    m.enqueue(Time::ZERO, frame(1));
    let cca_start = m.poll_timeout().unwrap();
    m.handle_data(Time(cca_start.as_nanos() - 100_000), 3);
    assert!(matches!(
        m.poll_transmit(),
        Some(Transmission {
            kind: TxKind::Ack,
            ..
        })
    ));
    m.handle_timeout(cca_start + us(128));
    assert_eq!((m.stats().cca_busy, m.stats().cca_idle), (1, 0));

    // Data arrives during the CCA: the radio turns to TX, the CCA is busy.
    let mut m = mac_with_first_backoff();
    m.enqueue(Time::ZERO, frame(1));
    let cca_start = m.poll_timeout().unwrap();
    m.handle_timeout(cca_start);
    m.handle_data(cca_start + us(20), 3);
    m.handle_timeout(cca_start + us(128));
    assert_eq!((m.stats().cca_busy, m.stats().cca_idle), (1, 0));
}

#[test]
fn mac_events_map_to_cross_layer_signals() {
    use crate::signal::Signal;
    let d = MacEvent::Delivered {
        frame: 3,
        attempts: 2,
    };
    let u = MacEvent::Undelivered {
        frame: 4,
        reason: UndeliveredReason::ChannelAccessFailure,
    };
    assert_eq!(Signal::from(d), Signal::Delivered { frame: 3 });
    assert_eq!(Signal::from(u), Signal::Undelivered { frame: 4 });
}

#[test]
fn a_held_mac_keeps_its_queue_and_makes_no_cca_until_released() {
    let mut m = mac(MacConfig::default());
    // A primary user on, the MAC held before its frames arrive.
    m.handle_channel(Time::ZERO, true);
    m.set_hold(Time::ZERO, true);
    for id in 0..3 {
        m.enqueue(at_us(10 * id), frame(id));
    }
    assert_eq!(m.poll_timeout(), None, "no CSMA-CA while held");
    assert_eq!(m.queue_len(), 3);
    // Ten seconds later the channel clears and the hold is released.
    let t = at_us(10_000_000);
    m.handle_channel(t, false);
    m.set_hold(t, false);
    let seen = drive(&mut m, Time::NEVER, |_, _| true);
    let ids: Vec<u64> = transmissions(&seen).iter().map(|t| t.frame.id).collect();
    assert_eq!(ids, vec![0, 1, 2]);
    assert!(transmissions(&seen).iter().all(|x| x.start >= t));
    let s = m.stats();
    assert_eq!((s.cca_busy, s.channel_access_failures), (0, 0));
    assert_eq!((s.holds, s.parked, s.delivered), (1, 0, 3));
}

#[test]
fn a_hold_parks_the_frame_in_backoff_and_it_resumes_with_a_fresh_csma() {
    let mut m = mac_with_first_backoff();
    m.enqueue(Time::ZERO, frame(9));
    assert!(m.csma().is_some());
    m.set_hold(at_us(1), true);
    assert_eq!(m.csma(), None);
    assert_eq!(m.poll_timeout(), None);
    assert_eq!(m.stats().parked, 1);
    // Releasing twice or holding twice changes nothing more.
    m.set_hold(at_us(2), true);
    assert_eq!(m.stats().holds, 1);
    m.set_hold(at_us(5_000), false);
    assert_eq!(m.csma().map(|c| (c.nb, c.attempts)), Some((0, 0)));
    let seen = drive(&mut m, Time::NEVER, |_, _| true);
    assert_eq!(
        events(&seen),
        vec![MacEvent::Delivered {
            frame: 9,
            attempts: 1
        }]
    );
}

#[test]
fn a_retry_after_a_missed_ack_waits_for_the_release() {
    let mut m = mac(MacConfig::default());
    m.enqueue(Time::ZERO, frame(1));
    // Run until the frame is on the air, then hold.
    let mut on_air = None;
    while on_air.is_none() {
        let t = m.poll_timeout().unwrap();
        m.handle_timeout(t);
        on_air = m.poll_transmit();
    }
    let tx = on_air.unwrap();
    m.set_hold(tx.start, true);
    // No ACK comes: the ACK wait expires and the retry is parked.
    let t = tx.start + tx.airtime + ack_wait_duration();
    m.handle_timeout(t);
    assert_eq!(m.poll_timeout(), None);
    assert_eq!(m.poll_transmit(), None);
    assert_eq!(m.stats().parked, 1);
    m.set_hold(t + us(1_000), false);
    let seen = drive(&mut m, Time::NEVER, |_, _| true);
    assert_eq!(transmissions(&seen)[0].attempt, 2);
    assert_eq!(
        events(&seen),
        vec![MacEvent::Delivered {
            frame: 1,
            attempts: 2
        }]
    );
}
