//! Traces of whole runs: byte-identical for the same seed, different for
//! another, clean in Wireshark's eyes, and tshark counts the same
//! retransmissions as the simulator.

mod support;

use std::path::{Path, PathBuf};
use support::{pcapng, tshark};
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
    assert!(fa.iter().any(|(p, _)| p.ends_with("wireless.pcapng")));
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
            .find(|(p, _)| p.ends_with("wireless.pcapng"))
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
    for name in ["wired-bulk.pcapng", "wireless.pcapng"] {
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
    let wired = dir.join("pcap").join("wired-bulk.pcapng");
    let access = s.links.iter().find(|l| l.name == "ch0-bs").unwrap();
    // Drop records (their reason in the packet comment) are not transmissions.
    let from_sender = tshark::fields(
        &wired,
        "ip.src == 10.1.0.1 && !frame.comment",
        &["frame.number"],
    );
    assert_eq!(from_sender.len() as u64, access.stats.transmitted);
    let never_sent = access.stats.offered - access.stats.transmitted;
    let flagged = tshark::fields(
        &wired,
        "(tcp.analysis.retransmission || tcp.analysis.fast_retransmission \
         || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order) \
         && !frame.comment",
        &["frame.number"],
    )
    .len() as u64;
    let data = tshark::fields(
        &wired,
        "tcp.len > 0 && ip.src == 10.1.0.1 && !frame.comment",
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
    // Each file's section header (28 B) and interface blocks (< 160 B each)
    // are written whatever the budget.
    assert!(traces <= 200_000 + 2 * 28 + 4 * 160 + 200, "{traces} bytes");
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

fn run_with(dir: &Path, seed: u64, sets: &[&str]) -> Summary {
    let _ = std::fs::remove_dir_all(dir);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
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

/// Every capture point is an interface of its own, named after its link
/// direction and side; the sender sees each transmission, the receiver each
/// arrival, and every drop is a record whose comment gives its reason.
#[test]
fn captures_at_both_points_with_drop_reasons() {
    let dir = tshark::scratch_path("points-both");
    let s = run_with(
        &dir,
        3,
        &["output.pcap_point=\"both\"", "wired.queue=\"8p\""],
    );
    let link = |name: &str| s.links.iter().find(|l| l.name == name).unwrap().stats;
    let wired = pcapng::read(&dir.join("pcap/wired-bulk.pcapng"));
    let names: Vec<&str> = wired.ifaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["ch0-bs.tx", "ch0-bs.rx", "bs-ch0.tx", "bs-ch0.rx"]);
    for i in &wired.ifaces {
        assert_eq!(
            (i.link_type, i.tsresol, i.snaplen),
            (101, Some(9), 128),
            "{i:?}"
        );
    }
    let wireless = pcapng::read(&dir.join("pcap/wireless.pcapng"));
    let names: Vec<&str> = wireless.ifaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["bs-air.tx", "bs-air.rx", "air-bs.tx", "air-bs.rx"]);
    let count = |cap: &pcapng::Capture, iface: &str, comment: Option<&str>| {
        cap.of(iface)
            .iter()
            .filter(|r| r.comment.as_deref() == comment)
            .count() as u64
    };
    for (cap, name) in [
        (&wired, "ch0-bs"),
        (&wired, "bs-ch0"),
        (&wireless, "bs-air"),
        (&wireless, "air-bs"),
    ] {
        let st = link(name);
        let tx = format!("{name}.tx");
        let rx = format!("{name}.rx");
        assert_eq!(
            count(cap, &tx, None),
            st.transmitted,
            "{name}: transmissions"
        );
        assert_eq!(count(cap, &rx, None), st.arrived, "{name}: arrivals");
        assert_eq!(
            count(cap, &tx, Some("xltcp drop: queue full")),
            st.drops.queue_full,
            "{name}: queue drops"
        );
        assert_eq!(
            count(cap, &tx, Some("xltcp drop: lost on the air")),
            st.drops.loss,
            "{name}: losses"
        );
        assert!(cap.of(&rx).iter().all(|r| r.comment.is_none()), "{name}");
    }
    // The scenario exercises every kind of record.
    let (down, bs) = (link("bs-air"), link("ch0-bs"));
    assert!(down.drops.loss > 0 && down.drops.blocked > 0, "{down:?}");
    assert!(bs.drops.queue_full > 0, "{bs:?}");
    assert_eq!(
        count(
            &wireless,
            "bs-air.tx",
            Some("xltcp drop: lost to a blockage of the channel during its airtime")
        ),
        down.drops.blocked
    );
    // Timestamps are in nanoseconds of simulated time.
    let last = wireless.records.iter().map(|r| r.ts).max().unwrap();
    assert!(last > 7_000_000_000 && last <= 8_000_000_000, "{last}");
    // The receiver point alone: one interface per direction, drops on it.
    let s2 = run_with(
        &dir,
        3,
        &["output.pcap_point=\"receiver\"", "wired.queue=\"8p\""],
    );
    assert_eq!(
        s2.links, s.links,
        "the capture point does not change the run"
    );
    let rx_only = pcapng::read(&dir.join("pcap/wireless.pcapng"));
    let names: Vec<&str> = rx_only.ifaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["bs-air.rx", "air-bs.rx"]);
    assert_eq!(count(&rx_only, "bs-air.rx", None), down.arrived);
    assert_eq!(
        count(&rx_only, "bs-air.rx", Some("xltcp drop: lost on the air")),
        down.drops.loss
    );
}

