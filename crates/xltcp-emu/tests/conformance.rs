//! One conformance suite, two engines: each scenario below runs on the
//! simulator and on the emulator, and the same body checks the same
//! properties of both results:
//!
//! - conservation: every packet that entered the hop was delivered,
//!   dropped with a reason, or is still in flight;
//! - goodput under the oracle bound of the scenario;
//! - blockages honoured: no frame starts on the air while the hop is
//!   blocked (read from the wireless capture);
//! - the loss and blockage pattern is the seed's (same blocked time), and
//!   both engines compute the same oracle bound for it.
//!
//! A scheme joins by adding a `conformance!` line with its scenario (and,
//! optionally, a check of its own run on both results). The emulator half
//! needs root, /dev/net/tun, `ip netns` and iperf3, and is skipped with the
//! reason printed elsewhere.

mod support;

use std::path::PathBuf;
use support::{emu_or_skip, pcap_records, scenario};
use xltcp_core::net::availability::Availability;
use xltcp_core::rng::stream;
use xltcp_core::scenario::Scenario;
use xltcp_core::schemes::clamp::{ClampStats, L2ClampStats};
use xltcp_core::schemes::{AgentStats, CacheStats};
use xltcp_core::sim::{self, Accounting};
use xltcp_core::time::Time;

