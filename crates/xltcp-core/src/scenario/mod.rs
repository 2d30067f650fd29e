//! Scenario files: the TOML schema, units as people write them, defaults,
//! and validation with errors that name the file, line, key and what is
//! allowed.

mod model;
pub mod units;

pub use model::*;
