//! `[wireless.availability] blocked`: a hop that defers during blockages
//! against one whose frames are destroyed.

use std::path::Path;
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions, Summary};

fn run(blocked: &str, extra: &[&str]) -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/pu-blockage.toml");
    let mut sets = vec![
        format!("wireless.availability.blocked=\"{blocked}\""),
        "sim.duration=600s".to_string(),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let s = scenario::load_file(&path, &sets).unwrap();
    sim::run(&s, RunOptions::default()).unwrap()
}

fn air(s: &Summary, name: &str) -> xltcp_core::net::link::LinkStats {
    s.links.iter().find(|l| l.name == name).unwrap().stats
}

#[test]
fn destroyed_frames_cost_goodput_that_deferring_does_not() {
    let defer = run("defer", &["wireless.loss.down.p=0"]);
    let lose = run("lose", &["wireless.loss.down.p=0"]);
    for s in [&defer, &lose] {
        assert!(s.accounting.balances(), "{:?}", s.accounting);
    }
    // The same primary-user schedule in both runs.
    assert_eq!(defer.hop, lose.hop);
    let (d, l) = (&defer.flows[0], &lose.flows[0]);
    // Deferring keeps TCP near the bound; destroyed frames and backed-off
    // timers leave most available periods unused (600 s: 0.98 against
    // 0.29 of the bound).
    assert!(d.efficiency > 0.9, "{}", d.efficiency);
    assert!(
        l.goodput_bps < 0.5 * d.goodput_bps,
        "{} vs {}",
        l.goodput_bps,
        d.goodput_bps
    );
    // Deferring loses at most the frame on the air at each blockage onset;
    // losing destroys many, in both directions.
    let blockages = 600 / 8 + 20;
    assert!(air(&defer, "bs-air").drops.blocked <= blockages);
    assert!(air(&lose, "bs-air").drops.blocked > 10 * blockages);
    assert!(air(&lose, "air-bs").drops.blocked > 0);
}

const LONG_BLOCKAGE: &str = r#"
[sim]
duration = "120s"

[wired]
rate = "100Mbps"
delay = "10ms"

[wireless]
rate = "10Mbps"
delay = "1ms"

[wireless.availability]
model = "intervals"
intervals = [["5s", "100s"]]

[[flow]]
name = "bulk"
"#;

fn run_long(blocked: &str) -> Summary {
    let sets = vec![format!("wireless.availability.blocked=\"{blocked}\"")];
    let s = scenario::load_str(LONG_BLOCKAGE, "t.toml", Path::new("."), &sets).unwrap();
    sim::run(&s, RunOptions::default()).unwrap()
}

#[test]
fn a_long_blockage_backs_the_rto_off_to_its_cap() {
    let lose = run_long("lose");
    let defer = run_long("defer");
    // Lose: every retransmission during the 95 s dies and the timer doubles
    // 1, 2, 4, 8, 16, 32, 60 s; defer: the frames wait in the hop's queue.
    assert!(lose.flows[0].rto_count >= 6, "{}", lose.flows[0].rto_count);
    assert!(lose.flows[0].bytes_delivered < defer.flows[0].bytes_delivered);
}
