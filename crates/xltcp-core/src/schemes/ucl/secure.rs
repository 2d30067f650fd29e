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

use super::security::{
    ephemeral_seed, DropReason, Handshake, Identity, SecConfig, SecStats, SecureLink, TrustedPeers,
    FRAME_OVERHEAD, HANDSHAKE_MSG_LENS,
};
use crate::rng::{stream, Rng};
use crate::time::{Dur, Time};
use crate::wire::{emit, Packet, PacketMeta, Segment};
use rand::{Rng as _, RngExt as _};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

/// A source of 32 random bytes for ephemeral keys: the OS's, in an engine
/// that has one (the core itself reads no OS randomness).
#[derive(Clone)]
pub struct Entropy(Arc<dyn Fn() -> Result<[u8; 32], String> + Send + Sync>);

impl Entropy {
    /// A source drawing from `f`.
    pub fn new(f: impl Fn() -> Result<[u8; 32], String> + Send + Sync + 'static) -> Entropy {
        Entropy(Arc::new(f))
    }

    fn draw(&self) -> Result<[u8; 32], String> {
        (self.0)()
    }
}

impl std::fmt::Debug for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Entropy")
    }
}

/// Where a frame on the air came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Sent by its node as sealed.
    Genuine,
    /// A byte flipped (`tamper_every`).
    Tampered,
    /// The adversary's copy, forgery or reflection.
    Adversary,
}

#[derive(Debug)]
struct AirFrame {
    bytes: Vec<u8>,
    origin: Origin,
    /// The adversary sends it back to its sender when it arrives.
    reflect: bool,
}

/// A direction of one link: from the BS (or from the host) of host `.1`.
type Direction = (bool, u32);

/// A data frame a node delivered: its packet, its bytes on the air, and
/// (with real bytes) the datagram it sealed.
#[derive(Clone, Debug)]
struct Delivered {
    packet: Packet,
    frame: Vec<u8>,
    plain: Option<Vec<u8>>,
}

#[derive(Debug)]
struct AirInner {
    frames: BTreeMap<u32, AirFrame>,
    order: VecDeque<u32>,
    next: u32,
    evicted: u64,
    /// Real datagrams (see the module doc), if the engine carries them.
    real: Option<RealBytes>,
    /// The OS's randomness, if the engine has it.
    entropy: Option<Entropy>,
    /// Each direction's latest delivered data frame, for the replay
    /// adversary.
    delivered: BTreeMap<Direction, Delivered>,
}

/// What an engine carrying real datagrams exchanges with the UCL through
/// its [`Air`]: each map holds at most [`AIR_FRAMES_MAX`] entries, the
/// oldest forgotten first (counted in `evicted`).
#[derive(Debug, Default)]
struct RealBytes {
    /// Datagrams staged for sealing, by packet uid.
    staged: BTreeMap<u64, Vec<u8>>,
    staged_order: VecDeque<u64>,
    /// The plaintext of each sealed data frame, by handle (kept and
    /// forgotten with the frame).
    plain: BTreeMap<u32, Vec<u8>>,
    /// Datagrams opened from authentic frames, by packet uid.
    opened: BTreeMap<u64, Vec<u8>>,
    opened_order: VecDeque<u64>,
}

/// Inserts into a bounded map with its insertion order; true if an old
/// entry had to go.
fn bounded_insert(
    map: &mut BTreeMap<u64, Vec<u8>>,
    order: &mut VecDeque<u64>,
    key: u64,
    bytes: Vec<u8>,
) -> bool {
    if map.insert(key, bytes).is_none() {
        order.push_back(key);
    }
    let mut evicted = false;
    while map.len() > AIR_FRAMES_MAX {
        match order.pop_front() {
            Some(old) => evicted |= map.remove(&old).is_some(),
            None => break,
        }
    }
    // Keys taken out of the map leave stale entries in the order; keep it
    // bounded too.
    if order.len() > 2 * AIR_FRAMES_MAX {
        order.retain(|k| map.contains_key(k));
    }
    evicted
}

/// The bytes on the air of one UCL pair (see the module doc): frames by
/// handle, the latest [`AIR_FRAMES_MAX`] kept.
#[derive(Clone, Debug)]
pub struct Air(Arc<Mutex<AirInner>>);

impl Default for Air {
    fn default() -> Air {
        Air::new()
    }
}

impl Air {
    /// An empty air.
    pub fn new() -> Air {
        Air(Arc::new(Mutex::new(AirInner {
            frames: BTreeMap::new(),
            order: VecDeque::new(),
            next: 1,
            evicted: 0,
            real: None,
            entropy: None,
            delivered: BTreeMap::new(),
        })))
    }

