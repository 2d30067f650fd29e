//! Test oracle: checks emitted bytes with etherparse, an independent
//! IPv4/TCP parser, field by field and checksum by checksum.

use super::{Packet, SackBlock};
use etherparse::{NetSlice, SlicedPacket, TcpOptionElement, TransportSlice};

/// Asserts that etherparse reads `bytes` as exactly `p` (meta aside), with
/// valid IPv4 and TCP checksums. `bytes` must be the whole datagram.
pub(crate) fn check_against_etherparse(bytes: &[u8], p: &Packet) {
    let sliced = SlicedPacket::from_ip(bytes).expect("etherparse rejects the datagram");
    let Some(NetSlice::Ipv4(ip)) = &sliced.net else {
        panic!("not IPv4: {:?}", sliced.net)
    };
    let h = ip.header();
    assert_eq!(h.version(), 4);
    assert_eq!(h.ihl(), 5);
    assert_eq!(usize::from(h.total_len()), bytes.len());
    assert_eq!(h.identification(), p.ip_id);
    assert!(h.dont_fragment() && !h.more_fragments());
    assert_eq!(h.ttl(), p.ttl);
    assert_eq!(h.protocol(), etherparse::IpNumber::TCP);
    assert_eq!(h.source_addr(), p.src);
    assert_eq!(h.destination_addr(), p.dst);
    assert_eq!(h.header_checksum(), h.to_header().calc_header_checksum());

    let Some(TransportSlice::Tcp(tcp)) = &sliced.transport else {
        panic!("not TCP: {:?}", sliced.transport)
    };
    let s = &p.tcp;
    assert_eq!(tcp.source_port(), s.src_port);
    assert_eq!(tcp.destination_port(), s.dst_port);
    assert_eq!(tcp.sequence_number(), s.seq.0);
    assert_eq!(tcp.acknowledgment_number(), s.ack.0);
    assert_eq!(usize::from(tcp.data_offset()) * 4, s.header_len());
    assert_eq!(tcp.header_slice()[13], s.flags.0);
    assert_eq!(tcp.window_size(), s.window);
    assert_eq!(tcp.urgent_pointer(), 0);
    assert_eq!(tcp.payload().len(), s.payload_len as usize);
    let want = tcp.calc_checksum_ipv4(h.source(), h.destination()).unwrap();
    assert_eq!(tcp.checksum(), want, "TCP checksum");

    let mut mss = None;
    let mut ws = None;
    let mut sack_permitted = false;
    let mut ts = None;
    let mut sack: Vec<SackBlock> = Vec::new();
    for opt in tcp.options_iterator() {
        match opt.expect("etherparse rejects an option") {
            TcpOptionElement::Noop => {}
            TcpOptionElement::MaximumSegmentSize(v) => mss = Some(v),
            TcpOptionElement::WindowScale(v) => ws = Some(v),
            TcpOptionElement::SelectiveAcknowledgementPermitted => sack_permitted = true,
            TcpOptionElement::Timestamp(a, b) => ts = Some((a, b)),
            TcpOptionElement::SelectiveAcknowledgement(first, rest) => {
                for (l, r) in std::iter::once(first).chain(rest.into_iter().flatten()) {
                    sack.push(SackBlock {
                        left: super::SeqNum(l),
                        right: super::SeqNum(r),
                    });
                }
            }
        }
    }
    let o = &s.options;
    assert_eq!(mss, o.mss);
    assert_eq!(ws, o.window_scale);
    assert_eq!(sack_permitted, o.sack_permitted);
    assert_eq!(ts, o.timestamps);
    assert_eq!(sack, o.sack.as_slice()[..o.sack_blocks_on_wire()]);
}
