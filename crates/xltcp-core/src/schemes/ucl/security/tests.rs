//! Scripted tests of the link security: handshake, sealing, every drop
//! reason, re-keying, key files, determinism.

use super::handshake::SeededResolver;
use super::link::LinkState;
use super::*;
use snow::params::{CipherChoice, DHChoice, HashChoice};
use snow::resolvers::CryptoResolver;
use snow::types::{Cipher, Dh, Hash, Random};

const SEED: u64 = 7;

fn host() -> Identity {
    Identity::generate(SEED, "host")
}

fn bs() -> Identity {
    Identity::generate(SEED, "bs")
}

/// Runs a handshake to its end or its first error, moving each message
/// through `on_air` (which may change it). Returns both links.
fn handshake_with(
    init: Handshake,
    resp: Handshake,
    mut on_air: impl FnMut(usize, &mut Vec<u8>),
) -> (SecureLink, SecureLink) {
    let mut a = SecureLink::new(init);
    let mut b = SecureLink::new(resp);
    let mut step = 0;
    loop {
        let mut moved = false;
        if let Some(mut m) = a.poll_transmit() {
            step += 1;
            on_air(step, &mut m);
            let _ = b.handle_handshake(&m);
            moved = true;
        }
        if let Some(mut m) = b.poll_transmit() {
            step += 1;
            on_air(step, &mut m);
            let _ = a.handle_handshake(&m);
            moved = true;
        }
        if !moved {
            return (a, b);
        }
    }
}

fn pair_with(config: SecConfig, seed: u64) -> (SecureLink, SecureLink) {
    let (h, b) = (
        Identity::generate(seed, "host"),
        Identity::generate(seed, "bs"),
    );
    let init = Handshake::initiator(
        &h,
        TrustedPeers::new().with(&b),
        ephemeral_seed(seed, "ucl.handshake.host.0"),
        config,
    )
    .unwrap();
    let resp = Handshake::responder(
        &b,
        TrustedPeers::new().with(&h),
        ephemeral_seed(seed, "ucl.handshake.bs.0"),
        config,
    )
    .unwrap();
    handshake_with(init, resp, |_, _| {})
}

/// An established pair of sessions (host = initiator, bs = responder).
fn sessions_with(config: SecConfig) -> (Session, Session) {
    let (a, b) = pair_with(config, SEED);
    let take = |l: SecureLink| match l.state {
        LinkState::Up(s) => *s,
        _ => panic!("handshake did not finish: {:?}", l.failure()),
    };
    (take(a), take(b))
}

fn sessions() -> (Session, Session) {
    sessions_with(SecConfig::default())
}

fn payload(i: usize, len: usize) -> Vec<u8> {
    (0..len).map(|k| (i * 31 + k * 7) as u8).collect()
}

#[test]
fn handshake_completes_and_authenticates_both_sides() {
    let mut sizes = Vec::new();
    let init = Handshake::initiator(
        &host(),
        TrustedPeers::new().with(&bs()),
        [1; 32],
        SecConfig::default(),
    )
    .unwrap();
    let resp = Handshake::responder(
        &bs(),
        TrustedPeers::new().with(&host()),
        [2; 32],
        SecConfig::default(),
    )
    .unwrap();
    let (a, b) = handshake_with(init, resp, |_, m| sizes.push(m.len()));
    assert!(a.is_up() && b.is_up());
    assert_eq!(sizes, HANDSHAKE_MSG_LENS.to_vec());
    assert_eq!(sizes.iter().sum::<usize>(), handshake_bytes());
    assert_eq!(a.session().unwrap().peer(), bs().public());
    assert_eq!(b.session().unwrap().peer(), host().public());
    assert_eq!(a.stats().handshakes_done, 1);
}

