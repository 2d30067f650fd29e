//! `[wired]` and the point-to-point hop's links, their loss processes
//! (`[wireless.loss.<dir>]`) and the availability of the channel
//! (`[wireless.availability]`).

use crate::time::Dur;

/// Queue limit of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// `queue = "100p"`: at most this many packets.
    Packets(u32),
    /// `queue = "256KiB"`: at most this many bytes.
    Bytes(u64),
}

/// A wired point-to-point link (same parameters both ways). In `[wired]` and
/// `[wireless]`, `rate` and `delay` are required; `queue` defaults to "100p".
/// A byte limit must hold a full-size segment (`[tcp]` mss + 80 B of headers).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// `rate`: bits per second, e.g. "100Mbps"; > 0.
    pub rate_bps: u64,
    /// `delay`: one-way propagation delay, e.g. "10ms".
    pub delay: Dur,
    /// `queue`: drop-tail limit, "100p" (packets) or "256KiB" (bytes); > 0.
    pub queue: QueueLimit,
    /// `jitter` (`[wired]` only): each packet's delay is `delay` plus a
    /// uniform draw in [0, jitter] from the stream `wired.<link>.jitter`,
    /// never overtaking the packet before it: the spread of real hosts'
    /// and switches' processing times. Default "0s": none.
    pub jitter: Dur,
    /// `frame_overhead` (`[wired]` only): link-layer bytes added to every
    /// IP packet on the wire, e.g. "2B" for the PPP header that ns-3's
    /// point-to-point devices add on every link. Default "0B"; <= 65535.
    pub frame_overhead: u32,
}

/// A frame-loss process.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// `model = "none"` (the default when the table is absent; a present
    /// table must name its `model`).
    None,
    /// `model = "iid"`, `p`: each frame lost with probability p in [0, 1).
    Iid {
        /// Loss probability.
        p: f64,
    },
    /// `model = "gilbert"`, `mean_loss` in [0, 1), `mean_burst` >= 1 (frames);
    /// simple Gilbert (SPECS §8): loss in Bad only. Requires
    /// mean_loss <= mean_burst / (1 + mean_burst).
    Gilbert {
        /// Average loss P_L.
        mean_loss: f64,
        /// Mean burst length L_b, in frames.
        mean_burst: f64,
        /// `steps`: which frames advance the chain.
        steps: LossSteps,
    },
    /// `model = "list"`, `frames` or `file`: exactly these frames lost, by
    /// their number among the frames this direction puts on the air,
    /// counted from 1 (a retry on 802.11 or 802.15.4 is a frame of its own;
    /// `loss_per = "packet"` counts packets). Strictly increasing.
    List {
        /// The frame numbers, sorted.
        frames: std::sync::Arc<[u64]>,
    },
}

impl LossSpec {
    /// Whether the other direction's frames step this chain too (a
    /// Gilbert chain with `steps = "both"`).
    pub fn steps_both(&self) -> bool {
        matches!(
            self,
            LossSpec::Gilbert {
                steps: LossSteps::Both,
                ..
            }
        )
    }
}

/// Which frames advance a Gilbert chain (`[wireless.loss.<dir>] steps`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LossSteps {
    /// `"own"` (default): one step per frame of this direction.
    #[default]
    Own,
    /// `"both"` (point-to-point hop only): also one step, without a loss
    /// decision, per frame the other direction of the hop puts on the air,
    /// as a per-packet error model shared by both devices of a link does in
    /// ns-3 (the other direction's frames keep their own loss process). The
    /// chain's mean loss and burst then hold per frame of the hop, not per
    /// frame of this direction.
    Both,
}

/// How long each ON or OFF period lasts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period {
    /// `"exp(4s)"`: exponential with this mean.
    Exp(Dur),
    /// `"4s"`: always this long.
    Fixed(Dur),
}

/// Availability of the wireless hop (primary users, blackouts).
#[derive(Clone, Debug, PartialEq)]
pub enum AvailabilitySpec {
    /// `model = "always"` (default).
    Always,
    /// `model = "onoff"`, `on` / `off` periods (ON = available), `start` =
    /// "on" (default) or "off".
    OnOff {
        /// Available periods.
        on: Period,
        /// Blocked periods.
        off: Period,
        /// The hop starts blocked.
        start_blocked: bool,
    },
    /// `model = "file"`, `file`: blocked intervals, one "start end" pair of
    /// seconds per line, sorted and disjoint (path relative to the scenario).
    /// Each number is seconds ("1.5") or a duration ("1500ms"); `#` starts a
    /// comment; blank lines are skipped; start < end; touching is allowed.
    Intervals(Vec<(Dur, Dur)>),
}

/// What the point-to-point hop does while the channel is blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockedMode {
    /// `"defer"` (default): the transmitters sense the primary user and
    /// hold their queues; only the frame on the air when the blockage
    /// begins is lost. A secondary user that senses perfectly — the
    /// behaviour a cognitive radio is built to have, and the one the
    /// shipped results were made with.
    Defer,
    /// `"lose"`: the transmitters do not sense the primary user and keep
    /// sending; every frame whose airtime overlaps a blockage is destroyed
    /// (counted as `blocked`), both directions — an error model on the
    /// wireless device, as an ns-3 setup of the same scenario has.
    Lose,
}
