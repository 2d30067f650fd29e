//! Loading of `[wireless] kind = "wifi"`: the 802.11a/b keys and
//! `[wireless.energy]`.

use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use crate::radio::wifi::{ErrorModel, Preamble, Standard};
use crate::time::Dur;

const STANDARDS: &[(&str, Standard)] = &[("11a", Standard::A11), ("11b", Standard::B11)];
const RATE_CONTROLS: &[(&str, bool)] = &[("fixed", false), ("arf", true)];
const PREAMBLES: &[(&str, Preamble)] = &[("long", Preamble::Long), ("short", Preamble::Short)];
const LOSS_UNITS: &[(&str, bool)] = &[("frame", false), ("packet", true)];
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

/// `rate`, `delay`, `queue` and the MAC keys of an 802.11 hop.
pub(super) fn read_wifi(cx: &mut Cx, t: &mut Tab) -> (LinkSpec, WifiSpec) {
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
    spec.snr_db = t.read(cx, "snr_db", spec.snr_db, rd::number);
    if !spec.snr_db.is_finite() {
        t.invalid(cx, "snr_db", "must be a finite number", "e.g. 25");
    }
    spec.loss_per_packet = t.read(cx, "loss_per", false, rd::choice(LOSS_UNITS));
    let mut e = t.table(cx, "energy");
    read_energy(cx, &mut e, &mut spec);
    e.finish(cx);
    let link = LinkSpec {
        rate_bps: spec.rate.bps(),
        delay,
        queue,
    };
    (link, spec)
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
    v["snr_db"] = json!(w.snr_db);
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
    v["energy"] = energy;
}
