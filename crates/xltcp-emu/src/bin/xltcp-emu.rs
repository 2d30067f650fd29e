//! Runs a scenario through the emulator and prints its summary as JSON
//! (a development aid and the tests' crash target; `xltcp emu` is the user
//! interface).
//!
//! `xltcp-emu SCENARIO [--seed N] [--out DIR] [--set key=value]... [--cc NAME] [--signals SOCKET]`
//!
//! Exit status: 0 done, 2 bad scenario or a machine that cannot host the
//! emulator, 130 stopped by SIGINT/SIGTERM (after teardown), 1 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use xltcp_core::scenario;
use xltcp_emu::{EmuError, EmuOptions};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut path, mut seed, mut out, mut sets, mut cc) = (None, None, None, Vec::new(), None);
    let mut socket: Option<PathBuf> = None;
    let mut sysctls = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()),
            "--out" => out = args.next().map(PathBuf::from),
            "--set" => sets.extend(args.next()),
            "--cc" => cc = args.next(),
            "--signals" => socket = args.next().map(PathBuf::from),
            "--sysctl" => sysctls.extend(args.next()),
            _ => path = Some(PathBuf::from(a)),
        }
    }
    let Some(path) = path else {
        eprintln!(
            "usage: xltcp-emu SCENARIO [--seed N] [--out DIR] [--set key=value]... [--cc NAME] [--signals SOCKET] [--sysctl net.NAME=VALUE]..."
        );
        return ExitCode::from(2);
    };
    let s = match scenario::load_file(&path, &sets) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
    let opts = EmuOptions {
        seed,
        out_dir: out.as_deref(),
        stop: Some(&STOP),
        cc,
        signal_socket: socket.as_deref(),
        sysctls,
        ..Default::default()
    };
    match xltcp_emu::run(&s, opts) {
        Ok(summary) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&summary).expect("serialisable")
            );
            ExitCode::SUCCESS
        }
        Err(e @ (EmuError::Unavailable(_) | EmuError::Unsupported(_))) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(EmuError::Interrupted) => {
            eprintln!("interrupted");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
