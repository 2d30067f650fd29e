//! Hand-checked bytes, every parse error, the in-place view and the pcap
//! layout. Property tests live in `proptests.rs`; `oracle.rs` checks
//! emitted bytes against an independent parser (etherparse).

use super::oracle::check_against_etherparse;
use super::*;
use std::net::Ipv4Addr;

/// A pure ACK from 192.0.2.1 to 192.0.2.2 carrying `len` payload bytes,
/// for the capture writers' tests.
pub(crate) fn ack_packet(len: u32) -> Packet {
    Packet {
        src: Ipv4Addr::new(192, 0, 2, 1),
        dst: Ipv4Addr::new(192, 0, 2, 2),
        ip_id: 7,
        ttl: 64,
        tcp: Segment {
            seq: SeqNum(1),
            flags: TcpFlags::ACK,
            payload_len: len,
            ..Segment::default()
        },
        meta: PacketMeta::default(),
    }
}

/// The SYN of the hand-checked example: MSS 1460, WS 7, SACK-permitted,
/// timestamps (123, 0).
fn syn() -> Packet {
    Packet {
        src: Ipv4Addr::new(10, 0, 0, 1),
        dst: Ipv4Addr::new(10, 0, 0, 2),
        ip_id: 1,
        ttl: 64,
        tcp: Segment {
            src_port: 40000,
            dst_port: 5001,
            seq: SeqNum(1000),
            ack: SeqNum(0),
            flags: TcpFlags::SYN,
            window: 65535,
            options: TcpOptions {
                mss: Some(1460),
                window_scale: Some(7),
                sack_permitted: true,
                sack: SackBlocks::new(),
                timestamps: Some((123, 0)),
            },
            payload_len: 0,
        },
        meta: PacketMeta::default(),
    }
}

/// A data segment with `len` payload bytes and one SACK block.
fn data(len: u32) -> Packet {
    let mut p = syn();
    p.tcp.flags = TcpFlags::ACK | TcpFlags::PSH;
    p.tcp.seq = SeqNum(1001);
    p.tcp.ack = SeqNum(5001);
    p.tcp.window = 512;
    p.tcp.options = TcpOptions {
        timestamps: Some((200, 150)),
        ..TcpOptions::default()
    };
    p.tcp.options.sack.push(SackBlock {
        left: SeqNum(9000),
        right: SeqNum(9500),
    });
    p.tcp.payload_len = len;
    p
}

fn bytes_of(p: &Packet) -> Vec<u8> {
    let mut buf = Vec::new();
    emit(p, &mut buf);
    buf
}

const UNCHECKED: ParseOptions = ParseOptions {
    verify_checksums: false,
};

#[test]
fn syn_bytes_match_the_hand_layout() {
    // Checksums: the RFC 1071 sum of these bytes worked out independently
    // of this crate, and confirmed by etherparse below.
    #[rustfmt::skip]
    let expected: [u8; 64] = [
        // IPv4: 45, tos 0, total 64, id 1, DF, ttl 64, proto 6, checksum
        0x45, 0x00, 0x00, 0x40, 0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x26, 0xb5,
        10, 0, 0, 1, 10, 0, 0, 2,
        // TCP: ports 40000 -> 5001, seq 1000, ack 0
        0x9c, 0x40, 0x13, 0x89, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00,
        // data offset 11 words, SYN, window 65535, checksum, urgent 0
        0xb0, 0x02, 0xff, 0xff, 0x6d, 0xcb, 0x00, 0x00,
        // MSS 1460 | NOP WS 7 | NOP NOP SACK-permitted | NOP NOP TS 123 0
        0x02, 0x04, 0x05, 0xb4, 0x01, 0x03, 0x03, 0x07, 0x01, 0x01, 0x04, 0x02,
        0x01, 0x01, 0x08, 0x0a, 0, 0, 0, 123, 0, 0, 0, 0,
    ];
    let p = syn();
    assert_eq!(emit_len(&p), 64);
    let bytes = bytes_of(&p);
    assert_eq!(bytes, expected);
    check_against_etherparse(&bytes, &p);
    assert_eq!(parse(&bytes).unwrap().into_packet(), p);
}

