//! Tests of the hop model on real bytes, driven by hand (no devices).

use super::datagram::ones_complement_sum;
use super::*;
use std::path::Path;
use xltcp_core::net::loss::LossProcess;
use xltcp_core::scenario::load_str;
use xltcp_core::wire::{
    emit, fix_checksums, parse, parse_with, PacketMeta, ParseOptions, Segment, SeqNum, TcpFlags,
};

const SCENARIO: &str = r#"
[sim]
duration = "10s"
[wired]
rate = "100Mbps"
delay = "1ms"
[wireless]
rate = "10Mbps"
delay = "2ms"
[[flow]]
"#;

#[derive(Default)]
struct Sink {
    out: Vec<(Side, Vec<u8>)>,
}

impl Egress for Sink {
    fn deliver(&mut self, side: Side, datagram: &[u8]) -> std::io::Result<()> {
        self.out.push((side, datagram.to_vec()));
        Ok(())
    }
}

fn hop(extra: &str) -> Hop {
    let text = format!("{SCENARIO}\n{extra}");
    let s = load_str(&text, "t.toml", Path::new("."), &[]).expect("valid scenario");
    Hop::new(&s, 1)
}

fn datagram(from: Side, payload: u32) -> Vec<u8> {
    let (src, dst) = match from {
        Side::Ch => (host_address(Side::Ch, 0), host_address(Side::Sh, 0)),
        Side::Sh => (host_address(Side::Sh, 0), host_address(Side::Ch, 0)),
    };
    let p = Packet {
        src,
        dst,
        ip_id: 1,
        ttl: 64,
        tcp: Segment {
            src_port: 40000,
            dst_port: 5201,
            seq: SeqNum(1000),
            ack: SeqNum(1),
            flags: TcpFlags::ACK,
            window: 1000,
            payload_len: payload,
            ..Segment::default()
        },
        meta: PacketMeta::default(),
    };
    let mut buf = Vec::new();
    emit(&p, &mut buf);
    buf
}

/// Fires every deadline up to `until`; returns the times fired.
fn run_until(h: &mut Hop, until: Time, sink: &mut Sink) -> Vec<Time> {
    let mut fired = Vec::new();
    while let Some((at, ev)) = h.deadlines.pop_due(until) {
        h.dispatch(at, ev, sink);
        fired.push(at);
    }
    fired
}

#[test]
fn a_segment_crosses_wired_then_wireless_at_the_models_times() {
    let mut h = hop("");
    let mut sink = Sink::default();
    let bytes = datagram(Side::Ch, 1448);
    h.ingress(Time::ZERO, Side::Ch, &bytes);
    run_until(&mut h, Time(20_000_000), &mut sink);
    assert_eq!(sink.out.len(), 1);
    let (side, got) = &sink.out[0];
    assert_eq!(*side, Side::Sh);
    // The BS routed it: TTL one less, checksums still valid, rest unchanged.
    let parsed = parse(got).expect("valid checksums after the TTL rewrite");
    assert_eq!(parsed.packet().ttl, 63);
    assert_eq!(&got[..8], &bytes[..8]);
    assert_eq!(&got[12..], &bytes[12..]);
    let c = &h.counters.accounting;
    assert_eq!((c.injected, c.delivered, c.dropped), (1, 1, 0));
    assert_eq!(h.held(), 0);
    assert_eq!(h.counters.data_segments[0], [1, 0]);
}

#[test]
fn delivery_time_is_serialisation_plus_propagation_of_both_links() {
    let mut h = hop("");
    let mut sink = Sink::default();
    h.ingress(Time::ZERO, Side::Ch, &datagram(Side::Ch, 1448));
    // 1488 B at 100 Mbit/s + 1 ms, then at 10 Mbit/s + 2 ms.
    let expected = Time::ZERO
        + Dur::transmission(1488, 100_000_000)
        + Dur::from_millis(1)
        + Dur::transmission(1488, 10_000_000)
        + Dur::from_millis(2);
    run_until(&mut h, Time(expected.as_nanos() - 1), &mut sink);
    assert!(sink.out.is_empty());
    run_until(&mut h, expected, &mut sink);
    assert_eq!(sink.out.len(), 1);
}

