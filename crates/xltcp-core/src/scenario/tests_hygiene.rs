//! Loader tests for what a new user trips on: one error per mistake, names
//! that can title a plot.

use std::path::Path;

use super::*;

const LINKS: &str = "[wired]\nrate = \"100Mbps\"\ndelay = \"10ms\"\n\
                     [wireless]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";

fn errors(text: &str) -> Vec<String> {
    match load_str(text, "t.toml", Path::new("."), &[]) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.errors.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn an_unknown_model_is_one_error_not_one_per_key() {
    let text = format!(
        "{LINKS}[wireless.loss.down]\nmodel = \"gilbertt\"\nmean_loss = 0.1\nmean_burst = 3\n[[flow]]\n"
    );
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("wireless.loss.down.model: expected one of"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_missing_model_is_one_error_too() {
    let text = format!("{LINKS}[wireless.loss.down]\np = 0.1\n[[flow]]\n");
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("wireless.loss.down.model: missing"),
        "{}",
        errors[0]
    );
}

#[test]
fn unknown_keys_are_still_reported_under_a_valid_model() {
    let text = format!("{LINKS}[wireless.loss.down]\nmodel = \"iid\"\np = 0.1\npp = 1\n[[flow]]\n");
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("wireless.loss.down.pp: unknown key"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_name_with_a_control_character_is_refused() {
    for name in ["\\u0000", "a\\tb", "x\\u001b[31m"] {
        let errors = errors(&format!("name = \"{name}\"\n{LINKS}[[flow]]\n"));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("name: contains the control character U+"),
            "{}",
            errors[0]
        );
    }
    let ok = load_str(
        &format!("name = \"ünï cödé\"\n{LINKS}[[flow]]\n"),
        "t.toml",
        Path::new("."),
        &[],
    );
    assert!(ok.is_ok());
}

/// A fresh folder with these files in it.
fn folder(files: &[(&str, &str)]) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "xltcp-extends-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn file_errors(path: &Path, sets: &[&str]) -> Vec<String> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match load_file(path, &sets) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.errors.iter().map(ToString::to_string).collect(),
    }
}

const BASE: &str = "name = \"base\"\n[sim]\nduration = \"5s\"\nseed = 3\n\
                    [tcp]\nmss = \"536B\"\nsack = false\n\
                    [wired]\nrate = \"100Mbps\"\ndelay = \"10ms\"\n\
                    [wireless]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
                    [[flow]]\nname = \"a\"\n";

#[test]
fn extends_lays_the_file_over_its_base() {
    let child = "extends = \"base.toml\"\n[tcp]\nsack = true\n[sim]\nseed = 7\n";
    let flat = "[sim]\nduration = \"5s\"\nseed = 7\n[tcp]\nmss = \"536B\"\nsack = true\n\
                [wired]\nrate = \"100Mbps\"\ndelay = \"10ms\"\n\
                [wireless]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\n";
    let dir = folder(&[
        ("base.toml", BASE),
        ("child.toml", child),
        ("flat.toml", flat),
    ]);
    let got = load_file(&dir.join("child.toml"), &[]).unwrap();
    let mut want = load_file(&dir.join("flat.toml"), &[]).unwrap();
    // The name is the file's own, not the base's.
    assert_eq!(got.name, "child");
    want.name = "child".into();
    assert_eq!(got, want);
    assert_eq!(echo(&got), echo(&want));
    // Overrides apply on top of both.
    let set = load_file(&dir.join("child.toml"), &["tcp.mss=1448B".into()]).unwrap();
    assert_eq!(set.tcp.mss, 1448);
}

#[test]
fn a_base_in_another_folder_reads_its_files_from_its_own_folder() {
    let base = format!("{BASE}[wireless.availability]\nmodel = \"file\"\nfile = \"blocked.txt\"\n");
    let dir = folder(&[
        ("presets/base.toml", &base),
        ("presets/blocked.txt", "1 2\n"),
        ("runs/child.toml", "extends = \"../presets/base.toml\"\n"),
        // A file of the same name beside the child must not be the one read.
        ("runs/blocked.txt", "3 4\n"),
    ]);
    let s = load_file(&dir.join("runs/child.toml"), &[]).unwrap();
    let blocked = AvailabilitySpec::Intervals(vec![(
        crate::time::Dur::from_secs(1),
        crate::time::Dur::from_secs(2),
    )]);
    assert_eq!(s.wireless.availability, blocked);
    // A file the child writes itself is its own folder's.
    let child =
        "extends = \"../presets/base.toml\"\n[wireless.availability]\nfile = \"blocked.txt\"\n";
    std::fs::write(dir.join("runs/child.toml"), child).unwrap();
    let s = load_file(&dir.join("runs/child.toml"), &[]).unwrap();
    let own = AvailabilitySpec::Intervals(vec![(
        crate::time::Dur::from_secs(3),
        crate::time::Dur::from_secs(4),
    )]);
    assert_eq!(s.wireless.availability, own);
}

#[test]
fn arrays_replace_and_chains_go_deeper() {
    let middle = "extends = \"base.toml\"\n[[flow]]\nname = \"b\"\n[[flow]]\nname = \"c\"\n";
    let top = "extends = \"middle.toml\"\n[sim]\nduration = \"2s\"\n";
    let dir = folder(&[
        ("base.toml", BASE),
        ("middle.toml", middle),
        ("top.toml", top),
    ]);
    let s = load_file(&dir.join("top.toml"), &[]).unwrap();
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["b", "c"]);
    assert_eq!(s.tcp.mss, 536);
    assert_eq!(s.sim.duration, crate::time::Dur::from_secs(2));
}

