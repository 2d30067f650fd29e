//! What the DCF reports: per-frame events, drop reasons and counters.

use super::frame::Addr;
use crate::time::Dur;

/// Why the MAC gave a frame up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UndeliveredReason {
    /// The short or long retry limit was reached.
    RetryLimit,
    /// The transmit queue was full when the frame was enqueued.
    QueueFull,
    /// The PSDU exceeds `aPSDUMaxLength` (4095 bytes).
    FrameTooLong,
    /// The station's queue was cleared ([`Dcf::flush`](super::Dcf::flush)):
    /// its radio retuned.
    Flushed,
}

/// What the MAC reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacEvent {
    /// (Sender) The ACK of `frame` arrived.
    Delivered {
        /// The frame's id.
        frame: u64,
        /// From enqueue to the head of the queue.
        queue_delay: Dur,
        /// From the head of the queue to the ACK.
        tx_delay: Dur,
        /// Data transmissions it took (1 = first try; RTS not counted).
        attempts: u8,
    },
    /// (Sender) The MAC dropped `frame`.
    Undelivered {
        /// The frame's id.
        frame: u64,
        /// Why.
        reason: UndeliveredReason,
    },
    /// (Receiver) A new data frame arrived intact and was ACKed: pass it up.
    Received {
        /// The frame's id.
        frame: u64,
        /// The transmitter.
        from: Addr,
    },
    /// (Receiver) A retransmission of a frame already received (same
    /// sequence number, Retry bit set): ACKed again, not passed up.
    Duplicate {
        /// The frame's id.
        frame: u64,
        /// The transmitter.
        from: Addr,
    },
}

impl MacEvent {
    /// The cross-layer form of a sender's report, if it is one.
    pub fn to_signal(self) -> Option<crate::signal::Signal> {
        match self {
            MacEvent::Delivered { frame, .. } => Some(crate::signal::Signal::Delivered { frame }),
            MacEvent::Undelivered { frame, .. } => {
                Some(crate::signal::Signal::Undelivered { frame })
            }
            MacEvent::Received { .. } | MacEvent::Duplicate { .. } => None,
        }
    }
}

/// Counters for every outcome. Collisions are the medium's business; the
/// MAC sees them as timeouts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DcfStats {
    /// Frames accepted into the queue.
    pub enqueued: u64,
    /// Frames acknowledged.
    pub delivered: u64,
    /// Frames dropped at the short retry limit.
    pub short_retry_drops: u64,
    /// Frames dropped at the long retry limit.
    pub long_retry_drops: u64,
    /// Frames refused because the queue was full.
    pub queue_full_drops: u64,
    /// Frames refused because their PSDU exceeds 4095 bytes.
    pub too_long_drops: u64,
    /// Data transmissions (first tries and retries).
    pub data_tx: u64,
    /// Of those, retransmissions.
    pub retransmissions: u64,
    /// RTS transmissions.
    pub rts_tx: u64,
    /// ACK timeouts (data sent, no ACK).
    pub ack_timeouts: u64,
    /// CTS timeouts (RTS sent, no CTS).
    pub cts_timeouts: u64,
    /// ACKs sent as a receiver.
    pub acks_sent: u64,
    /// CTSs sent as a receiver.
    pub cts_sent: u64,
    /// New data frames received (passed up).
    pub received: u64,
    /// Duplicates received (ACKed, not passed up).
    pub duplicates: u64,
    /// RTSs not answered because the NAV was set or the station was busy.
    pub rts_ignored: u64,
    /// ACK/CTS frames that matched no pending exchange.
    pub unexpected_responses: u64,
    /// Receptions that ended in error (each starts an EIFS).
    pub rx_errors: u64,
    /// Frames reported received while this station was transmitting
    /// (a half-duplex radio cannot have heard them): ignored.
    pub rx_while_transmitting: u64,
    /// Backoffs drawn.
    pub backoffs: u64,
    /// Slots drawn in total (mean = this / `backoffs`).
    pub backoff_slots: u64,
}
