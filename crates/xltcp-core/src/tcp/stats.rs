//! Counters of one endpoint. Every anomaly and every drop has its own counter.

/// Counters; all start at zero and only grow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Segments emitted (any kind).
    pub segments_sent: u64,
    /// Segments emitted carrying payload.
    pub data_segments_sent: u64,
    /// Segments emitted that resend sequence space sent before.
    pub retransmissions: u64,
    /// Payload bytes resent.
    pub bytes_retransmitted: u64,
    /// Retransmission timeouts of data (and FIN), the handshake's left out.
    pub rto_count: u64,
    /// Data timeouts that F-RTO (RFC 5682) or Eifel (RFC 3522) found spurious and undid.
    pub spurious_rtos: u64,
    /// Segments RACK (RFC 8985) marked lost.
    pub rack_marked_lost: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub tlp_probes: u64,
    /// Probes that resent data and repaired a loss (cwnd halved).
    pub tlp_loss_repairs: u64,
    /// Timeouts of our SYN or SYN-ACK (the handshake's retransmission timer).
    pub syn_timeouts: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// Segments handed to `handle_segment`.
    pub segments_received: u64,
    /// Duplicate ACKs received (RFC 5681 §2 definition).
    pub dup_acks_received: u64,
    /// Segments emitted with the ACK flag and no payload.
    pub acks_sent: u64,
    /// Bytes of our data newly acknowledged by the peer.
    pub bytes_acked: u64,
    /// Bytes taken by the application with `read`.
    pub bytes_delivered: u64,
    /// Data segments received above `rcv_nxt`.
    pub out_of_order_segments: u64,
    /// Zero-window probes sent.
    pub zero_window_probes: u64,
    /// Segments (or parts) dropped because they lay outside the receive window.
    pub dropped_out_of_window: u64,
    /// Segments dropped because they acknowledged data never sent.
    pub dropped_bad_ack: u64,
    /// Segments dropped because they did not fit the state (e.g. no ACK flag,
    /// wrong ports, SYN in a synchronised state).
    pub dropped_bad_state: u64,
    /// Duplicate data bytes received (already acknowledged).
    pub duplicate_bytes_received: u64,
    /// Resets received and accepted.
    pub resets_received: u64,
    /// Resets sent (answers to segments that found no connection).
    pub resets_sent: u64,
    /// SACK blocks ignored because they lay outside (SND.UNA, SND.MAX].
    pub invalid_sack_blocks: u64,
    /// ACKs whose first SACK block reported a duplicate segment (DSACK).
    pub dsack_blocks_received: u64,
    /// SACK recoveries undone because every retransmission of the episode
    /// came back as a DSACK (`dsack_undo`).
    pub dsack_undos: u64,
}

impl Stats {
    /// Segments dropped for any reason (out of window, bad ACK, bad state).
    pub fn dropped_segments(&self) -> u64 {
        self.dropped_out_of_window + self.dropped_bad_ack + self.dropped_bad_state
    }
}
