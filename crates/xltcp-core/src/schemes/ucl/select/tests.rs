//! The UCL's choice, report by report.

use super::measure::{Frame, Link};
use super::*;
use crate::scenario::{load_str, Scenario};
use crate::schemes::snoop::tests::data;
use crate::signal::{MacDelays, UndeliveredReason};

const TWO: &str = r#"
[wired]
rate = "1Gbps"
delay = "1ms"
[[wireless]]
name = "a"
kind = "wifi"
standard = "11a"
rate = "54Mbps"
[[wireless]]
name = "b"
kind = "wifi"
standard = "11b"
rate = "11Mbps"
[[flow]]
name = "f"
"#;

fn scenario() -> Scenario {
    load_str(TWO, "t.toml", std::path::Path::new("."), &[]).unwrap()
}

fn host(cfg: UclConfig) -> Ucl {
    let s = scenario();
    let hops = [&s.wireless, &s.more_hops[0]];
    Ucl::at_host(cfg, &hops, &s.flows[0].tcp)
}

fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

fn snr(iface: u8, db: f64) -> NodeSignal {
    NodeSignal {
        signal: Signal::Snr {
            iface,
            db,
            node: None,
        },
        reason: None,
        packet: None,
        delays: None,
        iface,
    }
}

fn report(p: Packet, iface: u8, delivered: bool) -> NodeSignal {
    NodeSignal {
        signal: if delivered {
            Signal::Delivered { frame: 0 }
        } else {
            Signal::Undelivered { frame: 0 }
        },
        reason: (!delivered).then_some(UndeliveredReason::RetryLimit),
        packet: Some(p),
        delays: None,
        iface,
    }
}

/// Sends `p` out of the host; returns its verdict and interface.
fn send(u: &mut Ucl, now: Time, mut p: Packet) -> (Verdict, u8) {
    let v = u.on_packet(now, Tap::HostOut, &mut p);
    (v, p.meta.iface)
}

#[test]
fn the_papers_rule_takes_11a_at_25_db_and_above() {
    let mut u = host(UclConfig::paper());
    assert_eq!(
        send(&mut u, ms(0), data(0)).1,
        0,
        "the first interface before any report"
    );
    assert!(u.on_signal(ms(100), &snr(0, 24.9)));
    assert!(u.on_signal(ms(100), &snr(1, 40.0)));
    assert_eq!(u.iface(0), 1);
    u.on_signal(ms(200), &snr(0, 25.0));
    assert_eq!(u.iface(0), 0);
    assert_eq!(send(&mut u, ms(201), data(1)), (Verdict::Pass, 0));
    // No dwell: it flaps with the SNR.
    u.on_signal(ms(300), &snr(0, 24.0));
    assert_eq!(u.iface(0), 1);
    assert_eq!(u.counters().switches, 3);
    // Inside an interface that is not the last, an 11b-only world never
    // picks 11a.
    u.on_signal(ms(400), &snr(1, 10.0));
    assert_eq!(u.iface(0), 1, "the last interface when none passes");
}

#[test]
fn hysteresis_needs_the_margin_both_ways() {
    let cfg = UclConfig {
        rule: Rule::Hysteresis {
            db: 25.0,
            margin: 3.0,
        },
        ..UclConfig::paper()
    };
    let mut u = host(cfg);
    u.on_signal(ms(100), &snr(0, 23.0));
    assert_eq!(u.iface(0), 0, "within the band below: stay");
    u.on_signal(ms(200), &snr(0, 21.9));
    assert_eq!(u.iface(0), 1);
    u.on_signal(ms(300), &snr(0, 27.0));
    assert_eq!(u.iface(0), 1, "within the band above: stay");
    u.on_signal(ms(400), &snr(0, 28.1));
    assert_eq!(u.iface(0), 0);
}

