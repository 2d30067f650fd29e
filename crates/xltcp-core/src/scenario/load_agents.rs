//! `[[agent]]` entries: the schemes placed on nodes, in the order they see
//! packets on a node.
//!
//! ```toml
//! [[agent]]
//! scheme = "cr_aware"        # which scheme
//! at = "hosts"               # "bs", "hosts" (every wireless host) or a host's name
//! max_freeze = "30s"         # the scheme's own keys
//! ```
//!
//! Paper 000's schemes (`cr_aware`, `lr_bs`, `lr_sender`) need the
//! 802.15.4 hop and `dsasync` the 802.11 hop; `snoop` (at the BS) runs on
//! any hop; `c_snoop` (at the BS and/or at hosts: one entry each) needs a
//! hop whose MAC reports each frame's delivery (`"wifi"`, `"lrwpan"`);
//! `snack` (SNACK-S at the BS, SNACK-TCP at hosts) needs the flows' SACK
//! option; `ucl` (at the BS and at hosts: one entry each) needs several
//! `[[wireless]]` hops. `clamp` and `l2clamp` (paper 004) name the receivers
//! (`at` = "hosts" or a host's name); their BS half goes to the BS with
//! them, and they need the 802.11 hop (its MAC's delivery reports).

use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use super::tree::Val;
use crate::schemes::clamp::{ClampConfig, Growth, HalvingRule, WindowUpdates};
use crate::schemes::dsasync::{DsaSyncConfig, MaxWait, RateOver, Smoothing};
use crate::schemes::ucl::security::{Identity, SecConfig, TrustedPeers, MAX_REPLAY_WINDOW};
use crate::schemes::ucl::{Adversary, KeySource, Rule, SecuritySpec, UclConfig};
use crate::time::Dur;
use std::path::Path;

const SCHEMES: &[(&str, u8)] = &[
    ("cr_aware", 0),
    ("lr_bs", 1),
    ("lr_sender", 2),
    ("dsasync", 3),
    ("snoop", 4),
    ("c_snoop", 5),
    ("snack", 6),
    ("ucl", 7),
    ("clamp", 8),
    ("l2clamp", 9),
];
const UCL_RULES: &[(&str, u8)] = &[("threshold", 0), ("hysteresis", 1), ("goodput", 2)];
const REORDERS: &[(&str, bool)] = &[("barrier", true), ("none", false)];
const ON_OFF: &[(&str, bool)] = &[("on", true), ("off", false)];
const KEY_SOURCES: &[(&str, bool)] = &[("seed", false), ("files", true)];
const ADVERSARIES: &[(&str, Adversary)] = &[
    ("replay", Adversary::Replay),
    ("inject", Adversary::Inject),
    ("reflect", Adversary::Reflect),
    ("drop_handshake", Adversary::DropHandshake),
];
/// The keys of the UCL's security (read only with `security = "on"`).
const SECURITY_KEYS: &[&str] = &[
    "keys",
    "identity",
    "trusted",
    "replay_window",
    "rekey_frames",
    "rekey_bytes",
    "rekey_grace",
    "handshake_timeout",
    "handshake_backoff_max",
    "handshake_tries",
    "max_held",
    "tamper_every",
    "adversary",
    "adversary_every",
    "seeded_keys",
];
const SMOOTHINGS: &[(&str, Smoothing)] = &[
    ("cell", Smoothing::Cell),
    ("node", Smoothing::Node),
    ("off", Smoothing::Off),
];
const LR_SENDER_MODES: &[(&str, LocalRecoverySpec)] = &[
    ("phy", LocalRecoverySpec::Phy),
    ("tcp", LocalRecoverySpec::Tcp),
];

