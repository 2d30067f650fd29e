//! The UCL's link security in the simulator: the [`security`] module's
//! handshake and sealed frames carried over the simulated hops by the UCL
//! pair (`[[agent]] scheme = "ucl"`, `security = "on"`).
//!
//! # What crosses the air
//!
//! The simulator's packets hold header fields, not bytes. With security on,
//! the bytes a radio would carry travel beside the packet in the pair's
//! [`Air`] (one per run, shared by the BS half and the host halves), under
//! a handle the packet carries in [`PacketMeta::link_frame`]:
//!
//! - **Handshake messages** (Noise XX, three messages, the host initiates
//!   at time zero) go as control frames of their own: a packet with no TCP
//!   header fields set and the message's length as payload, so its airtime
//!   is that of a 40-byte header plus the message.
//! - **Data**: each packet leaving the UCL is serialised to its real IPv4
//!   bytes ([`crate::wire::emit`]), sealed (ChaCha20-Poly1305, 28 bytes of
//!   header and tag), and the hop charges the sealed frame's length
//!   ([`PacketMeta::link_overhead`], [`Packet::air_len`]). The receiving
//!   half opens the very bytes that were sealed and checks that they equal
//!   the packet's own bytes before passing it on; a failure is a drop with
//!   its reason.
//!
//! # Handshake attempts, resends and back-off
//!
//! A message that waits for an answer is sent again when none came within
//! the wait, which starts at `handshake_timeout` (100 ms) and doubles at
//! every resend up to `handshake_backoff_max` (5 s); an answer resets it.
//! Resends alternate over the interfaces. A handshake message that fails
//! its checks (modified or forged on the air) is refused and counted
//! (`handshake_rejected`), and the handshake waits on: the genuine message,
//! sent again, completes it. A tampered first message cannot be told from
//! a genuine one (it is an ephemeral key, which anyone may send): the BS
//! answers it, the host refuses the answer and sends its first message
//! again, and the BS starts over on that.
//!
//! An attempt ends without a session after `handshake_tries` messages
//! without an answer, or when the peer's static key is not trusted
//! (`handshakes_failed`, `handshake_timeouts`); the host then starts a new
//! attempt with fresh ephemeral keys, once the wait has passed
//! (`handshake_retries`), for as long as the run lasts. The BS forgets an
//! attempt that failed and takes the next first message.
//!
//! The host's side is up once it sent message 3, which nothing answers; the
//! first frame it opens from the BS confirms that the BS has the session.
//! Until then the host sends message 3 again at each wait (the BS ignores a
//! copy once it is up), and after `handshake_tries` of them starts a new
//! attempt while it keeps sealing under the unconfirmed session. A BS that
//! is up takes a new first message as a new handshake beside its session
//! and moves to the new session when it completes; each side keeps the
//! session it left for `rekey_grace` frames, to open frames in flight.
//! (Frames sealed under a new session that overtake its message 3 on the
//! way to the BS find no key there: they are dropped as `tampered`.)
//!
//! TCP waits for the link: packets leaving a node before its side of the
//! handshake finished are held (at most `max_held`, then dropped as
//! `held_overflow`) and sent, sealed, when it is up. Only a link that can
//! never come up (its key files or the OS's randomness failed) drops every
//! packet (`link_down`).
//!
//! Frames the receiving half cannot open are dropped by reason
//! ([`crate::schemes::ucl::security::DropReason`]: tampered, replayed, too
//! old for the replay window, stale key, malformed, not authenticated),
//! plus `mismatch` (opened, but not the packet's bytes) and
//! `frame_missing` (the handle left the [`Air`]'s bound). TCP recovers
//! from these drops as from any loss. The replay window holds 8192
//! counters unless `replay_window` says otherwise: the UCL's own
//! reordering across interfaces never makes a genuine frame too old.
//!
//! # Tampering and the adversary (tests and experiments)
//!
//! Each `ucl` entry sets what its own node's frames suffer on the air (the
//! BS entry the frames the BS sends, the hosts' entry the frames each host
//! sends):
//!
//! - `tamper_every = N` flips one byte of every Nth frame the node puts on
//!   the air, handshake messages included (the byte and its mask from the
//!   node's stream `ucl.tamper.<node>`); the count is `tampered_on_air`. At
//!   the receiver a tampered data frame is always `tampered`, never
//!   delivered, never another reason (see [`DropReason::Tampered`]); a
//!   tampered handshake message is refused (`handshake_rejected`).
//! - `adversary` with `adversary_every = N` (default 10): an attacker on
//!   the air acting on every Nth sealed data frame the node sends, or on
//!   every Nth handshake message: `"replay"` sends again a copy of the
//!   node's latest frame the peer delivered (dropped as `replayed`, or
//!   `too_old`); `"inject"` sends a forged frame (a copy of the frame's
//!   header with random bytes after it: `tampered`, or `not_authenticated`
//!   before the session); `"reflect"` sends the frame back to the node
//!   that sealed it (sealed under the other direction's key: `tampered`);
//!   `"drop_handshake"` removes the handshake message from the air (the
//!   resends recover it). The count is `adversary_on_air`.
//!
//! The air knows which frames it altered or made: the receiving half counts
//! those that reached it (`altered_received`, `altered_handshake_received`)
//! and, were one ever delivered, `altered_delivered` (a security failure;
//! the tests require 0). Both options work on real datagrams too (the
//! emulator): the adversary's frames carry the datagram of the frame they
//! copy, which no host ever gets since the frame does not open.
//!
//! # Ephemeral keys
//!
//! The simulator draws each handshake's ephemeral keys from the run's seed
//! (a named stream a node and attempt): the same seed gives the same
//! session keys, and runs are reproducible. An engine that carries real
//! datagrams (the emulator) hands the pair's air an OS random source
//! ([`Air::with_entropy`]): its ephemeral keys come from the OS unless the
//! entry says `seeded_keys = true`. `summary.json` says which
//! (`ephemeral_keys`: `"seeded"` or `"os"`).
//!
//! # Real datagrams (the emulator)
//!
//! An engine that carries real datagrams (the emulator) builds the pair's
//! air with [`Air::carrying_real_bytes`] and hands the agents the real
//! bytes: before a packet meets the UCL where it seals ([`Tap::HostOut`],
//! [`Tap::BsDown`]) the engine stages its datagram ([`Air::stage`], by the
//! packet's uid); the UCL seals those bytes instead of the packet's
//! serialisation, keeps the plaintext beside the sealed frame (a resend on
//! another interface seals it again), and on opening a frame leaves the
//! plaintext for the engine ([`Air::take_opened`], by uid), which writes
//! that, and nothing else, to the receiving host. An opened frame must
//! name the packet's addresses and IP identification (else `mismatch`).
//!
//! [`Tap::HostOut`]: crate::schemes::Tap::HostOut
//! [`Tap::BsDown`]: crate::schemes::Tap::BsDown
//!
//! The CPU time of sealing and opening ([`CpuCost::MEASURED`], 4-7 us a
//! frame) is not charged: it is below one 54 Mbit/s frame's airtime and
//! overlaps the radio's.
//!
//! The UCL must be the last agent of its node (agents after it would
//! change packets it has sealed).
//!
//! [`security`]: super::security
//! [`CpuCost::MEASURED`]: super::security::CpuCost::MEASURED
//! [`DropReason::Tampered`]: super::security::DropReason::Tampered
//! [`PacketMeta::link_frame`]: crate::wire::PacketMeta::link_frame
//! [`PacketMeta::link_overhead`]: crate::wire::PacketMeta::link_overhead