    /// As [`Air::new`], for an engine that carries real datagrams (see the
    /// module doc): the UCL seals the bytes staged with [`Air::stage`] and
    /// leaves what it opened for [`Air::take_opened`].
    pub fn carrying_real_bytes() -> Air {
        let air = Air::new();
        air.lock().real = Some(RealBytes::default());
        air
    }

    /// This air with an OS random source: the ephemeral keys of the nodes
    /// built on it come from `entropy` unless their entry says
    /// `seeded_keys = true`.
    pub fn with_entropy(self, entropy: Entropy) -> Air {
        self.lock().entropy = Some(entropy);
        self
    }

    fn entropy(&self) -> Option<Entropy> {
        self.lock().entropy.clone()
    }

    /// Whether the air carries real datagrams.
    pub fn carries_real_bytes(&self) -> bool {
        self.lock().real.is_some()
    }

    /// Stages the real datagram of the packet with `uid`, for the UCL to
    /// seal when the packet leaves its node. No-op without real bytes.
    pub fn stage(&self, uid: u64, datagram: &[u8]) {
        let mut a = self.lock();
        let inner = &mut *a;
        if let Some(r) = inner.real.as_mut() {
            if bounded_insert(&mut r.staged, &mut r.staged_order, uid, datagram.to_vec()) {
                inner.evicted += 1;
            }
        }
    }

    /// Forgets the datagram staged for `uid` (the packet did not leave).
    pub fn unstage(&self, uid: u64) {
        if let Some(r) = self.lock().real.as_mut() {
            r.staged.remove(&uid);
        }
    }

    fn take_staged(&self, uid: u64) -> Option<Vec<u8>> {
        self.lock().real.as_mut()?.staged.remove(&uid)
    }

    /// The datagram the UCL opened from the authentic frame of the packet
    /// with `uid`, if it opened one: what the receiving host gets.
    pub fn take_opened(&self, uid: u64) -> Option<Vec<u8>> {
        self.lock().real.as_mut()?.opened.remove(&uid)
    }

    fn put_opened(&self, uid: u64, datagram: Vec<u8>) {
        let mut a = self.lock();
        let inner = &mut *a;
        if let Some(r) = inner.real.as_mut() {
            if bounded_insert(&mut r.opened, &mut r.opened_order, uid, datagram) {
                inner.evicted += 1;
            }
        }
    }

    /// The bytes on the air under `handle` (a handshake message, or a
    /// sealed frame as it is on the air, tampering included), if kept.
    pub fn frame(&self, handle: u32) -> Option<Vec<u8>> {
        self.lock().frames.get(&handle).map(|f| f.bytes.clone())
    }

