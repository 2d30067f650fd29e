//! Loading: TOML text -> overrides -> one validating pass over every table
//! -> a [`Scenario`], or every problem found.

use std::collections::BTreeSet;
use std::path::Path;

use super::diag::{Diagnostic, Location, ScenarioError};
use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use super::tree::{self, Loc, Node};
use super::{intervals, units};
use crate::time::Dur;

/// At most this many flows after `count` expansion.
pub const MAX_FLOWS: usize = 10_000;

/// Longest flow name, count suffix included.
const MAX_NAME: usize = 64;

/// Names no wireless host may take: `[[agent]] at` gives them a meaning.
const RESERVED_HOSTS: &[&str] = &["bs", "hosts"];

/// Loads the scenario file at `path` and applies `overrides`
/// (`dotted.key=value`, see the module doc of `scenario`).
pub fn load_file(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let origin = path.display().to_string();
    let text = super::files::read_text(path, super::files::MAX_SCENARIO_BYTES).map_err(|e| {
        ScenarioError {
            errors: vec![Diagnostic {
                origin: origin.clone(),
                location: Location::Whole,
                key: String::new(),
                message: format!("cannot read the scenario file: {e}"),
                allowed: None,
            }],
        }
    })?;
    let base_dir = path.parent().unwrap_or(Path::new("."));
    load_str(&text, &origin, base_dir, overrides)
}

/// Loads a scenario from `text`. `origin` names it in diagnostics and gives
/// the default `name` (its file stem); relative paths inside it (an
/// availability file) are resolved against `base_dir`.
pub fn load_str(
    text: &str,
    origin: &str,
    base_dir: &Path,
    overrides: &[String],
) -> Result<Scenario, ScenarioError> {
    load_recording(text, origin, base_dir, overrides, false).0
}

/// Table path -> key -> whether the file wrote it (see [`Cx::keys`]).
pub(crate) type KeyRecord =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, bool>>;

/// What [`load_recording`] returns.
pub(crate) type Loaded = (Result<Scenario, ScenarioError>, Option<KeyRecord>);

/// [`load_str`], and when `record` every key the loader asked for, even
/// when the scenario has errors.
pub(crate) fn load_recording(
    text: &str,
    origin: &str,
    base_dir: &Path,
    overrides: &[String],
    record: bool,
) -> Loaded {
    let mut cx = Cx {
        origin,
        text,
        errors: Vec::new(),
        bases: Vec::new(),
        keys: record.then(KeyRecord::new),
    };
    let result = load_into(&mut cx, base_dir, overrides);
    (result, cx.keys.take())
}

