//! The UCL pair's security driven by hand, sans-IO: one host and the BS
//! exchange what they put in their outboxes, with the air in between
//! changing or losing what a test says, and timers fired when nothing else
//! moves.

use super::air::Origin;
use super::*;
use crate::schemes::snoop::tests::data;

/// What the air does to the `n`th handshake message (from 1, both
/// directions counted together).
#[derive(Clone, Copy, Debug, PartialEq)]
enum OnAir {
    Pass,
    Flip,
    Lose,
}

struct Pair {
    host: Sec,
    bs: Sec,
    air: Air,
    now: Time,
    /// Handshake messages that crossed (or did not cross) the air.
    messages: usize,
}

fn spec() -> SecuritySpec {
    SecuritySpec::default()
}

impl Pair {
    fn new(host: SecuritySpec, bs: SecuritySpec, air: Air) -> Pair {
        Pair {
            host: Sec::at_host(host, air.clone(), 9, 0, Some(0), 2),
            bs: Sec::at_bs(bs, air.clone(), 9, &[Some(0)], 2),
            air,
            now: Time::ZERO,
            messages: 0,
        }
    }

    /// Runs until both sides are up (or `limit` passes), moving handshake
    /// messages through `on_air`.
    fn run(&mut self, limit: Dur, mut on_air: impl FnMut(usize) -> OnAir) {
        let end = Time::ZERO + limit;
        while self.now < end {
            for sec in [&mut self.host, &mut self.bs] {
                if sec.poll_timeout().is_some_and(|t| t <= self.now) {
                    sec.on_timeout(self.now);
                }
            }
            let mut moved = false;
            for to_bs in [true, false] {
                let (from, to) = if to_bs {
                    (&mut self.host, &mut self.bs)
                } else {
                    (&mut self.bs, &mut self.host)
                };
                while let Some(mut p) = from.outbox.pop_front() {
                    moved = true;
                    if p.meta.link_frame & CONTROL != 0 {
                        self.messages += 1;
                        match on_air(self.messages) {
                            OnAir::Pass => {}
                            OnAir::Lose => continue,
                            OnAir::Flip => {
                                let mut a = self.air.lock();
                                let f = a.frames.get_mut(&p.meta.link_frame).unwrap();
                                f.bytes[5] ^= 0x40;
                                f.origin = Origin::Tampered;
                            }
                        }
                    }
                    to.inbound(self.now, 0, &mut p);
                }
            }
            if self.host.guards[0].is_up() && self.bs.guards[0].is_up() {
                return;
            }
            if !moved {
                let next = [self.host.poll_timeout(), self.bs.poll_timeout()]
                    .into_iter()
                    .flatten()
                    .min();
                match next {
                    Some(t) if t > self.now => self.now = t,
                    Some(_) => {}
                    None => return,
                }
            }
        }
    }

    /// A data packet from the host, sealed, opened at the BS; then one
    /// back (which confirms the session to the host).
    fn data_flows(&mut self) -> bool {
        let mut up = data(1);
        self.host.seal(0, &mut up);
        let there = matches!(self.bs.inbound(self.now, 0, &mut up).0, Inbound::Open);
        let mut down = data(2);
        self.bs.seal(0, &mut down);
        let back = matches!(self.host.inbound(self.now, 0, &mut down).0, Inbound::Open);
        there && back
    }

    fn stats(&self) -> UclSecStats {
        let mut s = self.host.stats();
        s.merge(&self.bs.stats());
        s
    }
}

#[test]
fn a_clean_handshake_takes_three_messages() {
    let mut pair = Pair::new(spec(), spec(), Air::new());
    pair.run(Dur::from_secs(1), |_| OnAir::Pass);
    assert!(pair.data_flows());
    let s = pair.stats();
    assert_eq!(s.handshake_frames, 3, "{s:?}");
    assert_eq!(s.link.handshakes_done, 2);
    assert_eq!(s.handshake_retries + s.link.handshake_rejected, 0);
    assert_eq!(s.ephemeral_keys, Some("seeded"));
    assert!(pair.host.guards[0].confirmed);
    assert_eq!(pair.host.poll_timeout(), None, "nothing left to wait for");
}

#[test]
fn each_handshake_message_tampered_or_lost_once_is_recovered() {
    for n in 1..=3 {
        for how in [OnAir::Flip, OnAir::Lose] {
            let mut pair = Pair::new(spec(), spec(), Air::new());
            pair.run(
                Dur::from_secs(30),
                |k| if k == n { how } else { OnAir::Pass },
            );
            let s = pair.stats();
            assert!(pair.data_flows(), "message {n} {how:?}: {s:?}");
            assert_eq!(s.link.handshakes_done, 2, "message {n} {how:?}: {s:?}");
            // A handshake came up within a few waits of 100 ms.
            assert!(pair.now < Time::ZERO + Dur::from_secs(2), "{:?}", pair.now);
            assert!(s.link.handshake_resends >= 1, "message {n} {how:?}: {s:?}");
            match (n, how) {
                // The BS cannot tell a changed first message from a new
                // one: it answers, the host refuses the answer, sends its
                // first message again, and the BS starts over on it.
                (1, OnAir::Flip) => {
                    assert!(s.link.handshake_rejected >= 1, "{s:?}");
                    assert_eq!(s.handshake_retries, 1, "{s:?}");
                }
                (_, OnAir::Flip) => {
                    assert!(s.link.handshake_rejected >= 1, "{s:?}");
                    assert_eq!(s.handshake_retries, 0, "{s:?}");
                }
                _ => assert_eq!(s.link.handshake_rejected, 0, "{s:?}"),
            }
            assert_eq!(s.link.handshakes_failed, 0, "message {n} {how:?}: {s:?}");
            let altered = u64::from(how == OnAir::Flip);
            assert_eq!(s.altered_handshake_received, altered, "{s:?}");
        }
    }
}

