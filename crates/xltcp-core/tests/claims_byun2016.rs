//! Paper 000's claims, enforced on the model over several seeds (paired: a
//! seed gives the six configurations the same PU schedule), with 95 %
//! Student t intervals. Only the claims the model reproduces at ten seeds
//! are here; the others (the full ordering, whose top step needs more
//! seeds in the `paper` family and does not hold in the `standard` one)
//! are measured and reported by `xltcp reproduce byun2016`.
//!
//! Runs are shorter than the paper's 600 s where the claim holds as well
//! (the `standard` family: 200 s; its no-PU reference: 60 s).

use std::path::PathBuf;
use xltcp_core::scenario::{load_file, Scenario};
use xltcp_core::sim::{run, RunOptions};

const SEEDS: u64 = 10;

fn preset(family: &str, name: &str, sets: &[String]) -> Scenario {
    let mut path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/byun2016");
    if family != "standard" {
        path = path.join(family);
    }
    let path = path.join(format!("{name}.toml"));
    load_file(&path, sets).unwrap_or_else(|e| panic!("{family}/{name}: {e}"))
}

/// Per seed: (delivered bytes, efficiency).
fn runs(family: &str, name: &str, sets: &[String]) -> Vec<(f64, f64)> {
    let s = preset(family, name, sets);
    (1..=SEEDS)
        .map(|seed| {
            let r = run(
                &s,
                RunOptions {
                    seed: Some(seed),
                    ..RunOptions::default()
                },
            )
            .unwrap();
            let f = &r.flows[0];
            (f.bytes_delivered as f64, f.efficiency)
        })
        .collect()
}

/// Two-sided 95 % Student t quantile for `n - 1` degrees of freedom.
fn t95(n: usize) -> f64 {
    const T: [f64; 10] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    ];
    T.get(n.saturating_sub(2)).copied().unwrap_or(2.0)
}

/// Mean and 95 % half width.
fn ci(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, t95(v.len()) * (var / n).sqrt())
}

fn ratios(a: &[(f64, f64)], b: &[(f64, f64)]) -> (f64, f64) {
    let r: Vec<f64> = a.iter().zip(b).map(|(x, y)| x.0 / y.0).collect();
    ci(&r)
}

/// `a` delivers more than `b`, significantly (paired difference's interval
/// above zero).
fn beats(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x.0 - y.0).collect();
    let (m, h) = ci(&d);
    m - h > 0.0
}

fn sets(duration: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![format!("sim.duration=\"{duration}\"")];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

const NO_PU: [&str; 2] = [
    "wireless.availability.on=\"1000000s\"",
    "wireless.availability.off=\"1s\"",
];

/// `standard` family: every CR variant delivers at least 1.5x its twin
/// (mean of the per-seed ratios; the interval above 1), CR-aware TCP with
/// local recovery beats NewReno+CR and NewReno+CR beats the best non-CR
/// variant, each at 95 %; TCP-LR+CR reaches 90 % of what `t_idle` leaves
/// (its efficiency over its own no-PU efficiency, over exp(-1/4)).
#[test]
fn standard_family_cr_gains_and_normalised_efficiency() {
    let d = sets("200s", &[]);
    let nr = runs("standard", "newreno", &d);
    let phy = runs("standard", "phy-lr", &d);
    let tcp = runs("standard", "tcp-lr", &d);
    let nr_cr = runs("standard", "newreno-cr", &d);
    let phy_cr = runs("standard", "phy-lr-cr", &d);
    let tcp_cr = runs("standard", "tcp-lr-cr", &d);
    for (name, cr, twin) in [
        ("NewReno", &nr_cr, &nr),
        ("PHY-LR", &phy_cr, &phy),
        ("TCP-LR", &tcp_cr, &tcp),
    ] {
        let (m, h) = ratios(cr, twin);
        assert!(
            m >= 1.5 && m - h > 1.0,
            "{name}+CR / {name} = {m:.2} ± {h:.2}"
        );
    }
    assert!(beats(&phy_cr, &nr_cr), "PHY-LR+CR > NewReno+CR");
    assert!(beats(&tcp_cr, &nr_cr), "TCP-LR+CR > NewReno+CR");
    for twin in [&nr, &phy, &tcp] {
        assert!(beats(&nr_cr, twin), "NewReno+CR > every non-CR variant");
    }
    let free = runs("standard", "tcp-lr-cr", &sets("60s", &NO_PU));
    let share = (-1.0f64 / 4.0).exp();
    let norm: Vec<f64> = tcp_cr
        .iter()
        .zip(&free)
        .map(|(a, b)| a.1 / b.1 / share)
        .collect();
    let (m, h) = ci(&norm);
    assert!(
        m >= 0.90,
        "TCP-LR+CR normalised / exp(-1/4) = {m:.3} ± {h:.3}"
    );
}

/// `paper` family (no MAC retries; the CR variants' MAC held, the others'
/// contending through the PU's periods), over the paper's 600 s: every CR
/// variant delivers at least 1.5x its twin (mean of the per-seed ratios,
/// the interval above 1) and more than it at 95 % (paired); the steps of
/// the paper's ordering that ten seeds decide (PHY-LR+CR > NewReno+CR >
/// TCP-LR > NewReno) hold at 95 %, and local recovery improves both
/// NewReno and NewReno+CR.
#[test]
fn paper_family_cr_and_local_recovery_gains() {
    let d = sets("600s", &[]);
    let nr = runs("paper", "newreno", &d);
    let phy = runs("paper", "phy-lr", &d);
    let tcp = runs("paper", "tcp-lr", &d);
    let nr_cr = runs("paper", "newreno-cr", &d);
    let phy_cr = runs("paper", "phy-lr-cr", &d);
    let tcp_cr = runs("paper", "tcp-lr-cr", &d);
    for (name, cr, twin) in [
        ("NewReno", &nr_cr, &nr),
        ("PHY-LR", &phy_cr, &phy),
        ("TCP-LR", &tcp_cr, &tcp),
    ] {
        let (m, h) = ratios(cr, twin);
        assert!(
            m >= 1.5 && m - h > 1.0,
            "{name}+CR / {name} = {m:.2} ± {h:.2}"
        );
        assert!(beats(cr, twin), "{name}+CR > {name}: {m:.2} ± {h:.2}");
    }
    assert!(beats(&phy_cr, &nr_cr), "PHY-LR+CR > NewReno+CR");
    assert!(beats(&nr_cr, &tcp), "NewReno+CR > TCP-LR");
    for (lr, base) in [
        (&phy, &nr),
        (&tcp, &nr),
        (&phy_cr, &nr_cr),
        (&tcp_cr, &nr_cr),
    ] {
        assert!(beats(lr, base), "local recovery beats its NewReno");
    }
}
