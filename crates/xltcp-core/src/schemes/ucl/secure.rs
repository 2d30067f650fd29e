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
//!   is that of a 40-byte header plus the message. Lost messages are sent
//!   again every `handshake_timeout` (alternating over the interfaces) up to
//!   `handshake_tries` times; then the link is down.
//! - **Data**: each packet leaving the UCL is serialised to its real IPv4
//!   bytes ([`crate::wire::emit`]), sealed (ChaCha20-Poly1305, 28 bytes of
//!   header and tag), and the hop charges the sealed frame's length
//!   ([`PacketMeta::link_overhead`], [`Packet::air_len`]). The receiving
//!   half opens the very bytes that were sealed and checks that they equal
//!   the packet's own bytes before passing it on; a failure is a drop with
//!   its reason.
//!
//! TCP waits for the link: packets leaving a node before its side of the
//! handshake finished are held (at most `max_held`, then dropped as
//! `held_overflow`) and sent, sealed, when it is up. A link whose handshake
//! failed drops every packet (`link_down`) and keeps those it held: the
//! flow does not proceed.
//!
//! Frames the receiving half cannot open are dropped by reason
//! ([`crate::schemes::ucl::security::DropReason`]: tampered, replayed, too
//! old for the replay window, stale key, malformed, not authenticated),
//! plus `mismatch` (opened, but not the packet's bytes) and
//! `frame_missing` (the handle left the [`Air`]'s bound). TCP recovers
//! from these drops as from any loss.
//!
//! `tamper_every = N` (for tests and experiments) flips one byte of every
//! Nth sealed data frame on the air (the byte and its mask from the run's
//! stream `ucl.tamper`); the count is `tampered_on_air`.
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

use super::security::{
    ephemeral_seed, DropReason, Handshake, Identity, SecConfig, SecStats, SecureLink, TrustedPeers,
    FRAME_OVERHEAD,
};
use crate::rng::{stream, Rng};
use crate::time::{Dur, Time};
use crate::wire::{emit, Packet, PacketMeta, Segment};
use rand::RngExt as _;
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

/// `security = "on"` and its keys on a `ucl` agent.
#[derive(Clone, Debug, PartialEq)]
pub struct SecuritySpec {
    /// `keys = "seed"` (default), or `identity` + `trusted` files.
    pub keys: KeySource,
    /// `replay_window` (default 128), `rekey_frames` (default 2^20),
    /// `rekey_grace` (default 32).
    pub session: SecConfig,
    /// `rekey_bytes`: re-key a direction after this many payload bytes
    /// sealed under one key (default: none).
    pub rekey_bytes: Option<u64>,
    /// `handshake_timeout` (default 100 ms): the wait for an answer before
    /// a handshake message is sent again.
    pub handshake_timeout: Dur,
    /// `handshake_tries` (default 8): messages sent without progress before
    /// the link is declared down.
    pub handshake_tries: u32,
    /// `max_held` (default 1000): packets held while the handshake runs.
    pub max_held: u32,
    /// `tamper_every` (default 0: never): flip a byte of every Nth sealed
    /// data frame on the air.
    pub tamper_every: u64,
}

impl Default for SecuritySpec {
    fn default() -> SecuritySpec {
        SecuritySpec {
            keys: KeySource::Seed,
            session: SecConfig::default(),
            rekey_bytes: None,
            handshake_timeout: Dur::from_millis(100),
            handshake_tries: 8,
            max_held: 1000,
            tamper_every: 0,
        }
    }
}

/// Most frames the [`Air`] keeps; older ones are forgotten (counted).
pub const AIR_FRAMES_MAX: usize = 8192;

/// The high bit of a handle marks a handshake (control) frame; the
/// others number frames from 1, wrapping long after the frame they named
/// left the [`Air`].
pub const CONTROL: u32 = 1 << 31;

/// Most handshake errors kept in [`UclSecStats::errors`].
pub const ERRORS_MAX: usize = 16;

#[derive(Debug)]
struct AirInner {
    frames: BTreeMap<u32, Vec<u8>>,
    order: VecDeque<u32>,
    next: u32,
    tamper_every: u64,
    data_frames: u64,
    rng: Rng,
    evicted: u64,
    /// Real datagrams (see the module doc), if the engine carries them.
    real: Option<RealBytes>,
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

impl Air {
    /// An empty air; `tamper_every` and the run's `seed` drive the
    /// tampering.
    pub fn new(seed: u64, tamper_every: u64) -> Air {
        Air(Arc::new(Mutex::new(AirInner {
            frames: BTreeMap::new(),
            order: VecDeque::new(),
            next: 1,
            tamper_every,
            data_frames: 0,
            rng: stream(seed, "ucl.tamper"),
            evicted: 0,
            real: None,
        })))
    }

