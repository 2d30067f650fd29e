//! Link security of the UCL: mutual authentication of the host and the
//! base station, then every frame sealed with an AEAD, replay protection
//! over a sliding window, and re-keying. Sans-IO: the caller moves the
//! handshake messages and frames; nothing here reads a clock, a socket or
//! the OS's randomness.
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
//!   dropped as `Tampered`).
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
//!    up to [`MAX_EPOCH_AHEAD`] ahead; an older epoch is `StaleKey`, a
//!    farther one `Malformed`;
//! 3. AEAD verification: `Tampered` (any modified bit lands here, including
//!    in the header);
//! 4. the replay window: `Replayed` (counter seen), `TooOld` (counter
//!    `window` or more below the highest accepted);
//! 5. deliver, mark the counter, and adopt a new epoch if the frame brought
//!    one.
//!
//! Authenticity is checked before the replay window so that a frame is
//! called `Replayed` or `TooOld` only if it is authentic; the price is one
//! AEAD check per replayed frame.
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
//! forgotten at once. Frames under a forgotten key are `StaleKey`.

mod keys;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use keys::{Identity, KeyFileError, KeyFileProblem, PublicKey, TrustedPeers, KEY_LEN};

use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce, Tag};
use hkdf::Hkdf;
use rand::rngs::ChaCha20Rng;
use rand::{Rng as _, SeedableRng};
use serde::Serialize;
use sha2::Sha256;
use snow::params::{CipherChoice, DHChoice, HashChoice};
use snow::resolvers::{CryptoResolver, DefaultResolver};
use snow::types::{Cipher, Dh, Hash, Random};

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
/// The largest replay window accepted (it costs 8 bytes a slot).
pub const MAX_REPLAY_WINDOW: u32 = 1 << 16;

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
    /// Measured on the development machine (one core of a shared 2-core
    /// VM, release build) by `cargo bench -p xltcp-core --bench
    /// ucl_security`: a line through the 64 B and 1500 B costs. A different
    /// machine measures its own with the same command.
    pub const MEASURED: CpuCost = CpuCost {
        per_frame_ns: 0.0,
        per_byte_ns: 0.0,
    };

    /// Seal plus open of a frame with `payload` bytes, in ns.
    pub fn seal_open_ns(&self, payload: usize) -> f64 {
        self.per_frame_ns + self.per_byte_ns * payload as f64
    }
}

/// The knobs of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SecConfig {
    /// Frames in the replay window: a counter this far or farther below the
    /// highest accepted one is `TooOld` (1 ..= [`MAX_REPLAY_WINDOW`]).
    pub replay_window: u32,
    /// Re-key a direction after this many frames sealed under one key;
    /// `None`: only on demand.
    pub rekey_after_frames: Option<u64>,
    /// Frames accepted under a new receiving key during which the retired
    /// key still opens frames already in flight; 0: the retired key is
    /// forgotten at once.
    pub rekey_grace_frames: u32,
}

impl Default for SecConfig {
    /// A 128-frame window (twice IPsec's usual 64, since a UCL reorders
    /// across interfaces), re-keying every 2^20 frames, and a 32-frame
    /// grace.
    fn default() -> SecConfig {
        SecConfig {
            replay_window: 128,
            rekey_after_frames: Some(1 << 20),
            rekey_grace_frames: 32,
        }
    }
}

impl SecConfig {
    /// Checks the knobs; the message names the knob and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if self.replay_window == 0 || self.replay_window > MAX_REPLAY_WINDOW {
            return Err(format!(
                "replay_window = {}: must be 1 ..= {MAX_REPLAY_WINDOW}",
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
    /// The AEAD check failed: the frame was modified, forged, or sealed
    /// under another key.
    #[error("tampered: the frame failed authentication")]
    Tampered,
    /// An authentic frame whose counter was already accepted.
    #[error("replayed: counter already seen")]
    Replayed,
    /// An authentic frame whose counter is left of the replay window.
    #[error("too old: counter left of the replay window")]
    TooOld,
    /// A frame under a key that re-keying retired.
    #[error("stale key: sealed under a retired key")]
    StaleKey,
    /// Too short for a header and a tag, or an epoch out of reach.
    #[error("malformed: too short or bad header")]
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

/// Why a handshake failed. Every variant but `OutOfTurn` ends the
/// handshake: a new one must be started.
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
    /// Dropped: failed authentication.
    pub tampered: u64,
    /// Dropped: counter already seen.
    pub replayed: u64,
    /// Dropped: counter left of the window.
    pub too_old: u64,
    /// Dropped: sealed under a retired key.
    pub stale_key: u64,
    /// Dropped: too short or bad header.
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
        }
    }
}

