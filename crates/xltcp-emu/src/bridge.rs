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
//!
//! Per wake-up the loop fires every due deadline and reads up to
//! `READ_BUDGET` datagrams per device; a frame may be a TCP super-packet that
//! [`crate::tun::split`] cuts into segments. What the pass delivered is
//! written at its end, a connection's consecutive segments joined into one
//! super-packet ([`crate::tun::Coalescer`]; `XLTCP_EMU_NO_GRO` set in the
//! environment writes each datagram alone). The path allocates nothing per
//! packet: the frame and segment buffers are reused, the datagrams wait in
//! the hop's slab, and lateness goes into a fixed-size histogram. After
//! `BUSY_MAX` without sleeping the thread sleeps `YIELD` (see
//! `yield_cpu`).

use crate::clock::Clock;
use crate::hop::{Egress, Hop};
use crate::tun::{is_super, split, Coalescer, Origin, Tun, MAX_FRAME, VNET_HDR_LEN};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
pub use xltcp_core::sim::emu_section::{LatenessSummary, LoopReport};
use xltcp_core::sim::flow::Side;
use xltcp_core::time::{Dur, Time};

/// Datagrams read from one device (a super-packet counts its segments)
/// before the loop looks at deadlines again: cutting and queueing a
/// segment takes about half a microsecond, so a pass reading more would
/// make the deadlines due meanwhile late.
const READ_BUDGET: usize = 64;
/// Deadlines closer than this are waited for by polling the devices
/// without sleeping: waking from a sleep takes tens of microseconds.
const SPIN: Dur = Dur::from_micros(40);
/// Longest sleep, so a stop request is seen promptly.
const MAX_SLEEP: Dur = Dur::from_millis(10);
/// After running this long without sleeping, the thread gives the CPU
/// away for [`YIELD`] (see [`yield_cpu`]).
const BUSY_MAX: Dur = Dur::from_millis(2);
/// How long the thread gives the CPU away after [`BUSY_MAX`]: 6 %, more
/// than the 5 % Linux's fair server keeps for ordinary tasks.
const YIELD: Dur = Dur::from_micros(120);

/// Exact buckets below this many nanoseconds; above, each power of two
/// is cut into `SUB` buckets (relative width at most 1/128).
const EXACT: u64 = 256;
const SUB: u64 = 128;
/// Buckets: the exact ones, then 128 per power of two from 2^8 to 2^31.
const BUCKETS: usize = (EXACT + 24 * SUB) as usize;

/// Lateness of deadline dispatches, in nanoseconds, as a histogram of
/// fixed size (log-linear buckets, under 0.8 % wide): recording never
/// allocates, however long the run (a growing sample vector's
/// reallocation stalled the loop for tens of milliseconds at 1 Gbit/s).
#[derive(Debug)]
pub struct Lateness {
    counts: Box<[u64; BUCKETS]>,
    count: u64,
    max: u64,
}

impl Default for Lateness {
    fn default() -> Lateness {
        Lateness {
            counts: Box::new([0; BUCKETS]),
            count: 0,
            max: 0,
        }
    }
}

/// The bucket of `ns` (at most `u32::MAX`).
fn bucket(ns: u64) -> usize {
    if ns < EXACT {
        return ns as usize;
    }
    let e = 63 - u64::from(ns.leading_zeros());
    let mantissa = ns >> (e - 7);
    (EXACT + (e - 8) * SUB + (mantissa - SUB)) as usize
}

/// The middle of bucket `i`, nanoseconds.
fn bucket_mid(i: usize) -> f64 {
    let i = i as u64;
    if i < EXACT {
        return i as f64;
    }
    let e = (i - EXACT) / SUB + 8;
    let mantissa = (i - EXACT) % SUB + SUB;
    let width = 1u64 << (e - 7);
    (mantissa * width) as f64 + (width - 1) as f64 / 2.0
}

impl Lateness {
    /// Records one dispatch `ns` late (saturating at ~4.3 s).
    pub fn record(&mut self, ns: u64) {
        let ns = ns.min(u32::MAX as u64);
        self.counts[bucket(ns)] += 1;
        self.count += 1;
        self.max = self.max.max(ns);
    }

    /// Median and 99th percentile (nearest rank, to the middle of its
    /// bucket, at most the maximum) and the exact maximum.
    pub fn summary(&mut self) -> LatenessSummary {
        let n = self.count;
        if n == 0 {
            return LatenessSummary::default();
        }
        let rank = |q: f64| {
            let r = ((q * n as f64).ceil() as u64).clamp(1, n);
            let mut seen = 0;
            for (i, &c) in self.counts.iter().enumerate() {
                seen += c;
                if seen >= r {
                    return bucket_mid(i).min(self.max as f64) / 1e3;
                }
            }
            self.max as f64 / 1e3
        };
        LatenessSummary {
            count: n,
            median_us: rank(0.5),
            p99_us: rank(0.99),
            max_us: self.max as f64 / 1e3,
        }
    }
}

/// Writes delivered datagrams to the TUN devices, joining the TCP
/// segments of one connection delivered in one pass of the loop into a
/// super-packet ([`Coalescer`]) unless told not to.
#[derive(Debug)]
pub struct TunEgress<'a> {
    ch: &'a Tun,
    sh: &'a Tun,
    coalesce: bool,
    co: Coalescer,
    side: Side,
    /// Write calls made.
    pub writes: u64,
    /// Super-packets written (each of several segments).
    pub super_packets: u64,
    /// Datagrams in writes that failed (counted as `egress_error` drops).
    pub failed: u64,
}

