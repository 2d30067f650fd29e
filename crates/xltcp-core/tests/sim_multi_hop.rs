//! Hosts with several interfaces: `[[wireless]]` entries give the world
//! several hops, every wireless host an interface on each; packets take the
//! first unless an agent picks another (`PacketMeta::iface`).

use xltcp_core::scenario::{self, Scenario};
use xltcp_core::schemes::{Agent, Node, Tap, Verdict};
use xltcp_core::sim::output::Output;
use xltcp_core::sim::{Summary, World};
use xltcp_core::time::Time;
use xltcp_core::wire::Packet;

const TWO_HOPS: &str = r#"
[sim]
duration = "10s"

[wired]
rate = "100Mbps"
delay = "10ms"

[[wireless]]
name = "slow"
rate = "2Mbps"
delay = "1ms"
[wireless.loss.down]
model = "iid"
p = 0.01

[[wireless]]
name = "fast"
rate = "8Mbps"
delay = "1ms"

[[flow]]
name = "bulk"
"#;

const ONE_HOP: &str = r#"
[sim]
duration = "10s"

[wired]
rate = "100Mbps"
delay = "10ms"

[wireless]
name = "slow"
rate = "2Mbps"
delay = "1ms"
[wireless.loss.down]
model = "iid"
p = 0.01

[[flow]]
name = "bulk"
"#;

fn load(text: &str) -> Scenario {
    scenario::load_str(text, "t.toml", std::path::Path::new("."), &[]).unwrap()
}

/// Sends every packet crossing its node onto interface `iface`.
#[derive(Debug)]
struct Pick(u8);

impl Agent for Pick {
    fn on_packet(&mut self, _now: Time, tap: Tap, p: &mut Packet) -> Verdict {
        if matches!(tap, Tap::BsDown | Tap::HostOut) {
            p.meta.iface = self.0;
        }
        Verdict::Pass
    }
}

fn run(s: &Scenario, agents: Vec<(Node, Box<dyn Agent>)>) -> Summary {
    let mut w = World::with_agents(s.clone(), 1, Output::none(), agents);
    assert!(w.run(None));
    w.summary(scenario::echo(s))
}

fn link<'a>(s: &'a Summary, name: &str) -> &'a xltcp_core::net::link::LinkStats {
    &s.links.iter().find(|l| l.name == name).unwrap().stats
}

#[test]
fn packets_take_the_first_hop_unless_an_agent_picks() {
    let s = load(TWO_HOPS);
    assert_eq!(s.more_hops.len(), 1);
    let by_default = run(&s, Vec::new());
    assert!(link(&by_default, "bs-slow").transmitted > 1000);
    assert_eq!(link(&by_default, "bs-fast").transmitted, 0);
    assert_eq!(link(&by_default, "fast-bs").transmitted, 0);
    assert!(by_default.accounting.balances());

    let agents: Vec<(Node, Box<dyn Agent>)> = vec![
        (Node::Bs, Box::new(Pick(1))),
        (Node::Host(0), Box::new(Pick(1))),
    ];
    let picked = run(&s, agents);
    assert_eq!(link(&picked, "bs-slow").transmitted, 0);
    assert_eq!(link(&picked, "slow-bs").transmitted, 0);
    assert!(link(&picked, "bs-fast").transmitted > 1000);
    assert!(link(&picked, "fast-bs").transmitted > 1000);
    assert!(picked.accounting.balances());
    // The fast hop carries about four times as much.
    let (slow, fast) = (by_default.flows[0].goodput_bps, picked.flows[0].goodput_bps);
    assert!(fast > 3.0 * slow, "slow {slow} fast {fast}");
    // The bound is the hops' sum: what any choice of interface stays under.
    let bound = picked.flows[0].oracle_bps;
    assert!(bound > 9e6 && bound < 10.1e6, "{bound}");
    assert!(picked.flows[0].goodput_bps < bound);
}

#[test]
fn a_second_hop_leaves_the_first_hops_streams_alone() {
    let one = run(&load(ONE_HOP), Vec::new());
    let two = run(&load(TWO_HOPS), Vec::new());
    assert_eq!(one.flows[0].goodput_bps, two.flows[0].goodput_bps);
    assert_eq!(link(&one, "bs-slow"), link(&two, "bs-slow"));
}

#[test]
fn a_packet_for_a_missing_interface_is_dropped_and_counted() {
    let s = load(ONE_HOP);
    let agents: Vec<(Node, Box<dyn Agent>)> = vec![(Node::Host(0), Box::new(Pick(3)))];
    let sum = run(&s, agents);
    assert!(sum.hop.no_interface > 0);
    assert!(sum.accounting.balances());
    let json = serde_json::to_value(&sum).unwrap();
    assert_eq!(json["hop"]["no_interface"], sum.hop.no_interface);
}

#[test]
fn the_summary_names_each_hop() {
    let s = load(&TWO_HOPS.replace(
        "rate = \"8Mbps\"",
        "kind = \"wifi\"\nstandard = \"11b\"\nsnr_db = 30",
    ));
    let sum = run(&s, vec![(Node::Host(0), Box::new(Pick(1)))]);
    let json = serde_json::to_value(&sum).unwrap();
    assert_eq!(json["more_hops"][0]["name"], "fast");
    assert!(json["more_hops"][0]["wifi"].is_object());
    let echo = &json["scenario"]["wireless"];
    assert_eq!(echo[0]["name"], "slow");
    assert_eq!(echo[1]["name"], "fast");
    assert!(link(&sum, "fast-bs").transmitted > 100);
}

#[test]
fn further_hops_are_checked() {
    let bad = TWO_HOPS.replace("name = \"fast\"", "name = \"slow\"");
    let err = scenario::load_str(&bad, "t.toml", std::path::Path::new("."), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("wireless.1.name"), "{err}");
    assert!(err.contains("another [[wireless]] entry"), "{err}");
    let bad = format!(
        "{TWO_HOPS}\n[wireless.availability]\nmodel = \"onoff\"\non = \"1s\"\noff = \"1s\"\n"
    );
    let err = scenario::load_str(&bad, "t.toml", std::path::Path::new("."), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("wireless.1.availability"), "{err}");
    assert!(err.contains("t.toml:"), "{err}");
    let bad = TWO_HOPS.replace("name = \"fast\"", "name = \"fa st\"");
    let err = scenario::load_str(&bad, "t.toml", std::path::Path::new("."), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a usable hop name"), "{err}");
}
