//! The cross-layer vocabulary: what a lower layer tells the schemes above it.
//!
//! A [`Signal`] is produced by the wireless hop (the PHY's primary-user
//! detector, the MAC's delivery reports, the channel model) and consumed by
//! the schemes (CR-aware TCP, C-Snoop, DSASync, ...). The same values travel
//! in both engines: in the simulator as Rust values, in the emulator as
//! line-delimited JSON, one object per line, tagged by `"type"` in
//! snake_case:
//!
//! ```text
//! {"type":"pu_start"}
//! {"type":"tfp_start","cause":"pu_on"}
//! {"type":"delivered","frame":42}
//! {"type":"snr","iface":0,"db":7.5}
//! ```
//!
//! A [`SignalRecord`] stamps a signal with the time and the node that
//! emitted it; a [`SignalLog`] is an append-only trace of records that
//! writes and reads that JSON-lines form.

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// Why a transmission freeze period (TFP) began or ended: any interval in
/// which a wireless node may not send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TfpCause {
    /// A primary user is transmitting on the channel (`pu_on`).
    PuOn,
    /// The whole cell is in a sensing quiet period (`cell_sensing`).
    CellSensing,
    /// This node is sensing (`node_sensing`, DSASync's `node_i_sensing`).
    NodeSensing,
    /// The cell is switching channel (`switching`).
    Switching,
}

/// Why a MAC gave a frame up (the reason of an [`Signal::Undelivered`]
/// report; the names follow 802.15.4's status codes, 802.11 uses the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum UndeliveredReason {
    /// No ACK after `macMaxFrameRetries` retransmissions (`NO_ACK`).
    RetryLimit,
    /// More than `macMaxCSMABackoffs` busy CCAs in one CSMA-CA
    /// (`CHANNEL_ACCESS_FAILURE`).
    ChannelAccessFailure,
    /// The transmit queue was full when the frame was enqueued.
    QueueFull,
    /// The MPDU exceeds `aMaxPHYPacketSize` (`FRAME_TOO_LONG`).
    FrameTooLong,
    /// The radio retuned (a channel switch or an off-channel sensing
    /// period) and its driver cleared the frames waiting to be sent.
    Flushed,
}

/// What a MAC measured of a frame it delivered (C-Snoop's `W_RTT` is
/// `queue + tx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacDelays {
    /// From enqueue at the MAC to the head of its queue.
    pub queue: crate::time::Dur,
    /// From the head of the queue to the link-layer ACK.
    pub tx: crate::time::Dur,
    /// Data transmissions it took (1 = first try).
    pub attempts: u8,
}

/// One cross-layer signal.
///
/// Serialised as an internally tagged JSON object: `{"type": "<snake_case
/// variant>", <fields>}`. A non-finite `Snr::db` serialises as `null` and
/// does not read back; emitters send finite values only.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Signal {
    /// The PHY detected a primary user's transmission: stop sending.
    PuStart,
    /// No primary-user transmission has been heard for `t_idle`: resume.
    PuStop,
    /// A transmission freeze period began.
    TfpStart {
        /// What froze the node.
        cause: TfpCause,
        /// For a node's own TFP (`node_sensing`) published to another node
        /// (the BS): the wireless host it freezes. Absent for the cell's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u32>,
    },
    /// A transmission freeze period ended.
    TfpEnd {
        /// What had frozen the node.
        cause: TfpCause,
        /// As for `TfpStart`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u32>,
    },
    /// The MAC received the link-layer ACK of `frame` (C-Snoop's `DELIVERED`).
    Delivered {
        /// The opaque frame id given to the MAC.
        frame: u64,
    },
    /// The MAC gave up on `frame` (C-Snoop's `UNDELIVERED`): retry limit or
    /// channel-access failure.
    Undelivered {
        /// The opaque frame id given to the MAC.
        frame: u64,
    },
    /// A new signal-to-noise estimate on an interface.
    Snr {
        /// The interface index at the emitting node.
        iface: u8,
        /// SNR in dB.
        db: f64,
        /// At the AP: the wireless host whose link it measures. Absent at
        /// a host (its own link).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u32>,
    },
    /// The hop's capacity changed (e.g. a rate change after a channel switch).
    Capacity {
        /// New capacity in bit/s.
        bps: u64,
    },
    /// The cell moved to another channel.
    ChannelSwitch {
        /// The new channel number.
        channel: u16,
    },
}

