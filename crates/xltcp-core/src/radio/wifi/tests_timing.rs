//! Scripted DCF timing: one frame exchange per rate, retry limits and CW
//! doubling, RTS/CTS and NAV, EIFS, backoff freezing, duplicate detection
//! and ARF through the MAC. Expected times are written out from the
//! standard's formulas, not taken from the code.

use super::tests_medium::Net;
use super::*;
use crate::rng::{stream, Rng};
use crate::time::{Dur, Time};
use rand::RngExt;

fn us(n: u64) -> Dur {
    Dur::from_micros(n)
}

fn at_us(n: u64) -> Time {
    Time::ZERO + us(n)
}

/// The `i`-th backoff draw of station `sta` in a [`Net`] seeded `seed`,
/// replaying the documented rule: uniform in [0, CW].
fn draws(seed: u64, sta: usize) -> Rng {
    stream(seed, &format!("sta{sta}.dcf"))
}

fn draw(r: &mut Rng, cw: u32) -> u64 {
    u64::from(r.random_range(0..=cw))
}

/// The transmissions of a run, as (kind, from, start µs, airtime µs).
fn trace(net: &Net) -> Vec<(TxKind, u16, u64, u64)> {
    net.started
        .iter()
        .map(|t| {
            (
                t.kind,
                t.from.0,
                t.start.as_nanos() / 1000,
                t.airtime.as_nanos() / 1000,
            )
        })
        .collect()
}

/// (a) Two frames from station 1 to station 0 on an idle medium: the first
/// goes DIFS after it is enqueued (the medium has been idle), the second
/// after DIFS + the post-backoff drawn at the first ACK.
#[test]
fn one_exchange_per_rate_matches_the_standard() {
    // (rate, TXTIME of a 1536-byte PSDU, TXTIME of the ACK, SIFS, DIFS, slot, CWmin)
    let cases = [
        // 20 + 4·⌈(16 + 12288 + 6)/24⌉ = 20 + 4·513; ACK 20 + 4·⌈134/24⌉ = 44
        (Rate::Ofdm6, 2072, 44, 16, 34, 9, 15),
        // 20 + 4·⌈12310/96⌉ = 20 + 4·129; ACK at 24: 20 + 4·⌈134/96⌉ = 28
        (Rate::Ofdm24, 536, 28, 16, 34, 9, 15),
        // 20 + 4·⌈12310/216⌉ = 20 + 4·57; ACK at 24 Mb/s: 28
        (Rate::Ofdm54, 248, 28, 16, 34, 9, 15),
        // 192 + 12288/1; ACK 192 + 112
        (Rate::Dsss1, 12480, 304, 10, 50, 20, 31),
        // 192 + ⌈12288/11⌉ = 192 + 1118; ACK at 2 Mb/s: 192 + 56
        (Rate::Cck11, 1310, 248, 10, 50, 20, 31),
    ];
    for (rate, data, ack, sifs, difs, slot, cw_min) in cases {
        let seed = 21;
        let mut net = Net::new(2, DcfConfig::new(rate), seed);
        net.send(1, 0, 1500);
        net.send(1, 0, 1500);
        net.run(Time::NEVER);
        let k = draw(&mut draws(seed, 1), cw_min);
        let d1 = difs;
        let a1 = d1 + data + sifs;
        let done1 = a1 + ack;
        let d2 = done1 + difs + k * slot;
        let a2 = d2 + data + sifs;
        assert_eq!(
            trace(&net),
            vec![
                (TxKind::Data, 1, d1, data),
                (TxKind::Ack, 0, a1, ack),
                (TxKind::Data, 1, d2, data),
                (TxKind::Ack, 0, a2, ack),
            ],
            "{rate:?}"
        );
        let got: Vec<(Time, u64, u8)> = net.delivered(1);
        assert_eq!(got, vec![(at_us(done1), 1, 1), (at_us(a2 + ack), 2, 1)]);
        // Duration field of the data frame: SIFS + ACK.
        assert_eq!(net.started[0].duration, us(sifs + ack), "{rate:?}");
        assert_eq!(net.started[1].duration, Dur::ZERO);
        assert_eq!(net.started[1].rate, control_response_rate(rate));
        assert_eq!(net.started[2].seq, 1);
        assert!(!net.started[2].retry);
    }
}

