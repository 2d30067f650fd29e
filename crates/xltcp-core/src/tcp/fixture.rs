//! Scripted-test fixtures: an endpoint talking to a scripted peer, with
//! `send!` / `recv!` / `expect!` / `expect_nothing!` helpers.

use super::{Config, Endpoint, Event, Recovery, State};
use crate::time::{Dur, Time};
use crate::wire::{SackBlock, SackBlocks, Segment, SeqNum, TcpFlags, TcpOptions};

/// Our port.
pub const LP: u16 = 80;
/// The scripted peer's port.
pub const RP: u16 = 4000;
/// Our initial sequence number.
pub const ISS: SeqNum = SeqNum(10_000);
/// The peer's initial sequence number.
pub const IRS: SeqNum = SeqNum(50_000);
/// Window the peer and we announce in the fixtures (no scaling).
pub const WIN: u16 = 64_000;

/// Our data byte `k`.
pub fn s(k: u32) -> SeqNum {
    ISS + 1 + k
}
/// The peer's data byte `k`.
pub fn r(k: u32) -> SeqNum {
    IRS + 1 + k
}
/// `n` milliseconds after time zero.
pub fn ms(n: u64) -> Time {
    Time::ZERO + Dur::from_millis(n)
}

/// Test configuration: MSS 1000, no SACK, no scaling, 64000 B buffers.
pub fn cfg() -> Config {
    Config {
        mss: 1000,
        sack: false,
        window_scale: false,
        recovery: Recovery::NewReno,
        rcv_buffer: 64_000,
        ..Config::default()
    }
}

/// As [`cfg`] with SACK permitted and SACK recovery.
pub fn sack_cfg() -> Config {
    Config {
        sack: true,
        recovery: Recovery::Sack,
        ..cfg()
    }
}

/// A segment from the peer: ACK set, window [`WIN`].
pub fn peer(seq: SeqNum, ack: SeqNum, len: u32) -> Segment {
    Segment {
        src_port: RP,
        dst_port: LP,
        seq,
        ack,
        flags: TcpFlags::ACK,
        window: WIN,
        options: TcpOptions::default(),
        payload_len: len,
    }
}

/// A peer ACK of our data up to `ack`, carrying SACK blocks.
pub fn sack_ack(ack: SeqNum, blocks: &[(SeqNum, SeqNum)]) -> Segment {
    let mut seg = peer(r(0), ack, 0);
    seg.options.sack = blocks_of(blocks);
    seg
}

/// SACK blocks from pairs.
pub fn blocks_of(blocks: &[(SeqNum, SeqNum)]) -> SackBlocks {
    let mut b = SackBlocks::new();
    for &(left, right) in blocks {
        b.push(SackBlock { left, right });
    }
    b
}

/// A segment we are expected to send: ACK set, window `win`.
pub fn ours(seq: SeqNum, ack: SeqNum, len: u32, win: u16) -> Segment {
    Segment {
        src_port: LP,
        dst_port: RP,
        seq,
        ack,
        flags: TcpFlags::ACK,
        window: win,
        options: TcpOptions::default(),
        payload_len: len,
    }
}

/// Feeds a segment to the endpoint at a time.
macro_rules! send {
    ($ep:expr, $t:expr, $seg:expr) => {
        $ep.handle_segment($t, &$seg)
    };
}
/// Takes the next transmit, failing if there is none.
macro_rules! recv {
    ($ep:expr, $t:expr) => {
        $ep.poll_transmit($t).expect("expected a segment")
    };
}
/// Asserts the next emitted segment, exactly but for PSH (which marks
/// where the application's writes ended; its own tests check it).
macro_rules! expect {
    ($ep:expr, $t:expr, $seg:expr) => {
        assert_eq!(without_psh(recv!($ep, $t).segment), $seg)
    };
}
/// Asserts that nothing is emitted.
macro_rules! expect_nothing {
    ($ep:expr, $t:expr) => {
        assert_eq!($ep.poll_transmit($t), None)
    };
}

/// `seg` with its PSH flag cleared.
pub fn without_psh(mut seg: Segment) -> Segment {
    seg.flags = TcpFlags(seg.flags.0 & !TcpFlags::PSH.0);
    seg
}

/// The SYN-ACK of the scripted peer, offering what `c` offers.
pub fn syn_ack(c: &Config) -> Segment {
    let mut seg = peer(IRS, ISS + 1, 0);
    seg.flags = TcpFlags::SYN | TcpFlags::ACK;
    seg.options.mss = Some(1000);
    seg.options.sack_permitted = c.sack;
    seg.options.window_scale = c.window_scale.then_some(0);
    seg
}

/// Drains and returns the events.
pub fn events(ep: &mut Endpoint) -> Vec<Event> {
    std::iter::from_fn(|| ep.poll_event()).collect()
}

/// An active opener that completed its handshake: SYN at 0 ms, SYN-ACK at
/// 100 ms (RTT sample 100 ms, RTO 1 s), ACK sent. Events drained.
pub fn established(c: Config) -> Endpoint {
    let syn_ack = syn_ack(&c);
    let mut ep = Endpoint::new(c, LP, RP, ISS);
    ep.connect(ms(0));
    let syn = recv!(ep, ms(0)).segment;
    assert!(syn.flags.syn() && !syn.flags.ack());
    send!(ep, ms(100), syn_ack);
    let win = ep.config().rcv_buffer.min(65_535) as u16;
    expect!(ep, ms(100), ours(s(0), r(0), 0, win));
    assert_eq!(ep.state(), State::Established);
    events(&mut ep);
    ep
}

/// Writes `bytes` at `t` and asserts that full segments from our byte
/// `from` go out, `n` of them, then nothing.
pub fn send_segments(ep: &mut Endpoint, t: Time, from: u32, n: u32) {
    for k in 0..n {
        expect!(ep, t, ours(s(from + 1000 * k), r(0), 1000, WIN));
    }
    expect_nothing!(ep, t);
}

/// `c` with timestamps, the peer's SYN-ACK offering them at 100 ms: ten
/// segments of 1000 B stamped 100 ms, then the timeout at 1100 ms resends
/// the first, stamped 1100 ms.
pub fn stamped_ten_timed_out(c: Config) -> Endpoint {
    let c = Config {
        timestamps: true,
        ..c
    };
    let mut syn_ack = syn_ack(&c);
    syn_ack.options.timestamps = Some((7, 0));
    let mut ep = Endpoint::new(c, LP, RP, ISS);
    ep.connect(ms(0));
    assert!(recv!(ep, ms(0)).segment.flags.syn());
    send!(ep, ms(100), syn_ack);
    recv!(ep, ms(100));
    ep.write(40_000);
    for k in 0..10 {
        let seg = recv!(ep, ms(100)).segment;
        assert_eq!(seg.seq, s(1000 * k));
        assert_eq!(seg.options.timestamps.map(|t| t.0), Some(100));
    }
    let t = ep.poll_timeout().unwrap();
    assert_eq!(t, ms(1100));
    ep.handle_timeout(t);
    let rtx = recv!(ep, t);
    assert!(rtx.retransmission);
    assert_eq!(rtx.segment.options.timestamps.map(|t| t.0), Some(1100));
    ep
}