#[test]
fn malformed_datagrams_are_refused_with_their_reason() {
    let mut h = hop("");
    let mut bad_sum = datagram(Side::Ch, 100);
    let last = bad_sum.len() - 1;
    bad_sum[last] ^= 0xff;
    h.ingress(Time::ZERO, Side::Ch, &bad_sum);
    h.ingress(Time::ZERO, Side::Ch, &[0x45, 0, 0]);
    h.ingress(Time::ZERO, Side::Ch, &[0x60; 40]);
    let want: BTreeMap<&str, u64> = [("bad_tcp_checksum", 1), ("truncated", 1), ("ipv6", 1)]
        .into_iter()
        .collect();
    assert_eq!(h.counters.rejected, want);
    assert_eq!(h.counters.accounting.injected, 0);
    assert_eq!(h.held(), 0);
}

#[test]
fn foreign_addresses_are_refused() {
    let mut h = hop("");
    // From the SH side but carrying a CH source address.
    h.ingress(Time::ZERO, Side::Sh, &datagram(Side::Ch, 10));
    assert_eq!(h.counters.rejected.get("unknown_address"), Some(&1));
}

#[test]
fn icmp_crosses_as_a_stand_in_of_its_length() {
    let mut h = hop("");
    let mut sink = Sink::default();
    let mut icmp = datagram(Side::Ch, 44);
    icmp[9] = 1; // protocol ICMP; fix the IPv4 header checksum
    icmp[10] = 0;
    icmp[11] = 0;
    let sum = !ones_complement_sum(&icmp[..20]);
    icmp[10..12].copy_from_slice(&sum.to_be_bytes());
    h.ingress(Time::ZERO, Side::Ch, &icmp);
    run_until(&mut h, Time(50_000_000), &mut sink);
    assert_eq!(h.counters.non_tcp, 1);
    assert_eq!(sink.out.len(), 1);
    assert_eq!(sink.out[0].1[8], 63);
    assert_eq!(ones_complement_sum(&sink.out[0].1[..20]), 0xffff);
}

#[test]
fn a_full_queue_drops_and_releases_the_bytes() {
    let mut h = hop("[wireless.loss.down]\nmodel = \"none\"\n");
    let mut sink = Sink::default();
    // Wired 100 Mbit/s feeds a 10 Mbit/s hop with a 100-packet queue.
    for ms in 0..100u64 {
        for _ in 0..5 {
            h.ingress(Time(ms * 1_000_000), Side::Ch, &datagram(Side::Ch, 1448));
        }
        run_until(&mut h, Time(ms * 1_000_000 + 999_999), &mut sink);
    }
    run_until(&mut h, Time(2_000_000_000), &mut sink);
    h.finish();
    let a = h.counters.accounting;
    assert!(a.balances(), "{a:?}");
    assert!(h.links[h.wl_down].stats.drops.queue_full > 0);
    assert_eq!(a.delivered as usize, sink.out.len());
    assert_eq!(h.held(), a.in_flight as usize);
    assert_eq!(h.held(), 0);
}

#[test]
fn blockages_hold_frames_and_count_the_one_on_the_air() {
    let mut h = hop("[wireless.availability]\nmodel = \"onoff\"\non = \"10ms\"\noff = \"50ms\"\n");
    let mut sink = Sink::default();
    // Frames take 1.2 ms on the air: one is on the air when the block begins.
    for _ in 0..20 {
        h.ingress(Time::ZERO, Side::Ch, &datagram(Side::Ch, 1448));
    }
    run_until(&mut h, Time(10_000_000), &mut sink);
    assert!(h.blocked());
    let on_air_at_block = h.links[h.wl_down].stats.drops.blocked;
    assert_eq!(on_air_at_block, 1);
    let sent_before = h.links[h.wl_down].stats.transmitted;
    run_until(&mut h, Time(59_000_000), &mut sink);
    assert_eq!(
        h.links[h.wl_down].stats.transmitted, sent_before,
        "nothing is sent while blocked"
    );
    run_until(&mut h, Time(200_000_000), &mut sink);
    h.finish();
    assert!(h.counters.accounting.balances());
    assert_eq!(
        h.blocked_intervals.first(),
        Some(&(Time(10_000_000), Time(60_000_000)))
    );
}

#[test]
fn after_the_end_the_hop_stays_open_at_its_rate() {
    let mut h = hop("[wireless.availability]\nmodel = \"onoff\"\non = \"9s\"\noff = \"10s\"\n");
    let mut sink = Sink::default();
    run_until(&mut h, Time(9_500_000_000), &mut sink);
    assert!(h.blocked());
    run_until(&mut h, Time(10_000_000_000), &mut sink);
    assert!(h.ended() && !h.blocked());
    let t = Time(10_000_000_001);
    h.ingress(t, Side::Ch, &datagram(Side::Ch, 1448));
    run_until(&mut h, t + Dur::from_millis(4), &mut sink);
    assert!(sink.out.is_empty(), "still paced by the links");
    run_until(&mut h, t + Dur::from_millis(10), &mut sink);
    assert_eq!(sink.out.len(), 1);
    assert_eq!(
        h.blocked_intervals,
        vec![(Time(9_000_000_000), Time(10_000_000_000))]
    );
}

