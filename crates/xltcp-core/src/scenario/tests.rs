//! Loader tests: defaults, overrides, every rule, error locations.

use std::path::Path;

use super::*;
use crate::time::Dur;

const MINIMAL: &str = r#"
[wired]
rate = "100Mbps"
delay = "10ms"

[wireless]
rate = "10Mbps"
delay = "1ms"

[[flow]]
"#;

fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, "test.toml", Path::new("."), &sets)
}

fn errors(text: &str, sets: &[&str]) -> Vec<String> {
    match load(text, sets) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.errors.iter().map(|d| d.to_string()).collect(),
    }
}

#[test]
fn minimal_scenario_gets_every_default() {
    let s = load(MINIMAL, &[]).unwrap();
    assert_eq!(s.name, "test");
    assert_eq!(s.sim, SimSpec::default());
    assert_eq!(s.sim.duration, Dur::from_secs(60));
    assert_eq!(s.tcp, TcpSpec::default());
    assert_eq!(s.output, OutputSpec::default());
    assert!(s.output.timeseries);
    assert_eq!(
        s.wired,
        LinkSpec {
            rate_bps: 100_000_000,
            delay: Dur::from_millis(10),
            queue: QueueLimit::Packets(100),
        }
    );
    assert_eq!(s.wireless.loss_down, LossSpec::None);
    assert_eq!(s.wireless.availability, AvailabilitySpec::Always);
    assert_eq!(s.wireless.frame_overhead, 0);
    assert_eq!(
        s.flows,
        vec![FlowSpec {
            name: "flow0".into(),
            direction: Direction::Down,
            app: AppSpec::Bulk,
            start: Dur::ZERO,
            tcp: TcpSpec::default(),
        }]
    );
}