// ---------------------------------------------------------------------
// Handshake
// ---------------------------------------------------------------------

/// 32 bytes to seed a handshake's ephemeral keys in simulation: the first
/// draws of the named stream `name` of the run seeded with `seed`. Give
/// every handshake its own name (e.g. `ucl.handshake.<node>.<n>`).
pub fn ephemeral_seed(seed: u64, name: &str) -> [u8; 32] {
    let mut s = [0u8; 32];
    crate::rng::stream(seed, name).fill_bytes(&mut s);
    s
}

/// `snow`'s default primitives, with a seeded ChaCha20 generator in place
/// of the OS's randomness.
struct SeededResolver {
    seed: [u8; 32],
}

struct SeededRandom(ChaCha20Rng);

impl Random for SeededRandom {
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), snow::Error> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoResolver for SeededResolver {
    fn resolve_rng(&self) -> Option<Box<dyn Random>> {
        Some(Box::new(SeededRandom(ChaCha20Rng::from_seed(self.seed))))
    }
    fn resolve_dh(&self, choice: &DHChoice) -> Option<Box<dyn Dh>> {
        DefaultResolver.resolve_dh(choice)
    }
    fn resolve_hash(&self, choice: &HashChoice) -> Option<Box<dyn Hash>> {
        DefaultResolver.resolve_hash(choice)
    }
    fn resolve_cipher(&self, choice: &CipherChoice) -> Option<Box<dyn Cipher>> {
        DefaultResolver.resolve_cipher(choice)
    }
}

/// Which side of the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Role {
    /// Sends the first message (the wireless host).
    Initiator,
    /// Answers it (the base station).
    Responder,
}

enum HsState {
    Running(Box<snow::HandshakeState>),
    Failed(HandshakeError),
}

/// One side of a Noise XX handshake, sans-IO.
///
/// Drive it with [`Handshake::poll_transmit`] (the next message to send,
/// if it is this side's turn) and [`Handshake::handle_message`] (a message
/// from the peer) until [`Handshake::is_finished`], then turn it into a
/// [`Session`] with [`Handshake::finish`]. Any error but `OutOfTurn` is
/// final; retransmitting lost messages and timing out are the caller's.
pub struct Handshake {
    role: Role,
    state: HsState,
    trusted: TrustedPeers,
    config: SecConfig,
    step: usize,
    peer: Option<PublicKey>,
}

impl std::fmt::Debug for Handshake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handshake")
            .field("role", &self.role)
            .field("step", &self.step)
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
}

impl Handshake {
    /// The initiator's side: `me` proves its identity, accepts only a
    /// responder in `trusted`; its ephemeral key comes from `seed`.
    pub fn initiator(
        me: &Identity,
        trusted: TrustedPeers,
        seed: [u8; 32],
        config: SecConfig,
    ) -> Result<Handshake, HandshakeError> {
        Handshake::new(Role::Initiator, me, trusted, seed, config)
    }

    /// The responder's side (see [`Handshake::initiator`]).
    pub fn responder(
        me: &Identity,
        trusted: TrustedPeers,
        seed: [u8; 32],
        config: SecConfig,
    ) -> Result<Handshake, HandshakeError> {
        Handshake::new(Role::Responder, me, trusted, seed, config)
    }

    fn new(
        role: Role,
        me: &Identity,
        trusted: TrustedPeers,
        seed: [u8; 32],
        config: SecConfig,
    ) -> Result<Handshake, HandshakeError> {
        Handshake::with_resolver(role, me, trusted, Box::new(SeededResolver { seed }), config)
    }

    /// A handshake whose primitives come from `resolver` (tests plug in a
    /// misbehaving peer this way).
    fn with_resolver(
        role: Role,
        me: &Identity,
        trusted: TrustedPeers,
        resolver: snow::resolvers::BoxedCryptoResolver,
        config: SecConfig,
    ) -> Result<Handshake, HandshakeError> {
        config.validate().map_err(HandshakeError::Setup)?;
        let setup = |e: snow::Error| HandshakeError::Setup(e.to_string());
        let params = NOISE_PARAMS.parse().map_err(setup)?;
        let builder = snow::Builder::with_resolver(params, resolver)
            .prologue(PROLOGUE)
            .map_err(setup)?
            .local_private_key(me.private())
            .map_err(setup)?;
        let hs = match role {
            Role::Initiator => builder.build_initiator(),
            Role::Responder => builder.build_responder(),
        }
        .map_err(setup)?;
        Ok(Handshake {
            role,
            state: HsState::Running(Box::new(hs)),
            trusted,
            config,
            step: 0,
            peer: None,
        })
    }