#[test]
fn same_seed_same_losses_as_the_simulators_stream() {
    let lossy = "[wireless.loss.down]\nmodel = \"iid\"\np = 0.3\n";
    let fates = |seed: u64| {
        let text = format!("{SCENARIO}\n{lossy}");
        let s = load_str(&text, "t.toml", Path::new("."), &[]).unwrap();
        let mut h = Hop::new(&s, seed);
        let mut sink = Sink::default();
        for i in 0..50u64 {
            h.ingress(Time(i * 5_000_000), Side::Ch, &datagram(Side::Ch, 100));
            run_until(&mut h, Time(i * 5_000_000 + 4_000_000), &mut sink);
        }
        h.links[h.wl_down].stats.drops.loss
    };
    let mut reference = LossProcess::new(
        &xltcp_core::scenario::LossSpec::Iid { p: 0.3 },
        stream(7, "wireless.down.loss"),
    );
    let expected = (0..50).filter(|_| reference.lose_next()).count() as u64;
    assert_eq!(fates(7), expected);
}

#[test]
fn ttl_one_is_not_forwarded() {
    let mut b = datagram(Side::Ch, 0);
    b[8] = 1;
    assert!(!decrement_ttl(&mut b));
    let mut b = datagram(Side::Ch, 0);
    assert!(decrement_ttl(&mut b));
    assert!(parse(&b).is_ok());
}

#[test]
fn a_checksum_of_ffff_for_zero_is_forwarded() {
    // RFC 1071: 0xFFFF and 0x0000 are both one's-complement zero; Linux
    // writes 0xFFFF about once in 65536 segments, and every retransmission
    // carries it again, so refusing it would stall the flow for good.
    let mut b = datagram(Side::Ch, 64);
    let (check, urgent) = (20 + 16, 20 + 18);
    // The urgent pointer is covered by the checksum and ignored by the
    // parser: choose it so that the computed checksum is 0x0000.
    fix_checksums(&mut b).unwrap();
    let c = [b[check], b[check + 1]];
    b[urgent..urgent + 2].copy_from_slice(&c);
    fix_checksums(&mut b).unwrap();
    assert_eq!([b[check], b[check + 1]], [0, 0]);
    b[check..check + 2].copy_from_slice(&[0xff, 0xff]);
    assert!(parse(&b).is_ok());
    let mut h = hop("");
    let mut sink = Sink::default();
    h.ingress(Time::ZERO, Side::Ch, &b);
    run_until(&mut h, Time(50_000_000), &mut sink);
    assert!(h.counters.rejected.is_empty());
    assert_eq!(sink.out.len(), 1);
    // A really wrong checksum is still refused.
    b[check] = 0x12;
    h.ingress(Time(60_000_000), Side::Ch, &b);
    run_until(&mut h, Time(120_000_000), &mut sink);
    assert_eq!(h.counters.rejected.get("bad_tcp_checksum"), Some(&1));
}

/// A segment of the uplink flow: from the wireless host (`Side::Sh`) or
/// the wired host's answer.
fn uplink_segment(from: Side, seq: u32, ack: u32, flags: TcpFlags, payload: u32) -> Vec<u8> {
    let (sh, ch) = (host_address(Side::Sh, 0), host_address(Side::Ch, 0));
    let ((src, dst), (sp, dp)) = match from {
        Side::Sh => ((sh, ch), (40000, 5201)),
        Side::Ch => ((ch, sh), (5201, 40000)),
    };
    let p = Packet {
        src,
        dst,
        ip_id: 1,
        ttl: 64,
        tcp: Segment {
            src_port: sp,
            dst_port: dp,
            seq: SeqNum(seq),
            ack: SeqNum(ack),
            flags,
            window: 1000,
            payload_len: payload,
            ..Segment::default()
        },
        meta: PacketMeta::default(),
    };
    let mut buf = Vec::new();
    emit(&p, &mut buf);
    buf
}