    /// The real datagram a data frame sealed (with real bytes), if kept.
    pub fn plaintext(&self, handle: u32) -> Option<Vec<u8>> {
        self.lock().real.as_ref()?.plain.get(&handle).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, AirInner> {
        // A poisoned lock only means another thread panicked mid-run; the
        // map itself is still whole.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts a frame on the air (with the datagram it seals, for real
    /// bytes); its handle.
    fn put(&self, bytes: Vec<u8>, control: bool, plain: Option<Vec<u8>>, origin: Origin) -> u32 {
        self.put_marked(bytes, control, plain, origin, false)
    }

    fn put_marked(
        &self,
        bytes: Vec<u8>,
        control: bool,
        plain: Option<Vec<u8>>,
        origin: Origin,
        reflect: bool,
    ) -> u32 {
        let mut a = self.lock();
        let handle = a.next | if control { CONTROL } else { 0 };
        a.next = if a.next + 1 == CONTROL { 1 } else { a.next + 1 };
        let frame = AirFrame {
            bytes,
            origin,
            reflect,
        };
        a.frames.insert(handle, frame);
        a.order.push_back(handle);
        if let (Some(r), Some(plain)) = (a.real.as_mut(), plain) {
            r.plain.insert(handle, plain);
        }
        if a.order.len() > AIR_FRAMES_MAX {
            if let Some(old) = a.order.pop_front() {
                a.frames.remove(&old);
                if let Some(r) = a.real.as_mut() {
                    r.plain.remove(&old);
                }
                a.evicted += 1;
            }
        }
        handle
    }

    /// The frame under `handle`: its bytes, where they came from, and
    /// whether the adversary reflects it; `None` once forgotten.
    fn get(&self, handle: u32) -> Option<(Vec<u8>, Origin, bool)> {
        self.lock()
            .frames
            .get(&handle)
            .map(|f| (f.bytes.clone(), f.origin, f.reflect))
    }

    fn note_delivered(&self, dir: Direction, d: Delivered) {
        self.lock().delivered.insert(dir, d);
    }

    fn last_delivered(&self, dir: Direction) -> Option<Delivered> {
        self.lock().delivered.get(&dir).cloned()
    }

    /// Frames forgotten before they were read (the bound).
    pub fn evicted(&self) -> u64 {
        self.lock().evicted
    }
}

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

/// Where a handshake's ephemeral keys come from.
#[derive(Clone, Debug)]
enum Ephemeral {
    /// The run's seed, under this stream name (attempt 0; later attempts
    /// add `.<attempt>`).
    Seeded { seed: u64, name: String },
    /// The OS's randomness.
    Os(Entropy),
}

impl Ephemeral {
    fn label(&self) -> &'static str {
        match self {
            Ephemeral::Seeded { .. } => "seeded",
            Ephemeral::Os(_) => "os",
        }
    }

    fn draw(&self, attempt: u32) -> Result<[u8; 32], String> {
        match self {
            Ephemeral::Seeded { seed, name } if attempt == 0 => Ok(ephemeral_seed(*seed, name)),
            Ephemeral::Seeded { seed, name } => {
                Ok(ephemeral_seed(*seed, &format!("{name}.{attempt}")))
            }
            Ephemeral::Os(e) => e
                .draw()
                .map_err(|e| format!("no OS randomness for the ephemeral keys: {e}")),
        }
    }
}

/// The session a side left for a new one, kept to open frames in flight.
#[derive(Debug)]
struct Previous {
    link: SecureLink,
    /// Frames still to open under the new session before it is forgotten.
    grace_left: u32,
}

/// One side of one secured link (the host's, or the BS's toward a host).
#[derive(Debug)]
pub(super) struct Guard {
    /// `bs/host<h>` or `host<h>`: names errors.
    name: String,
    /// Whether this side starts the handshake (the host).
    initiator: bool,
    /// The flow whose route the control frames take.
    flow: Option<u32>,
    /// The identity and trusted peers each attempt uses.
    keys: Option<(Identity, TrustedPeers)>,
    ephemeral: Ephemeral,
    session: SecConfig,
    /// Handshakes started so far.
    attempts: u32,
    /// The link in use (handshaking, up, or failed).
    link: Option<SecureLink>,
    /// A new handshake run while `link` is up.
    next: Option<SecureLink>,
    previous: Option<Previous>,
    /// Set when no link can ever come up (keys, randomness).
    down: Option<String>,
    started: bool,
    /// The host: a frame from the BS opened under the current session.
    confirmed: bool,
    /// Messages sent since the last answer.
    sent: u32,
    /// The current wait for an answer (the back-off).
    wait: Dur,
    resend_at: Option<Time>,
    /// The timer starts a new attempt (rather than resending).
    retry: bool,
    /// Packets waiting for the link.
    pub(super) held: VecDeque<Packet>,
    up: bool,
    bytes_in_epoch: u64,
    stats: UclSecStats,
}

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

/// Bytes of the handshake's first message (the only one a BS may get at
/// any time).
const FIRST_LEN: usize = HANDSHAKE_MSG_LENS[0];

impl Guard {
    fn new(
        name: String,
        initiator: bool,
        flow: Option<u32>,
        keys: Result<(Identity, TrustedPeers), String>,
        ephemeral: Ephemeral,
        spec: &SecuritySpec,
    ) -> Guard {
        let mut g = Guard {
            name,
            initiator,
            flow,
            keys: None,
            stats: UclSecStats {
                ephemeral_keys: Some(ephemeral.label()),
                ..UclSecStats::default()
            },
            ephemeral,
            session: spec.session,
            attempts: 0,
            link: None,
            next: None,
            previous: None,
            down: None,
            started: false,
            confirmed: false,
            sent: 0,
            wait: spec.handshake_timeout,
            resend_at: None,
            retry: false,
            held: VecDeque::new(),
            up: false,
            bytes_in_epoch: 0,
        };
        match keys {
            Ok(k) => {
                g.keys = Some(k);
                g.link = g.attempt();
            }
            Err(e) => g.go_down(e),
        }
        g
    }

    /// The link can never come up: counts it, keeps why.
    fn go_down(&mut self, e: String) {
        self.stats.link.handshakes_failed += 1;
        self.note_error(e.clone());
        self.down = Some(e);
    }

