//! A flow: its two TCP endpoints, its applications and its counters.

use crate::scenario::{AppSpec, Direction, FlowSpec, TcpSpec};
use crate::tcp::{self, Endpoint};
use crate::time::Time;
use crate::wire::SeqNum;
use std::net::Ipv4Addr;

/// Port every receiving application listens on.
pub const SERVER_PORT: u16 = 5201;
/// First ephemeral port; flow `i` uses `CLIENT_PORT_BASE + i % 16384`.
pub const CLIENT_PORT_BASE: u16 = 49152;

/// Which host of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// The wired host.
    Ch = 0,
    /// The wireless host.
    Sh = 1,
}

/// The TCP configuration a scenario's `[tcp]` describes.
pub fn tcp_config(spec: &TcpSpec) -> tcp::Config {
    tcp::Config::from(spec)
}

/// Address of a flow's host: CH `10.1.x.y`, SH `10.2.x.y`, with x.y = index + 1.
pub fn address(side: Side, flow: u32) -> Ipv4Addr {
    let n = flow + 1;
    let net = match side {
        Side::Ch => 1,
        Side::Sh => 2,
    };
    Ipv4Addr::new(10, net, (n >> 8) as u8, n as u8)
}

/// A flow in the running world.
#[derive(Debug)]
pub struct Flow {
    /// The scenario's description.
    pub spec: FlowSpec,
    /// Endpoints, indexed by [`Side`].
    pub ep: [Endpoint; 2],
    /// Next IP identification per side.
    pub ip_id: [u16; 2],
    /// Bytes the sending application has written so far.
    pub written: u64,
    /// The sending application has closed its side.
    pub closed: bool,
    /// Bytes the receiving application has read.
    pub delivered: u64,
    /// `delivered` at the previous time-series sample.
    pub delivered_at_sample: u64,
    /// When the file transfer's last byte was read.
    pub completed_at: Option<Time>,
    /// The earliest timer event scheduled per side.
    pub timer_armed: [Time; 2],
    /// Blocked time of the wireless hop accumulated before the flow started.
    pub blocked_before_start: crate::time::Dur,
    /// Blocked time of the wireless hop accumulated when the file transfer
    /// completed (set with `completed_at`, by the world).
    pub blocked_at_completion: Option<crate::time::Dur>,
}

impl Flow {
    /// A flow with its endpoints created but not yet opened.
    pub fn new(spec: FlowSpec, index: u32, iss: [SeqNum; 2]) -> Flow {
        let cfg = tcp_config(&spec.tcp);
        let client_port = CLIENT_PORT_BASE + (index % 16384) as u16;
        let (ch_ports, sh_ports) = match spec.direction {
            Direction::Down => ((client_port, SERVER_PORT), (SERVER_PORT, client_port)),
            Direction::Up => ((SERVER_PORT, client_port), (client_port, SERVER_PORT)),
        };
        let ch = Endpoint::new(cfg.clone(), ch_ports.0, ch_ports.1, iss[0]);
        let sh = Endpoint::new(cfg, sh_ports.0, sh_ports.1, iss[1]);
        Flow {
            spec,
            ep: [ch, sh],
            ip_id: [0; 2],
            written: 0,
            closed: false,
            delivered: 0,
            delivered_at_sample: 0,
            completed_at: None,
            timer_armed: [Time::NEVER; 2],
            blocked_before_start: crate::time::Dur::ZERO,
            blocked_at_completion: None,
        }
    }

    fn sender_side_of(d: Direction) -> Side {
        match d {
            Direction::Down => Side::Ch,
            Direction::Up => Side::Sh,
        }
    }

    /// The side that sends data (and opens the connection).
    pub fn sender_side(&self) -> Side {
        Self::sender_side_of(self.spec.direction)
    }

    /// The sending endpoint.
    pub fn sender(&self) -> &Endpoint {
        &self.ep[self.sender_side() as usize]
    }

    /// Opens the connection: the receiver listens, the sender connects.
    pub fn open(&mut self, now: Time) {
        let s = self.sender_side() as usize;
        self.ep[1 - s].listen();
        self.ep[s].connect(now);
    }

    /// Runs the applications on `side` after the endpoint changed: the
    /// sender tops up its send buffer, the receiver reads what arrived.
    pub fn run_apps(&mut self, side: Side, now: Time) {
        let i = side as usize;
        if side == self.sender_side() {
            let ep = &mut self.ep[i];
            match self.spec.app {
                AppSpec::Bulk => {
                    let space = ep.send_buffer_space();
                    self.written += ep.write(space);
                }
                AppSpec::File { bytes } => {
                    let want = (bytes - self.written).min(ep.send_buffer_space());
                    self.written += ep.write(want);
                    // RFC 9293 §3.10.4: CLOSE in SYN-SENT deletes the
                    // connection, so the application waits for it to open.
                    let open =
                        matches!(ep.state(), tcp::State::Established | tcp::State::CloseWait);
                    if self.written == bytes && !self.closed && open {
                        ep.close();
                        self.closed = true;
                    }
                }
            }
        } else {
            let ep = &mut self.ep[i];
            self.delivered += ep.read(u64::MAX);
            // The receiving application closes once it has read the sender's FIN.
            if ep.state() == tcp::State::CloseWait {
                ep.close();
            }
            if let AppSpec::File { bytes } = self.spec.app {
                if self.completed_at.is_none() && self.delivered >= bytes {
                    self.completed_at = Some(now);
                }
            }
        }
    }
}