impl<'a> TunEgress<'a> {
    /// Writes to `ch` and `sh`, joining segments if `coalesce`.
    pub fn new(ch: &'a Tun, sh: &'a Tun, coalesce: bool) -> TunEgress<'a> {
        TunEgress {
            ch,
            sh,
            coalesce,
            co: Coalescer::default(),
            side: Side::Ch,
            writes: 0,
            super_packets: 0,
            failed: 0,
        }
    }

    /// Writes what is waiting to be joined.
    pub fn flush(&mut self) {
        let tun = match self.side {
            Side::Ch => self.ch,
            Side::Sh => self.sh,
        };
        let mut ok = true;
        let n = self.co.take(|h, d| ok = tun.send_with(h, d).is_ok());
        if n == 0 {
            return;
        }
        self.writes += 1;
        self.super_packets += u64::from(n > 1);
        if !ok {
            self.failed += u64::from(n);
        }
    }
}

impl Egress for TunEgress<'_> {
    fn deliver(&mut self, side: Side, datagram: &[u8]) -> std::io::Result<()> {
        if !self.coalesce {
            self.writes += 1;
            return match side {
                Side::Ch => self.ch.send(datagram),
                Side::Sh => self.sh.send(datagram),
            };
        }
        if self.co.pending() > 0 && (side != self.side || !self.co.offer(datagram)) {
            self.flush();
        }
        if self.co.pending() == 0 {
            self.side = side;
            self.co.offer(datagram);
        }
        // A failed write is counted when it happens (`failed`).
        Ok(())
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

/// Gives the CPU to ordinary tasks for `d`, whatever arrives meanwhile
/// (the devices queue it). A SCHED_FIFO thread that never sleeps starves
/// them, and Linux's fair server (50 ms of each second for ordinary tasks
/// on a CPU real-time work keeps busy) then preempts it for up to 50 ms
/// at once: such stalls made the 99th percentile of lateness milliseconds
/// at 1 Gbit/s. Short sleeps at a regular pace give that time away in
/// pieces of 120 us instead.
fn yield_cpu(d: Dur) {
    let ns = d.as_nanos();
    let ts = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: ts outlives the call; a null remainder is allowed.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, 0, &ts, std::ptr::null_mut()) };
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
        offloads: ch.offloads() && sh.offloads(),
        ..LoopReport::default()
    };
    // The only buffers of the path: one frame as read (a super-packet at
    // most) and one segment cut from it, both reused.
    let mut buf = vec![0u8; MAX_FRAME];
    let mut scratch = Vec::with_capacity(MAX_FRAME);
    let coalesce = std::env::var_os("XLTCP_EMU_NO_GRO").is_none();
    let mut egress = TunEgress::new(ch, sh, coalesce);
    let mut awake_since = clock.now();
    while !stop.load(Ordering::Acquire) {
        let now = clock.now();
        if now.saturating_since(awake_since) > BUSY_MAX {
            yield_cpu(YIELD);
            report.yields += 1;
            awake_since = clock.now();
            continue;
        }
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
            let mut taken = 0;
            while taken < READ_BUDGET {
                match tun.recv(&mut buf) {
                    Ok(Some(n)) => {
                        report.frames_read += 1;
                        let frame = &mut buf[..n];
                        let mut k = 0;
                        let split = split(frame, &mut scratch, |d, origin| {
                            k += 1;
                            hop.ingress_checked(now, side, d, origin == Origin::AsSent);
                            hop.flush(&mut egress);
                        });
                        report.datagrams_read += k;
                        taken += k.max(1) as usize;
                        report.super_packets += u64::from(is_super(&buf[..n]));
                        if let Err(why) = split {
                            hop.reject(now, side, why, &buf[VNET_HDR_LEN.min(n)..n]);
                        }
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
        egress.flush();
        if egress.failed > 0 {
            hop.egress_failed(std::mem::take(&mut egress.failed));
        }
        if read || fired {
            continue;
        }
        let until = hop.deadlines.next().unwrap_or(Time::NEVER);
        let timeout = until.saturating_since(clock.now()).min(MAX_SLEEP);
        if timeout > SPIN {
            wait(ch, sh, timeout - SPIN);
            awake_since = clock.now();
        }
    }
    egress.flush();
    if egress.failed > 0 {
        hop.egress_failed(egress.failed);
    }
    drop(qos);
    report.frames_written = egress.writes;
    report.super_packets_written = egress.super_packets;
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
        let near = |got: f64, want: f64| (got - want).abs() <= want / 128.0;
        assert!(near(s.median_us, 50.0), "{}", s.median_us);
        assert!(near(s.p99_us, 99.0), "{}", s.p99_us);
        assert_eq!(s.max_us, 100.0);
    }

    #[test]
    fn short_latenesses_are_exact_and_long_ones_within_a_bucket() {
        let mut l = Lateness::default();
        l.record(200);
        assert_eq!(l.summary().median_us, 0.2);
        for ns in [256, 1000, 65_432, 3_000_000, u32::MAX as u64] {
            let mid = bucket_mid(bucket(ns));
            assert!((mid - ns as f64).abs() <= ns as f64 / 128.0, "{ns}: {mid}");
        }
        assert_eq!(bucket(u32::MAX as u64), BUCKETS - 1);
        let mut big = Lateness::default();
        big.record(u64::MAX);
        assert_eq!(big.summary().max_us, u32::MAX as f64 / 1e3);
    }

    #[test]
    fn no_dispatch_gives_zeros() {
        assert_eq!(Lateness::default().summary(), LatenessSummary::default());
    }
}