    /// A new handshake (the next attempt), or `None` (and the guard down)
    /// if none can be made.
    fn attempt(&mut self) -> Option<SecureLink> {
        let (me, peers) = self.keys.as_ref()?;
        let made = self.ephemeral.draw(self.attempts).and_then(|seed| {
            let peers = peers.clone();
            if self.initiator {
                Handshake::initiator(me, peers, seed, self.session)
            } else {
                Handshake::responder(me, peers, seed, self.session)
            }
            .map_err(|e| e.to_string())
        });
        self.attempts += 1;
        match made {
            Ok(h) => Some(SecureLink::new(h)),
            Err(e) => {
                self.go_down(e);
                None
            }
        }
    }

    /// Whether the link can never come up.
    fn failed(&self) -> bool {
        self.down.is_some()
    }

    fn is_up(&self) -> bool {
        self.link.as_ref().is_some_and(SecureLink::is_up)
    }

    fn note_error(&mut self, e: String) {
        if self.stats.errors.len() < ERRORS_MAX {
            self.stats.errors.push(format!("{}: {e}", self.name));
        }
    }

    /// Keeps the counters of a link this guard lets go.
    fn retire(&mut self, old: Option<SecureLink>) {
        if let Some(l) = old {
            self.stats.link = self.stats.link.plus(&l.stats());
        }
    }

    /// Moves to the session `next` completed; the one left opens frames
    /// in flight for `rekey_grace` frames.
    fn switch(&mut self) {
        let Some(new) = self.next.take() else {
            return;
        };
        let old = self.link.replace(new);
        let grace = self.session.rekey_grace_frames;
        let previous = self.previous.take().map(|p| p.link);
        self.retire(previous);
        match old {
            Some(link) if grace > 0 => {
                self.previous = Some(Previous {
                    link,
                    grace_left: grace,
                })
            }
            old => self.retire(old),
        }
        self.confirmed = false;
    }

    /// An answer came: the wait starts over.
    fn progress(&mut self, timeout: Dur) {
        self.sent = 0;
        self.wait = timeout;
    }

    fn stats(&self) -> UclSecStats {
        let mut s = self.stats.clone();
        for l in [&self.link, &self.next].into_iter().flatten() {
            s.link = s.link.plus(&l.stats());
        }
        if let Some(p) = &self.previous {
            s.link = s.link.plus(&p.link.stats());
        }
        s
    }
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

    /// Arms guard `i`'s timer at the current wait.
    fn arm(&mut self, now: Time, i: usize) {
        let g = &mut self.guards[i];
        g.resend_at = Some(now + g.wait);
    }

    /// Starts handshakes due, resends unanswered messages, and starts new
    /// attempts; the guards that came up.
    pub(super) fn on_timeout(&mut self, now: Time) -> Vec<usize> {
        let mut came_up = Vec::new();
        for i in 0..self.guards.len() {
            let g = &mut self.guards[i];
            if g.initiator && !g.started && !g.failed() {
                g.started = true;
                self.pump(now, i, 0, false);
                if self.guards[i].is_up() {
                    came_up.push(i);
                }
                continue;
            }
            if g.resend_at.is_none_or(|t| t > now) {
                continue;
            }
            g.resend_at = None;
            if g.failed() {
                continue;
            }
            let max = self.spec.handshake_backoff_max;
            if std::mem::take(&mut g.retry) {
                self.new_attempt(now, i);
                continue;
            }
            // Waiting on: a new handshake beside the session, the
            // handshake, or (the host) the confirmation of message 3.
            let on_next = g.next.is_some();
            let waiting = if on_next {
                true
            } else {
                match &g.link {
                    Some(l) if l.is_up() => g.initiator && !g.confirmed,
                    Some(l) => {
                        l.failure().is_none() && (g.initiator || l.last_received().is_some())
                    }
                    None => false,
                }
            };
            if !waiting {
                continue;
            }
            g.wait = (g.wait + g.wait).min(max);
            if g.sent >= self.spec.handshake_tries {
                let e = format!("no answer after {} handshake messages", g.sent);
                g.stats.handshake_timeouts += 1;
                g.stats.link.handshakes_failed += 1;
                g.note_error(e);
                if g.initiator {
                    self.new_attempt(now, i);
                } else {
                    // The BS forgets the attempt and takes the next first
                    // message.
                    g.sent = 0;
                    if on_next {
                        let old = g.next.take();
                        g.retire(old);
                    } else {
                        let old = g.link.take();
                        g.retire(old);
                        g.link = g.attempt();
                    }
                }
                continue;
            }
            let target = if on_next {
                g.next.as_mut()
            } else {
                g.link.as_mut()
            };
            let msg = target.and_then(|l| {
                if l.is_up() {
                    l.resend_last()
                } else {
                    l.retransmit()
                }
            });
            let Some(msg) = msg else {
                continue;
            };
            let iface = (g.sent % u32::from(self.ifaces.max(1))) as u8;
            self.send_control(now, i, msg, iface, true);
        }
        came_up
    }

