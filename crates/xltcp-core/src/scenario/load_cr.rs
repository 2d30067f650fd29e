//! Loading of the cognitive-radio keys: `[wireless] kind = "lrwpan"` and
//! its MAC keys, `[schemes]` and `[pu_detection]`.

use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use crate::radio::lrwpan::{FrameLayout, BIT_RATE_BPS};
use crate::time::Dur;

const HOP_KINDS: &[(&str, u8)] = &[("p2p", 0), ("lrwpan", 1), ("wifi", 2)];
const LAYOUTS: &[(&str, LayoutPreset)] = &[
    ("tcp_ipv4", LayoutPreset::TcpIpv4),
    ("paper", LayoutPreset::Paper),
];
const LR_KINDS: &[(&str, LocalRecoverySpec)] = &[
    ("none", LocalRecoverySpec::None),
    ("phy", LocalRecoverySpec::Phy),
    ("tcp", LocalRecoverySpec::Tcp),
    ("bs_reports", LocalRecoverySpec::BsReports),
];

/// `[wireless] kind`: 0 = p2p, 1 = lrwpan (802.15.4), 2 = wifi (802.11).
pub(super) fn read_hop_kind(cx: &mut Cx, t: &mut Tab) -> u8 {
    t.read(cx, "kind", 0, rd::choice(HOP_KINDS))
}

/// `rate`, `delay`, `queue` of an 802.15.4 hop: the rate is the PHY's.
pub(super) fn read_lrwpan_link(cx: &mut Cx, t: &mut Tab) -> LinkSpec {
    let rate_bps = t.read(cx, "rate", BIT_RATE_BPS, rd::rate);
    if rate_bps != BIT_RATE_BPS {
        t.invalid(
            cx,
            "rate",
            "an 802.15.4 O-QPSK PHY runs at 250 kb/s",
            "\"250kbps\" (or leave it out)",
        );
    }
    let delay = t.read(cx, "delay", Dur::ZERO, rd::dur);
    let queue = t.read(cx, "queue", QueueLimit::Packets(100), rd::queue);
    match queue {
        QueueLimit::Packets(0) => t.invalid(cx, "queue", "must hold at least one packet", "> 0"),
        QueueLimit::Bytes(_) => t.invalid(
            cx,
            "queue",
            "an 802.15.4 MAC queue counts frames",
            "a packet count like \"100p\"",
        ),
        _ => {}
    }
    LinkSpec {
        rate_bps: BIT_RATE_BPS,
        delay,
        queue,
        jitter: Dur::ZERO,
        frame_overhead: 0,
    }
}

/// The data frame layout of a preset.
pub fn frame_layout(preset: LayoutPreset) -> FrameLayout {
    match preset {
        LayoutPreset::TcpIpv4 => FrameLayout::tcp_ipv4(),
        LayoutPreset::Paper => FrameLayout::paper_000(),
    }
}

/// The MAC keys of `kind = "lrwpan"`.
pub(super) fn read_lrwpan(
    cx: &mut Cx,
    t: &mut Tab,
    tcp: &TcpSpec,
    loss_down: &LossSpec,
    loss_up: &LossSpec,
) -> LrwpanSpec {
    let d = LrwpanSpec::default();
    let layout = t.read(cx, "layout", d.layout, rd::choice(LAYOUTS));
    let snr_db = t.read_opt(cx, "snr_db", rd::number);
    if snr_db.is_some_and(|x| !x.is_finite()) {
        t.invalid(cx, "snr_db", "must be a finite number", "e.g. 3.5");
    }
    if snr_db.is_some() && (*loss_down != LossSpec::None || *loss_up != LossSpec::None) {
        t.invalid(
            cx,
            "snr_db",
            "cannot be combined with [wireless.loss]",
            "either snr_db or loss tables",
        );
    }
    let mut small = |key: &'static str, default: u8, lo: i128, hi: i128| -> u8 {
        t.read(cx, key, i128::from(default), rd::int_in(lo, hi)) as u8
    };
    let max_frame_retries = small("max_frame_retries", d.max_frame_retries, 0, 7);
    let max_csma_backoffs = small("max_csma_backoffs", d.max_csma_backoffs, 0, 5);
    let min_be = small("min_be", d.min_be, 0, 8);
    let max_be = small("max_be", d.max_be, 3, 8);
    if min_be > max_be {
        t.invalid(cx, "min_be", "is larger than max_be", "min_be <= max_be");
    }
    let max_payload = max_payload(layout, tcp);
    if tcp.mss > max_payload {
        let msg = format!(
            "[tcp] mss = {} B does not fit a 127-byte 802.15.4 frame with this layout",
            tcp.mss
        );
        t.invalid(cx, "layout", msg, &format!("[tcp] mss <= {max_payload}B"));
    }
    LrwpanSpec {
        layout,
        snr_db,
        max_frame_retries,
        max_csma_backoffs,
        min_be,
        max_be,
    }
}

/// The largest MSS a frame of `layout` carries with `tcp`'s options.
fn max_payload(layout: LayoutPreset, tcp: &TcpSpec) -> u32 {
    let payload = u32::from(frame_layout(layout).payload);
    if tcp.timestamps {
        payload.saturating_sub(12)
    } else {
        payload
    }
}

