//! The emulator's real-time clock: nanoseconds since the run's epoch, as
//! the core's [`Time`].
//!
//! The emulator is an engine, so it reads a clock; this is the one place
//! that does (the workspace forbids `Instant::now` below the engines).

use std::time::Instant;
use xltcp_core::time::Time;

/// A monotonic clock whose zero is the moment it was made.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    epoch: Instant,
}

impl Clock {
    /// A clock starting now.
    pub fn start() -> Clock {
        Clock { epoch: read() }
    }

    /// Time since the epoch.
    pub fn now(&self) -> Time {
        Time(read().duration_since(self.epoch).as_nanos() as u64)
    }
}

fn read() -> Instant {
    // The engine's clock (see the module doc).
    #[allow(clippy::disallowed_methods)]
    Instant::now()
}