    /// The host starts a new attempt: beside its session if it has one,
    /// else in place of the link.
    fn new_attempt(&mut self, now: Time, i: usize) {
        let g = &mut self.guards[i];
        g.stats.handshake_retries += 1;
        g.sent = 0;
        let Some(link) = g.attempt() else {
            return;
        };
        let on_next = g.is_up();
        let old = if on_next {
            g.next.replace(link)
        } else {
            g.link.replace(link)
        };
        g.retire(old);
        self.pump(now, i, 0, on_next);
    }

    /// Sends what guard `i`'s handshake (its new one with `on_next`) has
    /// to send, on `iface`.
    fn pump(&mut self, now: Time, i: usize, iface: u8, on_next: bool) {
        loop {
            let g = &mut self.guards[i];
            let target = if on_next {
                g.next.as_mut()
            } else {
                g.link.as_mut()
            };
            let Some(msg) = target.and_then(SecureLink::poll_transmit) else {
                break;
            };
            self.send_control(now, i, msg, iface, false);
        }
    }

    /// Puts a handshake message on the air, and waits for its answer
    /// (`resent`: a resend from the timer, which always waits again).
    fn send_control(&mut self, now: Time, i: usize, msg: Vec<u8>, iface: u8, resent: bool) {
        let Some(flow) = self.guards[i].flow else {
            return;
        };
        let len = msg.len() as u32;
        let (bytes, origin) = self.on_air(msg);
        let handle = self.air.put(bytes, true, None, origin);
        self.handshakes_out += 1;
        let dropped = self.spec.adversary == Some(Adversary::DropHandshake)
            && self
                .handshakes_out
                .is_multiple_of(self.spec.adversary_every);
        let g = &mut self.guards[i];
        g.stats.handshake_frames += 1;
        g.stats.tampered_on_air += u64::from(origin == Origin::Tampered);
        g.sent += 1;
        // Waiting for an answer: every message but message 3 once the
        // host's session is confirmed and the BS's once it is up (a resend
        // of message 2 waits for message 3 again).
        let answered = if g.initiator {
            g.is_up() && g.confirmed && g.next.is_none()
        } else {
            g.is_up() && g.next.is_none()
        };
        if !answered || resent {
            self.arm(now, i);
        }
        if dropped {
            self.guards[i].stats.adversary_on_air += 1;
            return;
        }
        self.outbox.push_back(Packet {
            src: Ipv4Addr::UNSPECIFIED,
            dst: Ipv4Addr::UNSPECIFIED,
            ip_id: 0,
            ttl: 1,
            tcp: Segment {
                payload_len: len,
                ..Segment::default()
            },
            meta: PacketMeta {
                flow,
                forged: true,
                iface,
                link_frame: handle,
                ..PacketMeta::default()
            },
        });
    }

    /// A frame of this node as it goes on the air: tampered every
    /// `tamper_every`th (counted in `tampered_on_air` by the caller's
    /// guard through the origin).
    fn on_air(&mut self, mut bytes: Vec<u8>) -> (Vec<u8>, Origin) {
        self.frames_out += 1;
        let every = self.spec.tamper_every;
        if every == 0 || bytes.is_empty() || !self.frames_out.is_multiple_of(every) {
            return (bytes, Origin::Genuine);
        }
        let at = self.rng.random_range(0..bytes.len());
        let mask = self.rng.random_range(1..=255u8);
        bytes[at] ^= mask;
        (bytes, Origin::Tampered)
    }

    /// Whether guard `i` may seal now; `Err` with the verdict's reason when
    /// the packet must be dropped, `Ok(false)` when it must wait.
    pub(super) fn admit(&mut self, i: usize, p: &Packet) -> Result<bool, &'static str> {
        let max = self.spec.max_held as usize;
        let g = &mut self.guards[i];
        if g.failed() {
            g.stats.link_down += 1;
            return Err("ucl.link_down");
        }
        if g.is_up() {
            return Ok(true);
        }
        if g.held.len() >= max {
            g.stats.held_overflow += 1;
            return Err("ucl.held_overflow");
        }
        g.held.push_back(*p);
        g.stats.held += 1;
        Ok(false)
    }

