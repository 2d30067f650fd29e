//! Loading of `[wireless] kind = "wifi"`: the 802.11a/b keys,
//! `[wireless.energy]`, the SNR (`snr_db` or `[wireless.snr]`) and
//! `[[wireless.station]]`.

use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use super::tree::{Node, Val};
use crate::radio::wifi::{Accounting, ErrorModel, Preamble, Standard};
use crate::time::{Dur, Time};
use std::path::Path;

/// The least `shadowing_time`: its 16 steps (`radio::snr`) of at least
/// [`rd::MIN_PERIOD`] each.
const MIN_SHADOWING_TIME: Dur = Dur::from_micros(16);

const STANDARDS: &[(&str, Standard)] = &[("11a", Standard::A11), ("11b", Standard::B11)];
const RATE_CONTROLS: &[(&str, bool)] = &[("fixed", false), ("arf", true)];
const PREAMBLES: &[(&str, Preamble)] = &[("long", Preamble::Long), ("short", Preamble::Short)];
const LOSS_UNITS: &[(&str, bool)] = &[("frame", false), ("packet", true)];
const SCHEDULERS: &[(&str, u8)] = &[("fifo", 0), ("rr", 1), ("pf", 2)];
const TFP_QUEUES: &[(&str, TfpQueue)] = &[
    ("hold", TfpQueue::Hold),
    ("flush", TfpQueue::Flush),
    ("drop", TfpQueue::Drop),
];
const ERROR_MODELS: &[(&str, ErrorModel)] =
    &[("nist", ErrorModel::Nist), ("yans", ErrorModel::Yans)];

/// The rates of `standard` as people write them ("6Mbps", "5.5Mbps").
fn rate_names(standard: Standard) -> String {
    let names: Vec<String> = standard
        .rates()
        .iter()
        .map(|r| format!("\"{}\"", super::units::format_rate(r.bps())))
        .collect();
    names.join(", ")
}

/// `rate`, `delay`, `queue` and the MAC keys of an 802.11 hop; side files
/// (SNR traces) are resolved against `base_dir`.
pub(super) fn read_wifi(cx: &mut Cx, t: &mut Tab, base_dir: &Path) -> (LinkSpec, WifiSpec) {
    let standard = t
        .required(cx, "standard", "\"11a\"", rd::choice(STANDARDS))
        .unwrap_or(Standard::A11);
    let mut spec = WifiSpec::new(standard);
    if let Some(bps) = t.read_opt(cx, "rate", rd::rate) {
        match standard.rates().iter().find(|r| r.bps() == bps) {
            Some(&r) => spec.rate = r,
            None => {
                let msg = format!(
                    "{} is not a data rate of 802.{}",
                    super::units::format_rate(bps),
                    if standard == Standard::A11 {
                        "11a"
                    } else {
                        "11b"
                    }
                );
                t.invalid(cx, "rate", msg, &rate_names(standard));
            }
        }
    }
    let delay = t.read(cx, "delay", Dur::ZERO, rd::dur);
    let queue = t.read(cx, "queue", QueueLimit::Packets(100), rd::queue);
    match queue {
        QueueLimit::Packets(0) => t.invalid(cx, "queue", "must hold at least one packet", "> 0"),
        QueueLimit::Bytes(_) => t.invalid(
            cx,
            "queue",
            "an 802.11 MAC queue counts frames",
            "a packet count like \"100p\"",
        ),
        _ => {}
    }
    spec.arf = t.read(cx, "rate_control", false, rd::choice(RATE_CONTROLS));
    spec.preamble = t.read(cx, "preamble", Preamble::Long, rd::choice(PREAMBLES));
    if standard == Standard::A11 && spec.preamble == Preamble::Short {
        let msg = "802.11a has one PLCP format; the short preamble is 802.11b's";
        t.invalid(cx, "preamble", msg, "\"long\" (or leave it out)");
    }
    spec.rts_threshold = t
        .read_opt(cx, "rts_threshold", rd::size)
        .map(|b| b.min(u64::from(u32::MAX)) as u32);
    let mut retry = |key: &'static str, default: u8| -> u8 {
        t.read(cx, key, i128::from(default), rd::int_in(1, 255)) as u8
    };
    spec.retry_short = retry("retry_short", 7);
    spec.retry_long = retry("retry_long", 4);
    spec.error_model = t.read(
        cx,
        "error_model",
        ErrorModel::Nist,
        rd::choice(ERROR_MODELS),
    );
    spec.snr = read_snr(cx, t, base_dir).unwrap_or(spec.snr);
    spec.stations = read_stations(cx, t, base_dir);
    spec.loss_per_packet = t.read(cx, "loss_per", false, rd::choice(LOSS_UNITS));
    spec.snr_report = t.read_opt(cx, "snr_report", rd::dur_at_least(rd::MIN_PERIOD));
    spec.scheduler = read_scheduler(cx, t);
    let mut e = t.table(cx, "energy");
    read_energy(cx, &mut e, &mut spec);
    e.finish(cx);
    let mut d = t.table(cx, "dsa");
    if d.exists() {
        spec.dsa = Some(read_dsa(cx, &mut d, &spec));
    }
    d.finish(cx);
    let link = LinkSpec {
        rate_bps: spec.rate.bps(),
        delay,
        queue,
        jitter: Dur::ZERO,
        frame_overhead: 0,
    };
    (link, spec)
}

