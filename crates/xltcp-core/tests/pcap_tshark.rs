//! Traces written by `PcapWriter` read cleanly in Wireshark: tshark finds
//! nothing malformed, no error-level expert item, good checksums, and the
//! same timestamps, sequence numbers, lengths, flags and options we wrote.
//! Skipped (with a printed reason) where tshark is not installed.

mod support;

use std::fs::File;
use std::io::BufWriter;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use support::tshark;
use xltcp_core::time::{Dur, Time};
use xltcp_core::wire::{
    emit, Packet, PacketMeta, PcapWriter, SackBlock, SackBlocks, Segment, SeqNum, TcpFlags,
    TcpHeaderMut, TcpOptions, FULL_SNAPLEN,
};

const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
/// High ports, so no application dissector claims the payload pattern.
const CLIENT_PORT: u16 = 40000;
const SERVER_PORT: u16 = 47001;

/// A segment from the client (`up`) or the server.
fn seg(up: bool, seq: u32, ack: u32, flags: TcpFlags, len: u32, opts: TcpOptions) -> Packet {
    let (src, dst, sp, dp) = if up {
        (CLIENT, SERVER, CLIENT_PORT, SERVER_PORT)
    } else {
        (SERVER, CLIENT, SERVER_PORT, CLIENT_PORT)
    };
    Packet {
        src,
        dst,
        ip_id: (seq % 65536) as u16,
        ttl: 64,
        tcp: Segment {
            src_port: sp,
            dst_port: dp,
            seq: SeqNum(seq),
            ack: SeqNum(ack),
            flags,
            window: if flags.syn() { 65535 } else { 512 },
            options: opts,
            payload_len: len,
        },
        meta: PacketMeta::default(),
    }
}

fn ts(val: u32, ecr: u32) -> TcpOptions {
    TcpOptions {
        timestamps: Some((val, ecr)),
        ..TcpOptions::default()
    }
}

fn syn_opts(val: u32, ecr: u32) -> TcpOptions {
    TcpOptions {
        mss: Some(1460),
        window_scale: Some(7),
        sack_permitted: true,
        sack: SackBlocks::new(),
        timestamps: Some((val, ecr)),
    }
}

/// A connection: handshake, three data segments, a SACK for the third,
/// a retransmission of the second (later than one RTT, so Wireshark calls
/// it a retransmission, not out-of-order), and both FINs.
fn connection() -> Vec<(Time, Packet)> {
    let ack = TcpFlags::ACK;
    let data = TcpFlags::ACK | TcpFlags::PSH;
    let fin = TcpFlags::ACK | TcpFlags::FIN;
    let mut sack = ts(130, 920);
    sack.sack.push(SackBlock {
        left: SeqNum(3001),
        right: SeqNum(4001),
    });
    let t0 = Time(1_500_000_123);
    let ms = |n: u64| t0 + Dur::from_millis(n);
    vec![
        (
            ms(0),
            seg(true, 1000, 0, TcpFlags::SYN, 0, syn_opts(100, 0)),
        ),
        (
            ms(10),
            seg(
                false,
                5000,
                1001,
                TcpFlags::SYN | ack,
                0,
                syn_opts(900, 100),
            ),
        ),
        (ms(20), seg(true, 1001, 5001, ack, 0, ts(110, 900))),
        (ms(20), seg(true, 1001, 5001, data, 1000, ts(110, 900))),
        (ms(21), seg(true, 2001, 5001, data, 1000, ts(111, 900))),
        (ms(22), seg(true, 3001, 5001, data, 1000, ts(112, 900))),
        (ms(30), seg(false, 5001, 2001, ack, 0, ts(910, 110))),
        (ms(32), seg(false, 5001, 2001, ack, 0, sack)),
        (ms(60), seg(true, 2001, 5001, data, 1000, ts(123, 920))),
        (ms(70), seg(false, 5001, 4001, ack, 0, ts(940, 123))),
        (ms(71), seg(true, 4001, 5001, fin, 0, ts(124, 940))),
        (ms(81), seg(false, 5001, 4002, fin, 0, ts(950, 124))),
        (ms(91), seg(true, 4002, 5002, ack, 0, ts(125, 950))),
    ]
}

fn write_pcap(name: &str, snaplen: u32, packets: &[(Time, Packet)]) -> PathBuf {
    let path = tshark::scratch_path(name);
    let out = BufWriter::new(File::create(&path).unwrap());
    let mut w = PcapWriter::new(out, snaplen).unwrap();
    for (t, p) in packets {
        w.write_packet(*t, p).unwrap();
    }
    w.into_inner().unwrap();
    path
}

/// `Some(x)` printed as tshark prints a present field, `None` as empty.
fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The fields tshark should print for `p`, in the order of `FIELDS`.
fn expected_row(t: Time, p: &Packet) -> Vec<String> {
    let s = &p.tcp;
    let o = &s.options;
    let sack = |f: fn(&SackBlock) -> u32| {
        let v: Vec<String> = o.sack.as_slice().iter().map(|b| f(b).to_string()).collect();
        v.join(",")
    };
    vec![
        format!("{}.{:09}", t.0 / 1_000_000_000, t.0 % 1_000_000_000),
        p.src.to_string(),
        format!("0x{:04x}", p.ip_id),
        s.seq.0.to_string(),
        s.ack.0.to_string(),
        s.payload_len.to_string(),
        format!("0x{:04x}", s.flags.0),
        s.window.to_string(),
        opt(o.mss),
        opt(o.window_scale),
        sack(|b| b.left.0),
        sack(|b| b.right.0),
        opt(o.timestamps.map(|t| t.0)),
        opt(o.timestamps.map(|t| t.1)),
    ]
}

