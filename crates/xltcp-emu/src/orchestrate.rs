//! One emulator run from start to end: checks, plumbing, servers, the
//! data-path thread, clients at their start times, results, teardown.

use crate::apps::{self, AppResult};
use crate::bridge::{run_loop, LoopReport};
use crate::capture::{Captures, TraceBudget};
use crate::clock::Clock;
use crate::fileapp::FileFlow;
use crate::hop::{host_address, Hop};
use crate::plumbing::{self, HostConfig, Names, Plumbing};
use crate::series::{SampledFlow, Sampler};
use crate::signals;
use crate::summary::{self, LATE_P99_WARN_US};
use crate::EmuError;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use xltcp_core::hop::Hop as _;
use xltcp_core::scenario::{self, AppSpec, Direction, Scenario};
use xltcp_core::sim::emu_section::EmuDetails;
use xltcp_core::sim::flow::Side;
use xltcp_core::sim::summary::{HopSummary, MoreHopSummary, Sections};
use xltcp_core::sim::{LinkSummary, Summary};
use xltcp_core::time::{Dur, Time};

/// Most flows one emulation runs (two processes each).
pub const MAX_FLOWS: usize = 64;
/// How long after the scenario's end the applications may take to report.
const GRACE: Dur = Dur::from_secs(15);
/// How long servers may take to start listening.
const SERVER_READY: Duration = Duration::from_secs(5);

/// How to run an emulation.
#[derive(Default)]
pub struct EmuOptions<'a> {
    /// Seed; `None` = the scenario's `[sim] seed`.
    pub seed: Option<u64>,
    /// Folder for `summary.json`, captures and the applications' reports.
    pub out_dir: Option<&'a Path>,
    /// Called about ten times a second with (emulated seconds done,
    /// total); returning false stops the run (`Interrupted`).
    pub progress: Option<&'a mut dyn FnMut(f64, f64) -> bool>,
    /// Set from elsewhere (e.g. a signal handler) to stop the run.
    pub stop: Option<&'a AtomicBool>,
    /// Publish the radio's signals and accept injected ones on this
    /// Unix-domain socket (see [`crate::signals`]).
    pub signal_socket: Option<&'a Path>,
    /// Linux congestion control for every flow instead of the scenario's
    /// (e.g. "cubic"); the scenario's "newreno" runs as Linux "reno".
    pub cc: Option<String>,
    /// Namespace sysctls (`name=value`, names under `net.`) set on both
    /// hosts after the ones derived from the scenario's `tcp` keys, e.g.
    /// `net.ipv4.tcp_ecn=1` for ECN.
    pub sysctls: Vec<String>,
}

/// Checks `--sysctl` arguments: `name=value`, the name under `net.` (a
/// network namespace's own settings), the value on one line.
pub fn check_sysctls(sysctls: &[String]) -> Result<(), EmuError> {
    for s in sysctls {
        let (name, value) = s.split_once('=').unwrap_or((s, ""));
        let name_ok = name.starts_with("net.")
            && name.len() > 4
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
        if !name_ok || value.trim().is_empty() || value.contains('\n') {
            return Err(EmuError::Unsupported(format!(
                "--sysctl {s:?}: expected NAME=VALUE with NAME under net. (a network namespace's own setting, e.g. net.ipv4.tcp_ecn=1)"
            )));
        }
    }
    Ok(())
}

/// Runs `scenario` on real Linux TCP through the emulated hop.
pub fn run(scenario: &Scenario, mut opts: EmuOptions<'_>) -> Result<Summary, EmuError> {
    let wall = Clock::start();
    supported(scenario)?;
    check_sysctls(&opts.sysctls)?;
    plumbing::preflight()?;
    plumbing::clean_leftovers();
    let seed = opts.seed.unwrap_or(scenario.sim.seed);
    let mut warnings = namespace_wide_warnings(scenario);
    let (mut ch, mut sh) = host_configs(scenario);
    ch.user_sysctls.clone_from(&opts.sysctls);
    sh.user_sysctls.clone_from(&opts.sysctls);
    let mut plumbing = Plumbing::create(Names::for_pid(std::process::id()), &ch, &sh)?;
    let outcome = emulate(scenario, seed, &mut plumbing, &mut opts, &mut warnings);
    plumbing.teardown();
    let (hop, report, apps, cc, counters) = outcome?;
    let mut summary = build_summary(scenario, seed, &hop, report, &apps, cc, counters, warnings);
    summary.wall_seconds = wall.now().as_nanos() as f64 / 1e9;
    if let Some(e) = summary.emu.as_mut() {
        e.sysctls.clone_from(&opts.sysctls);
    }
    if let Some(dir) = opts.out_dir {
        let mut text = serde_json::to_string_pretty(&summary).map_err(std::io::Error::other)?;
        text.push('\n');
        std::fs::write(dir.join("summary.json"), text)?;
    }
    Ok(summary)
}

