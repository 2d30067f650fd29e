//! xltcp core: a deterministic simulator, a sans-IO TCP faithful to the RFCs,
//! a wireless-hop model and the cross-layer schemes that act on it.
//!
//! Everything below the engines is sans-IO: no module reads a clock, sleeps,
//! spawns or touches a socket. Time is [`time::Time`], randomness comes from
//! named streams ([`rng::stream`]).
#![warn(missing_docs)]

pub mod hop;
pub mod net;
pub mod radio;
pub mod rng;
pub mod scenario;
pub mod schemes;
pub mod signal;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod wire;
