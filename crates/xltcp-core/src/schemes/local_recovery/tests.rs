//! Gap detection, report contents and the retransmissions they trigger.

use super::*;
use crate::wire::{PacketMeta, TcpFlags, TcpOptions};
use std::net::Ipv4Addr;

const ISS: u32 = 1000;
const MSS: u32 = 94;

/// Sequence number of the first byte of segment `k` (k from 0).
fn s(k: u32) -> SeqNum {
    SeqNum(ISS + 1 + k * MSS)
}

fn seg(k: u32) -> Segment {
    Segment {
        src_port: 49152,
        dst_port: 5201,
        seq: s(k),
        ack: SeqNum(1),
        flags: TcpFlags::ACK,
        window: 1000,
        options: TcpOptions::default(),
        payload_len: MSS,
    }
}

fn syn() -> Segment {
    Segment {
        seq: SeqNum(ISS),
        flags: TcpFlags::SYN,
        payload_len: 0,
        ..seg(0)
    }
}

fn packet(k: u32) -> Packet {
    Packet {
        src: Ipv4Addr::new(10, 2, 0, 1),
        dst: Ipv4Addr::new(10, 1, 0, 1),
        ip_id: k as u16,
        ttl: 64,
        tcp: seg(k),
        meta: PacketMeta {
            flow: 0,
            uid: u64::from(k),
            retransmission: false,
            forged: false,
            iface: 0,
            ..PacketMeta::default()
        },
    }
}

fn monitor_after(ks: &[u32]) -> (GapMonitor, Vec<LrReport>) {
    let mut m = GapMonitor::new();
    assert_eq!(m.on_data(&syn()), None);
    let reports = ks.iter().filter_map(|&k| m.on_data(&seg(k))).collect();
    (m, reports)
}

#[test]
fn in_order_data_makes_no_report() {
    let (m, reports) = monitor_after(&[0, 1, 2, 3]);
    assert!(reports.is_empty());
    assert_eq!(m.cum(), Some(s(4)));
}

#[test]
fn a_gap_makes_one_report_with_the_hole() {
    // Segment 2 is lost on the air: 3 opens the hole, 4 extends the block.
    let (m, reports) = monitor_after(&[0, 1, 3, 4]);
    assert_eq!(
        reports,
        vec![LrReport {
            cum: s(2),
            blocks: vec![(s(3), s(4))],
        }]
    );
    assert_eq!(reports[0].holes(), vec![(s(2), s(3))]);
    assert_eq!(m.cum(), Some(s(2)));
    assert_eq!(m.stats.reports_sent, 1);
}

#[test]
fn a_second_hole_reports_both_and_the_retransmission_closes_them() {
    let (mut m, reports) = monitor_after(&[0, 2, 3, 5]);
    assert_eq!(reports.len(), 2);
    assert_eq!(
        reports[1],
        LrReport {
            cum: s(1),
            blocks: vec![(s(2), s(4)), (s(5), s(6))],
        }
    );
    assert_eq!(reports[1].holes(), vec![(s(1), s(2)), (s(4), s(5))]);
    // The retransmissions fill the holes: no report, cumulative point up.
    assert_eq!(m.on_data(&seg(1)), None);
    assert_eq!(m.cum(), Some(s(4)));
    assert_eq!(m.on_data(&seg(4)), None);
    assert_eq!(m.cum(), Some(s(6)));
    // A late duplicate is counted, not reported.
    assert_eq!(m.on_data(&seg(2)), None);
    assert_eq!(m.stats.duplicates_at_bs, 1);
}

#[test]
fn at_most_three_blocks_the_lowest_ones() {
    let (_, reports) = monitor_after(&[0, 2, 4, 6, 8]);
    let last = reports.last().unwrap();
    assert_eq!(last.cum, s(1));
    assert_eq!(
        last.blocks,
        vec![(s(2), s(3)), (s(4), s(5)), (s(6), s(7))],
        "three blocks, lowest first"
    );
    assert_eq!(last.holes(), vec![(s(1), s(2)), (s(3), s(4)), (s(5), s(6))]);
}