#[test]
fn lost_handshake_messages_are_recovered_by_resending() {
    // Each of the three messages is lost once, in turn.
    for lost in 1..=3usize {
        let mk = |k: u8| {
            (
                Handshake::initiator(
                    &host(),
                    TrustedPeers::new().with(&bs()),
                    [k; 32],
                    SecConfig::default(),
                )
                .unwrap(),
                Handshake::responder(
                    &bs(),
                    TrustedPeers::new().with(&host()),
                    [k + 1; 32],
                    SecConfig::default(),
                )
                .unwrap(),
            )
        };
        let (i, r) = mk(20);
        let (mut a, mut b) = (SecureLink::new(i), SecureLink::new(r));
        let mut sent = 0;
        let mut deliver = |m: Option<Vec<u8>>, to: &mut SecureLink| {
            if let Some(m) = m {
                sent += 1;
                if sent != lost {
                    to.handle_handshake(&m).unwrap();
                }
            }
        };
        // Run: each side sends whatever it has; the one still waiting
        // retransmits on its "timer" when nothing moves.
        for _ in 0..6 {
            deliver(a.poll_transmit(), &mut b);
            deliver(b.poll_transmit(), &mut a);
            if !b.is_up() {
                let m = if a.is_up() { None } else { a.retransmit() };
                deliver(m, &mut b);
                deliver(b.retransmit(), &mut a);
            }
        }
        assert!(a.is_up() && b.is_up(), "message {lost} lost: {a:?} {b:?}");
        assert!(a.stats().handshake_resends + b.stats().handshake_resends >= 1);
        let f = a.seal(b"after loss").unwrap();
        assert_eq!(b.open(&f).unwrap(), b"after loss");
    }
}

#[test]
fn a_failed_link_answers_nothing_more() {
    let intruder = Identity::generate(SEED, "intruder");
    let mut msgs = Vec::new();
    let init = Handshake::initiator(
        &intruder,
        TrustedPeers::new().with(&bs()),
        [30; 32],
        SecConfig::default(),
    )
    .unwrap();
    let resp = Handshake::responder(
        &bs(),
        TrustedPeers::new().with(&host()),
        [31; 32],
        SecConfig::default(),
    )
    .unwrap();
    let (_, mut b) = handshake_with(init, resp, |_, m| msgs.push(m.clone()));
    assert!(b.failure().is_some());
    for m in &msgs {
        assert_eq!(b.handle_handshake(m), Err(HandshakeError::OutOfTurn));
    }
    assert_eq!(b.poll_transmit(), None);
    assert_eq!(b.retransmit(), None);
}

#[test]
fn frames_round_trip_both_ways_with_the_stated_overhead() {
    let (mut h, mut b) = sessions();
    for (i, len) in [0usize, 1, 64, 576, 1500].into_iter().enumerate() {
        let p = payload(i, len);
        let f = h.seal(&p).unwrap();
        assert_eq!(f.len(), sealed_len(len));
        assert_eq!(f.len() - len, FRAME_OVERHEAD);
        if len >= 16 {
            // Confidentiality: the payload does not appear on the air.
            assert_ne!(&f[HEADER_LEN..HEADER_LEN + len], &p[..]);
        }
        assert_eq!(b.open(&f).unwrap(), p);
        let g = b.seal(&p).unwrap();
        assert_eq!(h.open(&g).unwrap(), p);
    }
    assert_eq!(h.stats().sealed, 5);
    assert_eq!(b.stats().opened, 5);
    assert_eq!(b.stats().dropped(), 0);
}

#[test]
fn every_tampered_byte_is_dropped_and_counted() {
    let (mut h, mut b) = sessions();
    let f = h.seal(&payload(1, 40)).unwrap();
    for pos in 0..f.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut t = f.clone();
            t[pos] ^= flip;
            let r = b.open(&t);
            assert_eq!(r, Err(DropReason::Tampered), "byte {pos} ^ {flip:#x}");
        }
    }
    // Every changed byte, header included, is `tampered`, never another
    // reason.
    let n = (f.len() * 3) as u64;
    assert_eq!(b.stats().tampered, n);
    assert_eq!(b.stats().dropped(), n);
    // The window was not touched: the genuine frame still opens.
    assert_eq!(b.open(&f).unwrap(), payload(1, 40));
}

#[test]
fn truncated_or_extended_frames_are_dropped() {
    let (mut h, mut b) = sessions();
    let f = h.seal(&payload(2, 20)).unwrap();
    for len in 0..FRAME_OVERHEAD {
        assert_eq!(b.open(&f[..len]), Err(DropReason::Malformed));
    }
    for len in FRAME_OVERHEAD..f.len() {
        assert_eq!(b.open(&f[..len]), Err(DropReason::Tampered), "len {len}");
    }
    let mut longer = f.clone();
    longer.push(0);
    assert_eq!(b.open(&longer), Err(DropReason::Tampered));
    assert_eq!(b.stats().malformed, FRAME_OVERHEAD as u64);
}

