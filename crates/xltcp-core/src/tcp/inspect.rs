//! What an [`Endpoint`] lets its driver read: the connection and
//! congestion state, the window and timer values, sequence numbers, the
//! statistics and the configuration. Nothing here changes the endpoint.

use super::{Config, CongestionState, Endpoint, State, Stats};
use crate::time::Dur;
use crate::wire::SeqNum;

impl Endpoint {
    /// Connection state.
    pub fn state(&self) -> State {
        self.state
    }
    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.win.cwnd
    }
    /// Slow start threshold in bytes.
    pub fn ssthresh(&self) -> u64 {
        self.win.ssthresh
    }
    /// Smoothed RTT, once sampled.
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    /// RTT variation, once sampled.
    pub fn rttvar(&self) -> Option<Dur> {
        self.rtt.rttvar()
    }
    /// Current (backed-off) retransmission timeout.
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }
    /// FlightSize: SND.NXT - SND.UNA in bytes (RFC 5681 §2).
    pub fn flight_size(&self) -> u64 {
        self.snd_nxt.since(self.snd_una).max(0) as u64
    }
    /// Sender congestion state.
    pub fn congestion_state(&self) -> CongestionState {
        self.cstate
    }
    /// Oldest unacknowledged sequence number.
    pub fn snd_una(&self) -> SeqNum {
        self.snd_una
    }
    /// Highest sequence number sent, plus one.
    pub fn snd_max(&self) -> SeqNum {
        self.snd_max
    }
    /// Sequence space acknowledged since the ISS (the SYN counts one), in
    /// 64 bits: it keeps counting past 2^32 where SND.UNA wraps.
    pub fn snd_una_rel(&self) -> u64 {
        self.una_advanced
    }
    /// Sequence space sent at least once since the ISS, in 64 bits
    /// ([`Endpoint::snd_una_rel`] and what lies between SND.UNA and SND.MAX).
    pub fn snd_max_rel(&self) -> u64 {
        self.una_advanced + self.snd_max.since(self.snd_una).max(0) as u64
    }
    /// Next sequence number expected from the peer.
    pub fn rcv_nxt(&self) -> SeqNum {
        self.rcv_nxt
    }
    /// Whether every byte of `[left, right)` has been received already
    /// (below RCV.NXT or in one out-of-order range).
    pub fn holds(&self, left: SeqNum, right: SeqNum) -> bool {
        right <= self.rcv_nxt || self.ooo.iter().any(|&(l, r)| l <= left && right <= r)
    }
    /// Payload bytes per full segment, as negotiated.
    pub fn smss(&self) -> u32 {
        self.smss
    }
    /// The send window (scaled) last accepted from the peer.
    pub fn snd_wnd(&self) -> u64 {
        self.snd_wnd
    }
    /// Counters.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }
}