/// Wireshark reads the captures: named interfaces, the drop reasons as
/// packet comments, every segment dissected as TCP (no heuristic
/// dissector claims a payload), nothing malformed.
#[test]
fn tshark_reads_interfaces_comments_and_plain_tcp() {
    if tshark::skip_without_tshark("tshark_reads_interfaces_comments_and_plain_tcp") {
        return;
    }
    let dir = tshark::scratch_path("points-tshark");
    let s = run_with(
        &dir,
        3,
        &["output.pcap_point=\"both\"", "sim.duration=\"4s\""],
    );
    let wireless = dir.join("pcap/wireless.pcapng");
    let problems = tshark::problems(&wireless);
    assert!(problems.is_empty(), "{problems:?}");
    let rows = tshark::fields(&wireless, "", &["frame.interface_name", "_ws.col.Protocol"]);
    let mut names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names, ["air-bs.rx", "air-bs.tx", "bs-air.rx", "bs-air.tx"]);
    assert!(
        rows.iter().all(|r| r[1] == "TCP"),
        "{:?}",
        rows.iter().find(|r| r[1] != "TCP")
    );
    let lost = tshark::fields(
        &wireless,
        "frame.comment == \"xltcp drop: lost on the air\"",
        &["frame.number"],
    );
    let down = s.links.iter().find(|l| l.name == "bs-air").unwrap().stats;
    let up = s.links.iter().find(|l| l.name == "air-bs").unwrap().stats;
    assert_eq!(lost.len() as u64, down.drops.loss + up.drops.loss);
    assert!(!lost.is_empty());
}

/// Links whose departures are known when a packet is offered (the wired
/// links, and the hop when nothing blocks it) record a transmission that
/// starts later at its start: every file stays in time order, each
/// transmission is one record, and capturing changes nothing in the run.
#[test]
fn captures_of_known_departures_stay_in_time_order() {
    let dir = tshark::scratch_path("points-known");
    let sets = [
        "output.pcap_point=\"both\"",
        "wired.queue=\"8p\"",
        "wireless.queue=\"10p\"",
        "wireless.availability={model = \"always\"}",
    ];
    let s = run_with(&dir, 4, &sets);
    let link = |name: &str| s.links.iter().find(|l| l.name == name).unwrap().stats;
    for (file, names) in [
        ("wired-bulk", ["ch0-bs", "bs-ch0"]),
        ("wireless", ["bs-air", "air-bs"]),
    ] {
        let cap = pcapng::read(&dir.join(format!("pcap/{file}.pcapng")));
        let ts: Vec<u64> = cap.records.iter().map(|r| r.ts).collect();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{file}: out of order");
        for name in names {
            let sent = cap.of(&format!("{name}.tx"));
            let plain = sent.iter().filter(|r| r.comment.is_none()).count() as u64;
            assert_eq!(plain, link(name).transmitted, "{name}");
        }
    }
    // Queues that filled: transmissions that started later were recorded.
    assert!(link("ch0-bs").drops.queue_full > 0, "{:?}", link("ch0-bs"));
    assert!(link("bs-air").max_queue > 1, "{:?}", link("bs-air"));
    let mut quiet: Vec<&str> = sets.to_vec();
    quiet.push("output.pcap=false");
    let without = run_with(&dir, 4, &quiet);
    assert_eq!(without.links, s.links);
    assert_eq!(without.events, s.events);
}
