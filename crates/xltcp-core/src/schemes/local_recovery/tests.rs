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