impl Signal {
    /// The snake_case name used as the JSON `"type"` tag.
    pub fn name(&self) -> &'static str {
        match self {
            Signal::PuStart => "pu_start",
            Signal::PuStop => "pu_stop",
            Signal::TfpStart { .. } => "tfp_start",
            Signal::TfpEnd { .. } => "tfp_end",
            Signal::Delivered { .. } => "delivered",
            Signal::Undelivered { .. } => "undelivered",
            Signal::Snr { .. } => "snr",
            Signal::Capacity { .. } => "capacity",
            Signal::ChannelSwitch { .. } => "channel_switch",
        }
    }
}

/// A signal stamped with when and where it was emitted.
///
/// JSON form: the signal's own fields flattened beside `t_ns` (the time in
/// nanoseconds since the start of the run) and `node`, e.g.
/// `{"t_ns":1000,"node":2,"type":"pu_stop"}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "RecordWire", from = "RecordWire")]
pub struct SignalRecord {
    /// When the signal was emitted.
    pub at: Time,
    /// The emitting node's index in the topology.
    pub node: u32,
    /// The emitting radio's interface (hop) at that node; written as
    /// `"hop"` only when not the first.
    pub iface: u8,
    /// The signal.
    pub signal: Signal,
}

impl SignalRecord {
    /// An upper bound of the bytes of this record's line in
    /// `signals.jsonl` (its newline included), worked out from its fields
    /// without formatting it: the exact digits of its integers, the longest
    /// name of its cause and the longest text of an `f64` (24 bytes, e.g.
    /// `-2.2250738585072014e-308`). Cheap enough to charge every logged
    /// signal to the output budget (`[output] max_bytes`).
    pub fn line_bound(&self) -> usize {
        /// The longest `TfpCause` name (`node_sensing`, `cell_sensing`).
        const CAUSE: usize = 12;
        /// The longest text serde_json writes for an `f64` (or `null`).
        const F64: usize = 24;
        let node = |n: Option<u32>| n.map_or(0, |n| r#","node":"#.len() + digits(n.into()));
        // {"t_ns":T,"node":N[,"hop":H],"type":"NAME"...}\n
        let mut bytes = r#"{"t_ns":,"node":,"type":""}"#.len() + 1;
        bytes += digits(self.at.as_nanos()) + digits(self.node.into());
        if self.iface != 0 {
            bytes += r#","hop":"#.len() + digits(self.iface.into());
        }
        bytes += self.signal.name().len();
        bytes += match self.signal {
            Signal::PuStart | Signal::PuStop => 0,
            Signal::TfpStart { node: n, .. } | Signal::TfpEnd { node: n, .. } => {
                r#","cause":"""#.len() + CAUSE + node(n)
            }
            Signal::Delivered { frame } | Signal::Undelivered { frame } => {
                r#","frame":"#.len() + digits(frame)
            }
            Signal::Snr { iface, node: n, .. } => {
                r#","iface":"#.len() + digits(iface.into()) + r#","db":"#.len() + F64 + node(n)
            }
            Signal::Capacity { bps } => r#","bps":"#.len() + digits(bps),
            Signal::ChannelSwitch { channel } => r#","channel":"#.len() + digits(channel.into()),
        };
        bytes
    }
}

/// The decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

/// The JSON shape of a [`SignalRecord`] (`Time` itself is not serialised).
#[derive(Clone, Copy, Serialize, Deserialize)]
struct RecordWire {
    t_ns: u64,
    node: u32,
    /// The record's `iface` under another key: signals such as `snr`
    /// carry an `iface` of their own.
    #[serde(default, rename = "hop", skip_serializing_if = "is_zero")]
    iface: u8,
    #[serde(flatten)]
    signal: Signal,
}

impl From<SignalRecord> for RecordWire {
    fn from(r: SignalRecord) -> RecordWire {
        RecordWire {
            t_ns: r.at.as_nanos(),
            node: r.node,
            iface: r.iface,
            signal: r.signal,
        }
    }
}

impl From<RecordWire> for SignalRecord {
    fn from(w: RecordWire) -> SignalRecord {
        SignalRecord {
            at: Time(w.t_ns),
            node: w.node,
            iface: w.iface,
            signal: w.signal,
        }
    }
}

/// An append-only trace of signals, in emission order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SignalLog {
    records: Vec<SignalRecord>,
}