    /// This side's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The peer's static key, once the handshake has authenticated it.
    pub fn peer(&self) -> Option<PublicKey> {
        self.peer
    }

    /// Whether both sides have sent and received everything.
    pub fn is_finished(&self) -> bool {
        matches!(&self.state, HsState::Running(hs) if hs.is_handshake_finished())
    }

    /// The error that ended the handshake, if one did.
    pub fn error(&self) -> Option<&HandshakeError> {
        match &self.state {
            HsState::Failed(e) => Some(e),
            HsState::Running(_) => None,
        }
    }

    /// The next message to send, if it is this side's turn.
    #[must_use = "the message must be sent to the peer"]
    pub fn poll_transmit(&mut self) -> Result<Option<Vec<u8>>, HandshakeError> {
        let hs = match &mut self.state {
            HsState::Failed(e) => return Err(HandshakeError::Failed(Box::new(e.clone()))),
            HsState::Running(hs) => hs,
        };
        if hs.is_handshake_finished() || !hs.is_my_turn() {
            return Ok(None);
        }
        let mut buf = [0u8; 128];
        match hs.write_message(&[], &mut buf) {
            Ok(n) => {
                self.step += 1;
                Ok(Some(buf[..n].to_vec()))
            }
            Err(e) => Err(self.fail(HandshakeError::Setup(e.to_string()))),
        }
    }

    /// Takes a message from the peer.
    pub fn handle_message(&mut self, msg: &[u8]) -> Result<(), HandshakeError> {
        let hs = match &mut self.state {
            HsState::Failed(e) => return Err(HandshakeError::Failed(Box::new(e.clone()))),
            HsState::Running(hs) => hs,
        };
        if hs.is_handshake_finished() || hs.is_my_turn() {
            return Err(HandshakeError::OutOfTurn);
        }
        let step = self.step + 1;
        let expected = HANDSHAKE_MSG_LENS[self.step];
        if msg.len() != expected {
            let len = msg.len();
            return Err(self.fail(HandshakeError::Malformed {
                step,
                len,
                expected,
            }));
        }
        let mut buf = [0u8; 128];
        if hs.read_message(msg, &mut buf).is_err() {
            return Err(self.fail(HandshakeError::Crypto { step }));
        }
        self.step = step;
        if self.peer.is_none() {
            if let Some(rs) = hs.get_remote_static() {
                let mut key = [0u8; KEY_LEN];
                key.copy_from_slice(&rs[..KEY_LEN]);
                let key = PublicKey(key);
                if !self.trusted.contains(&key) {
                    return Err(self.fail(HandshakeError::UnauthenticatedPeer { key }));
                }
                self.peer = Some(key);
            }
        }
        Ok(())
    }

    fn fail(&mut self, e: HandshakeError) -> HandshakeError {
        self.state = HsState::Failed(e.clone());
        e
    }

    /// The session the finished handshake established.
    pub fn finish(self) -> Result<Session, HandshakeError> {
        let mut hs = match self.state {
            HsState::Failed(e) => return Err(HandshakeError::Failed(Box::new(e))),
            HsState::Running(hs) => hs,
        };
        let peer = match self.peer {
            Some(p) if hs.is_handshake_finished() => p,
            _ => return Err(HandshakeError::NotFinished),
        };
        // Noise's Split(): the first key seals initiator -> responder.
        let (i_to_r, r_to_i) = hs.dangerously_get_raw_split();
        let (tx, rx) = match self.role {
            Role::Initiator => (i_to_r, r_to_i),
            Role::Responder => (r_to_i, i_to_r),
        };
        Ok(Session::new(peer, tx, rx, self.config))
    }
}

// ---------------------------------------------------------------------
// Session
// ---------------------------------------------------------------------

/// The next key of a direction's chain.
fn next_key(key: &[u8; 32]) -> [u8; 32] {
    let hk = Hkdf::<Sha256>::new(Some(b"xltcp-ucl-rekey"), key);
    let mut out = [0u8; 32];
    hk.expand(b"next key", &mut out)
        .expect("32 bytes is a valid HKDF-SHA256 output length");
    out
}

