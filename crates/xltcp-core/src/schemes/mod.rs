//! Cross-layer schemes, one file each: sans-IO state machines that take
//! packets, signals and timeouts and return actions for the engine to
//! carry out. None of them knows which engine drives it.
//!
//! - [`cr_aware`]: CR-aware TCP (paper 000): freeze TCP on `pu_start`,
//!   resume on `pu_stop`, with fallbacks for missed signals.
//! - [`local_recovery`]: gap detection at the BS, SACK-style loss reports
//!   and their retransmission by the sender's link layer (PHY-LR) or its
//!   TCP (TCP-LR).

pub mod cr_aware;
pub mod local_recovery;

pub use cr_aware::{CrAction, CrAware, CrAwareConfig, CrAwareStats, FreezeCause};
pub use local_recovery::{GapMonitor, LrAction, LrAgent, LrMode, LrReport, LrStats};
