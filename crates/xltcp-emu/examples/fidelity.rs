//! Fidelity, side by side: Linux `reno` through the emulator against the
//! simulator's NewReno on the same scenarios and seeds. Prints one
//! Markdown table (goodput and retransmissions, mean over seeds).
//!
//! `cargo run --release -p xltcp-emu --example fidelity -- [--seeds N] [--cases p2p|byun2016|wifi|ucl|schemes] [--only TEXT] [--set key=value]... [--as-linux] [--emulated-hosts]`
//!
//! `p2p` (the default): the point-to-point cases of `fidelity/`;
//! `byun2016`: paper 000's 802.15.4 uplink with its primary user, without
//! and with CR-aware TCP (the presets the emulator runs); `wifi`: the
//! 802.11a download of `scenarios/wifi-11a.toml`; `ucl`: paper 003's
//! moving run (two interfaces per end, our UCL) with its link security
//! off and on (`scenarios/ucl/moving-ucl-ours*.toml`); `schemes`: the
//! schemes both engines run, each beside the same scenario without it:
//! paper 002's 802.11b cell with plain TCP, with Snoop and with SNACK
//! (both halves; `scenarios/kim-chung/{tcp,snoop,snack}-{down,up}.toml`)
//! and paper 001's 802.11a cell with its primary users, regular and with
//! DSASync (`scenarios/dsasync/{regular,dsasync}-{down,up}.toml`).
//! `--only TEXT` keeps the cases whose label contains `TEXT`.
//! `--as-linux` runs both engines with [`scenario::AS_LINUX`]: the
//! simulator's TCP doing what Linux's always does, and Linux with its own
//! defaults where the list names one (RACK, DSACK).
//! `--emulated-hosts` gives the simulator's hosts the stack latency of the
//! emulator's Linux hosts ([`scenario::EMULATED_HOSTS`]; the simulator
//! only: the emulator's hosts take their own).
//!
//! Needs root (the emulator); run nothing heavy beside it. Ctrl-C (or
//! SIGTERM) stops it with status 130, the emulation under way torn down.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use xltcp_core::{scenario, sim};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fidelity");
const SCENARIOS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");

/// (label, scenario file, overrides) of a group of cases.
fn cases(group: &str) -> Vec<(String, String, Vec<String>)> {
    match group {
        "byun2016" => {
            return ["newreno", "newreno-cr"]
                .iter()
                .map(|c| {
                    (
                        format!("byun2016 {c}"),
                        format!("{SCENARIOS}/byun2016/{c}.toml"),
                        vec![],
                    )
                })
                .collect()
        }
        "wifi" => {
            return vec![(
                "wifi-11a".into(),
                format!("{SCENARIOS}/wifi-11a.toml"),
                vec![],
            )]
        }
        "ucl" => {
            return [
                ("ucl moving, security off", "moving-ucl-ours"),
                ("ucl moving, security on", "moving-ucl-ours-secured"),
            ]
            .iter()
            .map(|(label, file)| {
                (
                    label.to_string(),
                    format!("{SCENARIOS}/ucl/{file}.toml"),
                    vec![],
                )
            })
            .collect()
        }
        "schemes" => {
            let mut c = Vec::new();
            let groups: [(&str, &[&str]); 2] = [
                ("kim-chung", &["tcp", "snoop", "snack"]),
                ("dsasync", &["regular", "dsasync"]),
            ];
            for (dir, files) in groups {
                for way in ["down", "up"] {
                    for file in files {
                        c.push((
                            format!("{dir} {file}-{way}"),
                            format!("{SCENARIOS}/{dir}/{file}-{way}.toml"),
                            vec![],
                        ));
                    }
                }
            }
            return c;
        }
        _ => {}
    }
    let mut c = Vec::new();
    for p in ["0", "0.01", "0.02", "0.05"] {
        c.push((
            format!("lossy-last-hop p={p}"),
            format!("{DIR}/lossy-last-hop.toml"),
            vec![format!("wireless.loss.down.p={p}")],
        ));
    }
    c.push((
        "pu-blockage exp(4s)/exp(1s)".into(),
        format!("{DIR}/pu-blockage.toml"),
        vec![],
    ));
    c
}

#[derive(Default, Clone, Copy)]
struct Row {
    goodput: f64,
    retx: f64,
    rto: f64,
    tlp: f64,
    oracle: f64,
    p99_us: f64,
}

fn gap(emu: f64, sim: f64) -> String {
    if sim == 0.0 {
        return "-".into();
    }
    format!("{:+.0}%", 100.0 * (emu - sim) / sim)
}

