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
//! - [`secure`]: that security run by the UCL pair over the simulated
//!   hops (`security = "on"`): the handshake's messages and the sealed
//!   frames cross the air and cost airtime.

pub mod secure;
pub mod security;
pub mod select;

pub use secure::{Adversary, Air, Entropy, KeySource, SecuritySpec, UclSecStats};
pub use select::{Rule, Ucl, UclConfig, UclStats};
