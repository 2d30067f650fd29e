//! `[wireless.loss.down] model = "list"` end to end: exactly the listed
//! frames of the direction are lost, counted from its first frame (the
//! SYN), and nothing else is.

use std::path::PathBuf;
use xltcp_core::scenario::load_file;
use xltcp_core::sim::{run, RunOptions, Summary};

fn lossy(sets: &[&str]) -> Summary {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lossy-last-hop.toml");
    let mut all = vec!["sim.duration=\"5s\"".to_string()];
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = load_file(&path, &all).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions::default()).unwrap()
}

#[test]
fn the_listed_frames_and_only_they_are_lost() {
    let r = lossy(&["wireless.loss.down={model = \"list\", frames = [1, 40, 41, 900]}"]);
    let air = r.links.iter().find(|l| l.name == "bs-air").unwrap();
    assert!(air.stats.transmitted >= 900, "{}", air.stats.transmitted);
    assert_eq!(air.stats.drops.loss, 4);
    // Frame 1 is the SYN: the handshake times out once.
    assert_eq!(r.flows[0].syn_timeouts, 1);
    let clean = lossy(&["wireless.loss.down={model = \"list\", frames = []}"]);
    let none = lossy(&["wireless.loss.down.p=0"]);
    assert_eq!(
        clean.flows[0].bytes_delivered,
        none.flows[0].bytes_delivered
    );
    let air = clean.links.iter().find(|l| l.name == "bs-air").unwrap();
    assert_eq!(air.stats.drops.loss, 0);
}