/// The MAC's report that `p`, sent on `iface`, was acknowledged `tx_us`
/// after it reached the head of the queue.
fn acked(p: Packet, iface: u8, tx_us: u64) -> NodeSignal {
    NodeSignal {
        delays: Some(MacDelays {
            queue: Dur::ZERO,
            tx: Dur::from_micros(tx_us),
            attempts: 1,
        }),
        ..report(p, iface, true)
    }
}

#[test]
fn the_goodput_rule_follows_what_the_mac_measured() {
    let cfg = UclConfig {
        dwell: Dur::ZERO,
        ..UclConfig::ours()
    };
    let mut u = host(cfg);
    u.on_signal(ms(100), &snr(0, 30.0));
    u.on_signal(ms(100), &snr(1, 40.0));
    // 11a at 30 dB: a 1040-byte packet every 320 us, 26 Mbit/s.
    for k in 0..40 {
        u.on_signal(ms(101), &acked(data(k), 0, 320));
    }
    let g = u.measured(0, 0).recent().unwrap();
    assert!((g - 26e6).abs() < 0.1e6, "{g}");
    // 11b, never measured, is credited its configured 11 Mbit/s: less.
    u.on_signal(ms(200), &snr(0, 30.0));
    assert_eq!(u.iface(0), 0);
    // At 20 dB 11a's frames take ten times as long and every other one is
    // given up (one at a time: no move after failures).
    u.on_signal(ms(300), &snr(0, 20.0));
    for k in 0..64 {
        let r = if k % 2 == 0 {
            acked(data(k), 0, 3200)
        } else {
            report(data(k), 0, false)
        };
        u.on_signal(ms(301), &r);
    }
    while u.poll_action().is_some() {}
    assert_eq!(u.iface(0), 0, "no SNR report yet");
    let now = u.measured(0, 0).recent().unwrap();
    assert!(now < 3e6, "{now}");
    u.on_signal(ms(400), &snr(0, 20.0));
    assert_eq!(u.iface(0), 1, "11b's credit beats what 11a measures now");
    assert_eq!(u.measured(0, 1).recent(), None, "11b is tried unmeasured");
    // 11b measured: 5.2 Mbit/s.
    for k in 0..40 {
        u.on_signal(ms(401), &acked(data(k), 1, 1600));
    }
    // 11a at 21 dB: its history (interpolated between 20 and 30 dB) says
    // less than 11b: stay. At 30 dB it says 26 Mbit/s: back.
    u.on_signal(ms(500), &snr(0, 21.0));
    assert_eq!(u.iface(0), 1);
    u.on_signal(ms(600), &snr(0, 30.0));
    assert_eq!(u.iface(0), 0);
    assert_eq!(u.counters().switches, 2);
}

#[test]
fn the_history_fills_the_snrs_it_has_not_seen() {
    let ok = |tx_s: f64| Frame::Delivered {
        bits: 8000.0,
        tx_s: Some(tx_s),
    };
    let mut l = Link::default();
    assert_eq!(l.at(10.0), None, "nothing measured");
    // Before any SNR report: the recent average at every SNR.
    l.frame(ok(0.001));
    l.frame(ok(0.001));
    assert_eq!(l.at(10.0), Some(8e6));
    l.snr(30.2);
    for _ in 0..4 {
        l.frame(ok(0.001));
    }
    l.snr(20.9);
    for _ in 0..4 {
        l.frame(ok(0.002));
    }
    let near = |x: Option<f64>, y: f64| x.is_some_and(|x| (x - y).abs() < 1.0);
    assert!(near(l.at(30.0), 8e6));
    assert!(near(l.at(20.0), 4e6));
    assert!(near(l.at(25.5), 6e6), "between bins: the line");
    assert!(near(l.at(45.0), 8e6), "above: the highest bin's");
    assert!(
        near(l.at(15.5), 2e6),
        "below: the line through the lowest two"
    );
    assert!(near(l.at(5.0), 0.0), "never below 0");
    // Frames given up: 0 there.
    l.snr(10.0);
    l.frame(Frame::Lost);
    l.frame(Frame::Lost);
    assert_eq!(l.at(10.5), Some(0.0));
    assert!(near(l.at(15.5), 4e6 * 5.0 / 10.0), "between 10 and 20 dB");
    // One frame is not a measurement.
    let mut one = Link::default();
    one.frame(ok(0.001));
    assert!(!one.measured());
    assert_eq!(one.recent(), None);
}