use super::security::{Identity, SecConfig, TrustedPeers, FRAME_OVERHEAD};
use crate::rng::{stream, Rng};
use crate::time::{Dur, Time};
use crate::wire::Packet;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

mod air;
mod frames;
mod guard;
mod handshake;
mod stats;

use air::Direction;
pub use air::{Air, Entropy};
use guard::{Ephemeral, Guard};
pub use stats::UclSecStats;

/// Where the nodes' identities come from.
#[derive(Clone, Debug, PartialEq)]
pub enum KeySource {
    /// `keys = "seed"`: generated from the run's seed
    /// ([`Identity::generate`]: `bs`, `host<h>`); the BS trusts every host's
    /// and each host the BS's.
    Seed,
    /// `identity` and `trusted`: an identity file and a trusted-peers file
    /// (format in [`super::security::keys`]); at `at = "hosts"` every host
    /// uses the same identity.
    Files {
        /// The node's private key file (resolved against the scenario's
        /// folder).
        identity: PathBuf,
        /// The public keys it accepts (resolved).
        trusted: PathBuf,
        /// The two files as the scenario names them (for its echo).
        written: [String; 2],
    },
}

/// What the adversary on the air does to a node's frames (`adversary`; see
/// the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adversary {
    /// `"replay"`: sends again a copy of the node's latest frame the peer
    /// delivered.
    Replay,
    /// `"inject"`: sends a forged frame beside the genuine one.
    Inject,
    /// `"reflect"`: sends the frame back to the node that sealed it.
    Reflect,
    /// `"drop_handshake"`: removes a handshake message from the air.
    DropHandshake,
}