/// Refuses what the emulator does not model yet, saying so: agents the
/// scenario places at hosts that would have to run inside Linux's TCP
/// (the BS's run, and the hosts' of [`crate::agents::RUNS_AT_HOSTS`]),
/// too many flows.
pub fn supported(s: &Scenario) -> Result<(), EmuError> {
    let mut why = crate::agents::host_agents(s);
    if !why.is_empty() {
        why.insert(
            0,
            "the emulator runs the schemes' agents at the base station, and at a \
             host's interface those that act below its TCP (the UCL, PHY-LR, C-Snoop, \
             SNACK, CLAMP, L2-CLAMP) or on its behalf (CR-aware TCP: a pause of the \
             host's traffic); these agents at the hosts would have to run inside their \
             Linux TCP"
                .into(),
        );
    }
    if s.hosts != xltcp_core::scenario::HostsSpec::default() {
        why.push(
            "[hosts] stack_delay and stack_jitter give the simulator's hosts a stack \
             latency; the emulator's hosts are real Linux and take their own time \
             (20-100 us as measured), so it does not add one: leave [hosts] out"
                .into(),
        );
    }
    if s.flows.len() > MAX_FLOWS {
        why.push(format!(
            "the emulator runs at most {MAX_FLOWS} flows; this scenario has {}",
            s.flows.len()
        ));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(EmuError::Unsupported(why.join("\n  ")))
    }
}

/// The smallest receive-buffer maximum the namespaces get (bytes).
const RMEM_FLOOR: u64 = 131072;

/// The smallest send-buffer maximum the namespaces get (bytes).
const WMEM_FLOOR: u64 = 16384;

/// Memory Linux charges a buffer per segment besides its payload (the
/// socket buffer's `truesize`: the `sk_buff`, its shared info, headers and
/// headroom). Measured: a receiver whose buffer may grow to B advertises
/// at most 0.627 B with 1448-byte segments from the TUN device, a
/// truesize of 2308 bytes per segment.
const SEGMENT_OVERHEAD: u64 = 860;

/// The buffer maximum Linux needs to hold `payload` bytes in `mss`-byte
/// segments: the simulator's buffers count payload, Linux's count memory
/// (at a 1448-byte MSS about 1.6 times the payload, at 94 bytes about 10).
fn linux_buffer(payload: u64, mss: u32) -> u64 {
    let mss = u64::from(mss.max(1));
    payload.saturating_mul(mss + SEGMENT_OVERHEAD).div_ceil(mss)
}

/// Settings Linux applies per namespace, taken from the first flow.
fn namespace_wide_warnings(s: &Scenario) -> Vec<String> {
    let first = &s.flows[0].tcp;
    let differs = s.flows.iter().any(|f| {
        let t = &f.tcp;
        (
            t.mss,
            t.sack,
            t.timestamps,
            t.window_scale,
            t.initial_window,
            t.min_rto,
            t.rcv_buffer,
            t.snd_buffer,
            t.frto,
            t.rack,
            t.tlp,
            t.dsack,
        ) != (
            first.mss,
            first.sack,
            first.timestamps,
            first.window_scale,
            first.initial_window,
            first.min_rto,
            first.rcv_buffer,
            first.snd_buffer,
            first.frto,
            first.rack,
            first.tlp,
            first.dsack,
        ) || t.syn_linear_timeouts != first.syn_linear_timeouts
    });
    let mut w = Vec::new();
    if differs {
        w.push("flows differ in TCP settings Linux applies per namespace (mss, sack, timestamps, window scaling, initial window, min RTO, buffers, F-RTO, RACK, TLP, DSACK, linear SYN timeouts): the first flow's are used".into());
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    if first.sack && !first.rack && rack_always_on(release.trim()) {
        w.push(format!(
            "tcp.rack = false is not honoured: Linux {} always detects losses by RACK when SACK is on (Linux 6.17 removed RFC 6675's detection, and net.ipv4.tcp_recovery = 0 no longer turns RACK off); compare with the simulator's tcp.rack = true",
            release.trim()
        ));
    }
    if first.syn_linear_timeouts > 0 && !Path::new(SYN_LINEAR_TIMEOUTS).exists() {
        w.push(format!(
            "tcp.syn_linear_timeouts = {} is not honoured: Linux {} has no net.ipv4.tcp_syn_linear_timeouts (before 6.5 every SYN timeout doubles the RTO, as with 0)",
            first.syn_linear_timeouts,
            release.trim()
        ));
    }
    w
}

/// Linux's linear SYN timeouts (6.5 and later), per namespace.
const SYN_LINEAR_TIMEOUTS: &str = "/proc/sys/net/ipv4/tcp_syn_linear_timeouts";

/// Whether the kernel of release `release` ("6.18.44-...") runs RACK loss
/// detection whatever `net.ipv4.tcp_recovery` says (Linux 6.17 and later).
fn rack_always_on(release: &str) -> bool {
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().ok());
    matches!(
        (parts.next().flatten(), parts.next().flatten()),
        (Some(major), Some(minor)) if (major, minor) >= (6, 17)
    )
}

