//! `[output] max_bytes` bounds everything a run writes together: time
//! series, captures and the signal log (`signals.jsonl`).

use std::path::{Path, PathBuf};
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions};

/// Two 802.11 hops whose SNR reports (every 100 us, both ends) feed the
/// UCL's halves: a run of a few seconds logs megabytes of signals.
const SCENARIO: &str = r#"
[sim]
duration = "2s"

[wired]
rate = "100Mbps"
delay = "1ms"

[[wireless]]
name = "a"
kind = "wifi"
standard = "11a"
rate = "54Mbps"
snr_report = "100us"
[wireless.snr]
mean_db = 30

[[wireless]]
name = "b"
kind = "wifi"
standard = "11b"
rate = "11Mbps"
snr_report = "100us"
[wireless.snr]
mean_db = 40

[output]
pcap = true

[[flow]]
name = "ftp"

[[agent]]
scheme = "ucl"
at = "bs"

[[agent]]
scheme = "ucl"
at = "hosts"
"#;

fn folder_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        total += if meta.is_dir() {
            folder_bytes(&entry.path())
        } else {
            meta.len()
        };
    }
    total
}

#[test]
fn the_signal_log_shares_the_trace_budget() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("budget-signals");
    let _ = std::fs::remove_dir_all(&dir);
    let budget = 300_000;
    let sets = vec![format!("output.max_bytes={budget}")];
    let s = scenario::load_str(SCENARIO, "signals.toml", Path::new("."), &sets).expect("valid");
    let summary = sim::run(
        &s,
        RunOptions {
            seed: Some(1),
            out_dir: Some(&dir),
            ..RunOptions::default()
        },
    )
    .expect("run");
    let cut = summary.output.expect("the budget was reached");
    assert!(cut.signals_not_logged > 0, "{cut:?}");
    let signals = std::fs::metadata(dir.join("signals.jsonl")).unwrap().len();
    assert!(signals > 0, "some signals are logged");
    // The whole folder, summary.json and the traces' headers included.
    let written = folder_bytes(&dir);
    assert!(written <= budget, "{written} bytes written");
}