fn cipher_of(key: &[u8; 32]) -> ChaCha20Poly1305 {
    ChaCha20Poly1305::new(Key::from_slice(key))
}

/// A direction's current key.
struct DirKey {
    epoch: u32,
    key: [u8; 32],
    cipher: ChaCha20Poly1305,
}

impl DirKey {
    fn new(epoch: u32, key: [u8; 32]) -> DirKey {
        DirKey {
            epoch,
            cipher: cipher_of(&key),
            key,
        }
    }

    /// This key moved `n` epochs forward.
    fn ahead(&self, n: u32) -> DirKey {
        let mut key = self.key;
        for _ in 0..n {
            key = next_key(&key);
        }
        DirKey::new(self.epoch + n, key)
    }
}

/// A retired receiving key in its grace.
struct Retired {
    epoch: u32,
    cipher: ChaCha20Poly1305,
    grace_left: u32,
}

/// Which counters were accepted among the last `window` ones: slot `c %
/// window` holds the last accepted counter with that residue. A counter
/// `c` inside the window was seen iff its slot holds `c` (a larger
/// counter with the same residue would lie right of the highest one).
struct ReplayWindow {
    top: Option<u64>,
    slots: Vec<Option<u64>>,
}

impl ReplayWindow {
    fn new(size: u32) -> ReplayWindow {
        ReplayWindow {
            top: None,
            slots: vec![None; size as usize],
        }
    }

    fn slot(&self, c: u64) -> usize {
        (c % self.slots.len() as u64) as usize
    }

