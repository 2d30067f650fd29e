//! The Universal Convergence Layer (paper 003): an agent pair below IP, at
//! a wireless host and at the base station, that binds the node's air
//! interfaces (the scenario's `[[wireless]]` hops) into one.
//!
//! - [`select`]: which interface each packet takes, from the radios' SNR
//!   reports and the MAC's delivery reports.

pub mod select;

pub use select::{Rule, Ucl, UclConfig, UclStats};
