//! The deterministic discrete-event simulator.

pub mod availability;
pub mod engine;
pub mod loss;