#[test]
fn emit_appends_after_existing_bytes() {
    let mut buf = vec![0xAA, 0xBB];
    emit(&syn(), &mut buf);
    assert_eq!(&buf[..2], &[0xAA, 0xBB]);
    assert_eq!(&buf[2..], &bytes_of(&syn())[..]);
}

#[test]
fn payload_is_the_sequence_pattern_and_follows_the_syn() {
    let p = data(300);
    let bytes = bytes_of(&p);
    let off = parse(&bytes).unwrap().payload_offset();
    assert_eq!(off, 20 + 20 + 12 + 12);
    for (i, b) in bytes[off..].iter().enumerate() {
        assert_eq!(*b, payload_byte(SeqNum(1001 + i as u32)));
    }
    // A retransmission of the tail carries the same bytes.
    let mut rtx = p;
    rtx.tcp.seq = SeqNum(1101);
    rtx.tcp.payload_len = 200;
    assert_eq!(&bytes_of(&rtx)[off..], &bytes[off + 100..]);
    // With SYN set, the first payload byte has sequence number seq + 1.
    let mut syn_data = syn();
    syn_data.tcp.payload_len = 2;
    let b = bytes_of(&syn_data);
    assert_eq!(
        &b[64..],
        &[payload_byte(SeqNum(1001)), payload_byte(SeqNum(1002))]
    );
    check_against_etherparse(&b, &syn_data);
}

#[test]
fn pattern_is_not_periodic_in_256() {
    let a: Vec<u8> = (0..16).map(|i| payload_byte(SeqNum(i))).collect();
    let b: Vec<u8> = (256..272).map(|i| payload_byte(SeqNum(i))).collect();
    assert_ne!(a, b);
}

#[test]
fn truncated_emission_keeps_headers_and_full_length_checksums() {
    let p = data(1000);
    let full = bytes_of(&p);
    let mut cut = Vec::new();
    assert_eq!(emit_truncated(&p, 100, &mut cut), 100);
    assert_eq!(cut, full[..100]);
    // Headers stay whole even when the snapshot length is shorter.
    let mut tiny = Vec::new();
    assert_eq!(emit_truncated(&p, 10, &mut tiny), 64);
    assert_eq!(tiny, full[..64]);
    // A snapshot length past the end takes the whole datagram.
    let mut all = Vec::new();
    assert_eq!(emit_truncated(&p, 5000, &mut all), full.len());
    assert_eq!(all, full);
}

#[test]
#[should_panic(expected = "exceeds 65535")]
fn emit_refuses_a_datagram_over_64k() {
    emit(&data(65535), &mut Vec::new());
}

#[test]
fn sack_blocks_beyond_forty_option_bytes_are_not_sent() {
    let mut p = data(0);
    for i in 1..4 {
        p.tcp.options.sack.push(SackBlock {
            left: SeqNum(10_000 * i),
            right: SeqNum(10_000 * i + 100),
        });
    }
    // Timestamps (12) + 4 blocks (36) would be 48 bytes: three are sent.
    assert_eq!(p.tcp.options.sack.len(), 4);
    assert_eq!(p.tcp.options.sack_blocks_on_wire(), 3);
    assert_eq!(p.tcp.options.wire_len(), 40);
    let bytes = bytes_of(&p);
    assert_eq!(bytes.len(), 80);
    let parsed = parse(&bytes).unwrap().into_packet();
    let mut expected = p;
    expected.tcp.options.sack.truncate(3);
    assert_eq!(parsed, expected);
    check_against_etherparse(&bytes, &expected);
}

/// Builds a datagram from a raw TCP options area (padded by the caller to a
/// multiple of 4) and fixes its checksums.
fn with_options(options: &[u8]) -> Vec<u8> {
    let mut p = data(5);
    p.tcp.options = TcpOptions::default();
    let mut bytes = bytes_of(&p);
    let payload = bytes.split_off(40);
    bytes.extend_from_slice(options);
    bytes.extend_from_slice(&payload);
    let total = bytes.len() as u16;
    bytes[2..4].copy_from_slice(&total.to_be_bytes());
    bytes[32] = ((20 + options.len()) as u8 / 4) << 4;
    fix_checksums(&mut bytes).unwrap();
    bytes
}