/// `scheduler` and `pf_time_constant`.
fn read_scheduler(cx: &mut Cx, t: &mut Tab) -> ApScheduler {
    let which = t.read(cx, "scheduler", 0, rd::choice(SCHEDULERS));
    let tc = t.read_opt(cx, "pf_time_constant", rd::dur);
    if tc == Some(Dur::ZERO) {
        let allowed = "a duration > 0, e.g. \"100ms\"";
        t.invalid(cx, "pf_time_constant", "must be longer than 0", allowed);
    }
    if tc.is_some() && which != 2 {
        let msg = "is the proportional-fair scheduler's averaging time";
        t.invalid(cx, "pf_time_constant", msg, "with scheduler = \"pf\"");
    }
    match which {
        1 => ApScheduler::RoundRobin,
        2 => ApScheduler::ProportionalFair {
            time_constant: tc
                .filter(|d| *d > Dur::ZERO)
                .unwrap_or(Dur::from_millis(100)),
        },
        _ => ApScheduler::Fifo,
    }
}

const ON_EMPTY: &[(&str, bool)] = &[("report", false), ("off", true)];

/// `[wireless.energy] model`.
const ENERGY_MODEL: &[(&str, Accounting)] = &[
    ("time", Accounting::Time),
    ("per_packet", Accounting::PerPacket),
    ("ns2", Accounting::NS2),
];
const FADINGS: &[(&str, u8)] = &[("none", 0), ("rayleigh", 1), ("rician", 2)];

/// The keys of an SNR process table (for the trace's conflicts).
const PROCESS_KEYS: &[&str] = &[
    "mean_db",
    "mean_trace",
    "shadowing_db",
    "shadowing_time",
    "fading",
    "k_db",
    "coherence",
];

/// `snr_db` (fixed) or `snr` (a table) in `t`; `None` when neither.
fn read_snr(cx: &mut Cx, t: &mut Tab, base_dir: &Path) -> Option<SnrSpec> {
    let fixed = t.read_opt(cx, "snr_db", rd::number);
    if fixed.is_some_and(|db| !db.is_finite()) {
        t.invalid(cx, "snr_db", "must be a finite number", "e.g. 25");
    }
    let mut s = t.table(cx, "snr");
    let process = s.exists().then(|| read_snr_table(cx, &mut s, base_dir));
    s.finish(cx);
    if fixed.is_some() && process.is_some() {
        let msg = "give either snr_db (a fixed SNR) or snr (a process or a trace), not both";
        t.invalid(cx, "snr", msg, "one of snr_db, snr");
    }
    process.or(fixed.map(SnrSpec::Fixed))
}

