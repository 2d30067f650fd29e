//! Property tests: valid packets round-trip through real bytes and agree
//! with etherparse; untrusted bytes never panic the parser, and whatever it
//! accepts re-serialises and parses back to the same value.

use super::oracle::check_against_etherparse;
use super::*;
use proptest::prelude::*;
use std::net::Ipv4Addr;

const CHECKED: ParseOptions = ParseOptions {
    verify_checksums: true,
};
const UNCHECKED: ParseOptions = ParseOptions {
    verify_checksums: false,
};

fn sack_blocks() -> impl Strategy<Value = SackBlocks> {
    prop::collection::vec((any::<u32>(), any::<u32>()), 0..=4).prop_map(|v| {
        let mut s = SackBlocks::new();
        for (l, r) in v {
            s.push(SackBlock {
                left: SeqNum(l),
                right: SeqNum(r),
            });
        }
        s
    })
}

fn options() -> impl Strategy<Value = TcpOptions> {
    (
        prop::option::of(any::<u16>()),
        prop::option::of(0u8..=14),
        any::<bool>(),
        sack_blocks(),
        prop::option::of(any::<(u32, u32)>()),
    )
        .prop_map(
            |(mss, window_scale, sack_permitted, sack, timestamps)| TcpOptions {
                mss,
                window_scale,
                sack_permitted,
                sack,
                timestamps,
            },
        )
}

/// Any packet xltcp may build (window scale 0..=14, payload up to 2000 B).
fn packet() -> impl Strategy<Value = Packet> {
    (
        (any::<u32>(), any::<u32>(), any::<u16>(), any::<u8>()),
        (any::<u16>(), any::<u16>(), any::<u32>(), any::<u32>()),
        (any::<u8>(), any::<u16>(), options(), 0u32..2000),
    )
        .prop_map(
            |((src, dst, ip_id, ttl), (sp, dp, seq, ack), (flags, window, options, len))| Packet {
                src: Ipv4Addr::from(src),
                dst: Ipv4Addr::from(dst),
                ip_id,
                ttl,
                tcp: Segment {
                    src_port: sp,
                    dst_port: dp,
                    seq: SeqNum(seq),
                    ack: SeqNum(ack),
                    flags: TcpFlags(flags),
                    window,
                    options,
                    payload_len: len,
                },
                meta: PacketMeta::default(),
            },
        )
}

/// What the wire keeps of `p`: the SACK blocks that fit, no metadata.
fn on_the_wire(p: &Packet) -> Packet {
    let mut q = *p;
    q.tcp
        .options
        .sack
        .truncate(p.tcp.options.sack_blocks_on_wire());
    q.meta = PacketMeta::default();
    q
}

/// Whatever `parse` accepted re-serialises and parses back to itself, with
/// nothing skipped or dropped the second time.
fn assert_reparses(parsed: &ParsedPacket) {
    let mut buf = Vec::new();
    emit(parsed.packet(), &mut buf);
    let again = parse(&buf).expect("re-emitted packet must parse");
    assert_eq!(again.packet(), parsed.packet());
    assert_eq!(again.skipped_options(), 0);
    assert_eq!(again.dropped_sack_blocks(), 0);
    assert_eq!(
        again.payload_offset(),
        buf.len() - parsed.packet().tcp.payload_len as usize
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn valid_packets_round_trip(p in packet()) {
        let mut buf = Vec::new();
        emit(&p, &mut buf);
        prop_assert_eq!(buf.len(), emit_len(&p));
        let parsed = parse(&buf).unwrap();
        prop_assert_eq!(parsed.into_packet(), on_the_wire(&p));
        prop_assert_eq!(parsed.dropped_sack_blocks(), 0);
    }

    #[test]
    fn etherparse_reads_what_we_wrote(p in packet()) {
        let mut buf = Vec::new();
        emit(&p, &mut buf);
        check_against_etherparse(&buf, &on_the_wire(&p));
    }

    #[test]
    fn view_rewrites_match_a_full_recomputation(p in packet(), window: u16, ack: u32) {
        let mut buf = Vec::new();
        emit(&p, &mut buf);
        let mut v = TcpHeaderMut::new_checked(&mut buf).unwrap();
        v.set_window(window);
        v.set_ack(SeqNum(ack));
        let mut q = on_the_wire(&p);
        q.tcp.window = window;
        q.tcp.ack = SeqNum(ack);
        let mut fresh = Vec::new();
        emit(&q, &mut fresh);
        prop_assert_eq!(buf, fresh);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_round_trip(
        bytes in prop::collection::vec(any::<u8>(), 0..120),
        checked: bool,
    ) {
        let opts = ParseOptions { verify_checksums: checked };
        if let Ok(parsed) = parse_with(&bytes, opts) {
            assert_reparses(&parsed);
        }
        let mut copy = bytes.clone();
        let _ = fix_checksums(&mut copy);
        let _ = TcpHeaderMut::new_checked(&mut copy);
    }

    #[test]
    fn mutated_packets_never_panic_and_round_trip(
        p in packet(),
        edits in prop::collection::vec((0usize..100, any::<u8>()), 1..6),
        cut in prop::option::of(0usize..200),
        fix: bool,
    ) {
        let mut bytes = Vec::new();
        emit(&p, &mut bytes);
        for (at, v) in edits {
            if let Some(b) = bytes.get_mut(at) {
                *b = v;
            }
        }
        if let Some(n) = cut {
            bytes.truncate(n);
        }
        if fix {
            let _ = fix_checksums(&mut bytes);
        }
        for opts in [CHECKED, UNCHECKED] {
            if let Ok(parsed) = parse_with(&bytes, opts) {
                assert_reparses(&parsed);
            }
        }
    }

    /// Random option areas behind valid headers reach the option parser.
    #[test]
    fn random_options_never_panic_and_round_trip(
        words in 0usize..=10,
        raw in prop::collection::vec(
            prop_oneof![0u8..=10, any::<u8>()], 40),
        payload in 0usize..8,
    ) {
        let area = &raw[..words * 4];
        let mut bytes = vec![0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        bytes.extend_from_slice(&[0x9c, 0x40, 0x13, 0x89, 0, 0, 0, 1, 0, 0, 0, 2]);
        bytes.extend_from_slice(&[((5 + words) as u8) << 4, 0x10, 0x10, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(area);
        bytes.extend_from_slice(&vec![0xA5; payload]);
        let total = bytes.len() as u16;
        bytes[2..4].copy_from_slice(&total.to_be_bytes());
        fix_checksums(&mut bytes).unwrap();
        match parse(&bytes) {
            Ok(parsed) => {
                prop_assert_eq!(parsed.packet().tcp.payload_len as usize, payload);
                assert_reparses(&parsed);
            }
            Err(e) => prop_assert!(matches!(e, ParseError::BadOption { .. }), "{e:?}"),
        }
    }
}