#[test]
fn options_in_other_layouts_are_read() {
    // Linux's SYN layout: MSS, SACK-permitted + TS packed, NOP, WS.
    #[rustfmt::skip]
    let bytes = with_options(&[
        2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 9, 0, 0, 0, 8, 1, 3, 3, 14,
    ]);
    let parsed = parse(&bytes).unwrap();
    let o = parsed.packet().tcp.options;
    assert_eq!(o.mss, Some(1460));
    assert!(o.sack_permitted);
    assert_eq!(o.timestamps, Some((9, 8)));
    assert_eq!(o.window_scale, Some(14));
    assert_eq!(parsed.packet().tcp.payload_len, 5);
    assert_eq!(parsed.payload_offset(), 20 + 40);
}

#[test]
fn unknown_options_are_skipped_and_counted_and_eol_ends_the_list() {
    // Kind 30 (MPTCP) length 4, kind 254 length 2, EOL, then junk after EOL.
    let bytes = with_options(&[30, 4, 0, 0, 254, 2, 0, 99, 99, 99, 99, 99]);
    let parsed = parse(&bytes).unwrap();
    assert_eq!(parsed.skipped_options(), 2);
    assert_eq!(parsed.packet().tcp.options, TcpOptions::default());
}

#[test]
fn window_scale_above_14_reads_as_14() {
    let bytes = with_options(&[1, 3, 3, 20]);
    let o = parse(&bytes).unwrap().into_packet().tcp.options;
    assert_eq!(o.window_scale, Some(14));
}

#[test]
fn sack_blocks_that_cannot_be_re_sent_are_dropped_and_counted() {
    // MSS (4) + packed TS (10) + SACK with 3 blocks (26) = 40 bytes; the
    // canonical layout would need 4 + 12 + 28 = 44, so two blocks are kept.
    let mut opts = vec![2, 4, 0x05, 0xb4, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 5, 26];
    for i in 0..3u32 {
        opts.extend_from_slice(&(100 * i).to_be_bytes());
        opts.extend_from_slice(&(100 * i + 50).to_be_bytes());
    }
    let parsed = parse(&with_options(&opts)).unwrap();
    assert_eq!(parsed.dropped_sack_blocks(), 1);
    let sack = parsed.packet().tcp.options.sack;
    assert_eq!(sack.len(), 2);
    assert_eq!(sack.as_slice()[1].left, SeqNum(100));
    assert_eq!(parsed.packet().tcp.options.wire_len(), 36);
}

/// A valid datagram, then `f` applied to its bytes.
fn mangled(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = bytes_of(&data(8));
    f(&mut b);
    b
}

