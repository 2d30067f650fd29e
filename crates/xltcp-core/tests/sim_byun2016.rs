//! The paper-000 presets on the 802.15.4 hop: the `standard` family
//! (scenarios/byun2016) and the `paper` family (scenarios/byun2016/paper).

use std::path::PathBuf;
use xltcp_core::scenario::{load_file, Scenario};
use xltcp_core::sim::{run, RunOptions, Summary};

fn family_preset(family: &str, name: &str, sets: &[&str]) -> Scenario {
    let mut path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/byun2016");
    if family != "standard" {
        path = path.join(family);
    }
    let path = path.join(format!("{name}.toml"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_file(&path, &sets).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run_seed(s: &Scenario, seed: u64) -> Summary {
    run(
        s,
        RunOptions {
            seed: Some(seed),
            ..RunOptions::default()
        },
    )
    .unwrap()
}

/// The six configurations in the paper's order.
const CONFIGS: [&str; 6] = [
    "newreno",
    "phy-lr",
    "tcp-lr",
    "newreno-cr",
    "phy-lr-cr",
    "tcp-lr-cr",
];

/// One line per configuration: what the reproduction table reports, for
/// one seed and a shorter run.
fn table(family: &str, seed: u64, duration: &str) -> String {
    let mut out = String::from(
        "config        packets  goodput_bps  rtos  rtx  lr_rtx  mac_rtx  efficiency  freezes  lr_reports  accounting\n",
    );
    for name in CONFIGS {
        let s = family_preset(family, name, &[&format!("sim.duration=\"{duration}\"")]);
        let r = run_seed(&s, seed);
        let f = &r.flows[0];
        assert!(r.accounting.balances(), "{name}: {:?}", r.accounting);
        assert!(f.goodput_bps <= f.oracle_bps, "{name}");
        let a = r.accounting;
        let lr = r.local_recovery().map_or(0, |l| l.link_resends);
        let mac = r.lrwpan().map_or(0, |h| h.up.frames_retried);
        out.push_str(&format!(
            "{name:12} {:8} {:12.0} {:5} {:4} {:7} {:8} {:11.3} {:8} {:11} {}/{}/{}/{}\n",
            f.bytes_delivered / 94,
            f.goodput_bps,
            f.rto_count,
            f.retransmissions,
            lr,
            mac,
            f.efficiency,
            r.cr_aware().map_or(0, |c| c.freezes),
            r.local_recovery().map_or(0, |l| l.reports_sent),
            a.injected,
            a.delivered,
            a.dropped,
            a.in_flight,
        ));
    }
    out
}

/// The six-configuration table at a fixed seed, 120 s per run: a change in
/// the hop, TCP or the schemes shows as a diff to review.
#[test]
fn six_configurations_snapshot() {
    insta::assert_snapshot!(table("standard", 1, "120s"));
}

/// The same for the `paper` family (no MAC retries, the MAC held).
#[test]
fn six_configurations_paper_family_snapshot() {
    insta::assert_snapshot!(table("paper", 1, "120s"));
}

/// The presets load, share the PU schedule, and differ only in `[schemes]`;
/// the `paper` family differs from `standard` only in the MAC's retries
/// (none) and, for the CR variants, its hold.
#[test]
fn presets_differ_only_in_their_schemes() {
    for family in ["standard", "paper"] {
        let base = family_preset(family, "newreno", &[]);
        for name in CONFIGS {
            let s = family_preset(family, name, &[]);
            assert_eq!(s.wireless, base.wireless, "{name}");
            assert_eq!(s.tcp, base.tcp, "{name}");
            assert_eq!(s.pu_detection, base.pu_detection, "{name}");
            assert_eq!(s.sim.duration, xltcp_core::time::Dur::from_secs(600));
            assert_eq!(s.schemes.cr_aware, name.ends_with("-cr"), "{name}");
            let cr = name.ends_with("-cr");
            assert_eq!(s.schemes.mac_hold, family == "paper" && cr, "{name}");
            let standard = family_preset("standard", name, &["wireless.max_frame_retries=0"]);
            if family == "paper" {
                assert_eq!(s.wireless, standard.wireless, "{name}");
                let mut schemes = s.schemes.clone();
                schemes.mac_hold = false;
                assert_eq!(schemes, standard.schemes, "{name}");
            }
        }
    }
}

/// Paper 000, §5.1: "TCP-implementations with no CR-aware scheme continue
/// to transmit or retransmit the user data, even though the physical
/// channel is blocked". No non-CR preset of the `paper` family holds its
/// MAC: its sender contends while the PU is on and loses frames to the
/// busy channel, which a held MAC never does (it waits for `pu_stop`).
#[test]
fn paper_family_non_cr_presets_do_not_hold_the_mac() {
    for name in CONFIGS.iter().filter(|n| !n.ends_with("-cr")) {
        let s = family_preset("paper", name, &["sim.duration=\"120s\""]);
        assert!(!s.schemes.cr_aware, "{name}");
        assert!(!s.schemes.mac_hold, "paper/{name}.toml holds its MAC");
        let up = run_seed(&s, 1).lrwpan().expect("802.15.4 hop").up;
        assert!(
            up.drop_channel_access > 0,
            "paper/{name}: no frame met the blocked channel ({up:?})"
        );
        let held = family_preset(
            "paper",
            name,
            &["sim.duration=\"120s\"", "schemes.mac_hold=true"],
        );
        let up = run_seed(&held, 1).lrwpan().expect("802.15.4 hop").up;
        assert_eq!(up.drop_channel_access, 0, "paper/{name} held: {up:?}");
    }
}
