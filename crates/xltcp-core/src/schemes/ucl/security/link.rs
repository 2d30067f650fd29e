//! One end of a secured link, from the first handshake message on.

use super::{DropReason, Handshake, HandshakeError, SealError, SecStats, Session};

pub(super) enum LinkState {
    Handshaking(Handshake),
    Up(Box<Session>),
    Failed(HandshakeError),
}

/// One end of a secured link, from the first handshake message to the
/// last frame: what a UCL agent holds. Frames that come before the session
/// is up are dropped as [`DropReason::NotAuthenticated`]; a failed
/// handshake leaves the link down (start a new one with
/// [`SecureLink::new`]).
pub struct SecureLink {
    pub(super) state: LinkState,
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
            Ok(s) => LinkState::Up(Box::new(s)),
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