const FIELDS: &[&str] = &[
    "frame.time_epoch",
    "ip.src",
    "ip.id",
    "tcp.seq_raw",
    "tcp.ack_raw",
    "tcp.len",
    "tcp.flags",
    "tcp.window_size_value",
    "tcp.options.mss_val",
    "tcp.options.wscale.shift",
    "tcp.options.sack_le",
    "tcp.options.sack_re",
    "tcp.options.timestamp.tsval",
    "tcp.options.timestamp.tsecr",
];

#[test]
fn tshark_reads_a_connection_as_written() {
    if tshark::skip_without_tshark("tshark_reads_a_connection_as_written") {
        return;
    }
    let packets = connection();
    let path = write_pcap("connection.pcap", FULL_SNAPLEN, &packets);
    assert_eq!(tshark::problems(&path), Vec::<String>::new());
    let rows = tshark::fields(&path, "", FIELDS);
    let expected: Vec<Vec<String>> = packets.iter().map(|(t, p)| expected_row(*t, p)).collect();
    assert_eq!(rows, expected);
    // Both checksums verified good (status 1) on every packet.
    let status = tshark::fields(&path, "", &["ip.checksum.status", "tcp.checksum.status"]);
    assert_eq!(
        status,
        vec![vec!["1".to_owned(), "1".to_owned()]; packets.len()]
    );
    // The same, through the typed helper the simulator's tests use.
    let typed: Vec<tshark::TcpRow> = packets
        .iter()
        .map(|(t, p)| tshark::TcpRow {
            time_ns: t.0,
            src_port: p.tcp.src_port,
            dst_port: p.tcp.dst_port,
            seq: p.tcp.seq.0,
            ack: p.tcp.ack.0,
            len: p.tcp.payload_len,
            flags: p.tcp.flags.0,
            window: p.tcp.window,
        })
        .collect();
    assert_eq!(tshark::tcp_rows(&path), typed);
    // Wireshark's own analysis sees the retransmission, and only it.
    let rtx = tshark::fields(&path, "tcp.analysis.retransmission", &["frame.number"]);
    assert_eq!(rtx, vec![vec!["9".to_owned()]]);
}

#[test]
fn tshark_accepts_a_trace_cut_to_a_short_snaplen() {
    if tshark::skip_without_tshark("tshark_accepts_a_trace_cut_to_a_short_snaplen") {
        return;
    }
    let packets = connection();
    let path = write_pcap("snaplen.pcap", 96, &packets);
    assert_eq!(tshark::problems(&path), Vec::<String>::new());
    let rows = tshark::fields(&path, "", &["frame.len", "frame.cap_len", "tcp.len"]);
    let expected: Vec<Vec<String>> = packets
        .iter()
        .map(|(_, p)| {
            let len = p.ip_len();
            vec![
                len.to_string(),
                len.min(96).to_string(),
                p.tcp.payload_len.to_string(),
            ]
        })
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn tshark_reads_a_rewritten_window_with_a_good_checksum() {
    if tshark::skip_without_tshark("tshark_reads_a_rewritten_window_with_a_good_checksum") {
        return;
    }
    let (t, p) = connection()[3];
    let mut bytes = Vec::new();
    emit(&p, &mut bytes);
    TcpHeaderMut::new_checked(&mut bytes).unwrap().set_window(0);
    let path = tshark::scratch_path("rewritten.pcap");
    let mut w = PcapWriter::new(File::create(&path).unwrap(), FULL_SNAPLEN).unwrap();
    w.write_raw(t, &bytes).unwrap();
    w.into_inner().unwrap();
    assert_eq!(tshark::problems(&path), Vec::<String>::new());
    let rows = tshark::fields(&path, "", &["tcp.window_size_value", "tcp.checksum.status"]);
    assert_eq!(rows, vec![vec!["0".to_owned(), "1".to_owned()]]);
}

/// The problem check can fail: a corrupted checksum and a malformed
/// option are both reported.
#[test]
fn tshark_problem_check_catches_bad_packets() {
    if tshark::skip_without_tshark("tshark_problem_check_catches_bad_packets") {
        return;
    }
    let (t, p) = connection()[0];
    let mut good = Vec::new();
    emit(&p, &mut good);
    let mut bad_checksum = good.clone();
    bad_checksum[36] ^= 0x55; // TCP checksum
    let mut bad_option = good.clone();
    bad_option[41] = 40; // MSS option length runs past the header
    let path = tshark::scratch_path("bad.pcap");
    let mut w = PcapWriter::new(File::create(&path).unwrap(), FULL_SNAPLEN).unwrap();
    for b in [&good, &bad_checksum, &bad_option] {
        w.write_raw(t, b).unwrap();
    }
    w.into_inner().unwrap();
    let frames: Vec<String> = tshark::fields(&path, tshark::PROBLEM_FILTER, &["frame.number"])
        .into_iter()
        .map(|r| r.join(""))
        .collect();
    assert_eq!(frames, ["2", "3"]);
}
