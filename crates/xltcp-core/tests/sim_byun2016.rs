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

#[test]
#[ignore]
fn smoke_print() {
    for name in [
        "newreno",
        "phy-lr",
        "tcp-lr",
        "newreno-cr",
        "phy-lr-cr",
        "tcp-lr-cr",
    ] {
        let s = preset(name, &[]);
        let r = run_seed(&s, 1);
        let f = &r.flows[0];
        println!(
            "{name:12} goodput {:8.0} eff {:.3} oracle {:8.0} rto {:4} rtx {:5} sent {:6} acct {:?} ev {}",
            f.goodput_bps, f.efficiency, f.oracle_bps, f.rto_count, f.retransmissions,
            f.data_segments_sent, r.accounting, r.events
        );
        println!("   {}", serde_json::to_string(&r.lrwpan).unwrap());
        println!("   {}", serde_json::to_string(&r.cr_aware).unwrap());
        println!("   {}", serde_json::to_string(&r.local_recovery).unwrap());
        println!("   {}", serde_json::to_string(&r.signals).unwrap());
    }
}
