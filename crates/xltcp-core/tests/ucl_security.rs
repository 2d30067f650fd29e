//! The UCL's link security in the simulator (`[[agent]] scheme = "ucl"`,
//! `security = "on"`): the handshake crosses the air before TCP moves,
//! every frame is sealed, opened and checked against the packet's bytes,
//! tampering on the air is dropped and counted, and a peer with the wrong
//! key never gets a flow through.

use xltcp_core::scenario::{self, Scenario};
use xltcp_core::schemes::ucl::UclSecStats;
use xltcp_core::schemes::AgentStats;
use xltcp_core::sim::output::Output;
use xltcp_core::sim::{Summary, World};

/// Two 802.11 interfaces at a high SNR, a 2 MB file down to the host, the
/// UCL at both ends; `{sec}` adds keys to both UCL entries.
fn scenario_text(sec: &str, direction: &str) -> String {
    format!(
        r#"
[sim]
duration = "20s"

[tcp]
recovery = "sack"
sack = true
mss = "1460B"
delayed_ack = 2

[wired]
rate = "1Gbps"
delay = "0.5ms"
queue = "1000p"

[[wireless]]
name = "a"
kind = "wifi"
standard = "11a"
rate = "24Mbps"
rate_control = "fixed"
snr_report = "100ms"
queue = "100p"
[wireless.snr]
mean_db = 40

[[wireless]]
name = "b"
kind = "wifi"
standard = "11b"
rate = "11Mbps"
rate_control = "fixed"
snr_report = "100ms"
queue = "100p"
[wireless.snr]
mean_db = 40

[[flow]]
name = "ftp"
direction = "{direction}"
app = "file"
size = "2MB"

[[agent]]
scheme = "ucl"
at = "bs"
{sec}

[[agent]]
scheme = "ucl"
at = "hosts"
{sec}
"#
    )
}

fn load(text: &str) -> Scenario {
    scenario::load_str(text, "t.toml", std::path::Path::new("."), &[]).unwrap()
}

fn run(s: &Scenario) -> Summary {
    let mut w = World::new(s.clone(), 1, Output::none());
    assert!(w.run(None));
    let sum = w.summary(scenario::echo(s));
    assert!(sum.accounting.balances(), "{:?}", sum.accounting);
    sum
}

fn security(s: &Summary) -> UclSecStats {
    s.agents
        .0
        .iter()
        .find_map(|(_, a)| match a {
            AgentStats::Ucl(u) => u.security.as_deref().cloned(),
            _ => None,
        })
        .expect("the ucl section has a security part")
}