impl Adversary {
    /// The name the scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Adversary::Replay => "replay",
            Adversary::Inject => "inject",
            Adversary::Reflect => "reflect",
            Adversary::DropHandshake => "drop_handshake",
        }
    }
}

/// `security = "on"` and its keys on a `ucl` agent.
#[derive(Clone, Debug, PartialEq)]
pub struct SecuritySpec {
    /// `keys = "seed"` (default), or `identity` + `trusted` files.
    pub keys: KeySource,
    /// `replay_window` (default 8192), `rekey_frames` (default 2^20),
    /// `rekey_grace` (default 8192, the window's size).
    pub session: SecConfig,
    /// `rekey_bytes`: re-key a direction after this many payload bytes
    /// sealed under one key (default: none).
    pub rekey_bytes: Option<u64>,
    /// `handshake_timeout` (default 100 ms): the first wait for an answer
    /// before a handshake message is sent again; it doubles at each resend.
    pub handshake_timeout: Dur,
    /// `handshake_backoff_max` (default 5 s): the longest the wait grows.
    pub handshake_backoff_max: Dur,
    /// `handshake_tries` (default 8): messages an attempt sends without an
    /// answer before the host starts a new attempt.
    pub handshake_tries: u32,
    /// `max_held` (default 1000): packets held while the handshake runs.
    pub max_held: u32,
    /// `tamper_every` (default 0: never): flip a byte of every Nth frame
    /// this node puts on the air, handshake messages included.
    pub tamper_every: u64,
    /// `adversary` (default none): what an attacker on the air does to
    /// this node's frames.
    pub adversary: Option<Adversary>,
    /// `adversary_every` (default 10): the attacker acts on every Nth
    /// frame (data frames; handshake messages for `drop_handshake`).
    pub adversary_every: u64,
    /// `seeded_keys` (default false): an engine with an OS random source
    /// (the emulator) still draws the ephemeral keys from the run's seed.
    /// The simulator always does.
    pub seeded_keys: bool,
}

impl Default for SecuritySpec {
    fn default() -> SecuritySpec {
        SecuritySpec {
            keys: KeySource::Seed,
            session: SecConfig::default(),
            rekey_bytes: None,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            handshake_backoff_max: HANDSHAKE_BACKOFF_MAX,
            handshake_tries: 8,
            max_held: 1000,
            tamper_every: 0,
            adversary: None,
            adversary_every: 10,
            seeded_keys: false,
        }
    }
}

/// The first wait for a handshake answer (`handshake_timeout`'s default).
pub const HANDSHAKE_TIMEOUT: Dur = Dur::from_millis(100);
/// The longest wait the back-off reaches (`handshake_backoff_max`'s
/// default).
pub const HANDSHAKE_BACKOFF_MAX: Dur = Dur::from_secs(5);

/// Most frames the [`Air`] keeps; older ones are forgotten (counted).
pub const AIR_FRAMES_MAX: usize = 8192;

/// The high bit of a handle marks a handshake (control) frame; the
/// others number frames from 1, wrapping long after the frame they named
/// left the [`Air`].
pub const CONTROL: u32 = 1 << 31;

/// Most handshake errors kept in [`UclSecStats::errors`].
pub const ERRORS_MAX: usize = 16;

/// A frame received, as the UCL acts on it.
pub(super) enum Inbound {
    /// A handshake message, consumed.
    Control,
    /// An authentic frame: pass the packet on.
    Open,
    /// Dropped for this reason.
    Drop(&'static str),
}

/// The security of one UCL node: its guards (one per link) and the air.
#[derive(Debug)]
pub(super) struct Sec {
    spec: SecuritySpec,
    air: Air,
    pub(super) guards: Vec<Guard>,
    /// Control frames (handshake messages) and the adversary's frames for
    /// the engine to send.
    pub(super) outbox: VecDeque<Packet>,
    ifaces: u8,
    /// The BS's side (else a host's, `host`).
    at_bs: bool,
    host: u32,
    /// Frames this node put on the air (`tamper_every` counts them), its
    /// sealed data frames and its handshake messages (the adversary's).
    frames_out: u64,
    data_out: u64,
    handshakes_out: u64,
    /// The node's stream for tampering and forging.
    rng: Rng,
}

fn load_files(identity: &Path, trusted: &Path) -> Result<(Identity, TrustedPeers), String> {
    let me = Identity::load(identity).map_err(|e| e.to_string())?;
    let peers = TrustedPeers::load(trusted).map_err(|e| e.to_string())?;
    Ok((me, peers))
}

impl Sec {
    fn new(
        spec: SecuritySpec,
        air: Air,
        guards: Vec<Guard>,
        ifaces: u8,
        at: Option<u32>,
        seed: u64,
    ) -> Sec {
        let node = at.map_or("bs".to_string(), |h| format!("host{h}"));
        Sec {
            spec,
            air,
            guards,
            outbox: VecDeque::new(),
            ifaces,
            at_bs: at.is_none(),
            host: at.unwrap_or(0),
            frames_out: 0,
            data_out: 0,
            handshakes_out: 0,
            rng: stream(seed, &format!("ucl.tamper.{node}")),
        }
    }