#[test]
fn the_bs_gap_monitor_reports_a_hole_with_real_checksums() {
    let mut h = hop("direction = \"up\"\n[schemes]\nlocal_recovery = \"bs_reports\"\n");
    let mut sink = Sink::default();
    let ms = |n: u64| Time::ZERO + Dur::from_millis(n);
    // iperf3's control connection opens first, around the links.
    h.ingress(
        ms(0),
        Side::Sh,
        &segment(Side::Sh, (39999, 5201), TcpFlags::SYN, 0),
    );
    h.flush(&mut sink);
    assert_eq!((sink.out.len(), h.counters.control_bypassed), (1, 1));
    sink.out.clear();
    h.ingress(
        ms(0),
        Side::Sh,
        &uplink_segment(Side::Sh, 999, 0, TcpFlags::SYN, 0),
    );
    run_until(&mut h, ms(10), &mut sink);
    let synack = TcpFlags::SYN | TcpFlags::ACK;
    h.ingress(
        ms(10),
        Side::Ch,
        &uplink_segment(Side::Ch, 5000, 1000, synack, 0),
    );
    run_until(&mut h, ms(20), &mut sink);
    // 1000..2000 arrives, 2000..3000 never does, 3000..4000 opens the hole.
    h.ingress(
        ms(20),
        Side::Sh,
        &uplink_segment(Side::Sh, 1000, 5001, TcpFlags::ACK, 1000),
    );
    h.ingress(
        ms(21),
        Side::Sh,
        &uplink_segment(Side::Sh, 3000, 5001, TcpFlags::ACK, 1000),
    );
    run_until(&mut h, ms(60), &mut sink);
    let to_sender: Vec<&Vec<u8>> = sink
        .out
        .iter()
        .filter(|(side, _)| *side == Side::Sh)
        .map(|(_, b)| b)
        .collect();
    // The SYN-ACK, then the report.
    assert_eq!(to_sender.len(), 2, "{:?}", sink.out.len());
    let verify = ParseOptions {
        verify_checksums: true,
    };
    let r = parse_with(to_sender[1], verify)
        .expect("valid checksums")
        .into_packet();
    assert_eq!(
        (r.src, r.dst),
        (host_address(Side::Ch, 0), host_address(Side::Sh, 0))
    );
    assert_eq!((r.tcp.src_port, r.tcp.dst_port), (5201, 40000));
    assert_eq!((r.tcp.seq, r.tcp.ack), (SeqNum(5001), SeqNum(1000)));
    let blocks: Vec<(u32, u32)> = r
        .tcp
        .options
        .sack
        .as_slice()
        .iter()
        .map(|b| (b.left.0, b.right.0))
        .collect();
    assert_eq!(blocks, vec![(1000, 2000), (3000, 4000)]);
    let Some((_, xltcp_core::schemes::AgentStats::LocalRecovery(lr))) =
        h.agents.sections().0.first().cloned()
    else {
        panic!("local recovery section")
    };
    assert_eq!(lr.reports_sent, 1);
    h.finish();
    let a = h.counters.accounting;
    assert!(a.balances(), "{a:?}");
    // The control SYN, the SYN, the SYN-ACK, two data segments.
    assert_eq!(a.injected, 6);
    assert_eq!(h.held(), 0);
}

#[test]
fn a_frozen_host_s_datagrams_wait_at_its_interface_until_resumed() {
    let mut h = hop("");
    let mut sink = Sink::default();
    h.freeze_host(Time::ZERO, 0, true);
    for _ in 0..3 {
        h.ingress(Time::ZERO, Side::Sh, &datagram(Side::Sh, 100));
    }
    // From the other side, traffic goes on.
    h.ingress(Time::ZERO, Side::Ch, &datagram(Side::Ch, 100));
    run_until(&mut h, Time(100_000_000), &mut sink);
    assert_eq!(sink.out.len(), 1);
    assert_eq!(sink.out[0].0, Side::Sh);
    assert_eq!(h.freeze.datagrams_held, 3);
    assert_eq!(h.freeze.most_held, 3);
    h.finish();
    assert_eq!(h.counters.accounting.in_flight, 3, "held counts in flight");
    h.freeze_host(Time(100_000_000), 0, false);
    run_until(&mut h, Time(200_000_000), &mut sink);
    assert_eq!(sink.out.len(), 4);
    assert!(sink.out[1..].iter().all(|(side, _)| *side == Side::Ch));
    h.finish();
    let c = &h.counters.accounting;
    assert_eq!((c.injected, c.delivered, c.in_flight), (4, 4, 0));
    assert_eq!((h.freeze.freezes, h.freeze.resumes), (1, 1));
}

