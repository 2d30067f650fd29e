//! Golden outputs: every shipped scenario, seeds 1-3, gives exactly the
//! files recorded in `tests/golden/` (a SHA-256 per output file).
//!
//! This pins behaviour across refactors: a change that moves any byte of
//! `summary.json`, a time series, `signals.jsonl` or a pcap shows up here
//! as the list of files that differ. Scenarios with at most ten flows run
//! with pcaps on (96-byte snaplen), so captures are pinned too.
//!
//! When a change of behaviour is intended, record the new outputs with
//! `XLTCP_BLESS=1 cargo test --test golden` and say why in the commit.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn record_path(name: &str) -> PathBuf {
    let file = name.trim_end_matches(".toml").replace('/', "__");
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{file}.sha256"))
}

fn files_under(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, base, out);
        } else {
            out.push(p.strip_prefix(base).unwrap().to_path_buf());
        }
    }
}

/// The record of one scenario: a line per (seed, file) with its hash.
fn outputs(name: &str) -> String {
    let path = repo().join("scenarios").join(name);
    let plain = scenario::load_file(&path, &[]).expect("shipped scenario loads");
    let overrides: Vec<String> = if plain.flows.len() <= 10 {
        vec!["output.pcap=true".into(), "output.pcap_snaplen=96".into()]
    } else {
        Vec::new()
    };
    let s = scenario::load_file(&path, &overrides).expect("overrides apply");
    let mut lines = String::new();
    for seed in 1..=3u64 {
        let dir = std::env::temp_dir().join(format!(
            "xltcp-golden-{}-{}-{seed}",
            std::process::id(),
            name.replace('/', "_")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        sim::run(
            &s,
            RunOptions {
                seed: Some(seed),
                out_dir: Some(&dir),
                ..RunOptions::default()
            },
        )
        .expect("run");
        let mut files = Vec::new();
        files_under(&dir, &dir, &mut files);
        for f in files {
            let bytes = std::fs::read(dir.join(&f)).unwrap();
            let hash = Sha256::digest(&bytes);
            let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
            lines.push_str(&format!("seed={seed} {} {hex}\n", f.display()));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    lines
}

fn check(name: &str) {
    let got = outputs(name);
    let path = record_path(name);
    if std::env::var_os("XLTCP_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("no record {}; run with XLTCP_BLESS=1", path.display()));
    let new: Vec<&str> = got.lines().filter(|g| !want.contains(g)).collect();
    let gone: Vec<&str> = want.lines().filter(|w| !got.contains(w)).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "{name}: outputs differ from the record:\nnow:\n{}\nrecorded:\n{}",
        new.join("\n"),
        gone.join("\n"),
    );
}

/// Every shipped scenario has a golden test below.
#[test]
fn every_shipped_scenario_is_recorded() {
    let mut files = Vec::new();
    let dir = repo().join("scenarios");
    files_under(&dir, &dir, &mut files);
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "toml"))
    {
        let name = f.display().to_string();
        assert!(
            record_path(&name).exists() || std::env::var_os("XLTCP_BLESS").is_some(),
            "scenario {name} has no golden record: add a test to tests/golden.rs"
        );
    }
}

macro_rules! golden {
    ($($test:ident => $file:literal,)*) => {$(
        #[test]
        fn $test() {
            check($file);
        }
    )*};
}

golden! {
    demo => "demo.toml",
    lossy_last_hop => "lossy-last-hop.toml",
    many_flows => "many-flows.toml",
    pu_blockage => "pu-blockage.toml",
    pu_blockage_lose => "pu-blockage-lose.toml",
    wifi_11a => "wifi-11a.toml",
    byun2016_newreno => "byun2016/newreno.toml",
    byun2016_newreno_cr => "byun2016/newreno-cr.toml",
    byun2016_phy_lr => "byun2016/phy-lr.toml",
    byun2016_phy_lr_cr => "byun2016/phy-lr-cr.toml",
    byun2016_tcp_lr => "byun2016/tcp-lr.toml",
    byun2016_tcp_lr_cr => "byun2016/tcp-lr-cr.toml",
    byun2016_paper_newreno => "byun2016/paper/newreno.toml",
    byun2016_paper_newreno_cr => "byun2016/paper/newreno-cr.toml",
    byun2016_paper_phy_lr => "byun2016/paper/phy-lr.toml",
    byun2016_paper_phy_lr_cr => "byun2016/paper/phy-lr-cr.toml",
    byun2016_paper_tcp_lr => "byun2016/paper/tcp-lr.toml",
    byun2016_paper_tcp_lr_cr => "byun2016/paper/tcp-lr-cr.toml",
    dsasync_regular_down => "dsasync/regular-down.toml",
    dsasync_dsasync_down => "dsasync/dsasync-down.toml",
    dsasync_regular_up => "dsasync/regular-up.toml",
    dsasync_dsasync_up => "dsasync/dsasync-up.toml",
    dsasync_regular_capacity => "dsasync/regular-capacity.toml",
    dsasync_dsasync_capacity => "dsasync/dsasync-capacity.toml",
    dsasync_regular_macro => "dsasync/regular-macro.toml",
    dsasync_dsasync_macro => "dsasync/dsasync-macro.toml",
    dsasync_regular_nodsa => "dsasync/regular-nodsa.toml",
    dsasync_dsasync_nodsa => "dsasync/dsasync-nodsa.toml",
    dsasync_byun2016_newreno => "dsasync/byun2016-newreno.toml",
    dsasync_byun2016_newreno_cr => "dsasync/byun2016-newreno-cr.toml",
    kim_chung_tcp_down => "kim-chung/tcp-down.toml",
    kim_chung_snoop_down => "kim-chung/snoop-down.toml",
    kim_chung_snack_down => "kim-chung/snack-down.toml",
    kim_chung_c_snoop_down => "kim-chung/c-snoop-down.toml",
    kim_chung_tcp_up => "kim-chung/tcp-up.toml",
    kim_chung_snoop_up => "kim-chung/snoop-up.toml",
    kim_chung_snack_up => "kim-chung/snack-up.toml",
    kim_chung_c_snoop_up => "kim-chung/c-snoop-up.toml",
    ucl_location_11a => "ucl/location-11a.toml",
    ucl_location_11b => "ucl/location-11b.toml",
    ucl_location_ucl => "ucl/location-ucl.toml",
    ucl_moving_11a => "ucl/moving-11a.toml",
    ucl_moving_11b => "ucl/moving-11b.toml",
    ucl_moving_ucl_paper => "ucl/moving-ucl-paper.toml",
    ucl_moving_ucl_ours => "ucl/moving-ucl-ours.toml",
    ucl_moving_ucl_ours_secured => "ucl/moving-ucl-ours-secured.toml",
    ucl_link_plain => "ucl/link-plain.toml",
    ucl_link_secured => "ucl/link-secured.toml",
    ucl_link_secured_keys => "ucl/link-secured-keys.toml",
    l2clamp_newreno => "l2clamp/newreno.toml",
    l2clamp_clamp => "l2clamp/clamp.toml",
    l2clamp_l2clamp => "l2clamp/l2clamp.toml",
}
