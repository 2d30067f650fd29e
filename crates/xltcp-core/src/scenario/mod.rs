//! Scenario files: the TOML schema, units as people write them, defaults,
//! and validation with errors that name the file, line, key and what is
//! allowed.
//!
//! [`load_file`] / [`load_str`] read a scenario; the schema (every key, its
//! default and its rules) is documented on the types in `model`.
//!
//! `--set` overrides are `dotted.key=value` strings applied to the parsed
//! document before validation: `sim.duration=10s`, `tcp.sack=false`,
//! `wireless.loss.down.p=0.05`. A `[[flow]]` entry is addressed by its index
//! from 0 (`flow.0.start=1s`, `flow.1.tcp.mss=536B`) and `*` addresses every
//! entry (`flow.*.direction=up`). The value is read as a TOML value when it
//! is one (`0.05`, `false`, `"x"`), else taken as a string. An override of
//! an unknown key is reported like an unknown key in the file.

mod catalog;
mod diag;
mod echo;
mod extends;
mod files;
mod intervals;
mod load;
mod load_agents;
mod load_cr;
mod load_loss;
mod load_wifi;
mod model;
mod reader;
mod syntax;
mod tree;
pub mod units;

pub use catalog::{catalog, KeyInfo};
pub use diag::{Diagnostic, Location, ScenarioError};
pub use echo::{echo, to_toml};
pub use files::{MAX_SCENARIO_BYTES, MAX_TRACE_BYTES};
pub use load::{load_file, load_str, MAX_FLOWS};
pub use load_cr::frame_layout;
pub use model::*;

/// The overrides (`--set` arguments) that give the simulator's TCP what
/// Linux's always does: its RTO rule and estimator, an RTT sample from
/// every ACK, PRR by its rules, its CUBIC's congestion avoidance and
/// ssthresh in whole segments, Eifel detection with timestamps, its
/// reading of F-RTO, byte counting without a limit in slow start, ssthresh
/// from cwnd, SACK recovery whenever SACK is negotiated, and RACK loss
/// detection with it (Linux 6.17 removed the other; before,
/// `net.ipv4.tcp_recovery` could turn RACK off) with its choice of the
/// round trip RACK waits (that of the last segment an ACK's processing
/// reaches, not of the most recently sent), DSACK from its receiver
/// (Linux's default), the undo of a recovery its DSACKs show needless, its
/// receiver's quick ACKs (16 after the first data, a duplicate segment or
/// an idle gap), its immediate ACK of a segment that ends a write, its
/// delayed-ACK timer that follows the arrivals (40 ms at a bulk rate), the
/// send buffer it sizes from cwnd (so that a bulk application's writes,
/// each ending in PSH, stay close to what is sent) and fills two segments
/// at a time, and the quick ACKs of its receive window's growth. The tail loss
/// probe, F-RTO itself and the linear SYN timeouts stay as the scenario
/// says: the emulator switches them on Linux from the same keys.
pub const AS_LINUX: &[&str] = &[
    "tcp.min_rto_mode=\"linux\"",
    "tcp.rtt_estimator=\"linux\"",
    "tcp.rtt_sampling=\"every_ack\"",
    "tcp.prr=true",
    "tcp.prr_variant=\"linux\"",
    "tcp.cubic_variant=\"linux\"",
    "tcp.eifel=true",
    "tcp.frto_variant=\"linux\"",
    "tcp.abc_limit=0",
    "tcp.ssthresh_from=\"cwnd\"",
    "tcp.recovery=\"sack\"",
    "tcp.rack=true",
    "tcp.rack_variant=\"linux\"",
    "tcp.dsack=true",
    "tcp.dsack_undo=true",
    "tcp.quickacks=16",
    "tcp.ack_pushed=true",
    "tcp.delayed_ack_ato=true",
    "tcp.snd_buffer_auto=true",
    "tcp.ack_window_growth=true",
];

/// Overrides that give the simulator's hosts the stack latency of the
/// emulator's (`[hosts]`): a Linux host in its namespace, behind the
/// emulator's TUN device, answers a segment 20 to 100 us after the
/// emulator delivered it (measured from the wired host's ACKs in the
/// emulator's captures: 1st percentile 20-25 us, median 38-52 us, 99th
/// 105-157 us), where the simulator's answer in the same instant. On the
/// 802.15.4 hop that moves a host's backoff slots against its peer's; the
/// simulator compared with the emulator's Linux takes these beside
/// [`AS_LINUX`]. The emulator itself refuses `[hosts]` (its hosts take
/// their own time).
pub const EMULATED_HOSTS: &[&str] = &["hosts.stack_delay=\"20us\"", "hosts.stack_jitter=\"60us\""];

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cr;
#[cfg(test)]
mod tests_hostile;
#[cfg(test)]
mod tests_hygiene;
#[cfg(test)]
mod tests_loss;
#[cfg(test)]
mod tests_snoop;
#[cfg(test)]
mod tests_wifi;
