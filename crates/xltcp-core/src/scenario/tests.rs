//! Loader tests: defaults, overrides, every rule, error locations.

use std::path::Path;

use super::*;
use crate::time::Dur;

const MINIMAL: &str = r#"
[wired]
rate = "100Mbps"
delay = "10ms"

[wireless]
rate = "10Mbps"
delay = "1ms"

[[flow]]
"#;

pub(super) fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, "test.toml", Path::new("."), &sets)
}

fn errors(text: &str, sets: &[&str]) -> Vec<String> {
    match load(text, sets) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.errors.iter().map(|d| d.to_string()).collect(),
    }
}

#[test]
fn minimal_scenario_gets_every_default() {
    let s = load(MINIMAL, &[]).unwrap();
    assert_eq!(s.name, "test");
    assert_eq!(s.sim, SimSpec::default());
    assert_eq!(s.sim.duration, Dur::from_secs(60));
    assert_eq!(s.tcp, TcpSpec::default());
    assert_eq!(s.output, OutputSpec::default());
    assert!(s.output.timeseries);
    assert_eq!(
        s.wired,
        LinkSpec {
            rate_bps: 100_000_000,
            delay: Dur::from_millis(10),
            queue: QueueLimit::Packets(100),
            jitter: Dur::ZERO,
            frame_overhead: 0,
        }
    );
    assert_eq!(s.wireless.loss_down, LossSpec::None);
    assert_eq!(s.wireless.availability, AvailabilitySpec::Always);
    assert_eq!(s.wireless.frame_overhead, 0);
    assert_eq!(
        s.flows,
        vec![FlowSpec {
            name: "flow0".into(),
            direction: Direction::Down,
            app: AppSpec::Bulk,
            start: Dur::ZERO,
            tcp: TcpSpec::default(),
            host: None,
            link_overhead: 0,
        }]
    );
}