    /// Seals `p` on guard `i`'s link: its bytes go on the air, the packet
    /// carries their handle and overhead. Left unsealed (the peer will drop
    /// it) if the link cannot seal.
    pub(super) fn seal(&mut self, i: usize, p: &mut Packet) {
        let rekey_bytes = self.spec.rekey_bytes;
        let real = self.air.carries_real_bytes();
        let g = &mut self.guards[i];
        let Some(link) = g.link.as_mut() else {
            return;
        };
        let bytes = if real {
            // A resend carries the handle of the frame it copies.
            let resent = p.meta.link_frame != 0 && p.meta.link_frame & CONTROL == 0;
            let found = if resent {
                self.air.plaintext(p.meta.link_frame)
            } else {
                self.air.take_staged(p.meta.uid)
            };
            let Some(bytes) = found else {
                // Nothing real to seal: the frame goes unsealed and the
                // peer drops it.
                g.stats.frame_missing += 1;
                p.meta.link_frame = 0;
                p.meta.link_overhead = 0;
                return;
            };
            bytes
        } else {
            let mut bytes = Vec::with_capacity(p.ip_len());
            emit(p, &mut bytes);
            bytes
        };
        if let Some(limit) = rekey_bytes {
            if g.bytes_in_epoch >= limit {
                if let Some(s) = link.session_mut() {
                    if s.rekey().is_ok() {
                        g.bytes_in_epoch = 0;
                    }
                }
            }
        }
        let Ok(frame) = link.seal(&bytes) else {
            return;
        };
        g.bytes_in_epoch += bytes.len() as u64;
        let overhead = frame.len() - bytes.len();
        let header: Vec<u8> = frame[..super::security::HEADER_LEN].to_vec();
        let frame_len = frame.len();
        let (frame, origin) = self.on_air(frame);
        self.data_out += 1;
        let acts = self
            .spec
            .adversary
            .filter(|_| self.data_out.is_multiple_of(self.spec.adversary_every));
        let reflect = acts == Some(Adversary::Reflect);
        // The datagram an engine carrying real bytes puts under a forgery.
        let plain = (real && acts == Some(Adversary::Inject)).then(|| bytes.clone());
        let handle = self
            .air
            .put_marked(frame, false, real.then_some(bytes), origin, reflect);
        let g = &mut self.guards[i];
        g.stats.overhead_bytes += overhead as u64;
        g.stats.tampered_on_air += u64::from(origin == Origin::Tampered);
        p.meta.link_frame = handle;
        p.meta.link_overhead = overhead as u16;
        match acts {
            Some(Adversary::Replay) => self.replay(i),
            Some(Adversary::Inject) => self.inject(i, p, &header, frame_len, plain),
            _ => {}
        }
    }

    /// Puts the adversary's `frame` on the air in a copy of `p`, sent from
    /// this node over guard `i`'s link (to its peer); `plain`: the datagram
    /// an engine carrying real bytes sends in its place (never written to
    /// a host: the frame does not open).
    fn send_adversary(&mut self, i: usize, mut p: Packet, frame: Vec<u8>, plain: Option<Vec<u8>>) {
        let handle = self.air.put(frame, false, plain, Origin::Adversary);
        p.meta.link_frame = handle;
        p.meta.forged = true;
        self.guards[i].stats.adversary_on_air += 1;
        self.outbox.push_back(p);
    }

    /// Sends again a copy of guard `i`'s latest frame the peer delivered.
    fn replay(&mut self, i: usize) {
        if let Some(d) = self.air.last_delivered(self.direction(i, true)) {
            self.send_adversary(i, d.packet, d.frame, d.plain);
        }
    }

    /// Sends a forged frame beside `p`: its header, random bytes after.
    fn inject(&mut self, i: usize, p: &Packet, header: &[u8], len: usize, plain: Option<Vec<u8>>) {
        let mut forged = header.to_vec();
        forged.resize(len, 0);
        self.rng.fill_bytes(&mut forged[header.len()..]);
        self.send_adversary(i, *p, forged, plain);
    }

