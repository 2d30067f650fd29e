//! One end of a secured link, from the first handshake message on.

use super::{DropReason, Handshake, HandshakeError, Role, SealError, SecStats, Session};

pub(super) enum LinkState {
    Handshaking(Box<Handshake>),
    Up(Box<Session>),
    Failed(HandshakeError),
}

/// One end of a secured link, from the first handshake message to the
/// last frame: what a UCL agent holds. Frames that come before the session
/// is up are dropped as [`DropReason::NotAuthenticated`]. A handshake
/// message that fails its checks is refused (counted in
/// `handshake_rejected`) and the handshake waits on for the genuine one;
/// a handshake that failed (an untrusted peer) leaves the link down, and a
/// new attempt is a new [`SecureLink`].
///
/// # Lost handshake messages
///
/// The link keeps the last handshake message it sent and the last one it
/// received. A side waiting for an answer calls
/// [`SecureLink::retransmit`] on its own timer; a side that receives again
/// the message it last received (its answer was lost) sends its answer
/// again from the next [`SecureLink::poll_transmit`], even once it is up
/// (the initiator's message 3); message 3 needs no answer, so a responder
/// that is up ignores it again. The same bytes go out again: nothing new
/// is learnt from a resend, and a replayed handshake message costs the
/// replayer one answer it has already heard.
pub struct SecureLink {
    pub(super) state: LinkState,
    /// Counters of what happened before the session (drops, failures).
    pre: SecStats,
    last_sent: Option<Vec<u8>>,
    last_received: Option<Vec<u8>>,
    resend: bool,
    initiator: bool,
    /// Why the last refused handshake message was refused.
    rejected: Option<HandshakeError>,
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
            initiator: handshake.role() == Role::Initiator,
            state: LinkState::Handshaking(Box::new(handshake)),
            pre: SecStats::default(),
            last_sent: None,
            last_received: None,
            resend: false,
            rejected: None,
        }
    }

    /// Whether this end started the handshake.
    pub fn is_initiator(&self) -> bool {
        self.initiator
    }

    /// Why the last refused handshake message was refused (see the type's
    /// doc), if one was.
    pub fn last_rejection(&self) -> Option<&HandshakeError> {
        self.rejected.as_ref()
    }

    /// The last handshake message received, if any.
    pub fn last_received(&self) -> Option<&[u8]> {
        self.last_received.as_deref()
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
        // A new message first: it answers whatever the peer sent.
        let out = match &mut self.state {
            LinkState::Handshaking(hs) => {
                let r = hs.poll_transmit();
                self.settle(r).flatten()
            }
            _ => None,
        };
        self.try_finish();
        if let Some(m) = out {
            self.resend = false;
            self.last_sent = Some(m.clone());
            return Some(m);
        }
        if std::mem::take(&mut self.resend) {
            return self.retransmit_any();
        }
        None
    }

    /// The last handshake message sent, again, while the handshake is
    /// running (for the caller's retransmission timer); `None` once the
    /// link is up or failed, or before anything was sent.
    #[must_use = "the message must be sent to the peer"]
    pub fn retransmit(&mut self) -> Option<Vec<u8>> {
        match self.state {
            LinkState::Handshaking(_) => self.retransmit_any(),
            _ => None,
        }
    }

    /// The last handshake message sent, again, whatever the state (the
    /// initiator's message 3 while no frame has confirmed that the
    /// responder has it); `None` before anything was sent.
    #[must_use = "the message must be sent to the peer"]
    pub fn resend_last(&mut self) -> Option<Vec<u8>> {
        self.retransmit_any()
    }

    fn retransmit_any(&mut self) -> Option<Vec<u8>> {
        let m = self.last_sent.clone()?;
        self.pre.handshake_resends += 1;
        Some(m)
    }

    /// Takes a handshake message from the peer. The message received last
    /// time, received again, schedules a resend of the answer (see the type's
    /// doc). A message that fails its checks, or any message once the link
    /// is up or failed, is refused (counted in `handshake_rejected`) and
    /// changes nothing.
    pub fn handle_handshake(&mut self, msg: &[u8]) -> Result<(), HandshakeError> {
        let failed = matches!(self.state, LinkState::Failed(_));
        if !failed && self.last_received.as_deref() == Some(msg) {
            // Message 3 asks for no answer.
            self.resend = self.initiator || !self.is_up();
            return Ok(());
        }
        let hs = match &mut self.state {
            LinkState::Handshaking(hs) => hs,
            _ => {
                self.reject(HandshakeError::OutOfTurn);
                return Err(HandshakeError::OutOfTurn);
            }
        };
        let r = hs.handle_message(msg);
        if r.is_ok() {
            self.last_received = Some(msg.to_vec());
        }
        let err = r.as_ref().err().cloned();
        self.settle(r);
        self.try_finish();
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn reject(&mut self, e: HandshakeError) {
        self.pre.handshake_rejected += 1;
        self.rejected = Some(e);
    }

    /// Records a handshake error: a refused message, or one that ended the
    /// handshake.
    fn settle<T>(&mut self, r: Result<T, HandshakeError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(
                e @ (HandshakeError::OutOfTurn
                | HandshakeError::Crypto { .. }
                | HandshakeError::Malformed { .. }),
            ) => {
                self.reject(e);
                None
            }
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
        self.state = match (*hs).finish() {
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

    /// As [`SecureLink::open`], leaving a drop for the caller to count.
    pub fn open_uncounted(&mut self, frame: &[u8]) -> Result<Vec<u8>, DropReason> {
        match &mut self.state {
            LinkState::Up(s) => s.open_uncounted(frame),
            _ => Err(DropReason::NotAuthenticated),
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
