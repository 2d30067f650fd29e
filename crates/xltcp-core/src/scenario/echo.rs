//! The scenario echo written into results: every effective value, with
//! units in the form people write them ("10Mbps", "20ms", "4MiB"), in the
//! same shape as the TOML file (flows expanded, each with its full TCP
//! settings; blocked intervals inline). The echo is itself a valid
//! scenario: [`to_toml`] writes it, and loading that gives back the same
//! [`Scenario`].

use serde_json::{json, Value};

use super::model::*;
use super::units::{format_duration, format_period, format_queue, format_rate, format_size};
use crate::schemes::clamp::{Growth, HalvingRule, WindowUpdates};

/// The scenario as JSON, units readable; flows are listed after expansion,
/// each with its effective TCP settings.
pub fn echo(s: &Scenario) -> Value {
    let mut v = json!({
        "name": s.name,
        "sim": {
            "duration": format_duration(s.sim.duration),
            // TOML integers are signed: larger seeds are written as strings.
            "seed": i64::try_from(s.sim.seed).map_or_else(|_| json!(s.sim.seed.to_string()), |n| json!(n)),
            "sample_interval": format_duration(s.sim.sample_interval),
        },
        "tcp": tcp(&s.tcp),
        "wired": wired(&s.wired),
        "wireless": hops(s),
        "flow": s.flows.iter().map(flow).collect::<Vec<_>>(),
        "output": {
            "pcap": s.output.pcap,
            "pcap_snaplen": s.output.pcap_snaplen,
            "timeseries": s.output.timeseries,
        },
    });
    // Tables and keys at their defaults are left out, so that scenarios
    // without them echo exactly as before they existed.
    if s.sim.threads != 1 {
        v["sim"]["threads"] = json!(s.sim.threads);
    }
    if let Some(b) = s.output.max_bytes {
        v["output"]["max_bytes"] = json!(b);
    }
    if s.output.pcap_point != CapturePoint::default() {
        v["output"]["pcap_point"] = json!(s.output.pcap_point.name());
    }
    if s.schemes != SchemesSpec::default() {
        v["schemes"] = schemes(&s.schemes);
    }
    if s.pu_detection != PuDetectionSpec::default() {
        let p = &s.pu_detection;
        v["pu_detection"] = json!({
            "t_idle": format_duration(p.t_idle),
            "signalling_delay": format_duration(p.signalling_delay),
            "missed_detection": p.missed_detection,
        });
    }
    if !s.agents.is_empty() {
        v["agent"] = s.agents.iter().map(agent).collect();
    }
    if s.hosts != HostsSpec::default() {
        v["hosts"] = json!({
            "stack_delay": format_duration(s.hosts.stack_delay),
            "stack_jitter": format_duration(s.hosts.stack_jitter),
        });
    }
    v
}