/// The `[[agent]]` entries; `flows` name the wireless hosts
/// ([`FlowSpec::host_name`]), `hop` is the wireless hop's kind and
/// `base_dir` the folder key files are read from.
pub(super) fn read_agents(
    cx: &mut Cx,
    root: &mut Tab,
    flows: &[FlowSpec],
    hop: &HopKind,
    hops: usize,
    base_dir: &Path,
) -> Vec<AgentSpec> {
    let items = root.tables(cx, "agent");
    let mut agents = Vec::new();
    let mut secured = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut t = Tab::of(cx, format!("agent.{i}"), item);
        if let Some(a) = read_agent(cx, &mut t, flows, hop, hops, base_dir) {
            if let AgentScheme::Ucl(c) = &a.scheme {
                secured.push((
                    t.loc_of("security"),
                    t.key("security"),
                    a.at.clone(),
                    c.security.is_some(),
                ));
            }
            agents.push(a);
        }
        t.finish(cx);
    }
    // The UCL's security runs in pairs: on at the BS and at the hosts, or
    // nowhere.
    if secured.iter().any(|s| s.3) {
        let bs = secured.iter().any(|s| s.2 == AgentPlace::Bs);
        let host = secured.iter().any(|s| s.2 != AgentPlace::Bs);
        for (loc, key, _, on) in &secured {
            if !*on {
                let msg =
                    "another ucl entry runs security; the BS half and the host half must both";
                cx.err(loc, key, msg, Some("security = \"on\" on every ucl entry"));
            } else if !(bs && host) {
                let msg = "security needs a ucl entry at the BS and one at the hosts (the two ends of the link)";
                cx.err(
                    loc,
                    key,
                    msg,
                    Some("[[agent]] scheme = \"ucl\" at = \"bs\" and at = \"hosts\""),
                );
            }
        }
    }
    agents
}

/// Where a scheme may run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Runs {
    /// At the base station only.
    Bs,
    /// At wireless hosts only.
    Hosts,
    /// At the base station or at wireless hosts.
    Either,
}

