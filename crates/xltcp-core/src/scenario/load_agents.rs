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
//! 802.15.4 hop; `snoop` (at the BS) runs on any hop; `c_snoop` (at the BS
//! and/or at hosts: one entry each) needs a hop whose MAC reports each
//! frame's delivery (`"wifi"`, `"lrwpan"`); `snack` (SNACK-S at the BS,
//! SNACK-TCP at hosts) needs the flows' SACK option.

use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use super::tree::{Node, Val};
use crate::time::Dur;

const SCHEMES: &[(&str, u8)] = &[
    ("cr_aware", 0),
    ("lr_bs", 1),
    ("lr_sender", 2),
    ("snoop", 3),
    ("c_snoop", 4),
    ("snack", 5),
];
const LR_SENDER_MODES: &[(&str, LocalRecoverySpec)] = &[
    ("phy", LocalRecoverySpec::Phy),
    ("tcp", LocalRecoverySpec::Tcp),
];

/// The `[[agent]]` entries; `flows` name the wireless hosts
/// ([`FlowSpec::host_name`]); `hop` is the wireless hop's kind.
pub(super) fn read_agents(
    cx: &mut Cx,
    root: &mut Tab,
    flows: &[FlowSpec],
    hop: &HopKind,
) -> Vec<AgentSpec> {
    let items: &[Node] = match root.get("agent") {
        None => return Vec::new(),
        Some(Node {
            val: Val::Array(items),
            ..
        }) => items,
        Some(node) => {
            let msg = format!(
                "expected [[agent]] entries (an array of tables), got {}",
                node.val.type_name()
            );
            cx.err(&node.loc, "agent", msg, Some("[[agent]] tables"));
            return Vec::new();
        }
    };
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

fn read_agent(cx: &mut Cx, t: &mut Tab, flows: &[FlowSpec], hop: &HopKind) -> Option<AgentSpec> {
    let lrwpan = matches!(hop, HopKind::Lrwpan(_));
    if !t.has("scheme") {
        let names = "\"cr_aware\", \"lr_bs\", \"lr_sender\", \"snoop\", \"c_snoop\", \"snack\"";
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
        3 => AgentScheme::Snoop,
        4 => AgentScheme::CSnoop,
        5 => AgentScheme::Snack,
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
    // Where it runs, and whether it needs the 802.15.4 hop.
    let (runs, name, needs_lrwpan) = match scheme {
        AgentScheme::CrAware { .. } => (Runs::Hosts, "cr_aware", true),
        AgentScheme::LrBs => (Runs::Bs, "lr_bs", true),
        AgentScheme::LrSender { .. } => (Runs::Hosts, "lr_sender", true),
        AgentScheme::Snoop => (Runs::Bs, "snoop", false),
        AgentScheme::CSnoop => (Runs::Either, "c_snoop", false),
        AgentScheme::Snack => (Runs::Either, "snack", false),
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
    if matches!(scheme, AgentScheme::CSnoop) && matches!(hop, HopKind::P2p) {
        let msg = format!("{name} needs the MAC's delivery reports, which the p2p hop has not");
        t.invalid(
            cx,
            "scheme",
            msg,
            "[wireless] kind = \"wifi\" or \"lrwpan\"",
        );
    }
    if matches!(scheme, AgentScheme::Snack) {
        if let Some(f) = flows.iter().find(|f| !f.tcp.sack) {
            let msg = format!(
                "snack reads the mobile host's SACK blocks, but flow {} has sack = false",
                f.name
            );
            t.invalid(cx, "scheme", msg, "[tcp] sack = true");
        }
    }
    if needs_lrwpan && !lrwpan {
        let msg = format!("{name} needs the 802.15.4 hop (its PU detector and MAC)");
        t.invalid(cx, "scheme", msg, "[wireless] kind = \"lrwpan\"");
    }
    Some(AgentSpec { scheme, at })
}

fn positive(cx: &mut Cx, t: &mut Tab, key: &'static str, default: Dur) -> Dur {
    let v = t.read(cx, key, default, rd::dur);
    if v == Dur::ZERO {
        t.invalid(cx, key, "must be longer than 0", "a duration > 0");
    }
    v
}