fn agent(a: &AgentSpec) -> Value {
    let at = match &a.at {
        AgentPlace::Bs => "bs".to_string(),
        AgentPlace::Hosts => "hosts".to_string(),
        AgentPlace::Host(h) => h.clone(),
    };
    match a.scheme {
        AgentScheme::CrAware {
            max_freeze,
            probe_interval,
            access_failures,
        } => json!({
            "scheme": "cr_aware",
            "at": at,
            "max_freeze": format_duration(max_freeze),
            "probe_interval": format_duration(probe_interval),
            "access_failures": access_failures,
        }),
        AgentScheme::LrBs => json!({ "scheme": "lr_bs", "at": at }),
        AgentScheme::LrSender { mode, buffer } => json!({
            "scheme": "lr_sender",
            "at": at,
            "mode": if mode == LocalRecoverySpec::Phy { "phy" } else { "tcp" },
            "buffer": buffer,
        }),
        AgentScheme::DsaSync(c) => {
            use crate::schemes::dsasync::Smoothing;
            json!({
                "scheme": "dsasync",
                "at": at,
                "buffer": c.buffer,
                "b_low": c.b_low,
                "b_high": c.b_high,
                "alpha_min": c.alpha_min,
                "window": format_duration(c.window),
                "efficiency": c.efficiency,
                "smoothing": match c.smoothing {
                    Smoothing::Cell => "cell",
                    Smoothing::Node => "node",
                    Smoothing::Off => "off",
                },
                "tx_window": c.tx_window,
                "rate_over": c.rate_over.name(),
                "max_wait": c.max_wait.name(),
            })
        }
        AgentScheme::Snoop => json!({ "scheme": "snoop", "at": at }),
        AgentScheme::CSnoop => json!({ "scheme": "c_snoop", "at": at }),
        AgentScheme::Snack => json!({ "scheme": "snack", "at": at }),
        AgentScheme::Ucl(ref c) => {
            use crate::schemes::ucl::Rule;
            let mut v = json!({
                "scheme": "ucl",
                "at": at,
                "dwell": format_duration(c.dwell),
                "reorder": if c.barrier { "barrier" } else { "none" },
                "max_hold": format_duration(c.max_hold),
                "resend": c.resend,
            });
            match c.rule {
                Rule::Threshold { db } => {
                    v["rule"] = json!("threshold");
                    v["threshold"] = json!(db);
                }
                Rule::Hysteresis { db, margin } => {
                    v["rule"] = json!("hysteresis");
                    v["threshold"] = json!(db);
                    v["hysteresis_db"] = json!(margin);
                }
                Rule::Goodput { gain, margin } => {
                    v["rule"] = json!("goodput");
                    v["gain"] = json!(gain);
                    v["margin_db"] = json!(margin);
                }
            }
            if let Some(s) = &c.security {
                use crate::schemes::ucl::KeySource;
                v["security"] = json!("on");
                match &s.keys {
                    KeySource::Seed => v["keys"] = json!("seed"),
                    KeySource::Files { written, .. } => {
                        v["keys"] = json!("files");
                        v["identity"] = json!(written[0]);
                        v["trusted"] = json!(written[1]);
                    }
                }
                v["replay_window"] = json!(s.session.replay_window);
                v["rekey_frames"] = json!(s.session.rekey_after_frames.unwrap_or(0));
                v["rekey_grace"] = json!(s.session.rekey_grace_frames);
                if let Some(b) = s.rekey_bytes {
                    v["rekey_bytes"] = json!(format!("{b}B"));
                }
                v["handshake_timeout"] = json!(format_duration(s.handshake_timeout));
                v["handshake_backoff_max"] = json!(format_duration(s.handshake_backoff_max));
                v["handshake_tries"] = json!(s.handshake_tries);
                v["max_held"] = json!(s.max_held);
                v["tamper_every"] = json!(s.tamper_every);
                if let Some(a) = s.adversary {
                    v["adversary"] = json!(a.name());
                    v["adversary_every"] = json!(s.adversary_every);
                }
                v["seeded_keys"] = json!(s.seeded_keys);
            }
            v
        }
        AgentScheme::Clamp(c) | AgentScheme::L2Clamp(c) => {
            let mut v = json!({
                "scheme": if matches!(a.scheme, AgentScheme::Clamp(_)) { "clamp" } else { "l2clamp" },
                "at": at,
                "target_delay": format_duration(c.target_delay),
                "tau": c.tau,
                "rate_time": format_duration(c.rate_time),
                "min_window": c.min_window,
                "initial_window": c.initial_window,
            });
            // Echoed only when not the default, so that earlier records stand.
            if let Some(alpha) = c.alpha {
                v["alpha"] = json!(alpha);
            }
            if c.growth != Growth::Window {
                v["growth"] = json!(c.growth.name());
            }
            if c.halving != HalvingRule::OncePerWindow {
                v["halving"] = json!(c.halving.name());
            }
            if c.window_updates != WindowUpdates::Pass {
                v["window_updates"] = json!(c.window_updates.name());
            }
            v
        }
    }
}

