//! BBR (`tcp.cc = "bbr"`) over the lossy last hop (`lossy-last-hop.toml`:
//! 100 Mbit/s, 10 ms wired, 10 Mbit/s, 1 ms wireless, i.i.d. loss on the
//! downlink): near the bottleneck rate without loss, far above NewReno
//! with 1 % loss (BBR v1 does not read loss as congestion), and the same
//! summary twice for a seed.

use xltcp_core::scenario::{self, Scenario};
use xltcp_core::sim::output::Output;
use xltcp_core::sim::summary::Summary;
use xltcp_core::sim::World;

/// The bottleneck's goodput with 1448 B segments: 10 Mbit/s times the
/// payload's share of a frame (1448 of 1448 + 40 B of headers + 2 B of
/// framing).
const BOTTLENECK_GOODPUT: f64 = 10e6 * 1448.0 / 1490.0;

/// The scenario with `cc` and loss `p`, SACK recovery (`sack`) or the
/// shipped NewReno recovery without SACK.
fn scenario_with(cc: &str, p: f64, sack: bool) -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let text = std::fs::read_to_string(path.join("lossy-last-hop.toml")).unwrap();
    let mut overrides = vec![
        format!("tcp.cc={cc}"),
        format!("wireless.loss.down.p={p}"),
        "sim.duration=20s".to_string(),
    ];
    if sack {
        overrides.push("tcp.sack=true".to_string());
        overrides.push("tcp.recovery=sack".to_string());
    }
    scenario::load_str(&text, "lossy-last-hop.toml", &path, &overrides).unwrap()
}

fn scenario(cc: &str, p: f64) -> Scenario {
    scenario_with(cc, p, true)
}

fn run(s: &Scenario, seed: u64) -> Summary {
    let mut w = World::new(s.clone(), seed, Output::none());
    assert!(w.run(None));
    let sum = w.summary(scenario::echo(s));
    assert!(sum.accounting.balances(), "{:?}", sum.accounting);
    sum
}

fn goodput(cc: &str, p: f64, seed: u64) -> f64 {
    run(&scenario(cc, p), seed).flows[0].goodput_bps
}

#[test]
fn bbr_fills_the_bottleneck_without_loss() {
    let g = goodput("bbr", 0.0, 1);
    eprintln!("bbr p=0: {g:.0} bit/s of {BOTTLENECK_GOODPUT:.0}");
    assert!(g > 0.9 * BOTTLENECK_GOODPUT, "{g}");
    assert!(g <= BOTTLENECK_GOODPUT * 1.001, "{g}");
}

#[test]
fn bbr_ignores_random_loss() {
    for seed in [1, 2] {
        let bbr = goodput("bbr", 0.01, seed);
        let reno = goodput("newreno", 0.01, seed);
        eprintln!("p=0.01 seed {seed}: bbr {bbr:.0}, newreno {reno:.0} bit/s");
        assert!(bbr > 1.5 * reno, "bbr {bbr}, newreno {reno}");
        assert!(bbr > 0.8 * BOTTLENECK_GOODPUT, "{bbr}");
    }
}

/// Without SACK (the scenario as shipped), duplicate ACKs count as
/// delivered segments and BBR still stays well above NewReno.
#[test]
fn bbr_without_sack_ignores_random_loss() {
    let bbr = run(&scenario_with("bbr", 0.01, false), 1).flows[0].goodput_bps;
    let reno = run(&scenario_with("newreno", 0.01, false), 1).flows[0].goodput_bps;
    eprintln!("p=0.01 without SACK: bbr {bbr:.0}, newreno {reno:.0} bit/s");
    assert!(bbr > 1.3 * reno, "bbr {bbr}, newreno {reno}");
}

#[test]
fn bbr_runs_are_deterministic() {
    let s = scenario("bbr", 0.01);
    let a = serde_json::to_string(&run(&s, 7)).unwrap();
    let b = serde_json::to_string(&run(&s, 7)).unwrap();
    assert_eq!(a, b);
    let c = serde_json::to_string(&run(&s, 8)).unwrap();
    assert_ne!(a, c, "another seed, another loss pattern");
}