fn read_agent(
    cx: &mut Cx,
    t: &mut Tab,
    flows: &[FlowSpec],
    hop: &HopKind,
    hops: usize,
    base_dir: &Path,
) -> Option<AgentSpec> {
    if !t.has("scheme") {
        let names = "\"cr_aware\", \"lr_bs\", \"lr_sender\", \"dsasync\", \"snoop\", \"c_snoop\", \"snack\", \"ucl\", \"clamp\", \"l2clamp\"";
        cx.err(
            &t.loc_of("scheme"),
            &t.key("scheme"),
            "missing",
            Some(names),
        );
        return None;
    }
    let which = t.read(cx, "scheme", 0, rd::choice(SCHEMES));
    let place = t.read(cx, "at", String::from("hosts"), rd::string);
    let at = match place.as_str() {
        "bs" => AgentPlace::Bs,
        "hosts" => AgentPlace::Hosts,
        name if flows.iter().any(|f| f.host_name() == name) => AgentPlace::Host(name.to_string()),
        name => {
            let msg = format!("no wireless host is called \"{name}\"");
            t.invalid(cx, "at", msg, "\"bs\", \"hosts\" or a wireless host's name");
            AgentPlace::Hosts
        }
    };
    let at_bs = at == AgentPlace::Bs;
    let scheme = match which {
        0 => {
            let d = SchemesSpec::default();
            let max_freeze = positive(cx, t, "max_freeze", d.cr_max_freeze);
            let probe_interval = positive(cx, t, "probe_interval", d.cr_probe_interval);
            let failures = i128::from(d.cr_access_failures);
            let access_failures = t.read(cx, "access_failures", failures, rd::int_in(1, 100));
            AgentScheme::CrAware {
                max_freeze,
                probe_interval,
                access_failures: access_failures as u32,
            }
        }
        1 => AgentScheme::LrBs,
        3 => AgentScheme::DsaSync(read_dsasync(cx, t)),
        4 => AgentScheme::Snoop,
        5 => AgentScheme::CSnoop,
        6 => AgentScheme::Snack,
        7 => AgentScheme::Ucl(read_ucl(cx, t, base_dir)),
        8 => AgentScheme::Clamp(read_clamp(cx, t)),
        9 => AgentScheme::L2Clamp(read_clamp(cx, t)),
        _ => {
            let mode = t.read(
                cx,
                "mode",
                LocalRecoverySpec::Tcp,
                rd::choice(LR_SENDER_MODES),
            );
            let buffer = t.read(cx, "buffer", 64, rd::int_in(1, 4096)) as u32;
            AgentScheme::LrSender { mode, buffer }
        }
    };
    let (runs, name) = match scheme {
        AgentScheme::CrAware { .. } => (Runs::Hosts, "cr_aware"),
        AgentScheme::LrBs => (Runs::Bs, "lr_bs"),
        AgentScheme::LrSender { .. } => (Runs::Hosts, "lr_sender"),
        AgentScheme::DsaSync(_) => (Runs::Bs, "dsasync"),
        AgentScheme::Snoop => (Runs::Bs, "snoop"),
        AgentScheme::CSnoop => (Runs::Either, "c_snoop"),
        AgentScheme::Snack => (Runs::Either, "snack"),
        AgentScheme::Ucl(_) => (Runs::Either, "ucl"),
        AgentScheme::Clamp(_) => (Runs::Hosts, "clamp"),
        AgentScheme::L2Clamp(_) => (Runs::Hosts, "l2clamp"),
    };
    if runs != Runs::Either && (runs == Runs::Bs) != at_bs {
        let (msg, allowed) = if runs == Runs::Bs {
            (format!("{name} runs at the base station"), "at = \"bs\"")
        } else {
            (
                format!("{name} runs at wireless hosts"),
                "at = \"hosts\" or a host's name",
            )
        };
        t.invalid(cx, "at", msg, allowed);
    }
    let wifi = matches!(hop, HopKind::Wifi(_));
    match scheme {
        AgentScheme::DsaSync(_) if !wifi && !matches!(hop, HopKind::Lrwpan(_)) => {
            let msg = "dsasync needs the 802.11 hop (its TFP and capacity signals) or the \
                       802.15.4 hop (its PU detector)";
            t.invalid(
                cx,
                "scheme",
                msg,
                "[wireless] kind = \"wifi\" or \"lrwpan\"",
            );
        }
        AgentScheme::DsaSync(_) | AgentScheme::Snoop => {}
        AgentScheme::CSnoop if matches!(hop, HopKind::P2p) => {
            let msg = format!("{name} needs the MAC's delivery reports, which the p2p hop has not");
            t.invalid(
                cx,
                "scheme",
                msg,
                "[wireless] kind = \"wifi\" or \"lrwpan\"",
            );
        }
        AgentScheme::CSnoop => {}
        AgentScheme::Ucl(ref c) if hops < 2 && c.security.is_none() => {
            let msg = "ucl chooses among a host's interfaces, and this scenario gives one";
            let allowed = "two or more [[wireless]] entries (or security = \"on\": the UCL as a security layer over one)";
            t.invalid(cx, "scheme", msg, allowed);
        }
        AgentScheme::Ucl(_) => {}
        AgentScheme::Clamp(_) | AgentScheme::L2Clamp(_) if !wifi => {
            let msg = format!("{name} needs the 802.11 hop (its MAC's delivery reports)");
            t.invalid(cx, "scheme", msg, "[wireless] kind = \"wifi\"");
        }
        AgentScheme::Clamp(_) | AgentScheme::L2Clamp(_) => {}
        AgentScheme::Snack => {
            if let Some(f) = flows.iter().find(|f| !f.tcp.sack) {
                let msg = format!(
                    "snack reads the mobile host's SACK blocks, but flow {} has sack = false",
                    f.name
                );
                t.invalid(cx, "scheme", msg, "[tcp] sack = true");
            }
        }
        _ if !matches!(hop, HopKind::Lrwpan(_)) => {
            let msg = format!("{name} needs the 802.15.4 hop (its PU detector and MAC)");
            t.invalid(cx, "scheme", msg, "[wireless] kind = \"lrwpan\"");
        }
        _ => {}
    }
    Some(AgentSpec { scheme, at })
}