#[test]
fn a_forged_counter_is_tampered_never_replayed_or_too_old() {
    // Authenticity is checked before the window: a frame whose counter
    // was rewritten is Tampered, whatever the window would say.
    let config = SecConfig {
        replay_window: 64,
        ..SecConfig::default()
    };
    let (mut h, mut b) = sessions_with(config);
    let frames: Vec<Vec<u8>> = (0..100).map(|i| h.seal(&payload(i, 10)).unwrap()).collect();
    b.open(&frames[0]).unwrap();
    b.open(&frames[99]).unwrap();
    for (from, claimed) in [(98usize, 99u64), (98, 0), (50, 99), (98, 1)] {
        let mut f = frames[from].clone();
        f[4..HEADER_LEN].copy_from_slice(&claimed.to_be_bytes());
        assert_eq!(b.open(&f), Err(DropReason::Tampered), "{from} as {claimed}");
    }
    let s = b.stats();
    assert_eq!((s.tampered, s.replayed, s.too_old), (4, 0, 0));
    assert!(b.open(&frames[98]).is_ok());
}

#[test]
fn a_replayed_frame_is_dropped_as_replayed() {
    let (mut h, mut b) = sessions();
    let f = h.seal(b"one").unwrap();
    let g = h.seal(b"two").unwrap();
    assert!(b.open(&f).is_ok());
    assert!(b.open(&g).is_ok());
    assert_eq!(b.open(&f), Err(DropReason::Replayed));
    assert_eq!(b.open(&g), Err(DropReason::Replayed));
    assert_eq!(b.stats().replayed, 2);
    assert_eq!(b.stats().opened, 2);
}

#[test]
fn reordering_within_the_window_is_accepted_beyond_it_too_old() {
    let config = SecConfig {
        replay_window: 64,
        ..SecConfig::default()
    };
    let (mut h, mut b) = sessions_with(config);
    let frames: Vec<Vec<u8>> = (0..200).map(|i| h.seal(&payload(i, 10)).unwrap()).collect();
    // Counter 100 first, then 37..=99 backwards (all within 64 of 100).
    assert!(b.open(&frames[100]).is_ok());
    for i in (37..100).rev() {
        assert_eq!(b.open(&frames[i]).unwrap(), payload(i, 10), "counter {i}");
    }
    // 36 is 64 below 100: left of the window, although never seen.
    assert_eq!(b.open(&frames[36]), Err(DropReason::TooOld));
    assert_eq!(b.open(&frames[0]), Err(DropReason::TooOld));
    // Moving the top moves the window.
    assert!(b.open(&frames[199]).is_ok());
    assert_eq!(b.open(&frames[135]), Err(DropReason::TooOld));
    assert!(b.open(&frames[136]).is_ok());
    assert_eq!(b.open(&frames[136]), Err(DropReason::Replayed));
    let s = b.stats();
    assert_eq!((s.opened, s.too_old, s.replayed), (66, 3, 1));
}

#[test]
fn a_larger_window_accepts_what_a_smaller_one_calls_too_old() {
    for (window, verdict) in [(64, Err(DropReason::TooOld)), (256, Ok(()))] {
        let config = SecConfig {
            replay_window: window,
            ..SecConfig::default()
        };
        let (mut h, mut b) = sessions_with(config);
        let frames: Vec<Vec<u8>> = (0..200).map(|i| h.seal(&payload(i, 4)).unwrap()).collect();
        assert!(b.open(&frames[199]).is_ok());
        assert_eq!(b.open(&frames[50]).map(|_| ()), verdict, "window {window}");
    }
}

#[test]
fn frames_before_the_session_are_not_authenticated() {
    let (mut h, _) = sessions();
    let f = h.seal(b"early").unwrap();
    let mut pending = SecureLink::new(
        Handshake::responder(
            &bs(),
            TrustedPeers::new().with(&host()),
            [3; 32],
            SecConfig::default(),
        )
        .unwrap(),
    );
    assert_eq!(pending.open(&f), Err(DropReason::NotAuthenticated));
    assert_eq!(pending.seal(b"x"), Err(SealError::NotAuthenticated));
    assert_eq!(pending.stats().not_authenticated, 1);
}

