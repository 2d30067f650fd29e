//! File transfers are measured over their own active time: goodput from
//! start to completion, an efficiency against the rate the links allowed
//! while the transfer ran (not 100 % for every transfer that completes).

use std::path::Path;
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions};

fn scenario_text(blocked: &str) -> String {
    format!(
        r#"
[sim]
duration = "20s"
[wired]
rate = "100Mbps"
delay = "10ms"
[wireless]
rate = "2Mbps"
delay = "5ms"
{blocked}
[[flow]]
name = "file"
app = "file"
size = "500KB"
start = "1s"
[[flow]]
name = "bulk"
direction = "up"
"#
    )
}

fn run(blocked: &str) -> sim::Summary {
    let s = scenario::load_str(&scenario_text(blocked), "f.toml", Path::new("."), &[]).unwrap();
    sim::run(&s, RunOptions::default()).unwrap()
}

#[test]
fn a_file_flow_is_measured_over_its_transfer() {
    let summary = run("");
    let f = &summary.flows[0];
    let done = f.completion_s.expect("the file completes");
    assert!(done < 10.0, "{done}");
    assert_eq!(f.active_s, done);
    let bits = f.bytes_delivered as f64 * 8.0;
    assert_eq!(f.bytes_delivered, 500_000);
    assert_eq!(f.active_goodput_bps, bits / done);
    assert_eq!(f.goodput_bps, bits / 20.0);
    assert!(f.active_goodput_bps > 2.0 * f.goodput_bps);
    // The links allowed more than the transfer reached (slow start, the
    // handshake): an efficiency below one, and what the ratio says.
    assert!(f.active_goodput_bps < f.active_oracle_bps);
    assert_eq!(f.efficiency, f.active_goodput_bps / f.active_oracle_bps);
    assert!(f.efficiency > 0.1 && f.efficiency < 1.0, "{}", f.efficiency);
    // A bulk flow keeps goodput / oracle over the run, active the whole run.
    let b = &summary.flows[1];
    assert_eq!(b.active_s, 20.0);
    assert_eq!(b.efficiency, b.goodput_bps / b.oracle_bps);
    assert!(b.completion_s.is_none());
}

#[test]
fn blocked_time_during_the_transfer_lowers_its_bound() {
    let open = run("");
    let blocked =
        run("[wireless.availability]\nmodel = \"intervals\"\nintervals = [[\"2s\", \"3s\"]]\n");
    let (a, b) = (&open.flows[0], &blocked.flows[0]);
    assert!(b.active_s > a.active_s);
    // The bound counts the usable second only: (active - 1 s) of the hop.
    let hop_rate_open = a.active_oracle_bps;
    let expected = hop_rate_open * (b.active_s - 1.0) / b.active_s;
    assert!(
        (b.active_oracle_bps - expected).abs() < 1e-6 * expected,
        "{} {expected}",
        b.active_oracle_bps
    );
}