fn load_into(
    cx: &mut Cx,
    base_dir: &Path,
    overrides: &[String],
) -> Result<Scenario, ScenarioError> {
    let (text, origin) = (cx.text, cx.origin);
    let doc = match tree::parse_document(text) {
        Ok(doc) => doc,
        Err(syntax) => {
            for (offset, key, msg) in super::syntax::explain(text, syntax) {
                let loc = offset.map_or(Loc::Nowhere, Loc::At);
                cx.err(&loc, &key, format!("TOML syntax: {msg}"), None);
            }
            return Err(ScenarioError {
                errors: std::mem::take(&mut cx.errors),
            });
        }
    };
    let mut chain = vec![super::extends::identity(origin, base_dir)];
    let mut doc = super::extends::resolve(cx, doc, base_dir, &mut chain);
    if !cx.errors.is_empty() {
        return Err(ScenarioError {
            errors: std::mem::take(&mut cx.errors),
        });
    }
    for text in overrides {
        match tree::parse_override(text) {
            Ok(ov) => {
                if let Err(msg) = tree::apply_override(&mut doc, &ov) {
                    cx.err(&Loc::Set, &ov.key, msg, None);
                }
            }
            Err((key, msg)) => cx.err(&Loc::Set, &key, msg, None),
        }
    }
    let default_name = Path::new(origin).file_stem().map_or_else(
        || "scenario".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let scenario = read_scenario(cx, &doc, &default_name, base_dir);
    if cx.errors.is_empty() {
        return Ok(scenario);
    }
    let mut errors = std::mem::take(&mut cx.errors);
    // File order first, then overrides, then whole-scenario problems.
    errors.sort_by_key(|d| match d.location {
        Location::File { line, col } => (0, line, col),
        Location::Override => (1, 0, 0),
        Location::Whole => (2, 0, 0),
    });
    Err(ScenarioError { errors })
}

/// The whole document.
fn read_scenario(cx: &mut Cx, doc: &Node, default_name: &str, base_dir: &Path) -> Scenario {
    let mut root = Tab::root(doc);
    let name = root.read(cx, "name", default_name.to_string(), rd::string);
    if name.trim().is_empty() {
        root.invalid(cx, "name", "must not be empty", "a non-empty label");
    } else if let Some(c) = name.chars().find(|c| c.is_control()) {
        // The name titles plots and names results folders.
        let msg = format!("contains the control character U+{:04X}", c as u32);
        root.invalid(cx, "name", msg, "a printable label");
    }
    let mut t = root.table(cx, "sim");
    let sim = read_sim(cx, &mut t);
    t.finish(cx);
    let mut t = root.table(cx, "tcp");
    let tcp = read_tcp(cx, &mut t, &TcpSpec::default());
    t.finish(cx);
    let mut t = root.table(cx, "wired");
    let mut wired = read_link(cx, &mut t, &tcp);
    wired.jitter = t.read(cx, "jitter", Dur::ZERO, rd::dur);
    let overhead = t.read(cx, "frame_overhead", 0, rd::size);
    if overhead > 65535 {
        t.invalid(cx, "frame_overhead", "is too large", "0B..=65535B");
    }
    wired.frame_overhead = overhead.min(65535) as u32;
    t.finish(cx);
    let (wireless, more_hops) = read_hops(cx, &mut root, &tcp, base_dir);
    let flows = read_flows(cx, &mut root, &tcp, &sim);
    super::load_cr::check_flow_mss(cx, &root, &wireless, &tcp, &flows);
    super::load_wifi::check_stations(cx, doc, &wireless, &flows);
    let mut t = root.table(cx, "output");
    let output = read_output(cx, &mut t);
    t.finish(cx);
    let mut t = root.table(cx, "schemes");
    let lrwpan = matches!(wireless.kind, HopKind::Lrwpan(_));
    let schemes = super::load_cr::read_schemes(cx, &mut t, lrwpan, &flows);
    t.finish(cx);
    let mut t = root.table(cx, "pu_detection");
    let pu_detection = super::load_cr::read_pu_detection(cx, &mut t);
    t.finish(cx);
    let mut t = root.table(cx, "hosts");
    let hosts = read_hosts(cx, &mut t);
    t.finish(cx);
    let hops = 1 + more_hops.len();
    let agents =
        super::load_agents::read_agents(cx, &mut root, &flows, &wireless.kind, hops, base_dir);
    // The UCL's security adds its bytes to every frame: the oracle counts them.
    let secured = agents
        .iter()
        .any(|a| matches!(&a.scheme, AgentScheme::Ucl(c) if c.security.is_some()));
    let mut flows = flows;
    if secured {
        for f in &mut flows {
            f.link_overhead = crate::schemes::ucl::secure::OVERHEAD;
        }
    }
    root.finish(cx);
    Scenario {
        name,
        sim,
        tcp,
        wired,
        wireless,
        more_hops,
        flows,
        output,
        schemes,
        pu_detection,
        agents,
        hosts,
    }
}

/// `[hosts]`.
fn read_hosts(cx: &mut Cx, t: &mut Tab) -> HostsSpec {
    HostsSpec {
        stack_delay: read_stack_time(cx, t, "stack_delay"),
        stack_jitter: read_stack_time(cx, t, "stack_jitter"),
    }
}

/// A `[hosts]` duration, at most a second.
fn read_stack_time(cx: &mut Cx, t: &mut Tab, key: &'static str) -> Dur {
    let d = t.read(cx, key, Dur::ZERO, rd::dur);
    if d > Dur::from_secs(1) {
        let allowed = "a duration from \"0s\" to \"1s\", e.g. \"50us\"";
        t.invalid(cx, key, "is longer than 1s", allowed);
    }
    d
}

/// `[sim]`.
fn read_sim(cx: &mut Cx, t: &mut Tab) -> SimSpec {
    let d = SimSpec::default();
    let duration = t.read(cx, "duration", d.duration, rd::dur);
    if duration == Dur::ZERO {
        t.invalid(
            cx,
            "duration",
            "must be longer than 0",
            "a duration > 0, e.g. \"60s\"",
        );
    }
    let seed = t.read(cx, "seed", d.seed, rd::seed);
    // Sampling goes on past the trace budget: its period bounds the events.
    let sample_interval = t.read(
        cx,
        "sample_interval",
        d.sample_interval,
        rd::dur_at_least(rd::MIN_PERIOD),
    );
    let threads = t.read(cx, "threads", i128::from(d.threads), rd::int_in(1, 2)) as u8;
    SimSpec {
        duration,
        seed,
        sample_interval,
        threads,
    }
}

const PROFILES: &[(&str, TcpProfile)] = &[("rfc", TcpProfile::Rfc), ("ns3", TcpProfile::Ns3)];
const MIN_RTO_MODES: &[(&str, MinRtoMode)] = &[
    ("rfc6298", MinRtoMode::Rfc6298),
    ("linux", MinRtoMode::Linux),
];
const RTT_ESTIMATORS: &[(&str, RttEstimatorKind)] = &[
    ("rfc6298", RttEstimatorKind::Rfc6298),
    ("linux", RttEstimatorKind::Linux),
];
const SSTHRESH_FROM: &[(&str, SsthreshFrom)] = &[
    ("flight_size", SsthreshFrom::FlightSize),
    ("cwnd", SsthreshFrom::Cwnd),
];
const FRTO_VARIANTS: &[(&str, FrtoVariant)] = &[
    ("rfc5682", FrtoVariant::Rfc5682),
    ("linux", FrtoVariant::Linux),
];
const RACK_VARIANTS: &[(&str, RackVariant)] = &[
    ("rfc8985", RackVariant::Rfc8985),
    ("linux", RackVariant::Linux),
];
const CUBIC_VARIANTS: &[(&str, CubicVariant)] = &[
    ("rfc9438", CubicVariant::Rfc9438),
    ("linux", CubicVariant::Linux),
];

const PRR_VARIANTS: &[(&str, PrrVariant)] = &[
    ("rfc6937", PrrVariant::Rfc6937),
    ("linux", PrrVariant::Linux),
];
const RTT_SAMPLINGS: &[(&str, RttSampling)] = &[
    ("timed", RttSampling::Timed),
    ("every_ack", RttSampling::EveryAck),
];
const RECOVERIES: &[(&str, RecoverySpec)] = &[
    ("newreno", RecoverySpec::NewReno),
    ("sack", RecoverySpec::Sack),
];

/// `[tcp]` or `[flow.tcp]`: every key defaults to `base`'s value.
fn read_tcp(cx: &mut Cx, t: &mut Tab, base: &TcpSpec) -> TcpSpec {
    let b = base.clone();
    let mss = t.read(cx, "mss", b.mss as u64, rd::size);
    if !(64..=65495).contains(&mss) {
        t.invalid(
            cx,
            "mss",
            format!("{mss} B is out of range"),
            "64B..=65495B",
        );
    }
    let iw = rd::int_in(1, 100);
    let da = rd::int_in(1, 64);
    let spec = TcpSpec {
        profile: t.read(cx, "profile", b.profile, rd::choice(PROFILES)),
        cc: t.read(cx, "cc", b.cc, rd::string),
        hystart: t.read(cx, "hystart", b.hystart, rd::boolean),
        recovery: t.read(cx, "recovery", b.recovery, rd::choice(RECOVERIES)),
        sack: t.read(cx, "sack", b.sack, rd::boolean),
        timestamps: t.read(cx, "timestamps", b.timestamps, rd::boolean),
        window_scale: t.read(cx, "window_scale", b.window_scale, rd::boolean),
        mss: mss.clamp(64, 65495) as u32,
        initial_window: t.read(cx, "initial_window", b.initial_window as i128, iw) as u32,
        abc_limit: t.read(cx, "abc_limit", b.abc_limit as i128, rd::int_in(0, 64)) as u32,
        limited_transmit: t.read(cx, "limited_transmit", b.limited_transmit, rd::boolean),
        delayed_ack_segments: t.read(cx, "delayed_ack", b.delayed_ack_segments as i128, da) as u32,
        delayed_ack_timeout: t.read(cx, "delayed_ack_timeout", b.delayed_ack_timeout, rd::dur),
        initial_rto: t.read(cx, "initial_rto", b.initial_rto, rd::dur),
        min_rto: t.read(cx, "min_rto", b.min_rto, rd::dur),
        max_rto: t.read(cx, "max_rto", b.max_rto, rd::dur),
        min_rto_mode: t.read(
            cx,
            "min_rto_mode",
            b.min_rto_mode,
            rd::choice(MIN_RTO_MODES),
        ),
        rtt_estimator: t.read(
            cx,
            "rtt_estimator",
            b.rtt_estimator,
            rd::choice(RTT_ESTIMATORS),
        ),
        ssthresh_from: t.read(
            cx,
            "ssthresh_from",
            b.ssthresh_from,
            rd::choice(SSTHRESH_FROM),
        ),
        frto: t.read(cx, "frto", b.frto, rd::boolean),
        frto_variant: t.read(
            cx,
            "frto_variant",
            b.frto_variant,
            rd::choice(FRTO_VARIANTS),
        ),
        rack: t.read(cx, "rack", b.rack, rd::boolean),
        rack_variant: t.read(
            cx,
            "rack_variant",
            b.rack_variant,
            rd::choice(RACK_VARIANTS),
        ),
        tlp: t.read(cx, "tlp", b.tlp, rd::boolean),
        rtt_sampling: t.read(
            cx,
            "rtt_sampling",
            b.rtt_sampling,
            rd::choice(RTT_SAMPLINGS),
        ),
        prr: t.read(cx, "prr", b.prr, rd::boolean),
        prr_variant: t.read(cx, "prr_variant", b.prr_variant, rd::choice(PRR_VARIANTS)),
        cubic_variant: t.read(
            cx,
            "cubic_variant",
            b.cubic_variant,
            rd::choice(CUBIC_VARIANTS),
        ),
        eifel: t.read(cx, "eifel", b.eifel, rd::boolean),
        dsack: t.read(cx, "dsack", b.dsack, rd::boolean),
        dsack_undo: t.read(cx, "dsack_undo", b.dsack_undo, rd::boolean),
        quickacks: t.read(cx, "quickacks", b.quickacks as i128, rd::int_in(0, 64)) as u32,
        ack_pushed: t.read(cx, "ack_pushed", b.ack_pushed, rd::boolean),
        delayed_ack_ato: t.read(cx, "delayed_ack_ato", b.delayed_ack_ato, rd::boolean),
        snd_buffer_auto: t.read(cx, "snd_buffer_auto", b.snd_buffer_auto, rd::boolean),
        ack_window_growth: t.read(cx, "ack_window_growth", b.ack_window_growth, rd::boolean),
        syn_linear_timeouts: t.read(
            cx,
            "syn_linear_timeouts",
            b.syn_linear_timeouts as i128,
            rd::int_in(0, 127),
        ) as u32,
        rcv_buffer: t.read(cx, "rcv_buffer", b.rcv_buffer, rd::size),
        snd_buffer: t.read(cx, "snd_buffer", b.snd_buffer, rd::size),
    };
    check_tcp(cx, t, &spec);
    spec
}

/// The rules of a TCP table. A rule that involves several keys is checked
/// where one of them is written, so a `[tcp]` mistake is not repeated for
/// every `[flow.tcp]`.
fn check_tcp(cx: &mut Cx, t: &Tab, s: &TcpSpec) {
    let written = |keys: &[&str]| keys.iter().any(|k| t.has(k));
    if !KNOWN_CC.contains(&s.cc.as_str()) {
        let msg = format!("unknown congestion control \"{}\"", s.cc);
        t.invalid(cx, "cc", msg, &KNOWN_CC.join(", "));
    }
    let dat = s.delayed_ack_timeout;
    // RFC 1122 4.2.3.2: an ACK must not be delayed by 500 ms or more.
    if dat == Dur::ZERO || dat >= Dur::from_millis(500) {
        let msg = format!("{} is out of range (RFC 1122)", units::format_duration(dat));
        t.invalid(cx, "delayed_ack_timeout", msg, "0 < timeout < 500ms");
    }
    for (key, v) in [("initial_rto", s.initial_rto), ("min_rto", s.min_rto)] {
        if v == Dur::ZERO {
            t.invalid(cx, key, "must be longer than 0", "a duration > 0");
        }
    }
    if s.min_rto > s.max_rto && written(&["min_rto", "max_rto"]) {
        let key = if t.has("max_rto") {
            "max_rto"
        } else {
            "min_rto"
        };
        let msg = format!(
            "min_rto ({}) is larger than max_rto ({})",
            units::format_duration(s.min_rto),
            units::format_duration(s.max_rto)
        );
        t.invalid(cx, key, msg, "min_rto <= max_rto");
    }
    let mss = s.mss as u64;
    if !(mss..=1 << 30).contains(&s.rcv_buffer) && written(&["rcv_buffer", "mss"]) {
        let msg = format!("{} is out of range", units::format_size(s.rcv_buffer));
        t.invalid(cx, "rcv_buffer", msg, "mss..=1GiB");
    }
    if s.snd_buffer < mss && written(&["snd_buffer", "mss"]) {
        let msg = format!(
            "{} is smaller than one segment",
            units::format_size(s.snd_buffer)
        );
        t.invalid(cx, "snd_buffer", msg, ">= mss");
    }
}

/// `rate`, `delay`, `queue` of `[wired]` or `[wireless]`.
fn read_link(cx: &mut Cx, t: &mut Tab, tcp: &TcpSpec) -> LinkSpec {
    let rate_bps = t.required(cx, "rate", "\"100Mbps\"", rd::rate).unwrap_or(1);
    if rate_bps == 0 {
        t.invalid(
            cx,
            "rate",
            "must be faster than 0",
            "a rate > 0, e.g. \"10Mbps\"",
        );
    }
    let delay = t
        .required(cx, "delay", "\"10ms\"", rd::dur)
        .unwrap_or(Dur::ZERO);
    let queue = t.read(cx, "queue", QueueLimit::Packets(100), rd::queue);
    match queue {
        QueueLimit::Packets(0) => t.invalid(cx, "queue", "must hold at least one packet", "> 0"),
        QueueLimit::Bytes(b) if b < tcp.mss as u64 + 80 => {
            let msg = format!(
                "{} cannot hold one full-size segment ({} B of payload + 80 B of headers)",
                units::format_size(b),
                tcp.mss
            );
            t.invalid(
                cx,
                "queue",
                msg,
                ">= mss + 80B, or a packet count like \"100p\"",
            );
        }
        _ => {}
    }
    LinkSpec {
        rate_bps,
        delay,
        queue,
        jitter: Dur::ZERO,
        frame_overhead: 0,
    }
}

/// The hops: one `[wireless]` table, or `[[wireless]]` entries (the first
/// is the main hop; every wireless host has an interface on each).
fn read_hops(
    cx: &mut Cx,
    root: &mut Tab,
    tcp: &TcpSpec,
    base_dir: &Path,
) -> (WirelessSpec, Vec<WirelessSpec>) {
    let entries = match root.get("wireless") {
        Some(Node {
            val: tree::Val::Array(items),
            ..
        }) => items.as_slice(),
        _ => {
            let mut t = root.table(cx, "wireless");
            let w = read_wireless(cx, &mut t, tcp, base_dir, "air");
            t.finish(cx);
            return (w, Vec::new());
        }
    };
    let mut hops = Vec::with_capacity(entries.len());
    for (k, node) in entries.iter().enumerate() {
        let mut t = Tab::of(cx, format!("wireless.{k}"), node);
        let default = if k == 0 {
            "air".to_string()
        } else {
            format!("air{k}")
        };
        let w = read_wireless(cx, &mut t, tcp, base_dir, &default);
        if k > 0 {
            check_more_hop(cx, &t, &w);
        }
        if hops.iter().any(|h: &WirelessSpec| h.name == w.name) {
            let msg = format!("another [[wireless]] entry is named \"{}\"", w.name);
            t.invalid(cx, "name", msg, "a name of its own per hop");
        }
        t.finish(cx);
        hops.push(w);
    }
    if hops.is_empty() {
        let mut t = root.table(cx, "wireless");
        hops.push(read_wireless(cx, &mut t, tcp, base_dir, "air"));
    }
    let first = hops.remove(0);
    (first, hops)
}

/// What a hop beyond the first cannot be yet.
fn check_more_hop(cx: &mut Cx, t: &Tab, w: &WirelessSpec) {
    if matches!(w.kind, HopKind::Lrwpan(_)) {
        let msg = "an 802.15.4 hop can only be the first [[wireless]] entry";
        t.invalid(cx, "kind", msg, "\"p2p\" or \"wifi\"");
    }
    if w.availability != AvailabilitySpec::Always {
        let msg = "only the first hop has an availability process (primary users)";
        t.invalid(
            cx,
            "availability",
            msg,
            "no [availability] table on a further hop",
        );
    }
}

/// `[wireless]` with its `loss` and `availability` sub-tables.
fn read_wireless(
    cx: &mut Cx,
    t: &mut Tab,
    tcp: &TcpSpec,
    base_dir: &Path,
    default_name: &str,
) -> WirelessSpec {
    let name = t.read(cx, "name", default_name.to_string(), rd::string);
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.".contains(c))
    {
        let allowed = "letters, digits, '_' and '.' (it names links: \"bs-<name>\")";
        t.invalid(cx, "name", "is not a usable hop name", allowed);
    }
    let kind = super::load_cr::read_hop_kind(cx, t);
    let lrwpan = kind == 1;
    let mut wifi = None;
    let link = match kind {
        1 => super::load_cr::read_lrwpan_link(cx, t),
        2 => {
            let (link, spec) = super::load_wifi::read_wifi(cx, t, base_dir);
            wifi = Some(spec);
            link
        }
        _ => read_link(cx, t, tcp),
    };
    let frame_overhead = t.read(cx, "frame_overhead", 0, rd::size);
    if frame_overhead > 65535 {
        t.invalid(cx, "frame_overhead", "is too large", "0B..=65535B");
    }
    let mut loss = t.table(cx, "loss");
    let mut down = loss.table(cx, "down");
    let loss_down = super::load_loss::read_loss(cx, &mut down, kind == 0, base_dir);
    down.finish(cx);
    let mut up = loss.table(cx, "up");
    let loss_up = super::load_loss::read_loss(cx, &mut up, kind == 0, base_dir);
    up.finish(cx);
    loss.finish(cx);
    let mut av = t.table(cx, "availability");
    let availability = read_availability(cx, &mut av, base_dir);
    let blocked = av.read(cx, "blocked", BlockedMode::Defer, rd::choice(BLOCKED_MODES));
    if blocked == BlockedMode::Lose && kind != 0 {
        let msg = "the 802.15.4 and 802.11 hops model blockage themselves (carrier sense busy, frames on the air destroyed)";
        av.invalid(cx, "blocked", msg, "blocked = \"lose\" with kind = \"p2p\"");
    }
    av.finish(cx);
    let kind = if lrwpan {
        HopKind::Lrwpan(super::load_cr::read_lrwpan(
            cx, t, tcp, &loss_down, &loss_up,
        ))
    } else if let Some(spec) = wifi {
        HopKind::Wifi(spec)
    } else {
        HopKind::P2p
    };
    WirelessSpec {
        name,
        kind,
        link,
        loss_down,
        loss_up,
        availability,
        blocked,
        frame_overhead: frame_overhead.min(65535) as u32,
    }
}

const CAPTURE_POINTS: &[(&str, CapturePoint)] = &[
    ("sender", CapturePoint::Sender),
    ("receiver", CapturePoint::Receiver),
    ("both", CapturePoint::Both),
];

const BLOCKED_MODES: &[(&str, BlockedMode)] =
    &[("defer", BlockedMode::Defer), ("lose", BlockedMode::Lose)];

const AVAILABILITY_MODELS: &[(&str, u8)] =
    &[("always", 0), ("onoff", 1), ("file", 2), ("intervals", 3)];
const START_STATES: &[(&str, bool)] = &[("on", false), ("off", true)];

/// `[wireless.availability]`.
fn read_availability(cx: &mut Cx, t: &mut Tab, base_dir: &Path) -> AvailabilitySpec {
    match t.read(cx, "model", 0, rd::choice(AVAILABILITY_MODELS)) {
        1 => read_onoff(cx, t),
        2 => {
            let Some(file) = t.required(cx, "file", "\"blocked.txt\"", rd::string) else {
                return AvailabilitySpec::Intervals(Vec::new());
            };
            let list = intervals::read_intervals(&base_dir.join(&file));
            intervals_or_error(cx, t, "file", list)
        }
        3 => {
            let example = "[[\"1s\", \"2.5s\"], [\"10s\", \"12s\"]]";
            let list = t.required(cx, "intervals", example, intervals::from_val);
            match list {
                Some(list) => intervals_or_error(cx, t, "intervals", list),
                None => AvailabilitySpec::Intervals(Vec::new()),
            }
        }
        _ => AvailabilitySpec::Always,
    }
}

fn intervals_or_error(
    cx: &mut Cx,
    t: &Tab,
    key: &str,
    list: Result<Vec<(Dur, Dur)>, String>,
) -> AvailabilitySpec {
    match list {
        Ok(list) => AvailabilitySpec::Intervals(list),
        Err(msg) => {
            t.invalid(
                cx,
                key,
                msg,
                "\"start end\" pairs, start < end, sorted, disjoint",
            );
            AvailabilitySpec::Intervals(Vec::new())
        }
    }
}

/// `model = "onoff"`.
fn read_onoff(cx: &mut Cx, t: &mut Tab) -> AvailabilitySpec {
    // Each period is an event: at least rd::MIN_PERIOD.
    let on = t.required(cx, "on", "\"exp(4s)\"", rd::period_at_least(rd::MIN_PERIOD));
    let off = t.required(
        cx,
        "off",
        "\"exp(1s)\"",
        rd::period_at_least(rd::MIN_PERIOD),
    );
    let start_blocked = t.read(cx, "start", false, rd::choice(START_STATES));
    let zero = Period::Fixed(Dur::ZERO);
    AvailabilitySpec::OnOff {
        on: on.unwrap_or(zero),
        off: off.unwrap_or(zero),
        start_blocked,
    }
}

/// `[[flow]]` entries, expanded.
fn read_flows(cx: &mut Cx, root: &mut Tab, tcp: &TcpSpec, sim: &SimSpec) -> Vec<FlowSpec> {
    let items = root.tables(cx, "flow");
    if items.is_empty() {
        let msg = "no flows: add at least one [[flow]] table";
        cx.err(&Loc::Nowhere, "flow", msg, None);
    }
    let mut flows = Vec::new();
    let mut names = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        let mut t = Tab::of(cx, format!("flow.{i}"), item);
        let entry = read_flow(cx, &mut t, i, tcp, sim);
        let count = t.read(cx, "count", 1, rd::int_in(1, MAX_FLOWS as i128)) as usize;
        let stagger = t.read(cx, "stagger", Dur::ZERO, rd::dur);
        let last = entry.start + stagger.saturating_mul(count.saturating_sub(1) as u64);
        if stagger > Dur::ZERO && sim.duration > Dur::ZERO && last >= sim.duration {
            let msg = format!(
                "the last of the {count} flows would start at {}, not before the end of the run ({})",
                units::format_duration(last),
                units::format_duration(sim.duration)
            );
            t.invalid(
                cx,
                "stagger",
                msg,
                "start + (count - 1) * stagger < sim.duration",
            );
        }
        if flows.len() + count > MAX_FLOWS {
            let msg = format!("more than {MAX_FLOWS} flows in all");
            t.invalid(cx, "count", msg, &format!("at most {MAX_FLOWS} flows"));
            t.finish(cx);
            break;
        }
        let longest = format!("{}.{}", entry.name, count - 1);
        if count > 1 && longest.len() > MAX_NAME {
            let msg = format!("\"{longest}\" (with its count suffix) is too long");
            t.invalid(cx, "name", msg, &format!("at most {MAX_NAME} characters"));
        }
        for k in 0..count {
            let mut flow = entry.clone();
            if count > 1 {
                flow.name = format!("{}.{k}", entry.name);
            }
            flow.start = entry.start + stagger.saturating_mul(k as u64);
            if !names.insert(flow.name.clone()) {
                let msg = format!("flow name \"{}\" is used twice", flow.name);
                t.invalid(cx, "name", msg, "unique names");
            }
            if k == 0 && RESERVED_HOSTS.contains(&flow.host_name()) {
                // `[[agent]] at = "bs"` / `"hosts"` could not name this host.
                let (key, msg) = match &flow.host {
                    Some(h) => ("host", format!("\"{h}\" is reserved")),
                    None => (
                        "name",
                        format!(
                            "\"{}\" is reserved, and the flow's host takes its name (no host key)",
                            flow.name
                        ),
                    ),
                };
                let msg = format!("{msg}: [[agent]] at = \"bs\" and at = \"hosts\" mean the base station and every wireless host");
                let allowed = "a host name other than \"bs\" and \"hosts\" (or a host key)";
                t.invalid(cx, key, msg, allowed);
            }
            flows.push(flow);
        }
        t.finish(cx);
    }
    flows
}