    fn check(&self, c: u64) -> Result<(), DropReason> {
        match self.top {
            Some(top) if c <= top => {
                if top - c >= self.slots.len() as u64 {
                    Err(DropReason::TooOld)
                } else if self.slots[self.slot(c)] == Some(c) {
                    Err(DropReason::Replayed)
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    fn mark(&mut self, c: u64) {
        let s = self.slot(c);
        self.slots[s] = Some(c);
        self.top = Some(self.top.map_or(c, |t| t.max(c)));
    }
}

/// An established secure link with one peer: seals outgoing frames, opens
/// incoming ones. Deterministic: the same session state and frames give
/// the same bytes and verdicts.
pub struct Session {
    config: SecConfig,
    peer: PublicKey,
    tx: DirKey,
    tx_counter: u64,
    tx_in_epoch: u64,
    rx: DirKey,
    retired: Option<Retired>,
    window: ReplayWindow,
    stats: SecStats,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("peer", &self.peer)
            .field("tx_epoch", &self.tx.epoch)
            .field("rx_epoch", &self.rx.epoch)
            .field("tx_counter", &self.tx_counter)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Session {
    fn new(peer: PublicKey, tx: [u8; 32], rx: [u8; 32], config: SecConfig) -> Session {
        Session {
            config,
            peer,
            tx: DirKey::new(0, tx),
            tx_counter: 0,
            tx_in_epoch: 0,
            rx: DirKey::new(0, rx),
            retired: None,
            window: ReplayWindow::new(config.replay_window),
            stats: SecStats {
                handshakes_done: 1,
                ..SecStats::default()
            },
        }
    }

    /// The authenticated peer's static key.
    pub fn peer(&self) -> PublicKey {
        self.peer
    }

    /// The knobs.
    pub fn config(&self) -> &SecConfig {
        &self.config
    }

    /// The epoch of the sending key.
    pub fn tx_epoch(&self) -> u32 {
        self.tx.epoch
    }

    /// The epoch of the receiving key.
    pub fn rx_epoch(&self) -> u32 {
        self.rx.epoch
    }

    /// The counters.
    pub fn stats(&self) -> SecStats {
        self.stats
    }

    /// Moves the sending key one epoch forward now (the peer follows with
    /// the first frame it receives under it, and moves its own).
    pub fn rekey(&mut self) -> Result<(), SealError> {
        if self.tx.epoch == u32::MAX {
            return Err(SealError::EpochExhausted);
        }
        self.tx = self.tx.ahead(1);
        self.tx_in_epoch = 0;
        self.stats.rekeys_tx += 1;
        Ok(())
    }

    /// Seals `payload` into a frame ([`sealed_len`] bytes; layout in the
    /// module doc), re-keying first if the current key has sealed its quota.
    pub fn seal(&mut self, payload: &[u8]) -> Result<Vec<u8>, SealError> {
        if self.tx_counter == u64::MAX {
            return Err(SealError::CounterExhausted);
        }
        if let Some(n) = self.config.rekey_after_frames {
            if self.tx_in_epoch >= n {
                self.rekey()?;
            }
        }
        let mut frame = Vec::with_capacity(sealed_len(payload.len()));
        frame.extend_from_slice(&self.tx.epoch.to_be_bytes());
        frame.extend_from_slice(&self.tx_counter.to_be_bytes());
        frame.extend_from_slice(payload);
        let (header, body) = frame.split_at_mut(HEADER_LEN);
        let tag = self
            .tx
            .cipher
            .encrypt_in_place_detached(Nonce::from_slice(header), header, body)
            .expect("ChaCha20-Poly1305 seals any frame shorter than 256 GiB");
        frame.extend_from_slice(&tag);
        self.tx_counter += 1;
        self.tx_in_epoch += 1;
        self.stats.sealed += 1;
        self.stats.sealed_bytes += payload.len() as u64;
        Ok(frame)
    }

    /// Opens a frame: its payload, or why it was dropped (counted).
    pub fn open(&mut self, frame: &[u8]) -> Result<Vec<u8>, DropReason> {
        let r = self.try_open(frame);
        if let Err(reason) = r {
            self.stats.count_drop(reason);
        }
        r
    }

    fn try_open(&mut self, frame: &[u8]) -> Result<Vec<u8>, DropReason> {
        if frame.len() < FRAME_OVERHEAD {
            return Err(DropReason::Malformed);
        }
        let (header, rest) = frame.split_at(HEADER_LEN);
        let (body, tag) = rest.split_at(rest.len() - TAG_LEN);
        let epoch = u32::from_be_bytes(header[..4].try_into().expect("4 bytes"));
        let counter = u64::from_be_bytes(header[4..].try_into().expect("8 bytes"));

        // Step 2: the key the epoch names.
        enum Which {
            Current,
            Retired,
            Ahead(DirKey),
        }
        let which = if epoch == self.rx.epoch {
            Which::Current
        } else if epoch < self.rx.epoch {
            match &self.retired {
                Some(r) if r.epoch == epoch => Which::Retired,
                _ => return Err(DropReason::StaleKey),
            }
        } else if epoch - self.rx.epoch <= MAX_EPOCH_AHEAD {
            Which::Ahead(self.rx.ahead(epoch - self.rx.epoch))
        } else {
            return Err(DropReason::Malformed);
        };
        let cipher = match &which {
            Which::Current => &self.rx.cipher,
            Which::Retired => &self.retired.as_ref().expect("matched above").cipher,
            Which::Ahead(k) => &k.cipher,
        };

        // Step 3: authenticity.
        let mut payload = body.to_vec();
        cipher
            .decrypt_in_place_detached(
                Nonce::from_slice(header),
                header,
                &mut payload,
                Tag::from_slice(tag),
            )
            .map_err(|_| DropReason::Tampered)?;

        // Step 4: replay.
        self.window.check(counter)?;

        // Step 5: deliver.
        self.window.mark(counter);
        self.stats.opened += 1;
        match which {
            Which::Current => {
                if let Some(r) = &mut self.retired {
                    r.grace_left -= 1;
                    if r.grace_left == 0 {
                        self.retired = None;
                    }
                }
            }
            Which::Retired => self.stats.opened_in_grace += 1,
            Which::Ahead(new) => self.adopt(new),
        }
        Ok(payload)
    }

    /// Adopts the peer's new sending epoch: retires the current receiving
    /// key (into its grace, or forgets it) and moves the own sending key to
    /// at least that epoch.
    fn adopt(&mut self, new: DirKey) {
        let grace = self.config.rekey_grace_frames;
        let epoch = new.epoch;
        // Frames in flight were sealed under the key we last received under.
        let old = std::mem::replace(&mut self.rx, new);
        self.retired = (grace > 0).then(|| Retired {
            epoch: old.epoch,
            cipher: old.cipher,
            grace_left: grace,
        });
        self.stats.rekeys_rx += 1;
        if self.tx.epoch < epoch {
            self.tx = self.tx.ahead(epoch - self.tx.epoch);
            self.tx_in_epoch = 0;
            self.stats.rekeys_tx += 1;
        }
    }
}

// ---------------------------------------------------------------------
// The endpoint
// ---------------------------------------------------------------------

enum LinkState {
    Handshaking(Handshake),
    Up(Session),
    Failed(HandshakeError),
}

/// One end of a secured link, from the first handshake message to the
/// last frame: what a UCL agent holds. Frames that come before the session
/// is up are dropped as [`DropReason::NotAuthenticated`]; a failed
/// handshake leaves the link down (start a new one with
/// [`SecureLink::new`]).
pub struct SecureLink {
    state: LinkState,
    /// Counters of what happened before the session (drops, failures).
    pre: SecStats,
}

impl std::fmt::Debug for SecureLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            LinkState::Handshaking(_) => "handshaking",
            LinkState::Up(_) => "up",
            LinkState::Failed(_) => "failed",
        };
        f.debug_struct("SecureLink")
            .field("state", &state)
            .field("stats", &self.stats())
            .finish()
    }
}

impl SecureLink {
    /// A link that starts with `handshake`.
    pub fn new(handshake: Handshake) -> SecureLink {
        SecureLink {
            state: LinkState::Handshaking(handshake),
            pre: SecStats::default(),
        }
    }

    /// Whether the session is up.
    pub fn is_up(&self) -> bool {
        matches!(self.state, LinkState::Up(_))
    }

    /// The error that failed the handshake, if one did.
    pub fn failure(&self) -> Option<&HandshakeError> {
        match &self.state {
            LinkState::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// The session, once up.
    pub fn session(&self) -> Option<&Session> {
        match &self.state {
            LinkState::Up(s) => Some(s),
            _ => None,
        }
    }

    /// The session, once up (to re-key on demand).
    pub fn session_mut(&mut self) -> Option<&mut Session> {
        match &mut self.state {
            LinkState::Up(s) => Some(s),
            _ => None,
        }
    }

    /// The next handshake message to send, if any.
    #[must_use = "the message must be sent to the peer"]
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        let hs = match &mut self.state {
            LinkState::Handshaking(hs) => hs,
            _ => return None,
        };
        let r = hs.poll_transmit();
        let out = self.settle(r);
        self.try_finish();
        out.flatten()
    }

    /// Takes a handshake message from the peer. Once the link is up or
    /// failed, messages are refused with `OutOfTurn` (not counted).
    pub fn handle_handshake(&mut self, msg: &[u8]) -> Result<(), HandshakeError> {
        let hs = match &mut self.state {
            LinkState::Handshaking(hs) => hs,
            _ => return Err(HandshakeError::OutOfTurn),
        };
        let r = hs.handle_message(msg);
        let err = r.as_ref().err().cloned();
        self.settle(r);
        self.try_finish();
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Records a handshake error that ended the handshake.
    fn settle<T>(&mut self, r: Result<T, HandshakeError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(HandshakeError::OutOfTurn) => None,
            Err(e) => {
                self.pre.handshakes_failed += 1;
                self.state = LinkState::Failed(e);
                None
            }
        }
    }

    fn try_finish(&mut self) {
        if !matches!(&self.state, LinkState::Handshaking(hs) if hs.is_finished()) {
            return;
        }
        let LinkState::Handshaking(hs) = std::mem::replace(
            &mut self.state,
            LinkState::Failed(HandshakeError::NotFinished),
        ) else {
            unreachable!("checked above");
        };
        self.state = match hs.finish() {
            Ok(s) => LinkState::Up(s),
            Err(e) => {
                self.pre.handshakes_failed += 1;
                LinkState::Failed(e)
            }
        };
    }

    /// Seals a frame, or refuses before the session is up.
    pub fn seal(&mut self, payload: &[u8]) -> Result<Vec<u8>, SealError> {
        match &mut self.state {
            LinkState::Up(s) => s.seal(payload),
            _ => Err(SealError::NotAuthenticated),
        }
    }

    /// Opens a frame; before the session is up, every frame is dropped as
    /// `NotAuthenticated`.
    pub fn open(&mut self, frame: &[u8]) -> Result<Vec<u8>, DropReason> {
        match &mut self.state {
            LinkState::Up(s) => s.open(frame),
            _ => {
                self.pre.count_drop(DropReason::NotAuthenticated);
                Err(DropReason::NotAuthenticated)
            }
        }
    }

    /// All counters of the link (before and during the session).
    pub fn stats(&self) -> SecStats {
        match &self.state {
            LinkState::Up(s) => self.pre.plus(&s.stats()),
            _ => self.pre,
        }
    }
}
