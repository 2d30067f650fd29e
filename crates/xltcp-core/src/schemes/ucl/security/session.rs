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
    pub(super) fn new(peer: PublicKey, tx: [u8; 32], rx: [u8; 32], config: SecConfig) -> Session {
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