#[test]
fn security_on_delivers_the_same_bytes_a_little_slower() {
    let off = run(&load(&scenario_text("", "down")));
    let on = run(&load(&scenario_text(r#"security = "on""#, "down")));
    let (f_off, f_on) = (&off.flows[0], &on.flows[0]);
    assert_eq!(f_off.bytes_delivered, 2_000_000);
    assert_eq!(f_on.bytes_delivered, f_off.bytes_delivered);
    let (t_off, t_on) = (f_off.completion_s.unwrap(), f_on.completion_s.unwrap());
    // 28 bytes more on every frame of ~1500: slower, by a few per cent.
    assert!(t_on > t_off, "on {t_on} s, off {t_off} s");
    assert!(t_on < t_off * 1.1, "on {t_on} s, off {t_off} s");
    let s = security(&on);
    assert_eq!(s.link.handshakes_done, 2, "{s:?}");
    assert_eq!(s.link.handshakes_failed, 0);
    assert_eq!(s.handshake_frames, 3);
    assert!(s.link_up_s.unwrap() > 0.0);
    // Every frame both ways sealed and opened, none dropped.
    assert!(s.link.sealed > 1000);
    assert_eq!(s.dropped(), 0, "{s:?}");
    assert_eq!(s.overhead_bytes, 28 * s.link.sealed);
    // The data waited for the link: the SYN was held.
    assert!(s.held >= 1);
}

#[test]
fn the_oracle_counts_the_overhead() {
    let bulk = |sec: &str| {
        let t = scenario_text(sec, "down")
            .replace("app = \"file\"\nsize = \"2MB\"", "app = \"bulk\"")
            .replace("duration = \"20s\"", "duration = \"2s\"");
        run(&load(&t))
    };
    let (off, on) = (bulk(""), bulk("security = \"on\""));
    let (o_off, o_on) = (off.flows[0].oracle_bps, on.flows[0].oracle_bps);
    // 28 bytes on 1500-byte frames and on the ACKs, over two hops: the
    // bound drops by about 1 %, and the goodput with it.
    assert!(
        o_on < o_off * 0.995 && o_on > o_off * 0.97,
        "{o_on} vs {o_off}"
    );
    let (g_off, g_on) = (off.flows[0].goodput_bps, on.flows[0].goodput_bps);
    assert!(g_on < g_off, "{g_on} vs {g_off}");
    assert!(on.flows[0].efficiency <= 1.0);
}

#[test]
fn rekeying_moves_both_directions_and_loses_nothing() {
    let keys = "security = \"on\"\nrekey_frames = 100\n";
    let on = run(&load(&scenario_text(keys, "down")));
    assert_eq!(on.flows[0].bytes_delivered, 2_000_000);
    let s = security(&on);
    assert!(s.link.rekeys_tx >= 10, "{s:?}");
    assert!(s.link.rekeys_rx >= 10, "{s:?}");
    assert_eq!(s.dropped(), 0, "{s:?}");
    let bytes = "security = \"on\"\nrekey_bytes = \"100kB\"\n";
    let s = security(&run(&load(&scenario_text(bytes, "down"))));
    // 2 MB of data at 100 kB a key: about 20 re-keys downstream.
    assert!(s.link.rekeys_tx >= 19, "{s:?}");
}

#[test]
fn tampered_frames_are_dropped_and_counted_and_tcp_recovers() {
    let keys = "security = \"on\"\ntamper_every = 50\n";
    let on = run(&load(&scenario_text(keys, "down")));
    let f = &on.flows[0];
    assert_eq!(f.bytes_delivered, 2_000_000, "TCP recovered every byte");
    let s = security(&on);
    assert!(s.tampered_on_air > 20, "{s:?}");
    // Every tampered frame that reached the other end failed its check:
    // none was delivered (a tampered frame the MAC lost never arrives).
    assert!(s.link.tampered > 0);
    assert!(s.link.tampered <= s.tampered_on_air);
    assert_eq!(s.mismatch, 0);
    assert!(f.retransmissions > 0);
    // The drops are the world's too.
    assert!(on.accounting.dropped >= s.link.tampered);
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn a_peer_with_the_wrong_key_gets_no_flow_through() {
    use xltcp_core::schemes::ucl::security::Identity;
    let dir = std::env::temp_dir().join(format!("xltcp-ucl-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bs = Identity::generate(7, "bs");
    let host = Identity::generate(7, "host");
    let impostor = Identity::generate(7, "impostor");
    let bs_key = write(&dir, "bs.key", &bs.to_file_string());
    let host_key = write(&dir, "host.key", &host.to_file_string());
    let bad_key = write(&dir, "impostor.key", &impostor.to_file_string());
    let bs_trusts = write(&dir, "bs.trusted", &format!("{} host\n", host.public()));
    let host_trusts = write(&dir, "host.trusted", &format!("{} bs\n", bs.public()));
    let text = |host_identity: &str, direction: &str| {
        let t = scenario_text("SEC", direction);
        let bs_sec = format!(
            "security = \"on\"\nkeys = \"files\"\nidentity = '{bs_key}'\ntrusted = '{bs_trusts}'\nhandshake_tries = 3\n"
        );
        let host_sec = format!(
            "security = \"on\"\nkeys = \"files\"\nidentity = '{host_identity}'\ntrusted = '{host_trusts}'\nhandshake_tries = 3\n"
        );
        t.replacen("SEC", &bs_sec, 1).replacen("SEC", &host_sec, 1)
    };
    // The right keys from files: the flow completes.
    let good = run(&load(&text(&host_key, "down")));
    assert_eq!(good.flows[0].bytes_delivered, 2_000_000);
    assert_eq!(security(&good).link.handshakes_done, 2);
    // An identity the BS does not trust: the BS refuses message 3.
    for direction in ["down", "up"] {
        let bad = run(&load(&text(&bad_key, direction)));
        assert_eq!(bad.flows[0].bytes_delivered, 0, "{direction}");
        let s = security(&bad);
        assert_eq!(s.link.handshakes_failed, 1, "{direction}: {s:?}");
        assert!(
            s.errors
                .iter()
                .any(|e| e.contains("bs/host0") && e.contains("not trusted")),
            "{direction}: {:?}",
            s.errors
        );
        // Nothing of the flow's got through the BS.
        assert!(
            s.link_down + s.link.not_authenticated > 0,
            "{direction}: {s:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_security_keys_are_refused_with_their_names() {
    let e = scenario::load_str(
        &scenario_text("tamper_every = 3", "down"),
        "t.toml",
        std::path::Path::new("."),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("tamper_every") && e.contains("security"), "{e}");
    let e = scenario::load_str(
        &scenario_text("security = \"on\"\nkeys = \"files\"\nidentity = \"nowhere.key\"\ntrusted = \"nowhere.keys\"", "down"),
        "t.toml",
        std::path::Path::new("."),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("identity") && e.contains("nowhere.key"), "{e}");
    // One half secured, the other not.
    let t = scenario_text("SEC", "down")
        .replacen("SEC", "security = \"on\"", 1)
        .replacen("SEC", "", 1);
    let e = scenario::load_str(&t, "t.toml", std::path::Path::new("."), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("security"), "{e}");
}

#[test]
fn secured_runs_are_deterministic() {
    let s = load(&scenario_text(
        "security = \"on\"\ntamper_every = 40",
        "down",
    ));
    let a = serde_json::to_string(&run(&s).flows).unwrap();
    let b = serde_json::to_string(&run(&s).flows).unwrap();
    assert_eq!(a, b);
}

#[test]
fn the_shipped_key_files_authenticate_both_ends() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/ucl/link-secured-keys.toml");
    let s = scenario::load_file(&path, &["sim.duration=1s".to_string()]).unwrap();
    let sum = run(&s);
    let sec = security(&sum);
    assert_eq!(sec.link.handshakes_done, 2, "{sec:?}");
    assert_eq!(sec.dropped(), 0, "{sec:?}");
    assert!(sum.flows[0].bytes_delivered > 1_000_000);
    // The echo names the files as the scenario does, not where they were found.
    let echo = serde_json::to_string(&scenario::echo(&s)).unwrap();
    assert!(echo.contains("\"identity\":\"keys/bs.key\""), "{echo}");
}
