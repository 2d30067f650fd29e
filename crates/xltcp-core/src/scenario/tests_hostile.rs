//! Loader tests of hostile input (the corpus in `tests/hostile/` runs the
//! same through the `xltcp` command): files that are not regular files or
//! are too large, fractions out of range, reserved host names, the UCL
//! pair's tampering and adversary keys, and timer periods too short to
//! simulate.

use std::path::{Path, PathBuf};

use super::*;

/// Two 802.11 hops and the UCL's two halves, security on; `AGENT0` and
/// `AGENT1` take more keys of the BS's and the hosts' entries.
const UCL: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[[wireless]]
name = "a"
kind = "wifi"
standard = "11a"
snr_report = "100ms"

[[wireless]]
name = "b"
kind = "wifi"
standard = "11b"
snr_report = "100ms"

[[flow]]
name = "ftp"

[[agent]]
scheme = "ucl"
at = "bs"
AGENT0

[[agent]]
scheme = "ucl"
at = "hosts"
AGENT1
"#;

/// One 802.11 hop with DSA keys and the DSASync agent.
const DSA: &str = r#"
[wired]
rate = "100Mbps"
delay = "1ms"

[wireless]
kind = "wifi"
standard = "11a"

[wireless.dsa]
DSA

[[flow]]
name = "sh"

[[agent]]
scheme = "dsasync"
at = "bs"
AGENT
"#;

fn ucl(bs: &str, hosts: &str) -> String {
    UCL.replace("AGENT0", bs).replace("AGENT1", hosts)
}

fn dsa(keys: &str, agent: &str) -> String {
    DSA.replace("DSA", keys).replace("AGENT", agent)
}