impl SignalLog {
    /// An empty log.
    pub fn new() -> SignalLog {
        SignalLog::default()
    }

    /// Appends `signal`, emitted by `node` at `at`.
    pub fn push(&mut self, at: Time, node: u32, signal: Signal) {
        self.push_on(at, node, 0, signal);
    }

    /// Appends `signal`, emitted by `node`'s radio on interface `iface` at `at`.
    pub fn push_on(&mut self, at: Time, node: u32, iface: u8, signal: Signal) {
        self.push_record(SignalRecord {
            at,
            node,
            iface,
            signal,
        });
    }

    /// Appends a record made elsewhere.
    pub fn push_record(&mut self, record: SignalRecord) {
        self.records.push(record);
    }

    /// Every record, in emission order.
    pub fn records(&self) -> &[SignalRecord] {
        &self.records
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the log holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The log as line-delimited JSON: one record per line, each line ending
    /// in `\n`.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        for r in &self.records {
            // A record holds only integers, enums and an f64; the only
            // failure is a non-finite f64, which serde_json writes as null.
            if let Ok(line) = serde_json::to_string(r) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    /// Reads a log written by [`SignalLog::to_jsonl`]; blank lines are skipped.
    /// Errors name the 1-based line that failed.
    pub fn from_jsonl(text: &str) -> Result<SignalLog, JsonlError> {
        let mut log = SignalLog::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record = serde_json::from_str(line).map_err(|source| JsonlError {
                line: i + 1,
                source,
            })?;
            log.records.push(record);
        }
        Ok(log)
    }
}