#[test]
fn every_key_is_read() {
    let text = r#"
name = "full"
[sim]
duration = "2min"
seed = 7
sample_interval = "10ms"
[tcp]
profile = "ns3"
cc = "newreno"
recovery = "newreno"
sack = false
timestamps = true
window_scale = false
mss = 536
initial_window = 4
abc_limit = 0
limited_transmit = false
delayed_ack = 1
delayed_ack_timeout = "40ms"
initial_rto = "3s"
min_rto = "200ms"
max_rto = "120s"
min_rto_mode = "linux"
rtt_estimator = "linux"
ssthresh_from = "cwnd"
frto = true
frto_variant = "linux"
rack = true
rack_variant = "linux"
tlp = true
rtt_sampling = "every_ack"
prr = true
prr_variant = "linux"
cubic_variant = "linux"
eifel = true
dsack = true
dsack_undo = true
quickacks = 16
ack_pushed = true
delayed_ack_ato = true
snd_buffer_auto = true
ack_window_growth = true
syn_linear_timeouts = 4
rcv_buffer = "64KiB"
snd_buffer = "1MB"
[wired]
rate = "1Gbit/s"
delay = "25ms"
queue = "256KiB"
[wireless]
rate = "5.5Mbps"
delay = "250us"
queue = "50packets"
frame_overhead = "34B"
[wireless.loss.down]
model = "gilbert"
mean_loss = "5%"
mean_burst = 3
[wireless.loss.up]
model = "iid"
p = 0.001
[wireless.availability]
model = "onoff"
on = "10s"
off = "exp(500ms)"
start = "off"
[[flow]]
name = "f"
direction = "up"
app = "file"
size = "1.5MB"
start = "1.5s"
[output]
pcap = true
pcap_snaplen = 128
timeseries = false
"#;
    let s = load(text, &[]).unwrap();
    let tcp = TcpSpec {
        profile: TcpProfile::Ns3,
        cc: "newreno".into(),
        hystart: false,
        recovery: RecoverySpec::NewReno,
        sack: false,
        timestamps: true,
        window_scale: false,
        mss: 536,
        initial_window: 4,
        abc_limit: 0,
        limited_transmit: false,
        delayed_ack_segments: 1,
        delayed_ack_timeout: Dur::from_millis(40),
        initial_rto: Dur::from_secs(3),
        min_rto: Dur::from_millis(200),
        max_rto: Dur::from_secs(120),
        min_rto_mode: MinRtoMode::Linux,
        rtt_estimator: RttEstimatorKind::Linux,
        ssthresh_from: SsthreshFrom::Cwnd,
        frto: true,
        frto_variant: FrtoVariant::Linux,
        rack: true,
        rack_variant: RackVariant::Linux,
        tlp: true,
        rtt_sampling: RttSampling::EveryAck,
        prr: true,
        prr_variant: PrrVariant::Linux,
        cubic_variant: CubicVariant::Linux,
        eifel: true,
        dsack: true,
        dsack_undo: true,
        quickacks: 16,
        ack_pushed: true,
        delayed_ack_ato: true,
        snd_buffer_auto: true,
        ack_window_growth: true,
        syn_linear_timeouts: 4,
        rcv_buffer: 65_536,
        snd_buffer: 1_000_000,
    };
    let expect = Scenario {
        name: "full".into(),
        sim: SimSpec {
            duration: Dur::from_secs(120),
            seed: 7,
            sample_interval: Dur::from_millis(10),
            threads: 1,
        },
        tcp: tcp.clone(),
        wired: LinkSpec {
            rate_bps: 1_000_000_000,
            delay: Dur::from_millis(25),
            queue: QueueLimit::Bytes(262_144),
            jitter: Dur::ZERO,
            frame_overhead: 0,
        },
        wireless: WirelessSpec {
            name: "air".into(),
            link: LinkSpec {
                rate_bps: 5_500_000,
                delay: Dur::from_micros(250),
                queue: QueueLimit::Packets(50),
                jitter: Dur::ZERO,
                frame_overhead: 0,
            },
            loss_down: LossSpec::Gilbert {
                mean_loss: 0.05,
                mean_burst: 3.0,
                steps: LossSteps::Own,
            },
            loss_up: LossSpec::Iid { p: 0.001 },
            availability: AvailabilitySpec::OnOff {
                on: Period::Fixed(Dur::from_secs(10)),
                off: Period::Exp(Dur::from_millis(500)),
                start_blocked: true,
            },
            frame_overhead: 34,
            blocked: BlockedMode::Defer,
            kind: HopKind::P2p,
        },
        more_hops: Vec::new(),
        flows: vec![FlowSpec {
            name: "f".into(),
            direction: Direction::Up,
            app: AppSpec::File { bytes: 1_500_000 },
            start: Dur::from_millis(1500),
            tcp,
            host: None,
            link_overhead: 0,
        }],
        output: OutputSpec {
            pcap: true,
            pcap_snaplen: 128,
            pcap_point: CapturePoint::Sender,
            timeseries: false,
            max_bytes: None,
        },
        schemes: SchemesSpec::default(),
        pu_detection: PuDetectionSpec::default(),
        agents: Vec::new(),
        hosts: HostsSpec::default(),
    };
    assert_eq!(s, expect);
}

#[test]
fn flow_tcp_overrides_and_count_expansion() {
    let text = format!(
        "{MINIMAL}name = \"a\"\ncount = 3\n[flow.tcp]\nsack = false\n\n[[flow]]\n\n[tcp]\nmss = \"1000B\"\n"
    );
    let s = load(&text, &[]).unwrap();
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a.0", "a.1", "a.2", "flow1"]);
    // [flow.tcp] changes only its key; the rest comes from [tcp].
    assert!(!s.flows[2].tcp.sack);
    assert_eq!(s.flows[2].tcp.mss, 1000);
    assert!(s.flows[3].tcp.sack);
    assert_eq!(s.flows[3].tcp.mss, 1000);
}

