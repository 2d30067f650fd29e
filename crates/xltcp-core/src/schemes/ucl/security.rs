//! Link security of the UCL: mutual authentication of the host and the
//! base station, then every frame sealed with an AEAD, replay protection
//! over a sliding window, and re-keying. Sans-IO: the caller moves the
//! handshake messages and frames; nothing here reads a clock, a socket or
//! the OS's randomness.
//!
//! # Pieces
//!
//! - [`Identity`] (a node's static X25519 key pair: [`Identity::generate`]
//!   from the run's seed for simulation, [`Identity::load`] from a key
//!   file, format in [`keys`]) and [`TrustedPeers`] (the keys it accepts).
//! - [`Handshake`]: one side of the handshake, turning into a [`Session`].
//! - [`Session`]: [`Session::seal`] and [`Session::open`] over frame bytes,
//!   re-keying, counters in [`SecStats`].
//! - [`SecureLink`]: what an agent holds: the handshake, then the session,
//!   with the drops before it (`NotAuthenticated`) and handshake resends.
//! - The cost a hop or an oracle charges: [`FRAME_OVERHEAD`],
//!   [`sealed_len`], [`HANDSHAKE_MSG_LENS`], [`handshake_bytes`],
//!   [`CpuCost`].
//!
//! # Threat model
//!
//! The attacker owns the air: it hears every frame, and can drop, delay,
//! reorder, replay, modify and inject frames, and run handshakes of its own.
//!
//! Protected:
//! - **Peer authentication.** A session exists only after a handshake in
//!   which each side proved possession of the private key of a static
//!   X25519 key that the other side's [`TrustedPeers`] holds. An untrusted
//!   key, or a trusted public key presented without its private key, fails
//!   the handshake ([`HandshakeError`]).
//! - **Integrity and origin** of every frame, header included (the header is
//!   the AEAD's associated data): a modified frame is never delivered.
//! - **Confidentiality** of the frame's payload (the IP packet).
//! - **Replay**: a frame is delivered at most once; a frame older than the
//!   replay window is dropped even if it was never seen.
//! - **Key lifetime**: keys move forward (re-keying) after a set number of
//!   frames or on demand; a retired key is forgotten, so frames under it are
//!   dropped and a later theft of the current key does not open them.
//!
//! Not protected:
//! - **Traffic analysis**: frame sizes, timing, the counter and the key
//!   epoch are visible (the header is authenticated, not encrypted).
//! - **Denial of service**: jamming, dropping frames or flooding the
//!   receiver with forged frames (each costs one AEAD check before it is
//!   dropped as `Tampered`), or forged handshake messages (a refused one
//!   costs rebuilding the handshake; a forged first message makes a BS
//!   start over, which delays the genuine handshake until the host's next
//!   attempt).
//! - **Key compromise**: a stolen static private key lets its thief pose as
//!   that node in new handshakes; a stolen session key opens the frames of
//!   its epoch and of later ones (the re-keying chain only goes forward).
//!   There is no revocation beyond editing the trusted-peers file.
//! - The handshake is not hidden from a passive observer: XX sends the
//!   static keys encrypted, but who talks to whom can be inferred.
//!
//! # Handshake
//!
//! `Noise_XX_25519_ChaChaPoly_SHA256` through `snow` ([`NOISE_PARAMS`]),
//! three messages with empty payloads ([`HANDSHAKE_MSG_LENS`]):
//! `-> e`, `<- e, ee, s, es`, `-> s, se`. XX because neither side needs to
//! know the other's key in advance: each learns the other's static key
//! inside the handshake and accepts it only if it is in its trusted set
//! (the initiator checks before it sends message 3, the responder when it
//! reads it). SHA-256 rather than BLAKE2s because the re-keying KDF is
//! HKDF-SHA256: one hash for the whole layer, and hardware-accelerated on
//! most CPUs. The prologue binds the protocol version ([`PROLOGUE`]).
//!
//! **Determinism.** `snow` draws the ephemeral keys from the random
//! generator its resolver hands out. We give it a resolver whose generator
//! is ChaCha20 seeded with 32 bytes chosen by the caller
//! ([`ephemeral_seed`] derives them from the run's seed and a name for
//! simulation; a real deployment passes 32 bytes of OS entropy). Everything
//! else (the DH, the cipher, the hash) is `snow`'s default implementation.
//! The same identities and seeds therefore give byte-identical handshake
//! messages and session keys.
//!
//! # Frame layout
//!
//! ```text
//! 0        4                12                 12+n      12+n+16
//! +--------+----------------+------------------+---------+
//! | epoch  | counter        | ciphertext       | tag     |
//! | u32 BE | u64 BE         | n bytes          | 16 B    |
//! +--------+----------------+------------------+---------+
//! ```
//!
//! ChaCha20-Poly1305 (IETF, crate `chacha20poly1305`) under the epoch's key
//! of the sending direction; the 12-byte header is both the nonce and the
//! associated data. The counter is per direction, starts at 0 and never
//! repeats (it runs on across epochs), so a (key, nonce) pair is never used
//! twice. [`FRAME_OVERHEAD`] = 28 bytes a frame.
//!
//! # Opening a frame
//!
//! In this order, stopping at the first failure, each with its
//! [`DropReason`] and counter in [`SecStats`]:
//! 1. shorter than the overhead: `Malformed`;
//! 2. the epoch picks the key: the current one; the one just retired if it
//!    is still in grace; the current one moved forward by HKDF for an epoch
//!    up to [`MAX_EPOCH_AHEAD`] ahead; a farther one is `Tampered` (no
//!    genuine sender gets there); an older epoch is `StaleKey`, unless the
//!    counter is at or above the lowest one received under a later epoch
//!    (a genuine older frame precedes them all): then `Tampered`;
//! 3. AEAD verification: `Tampered` (any modified bit lands here, including
//!    in the header);
//! 4. the replay window: `Replayed` (counter seen), `TooOld` (counter
//!    `window` or more below the highest accepted);
//! 5. deliver, mark the counter, and adopt a new epoch if the frame brought
//!    one.
//!
//! Authenticity is checked before the replay window so that a frame is
//! called `Replayed` or `TooOld` only if it is authentic; the price is one
//! AEAD check per replayed frame. So a frame with any byte changed is
//! `Tampered`, never another reason, with one exception: a changed epoch
//! that names a retired key, on a frame whose counter precedes every frame
//! received under the current key, looks like a late genuine frame and is
//! `StaleKey` (without the retired key nothing tells the two apart).
//!
//! The replay window ([`SecConfig::replay_window`], default
//! [`DEFAULT_REPLAY_WINDOW`]) is a ring of 64-bit words, one bit a counter
//! (RFC 6479; WireGuard's layout): checking and marking a counter cost O(1)
//! whatever the window's size.
//!
//! # Re-keying
//!
//! Each direction's key moves to `HKDF-SHA256(salt = "xltcp-ucl-rekey",
//! ikm = current key)` when its sender has sealed
//! [`SecConfig::rekey_after_frames`] frames under it, or on demand
//! ([`Session::rekey`]). The receiver adopts the new epoch with the first
//! authentic frame under it and then moves its own sending direction to at
//! least that epoch, so both directions move together. The retired
//! receiving key is kept for [`SecConfig::rekey_grace_frames`] more frames
//! accepted under the new key, so that frames already in flight (a UCL
//! reorders across interfaces) are not lost; with a grace of 0 it is
//! forgotten at once. Frames under a forgotten key are `StaleKey`. The
//! default grace is the replay window's size: after that many frames under
//! the new key, every frame of the old one lies left of the window (its
//! counter precedes them all), so a genuine frame the window would take is
//! never lost to a re-key unless it arrives after the next re-key too
//! (only the latest retired key is kept). A 32-frame grace lost about 100
//! genuine frames a run in paper 003's moving run re-keyed every 500
//! frames; the window's size loses none.

