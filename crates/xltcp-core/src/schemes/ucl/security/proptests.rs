//! Property tests of the link security: no modified frame is ever
//! delivered, and the replay window agrees with a tiny model.

use super::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

fn sessions(config: SecConfig) -> (Session, Session) {
    let h = Identity::generate(1, "host");
    let b = Identity::generate(1, "bs");
    let mut init = Handshake::initiator(&h, TrustedPeers::new().with(&b), [1; 32], config).unwrap();
    let mut resp = Handshake::responder(&b, TrustedPeers::new().with(&h), [2; 32], config).unwrap();
    let m1 = init.poll_transmit().unwrap().unwrap();
    resp.handle_message(&m1).unwrap();
    let m2 = resp.poll_transmit().unwrap().unwrap();
    init.handle_message(&m2).unwrap();
    let m3 = init.poll_transmit().unwrap().unwrap();
    resp.handle_message(&m3).unwrap();
    (init.finish().unwrap(), resp.finish().unwrap())
}

/// A change to a frame: XOR bytes, cut the end, or add bytes.
#[derive(Clone, Debug)]
enum Change {
    Xor(Vec<(usize, u8)>),
    Truncate(usize),
    Append(Vec<u8>),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        4 => prop::collection::vec((any::<usize>(), 1u8..=255), 1..6).prop_map(Change::Xor),
        1 => any::<usize>().prop_map(Change::Truncate),
        1 => prop::collection::vec(any::<u8>(), 1..20).prop_map(Change::Append),
    ]
}

fn apply(frame: &[u8], c: &Change) -> Vec<u8> {
    let mut f = frame.to_vec();
    match c {
        Change::Xor(edits) => {
            for &(pos, x) in edits {
                let i = pos % f.len();
                f[i] ^= x;
            }
        }
        Change::Truncate(n) => f.truncate(n % f.len()),
        Change::Append(extra) => f.extend_from_slice(extra),
    }
    f
}

proptest! {
    /// Whatever the size, the frame's position in the stream, and which
    /// bytes change how: a modified frame is never delivered, is dropped
    /// as Tampered or Malformed, and does not disturb the session (the
    /// genuine frame still opens afterwards).
    #[test]
    fn a_modified_frame_is_never_delivered(
        len in 0usize..1600,
        before in 0usize..4,
        c in change(),
        fill in any::<u8>(),
    ) {
        let (mut h, mut b) = sessions(SecConfig::default());
        for _ in 0..before {
            let f = h.seal(&[fill; 10]).unwrap();
            b.open(&f).unwrap();
        }
        let payload = vec![fill; len];
        let frame = h.seal(&payload).unwrap();
        let bad = apply(&frame, &c);
        // XOR edits that cancel out leave the frame genuine: skip them.
        prop_assume!(bad != frame);
        let r = b.open(&bad);
        prop_assert!(
            matches!(r, Err(DropReason::Tampered | DropReason::Malformed)),
            "{:?} -> {:?}", c, r
        );
        prop_assert_eq!(b.stats().dropped(), 1);
        prop_assert_eq!(b.open(&frame).unwrap(), payload);
    }

    /// Frames delivered in any order with duplicates: a frame is accepted
    /// iff it was not accepted before and its counter is less than
    /// `window` below the highest accepted counter; otherwise Replayed or
    /// TooOld, as the model says.
    #[test]
    fn the_replay_window_matches_its_model(
        window in 1u32..80,
        order in prop::collection::vec(0usize..150, 1..300),
    ) {
        let config = SecConfig { replay_window: window, ..SecConfig::default() };
        let (mut h, mut b) = sessions(config);
        let frames: Vec<Vec<u8>> =
            (0..150u8).map(|i| h.seal(&[i]).unwrap()).collect();
        let mut seen = BTreeSet::new();
        let mut top: Option<usize> = None;
        for &i in &order {
            let expect = match top {
                Some(t) if i + window as usize <= t => Err(DropReason::TooOld),
                _ if seen.contains(&i) => Err(DropReason::Replayed),
                _ => Ok(vec![i as u8]),
            };
            prop_assert_eq!(b.open(&frames[i]), expect.clone(), "frame {}", i);
            if expect.is_ok() {
                seen.insert(i);
                top = Some(top.map_or(i, |t| t.max(i)));
            }
        }
    }

    /// Sealing is a function of the session's inputs: two sessions built
    /// from the same seeds seal the same payloads into the same bytes.
    #[test]
    fn sealing_is_deterministic(
        payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 1..10),
        rekey_at in prop::option::of(0usize..10),
    ) {
        let (mut h1, _) = sessions(SecConfig::default());
        let (mut h2, _) = sessions(SecConfig::default());
        for (i, p) in payloads.iter().enumerate() {
            if rekey_at == Some(i) {
                h1.rekey().unwrap();
                h2.rekey().unwrap();
            }
            prop_assert_eq!(h1.seal(p).unwrap(), h2.seal(p).unwrap());
        }
    }
}