#[test]
fn a_tcp_mistake_is_reported_once_not_per_flow() {
    let text = merge(
        MINIMAL,
        "[tcp]\nmin_rto = \"2s\"\nmax_rto = \"1s\"\n[flow.tcp]\nsack = false",
    );
    let errs = errors(&text, &[]);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains(": tcp.max_rto: min_rto (2s) is larger than max_rto (1s)"));
    // A flow that writes one of the keys gets its own report.
    let text = merge(MINIMAL, "[flow.tcp]\nmax_rto = \"500ms\"");
    let errs = errors(&text, &[]);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains(": flow.0.tcp.max_rto: min_rto (1s) is larger than max_rto (500ms)"));
}

#[test]
fn overrides_apply_before_validation() {
    let sets = [
        "sim.duration=10s",
        "tcp.sack=false",
        "wireless.loss.down.model=iid",
        "wireless.loss.down.p=0.05",
        "flow.0.start=1s",
        "flow.*.direction=up",
        "name=\"renamed\"",
    ];
    let s = load(MINIMAL, &sets).unwrap();
    assert_eq!(s.name, "renamed");
    assert_eq!(s.sim.duration, Dur::from_secs(10));
    assert!(!s.tcp.sack && !s.flows[0].tcp.sack);
    assert_eq!(s.wireless.loss_down, LossSpec::Iid { p: 0.05 });
    assert_eq!(s.flows[0].start, Dur::from_secs(1));
    assert_eq!(s.flows[0].direction, Direction::Up);
}

#[test]
fn override_errors_name_the_key() {
    assert_eq!(
        errors(MINIMAL, &["sim.duraton=10s"]),
        ["--set sim.duraton: unknown key; did you mean `duration`? (allowed: duration, sample_interval, seed, threads)"]
    );
    assert_eq!(
        errors(MINIMAL, &["sim.duration=0s"]),
        ["--set sim.duration: must be longer than 0 (allowed: a duration > 0, e.g. \"60s\")"]
    );
    assert_eq!(
        errors(MINIMAL, &["flow.1.app=bulk"]),
        ["--set flow.1.app: `flow` has 1 entries: address one by its index from 0 (`flow.0`) or all with `*`, got `1`"]
    );
    assert_eq!(
        errors(MINIMAL, &["tcp.sack"]),
        ["--set tcp.sack: expected KEY=VALUE (e.g. sim.duration=10s), got \"tcp.sack\""]
    );
    assert_eq!(
        errors(MINIMAL, &["tcp.sack=maybe"]),
        ["--set tcp.sack: expected true or false, got a string"]
    );
}

#[test]
fn errors_point_at_file_line_and_column() {
    let text = format!("{MINIMAL}[sim]\nduration = \"10\"\nsed = 3\n");
    assert_eq!(
        errors(&text, &[]),
        [
            "test.toml:12:12: sim.duration: expected a duration like \"20ms\" (units: ns, us, ms, s, min, h), got \"10\"; a bare number has no unit",
            "test.toml:13:1: sim.sed: unknown key; did you mean `seed`? (allowed: duration, sample_interval, seed, threads)",
        ]
    );
}

#[test]
fn all_errors_are_collected_in_one_pass() {
    let text = r#"
[sim]
duration = 20
[tcp]
mss = 0
delayed_ack_timeout = "500ms"
min_rto = "2s"
max_rto = "1s"
[wired]
rate = "10"
[wireless]
rate = "10Mbps"
delay = "1ms"
[wireless.loss.down]
model = "iid"
p = 1.0
"#;
    let errs = errors(text, &[]);
    let keys: Vec<&str> = errs.iter().map(|e| e.split(": ").nth(1).unwrap()).collect();
    assert_eq!(
        keys,
        [
            "sim.duration",
            "tcp.mss",
            "tcp.delayed_ack_timeout",
            "tcp.max_rto",
            "wired.delay", // at the [wired] header, before rate's line
            "wired.rate",
            "wireless.loss.down.p",
            "flow",
        ]
    );
    assert!(errs[0].contains("got the bare number 20; write it as a quoted string with a unit"));
    assert!(errs[1].ends_with("0 B is out of range (allowed: 64B..=65495B)"));
    assert!(errs[3].contains("min_rto (2s) is larger than max_rto (1s)"));
    assert!(errs[4].starts_with("test.toml:9:1: wired.delay: missing; it is required"));
    assert!(errs[6].ends_with("1 is out of range (allowed: 0 <= p < 1)"));
    assert_eq!(
        errs[7],
        "test.toml: flow: no flows: add at least one [[flow]] table"
    );
}