#[test]
fn an_error_in_a_base_names_the_base_file_line_and_key() {
    let base = BASE.replace("duration = \"5s\"", "duration = 5");
    let dir = folder(&[
        ("base.toml", &base),
        ("child.toml", "extends = \"base.toml\"\n"),
    ]);
    let errors = file_errors(&dir.join("child.toml"), &[]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let want = format!(
        "{}:3:12: sim.duration: expected a duration",
        dir.join("base.toml").display()
    );
    assert!(errors[0].starts_with(&want), "{}", errors[0]);
    // And one in the extending file names that file.
    let child = "extends = \"base.toml\"\n[tcp]\nsackk = true\n";
    let dir = folder(&[("base.toml", BASE), ("child.toml", child)]);
    let errors = file_errors(&dir.join("child.toml"), &[]);
    let want = format!(
        "{}:3:1: tcp.sackk: unknown key",
        dir.join("child.toml").display()
    );
    assert!(errors[0].starts_with(&want), "{errors:?}");
}

#[test]
fn a_cycle_is_refused_with_the_chain_of_files() {
    let dir = folder(&[
        ("a.toml", "extends = \"b.toml\"\n"),
        ("b.toml", "\n[sim]\nseed = 1\n[x]\n\nextends = 1\n"),
    ]);
    std::fs::write(dir.join("b.toml"), "extends = \"c.toml\"\n").unwrap();
    std::fs::write(dir.join("c.toml"), "# c\nextends = \"a.toml\"\n").unwrap();
    let errors = file_errors(&dir.join("a.toml"), &[]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let d = dir.canonicalize().unwrap();
    let chain = format!(
        "{a} extends {b} extends {c} extends {a}",
        a = d.join("a.toml").display(),
        b = d.join("b.toml").display(),
        c = d.join("c.toml").display()
    );
    let want = format!(
        "{}:2:11: extends: a cycle: {chain}",
        dir.join("c.toml").display()
    );
    assert!(errors[0].starts_with(&want), "{}\n{want}", errors[0]);
    let itself = folder(&[("s.toml", "extends = \"s.toml\"\n")]);
    assert!(file_errors(&itself.join("s.toml"), &[])[0].contains("extends: a cycle"));
}

#[test]
fn a_missing_or_mistyped_base_is_an_error_at_the_key() {
    let dir = folder(&[("a.toml", "[sim]\nseed = 1\nextends = \"nope.toml\"\n")]);
    // `extends` is a top-level key: inside [sim] it is an unknown key.
    assert!(file_errors(&dir.join("a.toml"), &[])
        .iter()
        .any(|e| e.contains("sim.extends: unknown key")));
    let dir = folder(&[("a.toml", "extends = \"nope.toml\"\n")]);
    let errors = file_errors(&dir.join("a.toml"), &[]);
    assert!(
        errors[0].contains("a.toml:1:11: extends: cannot read"),
        "{errors:?}"
    );
    let dir = folder(&[("a.toml", "extends = 3\n")]);
    let errors = file_errors(&dir.join("a.toml"), &[]);
    assert!(
        errors[0].contains("extends: expected the path of a scenario file"),
        "{errors:?}"
    );
}

#[test]
fn stagger_spreads_the_starts_of_counted_flows() {
    let base = "[sim]\nduration = \"1s\"\n[wired]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                [wireless]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                [[flow]]\nname = \"f\"\ncount = 3\nstart = \"10ms\"\n";
    let s = load_str(
        &format!("{base}stagger = \"1ms\"\n"),
        "t.toml",
        Path::new("."),
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let starts: Vec<u64> = s
        .flows
        .iter()
        .map(|f| f.start.as_nanos() / 1_000_000)
        .collect();
    assert_eq!(starts, [10, 11, 12]);
    // The last copy must start before the end of the run.
    let e = errors(&format!("{base}stagger = \"500ms\"\n"));
    assert!(
        e.iter()
            .any(|m| m.contains("flow.0.stagger") && m.contains("1.01s")),
        "{e:?}"
    );
}