/// A line of a signal trace that is not a valid record.
#[derive(Debug, thiserror::Error)]
#[error("signal trace line {line}: {source}")]
pub struct JsonlError {
    /// The 1-based line number.
    pub line: usize,
    /// What serde_json objected to.
    pub source: serde_json::Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &Signal) -> String {
        serde_json::to_string(s).unwrap()
    }

    #[test]
    fn signals_serialise_tagged_in_snake_case() {
        assert_eq!(json(&Signal::PuStart), r#"{"type":"pu_start"}"#);
        assert_eq!(json(&Signal::PuStop), r#"{"type":"pu_stop"}"#);
        assert_eq!(
            json(&Signal::TfpStart {
                cause: TfpCause::PuOn,
                node: None,
            }),
            r#"{"type":"tfp_start","cause":"pu_on"}"#
        );
        assert_eq!(
            json(&Signal::TfpEnd {
                cause: TfpCause::NodeSensing,
                node: None,
            }),
            r#"{"type":"tfp_end","cause":"node_sensing"}"#
        );
        assert_eq!(
            json(&Signal::TfpStart {
                cause: TfpCause::NodeSensing,
                node: Some(3),
            }),
            r#"{"type":"tfp_start","cause":"node_sensing","node":3}"#
        );
        assert_eq!(
            json(&Signal::Delivered { frame: 7 }),
            r#"{"type":"delivered","frame":7}"#
        );
        assert_eq!(
            json(&Signal::Undelivered { frame: 8 }),
            r#"{"type":"undelivered","frame":8}"#
        );
        assert_eq!(
            json(&Signal::Snr {
                iface: 1,
                db: -2.5,
                node: None
            }),
            r#"{"type":"snr","iface":1,"db":-2.5}"#
        );
        assert_eq!(
            json(&Signal::Capacity { bps: 250_000 }),
            r#"{"type":"capacity","bps":250000}"#
        );
        assert_eq!(
            json(&Signal::ChannelSwitch { channel: 26 }),
            r#"{"type":"channel_switch","channel":26}"#
        );
    }

    #[test]
    fn name_matches_the_json_tag() {
        let all = [
            Signal::PuStart,
            Signal::PuStop,
            Signal::TfpStart {
                cause: TfpCause::Switching,
                node: None,
            },
            Signal::TfpEnd {
                cause: TfpCause::CellSensing,
                node: Some(1),
            },
            Signal::Delivered { frame: 1 },
            Signal::Undelivered { frame: 1 },
            Signal::Snr {
                iface: 0,
                db: 3.0,
                node: Some(2),
            },
            Signal::Capacity { bps: 1 },
            Signal::ChannelSwitch { channel: 1 },
        ];
        for s in all {
            let v: serde_json::Value = serde_json::from_str(&json(&s)).unwrap();
            assert_eq!(v["type"], s.name());
            let back: Signal = serde_json::from_str(&json(&s)).unwrap();
            assert_eq!(back, s);
        }
    }

    #[test]
    fn log_round_trips_through_jsonl() {
        let mut log = SignalLog::new();
        log.push(Time(1_000), 2, Signal::PuStart);
        log.push(
            Time(2_000_000_000),
            2,
            Signal::TfpStart {
                cause: TfpCause::PuOn,
                node: None,
            },
        );
        log.push(
            Time(3_500_000_000),
            0,
            Signal::Snr {
                iface: 0,
                db: 12.25,
                node: None,
            },
        );
        let text = log.to_jsonl();
        assert_eq!(
            text,
            concat!(
                "{\"t_ns\":1000,\"node\":2,\"type\":\"pu_start\"}\n",
                "{\"t_ns\":2000000000,\"node\":2,\"type\":\"tfp_start\",\"cause\":\"pu_on\"}\n",
                "{\"t_ns\":3500000000,\"node\":0,\"type\":\"snr\",\"iface\":0,\"db\":12.25}\n",
            )
        );
        assert_eq!(SignalLog::from_jsonl(&text).unwrap(), log);
        assert_eq!(log.len(), 3);
    }

    #[test]
    fn bad_line_is_reported_by_number() {
        let text = "{\"t_ns\":1,\"node\":0,\"type\":\"pu_stop\"}\n\n{\"type\":\"warp\"}\n";
        let err = SignalLog::from_jsonl(text).unwrap_err();
        assert_eq!(err.line, 3);
    }

    #[test]
    fn a_records_line_bound_bounds_its_line() {
        let causes = [
            TfpCause::PuOn,
            TfpCause::CellSensing,
            TfpCause::NodeSensing,
            TfpCause::Switching,
        ];
        let mut signals = vec![Signal::PuStart, Signal::PuStop];
        for cause in causes {
            for node in [None, Some(0), Some(u32::MAX)] {
                signals.push(Signal::TfpStart { cause, node });
                signals.push(Signal::TfpEnd { cause, node });
            }
        }
        for frame in [0, 9, 10, u64::MAX] {
            signals.push(Signal::Delivered { frame });
            signals.push(Signal::Undelivered { frame });
        }
        for db in [
            0.0,
            12.25,
            -0.1,
            f64::MIN,
            -f64::MIN_POSITIVE,
            -5e-324,
            -1.234_567_890_123_456_7e-300,
            f64::NAN,
        ] {
            for node in [None, Some(u32::MAX)] {
                signals.push(Signal::Snr {
                    iface: u8::MAX,
                    db,
                    node,
                });
                signals.push(Signal::Snr { iface: 0, db, node });
            }
        }
        signals.push(Signal::Capacity { bps: u64::MAX });
        signals.push(Signal::Capacity { bps: 0 });
        signals.push(Signal::ChannelSwitch { channel: u16::MAX });
        for signal in signals {
            for (at, node, iface) in [(0, 0, 0), (999, 10, 1), (u64::MAX, u32::MAX, u8::MAX)] {
                let r = SignalRecord {
                    at: Time(at),
                    node,
                    iface,
                    signal,
                };
                let line = serde_json::to_string(&r).unwrap().len() + 1;
                let bound = r.line_bound();
                assert!(line <= bound, "{line} > {bound}: {r:?}");
                // Tight but for the f64 and the cause's name.
                assert!(bound - line <= 24 + 12, "{bound} for {line}: {r:?}");
            }
        }
    }
}