const WIFI: &str = r#"
[sim]
duration = "10s"
[wired]
rate = "100Mbps"
delay = "1ms"
[wireless]
kind = "wifi"
standard = "11a"
rate = "24Mbps"
rate_control = "fixed"
error_model = "nist"
snr_db = 13.5
[[flow]]
"#;

#[test]
fn the_wifi_hop_carries_real_bytes_on_its_own_mac_timers() {
    let s = load_str(WIFI, "t.toml", Path::new("."), &[]).expect("valid scenario");
    let mut h = Hop::new(&s, 1);
    assert!(h.air.is_some(), "802.11 runs the simulator's hop");
    let mut sink = Sink::default();
    for k in 0..20u32 {
        let at = Time(k as u64 * 100_000);
        run_until(&mut h, at, &mut sink);
        h.ingress(at, Side::Ch, &datagram(Side::Ch, 1448));
        h.ingress(at, Side::Sh, &datagram(Side::Sh, 0));
    }
    let mut kinds = std::collections::BTreeSet::new();
    while let Some((at, ev)) = h.deadlines.pop_due(Time(1_000_000_000)) {
        kinds.insert(h.ev_name(ev));
        h.dispatch(at, ev, &mut sink);
    }
    h.finish();
    for k in ["mac", "tx_start", "tx_end"] {
        assert!(kinds.contains(k), "no {k} timer in {kinds:?}");
    }
    let c = &h.counters.accounting;
    assert!(c.balances(), "{c:?}");
    assert_eq!(c.injected, 40);
    assert_eq!(c.delivered + c.dropped, 40, "{c:?}");
    assert_eq!(sink.out.len() as u64, c.delivered);
    let down = sink
        .out
        .iter()
        .filter(|(side, _)| *side == Side::Sh)
        .count();
    assert!(down > 0 && down < sink.out.len(), "both ways: {down}");
    for (_, got) in &sink.out {
        let p = parse(got).expect("valid checksums");
        assert_eq!(p.packet().ttl, 63);
    }
    // Every drop is the hop's, counted with its reason.
    let air = h.air.as_ref().unwrap();
    assert_eq!(air.drops.values().sum::<u64>(), c.dropped);
    assert_eq!(h.held(), 0);
    assert!(air.signals.published.get("delivered").copied().unwrap_or(0) > 0);
}

/// The UCL pair over an 802.11a and an 802.11b interface with its link
/// security on; the threshold rule (no interface reaches 60 dB) takes the
/// last interface, 802.11b, from the first SNR report on.
fn ucl_two_interfaces(tamper_every: u64) -> Hop {
    ucl_two_interfaces_with(&format!("tamper_every = {tamper_every}"))
}

/// As [`ucl_two_interfaces`], with `keys` on both UCL entries.
fn ucl_two_interfaces_with(keys: &str) -> Hop {
    let text = format!(
        r#"
[sim]
duration = "10s"
[tcp]
mss = "1460B"
[wired]
rate = "100Mbps"
delay = "1ms"
[[wireless]]
name = "a"
kind = "wifi"
standard = "11a"
rate = "54Mbps"
rate_control = "fixed"
snr_report = "50ms"
[wireless.snr]
mean_db = 40.0
[[wireless]]
name = "b"
kind = "wifi"
standard = "11b"
rate = "11Mbps"
rate_control = "fixed"
snr_report = "50ms"
[wireless.snr]
mean_db = 40.0
[[flow]]
[[agent]]
scheme = "ucl"
at = "bs"
rule = "threshold"
threshold = 60
security = "on"
{keys}
[[agent]]
scheme = "ucl"
at = "hosts"
rule = "threshold"
threshold = 60
security = "on"
{keys}
"#
    );
    let s = load_str(&text, "t.toml", Path::new("."), &[]).expect("valid scenario");
    Hop::new(&s, 1)
}

/// A data segment whose payload is not the wire module's pattern, with
/// valid checksums.
fn real_datagram(from: Side, ip_id: u16, payload: u32) -> Vec<u8> {
    let mut d = datagram(from, payload);
    d[4..6].copy_from_slice(&ip_id.to_be_bytes());
    for (k, b) in d[40..].iter_mut().enumerate() {
        *b = (k as u32 * 31 + u32::from(ip_id)) as u8;
    }
    fix_checksums(&mut d).expect("a whole datagram");
    d
}

fn ucl_security(h: &Hop) -> xltcp_core::schemes::ucl::UclSecStats {
    h.agents
        .sections()
        .0
        .iter()
        .find_map(|(_, s)| match s {
            xltcp_core::schemes::AgentStats::Ucl(u) => u.security.as_deref().cloned(),
            _ => None,
        })
        .expect("the UCL's security ran")
}