/// One rule per row: the extra TOML (appended to MINIMAL, or replacing it
/// when it starts with '!') and the key the error must name.
#[test]
fn each_rule_is_enforced() {
    let cases: &[(&str, &str, &str)] = &[
        ("[tcp]\nmss = 65496", "tcp.mss", "out of range"),
        ("[tcp]\ninitial_window = 0", "tcp.initial_window", "1..=100"),
        ("[tcp]\ndelayed_ack = 0", "tcp.delayed_ack", "1..=64"),
        ("[tcp]\nquickacks = 65", "tcp.quickacks", "0..=64"),
        ("[tcp]\nsyn_linear_timeouts = 128", "tcp.syn_linear_timeouts", "0..=127"),
        ("[tcp]\ndelayed_ack_timeout = \"0s\"", "tcp.delayed_ack_timeout", "out of range"),
        ("[tcp]\nmin_rto = \"0s\"", "tcp.min_rto", "longer than 0"),
        ("[tcp]\ninitial_rto = \"0s\"", "tcp.initial_rto", "longer than 0"),
        ("[tcp]\ncc = \"htcp\"", "tcp.cc", "(allowed: newreno, cubic, westwood, vegas, bbr)"),
        ("[tcp]\nrecovery = \"rack\"", "tcp.recovery", "\"newreno\", \"sack\""),
        ("[tcp]\nprofile = \"linux\"", "tcp.profile", "\"rfc\", \"ns3\""),
        ("[tcp]\nrcv_buffer = \"1000B\"", "tcp.rcv_buffer", "mss..=1GiB"),
        ("[tcp]\nrcv_buffer = \"2GiB\"", "tcp.rcv_buffer", "mss..=1GiB"),
        ("[tcp]\nsnd_buffer = 10", "tcp.snd_buffer", ">= mss"),
        ("[tcp]\nsack = 1", "tcp.sack", "expected true or false"),
        ("[sim]\nseed = -1", "sim.seed", "seed in 0..="),
        ("[sim]\nseed = \"x\"", "sim.seed", "seed in 0..="),
        ("[[flow]]\nname = \"n23456789012345678901234567890123456789012345678901234567890123\"\ncount = 2", "flow.1.name", "with its count suffix"),
        ("[sim]\nsample_interval = \"0ms\"", "sim.sample_interval", "must be at least 1us"),
        ("[sim]\nduration = \"1s\"\n[[flow]]\nstart = \"1s\"", "flow.1.start", "start < sim.duration"),
        ("[wireless.loss.down]\nmodel = \"iid\"\np = -0.1", "wireless.loss.down.p", "out of range"),
        ("[wireless.loss.down]\nmodel = \"iid\"\np = nan", "wireless.loss.down.p", "finite"),
        ("[wireless.loss.down]\nmodel = \"iid\"", "wireless.loss.down.p", "missing"),
        ("[wireless.loss.down]\np = 0.1", "wireless.loss.down.model", "missing"),
        ("[wireless.loss.down]\nmodel = \"iid\"\np = 0.1\nmean_burst = 2", "wireless.loss.down.mean_burst", "unknown key"),
        ("[wireless.loss.up]\nmodel = \"gilbert\"\nmean_loss = 0.8\nmean_burst = 3", "wireless.loss.up.mean_loss", "mean_burst / (1 + mean_burst) = 0.7500"),
        ("[wireless.loss.up]\nmodel = \"gilbert\"\nmean_loss = 0.1\nmean_burst = 0.5", "wireless.loss.up.mean_burst", ">= 1"),
        ("[wireless.loss.down]\nmodel = \"gilbert\"\nmean_loss = 0.1\nmean_burst = 3\nsteps = \"all\"", "wireless.loss.down.steps", "\"own\", \"both\""),
        ("[wireless.loss.down]\nmodel = \"iid\"\np = 0.1\nsteps = \"both\"", "wireless.loss.down.steps", "unknown key"),
        ("[wireless.availability]\nmodel = \"onoff\"\non = \"exp(4s)\"", "wireless.availability.off", "missing"),
        ("[wireless.availability]\nmodel = \"onoff\"\non = \"0s\"\noff = \"1s\"", "wireless.availability.on", "must be at least 1us"),
        ("[wireless.availability]\nmodel = \"onoff\"\non = 4\noff = \"1s\"", "wireless.availability.on", "bare number"),
        ("[wireless.availability]\nmodel = \"file\"\nfile = \"no-such-file.txt\"", "wireless.availability.file", "cannot read"),
        ("[wireless.availability]\nmodel = \"file\"", "wireless.availability.file", "missing"),
        ("[wireless.availability]\nmodel = \"sometimes\"", "wireless.availability.model", "\"always\", \"onoff\", \"file\""),
        ("[wireless]\nqueue = \"0p\"", "wireless.queue", "at least one packet"),
        ("[wired]\nqueue = \"1KiB\"", "wired.queue", "full-size segment"),
        ("[wired]\nrate = \"0bps\"", "wired.rate", "faster than 0"),
        ("[wireless]\nframe_overhead = \"1MiB\"", "wireless.frame_overhead", "too large"),
        ("[output]\npcap_snaplen = \"1MiB\"", "output.pcap_snaplen", "too large"),
        ("[output]\npcap = \"yes\"", "output.pcap", "true or false"),
        ("[output]\npcap_point = \"middle\"", "output.pcap_point", "\"sender\", \"receiver\", \"both\""),
        ("[[flow]]\nsize = \"1MB\"", "flow.1.size", "applies only to app = \"file\""),
        ("[[flow]]\napp = \"file\"", "flow.1.size", "a file flow needs its size"),
        ("[[flow]]\napp = \"file\"\nsize = 0", "flow.1.size", "a size > 0"),
        ("[[flow]]\nname = \"flow0\"", "flow.1.name", "used twice"),
        ("[[flow]]\nname = \"a b\"", "flow.1.name", "not a valid flow name"),
        ("[[flow]]\ncount = 0", "flow.1.count", "1..=10000"),
        ("[[flow]]\ncount = 9999\n[[flow]]\ncount = 2", "flow.2.count", "more than 10000 flows"),
        ("[[flow]]\ndirection = \"sideways\"", "flow.1.direction", "\"down\", \"up\""),
        ("[[flow]]\n[flow.tcp]\nmss = 10", "flow.1.tcp.mss", "out of range"),
        ("[[flow]]\n[flow.tcp]\nmms = 1000", "flow.1.tcp.mms", "did you mean `mss`?"),
        ("[[flow]]\nstrat = \"1s\"", "flow.1.strat", "did you mean `start`?"),
        ("[simulation]\nduration = \"1s\"", "simulation", "unknown key"),
        ("name = \"\"", "name", "must not be empty"),
        ("!flow = 3\n[wired]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[wireless]\nrate = \"1Mbps\"\ndelay = \"1ms\"", "flow", "array of tables"),
        ("![flow]\n[wired]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[wireless]\nrate = \"1Mbps\"\ndelay = \"1ms\"", "flow", "array of tables"),
        ("!sim = 3\n[wired]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[wireless]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]", "sim", "expected a table"),
    ];
    for (extra, key, needle) in cases {
        let text = match extra.strip_prefix('!') {
            Some(whole) => whole.to_string(),
            None => merge(MINIMAL, extra),
        };
        let errs = match load(&text, &[]) {
            Ok(_) => panic!("{extra:?}: accepted"),
            Err(e) => e.errors,
        };
        assert!(
            errs.iter()
                .any(|d| d.key == *key && d.to_string().contains(needle)),
            "{extra:?}: expected an error on {key} containing {needle:?}, got {:#?}",
            errs.iter().map(|d| d.to_string()).collect::<Vec<_>>()
        );
    }
}