const DIRECTIONS: &[(&str, Direction)] = &[("down", Direction::Down), ("up", Direction::Up)];
const APPS: &[(&str, bool)] = &[("bulk", false), ("file", true)];

/// One `[[flow]]` entry (before `count`).
fn read_flow(cx: &mut Cx, t: &mut Tab, i: usize, tcp: &TcpSpec, sim: &SimSpec) -> FlowSpec {
    let name = t.read(cx, "name", format!("flow{i}"), rd::string);
    let name_ok = |c: char| c.is_ascii_alphanumeric() || "_-.".contains(c);
    if name.is_empty() || name.len() > MAX_NAME || !name.chars().all(name_ok) {
        let msg = format!("\"{name}\" is not a valid flow name");
        t.invalid(cx, "name", msg, "1 to 64 letters, digits, _, -, .");
    }
    let direction = t.read(cx, "direction", Direction::Down, rd::choice(DIRECTIONS));
    let is_file = t.read(cx, "app", false, rd::choice(APPS));
    let size = t.read_opt(cx, "size", rd::size);
    let app = match (is_file, size) {
        (true, Some(0)) => {
            t.invalid(cx, "size", "a file of 0 bytes", "a size > 0");
            AppSpec::File { bytes: 1 }
        }
        (true, Some(bytes)) => AppSpec::File { bytes },
        (true, None) => {
            if !t.has("size") {
                let msg = "missing; a file flow needs its size (e.g. size = \"10MB\")";
                cx.err(&t.loc_of("app"), &t.key("size"), msg, None);
            }
            AppSpec::File { bytes: 1 }
        }
        (false, _) => {
            if t.has("size") {
                let msg = "a bulk flow always has data: `size` applies only to app = \"file\"";
                t.invalid(cx, "size", msg, "size with app = \"file\"");
            }
            AppSpec::Bulk
        }
    };
    let start = t.read(cx, "start", Dur::ZERO, rd::dur);
    if sim.duration > Dur::ZERO && start >= sim.duration {
        let msg = format!(
            "the flow starts at {}, not before the end of the run ({})",
            units::format_duration(start),
            units::format_duration(sim.duration)
        );
        t.invalid(cx, "start", msg, "start < sim.duration");
    }
    let mut tt = t.table(cx, "tcp");
    let tcp = if tt.exists() {
        read_tcp(cx, &mut tt, tcp)
    } else {
        tcp.clone()
    };
    tt.finish(cx);
    let host = t.read_opt(cx, "host", rd::string);
    if let Some(h) = &host {
        if h.is_empty() || h.len() > MAX_NAME || !h.chars().all(name_ok) {
            let msg = format!("\"{h}\" is not a valid host name");
            t.invalid(cx, "host", msg, "1 to 64 letters, digits, _, -, .");
        }
    }
    FlowSpec {
        name,
        direction,
        app,
        start,
        tcp,
        host,
        link_overhead: 0,
    }
}

/// `[output]`.
fn read_output(cx: &mut Cx, t: &mut Tab) -> OutputSpec {
    let d = OutputSpec::default();
    let pcap = t.read(cx, "pcap", d.pcap, rd::boolean);
    let snaplen = t.read(cx, "pcap_snaplen", d.pcap_snaplen as u64, rd::size);
    if snaplen > 65535 {
        t.invalid(
            cx,
            "pcap_snaplen",
            "is too large",
            "0 (the default, 128B) ..= 65535B (whole datagrams)",
        );
    }
    OutputSpec {
        pcap,
        pcap_snaplen: snaplen.min(65535) as u32,
        pcap_point: t.read(cx, "pcap_point", d.pcap_point, rd::choice(CAPTURE_POINTS)),
        timeseries: t.read(cx, "timeseries", d.timeseries, rd::boolean),
        max_bytes: t.read_opt(cx, "max_bytes", rd::size),
    }
}
