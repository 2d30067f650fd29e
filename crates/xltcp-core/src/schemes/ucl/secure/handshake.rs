//! The handshake side of [`Sec`]: the timer that starts, resends and
//! retries handshakes, putting handshake messages on the air, and taking
//! the peer's messages from it.

use super::air::Origin;
use super::{Adversary, Inbound, Sec};
use crate::schemes::ucl::security::{SecureLink, HANDSHAKE_MSG_LENS};
use crate::time::Time;
use crate::wire::{Packet, PacketMeta, Segment};
use std::net::Ipv4Addr;

/// Bytes of the handshake's first message (the only one a BS may get at
/// any time).
const FIRST_LEN: usize = HANDSHAKE_MSG_LENS[0];

impl Sec {
    /// Arms guard `i`'s timer at the current wait.
    fn arm(&mut self, now: Time, i: usize) {
        let g = &mut self.guards[i];
        g.resend_at = Some(now + g.wait);
    }

    /// Starts handshakes due, resends unanswered messages, and starts new
    /// attempts; the guards that came up.
    pub(in crate::schemes::ucl) fn on_timeout(&mut self, now: Time) -> Vec<usize> {
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

    /// A handshake message from the air for guard `i`: consumed.
    pub(super) fn inbound_control(&mut self, now: Time, i: usize, p: &Packet) -> (Inbound, bool) {
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
}
