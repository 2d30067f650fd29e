//! The scenario's bulk flows as real applications: one iperf3 server on
//! the receiving host and one iperf3 client on the sending host per flow
//! (file flows are the emulator's own two ends, [`crate::fileapp`]).
//!
//! The client sends (no `-R`), so the scenario's direction picks which
//! namespace runs which side; it binds the flow's own address, so the base
//! station tells flows apart by address as the simulator does. A bulk flow
//! runs `-t` whole seconds (iperf3 takes an integer): the scenario's
//! duration minus the flow's start, rounded down, at least 1 s. Goodput is
//! what the server reports it received
//! (`end.sum_received.bytes` of the client's JSON).

use serde_json::Value;
use std::net::Ipv4Addr;
use xltcp_core::scenario::{AppSpec, FlowSpec};
use xltcp_core::time::Dur;

/// The port every flow's server listens on (each flow has its own address).
pub const PORT: u16 = 5201;

/// The Linux congestion control for a scenario's `cc` name.
pub fn linux_cc(cc: &str) -> &str {
    match cc {
        // Linux's "reno" is NewReno-style fast recovery (RFC 6582) when
        // SACK is off, and SACK-based recovery when it is on.
        "newreno" => "reno",
        other => other,
    }
}

/// Arguments of a flow's server.
pub fn server_args(bind: Ipv4Addr) -> Vec<String> {
    [
        "-s",
        "-1",
        "--forceflush",
        "-B",
        &bind.to_string(),
        "-p",
        &PORT.to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// Arguments of a flow's client: send to `server` from `bind` with the
/// Linux congestion control `cc`.
pub fn client_args(
    spec: &FlowSpec,
    duration: Dur,
    server: Ipv4Addr,
    bind: Ipv4Addr,
    cc: &str,
) -> Vec<String> {
    let mut a: Vec<String> = [
        "-c",
        &server.to_string(),
        "-B",
        &bind.to_string(),
        "-p",
        &PORT.to_string(),
        "-J",
    ]
    .map(String::from)
    .to_vec();
    a.extend(["-C".to_string(), cc.to_string()]);
    debug_assert!(matches!(spec.app, AppSpec::Bulk), "file flows run fileapp");
    let secs = (duration.as_nanos().saturating_sub(spec.start.as_nanos()) / 1_000_000_000).max(1);
    a.extend(["-t".to_string(), secs.to_string()]);
    a
}

/// What a client's report says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppResult {
    /// Bytes the server received.
    pub bytes_received: u64,
    /// Seconds the server measured.
    pub seconds: f64,
    /// Retransmitted segments (from the sender's TCP_INFO).
    pub retransmits: u64,
    /// Where `retransmits` comes from: `"iperf3"` (its final report),
    /// `"socket"` (the sender's socket read at the scenario's end, when
    /// iperf3 gave no report), `"file"` (a file flow's sender); `None`:
    /// unknown, counted as 0.
    pub retransmits_from: Option<&'static str>,
    /// Mean RTT the sender saw, seconds (a file flow's: its smoothed RTT
    /// at the end).
    pub mean_rtt_s: Option<f64>,
    /// A file flow's completion, seconds after its start, if its receiver
    /// held the last byte by the scenario's end.
    pub completed_s: Option<f64>,
}

/// Reads an iperf3 client's `-J` report.
pub fn parse_report(text: &str) -> Result<AppResult, String> {
    if text.trim().is_empty() {
        return Err("iperf3 gave no report".into());
    }
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("iperf3 report is not JSON: {e}"))?;
    if let Some(err) = v.get("error").and_then(Value::as_str) {
        return Err(format!("iperf3: {err}"));
    }
    let end = v.get("end").ok_or("iperf3 report has no \"end\"")?;
    let num = |path: &[&str]| -> Option<f64> {
        let mut x = end;
        for k in path {
            x = x.get(k)?;
        }
        x.as_f64()
    };
    let bytes =
        num(&["sum_received", "bytes"]).ok_or("iperf3 report lacks end.sum_received.bytes")?;
    let rtt_us = end
        .get("streams")
        .and_then(|s| s.get(0))
        .and_then(|s| s.get("sender"))
        .and_then(|s| s.get("mean_rtt"))
        .and_then(Value::as_f64);
    Ok(AppResult {
        bytes_received: bytes as u64,
        seconds: num(&["sum_received", "seconds"]).unwrap_or(0.0),
        retransmits: num(&["sum_sent", "retransmits"]).unwrap_or(0.0) as u64,
        retransmits_from: Some("iperf3"),
        mean_rtt_s: rtt_us.map(|us| us / 1e6),
        completed_s: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use xltcp_core::scenario::{Direction, TcpSpec};

    fn flow(app: AppSpec, start: Dur) -> FlowSpec {
        FlowSpec {
            name: "f".into(),
            direction: Direction::Down,
            app,
            start,
            tcp: TcpSpec::default(),
            host: None,
            link_overhead: 0,
        }
    }

    #[test]
    fn bulk_clients_run_whole_seconds_after_their_start() {
        let a = client_args(
            &flow(AppSpec::Bulk, Dur::from_millis(1500)),
            Dur::from_secs(10),
            Ipv4Addr::new(10, 2, 0, 1),
            Ipv4Addr::new(10, 1, 0, 1),
            "reno",
        );
        assert_eq!(
            a.join(" "),
            "-c 10.2.0.1 -B 10.1.0.1 -p 5201 -J -C reno -t 8"
        );
    }

    #[test]
    fn newreno_runs_as_linux_reno_and_other_names_pass_through() {
        assert_eq!(linux_cc("newreno"), "reno");
        assert_eq!(linux_cc("cubic"), "cubic");
    }

    #[test]
    fn reports_give_received_bytes_and_retransmissions() {
        let text = r#"{"end":{"sum_sent":{"bytes":10,"retransmits":3},"sum_received":{"bytes":9,"seconds":2.0},
            "streams":[{"sender":{"mean_rtt":25000}}]}}"#;
        let r = parse_report(text).unwrap();
        assert_eq!(
            r,
            AppResult {
                bytes_received: 9,
                seconds: 2.0,
                retransmits: 3,
                retransmits_from: Some("iperf3"),
                mean_rtt_s: Some(0.025),
                completed_s: None,
            }
        );
    }

    #[test]
    fn iperf3_errors_are_reported() {
        assert_eq!(
            parse_report(r#"{"error":"unable to connect"}"#),
            Err("iperf3: unable to connect".into())
        );
        assert!(parse_report("garbage").is_err());
        assert_eq!(parse_report("\n"), Err("iperf3 gave no report".into()));
    }
}
