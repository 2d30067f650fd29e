//! The Universal Convergence Layer (paper 003, Sánchez, Lanza, Muñoz): an
//! agent pair (wireless host and base station) below IP that binds several
//! air interfaces into one virtual interface and secures the link.
//!
//! - [`security`]: link security: mutual authentication (a Noise XX
//!   handshake between static X25519 identities), per-frame AEAD sealing
//!   with replay protection and re-keying, sans-IO over frame bytes.

pub mod security;
