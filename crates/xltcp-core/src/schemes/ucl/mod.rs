//! The Universal Convergence Layer (paper 003, Sánchez, Lanza, Muñoz): an
//! agent pair below IP, at a wireless host and at the base station, that
//! binds the node's air interfaces (the scenario's `[[wireless]]` hops)
//! into one virtual interface and secures the link.
//!
//! - [`select`]: which interface each packet takes, from the radios' SNR
//!   reports and the MAC's delivery reports.
//! - [`security`]: link security: mutual authentication (a Noise XX
//!   handshake between static X25519 identities), per-frame AEAD sealing
//!   with replay protection and re-keying, sans-IO over frame bytes.

pub mod security;
pub mod select;

pub use select::{Rule, Ucl, UclConfig, UclStats};