#[test]
fn the_goodput_rule_sees_only_what_a_host_can() {
    // The measurements' module imports nothing from the simulator: it
    // cannot reach the channel's error model or the PHY's timing.
    let measure = include_str!("measure.rs");
    for line in measure.lines().map(str::trim_start) {
        if line.starts_with("use ") {
            assert!(line.starts_with("use std::"), "measure.rs: {line}");
        }
        assert!(
            !line.contains("crate::") && !line.contains("super::"),
            "measure.rs: {line}"
        );
    }
    // The rule's own module names no radio module (error model, PHY
    // timing, rates) and reads no channel state.
    let select = include_str!("../select.rs");
    for model in [
        "radio::",
        "error::",
        "::per(",
        " per(",
        "ErrorModel",
        "tcp_capacity",
        "psdu",
        "db_to_linear",
        "db_at",
        "SnrProcess",
        "HopKind",
    ] {
        assert!(!select.contains(model), "select.rs names {model}");
    }
}

#[test]
fn dwell_keeps_a_choice_for_its_time() {
    let cfg = UclConfig {
        rule: Rule::Threshold { db: 25.0 },
        dwell: Dur::from_millis(500),
        ..UclConfig::paper()
    };
    let mut u = host(cfg);
    u.on_signal(ms(100), &snr(0, 20.0));
    assert_eq!(u.iface(0), 1);
    u.on_signal(ms(300), &snr(0, 30.0));
    assert_eq!(u.iface(0), 1, "300 ms after the switch");
    u.on_signal(ms(600), &snr(0, 30.0));
    assert_eq!(u.iface(0), 0);
}

