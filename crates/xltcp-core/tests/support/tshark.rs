//! Running `tshark` on pcap files a test wrote, to check them against
//! Wireshark's dissectors: nothing malformed, no error-level expert info,
//! and the header fields read back as written.
//!
//! tshark is optional: a test calls [`skip_without_tshark`] first and
//! returns early (printing why) when it is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Preferences every run uses: verify both checksums (a bad one is then an
/// error-level expert item), absolute sequence numbers, no name lookups.
const COMMON_ARGS: &[&str] = &[
    "-n",
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "tcp.check_checksum:TRUE",
    "-o",
    "tcp.relative_sequence_numbers:FALSE",
];

/// The display filter of what must never appear in a trace xltcp writes.
pub const PROBLEM_FILTER: &str = "_ws.malformed || _ws.expert.severity >= error";

/// Whether `tshark` runs on this machine.
pub fn tshark_available() -> bool {
    Command::new("tshark")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// True (after printing the reason) when `test` must be skipped because
/// tshark is missing.
pub fn skip_without_tshark(test: &str) -> bool {
    if tshark_available() {
        return false;
    }
    println!("skipping {test}: tshark is not on PATH (apt-get install tshark)");
    true
}

/// A path for a scratch file of this test binary.
pub fn scratch_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Runs tshark on `pcap` with `args` after the common preferences and
/// returns its standard output. Panics (failing the test) if tshark exits
/// with an error.
pub fn run(pcap: &Path, args: &[&str]) -> String {
    let out = Command::new("tshark")
        .args(COMMON_ARGS)
        .arg("-r")
        .arg(pcap)
        .args(args)
        .output()
        .expect("tshark could not be started");
    assert!(
        out.status.success(),
        "tshark failed on {}: {}",
        pcap.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("tshark printed non-UTF-8")
}

/// The values of `fields` for every packet that passes `filter` (all
/// packets when empty): one row per packet, one string per field, several
/// occurrences of a field joined by commas.
pub fn fields(pcap: &Path, filter: &str, fields: &[&str]) -> Vec<Vec<String>> {
    let mut args = vec!["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"];
    args.extend(["-E", "aggregator=,"]);
    for f in fields {
        args.extend(["-e", f]);
    }
    if !filter.is_empty() {
        args.extend(["-Y", filter]);
    }
    run(pcap, &args)
        .lines()
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// One line per packet that is malformed or carries an error-level expert
/// item (frame number, expert messages, summary); empty for a clean trace.
pub fn problems(pcap: &Path) -> Vec<String> {
    let rows = fields(
        pcap,
        PROBLEM_FILTER,
        &["frame.number", "_ws.expert.message", "_ws.col.Info"],
    );
    rows.into_iter().map(|r| r.join(" | ")).collect()
}

/// Parses a number tshark printed in decimal or as `0x...` hex.
pub fn number(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .unwrap_or_else(|_| panic!("tshark printed {s:?}, not a number"))
}