/// Namespace configuration from the first flow's TCP settings.
fn host_configs(s: &Scenario) -> (HostConfig, HostConfig) {
    let t = &s.flows[0].tcp;
    // The MTU makes Linux's MSS carry the scenario's payload per segment.
    let mtu = t.mss + 40 + if t.timestamps { 12 } else { 0 };
    let mut sysctls = vec![
        format!("net.ipv4.tcp_sack={}", t.sack as u8),
        format!("net.ipv4.tcp_timestamps={}", t.timestamps as u8),
        format!("net.ipv4.tcp_window_scaling={}", t.window_scale as u8),
        // F-RTO as the scenario says (Linux has one F-RTO of its own,
        // whatever `tcp.frto_variant` says: "linux" is the simulator's
        // model of it).
        format!("net.ipv4.tcp_frto={}", if t.frto { 2 } else { 0 }),
        // RACK and the Tail Loss Probe as the scenario says (Linux's
        // defaults, 1 and 3, run both; from Linux 6.17 RACK runs with SACK
        // whatever the first says, see `namespace_wide_warnings`).
        format!("net.ipv4.tcp_recovery={}", u8::from(t.rack)),
        format!("net.ipv4.tcp_early_retrans={}", if t.tlp { 3 } else { 0 }),
        // DSACK from the receivers as the scenario says (Linux's default
        // sends it).
        format!("net.ipv4.tcp_dsack={}", u8::from(t.dsack)),
        format!(
            "net.ipv4.tcp_rmem=4096 131072 {}",
            linux_buffer(t.rcv_buffer, t.mss).max(RMEM_FLOOR)
        ),
        format!(
            "net.ipv4.tcp_wmem=4096 16384 {}",
            linux_buffer(t.snd_buffer, t.mss).max(WMEM_FLOOR)
        ),
        "net.ipv4.tcp_no_metrics_save=1".into(),
        // iperf3 sets the flow's congestion control (`-C`) only once the
        // connection is open, under the namespace's default; a pacing
        // default (BBR, on some machines) turns Linux's internal pacing
        // on for good (`sk_pacing_status`), and the Reno flow would then
        // send at 1.2 times cwnd per SRTT, off the ACK clock. Reno never
        // asks for pacing.
        "net.ipv4.tcp_congestion_control=reno".into(),
    ];
    // The SYN's timeouts as the scenario says (Linux's default, 4, keeps
    // the RTO for the first four; 0 doubles it on each, as RFC 6298 and
    // kernels before 6.5 do).
    if Path::new(SYN_LINEAR_TIMEOUTS).exists() {
        sysctls.push(format!(
            "net.ipv4.tcp_syn_linear_timeouts={}",
            t.syn_linear_timeouts
        ));
    }
    let mut route = format!(
        "initcwnd {} rto_min {}ms",
        t.initial_window,
        t.min_rto.as_nanos().div_ceil(1_000_000)
    );
    if t.delayed_ack_segments == 1 {
        route.push_str(" quickack 1");
    }
    // The buffer maximum leaves room for Linux's overhead (and keeps its
    // floor); the route clamps the window each receiver advertises to the
    // scenario's buffer.
    route.push_str(&format!(" window {}", t.rcv_buffer));
    let host = |side: Side| HostConfig {
        addresses: (0..s.flows.len() as u32)
            .map(|i| host_address(side, i))
            .collect(),
        mtu,
        sysctls: sysctls.clone(),
        route_options: route.clone(),
        user_sysctls: Vec::new(),
    };
    (host(Side::Ch), host(Side::Sh))
}

/// Reads a child's output to its end on a thread; with `ready`, signals
/// when a line containing "listening" appears.
fn drain<R: Read + Send + 'static>(r: R, ready: Option<mpsc::Sender<()>>) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut all = String::new();
        let mut lines = BufReader::new(r);
        let mut line = String::new();
        while lines.read_line(&mut line).unwrap_or(0) > 0 {
            if let Some(tx) = &ready {
                if line.contains("listening") {
                    let _ = tx.send(());
                }
            }
            all.push_str(&line);
            line.clear();
        }
        all
    })
}

