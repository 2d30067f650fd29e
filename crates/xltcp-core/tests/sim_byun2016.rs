//! The paper-000 presets (scenarios/byun2016) on the 802.15.4 hop.

use std::path::PathBuf;
use xltcp_core::scenario::{load_file, Scenario};
use xltcp_core::sim::{run, RunOptions, Summary};

fn preset(name: &str, sets: &[&str]) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/byun2016")
        .join(format!("{name}.toml"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_file(&path, &sets).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run_seed(s: &Scenario, seed: u64) -> Summary {
    run(
        s,
        RunOptions {
            seed: Some(seed),
            ..RunOptions::default()
        },
    )
    .unwrap()
}

/// The six configurations in the paper's order.
const CONFIGS: [&str; 6] = [
    "newreno",
    "phy-lr",
    "tcp-lr",
    "newreno-cr",
    "phy-lr-cr",
    "tcp-lr-cr",
];

/// One line per configuration: what the reproduction table reports, for
/// one seed and a shorter run.
fn table(seed: u64, duration: &str) -> String {
    let mut out = String::from(
        "config        packets  goodput_bps  rtos  rtx  efficiency  freezes  lr_reports  accounting\n",
    );
    for name in CONFIGS {
        let s = preset(name, &[&format!("sim.duration=\"{duration}\"")]);
        let r = run_seed(&s, seed);
        let f = &r.flows[0];
        assert!(r.accounting.balances(), "{name}: {:?}", r.accounting);
        assert!(f.goodput_bps <= f.oracle_bps, "{name}");
        let a = r.accounting;
        out.push_str(&format!(
            "{name:12} {:8} {:12.0} {:5} {:4} {:11.3} {:8} {:11} {}/{}/{}/{}\n",
            f.bytes_delivered / 94,
            f.goodput_bps,
            f.rto_count,
            f.retransmissions,
            f.efficiency,
            r.cr_aware().map_or(0, |c| c.freezes),
            r.local_recovery().map_or(0, |l| l.reports_sent),
            a.injected,
            a.delivered,
            a.dropped,
            a.in_flight,
        ));
    }
    out
}

/// The six-configuration table at a fixed seed, 120 s per run: a change in
/// the hop, TCP or the schemes shows as a diff to review.
#[test]
fn six_configurations_snapshot() {
    insta::assert_snapshot!(table(1, "120s"));
}

/// The presets load, share the PU schedule, and differ only in `[schemes]`.
#[test]
fn presets_differ_only_in_their_schemes() {
    let base = preset("newreno", &[]);
    for name in CONFIGS {
        let s = preset(name, &[]);
        assert_eq!(s.wireless, base.wireless, "{name}");
        assert_eq!(s.tcp, base.tcp, "{name}");
        assert_eq!(s.pu_detection, base.pu_detection, "{name}");
        assert_eq!(s.sim.duration, xltcp_core::time::Dur::from_secs(600));
        assert_eq!(s.schemes.cr_aware, name.ends_with("-cr"), "{name}");
    }
}
