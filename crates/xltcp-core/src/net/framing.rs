//! What a frame carries of a flow's data: the IPv4 and TCP header bytes
//! of a full data segment and the payload share of a frame. The hops'
//! capacities and the oracle bound ([`crate::sim::oracle`], which
//! re-exports these) both build on them.

use crate::scenario::FlowSpec;

/// Payload share of a frame: MSS over MSS plus headers and overhead.
pub fn payload_share(mss: u32, header: u32, overhead: u32) -> f64 {
    mss as f64 / (mss + header + overhead) as f64
}

/// IPv4 and TCP header bytes of a full data segment of `f`.
pub fn headers(f: &FlowSpec) -> u32 {
    40 + if f.tcp.timestamps { 12 } else { 0 }
}