#[test]
fn every_parse_error_is_reachable() {
    use ParseError::*;
    let cases: Vec<(&str, Vec<u8>, ParseError)> = vec![
        (
            "short buffer",
            vec![0x45; 19],
            Truncated {
                needed: 20,
                got: 19,
            },
        ),
        ("version 6", mangled(|b| b[0] = 0x65), BadVersion(6)),
        ("ihl 4", mangled(|b| b[0] = 0x44), BadIhl(4)),
        (
            "ihl past buffer",
            mangled(|b| {
                b[0] = 0x4f;
                b.truncate(50)
            }),
            Truncated {
                needed: 60,
                got: 50,
            },
        ),
        (
            "total < ihl",
            mangled(|b| b[2..4].copy_from_slice(&[0, 19])),
            BadTotalLength(19),
        ),
        (
            "total past buffer",
            mangled(|b| {
                b.pop();
            }),
            Truncated {
                needed: 72,
                got: 71,
            },
        ),
        (
            "total < ip + tcp",
            mangled(|b| b[2..4].copy_from_slice(&[0, 39])),
            BadTotalLength(39),
        ),
        ("more fragments", mangled(|b| b[6] |= 0x20), Fragmented),
        ("fragment offset", mangled(|b| b[7] = 1), Fragmented),
        ("udp", mangled(|b| b[9] = 17), NotTcp(17)),
        ("data offset 4", mangled(|b| b[32] = 0x40), BadDataOffset(4)),
        (
            "data offset past end",
            mangled(|b| b[32] = 0xf0),
            BadDataOffset(15),
        ),
        ("ip checksum", mangled(|b| b[8] = 63), BadIpChecksum),
        ("tcp checksum", mangled(|b| b[71] ^= 1), BadTcpChecksum),
    ];
    for (name, bytes, err) in cases {
        assert_eq!(parse(&bytes), Err(err), "{name}");
    }
    let option_cases: Vec<(&str, Vec<u8>, u8)> = vec![
        ("mss length 3", with_options(&[2, 3, 5, 1]), 2),
        ("ws length 4", with_options(&[3, 4, 1, 1]), 3),
        ("sack-permitted length 3", with_options(&[4, 3, 0, 0]), 4),
        ("ts length 8", with_options(&[8, 8, 0, 0, 0, 0, 0, 0]), 8),
        ("sack without blocks", with_options(&[5, 2, 0, 0]), 5),
        (
            "sack length 2 + 7",
            with_options(&[5, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            5,
        ),
        ("length 1", with_options(&[1, 1, 30, 1]), 30),
        ("length past header", with_options(&[1, 1, 30, 3]), 30),
        ("no length byte", with_options(&[1, 1, 1, 30]), 30),
    ];
    for (name, bytes, kind) in option_cases {
        assert_eq!(parse(&bytes), Err(BadOption { kind }), "{name}");
    }
}

#[test]
fn checksums_are_ignored_when_not_verified() {
    let bytes = mangled(|b| {
        b[10] ^= 0xff;
        b[36] ^= 0xff;
    });
    assert_eq!(
        parse_with(&bytes, UNCHECKED).unwrap().into_packet(),
        data(8)
    );
}

#[test]
fn ip_options_and_trailing_padding_are_skipped() {
    let mut bytes = bytes_of(&data(8));
    // Insert 4 bytes of IPv4 options (NOP NOP NOP EOL): IHL 6.
    bytes.splice(20..20, [1, 1, 1, 0]);
    bytes[0] = 0x46;
    bytes[2..4].copy_from_slice(&76u16.to_be_bytes());
    fix_checksums(&mut bytes).unwrap();
    bytes.extend_from_slice(&[0; 6]); // link-layer padding
    let parsed = parse(&bytes).unwrap();
    assert_eq!(parsed.payload_offset(), 24 + 20 + 24);
    assert_eq!(parsed.into_packet(), data(8));
}

#[test]
fn fix_checksums_repairs_a_rewritten_packet() {
    let mut bytes = bytes_of(&data(8));
    bytes[8] = 7; // TTL
    bytes[34] = 0x12; // window high byte
    assert_eq!(parse(&bytes), Err(ParseError::BadIpChecksum));
    fix_checksums(&mut bytes).unwrap();
    let p = parse(&bytes).unwrap().into_packet();
    assert_eq!((p.ttl, p.tcp.window), (7, 0x1200));
    assert_eq!(
        fix_checksums(&mut [0x45; 10]),
        Err(ParseError::Truncated {
            needed: 20,
            got: 10
        })
    );
}

#[test]
fn view_rewrites_window_and_ack_keeping_the_checksum_valid() {
    let mut bytes = bytes_of(&data(8));
    let mut v = TcpHeaderMut::new_checked(&mut bytes).unwrap();
    assert_eq!((v.src_port(), v.dst_port()), (40000, 5001));
    assert_eq!(
        (v.seq(), v.ack(), v.window()),
        (SeqNum(1001), SeqNum(5001), 512)
    );
    assert_eq!(v.flags(), TcpFlags::ACK | TcpFlags::PSH);
    v.set_window(0);
    v.set_ack(SeqNum(0xDEAD_BEEF));
    assert_eq!((v.window(), v.ack()), (0, SeqNum(0xDEAD_BEEF)));
    let p = parse(&bytes).unwrap().into_packet();
    let mut expected = data(8);
    expected.tcp.window = 0;
    expected.tcp.ack = SeqNum(0xDEAD_BEEF);
    assert_eq!(p, expected);
    let mut short = bytes_of(&data(8));
    short[32] = 0x30;
    assert_eq!(
        TcpHeaderMut::new_checked(&mut short).unwrap_err(),
        ParseError::BadDataOffset(3)
    );
}

#[test]
fn pcap_global_and_record_headers() {
    let mut w = PcapWriter::new(Vec::new(), 96).unwrap();
    assert_eq!(w.snaplen(), 96);
    let t1 = crate::time::Time(1_500_000_123);
    w.write_packet(t1, &syn()).unwrap();
    w.write_packet(crate::time::Time(2_000_000_000), &data(1000))
        .unwrap();
    w.write_raw(crate::time::Time(7), &[0x45, 0, 0, 20])
        .unwrap();
    let out = w.into_inner().unwrap();
    #[rustfmt::skip]
    let global = [
        0x4d, 0x3c, 0xb2, 0xa1, // magic, nanoseconds, little-endian
        2, 0, 4, 0,             // version 2.4
        0, 0, 0, 0, 0, 0, 0, 0, // thiszone, sigfigs
        96, 0, 0, 0,            // snaplen
        101, 0, 0, 0,           // LINKTYPE_RAW
    ];
    assert_eq!(out[..24], global);
    let rec1 = &out[24..40];
    #[rustfmt::skip]
    assert_eq!(rec1, [1, 0, 0, 0, 0x7b, 0x65, 0xcd, 0x1d, 64, 0, 0, 0, 64, 0, 0, 0]);
    assert_eq!(out[40..104], bytes_of(&syn())[..]);
    let rec2 = &out[104..120];
    // 2 s, 0 ns, 96 bytes captured of 1064.
    #[rustfmt::skip]
    assert_eq!(rec2, [2, 0, 0, 0, 0, 0, 0, 0, 96, 0, 0, 0, 0x28, 0x04, 0, 0]);
    assert_eq!(out[120..216], bytes_of(&data(1000))[..96]);
    let rec3 = &out[216..232];
    #[rustfmt::skip]
    assert_eq!(rec3, [0, 0, 0, 0, 7, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0]);
    assert_eq!(out[232..], [0x45, 0, 0, 20]);
}

#[test]
fn pcap_snaplen_is_raised_to_whole_headers() {
    let w = PcapWriter::new(Vec::new(), 10).unwrap();
    assert_eq!(w.snaplen(), MIN_SNAPLEN);
    assert_eq!(w.get_ref()[16..20], MIN_SNAPLEN.to_le_bytes());
}

/// RFC 1071: a checksum field of 0xFFFF stands for a computed 0x0000 (and a
/// sender may write either); refusing it would stall a real flow for good,
/// since every retransmission carries the same checksum.
#[test]
fn a_zero_checksum_written_as_ffff_is_accepted() {
    let mut bytes = bytes_of(&data(100));
    let tcp = IPV4_HEADER_LEN;
    // The urgent pointer is covered by the checksum and ignored by the
    // parser: choose it so that the computed checksum becomes 0x0000.
    bytes[tcp + 18..tcp + 20].copy_from_slice(&[0, 0]);
    bytes[tcp + 16..tcp + 18].copy_from_slice(&[0, 0]);
    let c = super::checksum::tcp_checksum_of(&bytes, tcp);
    bytes[tcp + 18..tcp + 20].copy_from_slice(&c.to_be_bytes());
    assert_eq!(super::checksum::tcp_checksum_of(&bytes, tcp), 0);
    bytes[tcp + 16..tcp + 18].copy_from_slice(&0xFFFFu16.to_be_bytes());
    assert!(parse(&bytes).is_ok(), "0xFFFF is zero too");
    bytes[tcp + 16..tcp + 18].copy_from_slice(&0u16.to_be_bytes());
    assert!(parse(&bytes).is_ok());
    bytes[tcp + 16..tcp + 18].copy_from_slice(&0xFFFEu16.to_be_bytes());
    assert_eq!(parse(&bytes).unwrap_err(), ParseError::BadTcpChecksum);
}