    /// A packet from the air for guard `i`.
    pub(super) fn inbound(&mut self, now: Time, i: usize, p: &mut Packet) -> (Inbound, bool) {
        let handle = p.meta.link_frame;
        if handle & CONTROL != 0 {
            return self.inbound_control(now, i, p);
        }
        let g = &mut self.guards[i];
        if handle == 0 {
            // An unsealed frame: from no authenticated peer.
            g.stats.link.count_drop(DropReason::NotAuthenticated);
            return (Inbound::Drop("ucl.not_authenticated"), false);
        }
        let Some((frame, origin, reflect)) = self.air.get(handle) else {
            g.stats.frame_missing += 1;
            return (Inbound::Drop("ucl.frame_missing"), false);
        };
        if origin != Origin::Genuine {
            g.stats.altered_received += 1;
        }
        if reflect {
            // The adversary sends the frame back to its sender.
            let mut back = *p;
            std::mem::swap(&mut back.src, &mut back.dst);
            let plain = self.air.plaintext(handle);
            self.send_adversary(i, back, frame.clone(), plain);
        }
        let as_received = *p;
        let g = &mut self.guards[i];
        let was_up = g.is_up();
        let opened = match g.link.as_mut() {
            Some(link) => link.open_uncounted(&frame),
            None => Err(DropReason::NotAuthenticated),
        };
        let opened = match (opened, g.previous.as_mut()) {
            (Ok(plain), prev) => {
                if let Some(prev) = prev {
                    prev.grace_left = prev.grace_left.saturating_sub(1);
                }
                if g.previous.as_ref().is_some_and(|p| p.grace_left == 0) {
                    let old = g.previous.take().map(|p| p.link);
                    g.retire(old);
                }
                if g.initiator && !g.confirmed && g.is_up() {
                    // The BS has the session: stop sending message 3.
                    g.confirmed = true;
                    if g.next.is_none() {
                        g.resend_at = None;
                        g.progress(self.spec.handshake_timeout);
                    }
                }
                Ok(plain)
            }
            (Err(DropReason::Tampered), Some(prev)) => prev.link.open_uncounted(&frame),
            (Err(r), _) => Err(r),
        };
        let plain = match opened {
            Ok(plain) => plain,
            Err(reason) => {
                g.stats.link.count_drop(reason);
                return (Inbound::Drop(drop_name(reason)), false);
            }
        };
        if origin != Origin::Genuine {
            g.stats.altered_delivered += 1;
        }
        let came_up = !was_up && g.is_up();
        p.meta.link_frame = 0;
        p.meta.link_overhead = 0;
        let matches = if self.air.carries_real_bytes() {
            names_packet(&plain, p)
        } else {
            let mut bytes = Vec::with_capacity(plain.len());
            emit(p, &mut bytes);
            bytes == plain
        };
        if !matches {
            g.stats.mismatch += 1;
            return (Inbound::Drop("ucl.mismatch"), false);
        }
        let real = self.air.carries_real_bytes();
        let delivered = Delivered {
            packet: as_received,
            frame,
            plain: real.then(|| plain.clone()),
        };
        self.air.note_delivered(self.direction(i, false), delivered);
        if real {
            self.air.put_opened(p.meta.uid, plain);
        }
        (Inbound::Open, came_up)
    }

