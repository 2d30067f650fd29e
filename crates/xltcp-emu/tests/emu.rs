//! The emulator on this machine: real transfers, teardown, leftovers,
//! malformed input. Needs root, /dev/net/tun, `ip netns` and iperf3; each
//! test prints why it is skipped when they are missing.

mod support;

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use support::{emu_or_skip, namespaces_of, pcap_records, scenario, tshark};
use xltcp_core::wire::parse;
use xltcp_emu::{EmuError, EmuOptions};

const HOP: &str = r#"
[sim]
duration = "3s"
[wired]
rate = "100Mbps"
delay = "5ms"
[wireless]
rate = "10Mbps"
delay = "5ms"
"#;

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("xltcp-emu-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `s` with its results written into `out`.
fn run_into(s: &xltcp_core::scenario::Scenario, out: &std::path::Path) -> xltcp_core::sim::Summary {
    let opts = EmuOptions {
        out_dir: Some(out),
        ..Default::default()
    };
    xltcp_emu::run(s, opts).expect("emulation runs")
}

#[test]
fn a_real_tcp_transfer_crosses_the_hop_with_valid_checksums() {
    let Some(_one) = emu_or_skip("a_real_tcp_transfer_crosses_the_hop") else {
        return;
    };
    // Whole datagrams, so every captured one can be checked.
    let s = scenario(&format!(
        "{HOP}\n[output]\npcap = true\npcap_snaplen = 65535\n[[flow]]\n"
    ));
    let out = tmp("transfer");
    let sum = run_into(&s, &out);
    let f = &sum.flows[0];
    assert!(f.bytes_delivered > 1_000_000, "{f:?}");
    assert!(
        f.efficiency > 0.7,
        "goodput {} of oracle {}",
        f.goodput_bps,
        f.oracle_bps
    );
    assert!(sum.accounting.balances(), "{:?}", sum.accounting);
    // One flow down: its direction's aggregate is the flow.
    let d = &sum.directions[..];
    assert_eq!(
        (d.len(), d[0].direction, d[0].flows),
        (1, "down", 1),
        "{d:?}"
    );
    assert_eq!(
        (d[0].goodput_bps, d[0].oracle_bps),
        (f.goodput_bps, f.oracle_bps)
    );
    assert!(
        sum.emu.as_ref().expect("emu section").rejected.is_empty(),
        "{:?}, see {}",
        sum.emu.as_ref().expect("emu section").rejected,
        out.join("pcap/rejected.pcapng").display()
    );
    assert_eq!(
        sum.emu.as_ref().expect("emu section").linux_cc,
        vec!["reno".to_string()]
    );
    assert!(
        sum.emu
            .as_ref()
            .expect("emu section")
            .datapath
            .lateness
            .count
            > 1000
    );
    // Every datagram on the air is real IPv4/TCP with valid checksums,
    // routed by the BS on its way down (TTL 63; the up direction is
    // captured before the BS), at an emulation time within the run.
    let records = pcap_records(&out.join("pcap/wireless.pcapng"));
    assert_eq!(
        records.len() as u64,
        sum.links
            .iter()
            .filter(|l| l.name.contains("air"))
            .map(|l| l.stats.transmitted)
            .sum::<u64>()
    );
    let mut client_ports = std::collections::BTreeSet::new();
    for (t, bytes) in &records {
        let p = parse(bytes).expect("valid datagram with checksums");
        let down = p.packet().src.octets()[1] == 1;
        assert_eq!(p.packet().ttl, if down { 63 } else { 64 });
        assert!(*t < 20_000_000_000);
        let tcp = &p.packet().tcp;
        client_ports.insert(if down { tcp.src_port } else { tcp.dst_port });
    }
    // iperf3's control connection went around the hop: the air carried
    // the data connection alone.
    assert_eq!(client_ports.len(), 1, "{client_ports:?}");
    assert!(sum.emu.as_ref().expect("emu section").control_bypassed > 5);
    assert!(out.join("summary.json").is_file() && out.join("apps/flow0.json").is_file());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_upload_runs_the_congestion_control_asked_for() {
    let Some(_one) = emu_or_skip("an_upload_runs_the_congestion_control_asked_for") else {
        return;
    };
    let s = scenario(&format!("{HOP}\n[[flow]]\ndirection = \"up\"\n"));
    let opts = EmuOptions {
        cc: Some("cubic".into()),
        ..Default::default()
    };
    let sum = xltcp_emu::run(&s, opts).expect("emulation runs");
    assert_eq!(
        sum.emu.as_ref().expect("emu section").linux_cc,
        vec!["cubic".to_string()]
    );
    assert!(
        sum.flows[0].bytes_delivered > 1_000_000,
        "{:?}",
        sum.flows[0]
    );
    let air_up = sum.links.iter().find(|l| l.name == "air-bs").unwrap();
    let air_down = sum.links.iter().find(|l| l.name == "bs-air").unwrap();
    assert!(air_up.stats.bytes_transmitted > 10 * air_down.stats.bytes_transmitted);
}

#[test]
fn file_flows_deliver_every_byte_and_complete_in_both_directions() {
    let Some(_one) = emu_or_skip("file_flows_deliver_every_byte") else {
        return;
    };
    // 1 MB each way on a 10 Mbit/s hop: about a second each, well inside
    // the 3 s; a 1 % loss makes Linux retransmit. The second flow is sent
    // with a congestion control of its own.
    let flows = "[wireless.loss.down]\nmodel = \"iid\"\np = 0.01\n\
                 [[flow]]\napp = \"file\"\nsize = \"1MB\"\n\
                 [[flow]]\napp = \"file\"\nsize = \"1MB\"\ndirection = \"up\"\n";
    let s = scenario(&format!("{HOP}{flows}"));
    let sum = xltcp_emu::run(&s, EmuOptions::default()).expect("emulation runs");
    let emu = sum.emu.as_ref().expect("emu section");
    // (A loaded machine may add a lateness warning; none may be a flow's.)
    assert!(
        !emu.warnings.iter().any(|w| w.starts_with("flow")),
        "{:?}",
        emu.warnings
    );
    for f in &sum.flows {
        assert_eq!(f.bytes_delivered, 1_000_000, "{f:?}");
        let done = f.completion_s.expect("completed");
        // At least the bytes' own time on the hop, and by the end.
        assert!((0.8..3.0).contains(&done), "{f:?}");
        assert_eq!(f.active_s, done);
    }
    assert!(sum.flows[0].retransmissions > 0, "{:?}", sum.flows[0]);
    assert_nothing_left();
}

#[test]
fn linux_tcp_state_is_sampled_into_the_simulators_time_series() {
    let Some(_one) = emu_or_skip("linux_tcp_state_is_sampled") else {
        return;
    };
    // An iperf3 download (a control connection beside its data connection)
    // and a file upload (one connection, from the other host's namespace),
    // with losses on the download's direction.
    let flows = "[wireless.loss.down]\nmodel = \"iid\"\np = 0.01\n\
                 [[flow]]\nname = \"down\"\n\
                 [[flow]]\nname = \"up\"\napp = \"file\"\nsize = \"1MB\"\ndirection = \"up\"\n";
    let s = scenario(&format!("{HOP}{flows}"));
    let out = tmp("series");
    let sum = run_into(&s, &out);
    let read = |flow: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(out.join(format!("timeseries/{flow}.csv")))
            .expect("a time series per flow");
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(xltcp_emu::series::HEADER));
        lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    };
    let num = |r: &[String], i: usize| -> f64 { r[i].parse().unwrap_or(f64::NAN) };
    let down = read("down");
    // 100 ms samples over 3 s, from the data connection's opening.
    assert!((20..=31).contains(&down.len()), "{} rows", down.len());
    for w in down.windows(2) {
        assert!(num(&w[1], 0) > num(&w[0], 0), "time goes forward");
        assert!(
            num(&w[1], 7) >= num(&w[0], 7),
            "snd_una_rel never goes back"
        );
    }
    for r in &down {
        assert!(num(r, 0) <= 3.0 && num(r, 1) > 0.0, "{r:?}");
        assert!(
            num(r, 6) >= num(r, 7),
            "sent at least what is acknowledged: {r:?}"
        );
        assert_eq!(r[10], "0", "the hop is never blocked here");
    }
    assert!(
        down.iter().any(|r| !r[2].is_empty()),
        "1 % loss over 3 s reduces the window at least once"
    );
    // The goodput column sums to the in-order bytes counted between the
    // first and the last row: most of the flow's, none of the control's.
    let summed: f64 = down
        .windows(2)
        .map(|w| num(&w[1], 8) * (num(&w[1], 0) - num(&w[0], 0)) / 8.0)
        .sum();
    let delivered = sum.flows[0].bytes_delivered as f64;
    assert!(
        summed <= delivered * 1.01 && summed > 0.7 * delivered,
        "{summed} of {delivered}"
    );
    let up = read("up");
    assert!(up.len() >= 3, "{} rows", up.len());
    let acked = up.iter().map(|r| num(r, 7)).fold(0.0, f64::max);
    assert!(
        acked > 0.0 && acked <= 1_000_002.0,
        "the SYN, the file, the FIN: {acked}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// Nothing of a finished run remains: namespaces, devices, processes.
fn assert_nothing_left() {
    let pid = std::process::id();
    assert_eq!(namespaces_of(pid), Vec::<String>::new());
    let links = Command::new("ip").args(["-o", "link"]).output().unwrap();
    let links = String::from_utf8_lossy(&links.stdout);
    assert!(!links.contains(&format!("xl{pid}")), "{links}");
    let children: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            stat.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().nth(1))
                == Some(&pid.to_string())
        })
        .collect();
    assert!(children.is_empty(), "children left: {children:?}");
    assert!(!std::path::Path::new(&format!("/run/xltcp-emu/{pid}")).exists());
}