#[test]
fn phy_lr_resends_the_hole_from_its_link_buffer() {
    let mut a = LrAgent::new(LrMode::Phy, 8);
    for k in 0..6 {
        a.on_sent(&packet(k));
    }
    a.on_ack(s(2)); // segments 0 and 1 acknowledged: out of the buffer
    let report = LrReport {
        cum: s(2),
        blocks: vec![(s(3), s(4)), (s(5), s(6))],
    };
    a.on_report(Time::ZERO, &report);
    let actions: Vec<LrAction> = std::iter::from_fn(|| a.poll_action()).collect();
    let resent: Vec<SeqNum> = actions
        .iter()
        .map(|x| match x {
            LrAction::Resend(p) => {
                assert!(p.meta.retransmission);
                p.tcp.seq
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(resent, vec![s(2), s(4)]);
    assert_eq!(a.stats.link_resends, 2);
    assert_eq!(a.stats.holes_reported, 2);
}

#[test]
fn phy_lr_counts_a_hole_it_no_longer_holds() {
    let mut a = LrAgent::new(LrMode::Phy, 2);
    for k in 0..4 {
        a.on_sent(&packet(k)); // the buffer keeps 2 and 3 only
    }
    a.on_report(
        Time::ZERO,
        &LrReport {
            cum: s(0),
            blocks: vec![(s(1), s(4))],
        },
    );
    assert_eq!(a.poll_action(), None);
    assert_eq!(a.stats.holes_not_buffered, 1);
}

#[test]
fn tcp_lr_asks_tcp_for_the_holes_and_again_on_rto() {
    let mut a = LrAgent::new(LrMode::Tcp, 8);
    a.on_sent(&packet(0)); // TCP-LR keeps no link buffer
    let report = LrReport {
        cum: s(1),
        blocks: vec![(s(2), s(4)), (s(5), s(6))],
    };
    a.on_report(Time::ZERO, &report);
    let actions: Vec<LrAction> = std::iter::from_fn(|| a.poll_action()).collect();
    assert_eq!(
        actions,
        vec![
            LrAction::Retransmit {
                left: s(1),
                right: s(2)
            },
            LrAction::Retransmit {
                left: s(4),
                right: s(5)
            },
        ]
    );
    // The first hole is acknowledged; the RTO retransmits what is still lost.
    a.on_ack(s(4));
    a.on_rto();
    let actions: Vec<LrAction> = std::iter::from_fn(|| a.poll_action()).collect();
    assert_eq!(
        actions,
        vec![LrAction::Retransmit {
            left: s(4),
            right: s(5)
        }]
    );
    assert_eq!(a.stats.rto_requests, 1);
}

#[test]
fn phy_lr_ignores_rto() {
    let mut a = LrAgent::new(LrMode::Phy, 8);
    a.on_rto();
    assert_eq!(a.poll_action(), None);
}

/// The receiver's ACK of everything before segment `k`, as the BS sees it
/// on its way to the sender.
fn receiver_ack(k: u32) -> Packet {
    let mut p = packet(0);
    std::mem::swap(&mut p.src, &mut p.dst);
    p.tcp = Segment {
        src_port: 5201,
        dst_port: 49152,
        seq: SeqNum(77),
        ack: s(k),
        flags: TcpFlags::ACK,
        window: 500,
        options: TcpOptions {
            timestamps: Some((11, 22)),
            ..TcpOptions::default()
        },
        payload_len: 0,
    };
    p
}

fn bs_sees(bs: &mut LrBs, tap: Tap, mut p: Packet) -> Vec<Action> {
    assert_eq!(bs.on_packet(Time::ZERO, tap, &mut p), Verdict::Pass);
    std::iter::from_fn(|| bs.poll_action()).collect()
}

fn syn_packet() -> Packet {
    Packet {
        tcp: syn(),
        ..packet(0)
    }
}

#[test]
fn bs_reports_acknowledge_only_what_the_receiver_did() {
    let mut bs = LrBs::reporting_to(ReportTo::Tcp, 1, |_| true);
    assert!(bs_sees(&mut bs, Tap::BsUp, syn_packet()).is_empty());
    let mut synack = receiver_ack(0);
    synack.tcp.flags = TcpFlags::SYN | TcpFlags::ACK;
    assert!(bs_sees(&mut bs, Tap::BsDown, synack).is_empty());
    for k in [0, 1, 2] {
        assert!(bs_sees(&mut bs, Tap::BsUp, packet(k)).is_empty());
    }
    // The receiver has acknowledged segment 0 only; 3 is lost on the air.
    assert!(bs_sees(&mut bs, Tap::BsDown, receiver_ack(1)).is_empty());
    let out = bs_sees(&mut bs, Tap::BsUp, packet(4));
    let [Action::Emit { packet: r, via }] = out.as_slice() else {
        panic!("one report expected: {out:?}");
    };
    assert_eq!(*via, Via::Air);
    assert!(r.meta.forged);
    assert_eq!((r.src, r.dst), (packet(0).dst, packet(0).src));
    assert_eq!((r.tcp.src_port, r.tcp.dst_port), (5201, 49152));
    // The receiver's ACK, sequence number, window and timestamps ...
    assert_eq!(r.tcp.ack, s(1));
    assert_eq!((r.tcp.seq, r.tcp.window), (SeqNum(77), 500));
    assert_eq!(r.tcp.options.timestamps, Some((11, 22)));
    // ... with what the BS passed on above it, then the block past the hole.
    let blocks: Vec<(SeqNum, SeqNum)> = r
        .tcp
        .options
        .sack
        .as_slice()
        .iter()
        .map(|b| (b.left, b.right))
        .collect();
    assert_eq!(blocks, vec![(s(1), s(3)), (s(4), s(5))]);
    let Some(AgentStats::LocalRecovery(st)) = bs.stats() else {
        unreachable!()
    };
    assert_eq!(st.reports_sent, 1);
}

#[test]
fn bs_reports_wait_for_the_receivers_first_ack() {
    let mut bs = LrBs::reporting_to(ReportTo::Tcp, 1, |_| true);
    bs_sees(&mut bs, Tap::BsUp, syn_packet());
    bs_sees(&mut bs, Tap::BsUp, packet(0));
    assert!(bs_sees(&mut bs, Tap::BsUp, packet(2)).is_empty());
    let Some(AgentStats::LocalRecovery(st)) = bs.stats() else {
        unreachable!()
    };
    assert_eq!(st.reports_sent, 0);
}

#[test]
fn connections_of_one_flow_are_monitored_apart() {
    let mut bs = LrBs::reporting_to(ReportTo::Tcp, 1, |_| true);
    bs_sees(&mut bs, Tap::BsUp, syn_packet());
    bs_sees(&mut bs, Tap::BsDown, receiver_ack(0));
    bs_sees(&mut bs, Tap::BsUp, packet(0));
    // A second connection of the flow (other ports, far-away numbers).
    let mut other = syn_packet();
    other.tcp.src_port = 49153;
    other.tcp.seq = SeqNum(900_000);
    bs_sees(&mut bs, Tap::BsUp, other);
    // Back on the first: in order, no report.
    assert!(bs_sees(&mut bs, Tap::BsUp, packet(1)).is_empty());
}

#[test]
fn the_bs_measures_how_long_a_reported_hole_takes_to_fill() {
    let mut bs = LrBs::reporting_to(ReportTo::Tcp, 1, |_| true);
    let at = |ms: u64, bs: &mut LrBs, tap: Tap, mut p: Packet| {
        bs.on_packet(Time::ZERO + crate::time::Dur::from_millis(ms), tap, &mut p);
        std::iter::from_fn(|| bs.poll_action()).count()
    };
    at(0, &mut bs, Tap::BsUp, syn_packet());
    at(0, &mut bs, Tap::BsDown, receiver_ack(0));
    at(10, &mut bs, Tap::BsUp, packet(0));
    // Segment 1 is lost: segment 2 reveals the hole at 20 ms.
    assert_eq!(at(20, &mut bs, Tap::BsUp, packet(2)), 1);
    at(30, &mut bs, Tap::BsUp, packet(3));
    let Some(AgentStats::LocalRecovery(st)) = bs.stats() else {
        unreachable!()
    };
    assert_eq!(st.repairs, 0, "not filled yet");
    // Its retransmission arrives at 65 ms: 45 ms after the report.
    at(65, &mut bs, Tap::BsUp, packet(1));
    let Some(AgentStats::LocalRecovery(st)) = bs.stats() else {
        unreachable!()
    };
    assert_eq!((st.repairs, st.repair_ns_max), (1, 45_000_000));
    assert_eq!(st.repair_ns_total, 45_000_000);
}

#[test]
fn phy_lr_records_its_link_buffer_peak() {
    let mut a = LrAgent::new(LrMode::Phy, 3);
    for k in 0..5 {
        a.on_sent(&packet(k));
    }
    assert_eq!(a.stats.link_buffer_peak, 3, "bounded by its capacity");
    let mut t = LrAgent::new(LrMode::Tcp, 3);
    t.on_sent(&packet(0));
    assert_eq!(t.stats.link_buffer_peak, 0, "TCP-LR keeps no link buffer");
}

/// The BS's gap detection across 2^31 and 2^32 bytes (and 2^32 + 2^31):
/// in-order data makes no report, a hole after the wraps one report with
/// that hole, its retransmission closes it.
#[test]
fn gaps_are_found_past_2_pow_32_bytes() {
    let big = 1u32 << 28;
    let iss = u32::MAX - 5000;
    let at =
        |k: u32| SeqNum(((u64::from(iss) + 1 + u64::from(k) * u64::from(big)) % (1 << 32)) as u32);
    let seg_at = |k: u32| Segment {
        seq: at(k),
        payload_len: big,
        ..seg(0)
    };
    let mut m = GapMonitor::new();
    assert_eq!(
        m.on_data(&Segment {
            seq: SeqNum(iss),
            ..syn()
        }),
        None
    );
    // 24 segments of 2^28 bytes: 6 GiB in order.
    for k in 0..24 {
        assert_eq!(m.on_data(&seg_at(k)), None, "segment {k}");
    }
    assert_eq!(m.cum(), Some(at(24)));
    // Segment 24 is lost: 25 opens the hole.
    let report = m.on_data(&seg_at(25)).expect("a report");
    assert_eq!(report.cum, at(24));
    assert_eq!(report.holes(), vec![(at(24), at(25))]);
    assert_eq!(m.on_data(&seg_at(24)), None);
    assert_eq!(m.cum(), Some(at(26)));
    assert!(m.holes().is_empty());
    assert_eq!(m.stats.reports_sent, 1);
}