/// Ten real datagrams each way, one pair a millisecond from `start` (IP
/// ids 100-109), running the hop up to each; returns them in order.
fn send_ten_each_way(h: &mut Hop, start: u64, sink: &mut Sink) -> Vec<(Side, Vec<u8>)> {
    let mut sent = Vec::new();
    for k in 0..10u16 {
        let at = Time(start + u64::from(k) * 1_000_000);
        run_until(h, at, sink);
        for from in [Side::Ch, Side::Sh] {
            let d = real_datagram(from, 100 + k, 1000);
            h.ingress(at, from, &d);
            sent.push((from, d));
        }
    }
    sent
}

#[test]
fn the_ucl_seals_the_real_datagrams_and_the_far_end_writes_what_it_opened() {
    let mut h = ucl_two_interfaces(0);
    let mut sink = Sink::default();
    // The handshake runs over the air from time zero, before any datagram.
    run_until(&mut h, Time(200_000_000), &mut sink);
    assert!(sink.out.is_empty(), "handshake messages reach no host");
    let sec = ucl_security(&h);
    assert_eq!(sec.link.handshakes_done, 2, "{sec:?}");
    let sent = send_ten_each_way(&mut h, 200_000_000, &mut sink);
    run_until(&mut h, Time(2_000_000_000), &mut sink);
    h.finish();
    let c = &h.counters.accounting;
    assert!(c.balances(), "{c:?}");
    assert_eq!(
        sink.out.len(),
        sent.len(),
        "{c:?} {:?}",
        h.counters.dropped_other
    );
    for (from, d) in &sent {
        let to = if *from == Side::Ch {
            Side::Sh
        } else {
            Side::Ch
        };
        let got = sink
            .out
            .iter()
            .find(|(side, g)| *side == to && g[4..6] == d[4..6])
            .map(|(_, g)| g)
            .expect("delivered");
        // Byte for byte what the host sent, but for the TTL the BS
        // decremented (and the header checksum with it).
        assert_eq!(got.len(), d.len());
        assert_eq!(got[8], d[8] - 1);
        assert_eq!(got[..8], d[..8]);
        assert_eq!(got[12..], d[12..]);
        parse(got).expect("valid checksums");
    }
    let sec = ucl_security(&h);
    assert_eq!(sec.link.sealed, 20, "{sec:?}");
    assert_eq!(sec.link.opened, 20, "{sec:?}");
    assert_eq!(sec.overhead_bytes, 20 * 28);
    // Both interfaces carried frames: the handshake on the first, the
    // data on the second (the rule's choice from the first report on).
    let air = h.air.as_ref().unwrap();
    let carried = |k: usize| {
        let [(_, down), (_, up)] = air.hops[k].link_stats();
        down.arrived + up.arrived
    };
    assert!(carried(0) >= 3, "handshake on 11a: {}", carried(0));
    assert!(carried(1) >= 20, "data on 11b: {}", carried(1));
    assert_eq!(h.held(), 0);
}

#[test]
fn the_ucl_draws_os_keys_for_real_traffic_unless_the_scenario_seeds_them() {
    use xltcp_core::schemes::ucl::secure::CONTROL;
    // Two emulator runs with the same seed: the host's first handshake
    // message (its ephemeral key) and the first data frame sealed for the
    // same datagram.
    let run = |keys: &str| {
        let mut h = ucl_two_interfaces_with(keys);
        let mut sink = Sink::default();
        run_until(&mut h, Time(200_000_000), &mut sink);
        let at = Time(200_000_000);
        h.ingress(at, Side::Ch, &real_datagram(Side::Ch, 100, 1000));
        run_until(&mut h, Time(400_000_000), &mut sink);
        h.finish();
        let sec = ucl_security(&h);
        assert_eq!(sec.link.handshakes_done, 2, "{sec:?}");
        assert_eq!(sec.link.opened, 1, "{sec:?}");
        assert_eq!(sink.out.len(), 1, "delivered");
        let air = h.agents.ucl_air.as_ref().unwrap();
        let e = air.frame(CONTROL | 1).expect("message 1 kept");
        // Handles count every frame; the data frame's has no CONTROL bit.
        let first_data = (1..64)
            .find_map(|n| air.frame(n))
            .expect("the data frame kept");
        (e, first_data, sec.ephemeral_keys)
    };
    let (e1, d1, keys) = run("");
    let (e2, d2, _) = run("");
    assert_eq!(keys, Some("os"));
    assert_ne!(e1, e2, "OS ephemeral keys differ from run to run");
    assert_ne!(d1, d2, "and so do the session keys");
    let (e3, d3, keys) = run("seeded_keys = true");
    let (e4, d4, _) = run("seeded_keys = true");
    assert_eq!(keys, Some("seeded"));
    assert_eq!((e3, d3), (e4, d4), "seeded: the same session keys");
}