    /// Where guard ephemeral keys come from: the air's OS source unless
    /// the entry asks for seeded keys.
    fn ephemeral(spec: &SecuritySpec, air: &Air, seed: u64, name: String) -> Ephemeral {
        match air.entropy() {
            Some(e) if !spec.seeded_keys => Ephemeral::Os(e),
            _ => Ephemeral::Seeded { seed, name },
        }
    }

    /// The BS's side: one guard per host (`hosts`), `flow_of[h]` a flow of
    /// host `h`.
    pub(super) fn at_bs(
        spec: SecuritySpec,
        air: Air,
        seed: u64,
        flow_of: &[Option<u32>],
        ifaces: u8,
    ) -> Sec {
        let guards = flow_of
            .iter()
            .enumerate()
            .map(|(h, &flow)| {
                let keys = match &spec.keys {
                    KeySource::Seed => {
                        let mut peers = TrustedPeers::new();
                        for k in 0..flow_of.len() {
                            let host = Identity::generate(seed, &format!("host{k}"));
                            peers.insert(host.public(), host.name());
                        }
                        Ok((Identity::generate(seed, "bs"), peers))
                    }
                    KeySource::Files {
                        identity, trusted, ..
                    } => load_files(identity, trusted),
                };
                let name = format!("ucl.handshake.bs.{h}");
                let eph = Sec::ephemeral(&spec, &air, seed, name);
                Guard::new(format!("bs/host{h}"), false, flow, keys, eph, &spec)
            })
            .collect();
        Sec::new(spec, air, guards, ifaces, None, seed)
    }

    /// Host `h`'s side; `flow` one of its flows.
    pub(super) fn at_host(
        spec: SecuritySpec,
        air: Air,
        seed: u64,
        h: u32,
        flow: Option<u32>,
        ifaces: u8,
    ) -> Sec {
        let keys = match &spec.keys {
            KeySource::Seed => {
                let bs = Identity::generate(seed, "bs");
                let me = Identity::generate(seed, &format!("host{h}"));
                Ok((me, TrustedPeers::new().with(&bs)))
            }
            KeySource::Files {
                identity, trusted, ..
            } => load_files(identity, trusted),
        };
        let name = format!("ucl.handshake.host{h}");
        let eph = Sec::ephemeral(&spec, &air, seed, name);
        let guard = Guard::new(format!("host{h}"), true, flow, keys, eph, &spec);
        Sec::new(spec, air, vec![guard], ifaces, Some(h), seed)
    }

    /// The direction of guard `i`'s frames (`out`) or of those it receives.
    fn direction(&self, i: usize, out: bool) -> Direction {
        let host = if self.at_bs { i as u32 } else { self.host };
        (self.at_bs == out, host)
    }

    /// The next time a guard needs `on_timeout`.
    pub(super) fn poll_timeout(&self) -> Option<Time> {
        self.guards
            .iter()
            .filter_map(|g| {
                if g.initiator && !g.started && !g.failed() {
                    Some(Time::ZERO)
                } else {
                    g.resend_at
                }
            })
            .min()
    }

    /// Guard `i` came up: records when, and hands back what it held.
    pub(super) fn came_up(&mut self, now: Time, i: usize) -> VecDeque<Packet> {
        let g = &mut self.guards[i];
        if g.up {
            return VecDeque::new();
        }
        g.up = true;
        g.stats.link_up_s = Some(now.as_secs_f64());
        std::mem::take(&mut g.held)
    }

    /// Packets held for the handshake.
    pub(super) fn held(&self) -> u64 {
        self.guards.iter().map(|g| g.held.len() as u64).sum()
    }

    /// The counters of every guard.
    pub(super) fn stats(&self) -> UclSecStats {
        let mut s = UclSecStats::default();
        for g in &self.guards {
            s.merge(&g.stats());
        }
        s
    }
}

/// Bytes the UCL's security adds to a frame.
pub const OVERHEAD: u32 = FRAME_OVERHEAD as u32;

#[cfg(test)]
mod tests;
