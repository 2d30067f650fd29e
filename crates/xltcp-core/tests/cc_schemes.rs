//! Every cross-layer scheme composes with every congestion control the
//! endpoint runs: each paper's scheme preset, shortened to 20 s, runs with
//! each `tcp.cc`, delivers data, keeps its packet accounting balanced, the
//! scheme still acts (its own counters move), and the congestion control
//! takes effect (the flow's run differs from NewReno's).

use serde_json::Value;
use xltcp_core::scenario;
use xltcp_core::sim::output::Output;
use xltcp_core::sim::World;
use xltcp_core::tcp::CcAlgorithm;

/// A scheme preset and the test that its scheme acted in a run.
struct Case {
    preset: &'static str,
    acted: fn(&Value) -> bool,
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

const CASES: &[Case] = &[
    // Paper 000: the CR-aware sender freezes during primary-user blockages,
    // and SACK-based local recovery repairs holes from the BS.
    Case {
        preset: "byun2016/tcp-lr-cr.toml",
        acted: |s| n(&s["cr_aware"]["freezes"]) > 0 && n(&s["local_recovery"]["reports_sent"]) > 0,
    },
    // Paper 001: DSASync buffers and paces across blackouts.
    Case {
        preset: "dsasync/dsasync-down.toml",
        acted: |s| n(&s["dsasync"]["accepted"]) > 0 && n(&s["dsasync"]["paced"]) > 0,
    },
    // Paper 002: Snoop, SNACK and C-Snoop resend locally.
    Case {
        preset: "kim-chung/snoop-down.toml",
        acted: |s| n(&s["local_retransmissions"]["delivered"]) > 0,
    },
    Case {
        preset: "kim-chung/snack-down.toml",
        acted: |s| n(&s["local_retransmissions"]["delivered"]) > 0,
    },
    Case {
        preset: "kim-chung/c-snoop-down.toml",
        acted: |s| {
            let by = &s["c_snoop"]["local_retransmissions"];
            n(&by["undelivered"]) + n(&by["delivered_priority"]) > 0
        },
    },
    // Paper 003: the convergence layer switches interfaces on a walk.
    Case {
        preset: "ucl/moving-ucl-ours.toml",
        acted: |s| n(&s["ucl"]["switches"]) > 0,
    },
    // Paper 004: CLAMP and L2-CLAMP control the receiver's window; L2-CLAMP
    // makes the ACKs at the BS.
    Case {
        preset: "l2clamp/clamp.toml",
        acted: |s| n(&s["clamp"]["windows_clamped"]) > 0,
    },
    Case {
        preset: "l2clamp/l2clamp.toml",
        acted: |s| n(&s["l2clamp"]["acks_made"]) > 0,
    },
];

fn run(preset: &str, cc: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(preset);
    let overrides = vec!["sim.duration=20s".to_string(), format!("tcp.cc={cc}")];
    let s = scenario::load_file(&path, &overrides)
        .unwrap_or_else(|e| panic!("{preset} with tcp.cc={cc}: {e}"));
    let mut w = World::new(s.clone(), 1, Output::none());
    assert!(w.run(None), "{preset} with tcp.cc={cc} did not finish");
    let sum = w.summary(scenario::echo(&s));
    assert!(
        sum.accounting.balances(),
        "{preset} with tcp.cc={cc}: {:?}",
        sum.accounting
    );
    serde_json::to_value(&sum).unwrap()
}

#[test]
fn every_scheme_runs_with_every_congestion_control() {
    let mut failures = Vec::new();
    for case in CASES {
        let reno = run(case.preset, "newreno");
        for &(name, _) in CcAlgorithm::ALL {
            let s = if name == "newreno" {
                reno.clone()
            } else {
                run(case.preset, name)
            };
            let flows = s["flows"].as_array().expect("flows");
            let delivered: u64 = flows.iter().map(|f| n(&f["bytes_delivered"])).sum();
            if delivered == 0 {
                failures.push(format!("{} with {name}: nothing delivered", case.preset));
            }
            if !(case.acted)(&s) {
                failures.push(format!(
                    "{} with {name}: the scheme did not act",
                    case.preset
                ));
            }
            if name != "newreno" && s["flows"] == reno["flows"] {
                failures.push(format!(
                    "{} with {name}: the flows ran exactly as with newreno (tcp.cc ignored?)",
                    case.preset
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
