//! One emulator run from start to end: checks, plumbing, servers, the
//! data-path thread, clients at their start times, results, teardown.

use crate::apps::{self};
use crate::bridge::{run_loop, LoopReport};
use crate::capture::{Captures, TraceBudget};
use crate::clock::Clock;
use crate::fileapp::FileFlow;
use crate::hop::{host_address, Hop};
use crate::plumbing::{self, Names, Plumbing};
use crate::series::{SampledFlow, Sampler};
use crate::signals;
use crate::EmuError;
use hosts::host_configs;
use hosts::namespace_wide_warnings;
use processes::attach_socket;
use processes::collect_reports;
use processes::drain;
use processes::sides;
use processes::start_servers;
use processes::Client;
use processes::Counters;
use processes::Outcome;
use report::build_summary;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use xltcp_core::scenario::{AppSpec, Scenario};
use xltcp_core::sim::flow::Side;
use xltcp_core::sim::Summary;
use xltcp_core::time::{Dur, Time};

mod hosts;
mod processes;
mod report;

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