/// (d) No ACK ever: 7 attempts (short retry limit), CW 31 → 63 → … → 1023,
/// each retry ACKTimeout + DIFS + backoff after the previous frame, then a
/// drop with CW back to 31.
#[test]
fn retry_limit_and_cw_doubling() {
    let seed = 4;
    let mut m = Dcf::new(DcfConfig::new(Rate::Cck11), Addr(1), draws(seed, 1));
    let mut r = draws(seed, 1);
    m.enqueue(
        Time::ZERO,
        Frame {
            id: 9,
            dst: Addr(0),
            psdu_bytes: 1536,
        },
    );
    let mut starts = Vec::new();
    let mut cws = Vec::new();
    let mut events = Vec::new();
    while let Some(t) = m.poll_timeout() {
        m.handle_timeout(t);
        while let Some(tx) = m.poll_transmit() {
            starts.push((tx.start, tx.attempt, tx.retry));
        }
        while let Some(e) = m.poll_event() {
            events.push((t, e));
        }
        if m.stats().ack_timeouts as usize > cws.len() {
            cws.push(m.cw());
        }
    }
    assert_eq!(cws, vec![63, 127, 255, 511, 1023, 1023, 31]);
    // First attempt at DIFS; each retry 1310 µs of frame + 222 µs ACK
    // timeout (10 + 20 + 192) + 50 µs DIFS + k·20 µs later.
    let mut want = vec![(at_us(50), 1, false)];
    let mut cw = 31;
    for attempt in 2..=7 {
        cw = (2 * (cw + 1) - 1).min(1023);
        let k = draw(&mut r, cw);
        let prev = want.last().unwrap().0;
        want.push((prev + us(1310 + 222 + 50 + k * 20), attempt, true));
    }
    assert_eq!(starts, want);
    let last_end = want[6].0 + us(1310);
    assert_eq!(
        events,
        vec![(
            last_end + us(222),
            MacEvent::Undelivered {
                frame: 9,
                reason: UndeliveredReason::RetryLimit
            }
        )]
    );
    let s = *m.stats();
    assert_eq!((s.data_tx, s.retransmissions, s.ack_timeouts), (7, 6, 7));
    assert_eq!(s.short_retry_drops, 1);
    assert!(m.is_idle());
}

/// (d) RTS/CTS: RTS, SIFS, CTS, SIFS, DATA, SIFS, ACK, with every Duration
/// field and a third station's NAV covering the exchange.
#[test]
fn rts_cts_exchange_timing_and_nav() {
    let config = DcfConfig {
        rts_threshold: 0,
        ..DcfConfig::new(Rate::Cck11)
    };
    let mut net = Net::new(3, config, 2);
    net.send(1, 0, 1500);
    net.run(Time::NEVER);
    // RTS at 2 Mb/s (highest basic rate ≤ 11): 192 + 160/2 = 272 µs.
    // CTS at 2 Mb/s: 192 + 112/2 = 248. DATA 1310. ACK 248. SIFS 10.
    assert_eq!(
        trace(&net),
        vec![
            (TxKind::Rts, 1, 50, 272),
            (TxKind::Cts, 0, 332, 248),
            (TxKind::Data, 1, 590, 1310),
            (TxKind::Ack, 0, 1910, 248),
        ]
    );
    // RTS: 3·SIFS + CTS + DATA + ACK = 30 + 248 + 1310 + 248 = 1836 µs;
    // CTS: 1836 − SIFS − CTS = 1578; DATA: SIFS + ACK = 258; ACK: 0.
    let durations: Vec<Dur> = net.started.iter().map(|t| t.duration).collect();
    assert_eq!(durations, vec![us(1836), us(1578), us(258), Dur::ZERO]);
    // The bystander's NAV ends with the ACK: 322 + 1836 = 2158.
    assert_eq!(net.macs[2].nav_until(), at_us(2158));
    assert_eq!(net.delivered(1), vec![(at_us(2158), 1, 1)]);
    let s = *net.macs[1].stats();
    assert_eq!((s.rts_tx, s.data_tx), (1, 1));
    assert_eq!(net.macs[0].stats().cts_sent, 1);
}