#[test]
fn an_untrusted_initiator_is_refused_by_the_responder() {
    let intruder = Identity::generate(SEED, "intruder");
    let init = Handshake::initiator(
        &intruder,
        TrustedPeers::new().with(&bs()),
        [4; 32],
        SecConfig::default(),
    )
    .unwrap();
    let resp = Handshake::responder(
        &bs(),
        TrustedPeers::new().with(&host()),
        [5; 32],
        SecConfig::default(),
    )
    .unwrap();
    let (mut a, mut b) = handshake_with(init, resp, |_, _| {});
    assert_eq!(
        b.failure(),
        Some(&HandshakeError::UnauthenticatedPeer {
            key: intruder.public()
        })
    );
    assert!(!b.is_up());
    assert_eq!(b.stats().handshakes_failed, 1);
    // The intruder finished its side (it trusted the BS) but the BS has no
    // session: its frames are dropped, never delivered.
    assert!(a.is_up());
    let f = a.seal(b"let me in").unwrap();
    assert_eq!(b.open(&f), Err(DropReason::NotAuthenticated));
    assert_eq!(b.stats().not_authenticated, 1);
}

#[test]
fn an_untrusted_responder_is_refused_before_message_3() {
    let rogue = Identity::generate(SEED, "rogue-bs");
    let init = Handshake::initiator(
        &host(),
        TrustedPeers::new().with(&bs()),
        [6; 32],
        SecConfig::default(),
    )
    .unwrap();
    let resp = Handshake::responder(
        &rogue,
        TrustedPeers::new().with(&host()),
        [7; 32],
        SecConfig::default(),
    )
    .unwrap();
    let mut steps = 0;
    let (a, b) = handshake_with(init, resp, |_, _| steps += 1);
    assert_eq!(
        a.failure(),
        Some(&HandshakeError::UnauthenticatedPeer {
            key: rogue.public()
        })
    );
    assert_eq!(steps, 2, "the host must not send message 3");
    assert!(!a.is_up() && !b.is_up());
}

#[test]
fn a_wrong_key_fails_the_handshake() {
    // The host's trusted set holds another BS key than the one it meets.
    let other = Identity::generate(SEED + 1, "bs");
    assert_ne!(other.public(), bs().public());
    let init = Handshake::initiator(
        &host(),
        TrustedPeers::new().with(&other),
        [8; 32],
        SecConfig::default(),
    )
    .unwrap();
    let resp = Handshake::responder(
        &bs(),
        TrustedPeers::new().with(&host()),
        [9; 32],
        SecConfig::default(),
    )
    .unwrap();
    let (a, _) = handshake_with(init, resp, |_, _| {});
    assert!(matches!(
        a.failure(),
        Some(HandshakeError::UnauthenticatedPeer { .. })
    ));
}

/// A static key that shows one public key but computes its DHs with
/// another private key: an impostor that copied a trusted node's public
/// key without having its private key. Ephemeral keys behave normally.
struct ImpostorDh {
    inner: Box<dyn Dh>,
    shown: Option<[u8; KEY_LEN]>,
    fake: [u8; KEY_LEN],
}

impl Dh for ImpostorDh {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn pub_len(&self) -> usize {
        self.inner.pub_len()
    }
    fn priv_len(&self) -> usize {
        self.inner.priv_len()
    }
    fn set(&mut self, privkey: &[u8]) {
        // `set` is how snow installs the static key.
        self.inner.set(privkey);
        self.shown = Some(self.fake);
    }
    fn generate(&mut self, rng: &mut dyn Random) -> Result<(), snow::Error> {
        self.shown = None;
        self.inner.generate(rng)
    }
    fn pubkey(&self) -> &[u8] {
        match &self.shown {
            Some(k) => k,
            None => self.inner.pubkey(),
        }
    }
    fn privkey(&self) -> &[u8] {
        self.inner.privkey()
    }
    fn dh(&self, pubkey: &[u8], out: &mut [u8]) -> Result<(), snow::Error> {
        self.inner.dh(pubkey, out)
    }
}

struct ImpostorResolver {
    inner: SeededResolver,
    fake: [u8; KEY_LEN],
}

impl CryptoResolver for ImpostorResolver {
    fn resolve_rng(&self) -> Option<Box<dyn Random>> {
        self.inner.resolve_rng()
    }
    fn resolve_dh(&self, choice: &DHChoice) -> Option<Box<dyn Dh>> {
        Some(Box::new(ImpostorDh {
            inner: self.inner.resolve_dh(choice)?,
            shown: None,
            fake: self.fake,
        }))
    }
    fn resolve_hash(&self, choice: &HashChoice) -> Option<Box<dyn Hash>> {
        self.inner.resolve_hash(choice)
    }
    fn resolve_cipher(&self, choice: &CipherChoice) -> Option<Box<dyn Cipher>> {
        self.inner.resolve_cipher(choice)
    }
}

