//! The pair's shared [`Air`]: the bytes a radio would carry beside the
//! simulator's packets (sealed data frames, handshake messages, the
//! adversary's frames), bounded and numbered by handle, and the real
//! datagrams an engine stages for sealing and takes back once opened;
//! [`Entropy`], the OS randomness an engine may hand it.

use super::{AIR_FRAMES_MAX, CONTROL};
use crate::wire::Packet;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

/// A source of 32 random bytes for ephemeral keys: the OS's, in an engine
/// that has one (the core itself reads no OS randomness).
#[derive(Clone)]
pub struct Entropy(Arc<dyn Fn() -> Result<[u8; 32], String> + Send + Sync>);

impl Entropy {
    /// A source drawing from `f`.
    pub fn new(f: impl Fn() -> Result<[u8; 32], String> + Send + Sync + 'static) -> Entropy {
        Entropy(Arc::new(f))
    }

    pub(super) fn draw(&self) -> Result<[u8; 32], String> {
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
pub(super) enum Origin {
    /// Sent by its node as sealed.
    Genuine,
    /// A byte flipped (`tamper_every`).
    Tampered,
    /// The adversary's copy, forgery or reflection.
    Adversary,
}

#[derive(Debug)]
pub(super) struct AirFrame {
    pub(super) bytes: Vec<u8>,
    pub(super) origin: Origin,
    /// The adversary sends it back to its sender when it arrives.
    reflect: bool,
}

/// A direction of one link: from the BS (or from the host) of host `.1`.
pub(super) type Direction = (bool, u32);

/// A data frame a node delivered: its packet, its bytes on the air, and
/// (with real bytes) the datagram it sealed.
#[derive(Clone, Debug)]
pub(super) struct Delivered {
    pub(super) packet: Packet,
    pub(super) frame: Vec<u8>,
    pub(super) plain: Option<Vec<u8>>,
}

#[derive(Debug)]
pub(super) struct AirInner {
    pub(super) frames: BTreeMap<u32, AirFrame>,
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

    pub(super) fn entropy(&self) -> Option<Entropy> {
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

    pub(super) fn take_staged(&self, uid: u64) -> Option<Vec<u8>> {
        self.lock().real.as_mut()?.staged.remove(&uid)
    }

    /// The datagram the UCL opened from the authentic frame of the packet
    /// with `uid`, if it opened one: what the receiving host gets.
    pub fn take_opened(&self, uid: u64) -> Option<Vec<u8>> {
        self.lock().real.as_mut()?.opened.remove(&uid)
    }

    pub(super) fn put_opened(&self, uid: u64, datagram: Vec<u8>) {
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

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, AirInner> {
        // A poisoned lock only means another thread panicked mid-run; the
        // map itself is still whole.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts a frame on the air (with the datagram it seals, for real
    /// bytes); its handle.
    pub(super) fn put(
        &self,
        bytes: Vec<u8>,
        control: bool,
        plain: Option<Vec<u8>>,
        origin: Origin,
    ) -> u32 {
        self.put_marked(bytes, control, plain, origin, false)
    }

    pub(super) fn put_marked(
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
    pub(super) fn get(&self, handle: u32) -> Option<(Vec<u8>, Origin, bool)> {
        self.lock()
            .frames
            .get(&handle)
            .map(|f| (f.bytes.clone(), f.origin, f.reflect))
    }

    pub(super) fn note_delivered(&self, dir: Direction, d: Delivered) {
        self.lock().delivered.insert(dir, d);
    }

    pub(super) fn last_delivered(&self, dir: Direction) -> Option<Delivered> {
        self.lock().delivered.get(&dir).cloned()
    }

    /// Frames forgotten before they were read (the bound).
    pub fn evicted(&self) -> u64 {
        self.lock().evicted
    }
}

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