    /// As [`Air::new`], for an engine that carries real datagrams (see the
    /// module doc): the UCL seals the bytes staged with [`Air::stage`] and
    /// leaves what it opened for [`Air::take_opened`].
    pub fn carrying_real_bytes(seed: u64, tamper_every: u64) -> Air {
        let air = Air::new(seed, tamper_every);
        air.lock().real = Some(RealBytes::default());
        air
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
        self.get(handle)
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
    /// bytes); its handle, and whether it was tampered.
    fn put(&self, mut bytes: Vec<u8>, control: bool, plain: Option<Vec<u8>>) -> (u32, bool) {
        let mut a = self.lock();
        let mut tampered = false;
        if !control && !bytes.is_empty() {
            a.data_frames += 1;
            if a.tamper_every > 0 && a.data_frames.is_multiple_of(a.tamper_every) {
                let at = a.rng.random_range(0..bytes.len());
                let mask = a.rng.random_range(1..=255u8);
                bytes[at] ^= mask;
                tampered = true;
            }
        }
        let handle = a.next | if control { CONTROL } else { 0 };
        a.next = if a.next + 1 == CONTROL { 1 } else { a.next + 1 };
        a.frames.insert(handle, bytes);
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
        (handle, tampered)
    }

    /// The frame under `handle`, if still kept.
    fn get(&self, handle: u32) -> Option<Vec<u8>> {
        self.lock().frames.get(&handle).cloned()
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
    /// Handshake messages sent (first sends and resends).
    pub handshake_frames: u64,
    /// Handshakes given up after `handshake_tries` messages.
    pub handshake_timeouts: u64,
    /// The latest time (s) a node's side of a link came up.
    pub link_up_s: Option<f64>,
    /// Bytes sealing added on the air (header and tag of every sealed frame).
    pub overhead_bytes: u64,
    /// Packets held while the handshake ran.
    pub held: u64,
    /// Dropped: more than `max_held` waiting for the handshake.
    pub held_overflow: u64,
    /// Dropped: the link's handshake failed.
    pub link_down: u64,
    /// Dropped: opened, but not the packet's bytes.
    pub mismatch: u64,
    /// Dropped: the frame had left the air's bound.
    pub frame_missing: u64,
    /// Sealed data frames this node's frames had a byte flipped on the air
    /// (`tamper_every`).
    pub tampered_on_air: u64,
    /// Why handshakes failed (`<node>: <error>`), the first
    /// [`ERRORS_MAX`].
    pub errors: Vec<String>,
}

impl UclSecStats {
    /// Adds `o`'s counters.
    pub fn merge(&mut self, o: &UclSecStats) {
        self.link = self.link.plus(&o.link);
        self.handshake_frames += o.handshake_frames;
        self.handshake_timeouts += o.handshake_timeouts;
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

/// One side of one secured link (the host's, or the BS's toward a host).
#[derive(Debug)]
pub(super) struct Guard {
    /// `bs/host<h>` or `host<h>`: names errors.
    name: String,
    link: Option<SecureLink>,
    /// Set when the handshake could not start or ran out of tries.
    down: Option<String>,
    /// Whether this side starts the handshake (the host).
    initiator: bool,
    /// The flow whose route the control frames take.
    flow: Option<u32>,
    started: bool,
    sent: u32,
    resend_at: Option<Time>,
    /// Packets waiting for the link.
    pub(super) held: VecDeque<Packet>,
    up: bool,
    /// Whether the handshake's failure is already in `stats.errors`.
    reported: bool,
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
    /// Control frames (handshake messages) for the engine to send.
    pub(super) outbox: VecDeque<Packet>,
    ifaces: u8,
}

fn load_files(identity: &Path, trusted: &Path) -> Result<(Identity, TrustedPeers), String> {
    let me = Identity::load(identity).map_err(|e| e.to_string())?;
    let peers = TrustedPeers::load(trusted).map_err(|e| e.to_string())?;
    Ok((me, peers))
}

impl Guard {
    fn new(
        name: String,
        initiator: bool,
        flow: Option<u32>,
        keys: Result<(Identity, TrustedPeers), String>,
        seed: [u8; 32],
        session: SecConfig,
    ) -> Guard {
        let made = keys.and_then(|(me, peers)| {
            if initiator {
                Handshake::initiator(&me, peers, seed, session)
            } else {
                Handshake::responder(&me, peers, seed, session)
            }
            .map_err(|e| e.to_string())
        });
        let mut stats = UclSecStats::default();
        let (link, down) = match made {
            Ok(h) => (Some(SecureLink::new(h)), None),
            Err(e) => {
                stats.link.handshakes_failed += 1;
                stats.errors.push(format!("{name}: {e}"));
                (None, Some(e))
            }
        };
        let reported = down.is_some();
        Guard {
            name,
            link,
            down,
            initiator,
            flow,
            started: false,
            sent: 0,
            resend_at: None,
            held: VecDeque::new(),
            up: false,
            reported,
            bytes_in_epoch: 0,
            stats,
        }
    }

    /// Whether the link can never come up.
    fn failed(&self) -> bool {
        self.down.is_some() || self.link.as_ref().is_some_and(|l| l.failure().is_some())
    }

    fn is_up(&self) -> bool {
        self.link.as_ref().is_some_and(SecureLink::is_up)
    }

    fn note_error(&mut self, e: String) {
        if self.stats.errors.len() < ERRORS_MAX {
            self.stats.errors.push(format!("{}: {e}", self.name));
        }
    }

    fn stats(&self) -> UclSecStats {
        let mut s = self.stats.clone();
        if let Some(l) = &self.link {
            s.link = s.link.plus(&l.stats());
        }
        s
    }
}

impl Sec {
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
                let eseed = ephemeral_seed(seed, &format!("ucl.handshake.bs.{h}"));
                Guard::new(
                    format!("bs/host{h}"),
                    false,
                    flow,
                    keys,
                    eseed,
                    spec.session,
                )
            })
            .collect();
        Sec {
            spec,
            air,
            guards,
            outbox: VecDeque::new(),
            ifaces,
        }
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
        let eseed = ephemeral_seed(seed, &format!("ucl.handshake.host{h}"));
        let guard = Guard::new(format!("host{h}"), true, flow, keys, eseed, spec.session);
        Sec {
            spec,
            air,
            guards: vec![guard],
            outbox: VecDeque::new(),
            ifaces,
        }
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

    /// Starts handshakes due and resends unanswered messages.
    pub(super) fn on_timeout(&mut self, now: Time) -> Vec<usize> {
        let mut came_up = Vec::new();
        for i in 0..self.guards.len() {
            let g = &mut self.guards[i];
            if g.initiator && !g.started && !g.failed() {
                g.started = true;
                self.pump(now, i, 0);
                if self.guards[i].is_up() {
                    came_up.push(i);
                }
                continue;
            }
            if g.resend_at.is_none_or(|t| t > now) {
                continue;
            }
            g.resend_at = None;
            if g.is_up() || g.failed() {
                continue;
            }
            if g.sent >= self.spec.handshake_tries {
                let e = format!(
                    "no answer after {} handshake messages ({} apart)",
                    g.sent,
                    crate::scenario::units::format_duration(self.spec.handshake_timeout)
                );
                g.stats.handshake_timeouts += 1;
                g.stats.link.handshakes_failed += 1;
                g.note_error(e.clone());
                g.down = Some(e);
                continue;
            }
            let Some(msg) = g.link.as_mut().and_then(SecureLink::retransmit) else {
                continue;
            };
            let iface = (g.sent % u32::from(self.ifaces.max(1))) as u8;
            self.send_control(now, i, msg, iface);
        }
        came_up
    }

    /// Sends what guard `i`'s handshake has to send, on `iface`.
    fn pump(&mut self, now: Time, i: usize, iface: u8) {
        while let Some(msg) = self.guards[i]
            .link
            .as_mut()
            .and_then(SecureLink::poll_transmit)
        {
            self.send_control(now, i, msg, iface);
        }
    }

    fn send_control(&mut self, now: Time, i: usize, msg: Vec<u8>, iface: u8) {
        let g = &mut self.guards[i];
        let Some(flow) = g.flow else {
            return;
        };
        let len = msg.len() as u32;
        let (handle, _) = self.air.put(msg, true, None);
        g.stats.handshake_frames += 1;
        g.sent += 1;
        // Waiting for an answer (the initiator's last message needs none,
        // but the responder's resend of message 2 asks for it again).
        g.resend_at = (!g.is_up()).then_some(now + self.spec.handshake_timeout);
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
        let g = &mut self.guards[i];
        let Some(link) = g.link.as_mut() else {
            return;
        };
        let real = self.air.carries_real_bytes();
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
        let (handle, tampered) = self.air.put(frame, false, real.then_some(bytes));
        g.stats.overhead_bytes += overhead as u64;
        g.stats.tampered_on_air += u64::from(tampered);
        p.meta.link_frame = handle;
        p.meta.link_overhead = overhead as u16;
    }

    /// A packet from the air for guard `i`.
    pub(super) fn inbound(&mut self, now: Time, i: usize, p: &mut Packet) -> (Inbound, bool) {
        let handle = p.meta.link_frame;
        let g = &mut self.guards[i];
        if handle & CONTROL != 0 {
            let Some(msg) = self.air.get(handle) else {
                g.stats.frame_missing += 1;
                return (Inbound::Control, false);
            };
            let was_up = g.is_up();
            if let Some(link) = g.link.as_mut() {
                let r = link.handle_handshake(&msg);
                if let (Err(e), Some(_)) = (r, link.failure()) {
                    if !g.reported {
                        g.reported = true;
                        g.note_error(e.to_string());
                    }
                }
            }
            g.sent = 0;
            self.pump(now, i, p.meta.iface);
            let g = &mut self.guards[i];
            if g.is_up() && g.resend_at.is_some() && g.initiator {
                g.resend_at = None;
            }
            let came_up = !was_up && g.is_up();
            return (Inbound::Control, came_up);
        }
        if handle == 0 {
            // An unsealed frame: from no authenticated peer.
            g.stats.link.count_drop(DropReason::NotAuthenticated);
            return (Inbound::Drop("ucl.not_authenticated"), false);
        }
        let Some(frame) = self.air.get(handle) else {
            g.stats.frame_missing += 1;
            return (Inbound::Drop("ucl.frame_missing"), false);
        };
        let Some(link) = g.link.as_mut() else {
            g.stats.link.count_drop(DropReason::NotAuthenticated);
            return (Inbound::Drop("ucl.not_authenticated"), false);
        };
        let was_up = link.is_up();
        match link.open(&frame) {
            Err(reason) => (Inbound::Drop(drop_name(reason)), false),
            Ok(plain) if self.air.carries_real_bytes() => {
                p.meta.link_frame = 0;
                p.meta.link_overhead = 0;
                if !names_packet(&plain, p) {
                    g.stats.mismatch += 1;
                    return (Inbound::Drop("ucl.mismatch"), false);
                }
                self.air.put_opened(p.meta.uid, plain);
                (Inbound::Open, !was_up && link.is_up())
            }
            Ok(plain) => {
                p.meta.link_frame = 0;
                p.meta.link_overhead = 0;
                let mut bytes = Vec::with_capacity(plain.len());
                emit(p, &mut bytes);
                if bytes != plain {
                    g.stats.mismatch += 1;
                    return (Inbound::Drop("ucl.mismatch"), false);
                }
                (Inbound::Open, !was_up && link.is_up())
            }
        }
    }

    /// Guard `i` came up: records when, and hands back what it held.
    pub(super) fn came_up(&mut self, now: Time, i: usize) -> VecDeque<Packet> {
        let g = &mut self.guards[i];
        if g.up {
            return VecDeque::new();
        }
        g.up = true;
        g.resend_at = None;
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
mod real_bytes_tests {
    use super::*;

    #[test]
    fn staged_and_opened_datagrams_are_bounded_and_taken_once() {
        let air = Air::carrying_real_bytes(1, 0);
        assert!(air.carries_real_bytes());
        assert!(!Air::new(1, 0).carries_real_bytes());
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
        let (h, _) = air.put(vec![9; 68], false, Some(vec![7; 40]));
        assert_eq!(air.plaintext(h), Some(vec![7; 40]));
        assert_eq!(air.frame(h), Some(vec![9; 68]));
        for _ in 0..AIR_FRAMES_MAX {
            air.put(vec![0; 68], false, Some(vec![0; 40]));
        }
        assert_eq!(air.plaintext(h), None, "forgotten with its frame");
    }
}