#[test]
fn resends_back_off_from_100ms_doubling_to_5s_then_a_new_attempt() {
    let mut pair = Pair::new(spec(), spec(), Air::new());
    // The host's messages never arrive: its first message is sent at 0,
    // then again after 100, 200, 400 ms ... up to 5 s a wait.
    let mut sent_at = Vec::new();
    let mut now = Time::ZERO;
    pair.host.on_timeout(now);
    for _ in 0..12 {
        sent_at.push((now - Time::ZERO).as_secs_f64());
        pair.host.outbox.clear();
        now = pair.host.poll_timeout().unwrap();
        pair.host.on_timeout(now);
    }
    let waits: Vec<f64> = sent_at.windows(2).map(|w| w[1] - w[0]).collect();
    let want = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 5.0, 5.0, 5.0];
    for (got, want) in waits.iter().zip(want) {
        assert!((got - want).abs() < 1e-9, "{waits:?}");
    }
    let s = pair.host.stats();
    // Eight messages (handshake_tries), then a new attempt with new keys.
    assert_eq!(s.handshake_timeouts, 1, "{s:?}");
    assert_eq!(s.handshake_retries, 1, "{s:?}");
    assert_eq!(s.link.handshakes_failed, 1, "{s:?}");
    assert_eq!(s.handshake_frames, 13);
}

#[test]
fn an_untrusted_peer_fails_the_attempt_and_the_host_tries_again() {
    // The BS trusts nobody the host is.
    let dir = std::env::temp_dir().join(format!("xltcp-secure-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bs = Identity::generate(9, "bs");
    let stranger = Identity::generate(9, "stranger");
    let key = dir.join("bs.key");
    let trusted = dir.join("bs.trusted");
    std::fs::write(&key, bs.to_file_string()).unwrap();
    std::fs::write(&trusted, format!("{} stranger\n", stranger.public())).unwrap();
    let files = SecuritySpec {
        keys: KeySource::Files {
            identity: key,
            trusted,
            written: [String::new(), String::new()],
        },
        ..spec()
    };
    let mut pair = Pair::new(spec(), files, Air::new());
    pair.run(Dur::from_secs(60), |_| OnAir::Pass);
    let s = pair.stats();
    assert!(!pair.bs.guards[0].is_up());
    assert!(s.link.handshakes_failed >= 2, "{s:?}");
    assert!(s.handshake_retries >= 2, "{s:?}");
    assert!(
        s.errors.iter().any(|e| e.contains("not trusted")),
        "{:?}",
        s.errors
    );
    // Never down for good: the next attempt is on the timer.
    assert!(pair.host.poll_timeout().is_some());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bs_that_lost_the_session_gets_a_new_one_from_the_host() {
    let mut pair = Pair::new(spec(), spec(), Air::new());
    pair.run(Dur::from_secs(1), |_| OnAir::Pass);
    assert!(pair.data_flows());
    // The BS's session is gone (as after a restart): the host hears
    // nothing from it, and its own frames are not opened.
    pair.bs = Sec::at_bs(spec(), pair.air.clone(), 9, &[Some(0)], 2);
    pair.host.guards[0].confirmed = false;
    pair.host.guards[0].resend_at = Some(pair.now);
    let before = pair.stats().handshake_retries;
    pair.run(Dur::from_secs(120), |_| OnAir::Pass);
    assert!(pair.data_flows(), "{:?}", pair.stats());
    assert!(pair.stats().handshake_retries > before);
}

#[test]
fn os_keys_differ_from_run_to_run_and_seeded_keys_do_not() {
    use std::sync::atomic::{AtomicU8, Ordering};
    static DRAWS: AtomicU8 = AtomicU8::new(0);
    // A stand-in for the OS's randomness: different bytes every draw.
    let entropy = || {
        Entropy::new(|| {
            let k = DRAWS.fetch_add(1, Ordering::Relaxed);
            Ok([k.wrapping_mul(37).wrapping_add(1); 32])
        })
    };
    let sealed = |air: Air, seeded: bool| {
        let s = SecuritySpec {
            seeded_keys: seeded,
            ..spec()
        };
        let mut pair = Pair::new(s.clone(), s, air);
        pair.run(Dur::from_secs(1), |_| OnAir::Pass);
        assert!(pair.data_flows());
        let mut p = data(7);
        pair.host.seal(0, &mut p);
        (pair.air.frame(p.meta.link_frame).unwrap(), pair.stats())
    };
    let (a, sa) = sealed(Air::new().with_entropy(entropy()), false);
    let (b, _) = sealed(Air::new().with_entropy(entropy()), false);
    assert_eq!(sa.ephemeral_keys, Some("os"));
    assert_ne!(a, b, "OS keys: other session keys, other bytes");
    let (c, sc) = sealed(Air::new().with_entropy(entropy()), true);
    let (d, _) = sealed(Air::new(), false);
    assert_eq!(sc.ephemeral_keys, Some("seeded"));
    assert_eq!(c, d, "seeded keys: the same session keys");
    // A source that fails leaves the link down, with the reason.
    let broken = Air::new().with_entropy(Entropy::new(|| Err("no device".into())));
    let pair = Pair::new(spec(), spec(), broken);
    let s = pair.stats();
    assert!(
        s.errors.iter().any(|e| e.contains("no OS randomness")),
        "{s:?}"
    );
    assert!(pair.host.guards[0].failed());
}
