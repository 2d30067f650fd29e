//! xltcp emulator: real Linux TCP endpoints across the emulated wireless
//! hop, in real time.
//!
//! [`run`] creates two network namespaces (the wired hosts `CH`, the
//! wireless hosts `SH`), a TUN device in each, and a user-space base
//! station that forwards between them through the simulator's own link,
//! loss and availability models ([`hop`]), driven by a real-time loop on
//! one data-path thread ([`bridge`]). The scenario's flows run as iperf3
//! client/server pairs with the congestion control the scenario names.
//! The schemes' agents at the base station run as in the simulator
//! ([`agents`]). It writes the simulator's [`Summary`] (goodput counted at
//! the base station) with its own `emu` section ([`EmuDetails`]), plus
//! base-station captures.
//!
//! Linux only; needs root, `/dev/net/tun`, `ip netns` and iperf3
//! ([`plumbing::preflight`] says what is missing). Everything it creates is
//! removed on return, on a stop request and on panic; leftovers of a
//! killed run are removed by the next one ([`plumbing::clean_leftovers`]).
#![warn(missing_docs)]

pub mod agents;
pub mod air;
pub mod apps;
pub mod bridge;
pub mod capture;
pub mod clock;
pub mod fileapp;
pub mod hop;
pub mod inorder;
mod orchestrate;
pub mod plumbing;
mod sched;
pub mod series;
pub mod signals;
pub mod summary;
pub mod tun;

pub use orchestrate::{run, supported, EmuOptions};
pub use xltcp_core::sim::emu_section::EmuDetails;
pub use xltcp_core::sim::Summary;

/// Why an emulation could not run or finish.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// The machine cannot host the emulator (not root, no TUN, no `ip
    /// netns`, no iperf3): the message says what is missing.
    #[error("{0}")]
    Unavailable(String),
    /// The scenario asks for something the emulator cannot do.
    #[error("{0}")]
    Unsupported(String),
    /// Creating namespaces, devices or processes failed.
    #[error("emulator set-up: {0}")]
    Setup(String),
    /// The run was stopped (Ctrl-C or the progress callback).
    #[error("interrupted")]
    Interrupted,
    /// Writing results failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