/// A running flow's application.
enum Client {
    /// A bulk flow's iperf3 client: its child index, the thread reading
    /// its output, and its data connection's retransmissions read at the
    /// scenario's end (for when iperf3 gives no report).
    Iperf {
        child: usize,
        out: JoinHandle<String>,
        at_end: Option<u64>,
    },
    /// A file flow's two ends.
    File(FileFlow),
}

impl Client {
    fn running(&self, p: &mut Plumbing) -> bool {
        match self {
            Client::Iperf { child, .. } => matches!(p.child(*child).try_wait(), Ok(None)),
            Client::File(f) => f.running(),
        }
    }

    /// Ends it now (the grace period is over), so reading its output ends.
    fn kill(&self, p: &mut Plumbing) {
        match self {
            Client::Iperf { child, .. } => {
                let child = p.child(*child);
                if matches!(child.try_wait(), Ok(None)) {
                    // SAFETY: kill has no memory preconditions; the child leads its group.
                    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                    let _ = child.kill();
                }
            }
            Client::File(f) => f.stop(),
        }
    }
}

/// Linux's TCP counters per namespace.
type Counters = std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>;

type Outcome = (
    Hop,
    LoopReport,
    Vec<Option<AppResult>>,
    Vec<String>,
    Counters,
);

/// (namespace of the sender, of the receiver) of a flow.
fn sides(d: Direction) -> (Side, Side) {
    match d {
        Direction::Down => (Side::Ch, Side::Sh),
        Direction::Up => (Side::Sh, Side::Ch),
    }
}

/// Starts each flow's iperf3 server on its receiving host and waits until
/// all listen; returns the threads draining their output.
fn start_servers(s: &Scenario, p: &mut Plumbing) -> Result<Vec<JoinHandle<String>>, EmuError> {
    let (tx, rx) = mpsc::channel();
    let mut drains = Vec::new();
    let bulk = |f: &&xltcp_core::scenario::FlowSpec| matches!(f.app, AppSpec::Bulk);
    for (i, f) in s.flows.iter().enumerate().filter(|(_, f)| bulk(f)) {
        let (_, rcv) = sides(f.direction);
        let ns = p.names.ns(rcv).to_string();
        let k = p.spawn(
            &ns,
            "iperf3",
            &apps::server_args(host_address(rcv, i as u32)),
        )?;
        let c = p.child(k);
        drains.extend(c.stdout.take().map(|o| drain(o, Some(tx.clone()))));
        drains.extend(c.stderr.take().map(|e| drain(e, None)));
    }
    for f in s.flows.iter().filter(bulk) {
        if rx.recv_timeout(SERVER_READY).is_err() {
            return Err(EmuError::Setup(format!(
                "iperf3 server of flow {} did not start listening",
                f.name
            )));
        }
    }
    Ok(drains)
}

/// The signal socket's parts until its thread starts.
type Socket<'a> = (
    &'a Path,
    std::os::unix::net::UnixListener,
    mpsc::Receiver<(Time, signals::Signal)>,
    mpsc::Sender<signals::Command>,
);

/// Binds the signal socket, if asked for, and wires the hop to it.
fn attach_socket<'a>(
    hop: &mut Hop,
    path: Option<&'a Path>,
) -> Result<Option<Socket<'a>>, EmuError> {
    let Some(path) = path else { return Ok(None) };
    let listener = signals::bind(path)
        .map_err(|e| EmuError::Setup(format!("signal socket {}: {e}", path.display())))?;
    let (stx, srx) = mpsc::channel();
    let (ctx, crx) = mpsc::channel();
    hop.signals = Some(stx);
    hop.commands = Some(crx);
    Ok(Some((path, listener, srx, ctx)))
}

