//! Snoop, C-Snoop and SNACK over the 802.11b hop with Gilbert-Elliott burst
//! loss: whole simulations that recover losses locally and whose counters
//! balance.

use xltcp_core::scenario::{self, Scenario};
use xltcp_core::sim::output::Output;
use xltcp_core::sim::summary::Summary;
use xltcp_core::sim::World;

/// FH - BS - MH over 802.11b at 11 Mb/s, burst loss on the data frames of
/// `dir` (5 % of frames, bursts of 3 on average), a MAC that tries each
/// frame twice, and `agents` (TOML `[[agent]]` entries).
fn scenario(dir: &str, agents: &str) -> Scenario {
    let text = format!(
        r#"
[sim]
duration = "20s"

[tcp]
sack = true
timestamps = false
mss = "1460B"

[wired]
rate = "100Mbps"
delay = "10ms"
queue = "100p"

[wireless]
kind = "wifi"
standard = "11b"
rate = "11Mbps"
snr_db = 30
retry_short = 2
queue = "50p"

[wireless.loss.{dir}]
model = "gilbert"
mean_loss = 0.05
mean_burst = 3

[[flow]]
name = "bulk"
direction = "{dir}"
app = "bulk"

{agents}
"#
    );
    scenario::load_str(&text, "t.toml", std::path::Path::new("."), &[]).unwrap()
}

fn run(s: &Scenario, seed: u64) -> Summary {
    let mut w = World::new(s.clone(), seed, Output::none());
    assert!(w.run(None));
    let sum = w.summary(scenario::echo(s));
    assert!(sum.accounting.balances(), "{:?}", sum.accounting);
    sum
}

fn goodput(s: &Summary) -> f64 {
    s.flows[0].goodput_bps
}

fn section(s: &Summary, name: &str) -> serde_json::Value {
    let v = serde_json::to_value(s).unwrap();
    v[name].clone()
}

/// The counters of a caching scheme's section.
fn counters(s: &Summary, name: &str) -> (u64, u64, u64, u64) {
    let st = section(s, name);
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    let by = &st["local_retransmissions"];
    let total = [
        "dupack",
        "timer",
        "undelivered",
        "delivered_priority",
        "snack",
    ]
    .iter()
    .map(|k| n(&by[*k]))
    .sum();
    (
        n(&st["cached"]),
        total,
        n(&st["dupacks_suppressed"]),
        n(&st["cache_drops"]),
    )
}

/// What the receivers found: (local retransmissions delivered, unnecessary).
fn at_receiver(s: &Summary) -> (u64, u64) {
    let lr = s.local_retransmissions.unwrap_or_default();
    (lr.delivered, lr.unnecessary)
}

#[test]
fn snoop_recovers_downlink_losses_locally() {
    let snoop = scenario("down", "[[agent]]\nscheme = \"snoop\"\nat = \"bs\"\n");
    let tcp = scenario("down", "");
    let (mut with, mut without) = (0.0, 0.0);
    for seed in 1..=3 {
        let s = run(&snoop, seed);
        let t = run(&tcp, seed);
        with += goodput(&s);
        without += goodput(&t);
        let (cached, rxmits, suppressed, _) = counters(&s, "snoop");
        assert!(
            cached > 1000 && rxmits > 10 && suppressed > rxmits,
            "seed {seed}"
        );
        // Every local retransmission the receiver got was one the BS sent.
        let (delivered, unnecessary) = at_receiver(&s);
        assert!(delivered > 0 && delivered <= rxmits, "seed {seed}");
        assert!(unnecessary <= delivered / 10, "seed {seed}");
        assert!(at_receiver(&t) == (0, 0));
    }
    assert!(with > without * 1.05, "snoop {with} vs plain TCP {without}");
}

const C_SNOOP: &str = "[[agent]]\nscheme = \"c_snoop\"\nat = \"bs\"\n\n[[agent]]\nscheme = \"c_snoop\"\nat = \"hosts\"\n";

