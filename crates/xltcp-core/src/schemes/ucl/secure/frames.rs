//! The data side of [`Sec`]: admitting packets while the link comes up,
//! sealing them onto the air (with the tampering and the adversary a
//! scenario asks for), and opening the frames that arrive.

use super::air::{Delivered, Origin};
use super::{Adversary, Inbound, Sec, CONTROL};
use crate::schemes::ucl::security::DropReason;
use crate::time::Time;
use crate::wire::{emit, Packet};
use rand::{Rng as _, RngExt as _};

impl Sec {
    /// A frame of this node as it goes on the air: tampered every
    /// `tamper_every`th (counted in `tampered_on_air` by the caller's
    /// guard through the origin).
    pub(super) fn on_air(&mut self, mut bytes: Vec<u8>) -> (Vec<u8>, Origin) {
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
    pub(in crate::schemes::ucl) fn admit(
        &mut self,
        i: usize,
        p: &Packet,
    ) -> Result<bool, &'static str> {
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
    pub(in crate::schemes::ucl) fn seal(&mut self, i: usize, p: &mut Packet) {
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
        let header: Vec<u8> = frame[..crate::schemes::ucl::security::HEADER_LEN].to_vec();
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
    pub(in crate::schemes::ucl) fn inbound(
        &mut self,
        now: Time,
        i: usize,
        p: &mut Packet,
    ) -> (Inbound, bool) {
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