/// Reads each client's report (keeping a copy in `out_dir/apps/`).
fn collect_reports(
    s: &Scenario,
    clients: Vec<Option<Client>>,
    out_dir: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Option<AppResult>>, EmuError> {
    let mut results = Vec::new();
    for (i, c) in clients.into_iter().enumerate() {
        let name = &s.flows[i].name;
        let (out, at_end) = match c {
            None => {
                warnings.push(format!("flow {name}: never started"));
                results.push(None);
                continue;
            }
            Some(Client::File(f)) => {
                results.push(file_result(s, i, f, warnings));
                continue;
            }
            Some(Client::Iperf { out, at_end, .. }) => (out, at_end),
        };
        let text = out.join().unwrap_or_default();
        if let Some(dir) = out_dir {
            let adir = dir.join("apps");
            std::fs::create_dir_all(&adir)?;
            std::fs::write(
                adir.join(format!("{}.json", xltcp_core::sim::output::sanitize(name))),
                &text,
            )?;
        }
        match (apps::parse_report(&text), at_end) {
            (Ok(r), _) => results.push(Some(r)),
            (Err(e), Some(n)) => {
                warnings.push(format!(
                    "flow {name}: {e}; its retransmissions were read from its socket at the scenario's end"
                ));
                results.push(Some(AppResult {
                    retransmits: n,
                    retransmits_from: Some("socket"),
                    ..AppResult::default()
                }));
            }
            (Err(e), None) => {
                warnings.push(format!(
                    "flow {name}: {e}; its retransmissions are unknown (counted as 0)"
                ));
                results.push(None);
            }
        }
    }
    Ok(results)
}

/// A file flow's result: what its receiver read, its completion if by the
/// scenario's end, its sender's retransmissions and RTT.
fn file_result(
    s: &Scenario,
    i: usize,
    f: FileFlow,
    warnings: &mut Vec<String>,
) -> Option<AppResult> {
    let spec = &s.flows[i];
    match f.finish() {
        Ok((received, sent)) => {
            let end = Time::ZERO + s.sim.duration;
            let start = Time::ZERO + spec.start;
            let completed_s = received
                .completed
                .filter(|&t| t <= end)
                .map(|t| t.saturating_since(start).as_secs_f64());
            Some(AppResult {
                bytes_received: received.bytes,
                seconds: completed_s.unwrap_or(0.0),
                retransmits: sent.retransmits,
                retransmits_from: Some("file"),
                mean_rtt_s: sent.srtt_s,
                completed_s,
            })
        }
        Err(e) => {
            warnings.push(format!("flow {}: {e}", spec.name));
            None
        }
    }
}

fn emulate(
    s: &Scenario,
    seed: u64,
    p: &mut Plumbing,
    opts: &mut EmuOptions<'_>,
    warnings: &mut Vec<String>,
) -> Result<Outcome, EmuError> {
    let _servers = start_servers(s, p)?;
    let mut hop = Hop::new(s, seed);
    if let (Some(air), Some(_)) = (hop.air.as_mut(), opts.out_dir) {
        if air.publishes_signals() {
            air.trace = Some(xltcp_core::signal::SignalLog::new());
        }
    }
    let budget = TraceBudget::new(s.output.budget());
    if let Some(dir) = opts.out_dir {
        std::fs::create_dir_all(dir)?;
        if s.output.pcap {
            let names: Vec<String> = s.flows.iter().map(|f| f.name.clone()).collect();
            let links: Vec<String> = hop.links.iter().map(|l| l.name.clone()).collect();
            let o = &s.output;
            let c = Captures::create(
                dir,
                &names,
                &links,
                o.pcap_point,
                o.pcap_snaplen,
                budget.clone(),
            )?;
            hop.capture = Some(c);
        }
    }
    let cc: Vec<String> = s
        .flows
        .iter()
        .map(|f| {
            opts.cc
                .clone()
                .unwrap_or_else(|| apps::linux_cc(&f.tcp.cc).to_string())
        })
        .collect();
    let (Some(tun_ch), Some(tun_sh)) = (p.tun_ch.take(), p.tun_sh.take()) else {
        return Err(EmuError::Setup("TUN devices missing".into()));
    };
    let blocked_flag = Arc::new(AtomicBool::new(hop.blocked()));
    hop.blocked_flag = Some(blocked_flag.clone());
    let socket = attach_socket(&mut hop, opts.signal_socket)?;
    let stop_dp = AtomicBool::new(false);
    let clock = Clock::start();
    let sampler = opts.out_dir.filter(|_| s.output.timeseries).map(|dir| {
        (
            dir,
            sampler(s, p, &hop, clock, &blocked_flag, &stop_dp, &budget),
        )
    });
    let mut clients: Vec<Option<Client>> = (0..s.flows.len()).map(|_| None).collect();
    let mut interrupted = false;
    let report = std::thread::scope(|scope| -> Result<LoopReport, EmuError> {
        let dp = scope.spawn(|| run_loop(&mut hop, &tun_ch, &tun_sh, &clock, &stop_dp));
        let server = socket.map(|(path, listener, signals, commands)| {
            let capacity_bps = s.wireless.link.rate_bps;
            let server = signals::Server {
                path,
                clock,
                capacity_bps,
                blocked: &blocked_flag,
                signals,
                commands,
                stop: &stop_dp,
            };
            scope.spawn(move || server.serve(listener))
        });
        let series = sampler.map(|(dir, sampler)| scope.spawn(move || sampler.run(dir)));
        let result = control(
            s,
            p,
            opts,
            &clock,
            &cc,
            &mut clients,
            &mut interrupted,
            warnings,
        );
        stop_dp.store(true, Ordering::Release);
        let report = dp
            .join()
            .map_err(|_| EmuError::Setup("data-path thread panicked".into()))?;
        if let Some(h) = series {
            let r = h
                .join()
                .map_err(|_| EmuError::Setup("time-series thread panicked".into()))?;
            if let Some(e) = r.error {
                warnings.push(format!("the time series stopped early: {e}"));
            }
            if r.not_written > 0 {
                warnings.push(format!(
                    "the time series reached the trace budget ([output] max_bytes = {} bytes): {} rows not written",
                    s.output.budget(),
                    r.not_written
                ));
            }
        }
        if let Some(lost) = server.and_then(|h| h.join().ok()).filter(|&n| n > 0) {
            warnings.push(format!(
                "{lost} batches of signal lines were lost to clients not reading"
            ));
        }
        result.map(|_| report)
    })?;
    let counters: Counters = [("ch", Side::Ch), ("sh", Side::Sh)]
        .into_iter()
        .map(|(k, side)| (k.to_string(), plumbing::tcp_counters(p.names.ns(side))))
        .collect();
    let device_drops: std::collections::BTreeMap<String, u64> = [
        ("ch", &p.names.dev_ch, Side::Ch),
        ("sh", &p.names.dev_sh, Side::Sh),
    ]
    .into_iter()
    .map(|(k, dev, side)| (k.to_string(), plumbing::device_drops(p.names.ns(side), dev)))
    .collect();
    drop((tun_ch, tun_sh));
    if device_drops.values().any(|&n| n > 0) {
        warnings.push(format!("the kernel dropped datagrams at the TUN devices before the emulator read them: {device_drops:?}"));
    }
    if interrupted {
        return Err(EmuError::Interrupted);
    }
    if let Some(c) = hop.capture.take() {
        if c.not_written > 0 {
            warnings.push(format!(
                "the captures reached the trace budget ([output] max_bytes = {} bytes): {} records not written",
                s.output.budget(),
                c.not_written
            ));
        }
        c.finish()?;
    }
    if let (Some(dir), Some(log)) = (
        opts.out_dir,
        hop.air.as_ref().and_then(|a| a.trace.as_ref()),
    ) {
        std::fs::write(dir.join("signals.jsonl"), log.to_jsonl())?;
    }
    if let Some(n) = hop.air.as_ref().map(|a| a.not_traced).filter(|&n| n > 0) {
        warnings.push(format!("{n} signals were not kept in signals.jsonl (full)"));
    }
    let results = collect_reports(s, clients, opts.out_dir, warnings)?;
    Ok((hop, report, results, cc, counters))
}

/// The time-series sampler of `s`'s flows (see [`crate::series`]).
fn sampler<'a>(
    s: &Scenario,
    p: &Plumbing,
    hop: &Hop,
    clock: Clock,
    blocked: &'a AtomicBool,
    stop: &'a AtomicBool,
    budget: &TraceBudget,
) -> Sampler<'a> {
    let mut namespaces: Vec<String> = Vec::new();
    let flows = s
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (snd, _) = sides(f.direction);
            let ns = p.names.ns(snd);
            let namespace = namespaces.iter().position(|n| n == ns).unwrap_or_else(|| {
                namespaces.push(ns.to_string());
                namespaces.len() - 1
            });
            SampledFlow {
                name: f.name.clone(),
                namespace,
                addr: host_address(snd, i as u32),
                server_port: apps::PORT,
            }
        })
        .collect();
    Sampler {
        namespaces,
        flows,
        progress: hop.progress(),
        interval: s.sim.sample_interval,
        end: Time::ZERO + s.sim.duration,
        clock,
        blocked,
        stop,
        budget: budget.clone(),
    }
}