/// An `snr` table: a trace file, or a mean with shadowing and fading.
fn read_snr_table(cx: &mut Cx, s: &mut Tab, base_dir: &Path) -> SnrSpec {
    let fallback = SnrSpec::Fixed(40.0);
    if let Some(file) = s.read_opt(cx, "trace", rd::string) {
        for &key in PROCESS_KEYS {
            if s.get(key).is_some() {
                let msg = "does not go with trace (the trace gives the SNR at every instant)";
                s.invalid(
                    cx,
                    key,
                    msg,
                    "trace alone, or the process keys without trace",
                );
            }
        }
        return match super::intervals::read_snr_trace(&base_dir.join(&file)) {
            Ok(points) => SnrSpec::Trace {
                path: file,
                points: points
                    .into_iter()
                    .map(|(d, db)| (Time::ZERO + d, db))
                    .collect(),
            },
            Err(e) => {
                let allowed = "a file of \"time snr_db\" lines, e.g. \"0.5 18.2\"";
                s.invalid(cx, "trace", e, allowed);
                fallback
            }
        };
    }
    let mean_trace = s.read_opt(cx, "mean_trace", rd::string).and_then(|file| {
        if s.has("mean_db") {
            let msg = "does not go with mean_trace (the trace gives the mean at every instant)";
            s.invalid(cx, "mean_db", msg, "mean_db or mean_trace, not both");
        }
        match super::intervals::read_snr_trace(&base_dir.join(&file)) {
            Ok(points) => {
                let points = points.into_iter().map(|(d, db)| (Time::ZERO + d, db));
                Some((file, points.collect()))
            }
            Err(e) => {
                let allowed = "a file of \"time snr_db\" lines, e.g. \"0.5 18.2\"";
                s.invalid(cx, "mean_trace", e, allowed);
                None
            }
        }
    });
    let mean_db = if mean_trace.is_some() || s.has("mean_trace") {
        Some(0.0)
    } else {
        s.required(cx, "mean_db", "18", rd::number)
    };
    if mean_db.is_some_and(|x| !x.is_finite()) {
        s.invalid(cx, "mean_db", "must be a finite number", "e.g. 18");
    }
    let shadowing_db = s.read(cx, "shadowing_db", 0.0, rd::number);
    if !(shadowing_db.is_finite() && shadowing_db >= 0.0) {
        let allowed = ">= 0 (dB), e.g. 4";
        s.invalid(cx, "shadowing_db", "must be a standard deviation", allowed);
    }
    // The shadowing takes 16 steps per correlation time, the fading a draw
    // per coherence time: each at least rd::MIN_PERIOD.
    let shadowing_time = s.read_opt(cx, "shadowing_time", rd::dur_at_least(MIN_SHADOWING_TIME));
    let fading = s.read(cx, "fading", 0, rd::choice(FADINGS));
    let k_db = s.read_opt(cx, "k_db", rd::number);
    let fading = match (fading, k_db) {
        (2, Some(k)) if k.is_finite() => Fading::Rician {
            k: 10f64.powf(k / 10.0),
        },
        (2, Some(_)) => {
            s.invalid(cx, "k_db", "must be a finite number", "e.g. 6");
            Fading::None
        }
        (2, None) => {
            let msg = "Rician fading needs its K factor";
            s.invalid(cx, "fading", msg, "k_db = <dB>, e.g. k_db = 6");
            Fading::None
        }
        (f, k) => {
            if k.is_some() {
                let msg = "is the Rician K factor";
                s.invalid(cx, "k_db", msg, "k_db with fading = \"rician\"");
            }
            if f == 1 {
                Fading::Rayleigh
            } else {
                Fading::None
            }
        }
    };
    let coherence = s.read(
        cx,
        "coherence",
        Dur::from_millis(10),
        rd::dur_at_least(rd::MIN_PERIOD),
    );
    match mean_db {
        Some(mean_db) => SnrSpec::Process {
            mean_db,
            mean_trace,
            shadowing_db,
            shadowing_time,
            fading,
            coherence,
        },
        None => fallback,
    }
}