/// The keys of a `ucl` agent (defaults: [`UclConfig::ours`]).
fn read_ucl(cx: &mut Cx, t: &mut Tab, base_dir: &Path) -> UclConfig {
    let d = UclConfig::ours();
    let db = t.read(cx, "threshold", 25.0, rd::number);
    let margin = t.read(cx, "hysteresis_db", 3.0, rd::number);
    if margin < 0.0 {
        let msg = format!("{margin} dB: the band's half-width cannot be negative");
        t.invalid(cx, "hysteresis_db", msg, "dB >= 0, e.g. hysteresis_db = 3");
    }
    let gain = fraction(cx, t, "gain", 0.1, false);
    let fade = t.read(cx, "margin_db", 0.0, rd::number);
    if !(fade.is_finite() && fade >= 0.0) {
        t.invalid(cx, "margin_db", "must be a margin in dB", ">= 0, e.g. 3");
    }
    let rule = match t.read(cx, "rule", 2, rd::choice(UCL_RULES)) {
        0 => Rule::Threshold { db },
        1 => Rule::Hysteresis { db, margin },
        _ => Rule::Goodput { gain, margin: fade },
    };
    let dwell = t.read(cx, "dwell", d.dwell, rd::dur);
    let barrier = t.read(cx, "reorder", d.barrier, rd::choice(REORDERS));
    let max_hold = positive(cx, t, "max_hold", d.max_hold);
    let resend = t.read(cx, "resend", d.resend, rd::boolean);
    let on = t.read(cx, "security", false, rd::choice(ON_OFF));
    let security = if on {
        Some(read_security(cx, t, base_dir))
    } else {
        for key in SECURITY_KEYS.iter().filter(|k| t.has(k)) {
            let msg = "a key of the UCL's security, which is off";
            t.invalid(cx, key, msg, "security = \"on\" (or leave the key out)");
        }
        None
    };
    UclConfig {
        rule,
        dwell,
        barrier,
        max_hold,
        resend,
        security,
    }
}

