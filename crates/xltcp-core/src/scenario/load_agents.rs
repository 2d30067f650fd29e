//! `[[agent]]` entries: the schemes placed on nodes, in the order they see
//! packets on a node.
//!
//! ```toml
//! [[agent]]
//! scheme = "cr_aware"        # which scheme
//! at = "hosts"               # "bs", "hosts" (every wireless host) or a host's name
//! max_freeze = "30s"         # the scheme's own keys
//! ```

use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use crate::schemes::dsasync::{DsaSyncConfig, Smoothing};
use crate::time::Dur;

const SCHEMES: &[(&str, u8)] = &[
    ("cr_aware", 0),
    ("lr_bs", 1),
    ("lr_sender", 2),
    ("dsasync", 3),
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
/// ([`FlowSpec::host_name`]) and `hop` is the wireless hop's kind.
pub(super) fn read_agents(
    cx: &mut Cx,
    root: &mut Tab,
    flows: &[FlowSpec],
    hop: &HopKind,
) -> Vec<AgentSpec> {
    let items = root.tables(cx, "agent");
    let mut agents = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut t = Tab::of(cx, format!("agent.{i}"), item);
        if let Some(a) = read_agent(cx, &mut t, flows, hop) {
            agents.push(a);
        }
        t.finish(cx);
    }
    agents
}

fn read_agent(cx: &mut Cx, t: &mut Tab, flows: &[FlowSpec], hop: &HopKind) -> Option<AgentSpec> {
    if !t.has("scheme") {
        let names = "\"cr_aware\", \"lr_bs\", \"lr_sender\", \"dsasync\"";
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
    let (wants_bs, name) = match scheme {
        AgentScheme::CrAware { .. } => (false, "cr_aware"),
        AgentScheme::LrBs => (true, "lr_bs"),
        AgentScheme::LrSender { .. } => (false, "lr_sender"),
        AgentScheme::DsaSync(_) => (true, "dsasync"),
    };
    if wants_bs != at_bs {
        let (msg, allowed) = if wants_bs {
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
    if matches!(scheme, AgentScheme::DsaSync(_)) {
        if !wifi {
            let msg = "dsasync needs the 802.11 hop (its TFP and capacity signals)";
            t.invalid(cx, "scheme", msg, "[wireless] kind = \"wifi\"");
        }
    } else if !matches!(hop, HopKind::Lrwpan(_)) {
        let msg = format!("{name} needs the 802.15.4 hop (its PU detector and MAC)");
        t.invalid(cx, "scheme", msg, "[wireless] kind = \"lrwpan\"");
    }
    Some(AgentSpec { scheme, at })
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
    let alpha_min = t.read(cx, "alpha_min", d.alpha_min, rd::prob);
    if alpha_min == 0.0 {
        t.invalid(
            cx,
            "alpha_min",
            "must be above 0 (it bounds the pacing delay)",
            "0 < alpha_min <= 1",
        );
    }
    let window = positive(cx, t, "window", d.window);
    let efficiency = t.read(cx, "efficiency", d.efficiency, rd::prob);
    let smoothing = t.read(cx, "smoothing", d.smoothing, rd::choice(SMOOTHINGS));
    let tx_window = t.read(cx, "tx_window", d.tx_window as i128, rd::int_in(1, 100_000)) as usize;
    DsaSyncConfig {
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

fn positive(cx: &mut Cx, t: &mut Tab, key: &'static str, default: Dur) -> Dur {
    let v = t.read(cx, key, default, rd::dur);
    if v == Dur::ZERO {
        t.invalid(cx, key, "must be longer than 0", "a duration > 0");
    }
    v
}