fn impostor_handshake(
    role: Role,
    me: &Identity,
    poses_as: &Identity,
    trusts: &Identity,
) -> Handshake {
    let fake = poses_as.public().0;
    Handshake::with_resolver(
        role,
        me,
        TrustedPeers::new().with(trusts),
        Box::new(move || {
            Box::new(ImpostorResolver {
                inner: SeededResolver { seed: [10; 32] },
                fake,
            })
        }),
        SecConfig::default(),
    )
    .unwrap()
}

#[test]
fn a_trusted_public_key_without_its_private_key_fails() {
    let impostor = Identity::generate(SEED, "impostor");
    // Posing as the host towards the BS: the BS reads the host's (trusted)
    // key in message 3, but the `se` DH was made with another private key,
    // so the payload's tag does not verify.
    let init = impostor_handshake(Role::Initiator, &impostor, &host(), &bs());
    let resp = Handshake::responder(
        &bs(),
        TrustedPeers::new().with(&host()),
        [11; 32],
        SecConfig::default(),
    )
    .unwrap();
    let (_, b) = handshake_with(init, resp, |_, _| {});
    // Refused, and the BS waits on for a genuine message 3.
    assert_eq!(
        b.last_rejection(),
        Some(&HandshakeError::Crypto { step: 3 })
    );
    assert_eq!(b.failure(), None);
    assert!(!b.is_up());
    // Posing as the BS towards the host: message 2 fails at the host.
    let init = Handshake::initiator(
        &host(),
        TrustedPeers::new().with(&bs()),
        [12; 32],
        SecConfig::default(),
    )
    .unwrap();
    let resp = impostor_handshake(Role::Responder, &impostor, &bs(), &host());
    let (a, _) = handshake_with(init, resp, |_, _| {});
    assert_eq!(
        a.last_rejection(),
        Some(&HandshakeError::Crypto { step: 2 })
    );
    assert!(!a.is_up());
    // Control: the same impostor machinery showing its own key works
    // against a peer that trusts that key (the failure above is the key's).
    let init = impostor_handshake(Role::Initiator, &impostor, &impostor, &bs());
    let resp = Handshake::responder(
        &bs(),
        TrustedPeers::new().with(&impostor),
        [11; 32],
        SecConfig::default(),
    )
    .unwrap();
    let (a, b) = handshake_with(init, resp, |_, _| {});
    assert!(a.is_up() && b.is_up());
}

#[test]
fn any_modified_handshake_message_is_refused_and_the_genuine_one_completes() {
    for (step, pos) in [(2usize, 40usize), (2, 95), (3, 0), (3, 47), (3, 63)] {
        let init = Handshake::initiator(
            &host(),
            TrustedPeers::new().with(&bs()),
            [13; 32],
            SecConfig::default(),
        )
        .unwrap();
        let resp = Handshake::responder(
            &bs(),
            TrustedPeers::new().with(&host()),
            [14; 32],
            SecConfig::default(),
        )
        .unwrap();
        let mut genuine = None;
        let (mut a, mut b) = handshake_with(init, resp, |s, m| {
            if s == step {
                genuine = Some(m.clone());
                m[pos] ^= 0x01;
            }
        });
        let refused = if step == 2 { &a } else { &b };
        assert_eq!(
            refused.last_rejection(),
            Some(&HandshakeError::Crypto { step }),
            "message {step} byte {pos}"
        );
        assert_eq!(refused.failure(), None, "the handshake waits on");
        assert_eq!(refused.stats().handshake_rejected, 1);
        assert!(!a.is_up() || !b.is_up());
        // The genuine message, sent again, completes the handshake.
        let genuine = genuine.unwrap();
        if step == 2 {
            a.handle_handshake(&genuine).unwrap();
            let m3 = a.poll_transmit().unwrap();
            b.handle_handshake(&m3).unwrap();
        } else {
            b.handle_handshake(&genuine).unwrap();
        }
        assert!(a.is_up() && b.is_up(), "message {step} byte {pos}");
        let f = a.seal(b"after").unwrap();
        assert_eq!(b.open(&f).unwrap(), b"after");
    }
}

