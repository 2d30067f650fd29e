//! Properties of whole runs: conservation, the oracle bound, determinism,
//! and the byte stream surviving any loss and blockage pattern.

use proptest::prelude::*;
use std::path::Path;
use xltcp_core::scenario::{self, Scenario};
use xltcp_core::sim::{self, RunOptions, Summary};

const BASE: &str = r#"
[sim]
duration = "10s"

[wired]
rate = "100Mbps"
delay = "10ms"
queue = "100p"

[wireless]
rate = "10Mbps"
delay = "1ms"
queue = "100p"

[[flow]]
name = "down"
direction = "down"
app = "bulk"
"#;

fn load(text: &str, overrides: &[&str]) -> Scenario {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    scenario::load_str(text, "test.toml", Path::new("."), &o).unwrap_or_else(|e| panic!("{e}"))
}

fn run(s: &Scenario, seed: u64) -> Summary {
    sim::run(
        s,
        RunOptions {
            seed: Some(seed),
            ..RunOptions::default()
        },
    )
    .expect("run")
}

fn check_invariants(s: &Summary) {
    assert!(
        s.accounting.balances(),
        "packets not accounted for: {:?}",
        s.accounting
    );
    for f in &s.flows {
        assert!(
            f.goodput_bps <= f.oracle_bps * (1.0 + 1e-9),
            "{}: goodput {} > oracle {}",
            f.name,
            f.goodput_bps,
            f.oracle_bps
        );
    }
    for d in &s.directions {
        assert!(
            d.goodput_bps <= d.oracle_bps * (1.0 + 1e-9),
            "{}: goodput {} > oracle {}",
            d.direction,
            d.goodput_bps,
            d.oracle_bps
        );
    }
}

#[test]
fn lossless_bulk_fills_the_hop() {
    let s = run(&load(BASE, &[]), 1);
    check_invariants(&s);
    let f = &s.flows[0];
    // The only losses are drop-tail overflows of the hop's queue in slow
    // start; SACK recovery repairs each exactly once, without a timeout.
    let air = s.links.iter().find(|l| l.name == "bs-air").unwrap();
    assert!(air.stats.drops.queue_full > 0);
    assert_eq!(f.retransmissions, air.stats.drops.queue_full);
    assert_eq!(f.rto_count, 0);
    // 10 s of a 10 Mbit/s hop: handshake and slow start cost well under a second.
    assert!(f.efficiency > 0.9, "efficiency {}", f.efficiency);
}

#[test]
fn same_seed_same_summary_other_seed_differs() {
    let sc = load(
        BASE,
        &[
            "wireless.loss.down.model=\"iid\"",
            "wireless.loss.down.p=0.02",
        ],
    );
    let a = run(&sc, 7);
    let b = run(&sc, 7);
    let c = run(&sc, 8);
    assert_eq!(a, b);
    assert_ne!(a.flows[0].bytes_delivered, c.flows[0].bytes_delivered);
}

#[test]
fn both_directions_and_blockage_respect_the_bound() {
    let text = format!(
        "{BASE}\n[[flow]]\nname = \"up\"\ndirection = \"up\"\napp = \"bulk\"\nstart = \"1s\"\n\n[wireless.availability]\nmodel = \"onoff\"\non = \"exp(2s)\"\noff = \"exp(1s)\"\n"
    );
    let s = run(
        &load(
            &text,
            &[
                "wireless.loss.up.model=\"gilbert\"",
                "wireless.loss.up.mean_loss=0.02",
                "wireless.loss.up.mean_burst=3",
            ],
        ),
        3,
    );
    check_invariants(&s);
    assert!(
        s.hop.blocked_s > 0.5,
        "the hop was blocked {} s",
        s.hop.blocked_s
    );
    assert!(s.flows.iter().all(|f| f.bytes_delivered > 0));
    let air = s.links.iter().find(|l| l.name == "bs-air").unwrap();
    assert!(air.stats.drops.blocked + air.stats.drops.queue_full > 0 || s.hop.blocked_s > 0.0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the loss and blockage pattern, a file arrives whole and in
    /// order (bytes read == bytes written), every packet is accounted for,
    /// and goodput stays under the oracle bound.
    #[test]
    fn file_arrives_whole_under_any_loss(
        seed in 0u64..1000,
        p in 0.0f64..0.1,
        burst in 1.0f64..4.0,
        sack in any::<bool>(),
        up in any::<bool>(),
        blocked in any::<bool>(),
    ) {
        let mean_loss = p.min(burst / (1.0 + burst) * 0.9);
        let dir = if up { "up" } else { "down" };
        let mut text = format!(
            "{}\n[wireless.loss.down]\nmodel = \"gilbert\"\nmean_loss = {mean_loss}\nmean_burst = {burst}\n[wireless.loss.up]\nmodel = \"iid\"\np = {}\n",
            BASE.replace("app = \"bulk\"", "app = \"file\"\nsize = \"200KB\"").replace("direction = \"down\"", &format!("direction = \"{dir}\"")),
            p / 2.0
        );
        if blocked {
            text.push_str("[wireless.availability]\nmodel = \"onoff\"\non = \"exp(1s)\"\noff = \"exp(500ms)\"\n");
        }
        let recovery = if sack { "tcp.recovery=\"sack\"" } else { "tcp.recovery=\"newreno\"" };
        // Long enough for the worst back-off: ACK bursts of a per-frame Gilbert
        // process on a sparse reverse path can stall a sender for minutes.
        let sc = load(&text, &["sim.duration=3000s", recovery]);
        let s = run(&sc, seed);
        check_invariants(&s);
        prop_assert_eq!(s.flows[0].bytes_delivered, 200_000);
    }
}

#[test]
fn writing_traces_does_not_change_the_results() {
    let sc = load(
        BASE,
        &[
            "wireless.loss.down.model=\"iid\"",
            "wireless.loss.down.p=0.01",
            "output.pcap=true",
        ],
    );
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("traces-vs-none");
    let with = sim::run(
        &sc,
        RunOptions {
            seed: Some(4),
            out_dir: Some(&dir),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let mut ticks = 0;
    let mut count = |_: xltcp_core::time::Time, _: xltcp_core::time::Time| {
        ticks += 1;
        true
    };
    let without = sim::run(
        &sc,
        RunOptions {
            seed: Some(4),
            progress: Some(&mut count),
            ..RunOptions::default()
        },
    )
    .unwrap();
    assert!(ticks > 50);
    assert_eq!(with, without);
}

#[test]
fn the_simulator_models_every_congestion_control_the_loader_knows() {
    for cc in scenario::KNOWN_CC {
        let sc = load(BASE, &[&format!("tcp.cc=\"{cc}\"")]);
        assert_eq!(sim::check(&sc), Ok(()), "{cc}");
    }
}