/// With RTS/CTS the data frame counts against the long retry limit (4);
/// each CTS resets the short retry count.
#[test]
fn long_retry_limit_after_rts() {
    let config = DcfConfig {
        rts_threshold: 500,
        ..DcfConfig::new(Rate::Ofdm24)
    };
    let mut net = Net::new(2, config, 8);
    net.lose = Box::new(|tx| tx.kind == TxKind::Data);
    net.send(1, 0, 1500);
    net.run(Time::NEVER);
    let s = *net.macs[1].stats();
    assert_eq!((s.rts_tx, s.data_tx, s.ack_timeouts), (4, 4, 4));
    assert_eq!((s.long_retry_drops, s.short_retry_drops), (1, 0));
    assert!(matches!(
        net.events.last().unwrap().2,
        MacEvent::Undelivered {
            reason: UndeliveredReason::RetryLimit,
            ..
        }
    ));
    // A small frame (≤ threshold) uses basic access and the short limit.
    let mut net = Net::new(2, config, 8);
    net.lose = Box::new(|tx| tx.kind == TxKind::Data);
    net.send(1, 0, 400);
    net.run(Time::NEVER);
    let s = *net.macs[1].stats();
    assert_eq!((s.rts_tx, s.data_tx, s.short_retry_drops), (0, 7, 1));
}

/// Lost CTSs count against the short retry limit: 7 RTSs, no data.
#[test]
fn cts_timeouts_use_the_short_retry_limit() {
    let config = DcfConfig {
        rts_threshold: 0,
        ..DcfConfig::new(Rate::Ofdm54)
    };
    let mut net = Net::new(2, config, 9);
    net.lose = Box::new(|tx| tx.kind == TxKind::Cts);
    net.send(1, 0, 1500);
    net.run(Time::NEVER);
    let s = *net.macs[1].stats();
    assert_eq!((s.rts_tx, s.cts_timeouts, s.data_tx), (7, 7, 0));
    assert_eq!(s.short_retry_drops, 1);
}

fn data_from(from: u16, seq: u16, retry: bool, end_us: u64) -> Transmission {
    let airtime = txtime(Rate::Ofdm54, 1536, Preamble::Long);
    Transmission {
        kind: TxKind::Data,
        from: Addr(from),
        to: Addr(0),
        frame: 100 + u64::from(seq),
        seq,
        retry,
        psdu_bytes: 1536,
        rate: Rate::Ofdm54,
        preamble: Preamble::Long,
        start: Time(at_us(end_us).as_nanos() - airtime.as_nanos()),
        airtime,
        duration: us(44),
        attempt: if retry { 2 } else { 1 },
    }
}