/// The case groups `--cases` takes.
const GROUPS: [&str; 5] = ["p2p", "byun2016", "wifi", "ucl", "schemes"];

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut seeds, mut extra, mut group) = (3u64, Vec::new(), String::from("p2p"));
    let mut only = String::new();
    let mut as_linux = false;
    let mut emulated_hosts = false;
    let usage = |msg: String| -> ! {
        eprintln!("{msg}");
        std::process::exit(2);
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--as-linux" => as_linux = true,
            "--emulated-hosts" => emulated_hosts = true,
            "--seeds" => match args.next().map(|s| s.parse::<u64>()) {
                Some(Ok(n)) if n >= 1 => seeds = n,
                _ => usage("--seeds: expected an integer >= 1".into()),
            },
            "--set" | "--cases" | "--only" => {
                let v = args
                    .next()
                    .unwrap_or_else(|| usage(format!("{a}: expected a value")));
                match a.as_str() {
                    "--set" => extra.push(v),
                    "--cases" => group = v,
                    _ => only = v,
                }
            }
            _ => usage(format!(
                "{a}: unknown argument (allowed: --seeds N, --cases GROUP, --only TEXT, --set key=value, --as-linux, --emulated-hosts)"
            )),
        }
    }
    if !GROUPS.contains(&group.as_str()) {
        usage(format!(
            "--cases {group:?}: expected one of {}",
            GROUPS.join(", ")
        ));
    }
    // Ctrl-C or SIGTERM stops the emulation under way, which tears down
    // its namespaces, and then the example (status 130).
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
    let mut sim = String::from(if as_linux { "sim as Linux" } else { "sim" });
    if emulated_hosts {
        sim.push_str(", emulated hosts");
    }
    println!("| case | {sim} goodput (Mbit/s) | emu goodput (Mbit/s) | gap | {sim} retx | emu retx | gap | {sim} RTOs | emu RTOs | emu TLPs | oracle (Mbit/s) | emu p99 lateness (us) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (label, file, mut sets) in cases(&group) {
        if !label.contains(&only) {
            continue;
        }
        sets.extend(extra.iter().cloned());
        if as_linux {
            sets.extend(scenario::AS_LINUX.iter().map(|s| s.to_string()));
        }
        let s = scenario::load_file(Path::new(&file), &sets).expect("valid fidelity scenario");
        let sim_s = if emulated_hosts {
            let mut with = sets.clone();
            with.extend(scenario::EMULATED_HOSTS.iter().map(|s| s.to_string()));
            scenario::load_file(Path::new(&file), &with).expect("valid fidelity scenario")
        } else {
            s.clone()
        };
        // Linux's loss probes are counted in the sender's namespace.
        let sender = match s.flows[0].direction {
            scenario::Direction::Down => "ch",
            scenario::Direction::Up => "sh",
        };
        let (mut a, mut b) = (Row::default(), Row::default());
        for seed in 1..=seeds {
            let r = sim::run(
                &sim_s,
                sim::RunOptions {
                    seed: Some(seed),
                    ..Default::default()
                },
            )
            .expect("sim runs");
            a.goodput += r.flows[0].goodput_bps;
            a.retx += r.flows[0].retransmissions as f64;
            a.rto += r.flows[0].rto_count as f64;
            a.oracle += r.flows[0].oracle_bps;
            let e = match xltcp_emu::run(
                &s,
                xltcp_emu::EmuOptions {
                    seed: Some(seed),
                    stop: Some(&STOP),
                    ..Default::default()
                },
            ) {
                Ok(e) => e,
                Err(xltcp_emu::EmuError::Interrupted) => {
                    eprintln!("interrupted");
                    std::process::exit(130);
                }
                Err(e) => panic!("{label} seed {seed}: the emulator failed: {e}"),
            };
            let details = e.emu.as_ref().expect("emu section");
            for w in &details.warnings {
                eprintln!("{label} seed {seed}: warning: {w}");
            }
            // Datagrams the emulator itself dropped (not the hop model):
            // a gap may be the emulator's, not Linux's.
            if !details.dropped_other.is_empty() {
                eprintln!(
                    "{label} seed {seed}: warning: the emulator dropped {:?}",
                    details.dropped_other
                );
            }
            b.goodput += e.flows[0].goodput_bps;
            b.retx += e.flows[0].retransmissions as f64;
            b.rto += e.flows[0].rto_count as f64;
            b.tlp += details
                .linux_tcp
                .get(sender)
                .and_then(|m| m.get("TCPLossProbes"))
                .copied()
                .unwrap_or(0) as f64;
            b.oracle += e.flows[0].oracle_bps;
            b.p99_us = b.p99_us.max(details.datapath.lateness.p99_us);
            eprintln!(
                "{label} seed {seed}: sim {:.2} Mbit/s {} retx {} RTO (causes {:?}), emu {:.2} Mbit/s {} retx {} RTO; linux {:?}",
                r.flows[0].goodput_bps / 1e6,
                r.flows[0].retransmissions,
                r.flows[0].rto_count,
                r.flows[0].rto_causes,
                e.flows[0].goodput_bps / 1e6,
                e.flows[0].retransmissions,
                e.flows[0].rto_count,
                details.linux_tcp.get(sender)
            );
            // The schemes' own counters in both engines, to explain a gap.
            for (name, sum) in [("sim", &r), ("emu", &e)] {
                for (section, stats) in &sum.agents.0 {
                    eprintln!("{label} seed {seed}: {name} {section} {stats:?}");
                }
            }
        }
        let n = seeds as f64;
        println!(
            "| {label} | {:.3} | {:.3} | {} | {:.0} | {:.0} | {} | {:.1} | {:.1} | {:.1} | {:.3} | {:.0} |",
            a.goodput / n / 1e6,
            b.goodput / n / 1e6,
            gap(b.goodput, a.goodput),
            a.retx / n,
            b.retx / n,
            gap(b.retx, a.retx),
            a.rto / n,
            b.rto / n,
            b.tlp / n,
            a.oracle / n / 1e6,
            b.p99_us
        );
    }
}