fn errors_in(text: &str, dir: &Path) -> String {
    match load_str(text, "t.toml", dir, &[]) {
        Ok(_) => panic!("expected errors in\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn errors(text: &str) -> String {
    errors_in(text, Path::new("."))
}

fn loads(text: &str) -> Scenario {
    load_str(text, "t.toml", Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}\nin\n{text}"))
}

/// A fresh folder holding a FIFO `fifo` (None where mkfifo is missing).
fn fifo_dir(tag: &str) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("xltcp-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("fifo"))
        .status();
    made.is_ok_and(|s| s.success()).then_some(dir)
}

#[test]
fn key_files_that_are_devices_or_fifos_are_refused_without_reading() {
    let keys = "security = \"on\"\nkeys = \"files\"\n";
    let text = ucl(
        &format!("{keys}identity = \"/dev/zero\"\ntrusted = \"/dev/zero\""),
        &format!("{keys}identity = \"/dev/zero\"\ntrusted = \"/dev/zero\""),
    );
    let all = errors(&text);
    assert!(
        all.contains("agent.0.identity: cannot read \"/dev/zero\": a character device, not a regular file (allowed: a regular file of at most 16 MiB)"),
        "{all}"
    );
    assert!(
        all.contains("agent.1.trusted: cannot read \"/dev/zero\""),
        "{all}"
    );
    let Some(dir) = fifo_dir("keys") else { return };
    let text = ucl(
        &format!("{keys}identity = \"fifo\"\ntrusted = \"fifo\""),
        &format!("{keys}identity = \"fifo\"\ntrusted = \"fifo\""),
    );
    // Opening a FIFO would block until a writer came: refused by its kind.
    let all = errors_in(&text, &dir);
    assert!(all.contains("agent.0.identity: cannot read"), "{all}");
    assert!(
        all.contains("a FIFO (named pipe), not a regular file"),
        "{all}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn extends_naming_a_device_a_fifo_or_a_huge_file_is_refused() {
    let all = errors("extends = \"/dev/zero\"\n");
    assert!(
        all.contains("extends: cannot read /dev/zero: a character device, not a regular file (allowed: a regular file of at most 16 MiB)"),
        "{all}"
    );
    let Some(dir) = fifo_dir("extends") else {
        return;
    };
    let all = errors_in("extends = \"fifo\"\n", &dir);
    assert!(
        all.contains("a FIFO (named pipe), not a regular file"),
        "{all}"
    );
    let huge = dir.join("huge.toml");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(MAX_SCENARIO_BYTES + 1).unwrap();
    let all = errors_in("extends = \"huge.toml\"\n", &dir);
    assert!(
        all.contains("16777217 bytes, larger than the bound"),
        "{all}"
    );
    // The scenario file itself, too.
    let e = load_file(&huge, &[]).unwrap_err().to_string();
    assert!(
        e.contains("huge.toml: cannot read the scenario file: 16777217 bytes"),
        "{e}"
    );
    let e = load_file(&dir.join("fifo"), &[]).unwrap_err().to_string();
    assert!(e.contains("cannot read the scenario file: a FIFO"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn snr_traces_that_are_fifos_are_refused() {
    let Some(dir) = fifo_dir("trace") else { return };
    let text = UCL
        .replacen(
            "snr_report = \"100ms\"",
            "snr_report = \"100ms\"\n[wireless.snr]\nmean_trace = \"fifo\"",
            1,
        )
        .replace("AGENT0", "")
        .replace("AGENT1", "");
    let all = errors_in(&text, &dir);
    assert!(
        all.contains("wireless.0.snr.mean_trace: cannot read"),
        "{all}"
    );
    assert!(all.contains("at most 64 MiB"), "{all}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fractions_out_of_range_are_refused() {
    for (agent, key, value) in [
        ("gain = 2", "agent.0.gain", "2 is out of range"),
        ("gain = -1", "agent.0.gain", "-1 is out of range"),
    ] {
        let all = errors(&ucl(&format!("rule = \"goodput\"\n{agent}"), ""));
        assert!(all.contains(&format!("{key}: {value}")), "{all}");
        assert!(all.contains("(allowed: 0 <= gain <= 1"), "{all}");
    }
    for (agent, key) in [
        ("alpha_min = 1.5", "alpha_min"),
        ("alpha_min = -0.5", "alpha_min"),
        ("alpha_min = 0", "alpha_min"),
        ("efficiency = 5", "efficiency"),
        ("efficiency = 0", "efficiency"),
    ] {
        let all = errors(&dsa("", agent));
        assert!(all.contains(&format!("agent.0.{key}: ")), "{all}");
        assert!(all.contains(&format!("(allowed: 0 < {key} <= 1")), "{all}");
    }
    // The ends of the ranges load.
    loads(&ucl("gain = 0", "gain = 1"));
    loads(&dsa("", "alpha_min = 1\nefficiency = 1"));
}

#[test]
fn a_negative_hysteresis_names_hysteresis_db() {
    let all = errors(&ucl("rule = \"hysteresis\"\nhysteresis_db = -3", ""));
    assert!(
        all.contains("agent.0.hysteresis_db: -3 dB: the band's half-width cannot be negative"),
        "{all}"
    );
    assert!(!all.contains("agent.0.threshold"), "{all}");
}

#[test]
fn hosts_named_bs_or_hosts_are_refused() {
    let base = "[wired]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n\
                [wireless]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";
    let all = errors(&format!("{base}[[flow]]\nname = \"a\"\nhost = \"bs\"\n"));
    assert!(all.contains("flow.0.host: \"bs\" is reserved"), "{all}");
    let all = errors(&format!("{base}[[flow]]\nname = \"hosts\"\n"));
    assert!(
        all.contains("flow.0.name: \"hosts\" is reserved, and the flow's host takes its name"),
        "{all}"
    );
    // A counted flow's copies are "bs.0", "bs.1": no clash.
    loads(&format!("{base}[[flow]]\nname = \"bs\"\ncount = 2\n"));
    loads(&format!(
        "{base}[[flow]]\nname = \"bs\"\nhost = \"laptop\"\n"
    ));
}

#[test]
fn each_ucl_half_sets_what_its_own_frames_suffer_on_the_air() {
    use crate::schemes::ucl::{Adversary, SecuritySpec};
    let on = "security = \"on\"";
    let spec = |s: &Scenario, k: usize| -> SecuritySpec {
        match &s.agents[k].scheme {
            AgentScheme::Ucl(c) => c.security.clone().unwrap(),
            _ => panic!("a ucl entry"),
        }
    };
    // The halves may differ: each entry's keys act on its own node's
    // frames (the BS's downstream, the hosts' upstream).
    let s = loads(&ucl(
        &format!("{on}\ntamper_every = 3"),
        &format!("{on}\ntamper_every = 7\nadversary = \"replay\"\nadversary_every = 4"),
    ));
    let (bs, hosts) = (spec(&s, 0), spec(&s, 1));
    assert_eq!((bs.tamper_every, bs.adversary), (3, None));
    assert_eq!(hosts.tamper_every, 7);
    assert_eq!(
        (hosts.adversary, hosts.adversary_every),
        (Some(Adversary::Replay), 4)
    );
    let s = loads(&ucl(on, &format!("{on}\ntamper_every = 5")));
    assert_eq!((spec(&s, 0).tamper_every, spec(&s, 1).tamper_every), (0, 5));
    // Bad values name their key and what is allowed.
    let all = errors(&ucl(&format!("{on}\nadversary = \"jam\""), on));
    assert!(all.contains("agent.0.adversary"), "{all}");
    assert!(all.contains("\"drop_handshake\""), "{all}");
    let all = errors(&ucl(on, &format!("{on}\nadversary_every = 3")));
    assert!(
        all.contains(
            "agent.1.adversary_every: how often the adversary acts, but there is no adversary"
        ),
        "{all}"
    );
    let all = errors(&ucl(
        &format!("{on}\nadversary = \"inject\"\nadversary_every = 0"),
        on,
    ));
    assert!(all.contains("agent.0.adversary_every"), "{all}");
    let all = errors(&ucl(
        &format!("{on}\nhandshake_timeout = \"1s\"\nhandshake_backoff_max = \"500ms\""),
        on,
    ));
    assert!(
        all.contains("agent.0.handshake_backoff_max: 500ms, shorter than handshake_timeout (1s)"),
        "{all}"
    );
    let all = errors(&ucl(&format!("{on}\nreplay_window = 0"), on));
    assert!(all.contains("agent.0.replay_window"), "{all}");
    assert!(all.contains("1..=65536"), "{all}");
    let all = errors(&ucl(&format!("{on}\nseeded_keys = \"yes\""), on));
    assert!(all.contains("agent.0.seeded_keys"), "{all}");
    // Without security the keys are refused.
    let all = errors(&ucl("adversary = \"replay\"", ""));
    assert!(
        all.contains("agent.0.adversary: a key of the UCL's security"),
        "{all}"
    );
}

#[test]
fn timer_periods_below_a_microsecond_are_refused() {
    let all = errors(
        &UCL.replacen("\"100ms\"", "\"1ns\"", 1)
            .replace("AGENT0", "")
            .replace("AGENT1", ""),
    );
    assert!(
        all.contains("wireless.0.snr_report: must be at least 1us, got \"1ns\""),
        "{all}"
    );
    let all = errors(&dsa(
        "node_sensing_every = \"2ns\"\nnode_sensing_for = \"1ns\"",
        "",
    ));
    assert!(
        all.contains("wireless.dsa.node_sensing_every: must be at least 1us"),
        "{all}"
    );
    assert!(
        all.contains("wireless.dsa.node_sensing_for: must be at least 1us"),
        "{all}"
    );
    assert!(!all.contains("missing"), "{all}");
    for every in ["\"1ns\"", "\"exp(999ns)\""] {
        let all = errors(&dsa(&format!("switch_every = {every}"), ""));
        assert!(
            all.contains("wireless.dsa.switch_every: must be at least 1us"),
            "{all}"
        );
    }
    // A microsecond is allowed.
    loads(&dsa(
        "node_sensing_every = \"2us\"\nnode_sensing_for = \"1us\"\nswitch_every = \"exp(1us)\"",
        "",
    ));
    loads(
        &UCL.replace("\"100ms\"", "\"1us\"")
            .replace("AGENT0", "")
            .replace("AGENT1", ""),
    );
}

#[test]
fn sampling_and_blockage_periods_below_a_microsecond_are_refused() {
    let base = "[wired]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n\
                [wireless]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[flow]]\n";
    let all = errors(&format!("{base}[sim]\nsample_interval = \"1ns\"\n"));
    assert!(
        all.contains("sim.sample_interval: must be at least 1us, got \"1ns\""),
        "{all}"
    );
    let onoff = "[wireless.availability]\nmodel = \"onoff\"\n";
    let all = errors(&format!("{base}{onoff}on = \"exp(1ns)\"\noff = \"1ns\"\n"));
    assert!(
        all.contains("wireless.availability.on: must be at least 1us"),
        "{all}"
    );
    assert!(
        all.contains("wireless.availability.off: must be at least 1us"),
        "{all}"
    );
    loads(&format!(
        "{base}[sim]\nsample_interval = \"1us\"\n{onoff}on = \"exp(1us)\"\noff = \"1us\"\n"
    ));
}

#[test]
fn snr_process_steps_below_a_microsecond_are_refused() {
    let snr = |keys: &str| {
        UCL.replacen(
            "snr_report = \"100ms\"",
            &format!("snr_report = \"100ms\"\n[wireless.snr]\nmean_db = 20\n{keys}"),
            1,
        )
        .replace("AGENT0", "")
        .replace("AGENT1", "")
    };
    let all = errors(&snr(
        "fading = \"rayleigh\"\ncoherence = \"1ns\"\nshadowing_db = 4\nshadowing_time = \"15us\"",
    ));
    assert!(
        all.contains("wireless.0.snr.coherence: must be at least 1us, got \"1ns\""),
        "{all}"
    );
    assert!(
        all.contains("wireless.0.snr.shadowing_time: must be at least 16us, got \"15us\""),
        "{all}"
    );
    loads(&snr(
        "fading = \"rayleigh\"\ncoherence = \"1us\"\nshadowing_db = 4\nshadowing_time = \"16us\"",
    ));
}
