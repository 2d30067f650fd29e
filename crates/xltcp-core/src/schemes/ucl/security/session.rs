//! An established session: sealing, opening, the replay window and
//! re-keying.

use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce, Tag};
use hkdf::Hkdf;
use sha2::Sha256;

use super::{
    sealed_len, DropReason, PublicKey, SealError, SecConfig, SecStats, FRAME_OVERHEAD, HEADER_LEN,
    MAX_EPOCH_AHEAD, TAG_LEN,
};

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

/// The lowest counter accepted under a receiving epoch. The sender's
/// counter and epoch only grow, so a genuine frame of an older epoch has a
/// counter below every counter of a later one: a frame naming an older
/// epoch with a counter at or above this floor was altered.
#[derive(Clone, Copy)]
struct Floor {
    epoch: u32,
    counter: u64,
}

/// Bits in a word of the replay window's ring.
const WORD_BITS: u64 = 64;

/// Which counters were accepted among the last `size` ones (RFC 6479's
/// scheme, as WireGuard keeps it): a ring of 64-bit words, bit `c % 64` of
/// word `(c / 64) % words` standing for counter `c`. The ring holds one
/// word more than the window spans, so every counter in the window has a
/// bit of its own; moving the top clears the words it enters (at most the
/// ring's length, a constant). Checking and marking are O(1) a frame, and
/// the window costs one bit a counter.
struct ReplayWindow {
    top: Option<u64>,
    size: u64,
    words: Vec<u64>,
}

impl ReplayWindow {
    fn new(size: u32) -> ReplayWindow {
        let size = u64::from(size.max(1));
        let words = size.div_ceil(WORD_BITS) as usize + 1;
        ReplayWindow {
            top: None,
            size,
            words: vec![0; words],
        }
    }

    /// The word and bit of counter `c`.
    fn at(&self, c: u64) -> (usize, u64) {
        let word = ((c / WORD_BITS) % self.words.len() as u64) as usize;
        (word, 1 << (c % WORD_BITS))
    }

    fn check(&self, c: u64) -> Result<(), DropReason> {
        match self.top {
            Some(top) if c <= top => {
                let (word, bit) = self.at(c);
                if top - c >= self.size {
                    Err(DropReason::TooOld)
                } else if self.words[word] & bit != 0 {
                    Err(DropReason::Replayed)
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    /// Marks `c` (checked first); how far below the top it lay (0 for a
    /// new top).
    fn mark(&mut self, c: u64) -> u64 {
        let below = match self.top {
            Some(top) if c <= top => top - c,
            Some(top) => {
                // Clear the words between the old top's and the new one's.
                let n = self.words.len() as u64;
                let steps = (c / WORD_BITS - top / WORD_BITS).min(n);
                for k in 1..=steps {
                    let word = ((top / WORD_BITS + k) % n) as usize;
                    self.words[word] = 0;
                }
                self.top = Some(c);
                0
            }
            None => {
                self.top = Some(c);
                0
            }
        };
        let (word, bit) = self.at(c);
        self.words[word] |= bit;
        below
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
    /// The floor of the current receiving epoch (once a frame opened under
    /// it) and of the one before.
    floor: Option<Floor>,
    prev_floor: Option<Floor>,
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
    pub(super) fn new(peer: PublicKey, tx: [u8; 32], rx: [u8; 32], config: SecConfig) -> Session {
        Session {
            config,
            peer,
            tx: DirKey::new(0, tx),
            tx_counter: 0,
            tx_in_epoch: 0,
            rx: DirKey::new(0, rx),
            retired: None,
            floor: None,
            prev_floor: None,
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
        let r = self.open_uncounted(frame);
        if let Err(reason) = r {
            self.stats.count_drop(reason);
        }
        r
    }

    /// As [`Session::open`], leaving a drop for the caller to count (a
    /// caller that tries another session next counts the final verdict).
    pub fn open_uncounted(&mut self, frame: &[u8]) -> Result<Vec<u8>, DropReason> {
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
                _ => return Err(self.stale_or_altered(epoch, counter)),
            }
        } else if epoch - self.rx.epoch <= MAX_EPOCH_AHEAD {
            Which::Ahead(self.rx.ahead(epoch - self.rx.epoch))
        } else {
            // No genuine sender gets this far ahead: an altered epoch.
            return Err(DropReason::Tampered);
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
        let below = self.window.mark(counter);
        self.stats.deepest_reorder = self.stats.deepest_reorder.max(below);
        self.stats.opened += 1;
        match which {
            Which::Current => {
                match &mut self.floor {
                    Some(f) => f.counter = f.counter.min(counter),
                    None => {
                        self.floor = Some(Floor {
                            epoch: self.rx.epoch,
                            counter,
                        })
                    }
                }
                if let Some(r) = &mut self.retired {
                    r.grace_left -= 1;
                    if r.grace_left == 0 {
                        self.retired = None;
                    }
                }
            }
            Which::Retired => self.stats.opened_in_grace += 1,
            Which::Ahead(new) => self.adopt(new, counter),
        }
        Ok(payload)
    }

    /// The verdict on a frame naming an older epoch than any key held:
    /// `StaleKey` if a genuine frame of that epoch could carry `counter`,
    /// else `Tampered` (see [`Floor`]).
    fn stale_or_altered(&self, epoch: u32, counter: u64) -> DropReason {
        let bound = match (self.prev_floor, self.floor) {
            (Some(p), _) if epoch < p.epoch => Some(p.counter),
            (_, Some(f)) if epoch < f.epoch => Some(f.counter),
            _ => None,
        };
        match bound {
            Some(b) if counter >= b => DropReason::Tampered,
            _ => DropReason::StaleKey,
        }
    }

    /// Adopts the peer's new sending epoch: retires the current receiving
    /// key (into its grace, or forgets it) and moves the own sending key to
    /// at least that epoch.
    fn adopt(&mut self, new: DirKey, counter: u64) {
        let grace = self.config.rekey_grace_frames;
        let epoch = new.epoch;
        if let Some(f) = self.floor {
            self.prev_floor = Some(f);
        }
        self.floor = Some(Floor { epoch, counter });
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