#[test]
fn c_snoop_recovers_losses_in_both_directions() {
    for dir in ["down", "up"] {
        let cs = scenario(dir, C_SNOOP);
        let tcp = scenario(dir, "");
        let (mut with, mut without) = (0.0, 0.0);
        for seed in 1..=3 {
            let s = run(&cs, seed);
            let t = run(&tcp, seed);
            with += goodput(&s);
            without += goodput(&t);
            let (cached, rxmits, _, _) = counters(&s, "c_snoop");
            assert!(cached > 1000 && rxmits > 10, "{dir} seed {seed}");
            let (delivered, unnecessary) = at_receiver(&s);
            assert!(delivered > 0 && delivered <= rxmits, "{dir} seed {seed}");
            assert!(unnecessary <= delivered / 10, "{dir} seed {seed}");
            // Repaired below TCP: far fewer fast retransmits at the sender.
            let (fr, fr_tcp) = (s.flows[0].fast_retransmits, t.flows[0].fast_retransmits);
            assert!(fr * 2 < fr_tcp, "{dir} seed {seed}: {fr} vs {fr_tcp}");
        }
        assert!(
            with > without * 1.1,
            "{dir}: c_snoop {with} vs plain TCP {without}"
        );
    }
}

const SNACK: &str =
    "[[agent]]\nscheme = \"snack\"\nat = \"bs\"\n\n[[agent]]\nscheme = \"snack\"\nat = \"hosts\"\n";

#[test]
fn snack_recovers_losses_in_both_directions() {
    for dir in ["down", "up"] {
        let sn = scenario(dir, SNACK);
        let tcp = scenario(dir, "");
        let (mut with, mut without) = (0.0, 0.0);
        for seed in 1..=3 {
            let s = run(&sn, seed);
            let t = run(&tcp, seed);
            with += goodput(&s);
            without += goodput(&t);
            let st = section(&s, "snack");
            assert!(st["reconstruction"]
                .as_str()
                .unwrap()
                .contains("reconstructed"));
            let (cached, rxmits, suppressed, _) = counters(&s, "snack");
            assert!(
                cached > 1000 && rxmits > 10 && suppressed > 0,
                "{dir} seed {seed}"
            );
            let (delivered, unnecessary) = at_receiver(&s);
            assert!(delivered > 0 && delivered <= rxmits, "{dir} seed {seed}");
            assert!(unnecessary <= delivered / 4, "{dir} seed {seed}");
            let (sent, received) = (st["snacks_sent"].as_u64(), st["snacks_received"].as_u64());
            if dir == "up" {
                // Every SNACK the MH took, the BS sent.
                assert!(received > Some(0) && received <= sent, "seed {seed}");
            } else {
                assert_eq!((sent, received), (Some(0), Some(0)));
            }
        }
        assert!(
            with > without * 1.05,
            "{dir}: snack {with} vs plain TCP {without}"
        );
    }
}

/// C-Snoop composes with paper 000's CR-aware TCP on the 802.15.4 hop:
/// both act on the same hosts, and every packet is accounted for.
#[test]
fn c_snoop_composes_with_cr_aware_tcp_on_the_lrwpan_hop() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/byun2016/newreno-cr.toml");
    let base = scenario::load_file(&path, &["sim.duration=120s".into()]).unwrap();
    let text = format!("{}\n{C_SNOOP}", scenario::to_toml(&base));
    let s = scenario::load_str(&text, "t.toml", std::path::Path::new("."), &[]).unwrap();
    assert!(s.schemes.cr_aware && s.agents.len() == 2);
    for seed in 1..=2 {
        let sum = run(&s, seed);
        let plain = run(&base, seed);
        let cr = sum.cr_aware().unwrap();
        let (cached, rxmits, _, _) = counters(&sum, "c_snoop");
        eprintln!(
            "seed {seed}: goodput {:.0} vs {:.0} without c_snoop; {cr:?}; {}",
            goodput(&sum),
            goodput(&plain),
            section(&sum, "c_snoop")
        );
        assert!(cr.freezes > 0, "seed {seed}: CR-aware TCP froze");
        assert!(cached > 100 && rxmits > 0, "seed {seed}");
        assert!(goodput(&sum) > 0.0);
    }
}
