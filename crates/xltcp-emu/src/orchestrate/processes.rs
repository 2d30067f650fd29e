//! The applications in the namespaces: the servers, the clients started
//! at their flows' start times, and the reports they leave.

use super::SERVER_READY;
use crate::apps::{self, AppResult};
use crate::bridge::LoopReport;
use crate::fileapp::FileFlow;
use crate::hop::{host_address, Hop};
use crate::plumbing::Plumbing;
use crate::signals;
use crate::EmuError;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use xltcp_core::scenario::{AppSpec, Direction, Scenario};
use xltcp_core::sim::flow::Side;
use xltcp_core::time::Time;

/// Reads a child's output to its end on a thread; with `ready`, signals
/// when a line containing "listening" appears.
pub(super) fn drain<R: Read + Send + 'static>(
    r: R,
    ready: Option<mpsc::Sender<()>>,
) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut all = String::new();
        let mut lines = BufReader::new(r);
        let mut line = String::new();
        while lines.read_line(&mut line).unwrap_or(0) > 0 {
            if let Some(tx) = &ready {
                if line.contains("listening") {
                    let _ = tx.send(());
                }
            }
            all.push_str(&line);
            line.clear();
        }
        all
    })
}

/// A running flow's application.
pub(super) enum Client {
    /// A bulk flow's iperf3 client: its child index, the thread reading
    /// its output, and its data connection's retransmissions read at the
    /// scenario's end (for when iperf3 gives no report).
    Iperf {
        child: usize,
        out: JoinHandle<String>,
        at_end: Option<u64>,
    },
    /// A file flow's two ends.
    File(FileFlow),
}

impl Client {
    pub(super) fn running(&self, p: &mut Plumbing) -> bool {
        match self {
            Client::Iperf { child, .. } => matches!(p.child(*child).try_wait(), Ok(None)),
            Client::File(f) => f.running(),
        }
    }

    /// Ends it now (the grace period is over), so reading its output ends.
    pub(super) fn kill(&self, p: &mut Plumbing) {
        match self {
            Client::Iperf { child, .. } => {
                let child = p.child(*child);
                if matches!(child.try_wait(), Ok(None)) {
                    // SAFETY: kill has no memory preconditions; the child leads its group.
                    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                    let _ = child.kill();
                }
            }
            Client::File(f) => f.stop(),
        }
    }
}

/// Linux's TCP counters per namespace.
pub(super) type Counters =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>;

pub(super) type Outcome = (
    Hop,
    LoopReport,
    Vec<Option<AppResult>>,
    Vec<String>,
    Counters,
);

/// (namespace of the sender, of the receiver) of a flow.
pub(super) fn sides(d: Direction) -> (Side, Side) {
    match d {
        Direction::Down => (Side::Ch, Side::Sh),
        Direction::Up => (Side::Sh, Side::Ch),
    }
}

/// Starts each flow's iperf3 server on its receiving host and waits until
/// all listen; returns the threads draining their output.
pub(super) fn start_servers(
    s: &Scenario,
    p: &mut Plumbing,
) -> Result<Vec<JoinHandle<String>>, EmuError> {
    let (tx, rx) = mpsc::channel();
    let mut drains = Vec::new();
    let bulk = |f: &&xltcp_core::scenario::FlowSpec| matches!(f.app, AppSpec::Bulk);
    for (i, f) in s.flows.iter().enumerate().filter(|(_, f)| bulk(f)) {
        let (_, rcv) = sides(f.direction);
        let ns = p.names.ns(rcv).to_string();
        let k = p.spawn(
            &ns,
            "iperf3",
            &apps::server_args(host_address(rcv, i as u32)),
        )?;
        let c = p.child(k);
        drains.extend(c.stdout.take().map(|o| drain(o, Some(tx.clone()))));
        drains.extend(c.stderr.take().map(|e| drain(e, None)));
    }
    for f in s.flows.iter().filter(bulk) {
        if rx.recv_timeout(SERVER_READY).is_err() {
            return Err(EmuError::Setup(format!(
                "iperf3 server of flow {} did not start listening",
                f.name
            )));
        }
    }
    Ok(drains)
}

/// The signal socket's parts until its thread starts.
type Socket<'a> = (
    &'a Path,
    std::os::unix::net::UnixListener,
    mpsc::Receiver<(Time, signals::Signal)>,
    mpsc::Sender<signals::Command>,
);

/// Binds the signal socket, if asked for, and wires the hop to it.
pub(super) fn attach_socket<'a>(
    hop: &mut Hop,
    path: Option<&'a Path>,
) -> Result<Option<Socket<'a>>, EmuError> {
    let Some(path) = path else { return Ok(None) };
    let listener = signals::bind(path)
        .map_err(|e| EmuError::Setup(format!("signal socket {}: {e}", path.display())))?;
    let (stx, srx) = mpsc::channel();
    let (ctx, crx) = mpsc::channel();
    hop.signals = Some(stx);
    hop.commands = Some(crx);
    Ok(Some((path, listener, srx, ctx)))
}

/// Reads each client's report (keeping a copy in `out_dir/apps/`).
pub(super) fn collect_reports(
    s: &Scenario,
    clients: Vec<Option<Client>>,
    out_dir: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Option<AppResult>>, EmuError> {
    let mut results = Vec::new();
    for (i, c) in clients.into_iter().enumerate() {
        let name = &s.flows[i].name;
        let (out, at_end) = match c {
            None => {
                warnings.push(format!("flow {name}: never started"));
                results.push(None);
                continue;
            }
            Some(Client::File(f)) => {
                results.push(file_result(s, i, f, warnings));
                continue;
            }
            Some(Client::Iperf { out, at_end, .. }) => (out, at_end),
        };
        let text = out.join().unwrap_or_default();
        if let Some(dir) = out_dir {
            let adir = dir.join("apps");
            std::fs::create_dir_all(&adir)?;
            std::fs::write(
                adir.join(format!("{}.json", xltcp_core::sim::output::sanitize(name))),
                &text,
            )?;
        }
        match (apps::parse_report(&text), at_end) {
            (Ok(r), _) => results.push(Some(r)),
            (Err(e), Some(n)) => {
                warnings.push(format!(
                    "flow {name}: {e}; its retransmissions were read from its socket at the scenario's end"
                ));
                results.push(Some(AppResult {
                    retransmits: n,
                    retransmits_from: Some("socket"),
                    ..AppResult::default()
                }));
            }
            (Err(e), None) => {
                warnings.push(format!(
                    "flow {name}: {e}; its retransmissions are unknown (counted as 0)"
                ));
                results.push(None);
            }
        }
    }
    Ok(results)
}

/// A file flow's result: what its receiver read, its completion if by the
/// scenario's end, its sender's retransmissions and RTT.
fn file_result(
    s: &Scenario,
    i: usize,
    f: FileFlow,
    warnings: &mut Vec<String>,
) -> Option<AppResult> {
    let spec = &s.flows[i];
    match f.finish() {
        Ok((received, sent)) => {
            let end = Time::ZERO + s.sim.duration;
            let start = Time::ZERO + spec.start;
            let completed_s = received
                .completed
                .filter(|&t| t <= end)
                .map(|t| t.saturating_since(start).as_secs_f64());
            Some(AppResult {
                bytes_received: received.bytes,
                seconds: completed_s.unwrap_or(0.0),
                retransmits: sent.retransmits,
                retransmits_from: Some("file"),
                mean_rtt_s: sent.srtt_s,
                completed_s,
            })
        }
        Err(e) => {
            warnings.push(format!("flow {}: {e}", spec.name));
            None
        }
    }
}