/// The control thread's part: starts clients at their times, reports
/// progress, waits for the clients to finish (or the grace period to end).
#[allow(clippy::too_many_arguments)]
fn control(
    s: &Scenario,
    p: &mut Plumbing,
    opts: &mut EmuOptions<'_>,
    clock: &Clock,
    cc: &[String],
    clients: &mut [Option<Client>],
    interrupted: &mut bool,
    warnings: &mut Vec<String>,
) -> Result<(), EmuError> {
    let end = Time::ZERO + s.sim.duration;
    let mut order: Vec<usize> = (0..s.flows.len()).collect();
    order.sort_by_key(|&i| (s.flows[i].start, i));
    let mut next = 0;
    let mut sampled = false;
    let total = s.sim.duration.as_secs_f64();
    loop {
        let now = clock.now();
        let stop = opts.stop.is_some_and(|f| f.load(Ordering::Relaxed));
        let go_on = opts
            .progress
            .as_mut()
            .is_none_or(|cb| cb(now.as_nanos().min(end.as_nanos()) as f64 / 1e9, total));
        if stop || !go_on {
            *interrupted = true;
            return Ok(());
        }
        while next < order.len() && Time::ZERO + s.flows[order[next]].start <= now {
            let i = order[next];
            let f = &s.flows[i];
            let (snd, rcv) = sides(f.direction);
            let (server, bind) = (host_address(rcv, i as u32), host_address(snd, i as u32));
            if let AppSpec::File { bytes } = f.app {
                let at = std::net::SocketAddrV4::new(server, apps::PORT);
                let (rns, sns) = (p.names.ns(rcv), p.names.ns(snd));
                match FileFlow::start(rns, sns, at, bind, bytes, &cc[i], *clock) {
                    Ok(ff) => clients[i] = Some(Client::File(ff)),
                    Err(e) => warnings.push(format!("flow {}: {e}", f.name)),
                }
                next += 1;
                continue;
            }
            let args = apps::client_args(f, s.sim.duration, server, bind, &cc[i]);
            let ns = p.names.ns(snd).to_string();
            let k = p.spawn(&ns, "iperf3", &args)?;
            let c = p.child(k);
            let out = drain(c.stdout.take().expect("piped"), None);
            // Errors go into the JSON report; stderr is only drained.
            drop(drain(c.stderr.take().expect("piped"), None));
            clients[i] = Some(Client::Iperf {
                child: k,
                out,
                at_end: None,
            });
            next += 1;
        }
        if now >= end && !sampled {
            // iperf3 reads its retransmissions from its data socket in its
            // final report; a client that cannot finish its final exchange
            // over the hop gives none, so read them now as well.
            sampled = true;
            for (i, c) in clients.iter_mut().enumerate() {
                if let Some(Client::Iperf { at_end, .. }) = c {
                    let (snd, _) = sides(s.flows[i].direction);
                    *at_end = plumbing::socket_retransmissions(
                        p.names.ns(snd),
                        host_address(snd, i as u32),
                        apps::PORT,
                    );
                }
            }
        }
        let running = clients.iter().flatten().filter(|c| c.running(p)).count();
        if next == order.len() && running == 0 {
            return Ok(());
        }
        if now > end + GRACE {
            warnings.push(format!(
                "{running} application(s) still running {GRACE} after the end: killed"
            ));
            // Ended now, so that reading their output ends.
            for c in clients.iter().flatten() {
                c.kill(p);
            }
            return Ok(());
        }
        let until_next = order.get(next).map_or(Dur::from_millis(100), |&i| {
            (Time::ZERO + s.flows[i].start).saturating_since(now)
        });
        std::thread::sleep(Duration::from_nanos(
            until_next.min(Dur::from_millis(100)).as_nanos(),
        ));
    }
}