mod handshake;
pub mod keys;
mod link;
#[cfg(test)]
mod proptests;
mod session;
#[cfg(test)]
mod tests;

pub use handshake::{ephemeral_seed, Handshake, Role};
pub use keys::{Identity, KeyFileError, KeyFileProblem, PublicKey, TrustedPeers, KEY_LEN};
pub use link::SecureLink;
pub use session::Session;

use serde::Serialize;

/// The Noise protocol name of the handshake.
pub const NOISE_PARAMS: &str = "Noise_XX_25519_ChaChaPoly_SHA256";
/// The handshake's prologue (both sides must agree on it).
pub const PROLOGUE: &[u8] = b"xltcp-ucl/1";
/// Bytes of a frame's header: key epoch (4) and counter (8).
pub const HEADER_LEN: usize = 12;
/// Bytes of the AEAD's authentication tag.
pub const TAG_LEN: usize = 16;
/// Bytes sealing adds to a frame: header and tag.
pub const FRAME_OVERHEAD: usize = HEADER_LEN + TAG_LEN;
/// Sizes of the three handshake messages (empty payloads): `-> e`;
/// `<- e, ee, s, es`; `-> s, se`.
pub const HANDSHAKE_MSG_LENS: [usize; 3] = [32, 32 + 48 + TAG_LEN, 48 + TAG_LEN];
/// How many epochs ahead of the current one a received frame may be (a
/// sender that re-keyed this often without any frame getting through).
pub const MAX_EPOCH_AHEAD: u32 = 16;
/// The largest replay window accepted, in counters (8 KiB of bitmap).
pub const MAX_REPLAY_WINDOW: u32 = 1 << 16;
/// The replay window of a session unless set: 8192 counters, WireGuard's
/// size (its Linux implementation keeps 8128 behind the highest). A UCL
/// reorders a session's frames across interfaces of very different rates
/// (a frame waiting in an 802.11b queue while 802.11a carries hundreds):
/// in paper 003's moving run genuine frames arrive up to about 300
/// counters late (seeds 1-3, either selection rule), which a 128-counter
/// window dropped as too old; 8192 leaves a wide margin.
pub const DEFAULT_REPLAY_WINDOW: u32 = 8192;