/// `[[wireless.station]]` entries (host names are checked against the
/// flows by [`check_stations`]).
fn read_stations(cx: &mut Cx, t: &mut Tab, base_dir: &Path) -> Vec<StationSpec> {
    let items = t.tables(cx, "station");
    let mut out: Vec<StationSpec> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut st = Tab::of(cx, format!("{}.{i}", t.key("station")), item);
        let host = st.required(cx, "host", "\"mh\"", rd::string);
        let snr = read_snr(cx, &mut st, base_dir);
        if snr.is_none() && st.exists() {
            let msg = "a station entry gives its host's SNR";
            st.invalid(cx, "snr_db", msg, "snr_db = <dB> or snr = { ... }");
        }
        if let Some(host) = &host {
            if out.iter().any(|s| s.host == *host) {
                let msg = format!("host \"{host}\" already has a [[wireless.station]] entry");
                st.invalid(cx, "host", msg, "one entry per host");
            }
        }
        if let (Some(host), Some(snr)) = (host, snr) {
            out.push(StationSpec { host, snr });
        }
        st.finish(cx);
    }
    out
}

/// Every `[[wireless.station]] host` names a wireless host of the flows.
pub(super) fn check_stations(cx: &mut Cx, doc: &Node, wireless: &WirelessSpec, flows: &[FlowSpec]) {
    let HopKind::Wifi(spec) = &wireless.kind else {
        return;
    };
    let names = host_names(flows);
    let items = table_entry(doc, "wireless")
        .and_then(|w| table_entry(w, "station"))
        .and_then(|s| match &s.val {
            Val::Array(items) => Some(items.as_slice()),
            _ => None,
        })
        .unwrap_or(&[]);
    for st in &spec.stations {
        if names.contains(&st.host.as_str()) {
            continue;
        }
        let at = items.iter().position(|item| {
            table_entry(item, "host").is_some_and(|h| h.val == Val::Str(st.host.clone()))
        });
        let loc = at
            .and_then(|k| table_entry(&items[k], "host"))
            .map_or(super::tree::Loc::Nowhere, |h| h.loc.clone());
        let key = format!("wireless.station.{}.host", at.unwrap_or(0));
        let msg = format!("no wireless host is named \"{}\"", st.host);
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        cx.err(&loc, &key, msg, Some(&quoted.join(", ")));
    }
}

/// The value of `key` in the table `node`, if it is one.
fn table_entry<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    match &node.val {
        Val::Table(t) => t.get(key).map(|e| &e.node),
        _ => None,
    }
}

/// A list of durations (`switch_at`).
fn durations(val: &Val) -> Result<Vec<Dur>, String> {
    let Val::Array(items) = val else {
        return Err(format!(
            "expected a list of times like [\"5s\"], got {}",
            val.type_name()
        ));
    };
    items.iter().map(|n| rd::dur(&n.val)).collect()
}

/// A list of rate strings (`channels`).
fn rates(val: &Val) -> Result<Vec<u64>, String> {
    let Val::Array(items) = val else {
        return Err(format!(
            "expected a list of rates like [\"24Mbps\", \"12Mbps\"], got {}",
            val.type_name()
        ));
    };
    items.iter().map(|n| rd::rate(&n.val)).collect()
}

