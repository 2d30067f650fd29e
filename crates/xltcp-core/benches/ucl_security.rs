//! CPU cost of the UCL's link security: seal + open of one frame for
//! 64 B, 576 B and 1500 B payloads, and one whole handshake.
//!
//! `cargo bench -p xltcp-core --bench ucl_security`
//!
//! Prints the median over 7 rounds of ns per frame (seal and open of the
//! same frame, as a sender and a receiver would each pay half of it) and
//! the line `per_frame_ns + per_byte_ns * payload` through the 64 B and
//! 1500 B points, which is what `CpuCost` holds. Time is this thread's
//! CPU time (`/proc/thread-self/schedstat`, Linux), so other load on the
//! machine does not inflate it; wall time where that file is missing.
//! Beside it, the bare AEAD (`chacha20poly1305` sealing and opening the
//! same bytes in place) shows what the layer adds. Read the numbers, never
//! assert them.
#![allow(clippy::disallowed_methods)] // timing is this program's job

use std::hint::black_box;
use std::time::Instant;

use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

use xltcp_core::schemes::ucl::security::{
    ephemeral_seed, Handshake, Identity, SecConfig, Session, TrustedPeers,
};

fn sessions(n: u64) -> (Session, Session) {
    let h = Identity::generate(n, "host");
    let b = Identity::generate(n, "bs");
    let c = SecConfig::default();
    let mut i = Handshake::initiator(&h, TrustedPeers::new().with(&b), ephemeral_seed(n, "i"), c)
        .expect("initiator");
    let mut r = Handshake::responder(&b, TrustedPeers::new().with(&h), ephemeral_seed(n, "r"), c)
        .expect("responder");
    let m1 = i.poll_transmit().expect("m1").expect("m1");
    r.handle_message(&m1).expect("m1 in");
    let m2 = r.poll_transmit().expect("m2").expect("m2");
    i.handle_message(&m2).expect("m2 in");
    let m3 = i.poll_transmit().expect("m3").expect("m3");
    r.handle_message(&m3).expect("m3 in");
    (i.finish().expect("i"), r.finish().expect("r"))
}

/// A clock in ns: this thread's CPU time if the kernel tells it, else wall
/// time since the first call.
struct Clock {
    wall: Instant,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            wall: Instant::now(),
        }
    }

    fn cpu_ns() -> Option<f64> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        s.split_whitespace().next()?.parse().ok()
    }

    fn now_ns(&self) -> f64 {
        Clock::cpu_ns().unwrap_or_else(|| self.wall.elapsed().as_nanos() as f64)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn seal_open_ns(clock: &Clock, len: usize, frames: usize) -> f64 {
    let rounds = (0..7)
        .map(|_| {
            let (mut tx, mut rx) = sessions(1);
            let payload = vec![0xa5u8; len];
            let t = clock.now_ns();
            for _ in 0..frames {
                let f = tx.seal(black_box(&payload)).expect("seal");
                black_box(rx.open(&f).expect("open"));
            }
            (clock.now_ns() - t) / frames as f64
        })
        .collect();
    median(rounds)
}

fn bare_aead_ns(clock: &Clock, len: usize, frames: usize) -> f64 {
    let rounds = (0..7)
        .map(|_| {
            let cipher = ChaCha20Poly1305::new(Key::from_slice(&[7; 32]));
            let mut buf = vec![0xa5u8; len];
            let nonce = [0u8; 12];
            let t = clock.now_ns();
            for _ in 0..frames {
                let n = Nonce::from_slice(&nonce);
                let tag = cipher
                    .encrypt_in_place_detached(n, &nonce, black_box(&mut buf))
                    .expect("seal");
                cipher
                    .decrypt_in_place_detached(n, &nonce, &mut buf, &tag)
                    .expect("open");
            }
            (clock.now_ns() - t) / frames as f64
        })
        .collect();
    median(rounds)
}

fn handshake_us(clock: &Clock) -> f64 {
    let rounds = (0..7)
        .map(|k| {
            let n = 50;
            let t = clock.now_ns();
            for i in 0..n {
                black_box(sessions(k * 1000 + i));
            }
            (clock.now_ns() - t) / n as f64 / 1e3
        })
        .collect();
    median(rounds)
}

fn main() {
    let clock = Clock::new();
    let what = if Clock::cpu_ns().is_some() {
        "thread CPU time"
    } else {
        "wall time"
    };
    println!("UCL link security, seal + open per frame (median of 7 rounds, {what}):");
    let mut pts = Vec::new();
    for (len, frames) in [(64usize, 200_000usize), (576, 100_000), (1500, 50_000)] {
        let ns = seal_open_ns(&clock, len, frames);
        let bare = bare_aead_ns(&clock, len, frames);
        println!(
            "  {len:>5} B payload: {ns:>7.0} ns/frame ({:>6.1} MB/s); bare AEAD {bare:>7.0} ns",
            len as f64 * 1e3 / ns
        );
        pts.push((len as f64, ns));
    }
    let (x0, y0) = pts[0];
    let (x1, y1) = pts[2];
    let per_byte = (y1 - y0) / (x1 - x0);
    println!(
        "  line: per_frame_ns = {:.0}, per_byte_ns = {per_byte:.3}",
        y0 - per_byte * x0
    );
    println!(
        "handshake (both sides, 3 messages, incl. identity generation): {:.0} us",
        handshake_us(&clock)
    );
}
