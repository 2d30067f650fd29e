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

/// Records of a pcap file: (timestamp ns, captured bytes).
pub fn pcap_records(path: &Path) -> Vec<(u64, Vec<u8>)> {
    let data = std::fs::read(path).expect("pcap readable");
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