/// The keys of the UCL's security (defaults: [`SecuritySpec::default`]).
fn read_security(cx: &mut Cx, t: &mut Tab, base_dir: &Path) -> SecuritySpec {
    let d = SecuritySpec::default();
    let files = t.read(cx, "keys", false, rd::choice(KEY_SOURCES));
    let keys = if files {
        let identity = t.required(cx, "identity", "\"host.key\"", rd::string);
        let trusted = t.required(cx, "trusted", "\"trusted.keys\"", rd::string);
        let written = [
            identity.clone().unwrap_or_default(),
            trusted.clone().unwrap_or_default(),
        ];
        let identity = identity.map(|f| base_dir.join(f));
        let trusted = trusted.map(|f| base_dir.join(f));
        // A key file is checked (a regular file, bounded) before it is read.
        let checked = |p: &Path| {
            super::files::check(p, super::files::MAX_SCENARIO_BYTES)
                .map_err(|e| format!("cannot read \"{}\": {e}", p.display()))
        };
        if let Some(p) = identity.as_ref() {
            let allowed = "a file holding one X25519 private key, 64 hex digits";
            if let Err(e) = checked(p).and_then(|_| Identity::load(p).map_err(|e| e.to_string())) {
                t.invalid(cx, "identity", e, allowed);
            }
        }
        if let Some(p) = trusted.as_ref() {
            let allowed = "a file of X25519 public keys, 64 hex digits each, one a line";
            if let Err(e) =
                checked(p).and_then(|_| TrustedPeers::load(p).map_err(|e| e.to_string()))
            {
                t.invalid(cx, "trusted", e, allowed);
            }
        }
        KeySource::Files {
            identity: identity.unwrap_or_default(),
            trusted: trusted.unwrap_or_default(),
            written,
        }
    } else {
        for key in ["identity", "trusted"].iter().filter(|k| t.has(k)) {
            let msg = "a key file, but keys = \"seed\" (identities from the run's seed)";
            t.invalid(cx, key, msg, "keys = \"files\" with identity and trusted");
        }
        KeySource::Seed
    };
    let s = d.session;
    let window = i128::from(MAX_REPLAY_WINDOW);
    let replay_window = t.read(
        cx,
        "replay_window",
        i128::from(s.replay_window),
        rd::int_in(1, window),
    ) as u32;
    let frames = s.rekey_after_frames.map_or(0, i128::from);
    let rekey_frames = t.read(
        cx,
        "rekey_frames",
        frames,
        rd::int_in(0, i128::from(u64::MAX)),
    );
    let grace = i128::from(s.rekey_grace_frames);
    let rekey_grace = t.read(cx, "rekey_grace", grace, rd::int_in(0, window)) as u32;
    let rekey_bytes = t.read_opt(cx, "rekey_bytes", rd::size);
    if rekey_bytes == Some(0) {
        t.invalid(
            cx,
            "rekey_bytes",
            "must be at least one byte",
            "e.g. \"10MB\" (or leave it out)",
        );
    }
    let handshake_timeout = positive(cx, t, "handshake_timeout", d.handshake_timeout);
    let max_wait = d.handshake_backoff_max.max(handshake_timeout);
    let handshake_backoff_max = positive(cx, t, "handshake_backoff_max", max_wait);
    if handshake_backoff_max < handshake_timeout {
        let msg = format!(
            "{}, shorter than handshake_timeout ({}): the back-off starts at handshake_timeout \
             and doubles up to handshake_backoff_max",
            super::units::format_duration(handshake_backoff_max),
            super::units::format_duration(handshake_timeout)
        );
        let allowed = "a duration >= handshake_timeout, e.g. \"5s\"";
        t.invalid(cx, "handshake_backoff_max", msg, allowed);
    }
    let tries = i128::from(d.handshake_tries);
    let handshake_tries = t.read(cx, "handshake_tries", tries, rd::int_in(1, 1000)) as u32;
    let max_held = t.read(
        cx,
        "max_held",
        i128::from(d.max_held),
        rd::int_in(1, 100_000),
    ) as u32;
    // What this entry's own node's frames suffer on the air.
    let tamper_every = t.read(cx, "tamper_every", 0, rd::int_in(0, i128::from(u64::MAX))) as u64;
    let adversary = t.read_opt(cx, "adversary", rd::choice(ADVERSARIES));
    let every = i128::from(d.adversary_every);
    let adversary_every = t.read(cx, "adversary_every", every, rd::int_in(1, 1_000_000_000)) as u64;
    if adversary.is_none() && t.has("adversary_every") {
        let msg = "how often the adversary acts, but there is no adversary";
        let allowed = "adversary = \"replay\", \"inject\", \"reflect\" or \"drop_handshake\" (or leave the key out)";
        t.invalid(cx, "adversary_every", msg, allowed);
    }
    let seeded_keys = t.read(cx, "seeded_keys", d.seeded_keys, rd::boolean);
    SecuritySpec {
        keys,
        session: SecConfig {
            replay_window,
            rekey_after_frames: (rekey_frames > 0).then_some(rekey_frames as u64),
            rekey_grace_frames: rekey_grace,
        },
        rekey_bytes,
        handshake_timeout,
        handshake_backoff_max,
        handshake_tries,
        max_held,
        tamper_every,
        adversary,
        adversary_every,
        seeded_keys,
    }
}

