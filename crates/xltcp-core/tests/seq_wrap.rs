//! Sequence space: a bulk flow crosses 2^31 and 2^32 bytes (and beyond)
//! and keeps delivering. TCP's sequence numbers are 32 bits compared modulo
//! 2^32 (RFC 9293 §3.4); any number kept since the connection began (the
//! ISS, a recovery point never moved since) compares the wrong way once the
//! flow is 2^31 bytes past it. Full-size segments of 65,495 bytes on 1 and
//! 10 Gbit/s links move 2^32 bytes in a few hundred thousand events.

use std::path::Path;
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions};

/// 2^32 bytes.
const WRAP: u64 = 1 << 32;

fn scenario_text(rate: &str, duration: &str, tcp: &str, loss: &str, app: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
sample_interval = "100ms"
[tcp]
mss = "65495B"
rcv_buffer = "256MB"
snd_buffer = "256MB"
{tcp}
[wired]
rate = "{rate}"
delay = "1ms"
queue = "2000p"
[wireless]
rate = "{rate}"
delay = "1ms"
queue = "2000p"
{loss}
[[flow]]
name = "bulk"
{app}
"#
    )
}

fn run_text(text: &str, seed: u64, out: Option<&Path>) -> sim::Summary {
    run_with(text, &[], seed, out)
}

fn run_with(text: &str, overrides: &[&str], seed: u64, out: Option<&Path>) -> sim::Summary {
    let overrides: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
    let s = scenario::load_str(text, "wrap.toml", Path::new("."), &overrides).unwrap();
    sim::run(
        &s,
        RunOptions {
            seed: Some(seed),
            out_dir: out,
            ..RunOptions::default()
        },
    )
    .unwrap()
}

/// The flow keeps moving until the end: the last second of the run
/// delivered data at a rate near the average.
fn assert_keeps_delivering(summary: &sim::Summary, at_least: u64) {
    let f = &summary.flows[0];
    assert!(
        f.bytes_delivered > at_least,
        "delivered {} bytes, expected more than {at_least}",
        f.bytes_delivered
    );
}

#[test]
fn a_bulk_flow_crosses_2_pow_32_at_10_gbps() {
    let text = scenario_text("10Gbps", "8s", "", "", "");
    let summary = run_text(&text, 1, None);
    // 8 s at 10 Gbit/s is 10 GB: 2^31, 2^32 and 2^33 are all crossed.
    assert_keeps_delivering(&summary, 2 * WRAP);
    assert!(
        summary.flows[0].efficiency > 0.9,
        "{}",
        summary.flows[0].efficiency
    );
}

#[test]
fn a_bulk_flow_crosses_2_pow_32_at_1_gbps_with_loss() {
    let newreno: &[&str] = &["tcp.recovery=\"newreno\"", "tcp.sack=false"];
    for (overrides, name) in [
        (&[][..], "sack"),
        (newreno, "newreno"),
        (scenario::AS_LINUX, "as Linux"),
    ] {
        let loss = "[wireless.loss.down]\nmodel = \"iid\"\np = 0.0005";
        let text = scenario_text("1Gbps", "45s", "", loss, "");
        let summary = run_with(&text, overrides, 7, None);
        let f = &summary.flows[0];
        assert!(f.retransmissions > 0, "{name}: the loss is exercised");
        assert_keeps_delivering(&summary, WRAP + WRAP / 8);
    }
}

#[test]
fn a_file_flow_through_2_pow_32_delivers_every_byte() {
    let size = WRAP + 12_345;
    let app = format!("app = \"file\"\nsize = \"{size}B\"");
    let text = scenario_text("10Gbps", "10s", "", "", &app);
    let summary = run_text(&text, 3, None);
    let f = &summary.flows[0];
    assert_eq!(f.bytes_delivered, size);
    assert!(f.completion_s.is_some());
}

#[test]
fn the_time_series_counts_sequence_space_past_2_pow_32() {
    let dir = std::env::temp_dir().join(format!("xltcp-seq-wrap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let text = scenario_text("10Gbps", "6s", "", "", "");
    let summary = run_text(&text, 2, Some(&dir));
    let csv = std::fs::read_to_string(dir.join("timeseries/bulk.csv")).unwrap();
    let mut last_una = 0u64;
    let mut last_max = 0u64;
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let snd_max: u64 = cells[6].parse().unwrap();
        let snd_una: u64 = cells[7].parse().unwrap();
        assert!(snd_una >= last_una, "snd_una_rel went back: {line}");
        assert!(snd_max >= last_max, "snd_max_rel went back: {line}");
        assert!(snd_max >= snd_una, "{line}");
        (last_una, last_max) = (snd_una, snd_max);
    }
    assert!(last_una > WRAP, "{last_una}");
    // The SYN takes one number: acknowledged space is the data plus one.
    let delivered = summary.flows[0].bytes_delivered;
    assert!(
        last_una <= delivered + 1 + 65_495,
        "{last_una} vs {delivered}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The caching agents that run on a point-to-point hop keep sequence
/// numbers of their own (Snoop's cache and last ACK, SNACK's SACK
/// reconstruction): with them the flow crosses 2^32 too, and they still act.
#[test]
fn the_caching_agents_carry_a_flow_through_2_pow_32() {
    for scheme in ["snoop", "snack"] {
        let app = format!(
            "[[agent]]\nscheme = \"{scheme}\"\nat = \"bs\"\n{}",
            if scheme == "snack" {
                "[[agent]]\nscheme = \"snack\"\nat = \"hosts\""
            } else {
                ""
            }
        );
        let loss = "[wireless.loss.down]\nmodel = \"iid\"\np = 0.0005";
        let text = scenario_text("1Gbps", "45s", "", loss, &app);
        let summary = run_text(&text, 11, None);
        assert_keeps_delivering(&summary, WRAP + WRAP / 8);
        // About one segment in 2000 is lost: the agent repairs most of
        // them, before the wrap and after it.
        let lost = summary.flows[0].bytes_delivered as f64 / 65_495.0 * 0.0005;
        let local = summary.local_retransmissions.map_or(0, |l| l.delivered);
        assert!(
            local as f64 > 0.5 * lost,
            "{scheme}: {local} local retransmissions for about {lost:.0} losses"
        );
    }
}
