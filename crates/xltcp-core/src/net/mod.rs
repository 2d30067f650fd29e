//! Link models shared by both engines: one direction of a point-to-point
//! link ([`link::Link`]: a drop-tail queue, a serialiser and a propagation
//! delay on a [`delay::DelayLine`]), frame-loss processes ([`loss::LossProcess`]) and the availability
//! of a wireless channel ([`availability::Availability`]: primary users,
//! blackouts), and the header and payload bytes of a flow's frames
//! ([`framing`]).
//!
//! None of them schedules anything: the engine calls them and acts on what
//! they return.

pub mod availability;
pub mod delay;
pub mod framing;
pub mod link;
pub mod loss;