/// Bytes on the air of a frame carrying `payload` bytes.
pub const fn sealed_len(payload: usize) -> usize {
    payload + FRAME_OVERHEAD
}

/// Bytes of a whole handshake (the three messages, without the link's own
/// framing).
pub const fn handshake_bytes() -> usize {
    HANDSHAKE_MSG_LENS[0] + HANDSHAKE_MSG_LENS[1] + HANDSHAKE_MSG_LENS[2]
}

/// The CPU time of sealing and opening a frame, as `per_frame_ns +
/// per_byte_ns * payload`, for a hop or an oracle that charges it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CpuCost {
    /// Fixed cost of one seal plus one open, in ns.
    pub per_frame_ns: f64,
    /// Cost a payload byte (seal plus open), in ns.
    pub per_byte_ns: f64,
}

impl CpuCost {
    /// Measured by `cargo bench -p xltcp-core --bench ucl_security` (the
    /// line through the 64 B and 1500 B costs, thread CPU time) on the
    /// development machine: an AMD EPYC VM, default release build, where
    /// seal + open costs 3.9 us at 64 B, 4.8 us at 576 B and 6.7 us at
    /// 1500 B, within 5 % of the bare AEAD. Most of it is the AEAD crates'
    /// AVX2 code not being inlined in a build for the generic x86-64
    /// target: built with `RUSTFLAGS="-C target-cpu=native"` the same
    /// frames cost 1.2, 2.1 and 3.9 us. Another machine measures its own
    /// with the same command.
    pub const MEASURED: CpuCost = CpuCost {
        per_frame_ns: 3770.0,
        per_byte_ns: 1.98,
    };

    /// Seal plus open of a frame with `payload` bytes, in ns.
    pub fn seal_open_ns(&self, payload: usize) -> f64 {
        self.per_frame_ns + self.per_byte_ns * payload as f64
    }
}

