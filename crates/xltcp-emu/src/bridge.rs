//! The real-time loop: one data-path thread that reads both TUN devices,
//! fires the hop's deadlines when the clock reaches them, and sleeps in
//! `ppoll(2)` with a nanosecond timeout until the next deadline or packet.
//!
//! Each dispatch is late by (clock when fired - deadline); the loop records
//! every lateness and reports its median and 99th percentile. Deadlines
//! are fired at their own time in the model (the link's next transmission
//! starts when the previous one was due to end), so lateness delays
//! delivery but never accumulates into the schedule. Datagrams read in one
//! pass are stamped with the clock read before the pass's due deadlines
//! were fired, so model time never goes backwards. The thread asks for
//! SCHED_FIFO priority (root has it), so other work on the machine delays
//! it less, and holds CPUs out of slow-to-wake idle states for the run
//! (PM QoS); the summary says whether it got each.

use crate::clock::Clock;
use crate::hop::{Egress, Hop};
use crate::tun::{Tun, MAX_PACKET};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
pub use xltcp_core::sim::emu_section::{LatenessSummary, LoopReport};
use xltcp_core::sim::flow::Side;
use xltcp_core::time::{Dur, Time};

/// Datagrams read from one device before the loop looks at deadlines again.
const READ_BATCH: usize = 32;
/// Deadlines closer than this are waited for by polling the devices
/// without sleeping: waking from a sleep takes tens of microseconds.
const SPIN: Dur = Dur::from_micros(40);
/// Longest sleep, so a stop request is seen promptly.
const MAX_SLEEP: Dur = Dur::from_millis(10);

/// Lateness of deadline dispatches, in nanoseconds.
#[derive(Debug, Default)]
pub struct Lateness {
    samples: Vec<u32>,
}

impl Lateness {
    /// Records one dispatch `ns` late (saturating at ~4.3 s).
    pub fn record(&mut self, ns: u64) {
        self.samples.push(ns.min(u32::MAX as u64) as u32);
    }

    /// Median, 99th percentile (nearest rank) and maximum.
    pub fn summary(&mut self) -> LatenessSummary {
        let n = self.samples.len();
        if n == 0 {
            return LatenessSummary::default();
        }
        self.samples.sort_unstable();
        let rank =
            |q: f64| self.samples[((q * n as f64).ceil() as usize).clamp(1, n) - 1] as f64 / 1e3;
        LatenessSummary {
            count: n as u64,
            median_us: rank(0.5),
            p99_us: rank(0.99),
            max_us: self.samples[n - 1] as f64 / 1e3,
        }
    }
}

/// Writes delivered datagrams to the TUN devices.
#[derive(Debug)]
pub struct TunEgress<'a> {
    /// Device of the wired hosts.
    pub ch: &'a Tun,
    /// Device of the wireless hosts.
    pub sh: &'a Tun,
}

impl Egress for TunEgress<'_> {
    fn deliver(&mut self, side: Side, datagram: &[u8]) -> std::io::Result<()> {
        match side {
            Side::Ch => self.ch.send(datagram),
            Side::Sh => self.sh.send(datagram),
        }
    }
}

/// Asks the kernel to keep CPUs out of idle states that are slow to wake
/// from (PM QoS, held while the returned file is open); on a virtual
/// machine this avoids halting the vCPU, whose wake-up can take
/// milliseconds. `None` if refused.
fn hold_low_latency_idle() -> Option<std::fs::File> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/cpu_dma_latency")
        .ok()?;
    f.write_all(&0i32.to_ne_bytes()).ok()?;
    Some(f)
}

/// Real-time (SCHED_FIFO) priority of the data-path thread: above every
/// ordinary process, so a busy machine delays deadlines less.
const RT_PRIORITY: libc::c_int = 50;

/// Asks for real-time scheduling of the calling thread; false if refused.
fn set_realtime() -> bool {
    let param = libc::sched_param {
        sched_priority: RT_PRIORITY,
    };
    // SAFETY: param outlives the call; 0 = the calling thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// CPU time of the calling thread, seconds.
fn thread_cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_THREAD is valid on Linux.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// Sleeps until a device is readable or `timeout` passes.
fn wait(ch: &Tun, sh: &Tun, timeout: Dur) {
    let mut fds = [
        libc::pollfd {
            fd: ch.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: sh.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let ns = timeout.as_nanos();
    let ts = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: fds and ts outlive the call; no signal mask change.
    unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
}

/// Runs the hop in real time until `stop` is set; returns what it measured.
pub fn run_loop(hop: &mut Hop, ch: &Tun, sh: &Tun, clock: &Clock, stop: &AtomicBool) -> LoopReport {
    // Sleep with nanosecond precision rather than the default 50 us slack.
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    let cpu0 = thread_cpu_s();
    let start = clock.now();
    let mut lateness = Lateness::default();
    let mut by_kind: std::collections::BTreeMap<&'static str, Lateness> = Default::default();
    let qos = hold_low_latency_idle();
    let mut report = LoopReport {
        realtime: set_realtime(),
        low_latency_idle: qos.is_some(),
        ..LoopReport::default()
    };
    let mut buf = vec![0u8; MAX_PACKET];
    let mut egress = TunEgress { ch, sh };
    while !stop.load(Ordering::Acquire) {
        let now = clock.now();
        let mut fired = false;
        while let Some((at, ev)) = hop.deadlines.pop_due(now) {
            let late = clock.now().saturating_since(at).as_nanos();
            lateness.record(late);
            by_kind.entry(hop.ev_name(ev)).or_default().record(late);
            hop.dispatch(at, ev, &mut egress);
            fired = true;
        }
        hop.poll_commands(now);
        let mut read = false;
        for (side, tun) in [(Side::Ch, ch), (Side::Sh, sh)] {
            for _ in 0..READ_BATCH {
                match tun.recv(&mut buf) {
                    Ok(Some(n)) => {
                        hop.ingress(now, side, &buf[..n]);
                        hop.flush(&mut egress);
                        read = true;
                    }
                    Ok(None) => break,
                    Err(_) => {
                        report.read_errors += 1;
                        break;
                    }
                }
            }
        }
        if read || fired {
            continue;
        }
        let until = hop.deadlines.next().unwrap_or(Time::NEVER);
        let timeout = until.saturating_since(clock.now()).min(MAX_SLEEP);
        if timeout > SPIN {
            wait(ch, sh, timeout - SPIN);
        }
    }
    drop(qos);
    hop.finish();
    report.lateness = lateness.summary();
    report.lateness_by_timer = by_kind
        .into_iter()
        .map(|(k, mut l)| (k.to_string(), l.summary()))
        .collect();
    report.cpu_s = thread_cpu_s() - cpu0;
    report.wall_s = clock.now().saturating_since(start).as_secs_f64();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_percentiles_use_nearest_rank() {
        let mut l = Lateness::default();
        for ns in (1..=100u64).rev() {
            l.record(ns * 1000);
        }
        let s = l.summary();
        assert_eq!(s.count, 100);
        assert_eq!(s.median_us, 50.0);
        assert_eq!(s.p99_us, 99.0);
        assert_eq!(s.max_us, 100.0);
    }

    #[test]
    fn no_dispatch_gives_zeros() {
        assert_eq!(Lateness::default().summary(), LatenessSummary::default());
    }
}