fn schemes(s: &SchemesSpec) -> Value {
    let mut v = json!({
        "cr_aware": s.cr_aware,
        "local_recovery": match s.local_recovery {
            LocalRecoverySpec::None => "none",
            LocalRecoverySpec::Phy => "phy",
            LocalRecoverySpec::Tcp => "tcp",
            LocalRecoverySpec::BsReports => "bs_reports",
        },
        "cr_max_freeze": format_duration(s.cr_max_freeze),
        "cr_probe_interval": format_duration(s.cr_probe_interval),
        "cr_access_failures": s.cr_access_failures,
        "lr_buffer": s.lr_buffer,
    });
    // Echoed only when on, so that the echo of every scenario written
    // before the key existed is unchanged.
    if s.mac_hold {
        v["mac_hold"] = json!(true);
    }
    v
}

/// The echo as a TOML document that loads back into the same scenario
/// (for any scenario the loader accepts; an empty string if TOML cannot
/// represent it).
pub fn to_toml(s: &Scenario) -> String {
    // An echo is a JSON object of tables, strings, numbers and booleans
    // (no nulls), which TOML can always represent.
    toml::to_string(&echo(s)).unwrap_or_default()
}

fn tcp(t: &TcpSpec) -> Value {
    let mut v = json!({
        "profile": match t.profile { TcpProfile::Rfc => "rfc", TcpProfile::Ns3 => "ns3" },
        "cc": t.cc,
        "recovery": match t.recovery { RecoverySpec::NewReno => "newreno", RecoverySpec::Sack => "sack" },
        "sack": t.sack,
        "timestamps": t.timestamps,
        "window_scale": t.window_scale,
        "mss": format_size(t.mss as u64),
        "initial_window": t.initial_window,
        "abc_limit": t.abc_limit,
        "limited_transmit": t.limited_transmit,
        "delayed_ack": t.delayed_ack_segments,
        "delayed_ack_timeout": format_duration(t.delayed_ack_timeout),
        "initial_rto": format_duration(t.initial_rto),
        "min_rto": format_duration(t.min_rto),
        "max_rto": format_duration(t.max_rto),
        "min_rto_mode": match t.min_rto_mode { MinRtoMode::Rfc6298 => "rfc6298", MinRtoMode::Linux => "linux" },
        "rtt_estimator": match t.rtt_estimator { RttEstimatorKind::Rfc6298 => "rfc6298", RttEstimatorKind::Linux => "linux" },
        "ssthresh_from": match t.ssthresh_from { SsthreshFrom::FlightSize => "flight_size", SsthreshFrom::Cwnd => "cwnd" },
        "frto": t.frto,
        "frto_variant": match t.frto_variant { FrtoVariant::Rfc5682 => "rfc5682", FrtoVariant::Linux => "linux" },
        "rack": t.rack,
        "rack_variant": match t.rack_variant { RackVariant::Rfc8985 => "rfc8985", RackVariant::Linux => "linux" },
        "tlp": t.tlp,
        "prr": t.prr,
        "prr_variant": match t.prr_variant { PrrVariant::Rfc6937 => "rfc6937", PrrVariant::Linux => "linux" },
        "eifel": t.eifel,
        "dsack": t.dsack,
        "dsack_undo": t.dsack_undo,
        "quickacks": t.quickacks,
        "ack_pushed": t.ack_pushed,
        "delayed_ack_ato": t.delayed_ack_ato,
        "snd_buffer_auto": t.snd_buffer_auto,
        "ack_window_growth": t.ack_window_growth,
        "syn_linear_timeouts": t.syn_linear_timeouts,
        "rtt_sampling": match t.rtt_sampling { RttSampling::Timed => "timed", RttSampling::EveryAck => "every_ack" },
        "rcv_buffer": format_size(t.rcv_buffer),
        "snd_buffer": format_size(t.snd_buffer),
    });
    // `hystart` matters to CUBIC alone; other echoes stay as they were.
    if t.cc == "cubic" || t.hystart {
        v["hystart"] = Value::Bool(t.hystart);
    }
    // So does `cubic_variant`.
    if t.cc == "cubic" || t.cubic_variant != CubicVariant::Rfc9438 {
        let name = match t.cubic_variant {
            CubicVariant::Rfc9438 => "rfc9438",
            CubicVariant::Linux => "linux",
        };
        v["cubic_variant"] = Value::String(name.into());
    }
    v
}