/// The knobs of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SecConfig {
    /// Counters in the replay window: a counter this far or farther below
    /// the highest accepted one is `TooOld` (1 ..= [`MAX_REPLAY_WINDOW`];
    /// default [`DEFAULT_REPLAY_WINDOW`]). A ring bitmap: one bit a
    /// counter, O(1) a frame.
    pub replay_window: u32,
    /// Re-key a direction after this many frames sealed under one key;
    /// `None`: only on demand.
    pub rekey_after_frames: Option<u64>,
    /// Frames accepted under a new receiving key during which the retired
    /// key still opens frames already in flight; 0: the retired key is
    /// forgotten at once (default: the replay window's size,
    /// [`DEFAULT_REPLAY_WINDOW`]).
    pub rekey_grace_frames: u32,
}

impl Default for SecConfig {
    /// An 8192-counter window ([`DEFAULT_REPLAY_WINDOW`]), re-keying every
    /// 2^20 frames, and a grace as long as the window.
    fn default() -> SecConfig {
        SecConfig {
            replay_window: DEFAULT_REPLAY_WINDOW,
            rekey_after_frames: Some(1 << 20),
            rekey_grace_frames: DEFAULT_REPLAY_WINDOW,
        }
    }
}

impl SecConfig {
    /// Checks the knobs; the message names the knob and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if self.replay_window == 0 || self.replay_window > MAX_REPLAY_WINDOW {
            return Err(format!(
                "replay_window = {}: must be 1 ..= {MAX_REPLAY_WINDOW} counters",
                self.replay_window
            ));
        }
        if self.rekey_after_frames == Some(0) {
            return Err("rekey_after_frames = 0: must be at least 1 (or absent)".into());
        }
        Ok(())
    }
}

/// Why a received frame was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DropReason {
    /// The frame failed authentication: the AEAD check failed (modified,
    /// forged, or sealed under another session's key), or its header names
    /// a key no genuine sender could have used (an epoch beyond
    /// [`MAX_EPOCH_AHEAD`], or an older epoch with a counter from a later
    /// one).
    #[error("tampered: the frame failed authentication")]
    Tampered,
    /// An authentic frame whose counter was already accepted.
    #[error("replayed: counter already seen")]
    Replayed,
    /// An authentic frame whose counter is left of the replay window.
    #[error("too old: counter left of the replay window")]
    TooOld,
    /// A frame under a key that re-keying retired (its counter is one a
    /// genuine frame of that epoch could have).
    #[error("stale key: sealed under a retired key")]
    StaleKey,
    /// Too short for a header and a tag.
    #[error("malformed: too short for a header and a tag")]
    Malformed,
    /// No session yet (the handshake has not finished or failed).
    #[error("not authenticated: no session")]
    NotAuthenticated,
}

/// Why a frame could not be sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// No session yet.
    #[error("no session: the handshake has not finished")]
    NotAuthenticated,
    /// The 64-bit frame counter ran out (a new handshake is needed).
    #[error("the frame counter is exhausted")]
    CounterExhausted,
    /// The 32-bit key epoch ran out (a new handshake is needed).
    #[error("the key epoch is exhausted")]
    EpochExhausted,
}

/// Why a handshake message was refused or a handshake failed. `Crypto`,
/// `Malformed` and `OutOfTurn` refuse the message and leave the handshake
/// as it was (a modified or forged message must not end a genuine
/// handshake: the genuine message, sent again, still completes it, as
/// WireGuard's handshake does); the others end the handshake, and a new
/// one must be started.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// The peer authenticated a static key that is not trusted.
    #[error("unauthenticated peer: static key {key} is not trusted")]
    UnauthenticatedPeer {
        /// The peer's static public key.
        key: PublicKey,
    },
    /// A message failed its cryptographic checks: it was modified, or the
    /// peer does not hold the private key of the static key it presented.
    #[error("handshake message {step} failed authentication")]
    Crypto {
        /// Which message (1, 2 or 3).
        step: usize,
    },
    /// A message of the wrong length.
    #[error("handshake message {step} has {len} bytes, expected {expected}")]
    Malformed {
        /// Which message (1, 2 or 3).
        step: usize,
        /// Its length.
        len: usize,
        /// The length expected.
        expected: usize,
    },
    /// A message came when this side was to send, or after the end.
    #[error("a handshake message came out of turn")]
    OutOfTurn,
    /// The session was asked for before the handshake finished.
    #[error("the handshake has not finished")]
    NotFinished,
    /// The handshake failed earlier (this is its first error again).
    #[error("the handshake failed earlier: {0}")]
    Failed(Box<HandshakeError>),
    /// `snow` refused its own setup (a bug, not an attack).
    #[error("handshake setup failed: {0}")]
    Setup(String),
}

