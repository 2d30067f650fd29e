//! The flows' control connections, which go around the links
//! ([`Control`]).

use xltcp_core::wire::Segment;

/// Where delivered datagrams go: the host namespace of `side`.
/// The control connections of each flow: the first
/// [`Framing::control_connections`] its client opens, told by the client's
/// port of their SYNs (the server's port is the same for every connection
/// of an iperf3 test).
#[derive(Debug, Default)]
pub(super) struct Control {
    /// Per flow: how many of its first connections are control.
    pub(super) wanted: Vec<u32>,
    /// Per flow: the client's ports of the control connections seen.
    pub(super) ports: Vec<Vec<u16>>,
}

impl Control {
    /// Whether `seg`, read from the flow's client (the sending host) or
    /// its server, belongs to a control connection of `flow`; a client's
    /// SYN opening one of the first connections makes it one.
    pub(super) fn around(&mut self, flow: usize, from_client: bool, seg: &Segment) -> bool {
        let wanted = self.wanted[flow] as usize;
        if wanted == 0 {
            return false;
        }
        let port = if from_client {
            seg.src_port
        } else {
            seg.dst_port
        };
        let ports = &mut self.ports[flow];
        if ports.contains(&port) {
            return true;
        }
        let opening = from_client && seg.flags.syn() && !seg.flags.ack();
        if opening && ports.len() < wanted {
            ports.push(port);
            return true;
        }
        false
    }
}