/// `[wireless.dsa]`; `spec` gives the standard and the first channel's rate.
fn read_dsa(cx: &mut Cx, t: &mut Tab, spec: &WifiSpec) -> DsaSpec {
    let mut pair = |t: &mut Tab, every: &'static str, dur: &'static str| {
        let e = t.read_opt(cx, every, rd::dur_at_least(rd::MIN_PERIOD));
        let d = t.read_opt(cx, dur, rd::dur_at_least(rd::MIN_PERIOD));
        match (e, d) {
            (Some(e), Some(d)) if d < e => Some((e, d)),
            (Some(_), Some(_)) => {
                let msg = "must be shorter than its period";
                t.invalid(cx, dur, msg, &format!("1us <= {dur} < {every}"));
                None
            }
            (None, None) => None,
            // Written but refused: its own error says why.
            (Some(_), None) | (None, Some(_)) if t.has(dur) && t.has(every) => None,
            (Some(_), None) => {
                t.invalid(cx, dur, "missing", &format!("{dur} with {every}"));
                None
            }
            (None, Some(_)) => {
                t.invalid(cx, every, "missing", &format!("{every} with {dur}"));
                None
            }
        }
    };
    let node_sensing = pair(t, "node_sensing_every", "node_sensing_for");
    let cell_sensing = pair(t, "cell_sensing_every", "cell_sensing_for");
    let mut switch_at = t.read(cx, "switch_at", Vec::new(), durations);
    if switch_at.windows(2).any(|w| w[0] >= w[1]) {
        let msg = "times must increase";
        t.invalid(cx, "switch_at", msg, "e.g. [\"5s\", \"12s\"]");
        switch_at.clear();
    }
    let switch_every = t.read_opt(cx, "switch_every", rd::period_at_least(rd::MIN_PERIOD));
    if switch_every.is_some() && !switch_at.is_empty() {
        let msg = "give switches either at times (switch_at) or at intervals (switch_every)";
        t.invalid(cx, "switch_every", msg, "one of switch_at, switch_every");
    }
    let switch_delay = t.read(cx, "switch_delay", Dur::from_millis(100), rd::dur);
    let bps = t.read(cx, "channels", vec![spec.rate.bps()], rates);
    let mut channels = Vec::new();
    for b in bps {
        match spec.standard.rates().iter().find(|r| r.bps() == b) {
            Some(&r) => channels.push(r),
            None => {
                let msg = format!(
                    "{} is not a data rate of the standard",
                    super::units::format_rate(b)
                );
                t.invalid(cx, "channels", msg, &rate_names(spec.standard));
            }
        }
    }
    if channels.is_empty() {
        channels.push(spec.rate);
    }
    let tfp_queue = t.read(cx, "tfp_queue", TfpQueue::Hold, rd::choice(TFP_QUEUES));
    DsaSpec {
        node_sensing,
        cell_sensing,
        switch_at,
        switch_every,
        switch_delay,
        channels,
        tfp_queue,
    }
}

/// `[wireless.energy]`.
fn read_energy(cx: &mut Cx, t: &mut Tab, spec: &mut WifiSpec) {
    let d = spec.power;
    let mut watts = |key: &'static str, default: f64| -> f64 {
        let w = t.read(cx, key, default, rd::number);
        if !(w.is_finite() && w >= 0.0) {
            t.invalid(cx, key, "must be a power in watts", ">= 0, e.g. 0.3");
        }
        w
    };
    spec.power.tx_w = watts("tx_w", d.tx_w);
    spec.power.rx_w = watts("rx_w", d.rx_w);
    spec.power.idle_w = watts("idle_w", d.idle_w);
    spec.power.sleep_w = watts("sleep_w", d.sleep_w);
    spec.battery_j = t.read_opt(cx, "battery_j", rd::number);
    if spec.battery_j.is_some_and(|j| !(j.is_finite() && j > 0.0)) {
        t.invalid(cx, "battery_j", "must be an energy in joules", "> 0");
    }
    spec.battery_off = t.read(cx, "on_empty", false, rd::choice(ON_EMPTY));
    spec.energy_accounting = t.read(cx, "model", Accounting::Time, rd::choice(ENERGY_MODEL));
}