/// Counters of a secured link, for `summary.json`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SecStats {
    /// Frames sealed.
    pub sealed: u64,
    /// Payload bytes sealed.
    pub sealed_bytes: u64,
    /// Frames opened and delivered.
    pub opened: u64,
    /// Of those, frames opened with a retired key in its grace.
    pub opened_in_grace: u64,
    /// Dropped: failed authentication (see [`DropReason::Tampered`]).
    pub tampered: u64,
    /// Dropped: counter already seen.
    pub replayed: u64,
    /// Dropped: counter left of the window.
    pub too_old: u64,
    /// Dropped: sealed under a retired key.
    pub stale_key: u64,
    /// Dropped: too short for a header and a tag.
    pub malformed: u64,
    /// Dropped: no session yet.
    pub not_authenticated: u64,
    /// Sending-key changes (own or following the peer).
    pub rekeys_tx: u64,
    /// Receiving-key changes.
    pub rekeys_rx: u64,
    /// Handshakes finished.
    pub handshakes_done: u64,
    /// Handshakes failed.
    pub handshakes_failed: u64,
    /// Handshake messages sent again (lost answers, retransmission timer).
    pub handshake_resends: u64,
    /// Handshake messages refused without ending the handshake: modified,
    /// forged, of the wrong length, or out of turn.
    pub handshake_rejected: u64,
    /// The farthest below the highest accepted counter a frame was still
    /// accepted: how much of the replay window the link's reordering used
    /// (the largest over the links when summed).
    pub deepest_reorder: u64,
}

impl SecStats {
    /// Counts a drop.
    pub fn count_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Tampered => self.tampered += 1,
            DropReason::Replayed => self.replayed += 1,
            DropReason::TooOld => self.too_old += 1,
            DropReason::StaleKey => self.stale_key += 1,
            DropReason::Malformed => self.malformed += 1,
            DropReason::NotAuthenticated => self.not_authenticated += 1,
        }
    }

    /// All frames dropped, whatever the reason.
    pub fn dropped(&self) -> u64 {
        self.tampered
            + self.replayed
            + self.too_old
            + self.stale_key
            + self.malformed
            + self.not_authenticated
    }

    /// The field-wise sum.
    pub fn plus(&self, o: &SecStats) -> SecStats {
        SecStats {
            sealed: self.sealed + o.sealed,
            sealed_bytes: self.sealed_bytes + o.sealed_bytes,
            opened: self.opened + o.opened,
            opened_in_grace: self.opened_in_grace + o.opened_in_grace,
            tampered: self.tampered + o.tampered,
            replayed: self.replayed + o.replayed,
            too_old: self.too_old + o.too_old,
            stale_key: self.stale_key + o.stale_key,
            malformed: self.malformed + o.malformed,
            not_authenticated: self.not_authenticated + o.not_authenticated,
            rekeys_tx: self.rekeys_tx + o.rekeys_tx,
            rekeys_rx: self.rekeys_rx + o.rekeys_rx,
            handshakes_done: self.handshakes_done + o.handshakes_done,
            handshakes_failed: self.handshakes_failed + o.handshakes_failed,
            handshake_resends: self.handshake_resends + o.handshake_resends,
            handshake_rejected: self.handshake_rejected + o.handshake_rejected,
            deepest_reorder: self.deepest_reorder.max(o.deepest_reorder),
        }
    }
}