/// `[wired]`: a link with its jitter, and its frame overhead when set.
fn wired(l: &LinkSpec) -> Value {
    let mut v = link(l);
    v["jitter"] = json!(format_duration(l.jitter));
    if l.frame_overhead > 0 {
        v["frame_overhead"] = json!(format_size(l.frame_overhead as u64));
    }
    v
}

fn link(l: &LinkSpec) -> Value {
    json!({
        "rate": format_rate(l.rate_bps),
        "delay": format_duration(l.delay),
        "queue": format_queue(l.queue),
    })
}

fn loss(l: &LossSpec) -> Value {
    match *l {
        LossSpec::None => json!({ "model": "none" }),
        LossSpec::Iid { p } => json!({ "model": "iid", "p": p }),
        LossSpec::Gilbert {
            mean_loss,
            mean_burst,
            steps: LossSteps::Own,
        } => json!({ "model": "gilbert", "mean_loss": mean_loss, "mean_burst": mean_burst }),
        LossSpec::Gilbert {
            mean_loss,
            mean_burst,
            steps: LossSteps::Both,
        } => json!({
            "model": "gilbert", "mean_loss": mean_loss, "mean_burst": mean_burst, "steps": "both"
        }),
        LossSpec::List { ref frames } => json!({ "model": "list", "frames": frames.as_ref() }),
    }
}

/// `[wireless]`, or every `[[wireless]]` entry (each with its name).
fn hops(s: &Scenario) -> Value {
    if s.more_hops.is_empty() {
        let mut v = wireless(&s.wireless);
        if s.wireless.name != "air" {
            v["name"] = json!(s.wireless.name);
        }
        return v;
    }
    let all = std::iter::once(&s.wireless).chain(&s.more_hops);
    Value::Array(
        all.map(|w| {
            let mut v = wireless(w);
            v["name"] = json!(w.name);
            v
        })
        .collect(),
    )
}

fn wireless(w: &WirelessSpec) -> Value {
    let availability = match &w.availability {
        AvailabilitySpec::Always => json!({ "model": "always" }),
        AvailabilitySpec::OnOff {
            on,
            off,
            start_blocked,
        } => json!({
            "model": "onoff",
            "on": format_period(*on),
            "off": format_period(*off),
            "start": if *start_blocked { "off" } else { "on" },
        }),
        AvailabilitySpec::Intervals(list) => json!({
            "model": "intervals",
            "intervals": list
                .iter()
                .map(|(a, b)| json!([format_duration(*a), format_duration(*b)]))
                .collect::<Vec<_>>(),
        }),
    };
    let mut v = link(&w.link);
    v["frame_overhead"] = json!(format_size(w.frame_overhead as u64));
    v["loss"] = json!({ "down": loss(&w.loss_down), "up": loss(&w.loss_up) });
    v["availability"] = availability;
    if w.blocked == BlockedMode::Lose {
        v["availability"]["blocked"] = json!("lose");
    }
    if let HopKind::Lrwpan(l) = &w.kind {
        v["kind"] = json!("lrwpan");
        v["layout"] = json!(match l.layout {
            LayoutPreset::TcpIpv4 => "tcp_ipv4",
            LayoutPreset::Paper => "paper",
        });
        if let Some(db) = l.snr_db {
            v["snr_db"] = json!(db);
        }
        v["max_frame_retries"] = json!(l.max_frame_retries);
        v["max_csma_backoffs"] = json!(l.max_csma_backoffs);
        v["min_be"] = json!(l.min_be);
        v["max_be"] = json!(l.max_be);
    }
    if let HopKind::Wifi(w) = &w.kind {
        super::load_wifi::echo_wifi(&mut v, w);
    }
    v
}

fn flow(f: &FlowSpec) -> Value {
    let mut v = json!({
        "name": f.name,
        "direction": match f.direction { Direction::Down => "down", Direction::Up => "up" },
        "start": format_duration(f.start),
        "tcp": tcp(&f.tcp),
    });
    match f.app {
        AppSpec::Bulk => v["app"] = json!("bulk"),
        AppSpec::File { bytes } => {
            v["app"] = json!("file");
            v["size"] = json!(format_size(bytes));
        }
    }
    if let Some(h) = &f.host {
        v["host"] = json!(h);
    }
    v
}
