//! Per-flow time series of Linux's TCP at the senders,
//! `timeseries/<flow>.csv` in the simulator's columns.
//!
//! Every `sim.sample_interval` a thread of the emulator asks the kernel of
//! each sending host for its TCP sockets over `sock_diag` (what `ss -ti`
//! reads) and writes one row per flow from its data connection's
//! `tcp_info`. The data connection is the one the base station saw open
//! after the flow's control connections ([`crate::inorder::Progress`]), so
//! iperf3's control connection is never sampled.
//!
//! | column | from |
//! |---|---|
//! | `time_s` | emulation time of the sample |
//! | `cwnd_bytes`, `ssthresh_bytes` | `tcpi_snd_cwnd`, `tcpi_snd_ssthresh` (segments) times `tcpi_snd_mss`; the threshold empty while Linux holds it "infinite" (before the first reduction), as the simulator leaves it |
//! | `srtt_s`, `rto_s` | `tcpi_rtt`, `tcpi_rto` |
//! | `flight_bytes` | `tcpi_unacked` times the MSS: SND.NXT − SND.UNA, the simulator's FlightSize (SACKed and lost segments included) |
//! | `snd_max_rel` | sequence space sent: the SYN and the bytes sent once (`tcpi_bytes_sent − tcpi_bytes_retrans`) |
//! | `snd_una_rel` | sequence space acknowledged, the SYN's included: `tcpi_bytes_acked` |
//! | `goodput_bps` | the base station's in-order count of the flow's data over the interval, the simulator's goodput |
//! | `congestion_state` | `tcpi_ca_state`: `open`, `disorder`, `cwr`, `recovery`, `loss` |
//! | `hop_blocked` | the wireless hop blocked at the sample (1) or not (0) |
//!
//! A flow has rows from its data connection's first sample to the
//! scenario's end or the connection's close. Rows share the run's trace
//! budget with the captures; past it they are counted, not written.

use crate::capture::TraceBudget;
use crate::clock::Clock;
use crate::inorder::Progress;
use netlink_packet_core::{
    NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_DUMP, NLM_F_REQUEST,
};
use netlink_packet_sock_diag::constants::{AF_INET, IPPROTO_TCP};
use netlink_packet_sock_diag::inet::nlas::{Nla, TcpInfo};
use netlink_packet_sock_diag::inet::{ExtensionFlags, InetRequest, SocketId, StateFlags};
use netlink_packet_sock_diag::SockDiagMessage;
use netlink_sys::protocols::NETLINK_SOCK_DIAG;
use netlink_sys::{Socket, SocketAddr};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use xltcp_core::sim::output::sanitize;
use xltcp_core::time::{Dur, Time};

/// The header of a time-series file (the simulator's).
pub const HEADER: &str = "time_s,cwnd_bytes,ssthresh_bytes,srtt_s,rto_s,flight_bytes,snd_max_rel,snd_una_rel,goodput_bps,congestion_state,hop_blocked";

/// Linux's threshold before any reduction (`TCP_INFINITE_SSTHRESH`).
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// One IPv4 TCP socket of a host, with its `tcp_info`.
#[derive(Clone, Debug)]
pub struct TcpSocket {
    /// Local address.
    pub addr: Ipv4Addr,
    /// Local port.
    pub port: u16,
    /// Remote port.
    pub peer_port: u16,
    /// What the kernel reports of it.
    pub info: TcpInfo,
}

/// A `sock_diag` socket, reading one network namespace's TCP sockets.
pub struct Diag {
    socket: Socket,
    request: Vec<u8>,
    buf: Vec<u8>,
}

impl Diag {
    /// Opens one in the calling thread's network namespace.
    pub fn open() -> io::Result<Diag> {
        let mut socket = Socket::new(NETLINK_SOCK_DIAG)?;
        socket.bind_auto()?;
        socket.connect(&SocketAddr::new(0, 0))?;
        let mut header = NetlinkHeader::default();
        header.flags = NLM_F_REQUEST | NLM_F_DUMP;
        let mut packet = NetlinkMessage::new(
            header,
            SockDiagMessage::InetRequest(InetRequest {
                family: AF_INET,
                protocol: IPPROTO_TCP,
                extensions: ExtensionFlags::INFO,
                states: StateFlags::all(),
                socket_id: SocketId::new_v4(),
            })
            .into(),
        );
        packet.finalize();
        let mut request = vec![0; packet.buffer_len()];
        packet.serialize(&mut request);
        Ok(Diag {
            socket,
            request,
            buf: vec![0; 64 * 1024],
        })
    }

    /// Opens one in network namespace `ns` (an `ip netns` name): the calling
    /// thread enters it for good.
    pub fn open_in(ns: &str) -> io::Result<Diag> {
        crate::fileapp::enter(ns).map_err(io::Error::other)?;
        Diag::open()
    }

