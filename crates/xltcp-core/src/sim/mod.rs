//! The deterministic discrete-event simulator.
//!
//! [`run`] builds a [`World`] from a validated scenario and a seed, runs it
//! to the scenario's end and returns its [`Summary`]; with an output folder
//! it also writes `summary.json`, per-flow time series and optional pcaps.

pub mod agents;
pub mod emu_section;
pub mod engine;
pub mod flow;
pub mod oracle;
pub mod output;
pub mod rto_cause;
pub mod split;
pub mod summary;
pub mod topology;
pub mod world;

pub use summary::{direction_summaries, DirectionSummary, FlowSummary, LinkSummary, Summary};
pub use world::{Accounting, World};

use crate::scenario::{self, Scenario};
use crate::time::Time;
use output::Output;
use std::path::Path;

/// How to run a scenario.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Seed; `None` = the scenario's `[sim] seed`.
    pub seed: Option<u64>,
    /// Folder for `summary.json`, time series and pcaps; `None` = write nothing.
    pub out_dir: Option<&'a Path>,
    /// Called about a hundred times with (simulated time done, total);
    /// returning false stops the run (it then fails with `Interrupted`).
    pub progress: Option<&'a mut dyn FnMut(Time, Time) -> bool>,
    /// Reads a wall clock in seconds, to report the run's cost; the core
    /// itself never reads one.
    pub wall_clock: Option<&'a dyn Fn() -> f64>,
}

/// The most signals a run logs (the log is kept in memory until the end).
pub const SIGNAL_LOG_MAX: u64 = 1 << 20;

/// What the simulator refuses in a valid scenario (the loader accepts it
/// because the emulator runs it): a congestion control the endpoint does
/// not model ([`crate::tcp::CcAlgorithm::ALL`]; today it models every name
/// the loader knows, and the check guards a name the emulator gains
/// first), and what a run on two threads does not cover
/// ([`split::supported`]). `run` makes this check first; `xltcp validate` makes it too, so
/// a scenario that validates also runs.
pub fn check(scenario: &Scenario) -> Result<(), String> {
    let modelled = |cc: &str| crate::tcp::CcAlgorithm::from_name(cc).is_some();
    if scenario.sim.threads == 2 {
        split::supported(scenario)?;
    }
    match scenario.flows.iter().find(|f| !modelled(&f.tcp.cc)) {
        Some(f) => {
            let names: Vec<&str> = crate::tcp::CcAlgorithm::ALL.iter().map(|a| a.0).collect();
            Err(format!(
                "flow {}: tcp.cc = \"{}\" runs only in the emulator (xltcp emu); \
                 the simulator models {}",
                f.name,
                f.tcp.cc,
                names.join(", ")
            ))
        }
        None => Ok(()),
    }
}

/// Runs `scenario` to its end.
///
/// Errors: `Unsupported` for a scenario the simulator does not model (a
/// congestion control only the emulator has), `Interrupted` when `progress`
/// stopped the run, and I/O errors of the output folder.
pub fn run(scenario: &Scenario, opts: RunOptions<'_>) -> std::io::Result<Summary> {
    if let Err(msg) = check(scenario) {
        return Err(std::io::Error::new(std::io::ErrorKind::Unsupported, msg));
    }
    if scenario.sim.threads == 2 {
        return split::run(scenario, opts);
    }
    let seed = opts.seed.unwrap_or(scenario.sim.seed);
    let output = match opts.out_dir {
        None => Output::none(),
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            let names: Vec<String> = scenario.flows.iter().map(|f| f.name.clone()).collect();
            Output::create(
                dir,
                &names,
                scenario.output.timeseries,
                scenario.sim.sample_interval.as_secs_f64(),
            )?
        }
    };
    let started = opts.wall_clock.map(|c| c());
    let mut world = World::new(scenario.clone(), seed, output);
    let budget = scenario.output.budget();
    world.output.limit(budget);
    if opts.out_dir.is_some() {
        // `[output] max_bytes` bounds the whole results folder: the traces
        // get what is left after the run's other files.
        world.output.reserve(reserved_bytes(scenario));
    }
    if world.availability.blocked() {
        // Blocked from the start: `events.csv` opens with it.
        world.output.hop_blocked(Time::ZERO, true);
    }
    // The signal log shares the budget line by line (`Output::admit_signal`);
    // its records stay in memory until the end: at most SIGNAL_LOG_MAX.
    world.signal_log_max = (budget / 64).min(SIGNAL_LOG_MAX) as usize;
    if let (Some(dir), true) = (opts.out_dir, scenario.output.pcap) {
        let points = world.capture_points();
        let o = &scenario.output;
        world
            .output
            .open_pcaps(dir, o.pcap_snaplen, o.pcap_point, &points)?;
        if let Some(link) = crate::hop::Hop::air_link_type(&world.hops[0]) {
            world
                .output
                .open_air(dir, scenario.output.pcap_snaplen, link)?;
        }
    }
    if opts.out_dir.is_some() && world.hops.iter().any(crate::hop::Hop::publishes_signals) {
        world.signal_log = Some(crate::signal::SignalLog::new());
    }
    if !world.run(opts.progress) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            "run interrupted",
        ));
    }
    world.output.finish()?;
    let mut summary = world.summary(scenario::echo(scenario));
    if let (Some(clock), Some(t0)) = (opts.wall_clock, started) {
        summary.wall_seconds = clock() - t0;
    }
    if let Some(dir) = opts.out_dir {
        write_summary(dir, &summary)?;
        if let Some(log) = &world.signal_log {
            std::fs::write(dir.join("signals.jsonl"), log.to_jsonl())?;
        }
    }
    Ok(summary)
}

/// What a run's results folder holds besides the records of its traces,
/// at most: `summary.json` (the scenario's echo, twice over for its deeper
/// indentation, and a few KiB per flow and agent for their metrics), the
/// traces' headers (CSV header lines, pcapng section and interface blocks)
/// and the command's `manifest.json` and `run.log`. Set aside from
/// `[output] max_bytes` so that the whole folder stays within it.
pub fn reserved_bytes(scenario: &Scenario) -> u64 {
    let echo = serde_json::to_string_pretty(&scenario::echo(scenario)).map_or(0, |t| t.len());
    let parts = (scenario.flows.len() + scenario.agents.len()) as u64;
    2 * echo as u64 + 4096 * parts + (32 << 10)
}

/// Writes `dir/summary.json` (pretty, newline-terminated).
pub fn write_summary(dir: &Path, summary: &Summary) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(summary).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(dir.join("summary.json"), text)
}
