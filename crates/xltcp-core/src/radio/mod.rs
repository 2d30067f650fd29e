//! The wireless hop: PHY and MAC models, error models and the primary-user
//! detector that publishes cross-layer [`Signal`](crate::signal::Signal)s.
//!
//! Every piece here is a sans-IO state machine or a pure function: inputs
//! are `handle_*(now, ..)` calls, outputs are drained with `poll_*()`, time
//! comes in as [`Time`](crate::time::Time) and randomness as a named stream
//! ([`crate::rng::stream`]) handed over at construction. None of them knows
//! the simulator; the engines drive them.
//!
//! - [`lrwpan`]: IEEE 802.15.4 2.4 GHz O-QPSK PHY timing, frame layouts,
//!   the unslotted CSMA-CA MAC with retries, and the hop's oracle capacity.
//! - [`oqpsk`]: the O-QPSK bit/packet error rate from SINR.
//! - [`pu`]: primary-user detection at a secondary's PHY (`pu_start` /
//!   `pu_stop` with `t_idle`).
//! - [`snr`]: a station's SNR over time (fixed, shadowing and fading, or a
//!   trace).
//! - [`wifi`]: the 802.11a/b DCF, rates, error models and energy.

pub mod lrwpan;
pub mod oqpsk;
pub mod pu;
pub mod snr;
pub mod wifi;

#[cfg(test)]
mod proptests;