    /// The namespace's IPv4 TCP sockets that have a `tcp_info`, into `out`.
    pub fn dump(&mut self, out: &mut Vec<TcpSocket>) -> io::Result<()> {
        out.clear();
        self.socket.send(&self.request, 0)?;
        loop {
            let n = self.socket.recv(&mut &mut self.buf[..], 0)?;
            let mut at = 0;
            while at < n {
                let msg = NetlinkMessage::<SockDiagMessage>::deserialize(&self.buf[at..n])
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
                let len = msg.header.length as usize;
                match msg.payload {
                    NetlinkPayload::InnerMessage(SockDiagMessage::InetResponse(r)) => {
                        let id = &r.header.socket_id;
                        let info = r.nlas.iter().find_map(|nla| match nla {
                            Nla::TcpInfo(i) => Some(i.clone()),
                            _ => None,
                        });
                        if let (IpAddr::V4(addr), Some(info)) = (id.source_address, info) {
                            out.push(TcpSocket {
                                addr,
                                port: id.source_port,
                                peer_port: id.destination_port,
                                info,
                            });
                        }
                    }
                    NetlinkPayload::Done(_) => return Ok(()),
                    NetlinkPayload::Error(e) => {
                        return Err(io::Error::other(format!("sock_diag: {e:?}")))
                    }
                    _ => {}
                }
                if len == 0 {
                    break;
                }
                at += len;
            }
        }
    }
}

/// The name of Linux's congestion state `tcpi_ca_state`.
fn state_name(ca_state: u8) -> &'static str {
    match ca_state {
        0 => "open",
        1 => "disorder",
        2 => "cwr",
        3 => "recovery",
        4 => "loss",
        _ => "unknown",
    }
}

/// One row (with its newline): `info` sampled at `t`, the flow having had
/// `delivered_bits` delivered in order over the `over_s` seconds since its
/// previous row.
pub fn row(t: Time, info: &TcpInfo, delivered_bits: f64, over_s: f64, blocked: bool) -> String {
    let mss = u64::from(info.snd_mss);
    let segments = |n: u32| u64::from(n) * mss;
    let mut s = String::with_capacity(120);
    let _ = writeln!(
        s,
        "{:.3},{},{},{},{:.6},{},{},{},{:.0},{},{}",
        t.as_secs_f64(),
        segments(info.snd_cwnd),
        Some(info.snd_ssthresh)
            .filter(|&x| x < INFINITE_SSTHRESH)
            .map(|x| segments(x).to_string())
            .unwrap_or_default(),
        Some(info.rtt)
            .filter(|&us| us > 0)
            .map(|us| format!("{:.6}", f64::from(us) / 1e6))
            .unwrap_or_default(),
        f64::from(info.rto) / 1e6,
        segments(info.unacked),
        1 + info.bytes_sent.saturating_sub(info.bytes_retrans),
        info.bytes_acked,
        if over_s > 0.0 {
            delivered_bits / over_s
        } else {
            0.0
        },
        state_name(info.ca_state),
        blocked as u8,
    );
    s
}

/// What the sampling thread needs to know of a flow.
#[derive(Clone, Debug)]
pub struct SampledFlow {
    /// File name (the flow's name).
    pub name: String,
    /// Index of its sender's namespace in [`Sampler::namespaces`].
    pub namespace: usize,
    /// The sender's address.
    pub addr: Ipv4Addr,
    /// The receiver's port.
    pub server_port: u16,
}

/// The sampling thread's work.
pub struct Sampler<'a> {
    /// The sending hosts' namespaces.
    pub namespaces: Vec<String>,
    /// The flows, in scenario order (their index is the hop's).
    pub flows: Vec<SampledFlow>,
    /// Each flow's progress at the base station.
    pub progress: std::sync::Arc<[Progress]>,
    /// The sampling period.
    pub interval: Dur,
    /// The last instant sampled (the scenario's end).
    pub end: Time,
    /// The emulation clock.
    pub clock: Clock,
    /// Whether the hop is blocked.
    pub blocked: &'a AtomicBool,
    /// Set when the run stops.
    pub stop: &'a AtomicBool,
    /// The run's trace budget.
    pub budget: TraceBudget,
}

/// What a sampling thread did.
#[derive(Debug, Default)]
pub struct SampleReport {
    /// Rows written.
    pub rows: u64,
    /// Rows past the trace budget, not written.
    pub not_written: u64,
    /// Why sampling stopped early or a file failed, if it did.
    pub error: Option<String>,
}

struct FlowFile {
    out: BufWriter<File>,
    /// The in-order count and clock at the previous row.
    last: Option<(u64, Time)>,
}