#[test]
fn the_adversarys_frames_are_dropped_by_reason_and_never_written_to_a_host() {
    for kind in ["replay", "inject", "reflect"] {
        let mut h =
            ucl_two_interfaces_with(&format!("adversary = \"{kind}\"\nadversary_every = 2"));
        let mut sink = Sink::default();
        let start = 200_000_000;
        run_until(&mut h, Time(start), &mut sink);
        let sent = send_ten_each_way(&mut h, start, &mut sink);
        run_until(&mut h, Time(2_000_000_000), &mut sink);
        h.finish();
        let c = &h.counters.accounting;
        assert!(c.balances(), "{kind}: {c:?}");
        let sec = ucl_security(&h);
        // Every genuine datagram written once, nothing of the adversary's.
        assert_eq!(sink.out.len(), sent.len(), "{kind}: {sec:?}");
        assert!(sec.adversary_on_air >= 5, "{kind}: {sec:?}");
        assert!(sec.altered_received >= 5, "{kind}: {sec:?}");
        assert_eq!(sec.altered_delivered, 0, "{kind}: {sec:?}");
        let reason = if kind == "replay" {
            sec.link.replayed
        } else {
            sec.link.tampered
        };
        assert_eq!(reason, sec.altered_received, "{kind}: {sec:?}");
        assert_eq!(sec.dropped(), sec.altered_received, "{kind}: {sec:?}");
    }
}

#[test]
fn a_tampered_frame_is_dropped_by_its_reason_and_never_written_to_a_host() {
    // Every second frame of each node has one byte flipped on the air,
    // handshake messages included: the refused ones are sent again and the
    // link comes up; then every tampered data frame is dropped as
    // tampered, and only genuine datagrams reach a host.
    let mut h = ucl_two_interfaces(2);
    let mut sink = Sink::default();
    let start = 1_000_000_000;
    run_until(&mut h, Time(start), &mut sink);
    let sec = ucl_security(&h);
    assert_eq!(sec.link.handshakes_done, 2, "{sec:?}");
    assert!(sec.link.handshake_rejected >= 1, "{sec:?}");
    let sent = send_ten_each_way(&mut h, start, &mut sink);
    run_until(&mut h, Time(3_000_000_000), &mut sink);
    h.finish();
    let c = &h.counters.accounting;
    assert!(c.balances(), "{c:?}");
    let sec = ucl_security(&h);
    let by_reason = |r: &str| h.counters.dropped_other.get(r).copied().unwrap_or(0);
    // Each tampered data frame that arrived: `tampered`, no other reason.
    assert!(sec.altered_received >= 5, "{sec:?}");
    assert_eq!(sec.link.tampered, sec.altered_received, "{sec:?}");
    assert_eq!(by_reason("ucl.tampered"), sec.link.tampered);
    assert_eq!(sec.link.malformed + sec.link.stale_key, 0, "{sec:?}");
    assert_eq!(sec.altered_delivered, 0, "{sec:?}");
    // What was written is what was sent (the TTL aside), and the rest was
    // tampered.
    assert_eq!(sink.out.len() as u64 + sec.link.tampered, sent.len() as u64);
    for (_, got) in &sink.out {
        let (_, d) = sent
            .iter()
            .find(|(_, d)| d[4..6] == got[4..6] && d[12..20] == got[12..20])
            .expect("a datagram that was sent");
        assert_eq!(got[12..], d[12..]);
        parse(got).expect("valid checksums");
    }
}