#[test]
fn a_barrier_holds_until_the_old_interface_drains() {
    let cfg = UclConfig {
        rule: Rule::Threshold { db: 25.0 },
        ..UclConfig::ours()
    };
    let mut u = host(cfg);
    u.on_signal(ms(0), &snr(0, 30.0));
    let (p0, p1) = (data(0), data(1));
    assert_eq!(send(&mut u, ms(1), p0), (Verdict::Pass, 0));
    assert_eq!(send(&mut u, ms(1), p1), (Verdict::Pass, 0));
    u.on_signal(ms(100), &snr(0, 20.0));
    assert_eq!(u.iface(0), 1);
    // Two packets are still on 11a: the next one waits.
    assert_eq!(send(&mut u, ms(101), data(2)).0, Verdict::Hold);
    assert_eq!(u.held(), 1);
    assert_eq!(u.poll_timeout(), Some(ms(150)));
    u.on_signal(ms(102), &report(p0, 0, true));
    assert!(u.poll_action().is_none(), "one still on 11a");
    u.on_signal(ms(103), &report(p1, 0, true));
    match u.poll_action() {
        Some(Action::Release { packet, via }) => {
            assert_eq!(packet.meta.iface, 1);
            assert_eq!(packet.tcp.seq, data(2).tcp.seq);
            assert_eq!(via, Via::Air);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(u.held(), 0);
    assert_eq!(u.counters().barriers_drained, 1);
    assert_eq!(send(&mut u, ms(104), data(3)), (Verdict::Pass, 1));
}

#[test]
fn a_barrier_gives_up_at_max_hold() {
    let cfg = UclConfig {
        rule: Rule::Threshold { db: 25.0 },
        ..UclConfig::ours()
    };
    let mut u = host(cfg);
    u.on_signal(ms(0), &snr(0, 30.0));
    send(&mut u, ms(1), data(0));
    u.on_signal(ms(100), &snr(0, 20.0));
    assert_eq!(send(&mut u, ms(101), data(1)).0, Verdict::Hold);
    u.on_timeout(ms(149));
    assert!(u.poll_action().is_none(), "an early call does nothing");
    u.on_timeout(ms(150));
    assert!(matches!(u.poll_action(), Some(Action::Release { .. })));
    assert_eq!(u.counters().barriers_timed_out, 1);
}

#[test]
fn without_a_barrier_a_switch_may_reorder() {
    let mut u = host(UclConfig::paper());
    u.on_signal(ms(0), &snr(0, 30.0));
    send(&mut u, ms(1), data(0));
    u.on_signal(ms(100), &snr(0, 20.0));
    assert_eq!(send(&mut u, ms(101), data(1)), (Verdict::Pass, 1));
}

#[test]
fn a_packet_the_mac_gave_up_on_goes_out_on_the_other_interface() {
    let mut u = host(UclConfig::ours());
    u.on_signal(ms(0), &snr(0, 30.0));
    let p = data(0);
    send(&mut u, ms(1), p);
    u.on_signal(ms(20), &report(p, 0, false));
    match u.poll_action() {
        Some(Action::Emit { packet, via }) => {
            assert_eq!(packet.meta.iface, 1);
            assert!(packet.meta.forged);
            assert_eq!(packet.tcp.seq, p.tcp.seq);
            assert_eq!(via, Via::Air);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(u.iface(0), 0, "one failure does not move the host");
    let q = data(1);
    send(&mut u, ms(21), q);
    u.on_signal(ms(40), &report(q, 0, false));
    assert!(u.poll_action().is_some());
    assert_eq!(u.iface(0), 1, "two in a row do");
    assert_eq!(u.counters().resent, 2);
    // A drop at a full queue is congestion: left to TCP.
    let mut full = report(data(2), 1, false);
    full.reason = Some(UndeliveredReason::QueueFull);
    u.on_signal(ms(50), &full);
    assert!(u.poll_action().is_none());
    // The paper's UCL does not resend.
    let mut paper = host(UclConfig::paper());
    paper.on_signal(ms(20), &report(p, 0, false));
    assert!(paper.poll_action().is_none());
}

#[test]
fn pure_acks_given_up_move_the_host_but_are_not_resent() {
    let mut u = host(UclConfig::ours());
    u.on_signal(ms(0), &snr(0, 30.0));
    let mut ack = data(0);
    ack.tcp.payload_len = 0;
    for t in [10, 20] {
        send(&mut u, ms(t), ack);
        u.on_signal(ms(t + 5), &report(ack, 0, false));
        assert!(u.poll_action().is_none(), "an ACK is not resent");
    }
    assert_eq!(u.iface(0), 1, "two given up in a row move the host");
    assert_eq!(u.counters().resent, 0);
}

#[test]
fn the_bs_keeps_one_choice_per_host() {
    let mut s = scenario();
    let mut second = s.flows[0].clone();
    second.name = "g".into();
    second.host = Some("far".into());
    s.flows.push(second);
    let hops = [&s.wireless, &s.more_hops[0]];
    let mut u = Ucl::at_bs(UclConfig::paper(), &hops, &s.flows[0].tcp, &[0, 1]);
    let at_bs = |h: u32, db: f64| NodeSignal {
        signal: Signal::Snr {
            iface: 0,
            db,
            node: Some(h),
        },
        ..snr(0, db)
    };
    u.on_signal(ms(100), &at_bs(0, 30.0));
    u.on_signal(ms(100), &at_bs(1, 10.0));
    assert_eq!((u.iface(0), u.iface(1)), (0, 1));
    let mut p = data(0);
    p.meta.flow = 1;
    assert_eq!(u.on_packet(ms(101), Tap::BsDown, &mut p), Verdict::Pass);
    assert_eq!(p.meta.iface, 1);
    // A host's own report (no node) means nothing at the BS.
    assert!(!u.on_signal(ms(102), &snr(0, 5.0)));
}
