//! The real bytes of recent data frames sent onto the air, kept for the
//! agents' resends ([`LinkCopies`]).

use std::collections::BTreeMap;
use xltcp_core::wire::Packet;

/// Where delivered datagrams go: the host namespace of `side`.
/// Most data frames [`LinkCopies`] keeps (PHY-LR's link buffer is at most
/// 4096 packets per flow, Snoop's and C-Snoop's caches 100 segments per
/// connection; older frames are forgotten first).
const LINK_COPIES_MAX: usize = 4096;

/// The key of a data frame's bytes: (flow, source port, destination port,
/// first sequence number, payload length). The ports tell the directions
/// and connections of a flow apart (iperf3's control connection runs
/// beside its data connection), so the BS's copies of the downlink and a
/// host's copies of the uplink never meet.
type CopyKey = (u32, u16, u16, u32, u32);

/// The real bytes of data frames that went onto the air, from a host's
/// interface or from the BS, the latest [`LINK_COPIES_MAX`]: the agents
/// that resend a frame from their own copy (PHY-LR at the sending host,
/// Snoop and C-Snoop at the BS, C-Snoop at a host) hold its compact
/// packet, and the emulator sends the bytes the frame had. A frame sent
/// again under the same key (the TCP's own retransmission) replaces its
/// bytes. Buffers of forgotten frames are reused.
#[derive(Debug, Default)]
pub(super) struct LinkCopies {
    frames: BTreeMap<CopyKey, Vec<u8>>,
    order: std::collections::VecDeque<CopyKey>,
    spare: Vec<Vec<u8>>,
}

impl LinkCopies {
    fn key(p: &Packet) -> CopyKey {
        (
            p.meta.flow,
            p.tcp.src_port,
            p.tcp.dst_port,
            p.tcp.seq.0,
            p.tcp.payload_len,
        )
    }

    pub(super) fn keep(&mut self, p: &Packet, bytes: &[u8]) {
        let key = LinkCopies::key(p);
        if let Some(b) = self.frames.get_mut(&key) {
            b.clear();
            b.extend_from_slice(bytes);
            return;
        }
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(bytes);
        self.frames.insert(key, b);
        self.order.push_back(key);
        while self.frames.len() > LINK_COPIES_MAX {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(b) = self.frames.remove(&old) {
                self.spare.push(b);
            }
        }
    }

    pub(super) fn get(&self, p: &Packet) -> Option<&Vec<u8>> {
        self.frames.get(&LinkCopies::key(p))
    }
}