#[allow(clippy::too_many_arguments)]
fn build_summary(
    s: &Scenario,
    seed: u64,
    hop: &Hop,
    report: LoopReport,
    apps: &[Option<AppResult>],
    cc: Vec<String>,
    counters: Counters,
    mut warnings: Vec<String>,
) -> Summary {
    if report.lateness.p99_us > LATE_P99_WARN_US {
        warnings.push(format!(
            "the emulation could not keep up: dispatch lateness p99 {:.0} us (median {:.0} us) exceeds {LATE_P99_WARN_US:.0} us",
            report.lateness.p99_us, report.lateness.median_us
        ));
    }
    if hop.agents.host_actions_ignored > 0 {
        warnings.push(format!(
            "{} actions of agents at the hosts could not be carried out on Linux TCP",
            hop.agents.host_actions_ignored
        ));
    }
    let flows = summary::flow_summaries(s, hop, apps, &counters);
    let directions = summary::direction_summaries(s, hop, &flows);
    let blocked = hop.blocked_s();
    let to_s = |t: Time| t.as_nanos() as f64 / 1e9;
    let mut links: Vec<LinkSummary> = hop
        .links
        .iter()
        .map(|l| LinkSummary {
            name: l.name.clone(),
            stats: l.stats,
        })
        .collect();
    if let Some(air) = &hop.air {
        // The wireless directions are the simulator's hops'.
        links.truncate(links.len() - 2);
        for (h, name) in air.hops.iter().zip(&air.names) {
            let [(_, down), (_, up)] = h.link_stats();
            links.push(LinkSummary {
                name: format!("bs-{name}"),
                stats: down,
            });
            links.push(LinkSummary {
                name: format!("{name}-bs"),
                stats: up,
            });
        }
    }
    let strings = |m: &std::collections::BTreeMap<&'static str, u64>| {
        m.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    Summary {
        xltcp_version: env!("CARGO_PKG_VERSION"),
        engine: Some("emu"),
        scenario: scenario::echo(s),
        seed,
        duration_s: s.sim.duration.as_secs_exact(),
        events: hop.counters.events,
        packets: links.iter().map(|l| l.stats.transmitted).sum(),
        wall_seconds: 0.0,
        flows,
        directions,
        links,
        accounting: hop.counters.accounting,
        hop: HopSummary {
            blocked_s: blocked,
            usable_s: s.sim.duration.as_secs_f64() - blocked,
            no_interface: 0,
        },
        hop_sections: Sections(hop.air.iter().filter_map(|a| a.first().section()).collect()),
        more_hops: hop
            .air
            .iter()
            .flat_map(|a| a.hops.iter().zip(&a.names).skip(1))
            .map(|(h, name)| MoreHopSummary {
                name: name.clone(),
                sections: Sections(h.section().into_iter().collect()),
            })
            .collect(),
        signals: hop
            .air
            .as_ref()
            .filter(|a| a.publishes_signals())
            .map(|a| a.signals.clone()),
        output: None,
        agents: hop.agents.sections(),
        local_retransmissions: None,
        emu: Some(EmuDetails {
            cpu_share: if report.wall_s > 0.0 {
                report.cpu_s / report.wall_s
            } else {
                0.0
            },
            datapath: report,
            rejected: strings(&hop.counters.rejected),
            dropped_other: strings(&hop.counters.dropped_other),
            non_tcp_forwarded: hop.counters.non_tcp,
            control_bypassed: hop.counters.control_bypassed,
            sender_freeze: (!hop.agents.commanding_hosts().is_empty()).then_some(hop.freeze),
            hop_drops: hop
                .air
                .as_ref()
                .map(|a| strings(&a.drops))
                .unwrap_or_default(),
            hop_drops_by_hop: hop
                .air
                .iter()
                .filter(|a| a.hops.len() > 1)
                .flat_map(|a| a.names.iter().zip(&a.drops_by_hop))
                .map(|(name, m)| (name.clone(), strings(m)))
                .collect(),
            blocked_intervals: hop
                .blocked_intervals
                .iter()
                .map(|&(a, b)| (to_s(a), to_s(b)))
                .collect(),
            app_bytes: apps
                .iter()
                .map(|a| a.as_ref().map_or(0, |r| r.bytes_received))
                .collect(),
            app_seconds: apps
                .iter()
                .map(|a| a.as_ref().map_or(0.0, |r| r.seconds))
                .collect(),
            retransmissions_from: apps
                .iter()
                .map(|a| {
                    a.as_ref()
                        .and_then(|r| r.retransmits_from)
                        .unwrap_or("unknown")
                        .to_string()
                })
                .collect(),
            linux_tcp: counters,
            linux_cc: cc,
            sysctls: Vec::new(),
            warnings,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::linux_buffer;

    #[test]
    fn rack_cannot_be_turned_off_from_linux_6_17() {
        use super::rack_always_on;
        assert!(rack_always_on("6.18.44-fc-v669"));
        assert!(rack_always_on("6.17.0"));
        assert!(rack_always_on("7.0.1-arch1"));
        assert!(!rack_always_on("6.16.9-200.fc42.x86_64"));
        assert!(!rack_always_on("5.15.0-91-generic"));
        assert!(!rack_always_on(""));
    }

    /// Both hosts' configurations for a one-flow scenario with `sets`.
    fn hosts(sets: &[String]) -> (super::HostConfig, super::HostConfig) {
        let text = "[wired]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[wireless]\nrate = \"5Mbps\"\ndelay = \"5ms\"\n[[flow]]\n";
        let s = xltcp_core::scenario::load_str(text, "t.toml", std::path::Path::new("."), sets)
            .expect("valid");
        super::host_configs(&s)
    }

    #[test]
    fn no_socket_starts_under_a_pacing_congestion_control() {
        let (ch, sh) = hosts(&[]);
        for host in [ch, sh] {
            assert!(host
                .sysctls
                .contains(&"net.ipv4.tcp_congestion_control=reno".to_string()));
        }
    }

    #[test]
    fn linux_times_its_syns_as_the_scenario_says() {
        let sysctls = |sets: &[String]| hosts(sets).1.sysctls;
        if !std::path::Path::new(super::SYN_LINEAR_TIMEOUTS).exists() {
            return; // a kernel before 6.5: every SYN timeout doubles the RTO
        }
        let key = "net.ipv4.tcp_syn_linear_timeouts";
        assert!(sysctls(&[]).contains(&format!("{key}=0")));
        let linux = sysctls(&["tcp.syn_linear_timeouts=4".to_string()]);
        assert!(linux.contains(&format!("{key}=4")));
    }

    #[test]
    fn linux_buffers_leave_room_for_each_segments_overhead() {
        // 256 KiB of 1448-byte segments: 182 segments, 860 B each on top.
        assert_eq!(linux_buffer(256 * 1024, 1448), 417_838);
        // Paper 000's 2 KiB of 94-byte segments: ten times the payload.
        assert_eq!(linux_buffer(2048, 94), 20_786);
        assert_eq!(linux_buffer(0, 1448), 0);
    }
}
