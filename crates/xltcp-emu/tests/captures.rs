//! The emulator's pcapng captures, read back with tshark: one emulation
//! (a 5 % lossy hop, captured at both points with the default snapshot
//! length) shared by the tests, one property each. Needs root,
//! /dev/net/tun, `ip netns`, iperf3 and tshark; each test prints why it is
//! skipped when they are missing.

mod support;

use std::path::PathBuf;
use std::sync::OnceLock;
use support::{emu_or_skip, scenario, tshark};
use xltcp_core::sim::Summary;

const LOSSY: &str = r#"
[sim]
duration = "3s"
[wired]
rate = "100Mbps"
delay = "5ms"
[wireless]
rate = "10Mbps"
delay = "5ms"
[wireless.loss.down]
model = "iid"
p = 0.05
[output]
pcap = true
pcap_point = "both"
[[flow]]
"#;

/// The shared run: its results folder and summary (`None`: skipped).
fn run() -> Option<&'static (PathBuf, Summary)> {
    static RUN: OnceLock<Option<(PathBuf, Summary)>> = OnceLock::new();
    RUN.get_or_init(|| {
        let _one = emu_or_skip("captures")?;
        let out = std::env::temp_dir().join(format!("xltcp-emu-captures-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let opts = xltcp_emu::EmuOptions {
            seed: Some(1),
            out_dir: Some(&out),
            ..Default::default()
        };
        let sum = xltcp_emu::run(&scenario(LOSSY), opts).expect("emulation runs");
        Some((out, sum))
    })
    .as_ref()
}

/// Rows of `fields` of the records of `pcap/<file>.pcapng` matching
/// `filter`; `None` when the run or tshark is unavailable.
fn rows(file: &str, fields: &[&str], filter: Option<&str>) -> Option<Vec<Vec<String>>> {
    let (dir, _) = run()?;
    tshark(&dir.join(format!("pcap/{file}.pcapng")), fields, filter)
}

fn count(rows: &[Vec<String>], value: &str) -> usize {
    rows.iter().filter(|r| r[0] == value).count()
}

#[test]
fn each_link_direction_and_capture_point_is_a_named_interface() {
    let Some(wired) = rows("wired-flow0", &["frame.interface_name"], None) else {
        return;
    };
    let wireless = rows("wireless", &["frame.interface_name"], None).unwrap();
    let wired_names = ["ch0-bs.tx", "ch0-bs.rx", "bs-ch0.tx", "bs-ch0.rx"];
    let air_names = ["bs-air.tx", "bs-air.rx", "air-bs.tx", "air-bs.rx"];
    for (rows, names) in [(&wired, wired_names), (&wireless, air_names)] {
        for name in names {
            assert!(count(rows, name) > 0, "no record on {name}");
        }
        let other = rows.iter().find(|r| !names.contains(&r[0].as_str()));
        assert!(other.is_none(), "a record on another interface: {other:?}");
    }
}

#[test]
fn transmissions_and_arrivals_match_the_links_counts() {
    let Some(r) = rows(
        "wireless",
        &["frame.interface_name"],
        Some("!frame.comment"),
    ) else {
        return;
    };
    let (_, sum) = run().unwrap();
    let link = |name: &str| sum.links.iter().find(|l| l.name == name).unwrap();
    for name in ["bs-air", "air-bs"] {
        let l = link(name);
        assert_eq!(count(&r, &format!("{name}.tx")) as u64, l.stats.transmitted);
        assert_eq!(count(&r, &format!("{name}.rx")) as u64, l.stats.arrived);
    }
}

#[test]
fn timestamps_are_nanoseconds_of_emulation_time() {
    let Some(r) = rows("wireless", &["frame.time_epoch"], None) else {
        return;
    };
    let ns: Vec<u64> = r
        .iter()
        .map(|row| {
            let (s, frac) = row[0].split_once('.').expect("a fractional part");
            assert_eq!(frac.len(), 9, "nanosecond resolution: {}", row[0]);
            s.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap()
        })
        .collect();
    // Emulation time from zero: within the run and its wind-down.
    assert!(
        ns.iter().all(|&t| t < 30_000_000_000),
        "{:?}",
        ns.iter().max()
    );
    assert!(ns.iter().any(|t| t % 1000 != 0), "finer than microseconds");
}

#[test]
fn drops_carry_their_reason_as_a_packet_comment() {
    let fields = ["frame.interface_name", "frame.comment"];
    let Some(r) = rows("wireless", &fields, Some("frame.comment")) else {
        return;
    };
    let (_, sum) = run().unwrap();
    let lost = sum
        .links
        .iter()
        .find(|l| l.name == "bs-air")
        .unwrap()
        .stats
        .drops
        .loss;
    assert!(lost > 0, "the 5 % lossy hop lost nothing");
    let on_air: Vec<_> = r
        .iter()
        .filter(|row| row[1] == "xltcp drop: lost on the air")
        .collect();
    assert_eq!(on_air.len() as u64, lost);
    assert!(on_air.iter().all(|row| row[0] == "bs-air.tx"));
}

#[test]
fn the_default_snap_length_keeps_128_bytes_and_whole_headers() {
    let fields = ["frame.cap_len", "frame.len", "tcp.hdr_len", "ip.len"];
    let Some(r) = rows("wired-flow0", &fields, None) else {
        return;
    };
    let mut cut = 0;
    for row in &r {
        let n = |k: usize| {
            row[k]
                .parse::<usize>()
                .unwrap_or_else(|_| panic!("{row:?}"))
        };
        assert!(n(0) <= 128, "{row:?}");
        assert_eq!(
            n(1),
            n(3),
            "the record keeps the datagram's length: {row:?}"
        );
        assert!(20 + n(2) <= n(0), "IPv4 and TCP headers whole: {row:?}");
        cut += usize::from(n(0) < n(1));
    }
    assert!(cut > 0, "data segments are cut to the snapshot length");
    let malformed = rows("wired-flow0", &["frame.number"], Some("_ws.malformed")).unwrap();
    assert!(malformed.is_empty(), "tshark decodes every record");
}