/// Every flow's own `[flow.tcp]` must fit the 802.15.4 frame too (`[tcp]`
/// is checked with `[wireless]`).
pub(super) fn check_flow_mss(
    cx: &mut Cx,
    root: &Tab,
    wireless: &WirelessSpec,
    tcp: &TcpSpec,
    flows: &[FlowSpec],
) {
    let HopKind::Lrwpan(spec) = &wireless.kind else {
        return;
    };
    for f in flows {
        let max = max_payload(spec.layout, &f.tcp);
        if f.tcp != *tcp && f.tcp.mss > max {
            let msg = format!(
                "flow {}: mss = {} B does not fit a 127-byte 802.15.4 frame",
                f.name, f.tcp.mss
            );
            root.invalid(cx, "flow", msg, &format!("[flow.tcp] mss <= {max}B"));
            return;
        }
    }
}

/// `[schemes]`; `flows` are checked for what `"bs_reports"` needs.
pub(super) fn read_schemes(
    cx: &mut Cx,
    t: &mut Tab,
    lrwpan: bool,
    flows: &[FlowSpec],
) -> SchemesSpec {
    let d = SchemesSpec::default();
    let cr_aware = t.read(cx, "cr_aware", d.cr_aware, rd::boolean);
    let local_recovery = t.read(cx, "local_recovery", d.local_recovery, rd::choice(LR_KINDS));
    let sender_agent = matches!(
        local_recovery,
        LocalRecoverySpec::Phy | LocalRecoverySpec::Tcp
    );
    let mac_hold = t.read(cx, "mac_hold", d.mac_hold, rd::boolean);
    let needs_radio = [
        ("cr_aware", cr_aware),
        ("local_recovery", sender_agent),
        ("mac_hold", mac_hold),
    ];
    for (key, on) in needs_radio {
        if on && !lrwpan {
            let msg = "needs the 802.15.4 hop (its PU detector and MAC)";
            t.invalid(cx, key, msg, "[wireless] kind = \"lrwpan\"");
        }
    }
    if local_recovery == LocalRecoverySpec::BsReports {
        check_bs_reports(cx, t, flows);
    }
    let cr_max_freeze = t.read(cx, "cr_max_freeze", d.cr_max_freeze, rd::dur);
    let cr_probe_interval = t.read(cx, "cr_probe_interval", d.cr_probe_interval, rd::dur);
    for (key, v) in [
        ("cr_max_freeze", cr_max_freeze),
        ("cr_probe_interval", cr_probe_interval),
    ] {
        if v == Dur::ZERO {
            t.invalid(cx, key, "must be longer than 0", "a duration > 0");
        }
    }
    let cr_access_failures = t.read(
        cx,
        "cr_access_failures",
        i128::from(d.cr_access_failures),
        rd::int_in(1, 100),
    ) as u32;
    let lr_buffer = t.read(
        cx,
        "lr_buffer",
        i128::from(d.lr_buffer),
        rd::int_in(1, 4096),
    ) as u32;
    SchemesSpec {
        cr_aware,
        local_recovery,
        cr_max_freeze,
        cr_probe_interval,
        cr_access_failures,
        lr_buffer,
        mac_hold,
    }
}

/// `local_recovery = "bs_reports"`: the reports reach the sender's own TCP
/// as SACK blocks, so every uplink flow must negotiate SACK, and there must
/// be an uplink flow for the BS to watch.
fn check_bs_reports(cx: &mut Cx, t: &Tab, flows: &[FlowSpec]) {
    let mut up = flows.iter().filter(|f| f.direction == Direction::Up);
    if up.clone().next().is_none() {
        let msg = "\"bs_reports\" watches uplink data at the BS, but no flow is uplink";
        t.invalid(
            cx,
            "local_recovery",
            msg,
            "a [[flow]] with direction = \"up\"",
        );
    }
    if let Some(f) = up.find(|f| !f.tcp.sack) {
        let msg = format!(
            "\"bs_reports\" reaches the sender's TCP as SACK blocks, but flow {} has sack = false",
            f.name
        );
        t.invalid(cx, "local_recovery", msg, "[tcp] sack = true (the default)");
    }
}

/// `[pu_detection]`.
pub(super) fn read_pu_detection(cx: &mut Cx, t: &mut Tab) -> PuDetectionSpec {
    let d = PuDetectionSpec::default();
    let t_idle = t.read(cx, "t_idle", d.t_idle, rd::dur);
    if t_idle == Dur::ZERO {
        t.invalid(cx, "t_idle", "must be longer than 0", "a duration > 0");
    }
    let signalling_delay = t.read(cx, "signalling_delay", d.signalling_delay, rd::dur);
    let missed_detection = t.read(cx, "missed_detection", d.missed_detection, rd::prob);
    if !(0.0..=1.0).contains(&missed_detection) {
        t.invalid(cx, "missed_detection", "is out of range", "0 <= p <= 1");
    }
    PuDetectionSpec {
        t_idle,
        signalling_delay,
        missed_detection,
    }
}