impl Sampler<'_> {
    /// Samples into `dir/timeseries/` until the scenario's end or the stop.
    /// Runs on a thread of its own: it enters the senders' namespaces.
    pub fn run(self, dir: &Path) -> SampleReport {
        let mut report = SampleReport::default();
        if let Err(e) = self.sample(dir, &mut report) {
            report.error = Some(e.to_string());
        }
        report
    }

    fn sample(&self, dir: &Path, report: &mut SampleReport) -> io::Result<()> {
        let ts = dir.join("timeseries");
        std::fs::create_dir_all(&ts)?;
        let mut files = Vec::with_capacity(self.flows.len());
        for f in &self.flows {
            let mut out =
                BufWriter::new(File::create(ts.join(format!("{}.csv", sanitize(&f.name))))?);
            writeln!(out, "{HEADER}")?;
            files.push(FlowFile { out, last: None });
        }
        // A namespace's diag socket is opened from inside it; the thread
        // ends in the last one, which changes nothing else.
        let mut diags: Vec<Diag> = self
            .namespaces
            .iter()
            .map(|ns| Diag::open_in(ns).map_err(|e| io::Error::new(e.kind(), format!("{ns}: {e}"))))
            .collect::<io::Result<_>>()?;
        let mut sockets: Vec<Vec<TcpSocket>> = vec![Vec::new(); diags.len()];
        let mut next = Time::ZERO;
        let mut cut = false;
        while !self.stop.load(Ordering::Relaxed) {
            let now = self.clock.now();
            if now < next {
                let wait = next.saturating_since(now).min(Dur::from_millis(50));
                std::thread::sleep(Duration::from_nanos(wait.as_nanos()));
                continue;
            }
            if now > self.end {
                break;
            }
            while next <= now {
                next += self.interval;
            }
            for (d, out) in diags.iter_mut().zip(sockets.iter_mut()) {
                d.dump(out)?;
            }
            let blocked = self.blocked.load(Ordering::Relaxed);
            for (i, (f, file)) in self.flows.iter().zip(files.iter_mut()).enumerate() {
                let Some(p) = self.progress.get(i) else {
                    continue;
                };
                let port = p.data_port.load(Ordering::Relaxed);
                let found = sockets[f.namespace].iter().find(|s| {
                    port != 0 && s.addr == f.addr && s.port == port && s.peer_port == f.server_port
                });
                let Some(sock) = found else { continue };
                let delivered = p.delivered.load(Ordering::Relaxed);
                let (bits, over) = match file.last {
                    Some((d, at)) => (
                        (delivered - d) as f64 * 8.0,
                        now.saturating_since(at).as_secs_f64(),
                    ),
                    None => (0.0, 0.0),
                };
                file.last = Some((delivered, now));
                let line = row(now, &sock.info, bits, over, blocked);
                if cut || !self.budget.take(line.len() as u64) {
                    cut = true;
                    report.not_written += 1;
                    continue;
                }
                file.out.write_all(line.as_bytes())?;
                report.rows += 1;
            }
        }
        for f in &mut files {
            f.out.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> TcpInfo {
        let mut i: TcpInfo = TcpInfo::parse(&[0u8; 512]).expect("zeroes parse");
        i.snd_mss = 1448;
        i.snd_cwnd = 10;
        i.snd_ssthresh = INFINITE_SSTHRESH;
        i.rto = 1_000_000;
        i
    }

    #[test]
    fn the_kernel_reports_a_connection_by_its_ports() {
        use std::io::Read;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let server = listener.local_addr().expect("address").port();
        let mut client = std::net::TcpStream::connect(("127.0.0.1", server)).expect("connect");
        let (mut accepted, _) = listener.accept().expect("accept");
        client.write_all(&[7; 5000]).expect("write");
        let mut got = [0; 5000];
        accepted.read_exact(&mut got).expect("read");
        let port = client.local_addr().expect("address").port();
        let mut diag = Diag::open().expect("sock_diag opens");
        let mut sockets = Vec::new();
        // The last ACK may still be on its way on a loaded machine.
        for _ in 0..100 {
            diag.dump(&mut sockets).expect("dump");
            let s = sockets
                .iter()
                .find(|s| s.port == port && s.peer_port == server)
                .expect("the client's socket is listed");
            assert_eq!(s.addr, Ipv4Addr::LOCALHOST);
            assert_eq!(s.info.state, 1, "established");
            assert!(s.info.snd_mss > 0 && s.info.snd_cwnd > 0, "{:?}", s.info);
            // The SYN's sequence number is acknowledged too.
            if s.info.bytes_acked == 5001 {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("bytes_acked never reached the SYN and the 5000 bytes written");
    }

    #[test]
    fn a_fresh_connection_has_no_threshold_and_no_rtt_yet() {
        let r = row(Time::ZERO + Dur::from_millis(100), &info(), 0.0, 0.0, false);
        assert_eq!(r, "0.100,14480,,,1.000000,0,1,0,0,open,0\n");
        assert_eq!(r.trim_end().split(',').count(), HEADER.split(',').count());
    }

    #[test]
    fn columns_come_from_tcp_info_in_bytes_and_seconds() {
        let mut i = info();
        i.snd_ssthresh = 7;
        i.rtt = 45_500;
        i.rto = 245_000;
        // 20 unacknowledged (4 SACKed, 3 marked lost, 2 of them resent).
        (i.unacked, i.sacked, i.lost, i.retrans) = (20, 4, 3, 2);
        (i.bytes_sent, i.bytes_retrans, i.bytes_acked) = (100_000, 2_896, 50_000);
        i.ca_state = 3;
        let r = row(Time::ZERO + Dur::from_millis(2_500), &i, 8e6, 0.1, true);
        assert_eq!(
            r,
            "2.500,14480,10136,0.045500,0.245000,28960,97105,50000,80000000,recovery,1\n"
        );
    }
}
