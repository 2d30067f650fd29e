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

/// What tshark reads of one TCP packet: the fields a simulator trace is
/// checked on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpRow {
    /// Capture time in nanoseconds (from `frame.time_epoch`).
    pub time_ns: u64,
    /// TCP source port.
    pub src_port: u16,
    /// TCP destination port.
    pub dst_port: u16,
    /// Absolute sequence number.
    pub seq: u32,
    /// Absolute acknowledgment number.
    pub ack: u32,
    /// Payload bytes (from the IPv4 total length, so also when cut).
    pub len: u32,
    /// The TCP flags byte.
    pub flags: u8,
    /// The window field as on the wire (unscaled).
    pub window: u16,
}

/// One [`TcpRow`] per TCP packet of `pcap`, in capture order.
pub fn tcp_rows(pcap: &Path) -> Vec<TcpRow> {
    let names = [
        "frame.time_epoch",
        "tcp.srcport",
        "tcp.dstport",
        "tcp.seq_raw",
        "tcp.ack_raw",
        "tcp.len",
        "tcp.flags",
        "tcp.window_size_value",
    ];
    fields(pcap, "tcp", &names)
        .iter()
        .map(|r| TcpRow {
            time_ns: epoch_ns(&r[0]),
            src_port: number(&r[1]) as u16,
            dst_port: number(&r[2]) as u16,
            seq: number(&r[3]) as u32,
            ack: number(&r[4]) as u32,
            len: number(&r[5]) as u32,
            flags: number(&r[6]) as u8,
            window: number(&r[7]) as u16,
        })
        .collect()
}

/// Parses `frame.time_epoch` ("seconds.nanoseconds") to nanoseconds.
pub fn epoch_ns(s: &str) -> u64 {
    let (secs, frac) = s.split_once('.').unwrap_or((s, "0"));
    let frac = format!("{frac:0<9}");
    number(secs) * 1_000_000_000 + number(&frac[..9])
}
