//! What the caching schemes (Snoop, C-Snoop, SNACK) share: the key of a
//! connection, the copy a local retransmission sends, a smoothed local
//! round-trip time and the counters of their `summary.json` sections.

use crate::time::{Dur, Time};
use crate::wire::{Packet, SeqNum};
use serde::Serialize;

/// Segments cached per connection, at most (ns-2 snoop's `SNOOP_MAXWIND`).
/// A segment arriving at a full cache is forwarded uncached and counted
/// ([`CacheStats::cache_full`]); the cache never grows past this.
pub const CACHE_LIMIT: usize = 100;

/// Local retransmissions of one segment, at most (ns-2's
/// `SNOOP_MAX_RXMIT`); past it the segment is left to the sender's TCP.
pub const MAX_LOCAL_RXMIT: u8 = 10;

/// A connection as the caching agents key it: (flow, the data sender's
/// port, the data receiver's port). A flow may carry several connections.
pub type ConnKey = (u32, u16, u16);

/// The key of the connection whose data `p` carries.
pub fn data_key(p: &Packet) -> ConnKey {
    (p.meta.flow, p.tcp.src_port, p.tcp.dst_port)
}

/// The key of the connection whose data the ACK `p` acknowledges.
pub fn ack_key(p: &Packet) -> ConnKey {
    (p.meta.flow, p.tcp.dst_port, p.tcp.src_port)
}

/// One past the last sequence number of a data segment.
pub fn end_of(p: &Packet) -> SeqNum {
    p.tcp.seq + p.tcp.payload_len + u32::from(p.tcp.flags.fin())
}

/// Whether `p` is a pure ACK (no data, no SYN, FIN or RST): the only kind
/// that can be a duplicate ACK.
pub fn is_pure_ack(p: &Packet) -> bool {
    let f = p.tcp.flags;
    f.ack() && p.tcp.payload_len == 0 && !f.syn() && !f.fin() && !f.rst()
}

/// The copy of a cached segment a local retransmission sends: marked as a
/// retransmission and as forged (made by an agent, not by the endpoint
/// whose address it carries), so the receiving endpoint's side of the world
/// can count it (`summary.json` `"local_retransmissions"`).
pub fn local_copy(p: &Packet) -> Packet {
    let mut c = *p;
    c.meta.uid = 0;
    c.meta.retransmission = true;
    c.meta.forged = true;
    c
}

/// A smoothed round-trip time of the wireless hop and the timeout derived
/// from it, as TCP's (RFC 6298 §2): `rttvar = (1 - 1/4) rttvar + 1/4 |srtt -
/// r|`, `srtt = (1 - 1/8) srtt + 1/8 r`, timeout `srtt + 4 rttvar` bounded
/// below by `floor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalRtt {
    srtt: Option<Dur>,
    rttvar: Dur,
    /// The timeout before the first sample.
    initial: Dur,
    floor: Dur,
}

impl LocalRtt {
    /// An estimator with a first sample's `srtt = r`, `rttvar = r/2`
    /// (RFC 6298 §2.2), `initial` as the timeout until then.
    pub fn new(initial: Dur, floor: Dur) -> LocalRtt {
        LocalRtt {
            srtt: None,
            rttvar: Dur::ZERO,
            initial,
            floor,
        }
    }

    /// An estimator that starts from `srtt` and `rttvar` (ns-2 snoop's
    /// `srtt_` and `rttvar_`) instead of its first sample.
    pub fn starting_at(srtt: Dur, rttvar: Dur, floor: Dur) -> LocalRtt {
        LocalRtt {
            srtt: Some(srtt),
            rttvar,
            initial: srtt + rttvar.saturating_mul(4),
            floor,
        }
    }

    /// One round-trip sample `r`.
    pub fn sample(&mut self, r: Dur) {
        let r = r.as_nanos();
        match self.srtt {
            None => {
                self.srtt = Some(Dur::from_nanos(r));
                self.rttvar = Dur::from_nanos(r / 2);
            }
            Some(s) => {
                let s = s.as_nanos();
                let var = self.rttvar.as_nanos();
                self.rttvar = Dur::from_nanos(var - var / 4 + s.abs_diff(r) / 4);
                self.srtt = Some(Dur::from_nanos(s - s / 8 + r / 8));
            }
        }
    }

    /// The smoothed round-trip time, once sampled or set.
    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    /// `srtt + 4 rttvar`, at least the floor.
    pub fn timeout(&self) -> Dur {
        let t = match self.srtt {
            Some(s) => s + self.rttvar.saturating_mul(4),
            None => self.initial,
        };
        t.max(self.floor)
    }
}

/// Local retransmissions by what triggered them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Retransmits {
    /// A duplicate ACK from the receiver (Snoop).
    pub dupack: u64,
    /// The local retransmission timer.
    pub timer: u64,
    /// The MAC gave the frame up (`undelivered`), after C-Snoop's timer.
    pub undelivered: u64,
    /// Another frame to the same destination was `delivered` (C-Snoop's
    /// priority retransmission of earlier lost packets).
    pub delivered_priority: u64,
    /// A loss report listing several holes (SNACK).
    pub snack: u64,
}

impl Retransmits {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.dupack + self.timer + self.undelivered + self.delivered_priority + self.snack
    }
}

impl std::ops::AddAssign for Retransmits {
    fn add_assign(&mut self, o: Retransmits) {
        self.dupack += o.dupack;
        self.timer += o.timer;
        self.undelivered += o.undelivered;
        self.delivered_priority += o.delivered_priority;
        self.snack += o.snack;
    }
}

/// The counters of a caching agent (a `summary.json` section: `"snoop"`,
/// `"c_snoop"`, and inside `"snack"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Data segments put into the cache.
    pub cached: u64,
    /// Cached segments the sender sent again (its own retransmissions).
    pub sender_retransmissions: u64,
    /// Local retransmissions, by trigger.
    pub local_retransmissions: Retransmits,
    /// Duplicate ACKs kept from the sender (consumed at the BS).
    pub dupacks_suppressed: u64,
    /// Duplicate ACKs passed on to the sender.
    pub dupacks_forwarded: u64,
    /// Segments forwarded uncached because the cache was full.
    pub cache_full: u64,
    /// Segments removed from the cache without being acknowledged or
    /// delivered: their local retransmissions ran out
    /// ([`MAX_LOCAL_RXMIT`]), or (C-Snoop) the MAC dropped them at a full
    /// queue, a congestion loss left to TCP.
    pub cache_drops: u64,
}

impl std::ops::AddAssign for CacheStats {
    fn add_assign(&mut self, o: CacheStats) {
        self.cached += o.cached;
        self.sender_retransmissions += o.sender_retransmissions;
        self.local_retransmissions += o.local_retransmissions;
        self.dupacks_suppressed += o.dupacks_suppressed;
        self.dupacks_forwarded += o.dupacks_forwarded;
        self.cache_full += o.cache_full;
        self.cache_drops += o.cache_drops;
    }
}

/// The earliest of two optional deadlines.
pub fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}
