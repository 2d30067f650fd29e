//! Shared helpers of the emulator's integration tests.
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use xltcp_core::scenario::{load_str, Scenario};

/// Namespaces are named after the process: one emulation at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Whether the emulator can run here; prints why not when it cannot.
pub fn emu_or_skip(test: &str) -> Option<MutexGuard<'static, ()>> {
    match xltcp_emu::plumbing::preflight() {
        Ok(()) => Some(ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())),
        Err(e) => {
            eprintln!("skipped {test}: {e}");
            None
        }
    }
}

/// A scenario from TOML text.
pub fn scenario(text: &str) -> Scenario {
    load_str(text, "test.toml", Path::new("."), &[]).expect("valid test scenario")
}

/// Records of a capture: (timestamp ns, captured bytes). Both engines
/// write pcapng, whose records with a comment (a drop's record, not a
/// transmission) are left out; a classic nanosecond pcap is read too.
pub fn pcap_records(path: &Path) -> Vec<(u64, Vec<u8>)> {
    let data = std::fs::read(path).expect("pcap readable");
    if data.starts_with(&0x0A0D_0D0Au32.to_le_bytes()) {
        return pcapng_transmissions(&data);
    }
    assert_eq!(
        u32::from_le_bytes(data[0..4].try_into().unwrap()),
        0xa1b2_3c4d,
        "nanosecond pcap"
    );
    let mut at = 24;
    let mut out = Vec::new();
    while at + 16 <= data.len() {
        let word =
            |k: usize| u32::from_le_bytes(data[at + k..at + k + 4].try_into().unwrap()) as u64;
        let (sec, ns, len) = (word(0), word(4), word(8) as usize);
        out.push((
            sec * 1_000_000_000 + ns,
            data[at + 16..at + 16 + len].to_vec(),
        ));
        at += 16 + len;
    }
    out
}

/// The emulator's namespaces currently present for process `pid`.
pub fn namespaces_of(pid: u32) -> Vec<String> {
    xltcp_emu::plumbing::emulator_namespaces()
        .into_iter()
        .filter(|(_, p)| *p == pid)
        .map(|(n, _)| n)
        .collect()
}

/// The records of a pcapng stream (nanosecond timestamps, as the simulator
/// writes them) that carry no comment.
fn pcapng_transmissions(b: &[u8]) -> Vec<(u64, Vec<u8>)> {
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    let mut at = 0;
    while at + 12 <= b.len() {
        let (kind, len) = (word(at), word(at + 4));
        if kind == 6 {
            let caplen = word(at + 20);
            let ts = ((word(at + 12) as u64) << 32) | word(at + 16) as u64;
            let data = &b[at + 28..at + 28 + caplen];
            // Options follow the padded data; a comment is option code 1.
            let opts = at + 28 + ((caplen + 3) & !3);
            let commented = opts + 4 <= at + len - 4 && b[opts] == 1 && b[opts + 1] == 0;
            if !commented {
                out.push((ts, data.to_vec()));
            }
        }
        at += len;
    }
    out
}

/// The fields `fields` of every record of `path` (matching the display
/// filter `filter`, if any) as tshark decodes them, one row per record;
/// `None` (with a printed reason) when tshark is not installed. Panics
/// when tshark cannot read the file.
pub fn tshark(path: &Path, fields: &[&str], filter: Option<&str>) -> Option<Vec<Vec<String>>> {
    let mut cmd = std::process::Command::new("tshark");
    cmd.arg("-r")
        .arg(path)
        .args(["-T", "fields", "-E", "separator=\t"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    if let Some(f) = filter {
        cmd.args(["-Y", f]);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("tshark checks skipped: {e}");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "tshark -r {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("tshark prints UTF-8");
    Some(
        text.lines()
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect(),
    )
}

/// A run's warnings but the kernel's note that it runs RACK whatever
/// `tcp.rack` says (every run with SACK on Linux 6.17 or later).
pub fn warnings_but_rack(warnings: &[String]) -> Vec<String> {
    warnings
        .iter()
        .filter(|w| !w.starts_with("tcp.rack = false is not honoured"))
        .cloned()
        .collect()
}
