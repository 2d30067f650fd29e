//! `events.csv`: each flow's congestion events and the hop's blockages at
//! the simulated instants they happened.

use std::path::{Path, PathBuf};
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions, Summary};

fn run(name: &str, sets: &[&str], seed: u64, tag: &str) -> (Summary, PathBuf) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = scenario::load_file(&path, &sets).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("events-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    let summary = sim::run(
        &s,
        RunOptions {
            seed: Some(seed),
            out_dir: Some(&dir),
            ..RunOptions::default()
        },
    )
    .unwrap();
    (summary, dir)
}

/// The lines of `events.csv` as (time, flow, event).
fn events(dir: &Path) -> Vec<(f64, String, String)> {
    let text = std::fs::read_to_string(dir.join("events.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,flow,event,cwnd_bytes,ssthresh_bytes,rto_s")
    );
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            assert_eq!(cells.len(), 6, "{l}");
            (
                cells[0].parse().unwrap(),
                cells[1].to_string(),
                cells[2].to_string(),
            )
        })
        .collect()
}

fn count(ev: &[(f64, String, String)], flow: &str, kind: &str) -> u64 {
    ev.iter().filter(|(_, f, e)| f == flow && e == kind).count() as u64
}

#[test]
fn every_rto_and_fast_retransmit_is_an_event_and_the_blockages_add_up() {
    let (summary, dir) = run("pu-blockage.toml", &["sim.duration=30s"], 1, "pu");
    let ev = events(&dir);
    for f in &summary.flows {
        assert_eq!(count(&ev, &f.name, "rto"), f.rto_count, "{}", f.name);
        assert_eq!(
            count(&ev, &f.name, "fast_retransmit"),
            f.fast_retransmits,
            "{}",
            f.name
        );
    }
    assert!(summary.flows[0].rto_count > 0, "the scenario has timeouts");
    // In time order, and the blocked intervals sum to the hop's blocked time.
    assert!(ev.windows(2).all(|w| w[0].0 <= w[1].0));
    let (mut blocked, mut since) = (0.0, None);
    for (t, flow, e) in &ev {
        match e.as_str() {
            "hop_blocked" => since = Some(*t),
            "hop_unblocked" => blocked += t - since.take().expect("blocked first"),
            _ => continue,
        }
        assert_eq!(flow, "");
    }
    if let Some(s) = since {
        blocked += summary.duration_s - s;
    }
    assert!(
        (blocked - summary.hop.blocked_s).abs() < 1e-6,
        "{blocked} vs {}",
        summary.hop.blocked_s
    );
}

#[test]
fn the_demo_up_flow_timeout_is_an_event() {
    let (summary, dir) = run("demo.toml", &[], 1, "demo");
    let ev = events(&dir);
    let up = summary.flows.iter().find(|f| f.name == "up").unwrap();
    assert!(up.rto_count > 0, "the demo's up flow times out");
    assert_eq!(count(&ev, "up", "rto"), up.rto_count);
    let mut rtos = ev.iter().filter(|(_, f, e)| f == "up" && e == "rto");
    assert!(rtos.all(|&(t, _, _)| t > 0.0 && t < summary.duration_s));
}

#[test]
fn the_same_seed_writes_the_same_events() {
    let a = run("pu-blockage.toml", &["sim.duration=20s"], 3, "same-a").1;
    let b = run("pu-blockage.toml", &["sim.duration=20s"], 3, "same-b").1;
    let (a, b) = (
        std::fs::read(a.join("events.csv")).unwrap(),
        std::fs::read(b.join("events.csv")).unwrap(),
    );
    assert!(a.len() > 100);
    assert_eq!(a, b);
}

#[test]
fn no_time_series_no_events_file() {
    let (_, dir) = run(
        "pu-blockage.toml",
        &["sim.duration=2s", "output.timeseries=false"],
        1,
        "off",
    );
    assert!(!dir.join("events.csv").exists());
}