/// MINIMAL with `extra`'s tables merged in (TOML forbids repeating `[wired]`,
/// so keys of a table MINIMAL already has are inserted under its header).
fn merge(base: &str, extra: &str) -> String {
    let mut out = base.to_string();
    let mut rest = String::new();
    let mut header: Option<&str> = None;
    for line in extra.lines() {
        if line.starts_with('[') {
            header = Some(line);
            if !matches!(line, "[wired]" | "[wireless]") {
                rest.push_str(line);
                rest.push('\n');
            }
            continue;
        }
        match header {
            Some(h @ ("[wired]" | "[wireless]")) => {
                let at = out.find(h).unwrap() + h.len() + 1;
                let key = line.split('=').next().unwrap().trim();
                // Replace a key MINIMAL sets, else insert it.
                let section_end = out[at..].find("\n\n").map_or(out.len(), |i| at + i);
                let existing = out[at..section_end]
                    .lines()
                    .find(|l| l.split('=').next().unwrap().trim() == key)
                    .map(str::to_string);
                match existing {
                    Some(old) => out = out.replacen(&old, line, 1),
                    None => out.insert_str(at, &format!("{line}\n")),
                }
            }
            None => out.insert_str(0, &format!("{line}\n")),
            Some(_) => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    out.push_str(&rest);
    out
}

#[test]
fn availability_file_is_read_relative_to_the_scenario() {
    let dir = std::env::temp_dir().join(format!("xltcp-scenario-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("blocked.txt"), "# t0 t1\n1 2\n5 7.5\n").unwrap();
    std::fs::write(dir.join("overlap.txt"), "1 3\n2 4\n").unwrap();
    let text = merge(
        MINIMAL,
        "[wireless.availability]\nmodel = \"file\"\nfile = \"blocked.txt\"",
    );
    std::fs::write(dir.join("s.toml"), &text).unwrap();
    let s = load_file(&dir.join("s.toml"), &[]).unwrap();
    assert_eq!(s.name, "s");
    assert_eq!(
        s.wireless.availability,
        AvailabilitySpec::Intervals(vec![
            (Dur::from_secs(1), Dur::from_secs(2)),
            (Dur::from_secs(5), Dur::from_millis(7500)),
        ])
    );
    let e = load_file(
        &dir.join("s.toml"),
        &["wireless.availability.file=overlap.txt".into()],
    )
    .unwrap_err();
    assert_eq!(e.errors.len(), 1);
    let msg = e.errors[0].to_string();
    assert!(
        msg.starts_with("--set wireless.availability.file: "),
        "{msg}"
    );
    assert!(
        msg.contains("overlap.txt:2: starts at 2, before the previous interval ends"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn syntax_errors_are_located() {
    let e = load("[sim\nduration = \"1s\"\n", &[]).unwrap_err();
    assert!(!e.errors.is_empty());
    assert!(matches!(
        e.errors[0].location,
        Location::File { line: 1, .. }
    ));
    assert!(e.errors[0].message.starts_with("TOML syntax: "));
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let e = load_file(Path::new("/nonexistent/x.toml"), &[]).unwrap_err();
    assert!(e
        .to_string()
        .starts_with("/nonexistent/x.toml: cannot read the scenario file"));
}

#[test]
fn echo_has_readable_units_and_every_flow() {
    let s = load(&format!("{MINIMAL}count = 2\n"), &[]).unwrap();
    let v = echo(&s);
    assert_eq!(v["sim"]["duration"], "60s");
    assert_eq!(v["wired"]["rate"], "100Mbps");
    assert_eq!(v["wireless"]["delay"], "1ms");
    assert_eq!(v["tcp"]["rcv_buffer"], "4MiB");
    assert_eq!(v["tcp"]["mss"], "1448B");
    assert_eq!(v["wireless"]["queue"], "100p");
    assert_eq!(v["wireless"]["loss"]["down"]["model"], "none");
    assert_eq!(v["flow"].as_array().unwrap().len(), 2);
    assert_eq!(v["flow"][1]["name"], "flow0.1");
    assert_eq!(v["output"]["timeseries"], true);
}

fn scenarios_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

#[test]
fn every_shipped_scenario_loads() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(scenarios_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let s = load_file(&path, &[]).unwrap_or_else(|e| panic!("{}:\n{e}", path.display()));
            names.push(s.name);
        }
    }
    names.sort();
    assert_eq!(
        names,
        [
            "demo",
            "lossy-last-hop",
            "many-flows",
            "pu-blockage",
            "pu-blockage-lose",
            "wifi-11a"
        ]
    );
}

#[test]
fn shipped_scenarios_say_what_their_briefs_say() {
    let load_named = |n: &str| load_file(&scenarios_dir().join(n), &[]).unwrap();
    let demo = load_named("demo.toml");
    assert_eq!(demo.sim.duration, Dur::from_secs(20));
    assert_eq!(demo.wireless.link.rate_bps, 10_000_000);
    let gilbert = LossSpec::Gilbert {
        mean_loss: 0.01,
        mean_burst: 3.0,
        steps: LossSteps::Own,
    };
    assert_eq!(demo.wireless.loss_down, gilbert);
    assert_eq!(
        demo.wireless.availability,
        AvailabilitySpec::OnOff {
            on: Period::Exp(Dur::from_secs(4)),
            off: Period::Exp(Dur::from_secs(1)),
            start_blocked: false,
        }
    );
    let dirs: Vec<Direction> = demo.flows.iter().map(|f| f.direction).collect();
    assert_eq!(dirs, [Direction::Down, Direction::Down, Direction::Up]);

    let lossy = load_named("lossy-last-hop.toml");
    assert_eq!(lossy.wireless.loss_down, LossSpec::Iid { p: 0.01 });
    assert_eq!(lossy.wireless.loss_up, LossSpec::None);
    let t = &lossy.flows[0].tcp;
    assert_eq!(t.recovery, RecoverySpec::NewReno);
    assert!(!t.sack && !t.timestamps);
    assert_eq!(
        (t.mss, t.initial_window, t.delayed_ack_segments),
        (1448, 10, 2)
    );
    assert_eq!(t.min_rto, Dur::from_secs(1));
    assert_eq!(lossy.sim.duration, Dur::from_secs(60));

    let many = load_named("many-flows.toml");
    assert_eq!(many.flows.len(), 100);
    assert_eq!(many.wireless.link.rate_bps, 1_000_000_000);
    assert_eq!(many.wireless.loss_down, LossSpec::Iid { p: 0.001 });

    let pu = load_named("pu-blockage.toml");
    let mut expect = lossy.clone();
    expect.name = "pu-blockage".into();
    expect.wireless.availability = AvailabilitySpec::OnOff {
        on: Period::Exp(Dur::from_secs(4)),
        off: Period::Exp(Dur::from_secs(4)),
        start_blocked: false,
    };
    assert_eq!(pu, expect);
}

/// Loads `to_toml(s)` back.
fn reload(s: &Scenario) -> Scenario {
    let text = to_toml(s);
    load_str(&text, "echo.toml", Path::new("."), &[]).unwrap_or_else(|e| panic!("{text}\n{e}"))
}

#[test]
fn to_toml_round_trips_every_shipped_scenario() {
    for name in ["demo", "lossy-last-hop", "many-flows", "pu-blockage"] {
        let s = load_file(&scenarios_dir().join(format!("{name}.toml")), &[]).unwrap();
        assert_eq!(reload(&s), s, "{name}");
    }
    let full = load(&merge(MINIMAL, "[wireless.availability]\nmodel = \"intervals\"\nintervals = [[1, \"2.5s\"], [\"3s\", 4]]"), &[]).unwrap();
    assert_eq!(
        full.wireless.availability,
        AvailabilitySpec::Intervals(vec![
            (Dur::from_secs(1), Dur::from_millis(2500)),
            (Dur::from_secs(3), Dur::from_secs(4)),
        ])
    );
    assert_eq!(reload(&full), full);
    let mut big_seed = full.clone();
    big_seed.sim.seed = u64::MAX;
    assert_eq!(reload(&big_seed), big_seed);
}

#[test]
fn as_linux_overrides_give_every_flow_linuxs_behaviour() {
    let s = load(MINIMAL, crate::scenario::AS_LINUX).expect("valid keys");
    let t = &s.flows[0].tcp;
    assert_eq!(t.min_rto_mode, MinRtoMode::Linux);
    assert_eq!(t.rtt_estimator, RttEstimatorKind::Linux);
    assert_eq!(t.rtt_sampling, RttSampling::EveryAck);
    assert!(t.prr && t.eifel);
    assert_eq!(t.prr_variant, PrrVariant::Linux);
    assert_eq!(t.cubic_variant, CubicVariant::Linux);
    assert_eq!(t.rack_variant, RackVariant::Linux);
    assert_eq!(t.frto_variant, FrtoVariant::Linux);
    assert_eq!(t.abc_limit, 0);
    assert_eq!(t.ssthresh_from, SsthreshFrom::Cwnd);
    assert_eq!(t.recovery, RecoverySpec::Sack);
    assert!(t.rack && t.dsack && t.dsack_undo);
    assert_eq!(t.quickacks, 16);
    assert!(t.ack_pushed && t.delayed_ack_ato && t.snd_buffer_auto && t.ack_window_growth);
    // What the emulator switches on Linux from the scenario stays its own.
    assert!(!t.tlp && !t.frto);
    assert_eq!(t.syn_linear_timeouts, 0);
}

#[test]
fn wired_jitter_is_read_echoed_and_refused_on_the_wireless_hop() {
    let s = load(MINIMAL, &["wired.jitter=\"100us\""]).unwrap();
    assert_eq!(s.wired.jitter, Dur::from_micros(100));
    assert_eq!(reload(&s), s);
    assert_eq!(load(MINIMAL, &[]).unwrap().wired.jitter, Dur::ZERO);
    let err = errors(MINIMAL, &["wireless.jitter=\"100us\""]);
    assert!(
        err.iter()
            .any(|e| e.contains("wireless.jitter") && e.contains("unknown key")),
        "{err:?}"
    );
}

#[test]
fn wired_frame_overhead_is_read_echoed_only_when_set_and_bounded() {
    let s = load(MINIMAL, &["wired.frame_overhead=\"2B\""]).unwrap();
    assert_eq!(s.wired.frame_overhead, 2);
    assert_eq!(reload(&s), s);
    assert_eq!(echo(&s)["wired"]["frame_overhead"], "2B");
    let plain = load(MINIMAL, &[]).unwrap();
    assert_eq!(plain.wired.frame_overhead, 0);
    assert!(echo(&plain)["wired"].get("frame_overhead").is_none());
    let err = errors(MINIMAL, &["wired.frame_overhead=\"70000B\""]);
    assert!(
        err.iter()
            .any(|e| e.contains("wired.frame_overhead") && e.contains("0B..=65535B")),
        "{err:?}"
    );
}

#[test]
fn hosts_stack_latency_loads_echoes_and_is_bounded() {
    let s = load(MINIMAL, &[]).expect("valid");
    assert_eq!(s.hosts, HostsSpec::default());
    assert!(echo(&s).get("hosts").is_none(), "left out at its default");
    let s = load(MINIMAL, crate::scenario::EMULATED_HOSTS).expect("valid keys");
    assert_eq!(s.hosts.stack_delay, Dur::from_micros(20));
    assert_eq!(s.hosts.stack_jitter, Dur::from_micros(60));
    assert_eq!(reload(&s), s);
    let e = errors(MINIMAL, &["hosts.stack_delay=\"2s\""]);
    assert!(
        e.iter()
            .any(|m| m.contains("hosts.stack_delay") && m.contains("1s")),
        "{e:?}"
    );
    let e = errors(MINIMAL, &["hosts.stack_jitter=5"]);
    assert!(e.iter().any(|m| m.contains("hosts.stack_jitter")), "{e:?}");
    let e = errors(MINIMAL, &["hosts.latency=\"5us\""]);
    assert!(e.iter().any(|m| m.contains("hosts.latency")), "{e:?}");
}
