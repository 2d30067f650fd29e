//! One side of one secured link ([`Guard`]): its handshake attempts, the
//! session in use, the one being negotiated beside it and the one it left,
//! its back-off and the packets it holds until it is up.

use super::air::Entropy;
use super::{SecuritySpec, UclSecStats, ERRORS_MAX};
use crate::schemes::ucl::security::{
    ephemeral_seed, Handshake, Identity, SecConfig, SecureLink, TrustedPeers,
};
use crate::time::{Dur, Time};
use crate::wire::Packet;
use std::collections::VecDeque;

/// Where a handshake's ephemeral keys come from.
#[derive(Clone, Debug)]
pub(super) enum Ephemeral {
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
pub(super) struct Previous {
    pub(super) link: SecureLink,
    /// Frames still to open under the new session before it is forgotten.
    pub(super) grace_left: u32,
}

/// One side of one secured link (the host's, or the BS's toward a host).
#[derive(Debug)]
pub(in crate::schemes::ucl) struct Guard {
    /// `bs/host<h>` or `host<h>`: names errors.
    pub(super) name: String,
    /// Whether this side starts the handshake (the host).
    pub(super) initiator: bool,
    /// The flow whose route the control frames take.
    pub(super) flow: Option<u32>,
    /// The identity and trusted peers each attempt uses.
    pub(super) keys: Option<(Identity, TrustedPeers)>,
    pub(super) ephemeral: Ephemeral,
    pub(super) session: SecConfig,
    /// Handshakes started so far.
    pub(super) attempts: u32,
    /// The link in use (handshaking, up, or failed).
    pub(super) link: Option<SecureLink>,
    /// A new handshake run while `link` is up.
    pub(super) next: Option<SecureLink>,
    pub(super) previous: Option<Previous>,
    /// Set when no link can ever come up (keys, randomness).
    pub(super) down: Option<String>,
    pub(super) started: bool,
    /// The host: a frame from the BS opened under the current session.
    pub(super) confirmed: bool,
    /// Messages sent since the last answer.
    pub(super) sent: u32,
    /// The current wait for an answer (the back-off).
    pub(super) wait: Dur,
    pub(super) resend_at: Option<Time>,
    /// The timer starts a new attempt (rather than resending).
    pub(super) retry: bool,
    /// Packets waiting for the link.
    pub(in crate::schemes::ucl) held: VecDeque<Packet>,
    pub(super) up: bool,
    pub(super) bytes_in_epoch: u64,
    pub(super) stats: UclSecStats,
}

impl Guard {
    pub(super) fn new(
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
    pub(super) fn attempt(&mut self) -> Option<SecureLink> {
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
    pub(super) fn failed(&self) -> bool {
        self.down.is_some()
    }

    pub(super) fn is_up(&self) -> bool {
        self.link.as_ref().is_some_and(SecureLink::is_up)
    }

    pub(super) fn note_error(&mut self, e: String) {
        if self.stats.errors.len() < ERRORS_MAX {
            self.stats.errors.push(format!("{}: {e}", self.name));
        }
    }

    /// Keeps the counters of a link this guard lets go.
    pub(super) fn retire(&mut self, old: Option<SecureLink>) {
        if let Some(l) = old {
            self.stats.link = self.stats.link.plus(&l.stats());
        }
    }

    /// Moves to the session `next` completed; the one left opens frames
    /// in flight for `rekey_grace` frames.
    pub(super) fn switch(&mut self) {
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
    pub(super) fn progress(&mut self, timeout: Dur) {
        self.sent = 0;
        self.wait = timeout;
    }

    pub(super) fn stats(&self) -> UclSecStats {
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