/// The `[wireless]` keys of a wifi hop, for the echo (`rate`, `delay` and
/// `queue` are the link's).
pub(super) fn echo_wifi(v: &mut serde_json::Value, w: &WifiSpec) {
    use serde_json::json;
    v["kind"] = json!("wifi");
    v["standard"] = json!(match w.standard {
        Standard::A11 => "11a",
        Standard::B11 => "11b",
    });
    v["rate_control"] = json!(if w.arf { "arf" } else { "fixed" });
    if let Some(every) = w.snr_report {
        v["snr_report"] = json!(super::units::format_duration(every));
    }
    v["preamble"] = json!(match w.preamble {
        Preamble::Long => "long",
        Preamble::Short => "short",
    });
    if let Some(b) = w.rts_threshold {
        v["rts_threshold"] = json!(b);
    }
    v["retry_short"] = json!(w.retry_short);
    v["retry_long"] = json!(w.retry_long);
    v["error_model"] = json!(match w.error_model {
        ErrorModel::Nist => "nist",
        ErrorModel::Yans => "yans",
    });
    match &w.snr {
        SnrSpec::Fixed(db) => v["snr_db"] = json!(db),
        other => v["snr"] = echo_snr(other),
    }
    if !w.stations.is_empty() {
        let stations: Vec<serde_json::Value> = w
            .stations
            .iter()
            .map(|s| {
                let mut e = json!({ "host": s.host });
                match &s.snr {
                    SnrSpec::Fixed(db) => e["snr_db"] = json!(db),
                    other => e["snr"] = echo_snr(other),
                }
                e
            })
            .collect();
        v["station"] = json!(stations);
    }
    match w.scheduler {
        // Only when set, so that echoes of earlier scenarios are unchanged.
        ApScheduler::Fifo => {}
        ApScheduler::RoundRobin => v["scheduler"] = json!("rr"),
        ApScheduler::ProportionalFair { time_constant } => {
            v["scheduler"] = json!("pf");
            v["pf_time_constant"] = json!(super::units::format_duration(time_constant));
        }
    }
    if w.loss_per_packet {
        // Only when set, so that echoes of earlier scenarios are unchanged.
        v["loss_per"] = json!("packet");
    }
    let mut energy = json!({
        "tx_w": w.power.tx_w,
        "rx_w": w.power.rx_w,
        "idle_w": w.power.idle_w,
        "sleep_w": w.power.sleep_w,
    });
    if let Some(j) = w.battery_j {
        energy["battery_j"] = json!(j);
    }
    if w.battery_off {
        energy["on_empty"] = json!("off");
    }
    // Only when set, so that echoes of earlier scenarios are unchanged.
    match w.energy_accounting {
        Accounting::Time => {}
        Accounting::PerPacket => energy["model"] = json!("per_packet"),
        Accounting::Ns2 { .. } => energy["model"] = json!("ns2"),
    }
    v["energy"] = energy;
    if let Some(d) = &w.dsa {
        use super::units::{format_duration as fd, format_period, format_rate};
        let mut t = json!({ "switch_delay": fd(d.switch_delay) });
        if let Some((e, f)) = d.node_sensing {
            t["node_sensing_every"] = json!(fd(e));
            t["node_sensing_for"] = json!(fd(f));
        }
        if let Some((e, f)) = d.cell_sensing {
            t["cell_sensing_every"] = json!(fd(e));
            t["cell_sensing_for"] = json!(fd(f));
        }
        if !d.switch_at.is_empty() {
            t["switch_at"] = json!(d.switch_at.iter().map(|&x| fd(x)).collect::<Vec<_>>());
        }
        if let Some(p) = d.switch_every {
            t["switch_every"] = json!(format_period(p));
        }
        // Only when set, so that echoes of earlier scenarios are unchanged.
        match d.tfp_queue {
            TfpQueue::Hold => {}
            TfpQueue::Flush => t["tfp_queue"] = json!("flush"),
            TfpQueue::Drop => t["tfp_queue"] = json!("drop"),
        }
        t["channels"] = json!(d
            .channels
            .iter()
            .map(|r| format_rate(r.bps()))
            .collect::<Vec<_>>());
        v["dsa"] = t;
    }
}

/// An SNR process or trace, for the echo.
fn echo_snr(snr: &SnrSpec) -> serde_json::Value {
    use serde_json::json;
    match snr {
        SnrSpec::Fixed(db) => json!({ "mean_db": db }),
        SnrSpec::Trace { path, .. } => json!({ "trace": path }),
        SnrSpec::Process {
            mean_db,
            mean_trace,
            shadowing_db,
            shadowing_time,
            fading,
            coherence,
        } => {
            let mut v = json!({ "mean_db": mean_db, "shadowing_db": shadowing_db });
            if let Some((path, _)) = mean_trace {
                v = json!({ "mean_trace": path, "shadowing_db": shadowing_db });
            }
            if let Some(tau) = shadowing_time {
                v["shadowing_time"] = json!(super::units::format_duration(*tau));
            }
            match fading {
                Fading::None => v["fading"] = json!("none"),
                Fading::Rayleigh => v["fading"] = json!("rayleigh"),
                Fading::Rician { k } => {
                    v["fading"] = json!("rician");
                    v["k_db"] = json!(10.0 * k.log10());
                }
            }
            v["coherence"] = json!(super::units::format_duration(*coherence));
            v
        }
    }
}
