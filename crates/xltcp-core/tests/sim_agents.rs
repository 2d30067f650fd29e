//! Agents compose on a node in their declared order, and `[[agent]]`
//! entries place the same schemes as `[schemes]`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use xltcp_core::scenario;
use xltcp_core::schemes::{Agent, Node, Tap, Verdict};
use xltcp_core::sim::output::Output;
use xltcp_core::sim::World;
use xltcp_core::time::Time;
use xltcp_core::wire::Packet;

const P2P: &str = r#"
[sim]
duration = "10s"

[wired]
rate = "100Mbps"
delay = "10ms"

[wireless]
rate = "10Mbps"
delay = "1ms"

[[flow]]
name = "bulk"
"#;

/// Drops every `n`th data segment it sees going onto the air.
#[derive(Debug)]
struct DropEvery {
    n: u64,
    seen: u64,
}

impl Agent for DropEvery {
    fn on_packet(&mut self, _now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        if tap != Tap::BsDown || p.tcp.payload_len == 0 {
            return Verdict::Pass;
        }
        self.seen += 1;
        if self.seen.is_multiple_of(self.n) {
            Verdict::Drop("test")
        } else {
            Verdict::Pass
        }
    }
}

/// Counts the data segments it sees going onto the air.
#[derive(Debug)]
struct Count(Arc<AtomicU64>);

impl Agent for Count {
    fn on_packet(&mut self, _now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        if tap == Tap::BsDown && p.tcp.payload_len > 0 {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        Verdict::Pass
    }
}

/// Runs the p2p scenario with a dropper and a counter at the BS, in the
/// given order; returns (segments the counter saw, packets dropped, the
/// world's accounting balances).
fn run(dropper_first: bool) -> (u64, u64, bool) {
    let s = scenario::load_str(P2P, "t.toml", std::path::Path::new("."), &[]).unwrap();
    let seen = Arc::new(AtomicU64::new(0));
    let dropper: Box<dyn Agent> = Box::new(DropEvery { n: 10, seen: 0 });
    let counter: Box<dyn Agent> = Box::new(Count(seen.clone()));
    let agents = if dropper_first {
        vec![(Node::Bs, dropper), (Node::Bs, counter)]
    } else {
        vec![(Node::Bs, counter), (Node::Bs, dropper)]
    };
    let mut w = World::with_agents(s.clone(), 1, Output::none(), agents);
    assert!(w.run(None));
    let sum = w.summary(scenario::echo(&s));
    let count = seen.load(Ordering::Relaxed);
    (count, sum.accounting.dropped, sum.accounting.balances())
}

#[test]
fn agents_on_one_node_see_packets_in_their_declared_order() {
    // The dropper first: the counter never sees the tenth segments.
    let (after_drop, dropped, balanced) = run(true);
    assert!(balanced);
    assert!(dropped > 0);
    // The counter first: it sees every segment, the dropper still drops.
    let (before_drop, dropped2, balanced2) = run(false);
    assert!(balanced2);
    assert!(dropped2 > 0);
    // Every tenth segment the dropper saw never reached the counter behind it.
    assert!(
        after_drop * 10 <= before_drop * 9 + 10,
        "counter behind the dropper saw {after_drop}, in front {before_drop}"
    );
    assert!(after_drop > 0);
}

fn preset(sets: &[&str]) -> scenario::Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/byun2016/tcp-lr-cr.toml");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let mut sets = sets;
    sets.push("sim.duration=120s".into());
    scenario::load_file(&path, &sets).unwrap()
}

#[test]
fn agent_entries_place_the_same_schemes_as_the_schemes_table() {
    let table = preset(&[]);
    let mut entries = preset(&["schemes.cr_aware=false", "schemes.local_recovery=\"none\""]);
    let text = r#"
[[agent]]
scheme = "lr_bs"
at = "bs"

[[agent]]
scheme = "cr_aware"

[[agent]]
scheme = "lr_sender"
mode = "tcp"
"#;
    // The same agents, named one by one.
    let extra = scenario::load_str(
        &format!("{}\n{text}", scenario::to_toml(&entries)),
        "t.toml",
        std::path::Path::new("."),
        &[],
    )
    .unwrap();
    entries.agents = extra.agents;
    assert_eq!(entries.agents.len(), 3);
    let run = |s: &scenario::Scenario| {
        let mut w = World::new(s.clone(), 3, Output::none());
        assert!(w.run(None));
        let mut sum = w.summary(serde_json::Value::Null);
        sum.scenario = serde_json::Value::Null;
        sum
    };
    let a = run(&table);
    let b = run(&entries);
    assert!(a.cr_aware().unwrap().freezes > 0);
    assert!(a.local_recovery().unwrap().reports_sent > 0);
    assert_eq!(a, b);
}