/// The keys of a `dsasync` agent (defaults: [`DsaSyncConfig::default`]).
fn read_dsasync(cx: &mut Cx, t: &mut Tab) -> DsaSyncConfig {
    let d = DsaSyncConfig::default();
    let buffer = t.read(cx, "buffer", d.buffer, rd::size);
    let b_low = t.read(cx, "b_low", d.b_low, rd::size);
    let b_high = t.read(cx, "b_high", d.b_high, rd::size);
    if !(b_low < b_high && b_high <= buffer) {
        let msg = format!("need b_low < b_high <= buffer (got {b_low} B, {b_high} B, {buffer} B)");
        t.invalid(
            cx,
            "b_high",
            msg,
            "e.g. buffer = \"500MB\", b_low = \"400MB\", b_high = \"500MB\"",
        );
    }
    // alpha_min bounds the pacing delay: above 0.
    let alpha_min = fraction(cx, t, "alpha_min", d.alpha_min, true);
    let window = positive(cx, t, "window", d.window);
    // TCP's share of the PHY rate.
    let efficiency = fraction(cx, t, "efficiency", d.efficiency, true);
    let smoothing = t.read(cx, "smoothing", d.smoothing, rd::choice(SMOOTHINGS));
    let tx_window = t.read(cx, "tx_window", d.tx_window as i128, rd::int_in(1, 100_000)) as usize;
    let rate_over = t.read(cx, "rate_over", d.rate_over, rd::choice(&RateOver::NAMES));
    let max_wait = t.read(cx, "max_wait", d.max_wait, rd::choice(&MaxWait::NAMES));
    DsaSyncConfig {
        rate_over,
        max_wait,
        buffer,
        b_low,
        b_high,
        alpha_min,
        window,
        efficiency,
        smoothing,
        tx_window,
    }
}

/// The keys of `clamp` and `l2clamp` (defaults: [`ClampConfig::default`]).
fn read_clamp(cx: &mut Cx, t: &mut Tab) -> ClampConfig {
    let d = ClampConfig::default();
    let target_delay = t.read(cx, "target_delay", d.target_delay, rd::dur);
    let tau = t.read(cx, "tau", d.tau, rd::size);
    if tau == 0 {
        t.invalid(cx, "tau", "must be above 0", "bytes, e.g. \"1500B\"");
    }
    let rate_time = positive(cx, t, "rate_time", d.rate_time);
    let seg = |t: &mut Tab, cx: &mut Cx, key: &'static str, default: u32| {
        t.read(cx, key, i128::from(default), rd::int_in(1, 100_000)) as u32
    };
    let min_window = seg(t, cx, "min_window", d.min_window);
    let initial_window = seg(t, cx, "initial_window", d.initial_window);
    // A number of packets, or "measured" (the default: target_delay at the
    // measured service rate).
    let alpha = t.read(cx, "alpha", None, |v| match v {
        Val::Str(s) if s == "measured" => Ok(None),
        Val::Int(_) | Val::Float(_) => rd::number(v).map(Some),
        v => Err(format!(
            "expected \"measured\" or a number of packets, got {}",
            v.type_name()
        )),
    });
    if alpha.is_some_and(|a| !(a.is_finite() && (0.0..=1e6).contains(&a))) {
        t.invalid(
            cx,
            "alpha",
            "must be a number of packets in 0..=1e6",
            "packets, e.g. 5",
        );
    }
    let growth = t.read(cx, "growth", d.growth, rd::choice(&Growth::NAMES));
    let halving = t.read(cx, "halving", d.halving, rd::choice(&HalvingRule::NAMES));
    let window_updates = t.read(
        cx,
        "window_updates",
        d.window_updates,
        rd::choice(&WindowUpdates::NAMES),
    );
    ClampConfig {
        window_updates,
        target_delay,
        alpha,
        growth,
        halving,
        tau,
        rate_time,
        min_window,
        initial_window,
    }
}

/// A fraction `key` in [0, 1], or (0, 1] when `above_zero`; the default
/// when absent or refused.
fn fraction(cx: &mut Cx, t: &mut Tab, key: &'static str, default: f64, above_zero: bool) -> f64 {
    let v = t.read(cx, key, default, rd::prob);
    let low_ok = if above_zero { v > 0.0 } else { v >= 0.0 };
    if low_ok && v <= 1.0 {
        return v;
    }
    let allowed = if above_zero {
        format!("0 < {key} <= 1, e.g. {key} = {default}")
    } else {
        format!("0 <= {key} <= 1, e.g. {key} = {default}")
    };
    t.invalid(cx, key, format!("{v} is out of range"), &allowed);
    default
}

fn positive(cx: &mut Cx, t: &mut Tab, key: &'static str, default: Dur) -> Dur {
    let v = t.read(cx, key, default, rd::dur);
    if v == Dur::ZERO {
        t.invalid(cx, key, "must be longer than 0", "a duration > 0");
    }
    v
}