#[test]
fn the_ucl_secures_the_emulators_own_point_to_point_links_too() {
    let mut h = hop(
        "[[agent]]\nscheme = \"ucl\"\nat = \"bs\"\nsecurity = \"on\"\n\
         [[agent]]\nscheme = \"ucl\"\nat = \"hosts\"\nsecurity = \"on\"\n",
    );
    assert!(h.air.is_none(), "the emulator's own links");
    let mut sink = Sink::default();
    run_until(&mut h, Time(100_000_000), &mut sink);
    assert!(sink.out.is_empty(), "handshake messages reach no host");
    let d = real_datagram(Side::Ch, 7, 1000);
    h.ingress(Time(100_000_000), Side::Ch, &d);
    let u = real_datagram(Side::Sh, 8, 500);
    h.ingress(Time(100_000_000), Side::Sh, &u);
    run_until(&mut h, Time(1_000_000_000), &mut sink);
    h.finish();
    assert!(
        h.counters.accounting.balances(),
        "{:?}",
        h.counters.accounting
    );
    assert_eq!(sink.out.len(), 2, "{:?}", h.counters.dropped_other);
    for (side, got) in &sink.out {
        let sent = if *side == Side::Sh { &d } else { &u };
        assert_eq!(got[12..], sent[12..]);
        assert_eq!(got[8], sent[8] - 1);
    }
    let sec = ucl_security(&h);
    assert_eq!(
        (sec.link.handshakes_done, sec.link.opened),
        (2, 2),
        "{sec:?}"
    );
}

/// A segment between the flow's two hosts from `from`, between ports
/// `(source, destination)`, with `flags` and `payload` bytes.
fn segment(from: Side, ports: (u16, u16), flags: TcpFlags, payload: u32) -> Vec<u8> {
    let mut bytes = datagram(from, payload);
    let mut p = parse(&bytes).expect("valid").into_packet();
    (p.tcp.src_port, p.tcp.dst_port) = ports;
    p.tcp.flags = flags;
    bytes.clear();
    emit(&p, &mut bytes);
    bytes
}

#[test]
fn the_first_connection_of_an_iperf3_flow_goes_around_the_links() {
    // A downlink flow: its client (iperf3 -c) is on the CH side.
    let mut h = hop("");
    let mut sink = Sink::default();
    let control = segment(Side::Ch, (40001, 5201), TcpFlags::SYN, 0);
    h.ingress(Time::ZERO, Side::Ch, &control);
    h.ingress(
        Time::ZERO,
        Side::Sh,
        &segment(Side::Sh, (5201, 40001), TcpFlags::SYN | TcpFlags::ACK, 0),
    );
    h.ingress(
        Time::ZERO,
        Side::Ch,
        &segment(Side::Ch, (40001, 5201), TcpFlags::ACK, 37),
    );
    // Delivered at once, routed (TTL one less), no link involved.
    h.flush(&mut sink);
    let sides: Vec<Side> = sink.out.iter().map(|(s, _)| *s).collect();
    assert_eq!(sides, [Side::Sh, Side::Ch, Side::Sh]);
    assert_eq!(parse(&sink.out[0].1).expect("valid").packet().ttl, 63);
    assert_eq!(h.counters.control_bypassed, 3);
    assert_eq!(h.counters.data_segments[0], [0, 0]);
    assert!(h.deadlines.next().is_none_or(|t| t >= Time(10_000_000_000)));
    // The second connection is the flow's data: it crosses the links.
    sink.out.clear();
    h.ingress(
        Time::ZERO,
        Side::Ch,
        &segment(Side::Ch, (40002, 5201), TcpFlags::SYN, 0),
    );
    h.ingress(
        Time::ZERO,
        Side::Ch,
        &segment(Side::Ch, (40002, 5201), TcpFlags::ACK, 1448),
    );
    h.flush(&mut sink);
    assert!(sink.out.is_empty());
    run_until(&mut h, Time(50_000_000), &mut sink);
    assert_eq!(sink.out.len(), 2);
    assert_eq!(h.counters.control_bypassed, 3);
    assert_eq!(h.counters.data_segments[0], [1, 0]);
    let c = &h.counters.accounting;
    assert_eq!((c.injected, c.delivered, c.dropped), (5, 5, 0));
}

#[test]
fn a_server_cannot_open_a_control_connection_and_a_file_flow_has_none() {
    let mut h = hop("");
    let mut sink = Sink::default();
    // A SYN from the server's side is not the client's opening.
    h.ingress(
        Time::ZERO,
        Side::Sh,
        &segment(Side::Sh, (5201, 40001), TcpFlags::SYN, 0),
    );
    h.flush(&mut sink);
    assert!(sink.out.is_empty());
    assert_eq!(h.counters.control_bypassed, 0);
    let mut f = hop("app = \"file\"\nsize = \"1MB\"");
    f.ingress(
        Time::ZERO,
        Side::Ch,
        &segment(Side::Ch, (40001, 5201), TcpFlags::SYN, 0),
    );
    f.flush(&mut sink);
    assert!(sink.out.is_empty());
    assert_eq!(f.counters.control_bypassed, 0);
}