/// What both engines report that the properties need.
#[derive(Debug)]
struct Outcome {
    engine: &'static str,
    /// (goodput, oracle, measurement window in seconds) per flow.
    flows: Vec<(f64, f64, f64)>,
    accounting: Accounting,
    blocked_s: f64,
    wireless_pcap: PathBuf,
    /// Loss reports the BS sent (local recovery), if it ran.
    reports_sent: Option<u64>,
    /// Local recovery's counters, if it ran.
    lr: Option<xltcp_core::schemes::LrStats>,
    /// CR-aware TCP's (freezes, resumes), if it ran.
    cr_freezes: Option<(u64, u64)>,
    /// In-order bytes at each flow's receiver by the end.
    bytes_delivered: Vec<u64>,
    /// The emulator: bytes each flow's receiving application read.
    app_bytes: Option<Vec<u64>>,
    /// The UCL's counters, if it ran.
    ucl: Option<xltcp_core::schemes::ucl::UclStats>,
    /// The emulator: datagrams dropped after entering, by reason.
    dropped_other: Option<std::collections::BTreeMap<String, u64>>,
    /// Every agent section of the summary (one per scheme that ran).
    agents: Vec<(&'static str, AgentStats)>,
    /// The emulator: segments Linux received with a bad checksum, summed
    /// over both namespaces.
    in_csum_errors: Option<u64>,
    /// An 802.11 hop: (downlink packets an agent took back from the AP's
    /// MAC queue, downlink packets a retune cleared from it).
    wifi_down_withdrawn_flushed: Option<(u64, u64)>,
    /// The emulator: the Linux congestion control each flow ran.
    linux_cc: Option<Vec<String>>,
}

/// Accessors of `Outcome::agents`, one per scheme: its counters, if it ran.
macro_rules! agent_counters {
    ($($(#[$doc:meta])* $name:ident: $variant:ident -> $ty:ty;)*) => {
        impl Outcome {
            $($(#[$doc])*
            fn $name(&self) -> Option<$ty> {
                self.agents.iter().find_map(|(_, s)| match s {
                    AgentStats::$variant(c) => Some(*c),
                    _ => None,
                })
            })*
        }
    };
}

agent_counters! {
    /// C-Snoop's counters, if it ran.
    c_snoop: CSnoop -> CacheStats;
    /// CLAMP's counters, if it ran.
    clamp: Clamp -> ClampStats;
    /// Snoop's counters, if it ran.
    snoop: Snoop -> CacheStats;
    /// DSASync's counters, if it ran.
    dsasync: DsaSync -> xltcp_core::schemes::dsasync::DsaSyncStats;
    /// SNACK's counters (the BS's and the MH's halves summed), if it ran.
    snack: Snack -> xltcp_core::schemes::snack::SnackStats;
    /// L2-CLAMP's counters, if it ran.
    l2clamp: L2Clamp -> L2ClampStats;
}

fn out_dir(name: &str, engine: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "xltcp-conformance-{}-{name}-{engine}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run_sim(s: &Scenario, seed: u64, name: &str, label: &str) -> Outcome {
    let mut s = s.clone();
    s.output.pcap = true;
    let dir = out_dir(name, label);
    let sum = sim::run(
        &s,
        sim::RunOptions {
            seed: Some(seed),
            out_dir: Some(&dir),
            ..Default::default()
        },
    )
    .expect("sim runs");
    Outcome {
        engine: "sim",
        flows: sum
            .flows
            .iter()
            .map(|f| (f.goodput_bps, f.oracle_bps, sum.duration_s))
            .collect(),
        accounting: sum.accounting,
        blocked_s: sum.hop.blocked_s,
        wireless_pcap: dir.join("pcap/wireless.pcapng"),
        reports_sent: sum.local_recovery().map(|l| l.reports_sent),
        lr: sum.local_recovery(),
        cr_freezes: sum.cr_aware().map(|c| (c.freezes, c.resumes)),
        bytes_delivered: sum.flows.iter().map(|f| f.bytes_delivered).collect(),
        app_bytes: None,
        ucl: sum.ucl().cloned(),
        dropped_other: None,
        agents: sum.agents.0.clone(),
        in_csum_errors: None,
        linux_cc: None,
        wifi_down_withdrawn_flushed: sum.wifi().map(|w| (w.down.withdrawn, w.down.drop_flushed)),
    }
}

/// One emulation at a time: they run in real time, and two sharing the
/// cores are a test of the machine, not of the emulator.
static REAL_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run_emu(s: &Scenario, seed: u64, name: &str) -> Outcome {
    let mut s = s.clone();
    s.output.pcap = true;
    let s = &s;
    let dir = out_dir(name, "emu");
    let _one_at_a_time = REAL_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let run = || {
        let opts = xltcp_emu::EmuOptions {
            seed: Some(seed),
            out_dir: Some(&dir),
            ..Default::default()
        };
        xltcp_emu::run(s, opts).expect("emulation runs")
    };
    let mut sum = run();
    // A real-time run that fell behind (the machine was busy) says little
    // about conformance: run it again, once. Any other warning fails but
    // the kernel's note that it runs RACK whatever `tcp.rack` says.
    let warned = |s: &xltcp_core::sim::Summary| {
        s.emu
            .as_ref()
            .map(|e| support::warnings_but_rack(&e.warnings))
            .unwrap_or_default()
    };
    let late = |w: &Vec<String>| !w.is_empty() && w.iter().all(|m| m.contains("could not keep up"));
    if late(&warned(&sum)) {
        eprintln!("{name}: the emulation fell behind; running it again");
        sum = run();
    }
    let emu = sum.emu.as_ref().expect("emu section");
    let warnings = warned(&sum);
    if late(&warnings) {
        // Twice behind: the machine is busy. The comparisons below still
        // decide; the lateness is printed, not asserted.
        eprintln!("{name}: {warnings:?}");
    } else {
        assert!(warnings.is_empty(), "{warnings:?}");
    }
    let window = |i: usize| {
        sum.duration_s
            .max(s.flows[i].start.as_secs_f64() + emu.app_seconds[i])
    };
    Outcome {
        engine: "emu",
        flows: sum
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| (f.goodput_bps, f.oracle_bps, window(i)))
            .collect(),
        accounting: sum.accounting,
        blocked_s: sum.hop.blocked_s,
        wireless_pcap: dir.join("pcap/wireless.pcapng"),
        reports_sent: sum.local_recovery().map(|l| l.reports_sent),
        lr: sum.local_recovery(),
        cr_freezes: sum.cr_aware().map(|c| (c.freezes, c.resumes)),
        bytes_delivered: sum.flows.iter().map(|f| f.bytes_delivered).collect(),
        app_bytes: Some(emu.app_bytes.clone()),
        ucl: sum.ucl().cloned(),
        dropped_other: Some(emu.dropped_other.clone()),
        agents: sum.agents.0.clone(),
        linux_cc: Some(emu.linux_cc.clone()),
        in_csum_errors: Some(
            emu.linux_tcp
                .values()
                .filter_map(|c| c.get("InCsumErrors"))
                .sum(),
        ),
        wifi_down_withdrawn_flushed: sum.wifi().map(|w| (w.down.withdrawn, w.down.drop_flushed)),
    }
}

/// The blocked intervals of the seed, replayed from the availability
/// process's own stream (nanoseconds).
fn blocked_intervals(s: &Scenario, seed: u64) -> Vec<(u64, u64)> {
    let end = (Time::ZERO + s.sim.duration).as_nanos();
    let mut a = Availability::new(
        &s.wireless.availability,
        stream(seed, "wireless.availability"),
    );
    let (mut t, mut out) = (0u64, Vec::new());
    while t < end {
        let next = a.next_change().as_nanos().min(end);
        if a.blocked() {
            out.push((t, next));
        }
        t = next;
        if t < end {
            a.advance();
        }
    }
    out
}

/// The properties every engine must show on every scenario.
fn check_properties(s: &Scenario, seed: u64, o: &Outcome) {
    let e = o.engine;
    assert!(
        o.accounting.balances(),
        "{e}: conservation {:?}",
        o.accounting
    );
    assert!(o.accounting.injected > 0, "{e}: nothing sent");
    let t = s.sim.duration.as_secs_f64();
    for (i, &(goodput, oracle, window)) in o.flows.iter().enumerate() {
        assert!(goodput > 0.0, "{e}: flow {i} delivered nothing");
        // In-order bytes by the end over the duration, under the bound.
        let bound = oracle * window / t * (1.0 + 1e-9);
        assert!(
            goodput <= bound,
            "{e}: flow {i} goodput {goodput} above the oracle {oracle} (window {window} s)"
        );
    }
    let blocked = blocked_intervals(s, seed);
    let expected_blocked: u64 = blocked.iter().map(|(a, b)| b - a).sum();
    assert!(
        (o.blocked_s - expected_blocked as f64 / 1e9).abs() < 1e-6,
        "{e}: blocked {} s, the seed's schedule {} ns",
        o.blocked_s,
        expected_blocked
    );
    let records = pcap_records(&o.wireless_pcap);
    assert!(!records.is_empty(), "{e}: nothing on the air");
    // On 802.15.4 a frame whose CCA found the channel idle just before a
    // blockage began goes on the air a turnaround later: it may start up to
    // a CCA and a turnaround (320 us) into the blockage (and is destroyed).
    let grace = match s.wireless.kind {
        xltcp_core::scenario::HopKind::Lrwpan(_) => {
            use xltcp_core::radio::lrwpan::{cca_duration, turnaround_time};
            (cca_duration() + turnaround_time()).as_nanos()
        }
        _ => 0,
    };
    for (at, _) in &records {
        let inside = blocked.iter().find(|(a, b)| a + grace < *at && at < b);
        assert!(
            inside.is_none(),
            "{e}: a frame started at {at} ns inside the blockage {inside:?}"
        );
    }
}

/// A check of one scheme's own, run on every engine's result.
type Extra = fn(&Scenario, &Outcome);

fn no_extra(_: &Scenario, _: &Outcome) {}

fn conformance_sim(name: &str, text: &str, extra: Extra) {
    conformance_sim_of(name, scenario(text), extra);
}

fn conformance_sim_of(name: &str, s: Scenario, extra: Extra) {
    let o = run_sim(&s, 7, name, "sim");
    check_properties(&s, 7, &o);
    extra(&s, &o);
    let _ = std::fs::remove_dir_all(out_dir(name, "sim"));
}

fn conformance_emu(name: &str, text: &str, extra: Extra) {
    let Some(_one) = emu_or_skip(name) else {
        return;
    };
    conformance_emu_of(name, scenario(text), extra);
}

fn conformance_emu_of(name: &str, s: Scenario, extra: Extra) {
    let o = run_emu(&s, 7, name);
    check_properties(&s, 7, &o);
    extra(&s, &o);
    // Same scenario and seed, same hop: the engines agree on the bound.
    let reference = run_sim(&s, 7, name, "sim-reference");
    for (i, (e, r)) in o.flows.iter().zip(&reference.flows).enumerate() {
        assert!(
            (e.1 - r.1).abs() <= 1e-9 * r.1,
            "flow {i}: emu oracle {} sim oracle {}",
            e.1,
            r.1
        );
    }
    eprintln!(
        "{name}: goodput sim {:?} emu {:?} b/s; reports sent sim {:?} emu {:?}",
        reference
            .flows
            .iter()
            .map(|f| f.0.round())
            .collect::<Vec<_>>(),
        o.flows.iter().map(|f| f.0.round()).collect::<Vec<_>>(),
        reference.reports_sent,
        o.reports_sent
    );
    let _ = std::fs::remove_dir_all(out_dir(name, "emu"));
    let _ = std::fs::remove_dir_all(out_dir(name, "sim-reference"));
}

/// Adds a scenario to the suite: one test per engine.
macro_rules! conformance {
    ($name:ident, $text:expr) => {
        conformance!($name, $text, super::no_extra);
    };
    ($name:ident, $text:expr, $extra:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::{BASE, BS_REPORTS, LOSSY_BLOCKED, LRWPAN, LRWPAN_CR, PHY_LR, WIFI};
            #[test]
            fn sim() {
                super::conformance_sim(stringify!($name), $text, $extra);
            }
            #[test]
            fn emu() {
                super::conformance_emu(stringify!($name), $text, $extra);
            }
        }
    };
}

/// The point-to-point hop of most cases: 4 s, 100 Mbit/s / 5 ms access
/// links, a 10 Mbit/s / 5 ms hop (a string literal, for `concat!`).
macro_rules! p2p {
    () => {
        r#"
[sim]
duration = "4s"
[wired]
rate = "100Mbps"
delay = "5ms"
[wireless]
rate = "10Mbps"
delay = "5ms"
"#
    };
}

/// Paper 000's 802.15.4 uplink network without its primary user, for
/// `$duration` (a string literal, for `concat!`): CSMA-CA, MAC ACKs and
/// retries on 94-byte segments.
macro_rules! lrwpan {
    ($duration:literal) => {
        concat!(
            "\n[sim]\nduration = \"",
            $duration,
            "\"\n",
            r#"[tcp]
recovery = "newreno"
sack = false
mss = "94B"
initial_window = 4
min_rto = "1s"
rcv_buffer = "2KiB"
snd_buffer = "2KiB"
[wired]
rate = "100Mbps"
delay = "1ms"
[wireless]
kind = "lrwpan"
layout = "paper"
queue = "50p"
"#
        )
    };
}

const BASE: &str = p2p!();

const LOSSY_BLOCKED: &str = concat!(
    p2p!(),
    r#"[wireless.loss.down]
model = "iid"
p = 0.02
[wireless.availability]
model = "onoff"
on = "900ms"
off = "300ms"
[[flow]]
"#
);

/// A downlink over the 802.11a hop: the simulator's DCF (backoff, MAC
/// ACKs, retries at a 10 % frame error rate) in real time.
const WIFI: &str = r#"
[sim]
duration = "3s"
[tcp]
sack = true
mss = "1460B"
[wired]
rate = "100Mbps"
delay = "5ms"
[wireless]
kind = "wifi"
standard = "11a"
rate = "24Mbps"
rate_control = "fixed"
error_model = "nist"
snr_db = 13.5
queue = "100p"
[[flow]]
"#;

/// An uplink over the 802.15.4 hop (paper 000's network without its
/// primary user): CSMA-CA, MAC ACKs and retries on 94-byte segments.
const LRWPAN: &str = concat!(
    lrwpan!("4s"),
    r#"[wireless.loss.up]
model = "iid"
p = 0.05
[[flow]]
direction = "up"
"#
);

/// The same uplink with paper 000's primary user and CR-aware TCP at the
/// sender: its radio's PU detector freezes and resumes the sender.
const LRWPAN_CR: &str = concat!(
    lrwpan!("6s"),
    r#"[wireless.availability]
model = "onoff"
on = "1500ms"
off = "1s"
[pu_detection]
t_idle = "200ms"
[schemes]
cr_aware = true
[[flow]]
direction = "up"
"#
);

/// CR-aware TCP froze the sender on each detected primary user and
/// resumed it after, in the engine at hand (on the emulator, by holding
/// the host's datagrams at its interface).
fn cr_aware_froze_and_resumed(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let (freezes, resumes) = o.cr_freezes.expect("cr_aware ran");
    assert!(freezes >= 2, "{e}: {freezes} freezes for two blockages");
    assert!(
        resumes + 1 >= freezes && resumes <= freezes,
        "{e}: {freezes} freezes, {resumes} resumes"
    );
}

/// An uplink flow over a lossy hop with the BS's gap monitor alone
/// (`local_recovery = "bs_reports"`): its reports reach the sender's TCP.
const BS_REPORTS: &str = concat!(
    p2p!(),
    r#"[wireless.loss.up]
model = "iid"
p = 0.02
[schemes]
local_recovery = "bs_reports"
[[flow]]
direction = "up"
"#
);

/// The BS reported the holes it saw, and the sender, taking the reports
/// as SACK information, still delivered its stream in order: the
/// receiving application read at least every byte the BS counted in order
/// by the end (a sender misled into skipping data would leave the
/// receiver stuck at a hole).
fn bs_reports_were_sent_and_data_arrived_in_order(s: &Scenario, o: &Outcome) {
    let e = o.engine;
    let sent = o.reports_sent.expect("local recovery ran");
    assert!(sent > 0, "{e}: the BS sent no report");
    let t = s.sim.duration.as_secs_f64();
    for (i, &(goodput, oracle, _)) in o.flows.iter().enumerate() {
        assert!(
            goodput > 0.3 * oracle,
            "{e}: flow {i} goodput {goodput} is far below the oracle {oracle}"
        );
        assert!(o.bytes_delivered[i] as f64 * 8.0 / t == goodput);
    }
    if let Some(app) = &o.app_bytes {
        for (i, (&read, &in_order)) in app.iter().zip(&o.bytes_delivered).enumerate() {
            assert!(
                read >= in_order,
                "{e}: flow {i}: the application read {read} B, {in_order} B were in order by the end"
            );
        }
    }
}

/// Paper 000's 802.15.4 uplink over a hop that loses 40 % of the frame
/// attempts (about 2.6 % of frames after the MAC's retries: holes at the
/// BS) with PHY-LR: the BS reports holes to the sender's agent,
/// which resends them from its link buffer (on the emulator, with the
/// real bytes the host sent, kept at its interface).
const PHY_LR: &str = concat!(
    lrwpan!("6s"),
    r#"[wireless.loss.up]
model = "iid"
p = 0.4
[schemes]
local_recovery = "phy"
[[flow]]
direction = "up"
"#
);

/// The BS reported holes, the sender's agent took the reports and resent
/// frames from its link buffer, and the receiving application still read
/// every byte counted in order (a resend with wrong bytes would have been
/// dropped by the receiver's checksum or corrupted its stream).
fn phy_lr_resent_from_the_link_buffer(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let lr = o.lr.expect("local recovery ran");
    assert!(lr.reports_sent > 0, "{e}: {lr:?}");
    assert!(lr.reports_received > 0, "{e}: {lr:?}");
    assert!(lr.link_resends > 0, "{e}: {lr:?}");
    // Every resend found the host's bytes at its interface.
    if let Some(other) = &o.dropped_other {
        assert!(!other.contains_key("agent_payload"), "{e}: {other:?}");
    }
    app_read_what_arrived_in_order(e, o);
}

conformance!(
    phy_lr_uplink,
    PHY_LR,
    super::phy_lr_resent_from_the_link_buffer
);
conformance!(
    bs_gap_monitor_uplink,
    BS_REPORTS,
    super::bs_reports_were_sent_and_data_arrived_in_order
);
conformance!(lossless_download, &format!("{BASE}\n[[flow]]\n"));
conformance!(wifi_download, WIFI);
conformance!(lrwpan_upload, LRWPAN);
conformance!(
    lrwpan_cr_aware_upload,
    LRWPAN_CR,
    super::cr_aware_froze_and_resumed
);
conformance!(lossy_blocked_download, LOSSY_BLOCKED);
conformance!(
    two_flows_both_ways,
    &format!("{BASE}\n[[flow]]\n[[flow]]\ndirection = \"up\"\nstart = \"1s\"\n")
);

/// A lossy downlink: 1 % of the data frames lost on the hop.
const LOSSY: &str = concat!(
    p2p!(),
    r#"[wireless.loss.down]
model = "iid"
p = 0.01
[[flow]]
"#
);

/// `text` with every flow under congestion control `cc`.
fn with_cc(text: &str, cc: &str) -> Scenario {
    let sets = [format!("tcp.cc={cc}")];
    xltcp_core::scenario::load_str(text, "test.toml", std::path::Path::new("."), &sets)
        .expect("valid test scenario")
}

/// Each flow ran the congestion control its scenario names (on the
/// emulator, Linux's module of that name) and delivered data.
fn ran_its_cc(s: &Scenario, o: &Outcome) {
    let e = o.engine;
    if let Some(ran) = &o.linux_cc {
        let want: Vec<&str> = s
            .flows
            .iter()
            .map(|f| xltcp_emu::apps::linux_cc(&f.tcp.cc))
            .collect();
        assert_eq!(ran, &want, "{e}: congestion control per flow");
    }
    assert!(
        o.bytes_delivered.iter().all(|&b| b > 0),
        "{e}: {:?}",
        o.bytes_delivered
    );
}

/// Adds `text` run under congestion control `cc` to the suite: one test
/// per engine, each checking that the flows ran it.
macro_rules! conformance_cc {
    ($name:ident, $text:expr, $cc:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::{LOSSY, LOSSY_BLOCKED, WIFI};
            fn scenario() -> xltcp_core::scenario::Scenario {
                super::with_cc($text, $cc)
            }
            #[test]
            fn sim() {
                super::conformance_sim_of(stringify!($name), scenario(), super::ran_its_cc);
            }
            #[test]
            fn emu() {
                let Some(_one) = super::emu_or_skip(stringify!($name)) else {
                    return;
                };
                super::conformance_emu_of(stringify!($name), scenario(), super::ran_its_cc);
            }
        }
    };
}

// Linux's congestion controls other than Reno (the kernels this runs on
// build cubic and bbr in; westwood and vegas are modules often absent) on
// the lossy hop, the blocked hop and the 802.11 hop.
conformance_cc!(cubic_lossy_download, LOSSY, "cubic");
conformance_cc!(cubic_blocked_download, LOSSY_BLOCKED, "cubic");
conformance_cc!(cubic_wifi_download, WIFI, "cubic");
conformance_cc!(bbr_lossy_download, LOSSY, "bbr");
conformance_cc!(bbr_blocked_download, LOSSY_BLOCKED, "bbr");
conformance_cc!(bbr_wifi_download, WIFI, "bbr");

/// A shipped scenario of `scenarios/` with `sets` applied.
fn shipped(path: &str, sets: &[&str]) -> Scenario {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    xltcp_core::scenario::load_file(&root.join(path), &sets).expect("shipped scenario loads")
}

/// Paper 003's moving run (L1 -> L4 -> L1) with our UCL and its link
/// security on, shortened to its first 8 s (at L1, the host trying 11b
/// once for its ACKs): two 802.11 interfaces per end.
fn ucl_moving_secured() -> Scenario {
    shipped(
        "ucl/moving-ucl-ours-secured.toml",
        &["sim.duration=8s", "sim.sample_interval=1s"],
    )
}

/// The UCL's link came up at both ends (the Noise handshake crossed the
/// air), every frame went sealed and the far end opened them: nothing
/// dropped by the security, in the engine at hand.
fn ucl_link_secured(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let ucl = o.ucl.as_ref().expect("the UCL ran");
    let sec = ucl.security.as_ref().expect("its security ran");
    assert_eq!(sec.link.handshakes_done, 2, "{e}: {sec:?}");
    assert!(sec.link.sealed > 1000, "{e}: {sec:?}");
    assert!(sec.link.opened > 1000, "{e}: {sec:?}");
    assert_eq!(sec.dropped(), 0, "{e}: {sec:?}");
    assert!(ucl.packets[0] > 0, "{e}: nothing on 802.11a: {ucl:?}");
    if let Some(other) = &o.dropped_other {
        assert!(
            other.keys().all(|k| !k.starts_with("ucl.")),
            "{e}: {other:?}"
        );
    }
}

mod ucl_moving_secured {
    #[test]
    fn sim() {
        super::conformance_sim_of(
            "ucl_moving_secured",
            super::ucl_moving_secured(),
            super::ucl_link_secured,
        );
    }
    #[test]
    fn emu() {
        let Some(_one) = super::emu_or_skip("ucl_moving_secured") else {
            return;
        };
        super::conformance_emu_of(
            "ucl_moving_secured",
            super::ucl_moving_secured(),
            super::ucl_link_secured,
        );
    }
}

/// Paper 003's moving run with our UCL, security off, 11a at a fixed
/// 54 Mbit/s (the sensitivity case with its own calibration,
/// `walk-11a-fixed54.txt`: with ARF, as shipped, 11a falls back to lower
/// rates and its MAC seldom gives a frame up), shortened to its first 20 s
/// (into the walk's switches, where the 802.11a link fails): the UCL
/// resent frames its MAC gave up on over the other interface, each with
/// the bytes its frame had, and the receiving application read every byte
/// in order.
fn ucl_resent_on_the_other_interface(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let ucl = o.ucl.as_ref().expect("the UCL ran");
    assert!(ucl.switches > 0, "{e}: {ucl:?}");
    assert!(ucl.resent > 0, "{e}: {ucl:?}");
    if let Some(other) = &o.dropped_other {
        assert!(!other.contains_key("agent_payload"), "{e}: {other:?}");
    }
    app_read_what_arrived_in_order(e, o);
}

/// Adds a shipped scheme scenario, shortened by `sets`, to the suite: one
/// test per engine, each with the scheme's own check.
macro_rules! conformance_shipped {
    ($name:ident, $path:expr, $sets:expr, $extra:expr) => {
        mod $name {
            fn scenario() -> xltcp_core::scenario::Scenario {
                super::shipped($path, $sets)
            }
            #[test]
            fn sim() {
                super::conformance_sim_of(stringify!($name), scenario(), $extra);
            }
            #[test]
            fn emu() {
                let Some(_one) = super::emu_or_skip(stringify!($name)) else {
                    return;
                };
                super::conformance_emu_of(stringify!($name), scenario(), $extra);
            }
        }
    };
}

/// Paper 002's runs, shortened: 8 s of the 100 s transfer over the 802.11b
/// cell with its bursty 5 % loss.
const KIM_CHUNG_SHORT: &[&str] = &["sim.duration=8s"];

/// The receiving application read at least every byte counted in order by
/// the end (an agent that emitted wrong bytes, or misled the sender into
/// skipping data, would leave it stuck at a hole). Both count the
/// application's data alone, so the bound holds even when the last data
/// waits at a hole past the end (iperf3's control connection and cookie are
/// not in the in-order count).
fn app_read_what_arrived_in_order(e: &str, o: &Outcome) {
    if let Some(app) = &o.app_bytes {
        for (i, (&read, &in_order)) in app.iter().zip(&o.bytes_delivered).enumerate() {
            assert!(
                read >= in_order,
                "{e}: flow {i}: read {read} B, {in_order} B in order"
            );
        }
    }
}

/// Snoop at the BS on the downlink: it cached the sender's segments and
/// repaired losses on the air itself (local retransmissions on the
/// receiver's duplicate ACKs or its timer), suppressing duplicate ACKs, in
/// the engine at hand; every segment it resent carried the host's bytes.
fn snoop_retransmitted_locally(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let sn = o.snoop().expect("snoop ran");
    assert!(sn.cached > 100, "{e}: {sn:?}");
    assert!(sn.local_retransmissions.total() > 0, "{e}: {sn:?}");
    assert!(sn.dupacks_suppressed > 0, "{e}: {sn:?}");
    if let Some(other) = &o.dropped_other {
        assert!(!other.contains_key("agent_payload"), "{e}: {other:?}");
    }
    app_read_what_arrived_in_order(e, o);
}

/// Snoop at the BS with the data going up: ns-2's rules pass uplink data
/// through, so it resent nothing and suppressed no ACK (iperf3's control
/// connection, whose segments go down too, passes around the BS).
fn snoop_passed_the_uplink_through(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let sn = o.snoop().expect("snoop ran");
    assert_eq!(sn.local_retransmissions.total(), 0, "{e}: {sn:?}");
    assert_eq!(sn.dupacks_suppressed, 0, "{e}: {sn:?}");
    assert_eq!(sn.sender_retransmissions, 0, "{e}: {sn:?}");
    assert!(sn.cached < 100, "{e}: {sn:?}");
}

/// Paper 003's moving run without the UCL's security, 11a at a fixed rate:
/// its first 20 s.
const UCL_SHORT: &[&str] = &[
    "sim.duration=20s",
    "sim.sample_interval=1s",
    "wireless.0.rate_control=fixed",
    "wireless.0.snr.mean_trace=walk-11a-fixed54.txt",
];

conformance_shipped!(
    ucl_moving,
    "ucl/moving-ucl-ours.toml",
    super::UCL_SHORT,
    super::ucl_resent_on_the_other_interface
);
conformance_shipped!(
    snoop_download,
    "kim-chung/snoop-down.toml",
    super::KIM_CHUNG_SHORT,
    super::snoop_retransmitted_locally
);
conformance_shipped!(
    snoop_upload,
    "kim-chung/snoop-up.toml",
    super::KIM_CHUNG_SHORT,
    super::snoop_passed_the_uplink_through
);

/// Paper 001's runs, shortened: 8 s of the 20 s transfer over the 802.11a
/// cell with its primary users and sensing periods.
const DSASYNC_SHORT: &[&str] = &["sim.duration=8s"];

/// DSASync at the BS on the downlink: it buffered the sender's segments
/// (in the freeze periods, and past its transmit window) and released
/// every one to the air, and paced the host's ACKs toward the sender.
fn dsasync_buffered_and_released(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let d = o.dsasync().expect("dsasync ran");
    assert!(d.accepted > 100, "{e}: {d:?}");
    assert!(
        d.released + d.replaced + d.buffered >= d.accepted,
        "{e}: {d:?}"
    );
    assert!(d.released > 100, "{e}: {d:?}");
    assert!(d.paced > 1000, "{e}: {d:?}");
    if let Some(other) = &o.dropped_other {
        assert!(!other.contains_key("agent_payload"), "{e}: {other:?}");
    }
    app_read_what_arrived_in_order(e, o);
}

/// DSASync at the BS on the uplink: it paced the host's segments onto the
/// wired link (Algorithms 3 and 4), some of them held for a time. The
/// count is a floor that says the pacer ran, not a throughput: the paper's
/// pacer slows the upload (docs/papers/dsasync.md), and under it real Linux TCP
/// had 777 segments paced in these 8 s on a loaded machine, over 1000 on
/// a quiet one.
fn dsasync_paced_the_uplink(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let d = o.dsasync().expect("dsasync ran");
    assert!(d.paced > 200, "{e}: {d:?}");
    assert!(d.paced_waited > 0, "{e}: {d:?}");
    app_read_what_arrived_in_order(e, o);
}

/// Algorithm 2 line 11, scripted: no primary user, only the sensing
/// periods of the host (25 ms every 500 ms) and of the cell, whose driver
/// clears its queue at each retune (`tfp_queue = "flush"`); 4 s of the
/// downlink, the pacer off (it only shapes the host's ACKs).
const DSASYNC_WITHDRAW: &[&str] = &[
    "sim.duration=4s",
    "wireless.availability.on=\"1000000s\"",
    "wireless.availability.off=\"1s\"",
    "agent.0.smoothing=\"off\"",
];

/// At each sensing period's start DSASync took the host's packets that
/// were waiting in the AP's MAC back into its buffer (the hop counted
/// the same packets) and released every one when the period ended: the
/// buffer balances, the retunes cleared none of them, and the receiving
/// application read what arrived.
fn dsasync_withdrew_at_each_tfp_and_released(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let d = o.dsasync().expect("dsasync ran");
    let (withdrawn, flushed) = o.wifi_down_withdrawn_flushed.expect("an 802.11 hop");
    eprintln!(
        "{e}: withdrawn {}, accepted {}, released {}, buffered {}",
        d.withdrawn, d.accepted, d.released, d.buffered
    );
    assert!(d.withdrawn > 0, "{e}: {d:?}");
    assert_eq!(
        d.withdrawn, withdrawn,
        "{e}: the hop and the agent disagree"
    );
    assert_eq!(
        d.accepted + d.withdrawn,
        d.released + d.buffered,
        "{e}: {d:?}"
    );
    assert!(d.released > d.withdrawn, "{e}: {d:?}");
    assert_eq!(flushed, 0, "{e}: a retune cleared downlink packets");
    if let Some(other) = &o.dropped_other {
        assert!(!other.contains_key("agent_payload"), "{e}: {other:?}");
    }
    app_read_what_arrived_in_order(e, o);
}

conformance_shipped!(
    dsasync_withdraw,
    "dsasync/dsasync-down.toml",
    super::DSASYNC_WITHDRAW,
    super::dsasync_withdrew_at_each_tfp_and_released
);
conformance_shipped!(
    dsasync_download,
    "dsasync/dsasync-down.toml",
    super::DSASYNC_SHORT,
    super::dsasync_buffered_and_released
);
conformance_shipped!(
    dsasync_upload,
    "dsasync/dsasync-up.toml",
    super::DSASYNC_SHORT,
    super::dsasync_paced_the_uplink
);

#[test]
fn the_seeds_schedule_is_replayed_exactly() {
    let s = scenario(LOSSY_BLOCKED);
    let b = blocked_intervals(&s, 7);
    assert_eq!(b[0], (900_000_000, 1_200_000_000));
    assert_eq!(b.len(), 3);
}

/// The receiving applications read every byte counted in order by the
/// end (emulator), and Linux found no segment with a bad checksum: an
/// agent's resend or rewrite carried the real bytes, its checksum right.
fn real_bytes_intact(o: &Outcome) {
    let e = o.engine;
    app_read_what_arrived_in_order(e, o);
    if let Some(other) = &o.dropped_other {
        assert!(!other.contains_key("agent_payload"), "{e}: {other:?}");
    }
    if let Some(bad) = o.in_csum_errors {
        assert_eq!(bad, 0, "{e}: segments with a bad checksum");
    }
}

/// Paper 002's uplink with C-Snoop at the BS and at the MH
/// (`scenarios/kim-chung/c-snoop-up.toml`), its first 8 s: the MH's agent
/// caches the frames its TCP sends and resends those its MAC reports
/// undelivered (burst losses that outlast the MAC's seven attempts).
fn c_snoop_up() -> Scenario {
    shipped("kim-chung/c-snoop-up.toml", &["sim.duration=8s"])
}

/// The same downlink: the BS's agent resends the downlink frames.
fn c_snoop_down() -> Scenario {
    shipped("kim-chung/c-snoop-down.toml", &["sim.duration=8s"])
}

/// C-Snoop cached the data going onto the air and resent frames its MAC
/// gave up on (on the emulator, with the frames' real bytes), and kept
/// duplicate ACKs of its repairs from the sender.
fn c_snoop_resent(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let c = o.c_snoop().expect("C-Snoop ran");
    eprintln!("{e}: {c:?}");
    let r = c.local_retransmissions;
    // A 20-segment window over a link that loses bursts both ways (the
    // presets, as ns-2's agents): some 90 segments a second.
    assert!(c.cached > 400, "{e}: {c:?}");
    assert!(r.undelivered + r.delivered_priority >= 10, "{e}: {c:?}");
    assert!(c.dupacks_suppressed > 0, "{e}: {c:?}");
    real_bytes_intact(o);
}

/// Paper 002's uplink with SNACK (`scenarios/kim-chung/snack-up.toml`:
/// SNACK-S at the BS, SNACK-TCP at the MH), its first 8 s: the BS's gap
/// monitor names the holes the air's bursts leave, and the MH's agent
/// resends them from its copies of the frames its TCP sent.
fn snack_up() -> Scenario {
    shipped("kim-chung/snack-up.toml", &["sim.duration=8s"])
}

/// SNACK's two halves acted in the engine at hand: the BS sent SNACKs,
/// the MH's agent received them (never more than were sent: a SNACK lost
/// on the air is not received) and resent the holes they named from its
/// copies (on the emulator, with the frames' real bytes), and kept the
/// FH's duplicate ACKs for those holes from its TCP.
fn snack_resent_at_the_host(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let s = o.snack().expect("SNACK ran");
    eprintln!("{e}: {s:?}");
    assert!(s.cache.cached > 400, "{e}: {s:?}");
    assert!(s.snacks_sent >= 5, "{e}: {s:?}");
    assert!(s.snacks_received > 0, "{e}: {s:?}");
    assert!(s.snacks_received <= s.snacks_sent, "{e}: {s:?}");
    assert!(s.cache.local_retransmissions.snack >= 5, "{e}: {s:?}");
    assert!(s.cache.dupacks_suppressed > 0, "{e}: {s:?}");
    real_bytes_intact(o);
}

/// The same downlink (`snack-down.toml`): the BS's half caches the FH's
/// segments and resends the holes the MH's own SACK blocks name.
fn snack_down() -> Scenario {
    shipped("kim-chung/snack-down.toml", &["sim.duration=8s"])
}

/// SNACK's BS half repaired the downlink in the engine at hand: it cached
/// the FH's segments, resent the holes the MH's SACK blocks named (on the
/// emulator, with the bytes the BS sent onto the air; Linux's SACK blocks
/// are the report) and kept the MH's duplicate ACKs from the FH.
fn snack_resent_at_the_bs(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let s = o.snack().expect("SNACK ran");
    eprintln!("{e}: {s:?}");
    assert!(s.cache.cached > 400, "{e}: {s:?}");
    assert!(s.holes_reported > 0, "{e}: {s:?}");
    assert!(s.cache.local_retransmissions.snack >= 5, "{e}: {s:?}");
    assert!(s.cache.dupacks_suppressed > 0, "{e}: {s:?}");
    real_bytes_intact(o);
}

/// Paper 004's CLAMP preset (`scenarios/l2clamp/clamp.toml`: four
/// downlink flows, three receivers, 802.11b with a queue per receiver),
/// its first 10 s.
fn clamp() -> Scenario {
    shipped("l2clamp/clamp.toml", &["sim.duration=10s"])
}

/// The same with L2-CLAMP.
fn l2clamp() -> Scenario {
    shipped("l2clamp/l2clamp.toml", &["sim.duration=10s"])
}

/// CLAMP's receivers ran their controllers on the data they got, the
/// AP's price rose past the target delay and halved windows, and the
/// receivers' ACKs went out with smaller windows (on the emulator,
/// rewritten in Linux's own ACKs, checksums kept valid).
fn clamp_clamped(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let c = o.clamp().expect("CLAMP ran");
    eprintln!("{e}: {c:?}");
    assert!(c.segments > 500, "{e}: {c:?}");
    assert!(c.max_price_us > 0, "{e}: {c:?}");
    assert!(c.price_halvings > 0, "{e}: {c:?}");
    assert!(c.windows_clamped > 100, "{e}: {c:?}");
    real_bytes_intact(o);
}

/// L2-CLAMP's BS made the ACKs from the MAC's reports and the receivers'
/// agents kept their own standalone ACKs off the air (on the emulator,
/// Linux's), and the data still arrived in order.
fn l2clamp_acked_at_the_bs(_: &Scenario, o: &Outcome) {
    let e = o.engine;
    let c = o.l2clamp().expect("L2-CLAMP ran");
    eprintln!("{e}: {c:?}");
    assert!(c.acks_sent > 500, "{e}: {c:?}");
    assert!(c.suppressed > 500, "{e}: {c:?}");
    assert!(c.price_halvings > 0, "{e}: {c:?}");
    real_bytes_intact(o);
}

/// A conformance case of a shipped scenario: one test per engine.
macro_rules! conformance_shipped {
    ($name:ident, $scenario:expr, $extra:expr) => {
        mod $name {
            #[test]
            fn sim() {
                super::conformance_sim_of(stringify!($name), $scenario(), $extra);
            }
            #[test]
            fn emu() {
                let Some(_one) = super::emu_or_skip(stringify!($name)) else {
                    return;
                };
                super::conformance_emu_of(stringify!($name), $scenario(), $extra);
            }
        }
    };
}

conformance_shipped!(c_snoop_uplink, super::c_snoop_up, super::c_snoop_resent);
conformance_shipped!(c_snoop_downlink, super::c_snoop_down, super::c_snoop_resent);
conformance_shipped!(
    snack_uplink,
    super::snack_up,
    super::snack_resent_at_the_host
);
conformance_shipped!(
    snack_downlink,
    super::snack_down,
    super::snack_resent_at_the_bs
);
conformance_shipped!(clamp_receivers, super::clamp, super::clamp_clamped);
conformance_shipped!(
    l2clamp_receivers,
    super::l2clamp,
    super::l2clamp_acked_at_the_bs
);
