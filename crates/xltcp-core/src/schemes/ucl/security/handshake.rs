//! The Noise XX handshake, sans-IO, with seeded ephemeral keys.

use rand::rngs::ChaCha20Rng;
use rand::{Rng as _, SeedableRng};
use serde::Serialize;
use snow::params::{CipherChoice, DHChoice, HashChoice};
use snow::resolvers::{CryptoResolver, DefaultResolver};
use snow::types::{Cipher, Dh, Hash, Random};

use super::{
    HandshakeError, Identity, PublicKey, SecConfig, Session, TrustedPeers, HANDSHAKE_MSG_LENS,
    KEY_LEN, NOISE_PARAMS, PROLOGUE,
};

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
pub(super) struct SeededResolver {
    pub(super) seed: [u8; 32],
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

/// Builds the `snow` primitives of a handshake, the same each call (so a
/// handshake can be built again and replayed; see [`Handshake`]).
pub(super) type MakeResolver = Box<dyn Fn() -> snow::resolvers::BoxedCryptoResolver + Send + Sync>;

/// One side of a Noise XX handshake, sans-IO.
///
/// Drive it with [`Handshake::poll_transmit`] (the next message to send,
/// if it is this side's turn) and [`Handshake::handle_message`] (a message
/// from the peer) until [`Handshake::is_finished`], then turn it into a
/// [`Session`] with [`Handshake::finish`]. A message that fails its checks
/// (`Crypto`, `Malformed`) or comes out of turn is refused and leaves the
/// handshake as it was, so the genuine message can still complete it; an
/// untrusted peer key is final. Retransmitting lost messages and timing
/// out are the caller's.
///
/// Undoing a refused message: `snow` restores its hash and chaining key
/// after a failed read, but not its cipher state (a read that failed after
/// a DH already moved the key), so the handshake is built again from its
/// seed and the messages it accepted, replayed: the seeded generator gives
/// the same ephemeral key, and so the same state, as before the refused
/// message.
pub struct Handshake {
    role: Role,
    state: HsState,
    me: Identity,
    make: MakeResolver,
    trusted: TrustedPeers,
    config: SecConfig,
    step: usize,
    peer: Option<PublicKey>,
    /// The messages read so far, in order (to replay).
    accepted: Vec<Vec<u8>>,
}

/// A fresh `snow` state for `role`, `me`'s static key, primitives from
/// `make`.
fn build(
    role: Role,
    me: &Identity,
    make: &MakeResolver,
) -> Result<snow::HandshakeState, HandshakeError> {
    let setup = |e: snow::Error| HandshakeError::Setup(e.to_string());
    let params = NOISE_PARAMS.parse().map_err(setup)?;
    let builder = snow::Builder::with_resolver(params, make())
        .prologue(PROLOGUE)
        .map_err(setup)?
        .local_private_key(me.private())
        .map_err(setup)?;
    match role {
        Role::Initiator => builder.build_initiator(),
        Role::Responder => builder.build_responder(),
    }
    .map_err(setup)
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
        let make: MakeResolver = Box::new(move || Box::new(SeededResolver { seed }));
        Handshake::with_resolver(role, me, trusted, make, config)
    }

    /// A handshake whose primitives come from `make` (tests plug in a
    /// misbehaving peer this way); `make` must give the same primitives,
    /// random generator included, every call.
    pub(super) fn with_resolver(
        role: Role,
        me: &Identity,
        trusted: TrustedPeers,
        make: MakeResolver,
        config: SecConfig,
    ) -> Result<Handshake, HandshakeError> {
        config.validate().map_err(HandshakeError::Setup)?;
        let hs = build(role, me, &make)?;
        Ok(Handshake {
            role,
            state: HsState::Running(Box::new(hs)),
            me: me.clone(),
            make,
            trusted,
            config,
            step: 0,
            peer: None,
            accepted: Vec::new(),
        })
    }

    /// The `snow` state again as it was before the refused message: built
    /// anew and the exchange so far replayed.
    fn rebuild(&mut self) -> Result<(), HandshakeError> {
        let mut hs = build(self.role, &self.me, &self.make)?;
        let mut read = self.accepted.iter();
        let mut buf = [0u8; 128];
        let setup = |e: snow::Error| HandshakeError::Setup(e.to_string());
        for _ in 0..self.step {
            if hs.is_my_turn() {
                hs.write_message(&[], &mut buf).map_err(setup)?;
            } else {
                let msg = read
                    .next()
                    .ok_or_else(|| HandshakeError::Setup("replay ran out of messages".into()))?;
                hs.read_message(msg, &mut buf).map_err(setup)?;
            }
        }
        self.state = HsState::Running(Box::new(hs));
        Ok(())
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

    /// Takes a message from the peer. `Crypto`, `Malformed` and
    /// `OutOfTurn` refuse it without changing the handshake.
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
            return Err(HandshakeError::Malformed {
                step,
                len: msg.len(),
                expected,
            });
        }
        let mut buf = [0u8; 128];
        if hs.read_message(msg, &mut buf).is_err() {
            // Undone: the handshake waits on for the genuine message.
            if let Err(e) = self.rebuild() {
                return Err(self.fail(e));
            }
            return Err(HandshakeError::Crypto { step });
        }
        self.accepted.push(msg.to_vec());
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
