//! Traces of whole runs: byte-identical for the same seed, different for
//! another, clean in Wireshark's eyes, and tshark counts the same
//! retransmissions as the simulator.

mod support;

use std::path::{Path, PathBuf};
use support::tshark;
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions, Summary};

const SCENARIO: &str = r#"
[sim]
duration = "8s"

[wired]
rate = "100Mbps"
delay = "10ms"
queue = "100p"

[wireless]
rate = "10Mbps"
delay = "1ms"
queue = "50p"

[wireless.loss.down]
model = "iid"
p = 0.02

[wireless.loss.up]
model = "iid"
p = 0.01

[wireless.availability]
model = "onoff"
on = "exp(3s)"
off = "exp(500ms)"

[output]
pcap = true

[[flow]]
name = "bulk"
direction = "down"
app = "bulk"
"#;

fn run_into(dir: &Path, seed: u64, recovery: &str) -> Summary {
    let _ = std::fs::remove_dir_all(dir);
    let sets = vec![format!("tcp.recovery=\"{recovery}\"")];
    let s = scenario::load_str(SCENARIO, "pcap.toml", Path::new("."), &sets).expect("valid");
    sim::run(
        &s,
        RunOptions {
            seed: Some(seed),
            out_dir: Some(dir),
            ..RunOptions::default()
        },
    )
    .expect("run")
}

fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for sub in ["", "timeseries", "pcap"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        names.sort();
        for p in names {
            let bytes = std::fs::read(&p).unwrap();
            out.push((p.strip_prefix(dir).unwrap().to_path_buf(), bytes));
        }
    }
    out
}

#[test]
fn same_seed_identical_bytes_other_seed_differs() {
    let (a, b, c) = (
        tshark::scratch_path("det-a"),
        tshark::scratch_path("det-b"),
        tshark::scratch_path("det-c"),
    );
    run_into(&a, 5, "sack");
    run_into(&b, 5, "sack");
    run_into(&c, 6, "sack");
    let (fa, fb, fc) = (files(&a), files(&b), files(&c));
    assert!(fa.iter().any(|(p, _)| p.ends_with("wireless.pcap")));
    assert_eq!(fa.len(), fb.len());
    for ((pa, ba), (pb, bb)) in fa.iter().zip(&fb) {
        assert_eq!(pa, pb);
        assert!(
            ba == bb,
            "{} differs between two runs of seed 5",
            pa.display()
        );
    }
    let pcap = |f: &Vec<(PathBuf, Vec<u8>)>| {
        f.iter()
            .find(|(p, _)| p.ends_with("wireless.pcap"))
            .unwrap()
            .1
            .clone()
    };
    assert_ne!(pcap(&fa), pcap(&fc));
}

fn check_with_tshark(recovery: &str) {
    if tshark::skip_without_tshark("sim pcap checks") {
        return;
    }
    let dir = tshark::scratch_path(&format!("tshark-{recovery}"));
    let s = run_into(&dir, 11, recovery);
    let flow = &s.flows[0];
    assert!(
        flow.retransmissions > 0,
        "the scenario must exercise retransmission"
    );
    for name in ["wired-bulk.pcap", "wireless.pcap"] {
        let p = dir.join("pcap").join(name);
        let problems = tshark::problems(&p);
        assert!(problems.is_empty(), "{name}: {problems:#?}");
    }
    // The wired capture is at the sender's access link and records each
    // packet as its transmission starts, so it sees every segment the sender
    // sent except those the access link never started (dropped by its queue
    // or still queued at the end). Wireshark's analysis must find exactly
    // the sender's retransmissions among them. Wireshark calls a
    // retransmission sent within 3 ms of the newest segment "out-of-order";
    // at the sender's link that can only be a retransmission, so it counts.
    let wired = dir.join("pcap").join("wired-bulk.pcap");
    let access = s.links.iter().find(|l| l.name == "ch0-bs").unwrap();
    let from_sender = tshark::fields(&wired, "ip.src == 10.1.0.1", &["frame.number"]);
    assert_eq!(from_sender.len() as u64, access.stats.transmitted);
    let never_sent = access.stats.offered - access.stats.transmitted;
    let flagged = tshark::fields(
        &wired,
        "tcp.analysis.retransmission || tcp.analysis.fast_retransmission \
         || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order",
        &["frame.number"],
    )
    .len() as u64;
    let data = tshark::fields(
        &wired,
        "tcp.len > 0 && ip.src == 10.1.0.1",
        &["frame.number"],
    )
    .len() as u64;
    println!("{recovery}: tshark {flagged} retransmissions, {data} data segments; simulator {} / {}; {never_sent} never sent", flow.retransmissions, flow.data_segments_sent);
    assert!(
        never_sent <= 2,
        "the access link is fast: at most a packet or two left at the end"
    );
    assert!(
        flagged <= flow.retransmissions && flow.retransmissions <= flagged + never_sent,
        "tshark vs simulator retransmissions ({recovery})"
    );
    assert!(data <= flow.data_segments_sent && flow.data_segments_sent <= data + never_sent);
}

#[test]
fn tshark_agrees_newreno() {
    check_with_tshark("newreno");
}

#[test]
fn tshark_agrees_sack() {
    check_with_tshark("sack");
}

/// The traces of a run stop at `[output] max_bytes`; what was not written
/// is counted in the summary, and every file still reads.
#[test]
fn traces_stop_at_the_output_budget_and_say_so() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pcap-budget");
    let _ = std::fs::remove_dir_all(&dir);
    let sets = vec!["output.max_bytes=\"200KB\"".to_string()];
    let s = scenario::load_str(SCENARIO, "pcap.toml", Path::new("."), &sets).expect("valid");
    let summary = sim::run(
        &s,
        RunOptions {
            seed: Some(1),
            out_dir: Some(&dir),
            ..RunOptions::default()
        },
    )
    .expect("run");
    let cut = summary.output.expect("the budget was reached");
    assert_eq!(cut.max_bytes, 200_000);
    assert!(cut.records_not_written > 1000, "{cut:?}");
    assert!(cut.cut_at_s > 0.0 && cut.cut_at_s < 8.0, "{cut:?}");
    // Traces (not summary.json) within the budget plus the files' headers.
    let traces: usize = files(&dir)
        .iter()
        .filter(|(p, _)| p.parent().is_some_and(|d| !d.as_os_str().is_empty()))
        .map(|(_, b)| b.len())
        .sum();
    assert!(traces <= 200_000 + 4 * 24 + 200, "{traces} bytes");
    let json = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert!(json.contains("\"records_not_written\""), "{json}");
    if !tshark::skip_without_tshark("traces_stop_at_the_output_budget") {
        for (p, _) in files(&dir).iter().filter(|(p, _)| p.starts_with("pcap")) {
            let problems = tshark::problems(&dir.join(p));
            assert!(problems.is_empty(), "{}: {problems:?}", p.display());
        }
    }
    // Without the key nothing is cut.
    let whole = run_into(&dir, 1, "newreno");
    assert_eq!(whole.output, None);
}