#[test]
fn handshake_messages_of_the_wrong_length_are_refused_cleanly() {
    let mut resp = Handshake::responder(
        &bs(),
        TrustedPeers::new().with(&host()),
        [12; 32],
        SecConfig::default(),
    )
    .unwrap();
    assert_eq!(
        resp.handle_message(&[0; 31]),
        Err(HandshakeError::Malformed {
            step: 1,
            len: 31,
            expected: 32
        })
    );
    // The handshake waits on: a first message of the right length is
    // taken.
    assert!(resp.error().is_none());
    assert_eq!(resp.handle_message(&[0; 32]), Ok(()));
    assert!(matches!(resp.finish(), Err(HandshakeError::NotFinished)));
}

#[test]
fn out_of_turn_messages_are_refused_without_ending_the_handshake() {
    let mut init = Handshake::initiator(
        &host(),
        TrustedPeers::new().with(&bs()),
        [13; 32],
        SecConfig::default(),
    )
    .unwrap();
    assert_eq!(
        init.handle_message(&[0; 32]),
        Err(HandshakeError::OutOfTurn)
    );
    assert!(init.error().is_none());
    assert!(init.poll_transmit().unwrap().is_some());
    assert!(matches!(init.finish(), Err(HandshakeError::NotFinished)));
}

#[test]
fn a_session_rejects_frames_of_another_session() {
    let (mut h1, _) = sessions();
    let (_, mut b2) = {
        let (a, b) = pair_with(SecConfig::default(), SEED + 100);
        (a, b)
    };
    let f = h1.seal(b"cross").unwrap();
    assert_eq!(b2.open(&f), Err(DropReason::Tampered));
}

#[test]
fn after_rekeying_old_key_frames_are_stale_without_grace() {
    let config = SecConfig {
        rekey_grace_frames: 0,
        ..SecConfig::default()
    };
    let (mut h, mut b) = sessions_with(config);
    let old = h.seal(b"old").unwrap();
    let old2 = h.seal(b"old2").unwrap();
    h.rekey().unwrap();
    let new = h.seal(b"new").unwrap();
    assert_eq!(u32::from_be_bytes(new[..4].try_into().unwrap()), 1);
    assert!(b.open(&old).is_ok());
    assert_eq!(b.open(&new).unwrap(), b"new");
    assert_eq!(b.rx_epoch(), 1);
    // The old key is gone at once, though counter 1 was never seen.
    assert_eq!(b.open(&old2), Err(DropReason::StaleKey));
    assert_eq!(b.stats().stale_key, 1);
    // The BS moved its own sending key too, and the host follows.
    assert_eq!(b.tx_epoch(), 1);
    let back = b.seal(b"back").unwrap();
    assert_eq!(h.open(&back).unwrap(), b"back");
    assert_eq!(h.rx_epoch(), 1);
    assert_eq!((h.stats().rekeys_tx, b.stats().rekeys_rx), (1, 1));
}

#[test]
fn with_grace_in_flight_old_frames_open_until_the_grace_ends() {
    let config = SecConfig {
        rekey_grace_frames: 3,
        ..SecConfig::default()
    };
    let (mut h, mut b) = sessions_with(config);
    let old: Vec<Vec<u8>> = (0..5).map(|i| h.seal(&payload(i, 8)).unwrap()).collect();
    h.rekey().unwrap();
    let new: Vec<Vec<u8>> = (0..4).map(|i| h.seal(&payload(i, 8)).unwrap()).collect();
    assert!(b.open(&new[0]).is_ok()); // adopts epoch 1, grace 3
    assert!(b.open(&old[0]).is_ok()); // in flight: still opens
    assert_eq!(b.open(&old[0]), Err(DropReason::Replayed)); // but once
    assert!(b.open(&new[1]).is_ok()); // grace 2
    assert!(b.open(&old[1]).is_ok());
    assert!(b.open(&new[2]).is_ok()); // grace 1
    assert!(b.open(&new[3]).is_ok()); // grace 0: old key forgotten
    assert_eq!(b.open(&old[2]), Err(DropReason::StaleKey));
    let s = b.stats();
    assert_eq!((s.opened, s.opened_in_grace, s.stale_key), (6, 2, 1));
}

