//! The oracle bound, as pure functions of the scenario and of what the run
//! measured (the hop's usable time, its loss rate), shared by every engine
//! so that the simulator and the emulator report the same bound.
//!
//! For a full-duplex point-to-point hop of rate `R`:
//!
//! ```text
//! capacity  = R * MSS / (MSS + IP + TCP headers + link overhead)      (payload share of a frame)
//! wireless  = capacity_wireless / (1 + p)                             (each lost frame repaired by one retransmission; p = mean loss of the data direction)
//! bits      = min(capacity_wired * (T - start),
//!                 wireless * usable time of the hop in [start, T],
//!                 file size * 8)
//! oracle    = bits / T
//! ```
//!
//! The 802.15.4 hop brings its own `wireless` rate
//! ([`crate::radio::lrwpan::OracleCapacity`]); the rest is the same.

use crate::scenario::{AppSpec, FlowSpec, Scenario};
use crate::time::Dur;

pub use crate::net::framing::{headers, payload_share};

/// Payload bits per second a point-to-point wireless hop carries for `f`
/// while usable, with `loss` the mean frame loss of the data direction.
pub fn p2p_wireless_rate(s: &Scenario, f: &FlowSpec, loss: f64) -> f64 {
    let wl = &s.wireless;
    wl.link.rate_bps as f64 * payload_share(f.tcp.mss, headers(f), wl.frame_overhead) / (1.0 + loss)
}

/// The most bits flow `f` could deliver alone: its wired access link from
/// its start to the end, the hop's `wireless_rate` over `usable` (the hop's
/// usable time after the flow's start), and a file's size.
pub fn flow_bits(s: &Scenario, f: &FlowSpec, wireless_rate: f64, usable: Dur) -> f64 {
    let t = s.sim.duration;
    let start = f.start.min(t);
    let wired = s.wired.rate_bps as f64
        * payload_share(f.tcp.mss, headers(f), 0)
        * (t - start).as_secs_f64();
    let mut bits = wired.min(wireless_rate * usable.as_secs_f64());
    if let AppSpec::File { bytes } = f.app {
        bits = bits.min(bytes as f64 * 8.0);
    }
    bits
}

/// The fastest rate flow `f` could move data while active for `active`,
/// `usable` of which the hop was not blocked: the wired access link's
/// payload rate, and the hop's `wireless_rate` over the usable share. A
/// file's size does not cap it: this bounds the rate of a file transfer
/// over its own active time (start to completion), not the bits of a run.
pub fn flow_rate_while_active(
    s: &Scenario,
    f: &FlowSpec,
    wireless_rate: f64,
    active: Dur,
    usable: Dur,
) -> f64 {
    if active == Dur::ZERO {
        return 0.0;
    }
    let wired = s.wired.rate_bps as f64 * payload_share(f.tcp.mss, headers(f), 0);
    wired.min(wireless_rate * usable.as_secs_f64() / active.as_secs_f64())
}

/// The most bits all flows of one direction could deliver together: no
/// more than the sum of their own bounds, nor than the hop carries in its
/// usable time (`usable_total`, from time zero).
pub fn direction_bits(sum_of_flow_bits: f64, wireless_rate: f64, usable_total: Dur) -> f64 {
    sum_of_flow_bits.min(wireless_rate * usable_total.as_secs_f64())
}
