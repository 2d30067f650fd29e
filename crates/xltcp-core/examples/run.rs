//! Runs a scenario file and prints its summary as JSON (a development aid;
//! the `xltcp` command is the user interface).
//!
//! `cargo run --release --example run -- SCENARIO [--seed N] [--out DIR] [--set key=value]... [--threads N]`
//!
//! `--threads N` is `--set sim.threads=N` (with 2, also `--set
//! output.timeseries=false`: a run on two threads writes no time series).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use xltcp_core::{scenario, sim};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut path, mut seed, mut out, mut sets) = (None, None, None, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => match args.next().map(|s| s.parse::<u64>()) {
                Some(Ok(n)) => seed = Some(n),
                _ => {
                    eprintln!("--seed: expected an integer in 0..=18446744073709551615");
                    return ExitCode::from(2);
                }
            },
            "--threads" => match args.next() {
                Some(n) => {
                    sets.push(format!("sim.threads={n}"));
                    if n == "2" {
                        sets.push("output.timeseries=false".into());
                    }
                }
                None => {
                    eprintln!("--threads: expected 1 or 2");
                    return ExitCode::from(2);
                }
            },
            "--out" | "--set" => {
                let Some(v) = args.next() else {
                    eprintln!("{a}: expected a value");
                    return ExitCode::from(2);
                };
                if a == "--out" {
                    out = Some(PathBuf::from(v));
                } else {
                    sets.push(v);
                }
            }
            _ if a.starts_with("--") => {
                eprintln!("{a}: unknown option (allowed: --seed, --out, --set, --threads)");
                return ExitCode::from(2);
            }
            _ => path = Some(PathBuf::from(a)),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: run SCENARIO [--seed N] [--out DIR] [--set key=value]... [--threads N]");
        return ExitCode::from(2);
    };
    let s = match scenario::load_file(&path, &sets) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    // A tool, not the core: it may read the wall clock to report the cost.
    #[allow(clippy::disallowed_methods)]
    let epoch = std::time::Instant::now();
    let clock = move || epoch.elapsed().as_secs_f64();
    let opts = sim::RunOptions {
        seed,
        out_dir: out.as_deref(),
        wall_clock: Some(&clock),
        ..Default::default()
    };
    match sim::run(&s, opts) {
        Ok(summary) => {
            let text = serde_json::to_string_pretty(&summary).expect("serialisable");
            // A reader that stopped early (`| head`) is not the run's failure.
            let _ = writeln!(std::io::stdout().lock(), "{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