    /// A handshake message from the air for guard `i`: consumed.
    fn inbound_control(&mut self, now: Time, i: usize, p: &Packet) -> (Inbound, bool) {
        let timeout = self.spec.handshake_timeout;
        let g = &mut self.guards[i];
        let Some((msg, origin, _)) = self.air.get(p.meta.link_frame) else {
            g.stats.frame_missing += 1;
            return (Inbound::Control, false);
        };
        if origin != Origin::Genuine {
            g.stats.altered_handshake_received += 1;
        }
        if g.failed() {
            return (Inbound::Control, false);
        }
        let was_up = g.is_up();
        // Which of the guard's handshakes the message is for: a copy of
        // what one received last goes to it; a BS takes a new first
        // message as a new handshake; else the one running.
        let copy_of = |l: &Option<SecureLink>| {
            l.as_ref()
                .is_some_and(|l| l.last_received() == Some(&msg[..]))
        };
        let on_next = if copy_of(&g.link) {
            false
        } else if copy_of(&g.next) {
            true
        } else if !g.initiator && msg.len() == FIRST_LEN {
            let fresh = |l: &Option<SecureLink>| {
                l.as_ref().is_some_and(|l| {
                    !l.is_up() && l.failure().is_none() && l.last_received().is_none()
                })
            };
            if g.is_up() {
                if !fresh(&g.next) {
                    let new = g.attempt();
                    let old = std::mem::replace(&mut g.next, new);
                    g.retire(old);
                    g.stats.handshake_retries += 1;
                }
                true
            } else {
                if !fresh(&g.link) {
                    let new = g.attempt();
                    let old = std::mem::replace(&mut g.link, new);
                    g.retire(old);
                    g.stats.handshake_retries += 1;
                }
                false
            }
        } else {
            g.next.is_some()
        };
        let target = if on_next {
            g.next.as_mut()
        } else {
            g.link.as_mut()
        };
        let Some(link) = target else {
            return (Inbound::Control, false);
        };
        let r = link.handle_handshake(&msg);
        let ended = link.failure().is_some();
        match r {
            Ok(()) => g.progress(timeout),
            Err(e) => {
                let note = if ended {
                    e.to_string()
                } else {
                    format!("{e} (refused)")
                };
                g.note_error(note);
            }
        }
        if ended {
            // This attempt is over: the BS waits for a new first message,
            // the host starts a new attempt after the wait.
            let old = if on_next {
                g.next.take()
            } else {
                g.link.take()
            };
            g.retire(old);
            if g.initiator {
                g.retry = true;
                g.resend_at = Some(now + g.wait);
                g.wait = (g.wait + g.wait).min(self.spec.handshake_backoff_max);
            } else if !on_next {
                g.link = g.attempt();
            }
            return (Inbound::Control, false);
        }
        self.pump(now, i, p.meta.iface, on_next);
        let g = &mut self.guards[i];
        if g.next.as_ref().is_some_and(SecureLink::is_up) {
            g.switch();
            g.progress(timeout);
            if g.initiator {
                // The new session waits for its confirmation.
                g.resend_at = Some(now + g.wait);
            } else {
                g.resend_at = None;
            }
        }
        if !g.initiator && g.is_up() && g.next.is_none() {
            g.resend_at = None;
        }
        let came_up = !was_up && g.is_up();
        (Inbound::Control, came_up)
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

/// Whether a real datagram opened from a frame is the packet's: same IPv4
/// addresses and identification (the TTL, which routers change, aside).
fn names_packet(datagram: &[u8], p: &Packet) -> bool {
    datagram.len() >= 20
        && datagram[12..16] == p.src.octets()
        && datagram[16..20] == p.dst.octets()
        && datagram[4..6] == p.ip_id.to_be_bytes()
}

fn drop_name(r: DropReason) -> &'static str {
    match r {
        DropReason::Tampered => "ucl.tampered",
        DropReason::Replayed => "ucl.replayed",
        DropReason::TooOld => "ucl.too_old",
        DropReason::StaleKey => "ucl.stale_key",
        DropReason::Malformed => "ucl.malformed",
        DropReason::NotAuthenticated => "ucl.not_authenticated",
    }
}

/// Bytes the UCL's security adds to a frame.
pub const OVERHEAD: u32 = FRAME_OVERHEAD as u32;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod real_bytes_tests {
    use super::*;

    #[test]
    fn staged_and_opened_datagrams_are_bounded_and_taken_once() {
        let air = Air::carrying_real_bytes();
        assert!(air.carries_real_bytes());
        assert!(!Air::new().carries_real_bytes());
        // Staged datagrams nobody seals are forgotten, oldest first.
        for uid in 0..(AIR_FRAMES_MAX as u64 + 10) {
            air.stage(uid, &[uid as u8; 40]);
        }
        assert_eq!(air.evicted(), 10);
        assert_eq!(air.take_staged(0), None);
        assert_eq!(air.take_staged(10), Some(vec![10u8; 40]));
        assert_eq!(air.take_staged(10), None, "taken once");
        air.unstage(11);
        assert_eq!(air.take_staged(11), None);
        let inner = air.lock();
        let r = inner.real.as_ref().unwrap();
        assert!(r.staged_order.len() <= 2 * AIR_FRAMES_MAX);
        drop(inner);
        // What the UCL opened waits for the engine, by uid, once.
        air.put_opened(5, vec![1, 2, 3]);
        assert_eq!(air.take_opened(5), Some(vec![1, 2, 3]));
        assert_eq!(air.take_opened(5), None);
        // A sealed frame keeps its plaintext while it is on the air.
        let h = air.put(vec![9; 68], false, Some(vec![7; 40]), Origin::Genuine);
        assert_eq!(air.plaintext(h), Some(vec![7; 40]));
        assert_eq!(air.frame(h), Some(vec![9; 68]));
        for _ in 0..AIR_FRAMES_MAX {
            air.put(vec![0; 68], false, Some(vec![0; 40]), Origin::Genuine);
        }
        assert_eq!(air.plaintext(h), None, "forgotten with its frame");
    }
}
