//! The caching agents (Snoop, C-Snoop, SNACK at both ends) under arbitrary
//! scripts of packets, delivery reports and timeouts: no panic, caches
//! within their bound, every emitted packet a forged copy of data seen (or,
//! from SNACK-S, a forged SNACK), and no deadline in the past.

use super::agent::{Action, Agent, NodeSignal, Tap, Via};
use super::cache::CACHE_LIMIT;
use super::snoop::tests::{ack, data, s};
use super::{CSnoop, SnackBs, SnackTcp, Snoop};
use crate::signal::{MacDelays, Signal, UndeliveredReason};
use crate::time::{Dur, Time};
use crate::wire::SackBlock;
use proptest::prelude::*;

/// One step of a script.
#[derive(Clone, Debug)]
enum Step {
    /// Data segment `k` at a tap (0 BsDown, 1 BsUp, 2 HostOut, 3 HostIn).
    Data(u32, u8),
    /// An ACK of everything before `k` with a SACK block `[a, a + n)`, at
    /// a tap; maybe forged.
    Ack(u32, u32, u32, u8, bool),
    /// `delivered` (true) or `undelivered` with reason `r` for segment `k`.
    Report(u32, bool, u8),
    /// Time moves on by this many ms, and the agent's deadline is served.
    Wait(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u32..300, 0u8..4).prop_map(|(k, t)| Step::Data(k, t)),
        (0u32..300, 0u32..300, 0u32..5, 0u8..4, any::<bool>())
            .prop_map(|(k, a, n, t, f)| Step::Ack(k, a, n, t, f)),
        (0u32..300, any::<bool>(), 0u8..4).prop_map(|(k, d, r)| Step::Report(k, d, r)),
        (0u64..2000).prop_map(Step::Wait),
    ]
}

fn tap(t: u8) -> Tap {
    [Tap::BsDown, Tap::BsUp, Tap::HostOut, Tap::HostIn][usize::from(t % 4)]
}

fn signal(k: u32, delivered: bool, r: u8) -> NodeSignal {
    let reasons = [
        UndeliveredReason::RetryLimit,
        UndeliveredReason::ChannelAccessFailure,
        UndeliveredReason::QueueFull,
        UndeliveredReason::FrameTooLong,
    ];
    NodeSignal {
        signal: if delivered {
            Signal::Delivered { frame: 0 }
        } else {
            Signal::Undelivered { frame: 0 }
        },
        reason: (!delivered).then_some(reasons[usize::from(r % 4)]),
        packet: Some(data(k)),
        delays: delivered.then_some(MacDelays {
            queue: Dur::from_micros(u64::from(r) * 700),
            tx: Dur::from_millis(1),
            attempts: 1,
        }),
        iface: 0,
    }
}

/// Runs `script` on `agent`; checks the invariants after every step.
fn play<A: Agent>(agent: &mut A, cached: impl Fn(&A) -> usize, script: &[Step]) {
    let mut now = Time::ZERO;
    for st in script {
        match *st {
            Step::Data(k, t) => {
                agent.on_packet(now, tap(t), &mut data(k));
            }
            Step::Ack(k, a, n, t, forged) => {
                let mut p = ack(k);
                p.meta.forged = forged;
                if n > 0 {
                    p.tcp.options.sack.push(SackBlock {
                        left: s(a),
                        right: s(a + n),
                    });
                }
                agent.on_packet(now, tap(t), &mut p);
            }
            Step::Report(k, d, r) => {
                agent.on_signal(now, &signal(k, d, r));
            }
            Step::Wait(ms) => {
                now += Dur::from_millis(ms);
                if agent.poll_timeout().is_some_and(|t| t <= now) {
                    agent.on_timeout(now);
                }
            }
        }
        while let Some(a) = agent.poll_action() {
            let Action::Emit { packet, via } = a else {
                panic!("only emissions expected: {a:?}");
            };
            assert!(matches!(via, Via::Air | Via::AirFirst));
            assert!(packet.meta.forged);
        }
        assert!(cached(agent) <= CACHE_LIMIT, "one connection");
        if let Some(t) = agent.poll_timeout() {
            // A deadline already due was served at the last wait.
            assert!(t > now || !matches!(st, Step::Wait(_)), "{t} <= {now}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn snoop_survives_any_script(script in prop::collection::vec(step(), 0..400)) {
        let mut a = Snoop::new();
        play(&mut a, Snoop::cached_now, &script);
    }

    #[test]
    fn c_snoop_survives_any_script(script in prop::collection::vec(step(), 0..400)) {
        let mut a = CSnoop::at_bs();
        play(&mut a, CSnoop::cached_now, &script);
        let mut a = CSnoop::at_host();
        play(&mut a, CSnoop::cached_now, &script);
    }

    #[test]
    fn snack_survives_any_script(script in prop::collection::vec(step(), 0..400)) {
        let mut a = SnackBs::new();
        play(&mut a, SnackBs::cached_now, &script);
        let mut a = SnackTcp::new();
        play(&mut a, SnackTcp::cached_now, &script);
    }
}
