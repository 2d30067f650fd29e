//! A file flow's two ends on real Linux TCP, as threads of the emulator.
//!
//! iperf3's `-n` cannot stand for a file transfer: its test ends when the
//! client has *written* the bytes into its socket, and the server stops
//! reading then, so on a slow hop the tail in flight is never delivered
//! and the transfer has no completion time. Here each end is a thread that
//! enters its host's network namespace (`setns`, which moves the calling
//! thread only) and uses an ordinary socket there: the sender connects from
//! the flow's address with the flow's congestion control, writes the file's
//! bytes and closes its side; the receiver reads to the end and notes the
//! instant its application holds the last byte, which is the simulator's
//! completion (the receiving application has read `size` bytes). The TCP
//! is Linux's; only the applications are ours.

use crate::clock::Clock;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;
use xltcp_core::time::Time;

/// How often a blocked end looks at its stop flag.
const POLL: Duration = Duration::from_millis(50);

/// What the receiving end saw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Received {
    /// Bytes its application read.
    pub bytes: u64,
    /// When it held the file's last byte, if it did.
    pub completed: Option<Time>,
}

/// What the sending end's TCP said when it was done (`TCP_INFO`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sent {
    /// Segments retransmitted over the connection.
    pub retransmits: u64,
    /// Its smoothed RTT at the end, seconds.
    pub srtt_s: Option<f64>,
}

/// A running file flow.
#[derive(Debug)]
pub struct FileFlow {
    receiver: JoinHandle<Result<Received, String>>,
    sender: JoinHandle<Result<Sent, String>>,
    stop: Arc<AtomicBool>,
}

impl FileFlow {
    /// Starts the receiver in namespace `rcv_ns` at `server` and, once it
    /// listens, the sender in `snd_ns` from `bind`, sending `bytes` with
    /// Linux congestion control `cc`.
    pub fn start(
        rcv_ns: &str,
        snd_ns: &str,
        server: SocketAddrV4,
        bind: Ipv4Addr,
        bytes: u64,
        cc: &str,
        clock: Clock,
    ) -> Result<FileFlow, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel();
        let receiver = {
            let (ns, stop) = (rcv_ns.to_string(), stop.clone());
            std::thread::spawn(move || receive(&ns, server, bytes, clock, &stop, ready_tx))
        };
        match ready_rx.recv_timeout(Duration::from_secs(5)) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                stop.store(true, Ordering::Relaxed);
                return Err(format!("the file receiver at {server} did not listen"));
            }
        }
        let sender = {
            let (ns, stop, cc) = (snd_ns.to_string(), stop.clone(), cc.to_string());
            std::thread::spawn(move || send(&ns, bind, server, bytes, &cc, &stop))
        };
        Ok(FileFlow {
            receiver,
            sender,
            stop,
        })
    }

    /// Whether either end still runs.
    pub fn running(&self) -> bool {
        !self.receiver.is_finished() || !self.sender.is_finished()
    }

    /// Asks both ends to give up (at the end of the grace period).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Waits for both ends and returns what they saw.
    pub fn finish(self) -> Result<(Received, Sent), String> {
        self.stop();
        let received = self
            .receiver
            .join()
            .map_err(|_| "the file receiver panicked".to_string())??;
        let sent = self
            .sender
            .join()
            .map_err(|_| "the file sender panicked".to_string())?;
        // A sender cut off by the stop still leaves what was received.
        Ok((received, sent.unwrap_or_default()))
    }
}

/// Whether a socket call only ran out of time (its timeout is the stop
/// flag's poll) or was interrupted, so it is to be made again.
fn transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{Interrupted, TimedOut, WouldBlock};
    matches!(e.kind(), WouldBlock | TimedOut | Interrupted)
}

/// Moves the calling thread into network namespace `ns` (`ip netns` name).
pub(crate) fn enter(ns: &str) -> Result<(), String> {
    let path = format!("/run/netns/{ns}");
    let f = std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
    // SAFETY: setns on a descriptor we own; it changes this thread only.
    if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(format!("setns {path}: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

fn receive(
    ns: &str,
    at: SocketAddrV4,
    bytes: u64,
    clock: Clock,
    stop: &AtomicBool,
    ready: mpsc::Sender<Result<(), String>>,
) -> Result<Received, String> {
    let listener = enter(ns).and_then(|()| {
        let l = TcpListener::bind(at).map_err(|e| format!("listen on {at}: {e}"))?;
        l.set_nonblocking(true).map_err(|e| e.to_string())?;
        Ok(l)
    });
    let listener = match listener {
        Ok(l) => {
            let _ = ready.send(Ok(()));
            l
        }
        Err(e) => {
            let _ = ready.send(Err(e.clone()));
            return Err(e);
        }
    };
    let mut got = Received::default();
    let mut conn = loop {
        match listener.accept() {
            Ok((c, _)) => break c,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if stop.load(Ordering::Relaxed) {
                    return Ok(got);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(format!("accept on {at}: {e}")),
        }
    };
    conn.set_nonblocking(false).map_err(|e| e.to_string())?;
    conn.set_read_timeout(Some(POLL))
        .map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                got.bytes += n as u64;
                if got.completed.is_none() && got.bytes >= bytes {
                    got.completed = Some(clock.now());
                }
            }
            Err(e) if transient(&e) => {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            Err(e) => return Err(format!("read on {at}: {e}")),
        }
    }
    Ok(got)
}

fn send(
    ns: &str,
    bind: Ipv4Addr,
    to: SocketAddrV4,
    bytes: u64,
    cc: &str,
    stop: &AtomicBool,
) -> Result<Sent, String> {
    enter(ns)?;
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
        .map_err(|e| e.to_string())?;
    socket
        .set_tcp_congestion(cc.as_bytes())
        .map_err(|e| format!("congestion control {cc:?}: {e}"))?;
    socket
        .bind(&SocketAddrV4::new(bind, 0).into())
        .map_err(|e| format!("bind {bind}: {e}"))?;
    socket
        .connect_timeout(&to.into(), Duration::from_secs(120))
        .map_err(|e| format!("connect to {to}: {e}"))?;
    let mut conn: TcpStream = socket.into();
    conn.set_write_timeout(Some(POLL))
        .map_err(|e| e.to_string())?;
    let block = vec![0u8; 64 * 1024];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        match conn.write(&block[..n]) {
            Ok(w) => left -= w as u64,
            Err(e) if transient(&e) => {
                if stop.load(Ordering::Relaxed) {
                    return Ok(info(&conn));
                }
            }
            Err(e) => return Err(format!("write to {to}: {e}")),
        }
    }
    let _ = conn.shutdown(Shutdown::Write);
    // Wait for the receiver's close, so every byte was acknowledged before
    // the counters are read.
    conn.set_read_timeout(Some(POLL))
        .map_err(|e| e.to_string())?;
    let mut sink = [0u8; 64];
    loop {
        match conn.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if transient(&e) && !stop.load(Ordering::Relaxed) => {}
            Err(_) => break,
        }
    }
    Ok(info(&conn))
}

/// The sender's retransmissions and smoothed RTT from `TCP_INFO`.
fn info(conn: &TcpStream) -> Sent {
    // SAFETY: tcp_info is plain data; getsockopt writes at most `len` bytes.
    let mut ti: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: a valid descriptor, a buffer of `len` bytes.
    let rc = unsafe {
        libc::getsockopt(
            conn.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut ti as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Sent::default();
    }
    Sent {
        retransmits: u64::from(ti.tcpi_total_retrans),
        srtt_s: (ti.tcpi_rtt > 0).then(|| f64::from(ti.tcpi_rtt) / 1e6),
    }
}