#[test]
fn rekeying_after_n_frames_moves_both_directions() {
    let config = SecConfig {
        rekey_after_frames: Some(10),
        rekey_grace_frames: 0,
        ..SecConfig::default()
    };
    let (mut h, mut b) = sessions_with(config);
    for i in 0..35 {
        let f = h.seal(&payload(i, 30)).unwrap();
        assert_eq!(
            u32::from_be_bytes(f[..4].try_into().unwrap()),
            (i / 10) as u32
        );
        assert_eq!(b.open(&f).unwrap(), payload(i, 30));
    }
    assert_eq!((h.tx_epoch(), b.rx_epoch(), b.tx_epoch()), (3, 3, 3));
    let f = b.seal(b"ack").unwrap();
    assert!(h.open(&f).is_ok());
    assert_eq!(h.rx_epoch(), 3);
    assert_eq!(b.stats().rekeys_rx, 3);
}

#[test]
fn a_receiver_catches_up_over_skipped_epochs_within_reach() {
    let config = SecConfig {
        rekey_grace_frames: 0,
        ..SecConfig::default()
    };
    let (mut h, mut b) = sessions_with(config);
    for _ in 0..MAX_EPOCH_AHEAD {
        h.rekey().unwrap();
    }
    let f = h.seal(b"far").unwrap();
    assert_eq!(b.open(&f).unwrap(), b"far");
    assert_eq!(b.rx_epoch(), MAX_EPOCH_AHEAD);
    // One more than the reach: no genuine sender gets there, so the frame
    // counts as altered (tampered); the state is unchanged.
    let (mut h, mut b) = sessions_with(config);
    for _ in 0..=MAX_EPOCH_AHEAD {
        h.rekey().unwrap();
    }
    assert_eq!(b.open(&h.seal(b"x").unwrap()), Err(DropReason::Tampered));
    assert_eq!(b.rx_epoch(), 0);
}

#[test]
fn after_rekeying_a_changed_epoch_is_tampered_and_a_late_genuine_frame_stale() {
    let config = SecConfig {
        rekey_grace_frames: 0,
        ..SecConfig::default()
    };
    let (mut h, mut b) = sessions_with(config);
    let old: Vec<Vec<u8>> = (0..3).map(|i| h.seal(&payload(i, 8)).unwrap()).collect();
    h.rekey().unwrap();
    h.rekey().unwrap();
    let new: Vec<Vec<u8>> = (0..3).map(|i| h.seal(&payload(i, 8)).unwrap()).collect();
    assert!(b.open(&new[0]).is_ok());
    assert_eq!(b.rx_epoch(), 2);
    // A genuine frame of epoch 0 arriving late: stale.
    assert_eq!(b.open(&old[1]), Err(DropReason::StaleKey));
    // A frame of epoch 2 whose epoch byte was changed to 0 or 1: its
    // counter is one of epoch 2's, so it was altered.
    for to in [0u8, 1] {
        let mut t = new[1].clone();
        t[3] = to;
        assert_eq!(b.open(&t), Err(DropReason::Tampered), "epoch 2 -> {to}");
    }
    // Epoch 3 far ahead and beyond reach: tampered too.
    for to in [3u8, 0xff] {
        let mut t = new[2].clone();
        t[3] = to;
        assert_eq!(b.open(&t), Err(DropReason::Tampered), "epoch 2 -> {to}");
    }
    assert!(b.open(&new[1]).is_ok() && b.open(&new[2]).is_ok());
    let s = b.stats();
    assert_eq!((s.stale_key, s.tampered, s.opened), (1, 4, 3));
}

