//! The UCL's security counters as `summary.json` reports them
//! ([`UclSecStats`]).

use super::ERRORS_MAX;
use crate::schemes::ucl::security::SecStats;
use serde::Serialize;

/// The security counters of the UCL (`summary.json` `"ucl"` `"security"`,
/// summed over its nodes).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UclSecStats {
    /// The secured links' counters (handshakes, sealed and opened frames,
    /// re-keys, drops by reason).
    #[serde(flatten)]
    pub link: SecStats,
    /// Where the handshakes' ephemeral keys came from: `"seeded"` (the
    /// run's seed), `"os"` (the OS's randomness), or `"mixed"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ephemeral_keys: Option<&'static str>,
    /// Handshake messages sent (first sends and resends).
    pub handshake_frames: u64,
    /// Handshake attempts given up after `handshake_tries` messages
    /// without an answer.
    pub handshake_timeouts: u64,
    /// Handshakes started after the first: the host's new attempts after a
    /// failed one, the BS's on a new first message.
    pub handshake_retries: u64,
    /// The latest time (s) a node's side of a link came up.
    pub link_up_s: Option<f64>,
    /// Bytes sealing added on the air (header and tag of every sealed frame).
    pub overhead_bytes: u64,
    /// Packets held while the handshake ran.
    pub held: u64,
    /// Dropped: more than `max_held` waiting for the handshake.
    pub held_overflow: u64,
    /// Dropped: the link can never come up (key files, OS randomness).
    pub link_down: u64,
    /// Dropped: opened, but not the packet's bytes.
    pub mismatch: u64,
    /// Dropped: the frame had left the air's bound.
    pub frame_missing: u64,
    /// Frames of this node that had a byte flipped on the air
    /// (`tamper_every`), handshake messages included.
    pub tampered_on_air: u64,
    /// Frames the adversary sent (copies, forgeries, reflections) or
    /// handshake messages it removed (`adversary`).
    pub adversary_on_air: u64,
    /// Sealed data frames altered or made on the air (tampered, adversary)
    /// that reached this node.
    pub altered_received: u64,
    /// Handshake messages altered on the air that reached this node.
    pub altered_handshake_received: u64,
    /// Frames altered or made on the air that this node delivered: a
    /// security failure, never expected.
    pub altered_delivered: u64,
    /// Why handshakes failed or messages were refused (`<node>: <error>`),
    /// the first [`ERRORS_MAX`].
    pub errors: Vec<String>,
}

impl UclSecStats {
    /// Adds `o`'s counters.
    pub fn merge(&mut self, o: &UclSecStats) {
        self.link = self.link.plus(&o.link);
        self.ephemeral_keys = match (self.ephemeral_keys, o.ephemeral_keys) {
            (Some(a), Some(b)) if a != b => Some("mixed"),
            (a, b) => a.or(b),
        };
        self.handshake_frames += o.handshake_frames;
        self.handshake_timeouts += o.handshake_timeouts;
        self.handshake_retries += o.handshake_retries;
        self.link_up_s = match (self.link_up_s, o.link_up_s) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.overhead_bytes += o.overhead_bytes;
        self.held += o.held;
        self.held_overflow += o.held_overflow;
        self.link_down += o.link_down;
        self.mismatch += o.mismatch;
        self.frame_missing += o.frame_missing;
        self.tampered_on_air += o.tampered_on_air;
        self.adversary_on_air += o.adversary_on_air;
        self.altered_received += o.altered_received;
        self.altered_handshake_received += o.altered_handshake_received;
        self.altered_delivered += o.altered_delivered;
        for e in &o.errors {
            if self.errors.len() < ERRORS_MAX {
                self.errors.push(e.clone());
            }
        }
    }

    /// Every frame or packet the security dropped, whatever the reason.
    pub fn dropped(&self) -> u64 {
        self.link.dropped()
            + self.held_overflow
            + self.link_down
            + self.mismatch
            + self.frame_missing
    }
}