#[test]
fn teardown_leaves_nothing_behind_after_a_run_and_after_a_stop() {
    let Some(_one) = emu_or_skip("teardown_leaves_nothing_behind") else {
        return;
    };
    let s = scenario(&format!("{HOP}\n[[flow]]\n[[flow]]\ndirection = \"up\"\n"));
    xltcp_emu::run(&s, EmuOptions::default()).expect("emulation runs");
    assert_nothing_left();
    // A stop request (Ctrl-C) in the middle of a long run.
    let long = scenario(&format!("{}\n[[flow]]\n", HOP.replace("3s", "60s")));
    let stop = AtomicBool::new(false);
    let result = std::thread::scope(|sc| {
        sc.spawn(|| {
            std::thread::sleep(Duration::from_millis(1500));
            stop.store(true, Ordering::Relaxed);
        });
        xltcp_emu::run(
            &long,
            EmuOptions {
                stop: Some(&stop),
                ..Default::default()
            },
        )
    });
    assert!(matches!(result, Err(EmuError::Interrupted)), "{result:?}");
    assert_nothing_left();
}

#[test]
fn leftovers_of_a_killed_run_are_cleaned_and_nothing_else() {
    let Some(_one) = emu_or_skip("leftovers_of_a_killed_run_are_cleaned") else {
        return;
    };
    let dir = tmp("killed");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long.toml");
    std::fs::write(&path, format!("{}\n[[flow]]\n", HOP.replace("3s", "60s"))).unwrap();
    let mut victim = Command::new(env!("CARGO_BIN_EXE_xltcp-emu"))
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let vpid = victim.id();
    let mut waited = 0;
    while namespaces_of(vpid).len() < 2 && waited < 100 {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        namespaces_of(vpid).len(),
        2,
        "the run set up its namespaces"
    );
    // What runs inside its namespaces (its iperf3 server and client).
    let inside = |vpid: u32| -> Vec<String> {
        namespaces_of(vpid)
            .iter()
            .flat_map(|ns| {
                let out = Command::new("ip")
                    .args(["netns", "pids", ns])
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&out.stdout)
                    .split_whitespace()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let mut waited = 0;
    while inside(vpid).len() < 2 && waited < 100 {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    let inside = inside(vpid);
    assert!(
        inside.len() >= 2,
        "the run started its applications: {inside:?}"
    );
    victim.kill().unwrap();
    victim.wait().unwrap();
    // Its guardian removes the namespaces and the marker the killed run
    // could not.
    let mut waited = 0;
    while (!namespaces_of(vpid).is_empty()
        || std::path::Path::new(&format!("/run/xltcp-emu/{vpid}")).exists())
        && waited < 100
    {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    assert!(
        namespaces_of(vpid).is_empty(),
        "a killed run's namespaces are removed by its guardian"
    );
    assert!(!std::path::Path::new(&format!("/run/xltcp-emu/{vpid}")).exists());
    // Dead: gone, or a zombie its new parent has not reaped yet.
    let alive = |pid: &String| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                stat.rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().next())
                    != Some("Z")
            })
            .unwrap_or(false)
    };
    let mut waited = 0;
    while inside.iter().any(alive) && waited < 50 {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    let left: Vec<&String> = inside.iter().filter(|p| alive(p)).collect();
    assert!(
        left.is_empty(),
        "processes of the killed run are left: {left:?}"
    );
    // Leftovers whose guardian died too (a reboot of the namespace
    // directory's owner, a kill of everything): the next run removes the
    // namespaces of owners that are gone, and only those.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let orphan = format!("xltcp-{dead}-ch");
    let foreign = "xltcp-1-ch";
    for ns in [orphan.as_str(), foreign] {
        assert!(Command::new("ip")
            .args(["netns", "add", ns])
            .status()
            .unwrap()
            .success());
    }
    let removed = xltcp_emu::plumbing::clean_leftovers();
    let present = xltcp_emu::plumbing::emulator_namespaces();
    let _ = Command::new("ip").args(["netns", "del", foreign]).status();
    assert_eq!(removed, vec![orphan.clone()]);
    assert!(
        present.iter().any(|(n, _)| n == foreign),
        "a live owner's namespace is kept"
    );
    assert!(!present.iter().any(|(n, _)| *n == orphan));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sends raw bytes out of the CH host's TUN device (AF_PACKET), so they
/// reach the base station exactly as written.
fn inject(ns: &str, dev: &str, packets: &[Vec<u8>]) -> bool {
    let hex: Vec<String> = packets
        .iter()
        .map(|p| p.iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    let script = format!(
        "import socket\ns = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800))\n\
         for h in {hex:?}:\n    s.sendto(bytes.fromhex(h), ('{dev}', 0x0800))\n"
    );
    Command::new("ip")
        .args(["netns", "exec", ns, "python3", "-c", &script])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn malformed_packets_from_a_host_are_counted_with_their_reason() {
    let Some(_one) = emu_or_skip("malformed_packets_are_counted") else {
        return;
    };
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped malformed_packets_are_counted: python3 is needed to write raw frames");
        return;
    }
    let s = scenario(&format!(
        "{}\n[output]\npcap = true\n[[flow]]\nstart = \"2s\"\n",
        HOP.replace("3s", "4s")
    ));
    let names = xltcp_emu::plumbing::Names::for_pid(std::process::id());
    // A TCP segment from the flow's CH address with its checksum broken.
    let mut bad = vec![
        0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 1, 0, 1, 10, 2, 0, 1,
    ];
    bad.extend([
        0x9c, 0x40, 0x14, 0x51, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x10, 0x10, 0, 0xde, 0xad, 0, 0,
    ]);
    let ip_sum = !ones_complement(&bad[..20]);
    bad[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    let packets = vec![
        bad,
        vec![0x45, 0, 0],
        [0x60, 0, 0, 0, 0, 0, 59, 64]
            .into_iter()
            .chain([0; 32])
            .collect(),
    ];
    let out = tmp("malformed");
    let result = std::thread::scope(|sc| {
        let run = sc.spawn(|| {
            xltcp_emu::run(
                &s,
                EmuOptions {
                    out_dir: Some(&out),
                    ..Default::default()
                },
            )
        });
        let mut waited = 0;
        while namespaces_of(std::process::id()).len() < 2 && waited < 100 {
            std::thread::sleep(Duration::from_millis(100));
            waited += 1;
        }
        std::thread::sleep(Duration::from_millis(700));
        let sent = inject(&names.ns_ch, &names.dev_ch, &packets);
        (run.join().unwrap(), sent)
    });
    let (sum, sent) = result;
    assert!(sent, "raw frames written");
    let sum = sum.expect("emulation runs");
    let got: Vec<(&str, u64)> = sum
        .emu
        .as_ref()
        .expect("emu section")
        .rejected
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        got,
        vec![("bad_tcp_checksum", 1), ("ipv6", 1), ("truncated", 1)]
    );
    // The refused datagrams are captured, each with its reason.
    let rejected = out.join("pcap/rejected.pcapng");
    if let Some(rows) = tshark(&rejected, &["frame.interface_name", "frame.comment"], None) {
        let mut rows: Vec<String> = rows.into_iter().map(|r| r.join(" ")).collect();
        rows.sort();
        assert_eq!(
            rows,
            [
                "from-ch xltcp refused: bad_tcp_checksum",
                "from-ch xltcp refused: ipv6",
                "from-ch xltcp refused: truncated"
            ]
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

fn ones_complement(data: &[u8]) -> u16 {
    let mut sum: u32 = data
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

#[test]
fn a_user_who_is_not_root_is_refused_with_exit_2() {
    if Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped a_user_who_is_not_root_is_refused: needs setpriv (util-linux)");
        return;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped a_user_who_is_not_root_is_refused: needs root to drop privileges");
        return;
    }
    let path = std::env::temp_dir().join(format!("xltcp-emu-notroot-{}.toml", std::process::id()));
    std::fs::write(&path, format!("{HOP}\n[[flow]]\n")).unwrap();
    let out = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            env!("CARGO_BIN_EXE_xltcp-emu"),
        ])
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("Permission denied") {
        eprintln!("skipped a_user_who_is_not_root_is_refused: the unprivileged user cannot read the test files: {err}");
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("needs root"), "{err}");
}

#[test]
fn the_signal_socket_publishes_blockages_and_takes_injected_ones() {
    use std::io::{BufRead, BufReader, Write};
    let Some(_one) = emu_or_skip("the_signal_socket") else {
        return;
    };
    let text = format!(
        "{}\n[wireless.availability]\nmodel = \"onoff\"\non = \"1s\"\noff = \"500ms\"\n[[flow]]\n",
        HOP.replace("3s", "3200ms")
    );
    let s = scenario(&text);
    let sock = std::env::temp_dir().join(format!("xltcp-emu-test-{}.sock", std::process::id()));
    let (sum, lines) = std::thread::scope(|sc| {
        let run = sc.spawn(|| {
            xltcp_emu::run(
                &s,
                EmuOptions {
                    signal_socket: Some(&sock),
                    ..Default::default()
                },
            )
        });
        let mut stream = None;
        for _ in 0..100 {
            if let Ok(c) = std::os::unix::net::UnixStream::connect(&sock) {
                stream = Some(c);
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let stream = stream.expect("the socket accepts a client");
        let mut writer = stream.try_clone().unwrap();
        let mut lines: Vec<serde_json::Value> = Vec::new();
        let (mut injected_start, mut injected_stop) = (false, false);
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let v: serde_json::Value = serde_json::from_str(&line).expect("JSON lines");
            let (kind, cause) = (
                v["type"].as_str().unwrap_or(""),
                v["cause"].as_str().unwrap_or(""),
            );
            // After the scheduled blockage ends at 1.5 s, block the hop from
            // outside, then unblock it ~200 ms later.
            if kind == "pu_stop" && cause == "pu" && !injected_start {
                writer.write_all(b"{\"type\":\"pu_start\"}\n").unwrap();
                injected_start = true;
            }
            if kind == "pu_start" && cause == "external" && !injected_stop {
                std::thread::sleep(Duration::from_millis(200));
                writer.write_all(b"{\"type\":\"pu_stop\"}\n").unwrap();
                injected_stop = true;
            }
            lines.push(v);
        }
        (run.join().unwrap().expect("emulation runs"), lines)
    });
    let kinds: Vec<(String, String, f64)> = lines
        .iter()
        .filter(|v| v["type"] != "delivered" && v["type"] != "undelivered")
        .map(|v| {
            (
                v["type"].as_str().unwrap_or("").into(),
                v["cause"].as_str().unwrap_or("").into(),
                v["t"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(lines[0]["type"], "hello");
    assert_eq!(lines[0]["capacity_bps"], 10_000_000);
    assert_eq!(lines[1]["type"], "capacity");
    let at = |kind: &str, cause: &str| {
        kinds
            .iter()
            .filter(|k| k.0 == kind && k.1 == cause)
            .map(|k| k.2)
            .collect::<Vec<f64>>()
    };
    // The scenario's blockage, at its exact model times.
    assert_eq!(at("pu_start", "pu"), vec![1.0]);
    assert_eq!(at("tfp_start", "pu"), vec![1.0]);
    assert_eq!(at("pu_stop", "pu"), vec![1.5]);
    // The injected one; the forced-open hop ignores the 2.5 s blockage.
    let (s0, s1) = (at("pu_start", "external"), at("pu_stop", "external"));
    assert_eq!((s0.len(), s1.len()), (1, 1), "{kinds:?}");
    assert!(
        s0[0] > 1.5 && s0[0] < 1.7 && s1[0] > s0[0] + 0.15,
        "{kinds:?}"
    );
    assert_eq!(lines.iter().filter(|v| v["type"] == "ack").count(), 2);
    assert!(
        lines
            .iter()
            .filter(|v| v["type"] == "delivered" && v["dir"] == "down")
            .count()
            > 500
    );
    let iv = &sum.emu.as_ref().expect("emu section").blocked_intervals;
    assert_eq!(iv.len(), 2, "{iv:?}");
    assert_eq!(iv[0], (1.0, 1.5));
    assert!(
        (iv[1].0 - s0[0]).abs() < 1e-6 && (iv[1].1 - s1[0]).abs() < 1e-6,
        "{iv:?} vs {s0:?} {s1:?}"
    );
    assert!(!sock.exists(), "the socket file is removed");
}

#[test]
fn what_the_emulator_does_not_model_is_refused_with_a_reason() {
    let p2p = scenario(&format!("{HOP}\n[[flow]]\n"));
    assert!(xltcp_emu::supported(&p2p).is_ok());
    // The 802.15.4 and 802.11 hops run (the simulator's own hop code).
    let mut lrwpan = p2p.clone();
    lrwpan.wireless.kind = xltcp_core::scenario::HopKind::Lrwpan(Default::default());
    assert!(xltcp_emu::supported(&lrwpan).is_ok());
    // Hosts with several interfaces ([[wireless]] entries), and the UCL
    // at both ends with its security.
    let mut two = p2p.clone();
    two.more_hops.push(p2p.wireless.clone());
    assert!(xltcp_emu::supported(&two).is_ok());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let ucl = xltcp_core::scenario::load_file(&root.join("ucl/moving-ucl-ours-secured.toml"), &[])
        .expect("shipped scenario loads");
    assert!(xltcp_emu::supported(&ucl).is_ok());
    // C-Snoop and SNACK at the hosts (resends with the frames' real
    // bytes), CLAMP (the ACKs' windows rewritten) and L2-CLAMP (the ACKs
    // kept off the air) run at the hosts' interfaces.
    for shipped in [
        "kim-chung/c-snoop-up.toml",
        "kim-chung/c-snoop-down.toml",
        "kim-chung/snack-up.toml",
        "kim-chung/snack-down.toml",
        "l2clamp/clamp.toml",
        "l2clamp/l2clamp.toml",
    ] {
        let s = xltcp_core::scenario::load_file(&root.join(shipped), &[])
            .expect("shipped scenario loads");
        assert!(xltcp_emu::supported(&s).is_ok(), "{shipped}");
    }
    let mut up = p2p.clone();
    up.flows[0].direction = xltcp_core::scenario::Direction::Up;
    // CR-aware TCP runs on its host's behalf (its datagrams held while
    // frozen).
    let mut cr = up.clone();
    cr.schemes.cr_aware = true;
    assert!(xltcp_emu::supported(&cr).is_ok());
    let mut lr = up.clone();
    lr.schemes.local_recovery = xltcp_core::scenario::LocalRecoverySpec::Tcp;
    // TCP-LR, which commands the sender's TCP, is refused, named, with
    // what runs instead.
    let err = xltcp_emu::supported(&lr).unwrap_err();
    assert!(matches!(err, EmuError::Unsupported(_)), "{err}");
    let err = err.to_string();
    assert!(
        err.contains("[schemes] local_recovery") && err.contains("\"bs_reports\""),
        "{err}"
    );
    // The BS's gap monitor alone runs.
    let mut bs = up.clone();
    bs.schemes.local_recovery = xltcp_core::scenario::LocalRecoverySpec::BsReports;
    assert!(xltcp_emu::supported(&bs).is_ok());
    // PHY-LR resends from the host's interface.
    let mut phy = up.clone();
    phy.schemes.local_recovery = xltcp_core::scenario::LocalRecoverySpec::Phy;
    assert!(xltcp_emu::supported(&phy).is_ok());
    let mut many = p2p.clone();
    many.flows = vec![p2p.flows[0].clone(); 65];
    assert!(xltcp_emu::supported(&many)
        .unwrap_err()
        .to_string()
        .contains("at most 64"));
}

#[test]
fn a_scenario_with_agents_at_the_hosts_exits_2_naming_the_scheme() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/byun2016/tcp-lr-cr.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_xltcp-emu"))
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for needle in ["[schemes] local_recovery = \"tcp\"", "future work"] {
        assert!(err.contains(needle), "missing {needle:?} in {err}");
    }
    assert!(!err.contains("[schemes] cr_aware"), "{err}");
}

/// Paper 003's location L1 (a host with an 802.11a and an 802.11b
/// interface; a 5 s bulk transfer instead of 10 MB) with the UCL's link
/// security on and one sealed data frame in `every` tampered on the air.
fn ucl_location_tampered(every: u64) -> xltcp_core::scenario::Scenario {
    use xltcp_core::scenario::AgentScheme;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let sets = ["sim.duration=5s".to_string()];
    let mut s = xltcp_core::scenario::load_file(&root.join("ucl/location-ucl.toml"), &sets)
        .expect("shipped scenario loads");
    s.flows[0].app = xltcp_core::scenario::AppSpec::Bulk;
    for a in &mut s.agents {
        if let AgentScheme::Ucl(cfg) = &mut a.scheme {
            cfg.security = Some(xltcp_core::schemes::ucl::SecuritySpec {
                tamper_every: every,
                ..Default::default()
            });
        }
    }
    s
}

#[test]
fn tampered_frames_on_the_air_are_dropped_by_reason_and_linux_sees_no_bad_byte() {
    let Some(_one) = emu_or_skip("tampered_frames_on_the_air_are_dropped") else {
        return;
    };
    let s = ucl_location_tampered(50);
    let sum = xltcp_emu::run(&s, EmuOptions::default()).expect("emulation runs");
    let emu = sum.emu.as_ref().expect("emu section");
    let sec = sum
        .ucl()
        .and_then(|u| u.security.as_deref())
        .expect("the UCL's security ran");
    // The link came up over the air, and every tampered frame that reached
    // the far end was dropped there as tampered, under no other reason.
    assert_eq!(sec.link.handshakes_done, 2, "{sec:?}");
    assert!(sec.tampered_on_air > 20, "{sec:?}");
    let dropped = sec.link.tampered + sec.link.malformed;
    assert!(dropped > 0 && dropped <= sec.tampered_on_air, "{sec:?}");
    assert_eq!(sec.link.tampered, sec.altered_received, "{sec:?}");
    assert_eq!(sec.link.malformed + sec.altered_delivered, 0, "{sec:?}");
    let by_reason = |r: &str| emu.dropped_other.get(r).copied().unwrap_or(0);
    assert_eq!(by_reason("ucl.tampered"), sec.link.tampered);
    assert_eq!(by_reason("ucl.malformed"), sec.link.malformed);
    assert_eq!(sec.mismatch + sec.link.not_authenticated, 0, "{sec:?}");
    assert!(sum.accounting.balances(), "{:?}", sum.accounting);
    // Linux received not one segment with a bad checksum: a tampered
    // frame opened and written would have been one (the cipher flips the
    // plaintext's byte where the frame's was). The transfer went on
    // (TCP recovered the dropped frames as losses), and the receiving
    // iperf3 read at least every byte the BS counted in order and
    // reported without a warning.
    for ns in ["ch", "sh"] {
        let bad = emu.linux_tcp[ns].get("InCsumErrors");
        assert_eq!(bad, Some(&0), "{ns}: {:?}", emu.linux_tcp[ns]);
    }
    let f = &sum.flows[0];
    assert!(f.bytes_delivered > 1_000_000, "{f:?}");
    assert!(
        emu.app_bytes[0] >= f.bytes_delivered,
        "{:?} {f:?}",
        emu.app_bytes
    );
    // (A busy machine may make the run late; nothing else may warn but the
    // kernel's RACK.)
    let late = |w: &String| w.contains("could not keep up");
    let warnings = support::warnings_but_rack(&emu.warnings);
    assert!(warnings.iter().all(late), "{warnings:?}");
}