#[test]
fn the_replay_window_is_a_ring_of_words_exact_at_any_size() {
    for window in [
        1u32,
        63,
        64,
        65,
        1000,
        DEFAULT_REPLAY_WINDOW,
        MAX_REPLAY_WINDOW,
    ] {
        let config = SecConfig {
            replay_window: window,
            ..SecConfig::default()
        };
        let (mut h, mut b) = sessions_with(config);
        let w = u64::from(window);
        let n = 3 * w + 200;
        let frames: Vec<Vec<u8>> = (0..n).map(|_| h.seal(b"w").unwrap()).collect();
        let at = |c: u64| &frames[c as usize];
        // A jump past the whole ring, then the oldest counter still inside
        // the window and the first one outside it.
        let top = 2 * w + 130;
        assert!(b.open(at(5)).is_ok());
        assert!(b.open(at(top)).is_ok());
        if w > 1 {
            assert!(b.open(at(top - (w - 1))).is_ok(), "window {window}");
        }
        assert_eq!(b.open(at(top - (w - 1))), Err(DropReason::Replayed));
        assert_eq!(
            b.open(at(top - w)),
            Err(DropReason::TooOld),
            "window {window}"
        );
        // Counters the jump skipped are not taken for seen.
        if w > 2 {
            assert!(b.open(at(top - 1)).is_ok(), "window {window}");
        }
        // Small steps forward across word boundaries keep what was seen.
        let last = (top + 200).min(n) - 1;
        for c in top + 1..=last {
            assert!(b.open(at(c)).is_ok(), "window {window} counter {c}");
        }
        for back in [1, 65, 130].into_iter().filter(|&k| k < w) {
            let r = b.open(at(last - back));
            assert_eq!(r, Err(DropReason::Replayed), "window {window} {back} back");
        }
        assert_eq!(b.stats().deepest_reorder, w - 1, "window {window}");
    }
    assert_eq!(SecConfig::default().replay_window, 8192);
}

#[test]
fn a_forged_future_epoch_does_not_move_the_receiver() {
    let (mut h, mut b) = sessions();
    let mut f = h.seal(b"data").unwrap();
    f[3] = 1; // epoch 0 -> 1 without the key of epoch 1
    assert_eq!(b.open(&f), Err(DropReason::Tampered));
    assert_eq!((b.rx_epoch(), b.tx_epoch(), b.stats().rekeys_rx), (0, 0, 0));
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let run = |seed: u64| {
        let mut msgs = Vec::new();
        let h = Identity::generate(seed, "host");
        let b = Identity::generate(seed, "bs");
        let init = Handshake::initiator(
            &h,
            TrustedPeers::new().with(&b),
            ephemeral_seed(seed, "ucl.handshake.host.0"),
            SecConfig::default(),
        )
        .unwrap();
        let resp = Handshake::responder(
            &b,
            TrustedPeers::new().with(&h),
            ephemeral_seed(seed, "ucl.handshake.bs.0"),
            SecConfig::default(),
        )
        .unwrap();
        let (mut a, _) = handshake_with(init, resp, |_, m| msgs.push(m.clone()));
        for i in 0..3 {
            msgs.push(a.seal(&payload(i, 100)).unwrap());
        }
        msgs
    };
    assert_eq!(run(1), run(1));
    let (x, y) = (run(1), run(2));
    for (m, n) in x.iter().zip(&y) {
        assert_ne!(m, n);
    }
    assert_eq!(
        Identity::generate(1, "host").public(),
        Identity::generate(1, "host").public()
    );
    assert_ne!(
        Identity::generate(1, "host").public(),
        Identity::generate(1, "bs").public()
    );
}

#[test]
fn config_validation_names_the_knob() {
    let bad = SecConfig {
        replay_window: 0,
        ..SecConfig::default()
    };
    assert!(bad.validate().unwrap_err().contains("replay_window"));
    assert!(matches!(
        Handshake::initiator(&host(), TrustedPeers::new(), [0; 32], bad),
        Err(HandshakeError::Setup(m)) if m.contains("replay_window")
    ));
    let bad = SecConfig {
        rekey_after_frames: Some(0),
        ..SecConfig::default()
    };
    assert!(bad.validate().unwrap_err().contains("rekey_after_frames"));
    assert!(SecConfig::default().validate().is_ok());
}

#[test]
fn stats_serialize_for_the_summary() {
    let (mut h, mut b) = sessions();
    let f = h.seal(b"x").unwrap();
    b.open(&f).unwrap();
    let _ = b.open(&f);
    let v = serde_json::to_value(b.stats()).unwrap();
    assert_eq!(v["opened"], 1);
    assert_eq!(v["replayed"], 1);
    assert_eq!(v["tampered"], 0);
}

#[test]
fn overhead_constants_agree_with_the_layout() {
    assert_eq!(FRAME_OVERHEAD, 28);
    assert_eq!(HANDSHAKE_MSG_LENS, [32, 96, 64]);
    assert_eq!(handshake_bytes(), 192);
    assert_eq!(sealed_len(1500), 1528);
    let c = CpuCost::MEASURED;
    assert!(c.seal_open_ns(1500) >= c.seal_open_ns(64));
}