/// (d) The receiver ACKs a retransmission it already has and reports it as
/// a duplicate; a new sequence number, or the same one without the Retry
/// bit or from another transmitter, is new.
#[test]
fn duplicate_detection() {
    let mut m = Dcf::new(DcfConfig::new(Rate::Ofdm54), Addr(0), stream(1, "rx"));
    let script = [
        (data_from(1, 5, false, 1000), "new"),
        (data_from(1, 5, true, 2000), "dup"),
        (data_from(1, 5, true, 3000), "dup"),
        (data_from(1, 6, true, 4000), "new"),
        (data_from(2, 6, true, 5000), "new"),
        (data_from(1, 6, false, 6000), "new"),
    ];
    for (tx, want) in script {
        let end = tx.end();
        m.handle_frame(end, &tx);
        let e = m.poll_event().unwrap();
        let got = match e {
            MacEvent::Received { frame, from } => {
                assert_eq!((frame, from), (tx.frame, tx.from));
                "new"
            }
            MacEvent::Duplicate { frame, from } => {
                assert_eq!((frame, from), (tx.frame, tx.from));
                "dup"
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(got, want, "{tx:?}");
        // Every one is ACKed SIFS (16 µs) later at 24 Mb/s, to its sender.
        let ack = m.poll_transmit().unwrap();
        assert_eq!(
            (ack.kind, ack.to, ack.start),
            (TxKind::Ack, tx.from, end + us(16))
        );
        assert_eq!((ack.rate, ack.airtime), (Rate::Ofdm24, us(28)));
    }
    assert_eq!((m.stats().received, m.stats().duplicates), (4, 2));
}

/// After an errored reception the station defers EIFS (11a: 94 µs), after
/// an intact one its NAV and DIFS (34 µs), before counting backoff slots.
#[test]
fn eifs_after_an_errored_reception() {
    for errored in [true, false] {
        let seed = 3;
        let mut m = Dcf::new(DcfConfig::new(Rate::Ofdm54), Addr(3), stream(seed, "s"));
        let k = draw(&mut stream(seed, "s"), 15);
        m.handle_channel(at_us(100), true);
        // Busy when the frame arrives: a backoff is drawn.
        m.enqueue(
            at_us(150),
            Frame {
                id: 1,
                dst: Addr(0),
                psdu_bytes: 100,
            },
        );
        assert_eq!(m.backoff(), Some(k as u32));
        assert_eq!(m.poll_timeout(), None, "frozen while busy");
        if errored {
            m.handle_frame_error(at_us(300));
        } else {
            m.handle_frame(at_us(300), &data_from(1, 0, false, 300));
        }
        m.handle_channel(at_us(300), false);
        // Intact: the NAV from its Duration field (44 µs) runs to 344, then
        // DIFS; errored: EIFS = SIFS + ACK at 6 Mb/s + DIFS from its end.
        let idle_from = if errored { 300 + 94 } else { 344 + 34 };
        assert_eq!(
            m.poll_timeout(),
            Some(at_us(idle_from + 9 * k)),
            "errored {errored}"
        );
        assert_eq!(m.stats().rx_errors, u64::from(errored));
    }
}

/// A frame queued at the end of a reception the station must ACK (a TCP
/// ACK its received segment triggered) finds the medium idle: the ACK is
/// only scheduled. No backoff: it goes DIFS after the ACK. Queued while
/// the ACK is on the air, it finds the medium busy and draws a backoff.
#[test]
fn frame_queued_at_a_reception_goes_difs_after_the_ack() {
    let seed = (0..).find(|&s| draw(&mut stream(s, "q"), 15) >= 1).unwrap();
    let k = draw(&mut stream(seed, "q"), 15);
    let frame = Frame {
        id: 1,
        dst: Addr(1),
        psdu_bytes: 100,
    };
    // The data frame ends at 1000 µs; the ACK (24 Mb/s, 28 µs) runs
    // 1016..1044; DIFS = 34 µs.
    for (queued_us, want_backoff, want_tx_us) in
        [(1000, 0, 1044 + 34), (1030, k, 1044 + 34 + 9 * k)]
    {
        let mut m = Dcf::new(DcfConfig::new(Rate::Ofdm54), Addr(0), stream(seed, "q"));
        let data = data_from(1, 0, false, 1000);
        m.handle_channel(data.start, true);
        m.handle_frame(data.end(), &data);
        m.handle_channel(data.end(), false);
        let ack = m.poll_transmit().unwrap();
        assert_eq!(
            (ack.kind, ack.start, ack.end()),
            (TxKind::Ack, at_us(1016), at_us(1044))
        );
        m.handle_timeout(at_us(queued_us));
        m.enqueue(at_us(queued_us), frame);
        assert_eq!(
            m.backoff(),
            Some(want_backoff as u32),
            "queued at {queued_us}"
        );
        assert_eq!(m.stats().backoffs, u64::from(want_backoff > 0));
        let t = m.poll_timeout().unwrap();
        assert_eq!(t, at_us(want_tx_us), "queued at {queued_us}");
        m.handle_timeout(t);
        let tx = m.poll_transmit().unwrap();
        assert_eq!((tx.kind, tx.start), (TxKind::Data, at_us(want_tx_us)));
    }
}

/// The backoff counts idle slots only: a busy period freezes it and the
/// count resumes DIFS after the medium is idle again.
#[test]
fn backoff_freezes_while_busy() {
    let seed = (0..).find(|&s| draw(&mut stream(s, "f"), 31) >= 5).unwrap();
    let k = draw(&mut stream(seed, "f"), 31);
    let mut m = Dcf::new(DcfConfig::new(Rate::Cck11), Addr(1), stream(seed, "f"));
    m.handle_channel(at_us(100), true);
    m.enqueue(
        at_us(150),
        Frame {
            id: 1,
            dst: Addr(0),
            psdu_bytes: 100,
        },
    );
    m.handle_channel(at_us(200), false);
    // Slots count from 250; three whole slots (250..310) pass before the
    // medium is busy again at 317; the fourth is cut short.
    assert_eq!(m.poll_timeout(), Some(at_us(250 + 20 * k)));
    m.handle_channel(at_us(317), true);
    assert_eq!(m.backoff(), Some(k as u32 - 3));
    assert_eq!(m.poll_timeout(), None);
    m.handle_channel(at_us(1000), false);
    assert_eq!(m.poll_timeout(), Some(at_us(1050 + 20 * (k - 3))));
    // An early timeout is a no-op.
    m.handle_timeout(at_us(1051));
    assert!(m.poll_transmit().is_none());
    let t = m.poll_timeout().unwrap();
    m.handle_timeout(t);
    let tx = m.poll_transmit().unwrap();
    assert_eq!((tx.kind, tx.start), (TxKind::Data, t));
}

/// (d) ARF through the MAC: every 54 Mb/s data frame is lost. Two failures
/// step down to 48; ten successes step up; the probe at 54 fails and steps
/// straight back down.
#[test]
fn arf_steps_down_and_probes_up() {
    let config = DcfConfig {
        rate_control: RateControl::Arf(ArfConfig::starting_at(Rate::Ofdm54)),
        ..DcfConfig::new(Rate::Ofdm54)
    };
    let mut net = Net::new(2, config, 6);
    net.lose = Box::new(|tx| tx.kind == TxKind::Data && tx.rate == Rate::Ofdm54);
    for _ in 0..25 {
        net.send(1, 0, 1500);
    }
    net.run(Time::NEVER);
    let rates: Vec<u64> = net
        .started
        .iter()
        .filter(|t| t.kind == TxKind::Data)
        .map(|t| t.rate.kbps() / 1000)
        .collect();
    let mut want = vec![54, 54];
    want.extend([48; 10]);
    want.push(54);
    want.extend([48; 10]);
    want.push(54);
    want.extend([48; 5]);
    assert_eq!(rates, want);
    assert_eq!(net.delivered(1).len(), 25);
    assert_eq!(net.macs[1].data_rate(Addr(0)), Rate::Ofdm48);
}

/// The queue limit counts frames waiting behind the one in progress: with
/// a limit of 0 an idle station still takes a frame; an oversized PSDU is
/// refused whatever the queue.
#[test]
fn queue_limit_and_oversized_frames() {
    let config = DcfConfig {
        queue_limit: 0,
        ..DcfConfig::new(Rate::Ofdm12)
    };
    let mut m = Dcf::new(config, Addr(1), stream(1, "q"));
    let frame = |id, psdu_bytes| Frame {
        id,
        dst: Addr(0),
        psdu_bytes,
    };
    m.enqueue(Time::ZERO, frame(1, 1536));
    m.enqueue(Time::ZERO, frame(2, 1536));
    m.enqueue(Time::ZERO, frame(3, MAX_PSDU_BYTES + 1));
    let events: Vec<MacEvent> = std::iter::from_fn(|| m.poll_event()).collect();
    assert_eq!(
        events,
        vec![
            MacEvent::Undelivered {
                frame: 2,
                reason: UndeliveredReason::QueueFull
            },
            MacEvent::Undelivered {
                frame: 3,
                reason: UndeliveredReason::FrameTooLong
            },
        ]
    );
    let s = *m.stats();
    assert_eq!(
        (s.enqueued, s.queue_full_drops, s.too_long_drops),
        (1, 1, 1)
    );
    // The accepted frame goes DIFS after time zero (idle medium, no backoff).
    assert_eq!(m.poll_timeout(), Some(at_us(34)));
}

/// An AP whose medium is busy, holding frames `0..n` for stations 1 and
/// 2 in turn (even ids for 1, odd for 2).
fn busy_ap_with(n: u64) -> Dcf {
    let mut dcf = Dcf::new(DcfConfig::new(Rate::Ofdm24), Addr(0), stream(1, "t"));
    dcf.handle_channel(at_us(0), true);
    for id in 0..n {
        let dst = Addr(1 + id as u16 % 2);
        dcf.enqueue(
            at_us(1),
            Frame {
                id,
                dst,
                psdu_bytes: 1000,
            },
        );
    }
    dcf
}

/// A retune clears the queue: every waiting frame and the one contending
/// are given up as `Flushed`; the MAC then serves what comes next.
#[test]
fn flush_gives_up_every_frame_not_on_the_air() {
    let mut dcf = busy_ap_with(3);
    dcf.flush(at_us(5));
    let events: Vec<MacEvent> = std::iter::from_fn(|| dcf.poll_event()).collect();
    let flushed = |frame| MacEvent::Undelivered {
        frame,
        reason: UndeliveredReason::Flushed,
    };
    assert_eq!(events, vec![flushed(0), flushed(1), flushed(2)]);
    assert!(dcf.is_idle() && dcf.queue_len() == 0);
    dcf.enqueue(
        at_us(6),
        Frame {
            id: 9,
            dst: Addr(1),
            psdu_bytes: 1000,
        },
    );
    dcf.handle_channel(at_us(10), false);
    dcf.handle_timeout(at_us(2000));
    let sent: Vec<u64> = std::iter::from_fn(|| dcf.poll_transmit())
        .filter(|t| t.kind == TxKind::Data)
        .map(|t| t.frame)
        .collect();
    // No ACK comes: it is retried, and nothing else is sent.
    assert!(!sent.is_empty() && sent.iter().all(|&f| f == 9), "{sent:?}");
}

/// Taking back one receiver's frames leaves the others in order, and
/// reports nothing for the frames taken.
#[test]
fn withdraw_takes_one_receivers_frames_and_keeps_the_rest() {
    let mut dcf = busy_ap_with(5);
    // Frame 0 (for station 1) is contending: it comes back too.
    let taken: Vec<u64> = dcf
        .withdraw(at_us(5), Addr(1))
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(taken, vec![0, 2, 4]);
    assert_eq!(dcf.poll_event(), None);
    dcf.handle_channel(at_us(10), false);
    let mut sent = Vec::new();
    while sent.len() < 2 {
        let at = dcf.poll_timeout().expect("frames are waiting");
        dcf.handle_timeout(at);
        let txs: Vec<Transmission> = std::iter::from_fn(|| dcf.poll_transmit()).collect();
        for tx in txs {
            if tx.kind == TxKind::Data {
                sent.push((tx.frame, tx.to.0));
                // Its ACK, SIFS after the frame.
                let ack = Transmission {
                    kind: TxKind::Ack,
                    from: tx.to,
                    to: Addr(0),
                    start: tx.end() + us(16),
                    airtime: us(28),
                    psdu_bytes: ACK_BYTES,
                    ..tx
                };
                dcf.handle_frame(ack.end(), &ack);
            }
        }
    }
    assert_eq!(sent, vec![(1, 2), (3, 2)]);
}
