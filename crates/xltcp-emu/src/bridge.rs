//! The real-time loop: a dispatch thread that reads both TUN devices and
//! fires the hop's deadlines when the clock reaches them, sleeping in
//! `ppoll(2)` with a nanosecond timeout until the next deadline or packet,
//! and a writer thread that writes the delivered datagrams to the devices.
//!
//! Each dispatch is late by (clock when fired - deadline); the loop records
//! every lateness and reports its median and 99th percentile. Deadlines
//! are fired at their own time in the model (the link's next transmission
//! starts when the previous one was due to end), so lateness delays
//! delivery but never accumulates into the schedule. A datagram read is
//! stamped with a clock reading no earlier than any deadline fired before
//! it, so model time never goes backwards: while the segments of a
//! super-packet are handed to the hop, deadlines that fall due go first
//! and the rest of the frame enters after them, at a later stamp. Both
//! threads ask for SCHED_FIFO priority (root has it; the dispatch thread
//! above the writer), so other work on the machine delays them less, and
//! the CPUs are held out of slow-to-wake idle states for the run (PM QoS);
//! the summary says whether they got each.
//!
//! Per wake-up the dispatch thread fires every due deadline and reads up to
//! `READ_BUDGET` datagrams per device (fewer if a deadline falls due); a
//! frame may be a TCP super-packet that [`crate::tun::split`] cuts into
//! segments. What it delivers goes, copied with its side and the model's
//! instant of delivery, into a lock-free single-producer single-consumer
//! ring ([`QueueEgress`]): writing to a TUN device runs the receiving
//! host's TCP inside the write, which had taken 40 % of the single thread's
//! time at 1 Gbit/s and made the deadlines due meanwhile late. The writer
//! (`Writer`) takes the queued datagrams in order and writes them, the
//! consecutive segments of one connection that wait together joined into
//! one super-packet ([`crate::tun::Coalescer`], one per device;
//! `XLTCP_EMU_NO_GRO` set in the environment writes each datagram alone).
//! It records each datagram's delivery delay (from its instant of delivery
//! in the model to the return of its write), which is dispatch lateness,
//! the wait in the ring and the write together: moving the write out of
//! the dispatch thread shortens the first and adds the second. The path
//! allocates nothing per packet: the frame, segment and record buffers are
//! reused, the ring is allocated once, the datagrams wait in the hop's
//! slab, and lateness goes into fixed-size histograms. After `BUSY_MAX`
//! without sleeping the dispatch thread sleeps `YIELD` (see `yield_cpu`).

use crate::clock::Clock;
use crate::hop::{Egress, Hop};
use crate::sched::Ev;
use crate::tun::{is_super, split, Coalescer, Origin, Tun, MAX_FRAME, MAX_PACKET, VNET_HDR_LEN};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
pub use xltcp_core::sim::emu_section::{LatenessSummary, LoopReport};
use xltcp_core::sim::flow::Side;
use xltcp_core::time::{Dur, Time};

/// Datagrams read from one device (a super-packet counts its segments)
/// before the loop looks at deadlines again: cutting and queueing a
/// segment takes about half a microsecond, so a pass reading more would
/// make the deadlines due meanwhile late.
const READ_BUDGET: usize = 64;
/// Deadlines fired in one pass at most before the devices are read.
const FIRE_BUDGET: u32 = 256;
/// Deadlines closer than this are waited for by polling the devices
/// without sleeping: waking from a sleep takes tens of microseconds.
const SPIN: Dur = Dur::from_micros(40);
/// Longest sleep, so a stop request is seen promptly.
const MAX_SLEEP: Dur = Dur::from_millis(10);
/// After running this long without sleeping, the thread gives the CPU
/// away for [`YIELD`] (see [`yield_cpu`]).
const BUSY_MAX: Dur = Dur::from_micros(330);
/// How long the thread gives the CPU away after [`BUSY_MAX`]: 5.7 %, more
/// than the 5 % Linux's fair server keeps for ordinary tasks, in pieces
/// short enough that the deadlines due meanwhile are late by less than
/// 100 us (120 us every 2 ms gave the same share but kept the 99th
/// percentile of lateness above 140 us at 1 Gbit/s).
const YIELD: Dur = Dur::from_micros(20);

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

/// Bytes of a record's header in the queue to the writer: the side (1),
/// the datagram's length (4) and its instant of delivery (8).
const REC_HDR: usize = 13;
/// Bytes the queue to the writer holds: about 2 800 full-sized datagrams,
/// some 30 ms of a 1 Gbit/s hop, far more than the writer ever lags.
const QUEUE_BYTES: usize = 4 << 20;
/// How long the dispatch thread sleeps when it finds the queue full
/// before it looks again (the writer may need its CPU to drain it).
const FULL_WAIT: Dur = Dur::from_micros(20);
/// Longest wait for the writer at the scenario's end
/// ([`QueueEgress::sync`]).
const SYNC_MAX: Dur = Dur::from_secs(1);
/// The writer is woken when the first datagram queued since its last
/// wake-up has waited this long (see [`QueueEgress::kick`]) ...
const KICK_AFTER: Dur = Dur::from_micros(20);
/// ... or when this many bytes wait.
const KICK_BYTES: usize = 64 << 10;
/// Datagrams the writer takes from the queue before it writes what it
/// holds back to join.
const DRAIN_BUDGET: usize = 256;

/// The dispatch thread's side of the queue to the writer thread: each
/// delivered datagram is copied into a lock-free single-producer
/// single-consumer ring with its side and the model's instant of
/// delivery, so the dispatch thread never makes the write (in which the
/// receiving host's TCP runs) itself.
pub struct QueueEgress {
    tx: rtrb::Producer<u8>,
    /// One record, assembled before it is pushed whole (reused).
    rec: Vec<u8>,
    writer: std::thread::Thread,
    /// The model's instant of the deliveries being made: the deadline
    /// being dispatched, or the instant a read pass was stamped with.
    pub at: Time,
    /// Times the queue was found full (the dispatch thread waited).
    pub full_waits: u64,
    /// Delivery instant of the first datagram queued since the writer
    /// was last woken.
    unsignalled: Option<Time>,
    /// Bytes queued since then.
    unsignalled_bytes: usize,
    /// Datagrams queued.
    queued: u64,
}

impl std::fmt::Debug for QueueEgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueEgress")
            .field("at", &self.at)
            .field("full_waits", &self.full_waits)
            .finish_non_exhaustive()
    }
}

impl QueueEgress {
    /// Wakes the writer if datagrams are queued since the last wake-up
    /// and either the first of them has waited `KICK_AFTER` by `now`,
    /// `KICK_BYTES` are waiting, or the loop is about to sleep (`idle`).
    /// Waking a parked thread on another CPU takes an inter-processor
    /// interrupt, costly on a virtual machine: waking it once per pass
    /// took about a seventh of the dispatch thread's time at 1 Gbit/s.
    pub fn kick(&mut self, now: Time, idle: bool) {
        let Some(first) = self.unsignalled else {
            return;
        };
        if idle || now.saturating_since(first) >= KICK_AFTER || self.unsignalled_bytes >= KICK_BYTES
        {
            self.writer.unpark();
            self.unsignalled = None;
            self.unsignalled_bytes = 0;
        }
    }

    /// Waits until the writer has written (or failed to write) every
    /// datagram queued, `written` being its count. At the scenario's end
    /// this makes what the model delivered by then reach the hosts before
    /// anything after it, as when the dispatch thread wrote them itself:
    /// the bytes counted in order by the end are then in the receiving
    /// host before its application's test interval can close. Gives up
    /// after `SYNC_MAX` (a writer starved that long is not waited for).
    pub fn sync(&mut self, written: &AtomicU64) {
        self.kick(Time::ZERO, true);
        let tries = SYNC_MAX.as_nanos() / FULL_WAIT.as_nanos();
        for _ in 0..tries {
            if written.load(Ordering::Acquire) >= self.queued {
                return;
            }
            self.writer.unpark();
            yield_cpu(FULL_WAIT);
        }
    }
}

impl Egress for QueueEgress {
    fn deliver(&mut self, side: Side, datagram: &[u8]) -> std::io::Result<()> {
        self.rec.clear();
        self.rec.push(u8::from(side == Side::Sh));
        self.rec
            .extend_from_slice(&(datagram.len() as u32).to_le_bytes());
        self.rec
            .extend_from_slice(&self.at.as_nanos().to_le_bytes());
        self.rec.extend_from_slice(datagram);
        if self.tx.push_entire_slice(&self.rec).is_err() {
            self.full_waits += 1;
            while self.tx.push_entire_slice(&self.rec).is_err() {
                self.writer.unpark();
                yield_cpu(FULL_WAIT);
            }
        }
        self.queued += 1;
        self.unsignalled.get_or_insert(self.at);
        self.unsignalled_bytes += self.rec.len();
        // A failed write is counted when it happens (`failed`).
        Ok(())
    }
}

/// Takes the next record from the queue: the datagram into `buf`, and
/// its device (0: the wired hosts', 1: the wireless hosts') and instant
/// of delivery; `None` if the queue is empty.
fn pop_record(rx: &mut rtrb::Consumer<u8>, buf: &mut Vec<u8>) -> Option<(usize, Time)> {
    if rx.slots() < REC_HDR {
        return None;
    }
    // The producer pushes each record whole, so its bytes are all there.
    let mut h = [0u8; REC_HDR];
    rx.pop_entire_slice(&mut h).ok()?;
    let k = usize::from(h[0] != 0);
    let len = u32::from_le_bytes([h[1], h[2], h[3], h[4]]) as usize;
    let mut at = [0u8; 8];
    at.copy_from_slice(&h[5..]);
    buf.resize(len, 0);
    rx.pop_entire_slice(buf).ok()?;
    Some((k, Time(u64::from_le_bytes(at))))
}

/// What the writer thread did.
#[derive(Debug, Default)]
struct WriterReport {
    realtime: bool,
    writes: u64,
    super_packets: u64,
    delay: Lateness,
    cpu_s: f64,
}

/// The writer thread's side: takes the queued datagrams in order and
/// writes them to the devices, the consecutive segments of one
/// connection that wait together joined into one super-packet
/// ([`Coalescer`], one per device) unless told not to.
struct Writer<'a> {
    rx: rtrb::Consumer<u8>,
    tuns: [&'a Tun; 2],
    clock: &'a Clock,
    coalesce: bool,
    co: [Coalescer; 2],
    /// Delivery instants of the datagrams in each coalescer.
    ats: [Vec<Time>; 2],
    /// One datagram as taken from the queue (reused).
    buf: Vec<u8>,
    /// Datagrams in writes that failed, taken by the dispatch thread.
    failed: &'a AtomicU64,
    /// Datagrams whose write returned (failed ones among them).
    written: &'a AtomicU64,
    report: WriterReport,
}

impl Writer<'_> {
    /// Runs until `done` is set and the queue is empty.
    fn run(mut self, done: &AtomicBool) -> WriterReport {
        // SAFETY: prctl with integer arguments only.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
        self.report.realtime = set_realtime(WRITER_PRIORITY);
        let cpu0 = thread_cpu_s();
        loop {
            let finishing = done.load(Ordering::Acquire);
            if self.drain() == 0 {
                if finishing {
                    break;
                }
                std::thread::park_timeout(std::time::Duration::from_millis(10));
            }
        }
        self.report.cpu_s = thread_cpu_s() - cpu0;
        self.report
    }

    /// Writes what is queued, [`DRAIN_BUDGET`] datagrams at most, so what
    /// waits to be joined is not held back for long; returns the
    /// datagrams taken.
    fn drain(&mut self) -> usize {
        let mut n = 0;
        while n < DRAIN_BUDGET {
            let Some((k, at)) = pop_record(&mut self.rx, &mut self.buf) else {
                break;
            };
            self.put(k, at);
            n += 1;
        }
        self.flush(0);
        self.flush(1);
        n
    }

    /// Adds the datagram in `buf` for device `k`, writing what waits
    /// there first if it cannot join it.
    fn put(&mut self, k: usize, at: Time) {
        if !self.coalesce {
            let ok = self.tuns[k].send(&self.buf).is_ok();
            self.done_write(1, ok, &[at]);
            return;
        }
        if self.co[k].pending() > 0 && !self.co[k].offer(&self.buf) {
            self.flush(k);
        }
        if self.co[k].pending() == 0 {
            self.co[k].offer(&self.buf);
        }
        self.ats[k].push(at);
    }

    /// Writes what waits to be joined for device `k`.
    fn flush(&mut self, k: usize) {
        let tun = self.tuns[k];
        let mut ok = true;
        let n = self.co[k].take(|h, d| ok = tun.send_with(h, d).is_ok());
        if n == 0 {
            return;
        }
        let ats = std::mem::take(&mut self.ats[k]);
        self.done_write(n, ok, &ats);
        self.ats[k] = ats;
        self.ats[k].clear();
    }

    /// Counts a write of `n` datagrams delivered at `ats` that just returned.
    fn done_write(&mut self, n: u32, ok: bool, ats: &[Time]) {
        let now = self.clock.now();
        self.report.writes += 1;
        self.report.super_packets += u64::from(n > 1);
        for &at in ats {
            self.report
                .delay
                .record(now.saturating_since(at).as_nanos());
        }
        if !ok {
            self.failed.fetch_add(u64::from(n), Ordering::Relaxed);
        }
        self.written.fetch_add(u64::from(n), Ordering::Release);
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
/// Real-time priority of the writer thread: below the dispatch thread,
/// which preempts it, above ordinary processes.
const WRITER_PRIORITY: libc::c_int = 49;

/// Asks for real-time scheduling of the calling thread at `priority`;
/// false if refused.
fn set_realtime(priority: libc::c_int) -> bool {
    let param = libc::sched_param {
        sched_priority: priority,
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
/// pieces of [`YIELD`] instead.
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

/// Runs the hop in real time until `stop` is set; returns what it
/// measured. The writes to the devices are made by a second thread
/// (`Writer`), fed through a lock-free queue ([`QueueEgress`]).
pub fn run_loop(hop: &mut Hop, ch: &Tun, sh: &Tun, clock: &Clock, stop: &AtomicBool) -> LoopReport {
    let (tx, rx) = rtrb::RingBuffer::new(QUEUE_BYTES);
    let failed = AtomicU64::new(0);
    let written = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let coalesce = std::env::var_os("XLTCP_EMU_NO_GRO").is_none();
    std::thread::scope(|scope| {
        let writer = Writer {
            rx,
            tuns: [ch, sh],
            clock,
            coalesce,
            co: Default::default(),
            ats: [Vec::with_capacity(64), Vec::with_capacity(64)],
            buf: Vec::with_capacity(MAX_PACKET),
            failed: &failed,
            written: &written,
            report: WriterReport::default(),
        };
        let done = &done;
        let handle = std::thread::Builder::new()
            .name("xltcp-writer".into())
            .spawn_scoped(scope, move || writer.run(done))
            .expect("spawn the writer thread");
        let egress = QueueEgress {
            tx,
            rec: Vec::with_capacity(REC_HDR + MAX_PACKET),
            writer: handle.thread().clone(),
            at: Time::ZERO,
            full_waits: 0,
            unsignalled: None,
            unsignalled_bytes: 0,
            queued: 0,
        };
        let mut report = dispatch_loop(hop, ch, sh, clock, stop, egress, (&failed, &written));
        done.store(true, Ordering::Release);
        handle.thread().unpark();
        let w = handle
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        let lost = failed.swap(0, Ordering::Relaxed);
        if lost > 0 {
            hop.egress_failed(lost);
        }
        hop.finish();
        report.frames_written = w.writes;
        report.super_packets_written = w.super_packets;
        let mut delay = w.delay;
        report.delivery_delay = delay.summary();
        report.writer_cpu_s = w.cpu_s;
        report.realtime &= w.realtime;
        report.cpu_s += w.cpu_s;
        report
    })
}

/// Dispatch lateness, overall and per kind of deadline.
#[derive(Debug, Default)]
struct Fired {
    all: Lateness,
    by_kind: std::collections::BTreeMap<&'static str, Lateness>,
}

impl Fired {
    /// Fires the deadlines due by `now`, and those that fall due while
    /// it fires them (the clock is read again after each, up to
    /// [`FIRE_BUDGET`] of them); returns the instant every datagram read
    /// next may be stamped with (no earlier than a deadline fired) and
    /// how many were fired.
    fn fire_due(
        &mut self,
        hop: &mut Hop,
        clock: &Clock,
        egress: &mut QueueEgress,
        written: &AtomicU64,
        mut now: Time,
    ) -> (Time, u32) {
        let mut fired = 0;
        while let Some((at, ev)) = hop.deadlines.pop_due(now) {
            let t = clock.now();
            let late = t.saturating_since(at).as_nanos();
            self.all.record(late);
            self.by_kind
                .entry(hop.ev_name(ev))
                .or_default()
                .record(late);
            egress.at = at;
            hop.dispatch(at, ev, egress);
            if ev == Ev::End {
                egress.sync(written);
            }
            fired += 1;
            if fired < FIRE_BUDGET {
                now = t;
            }
        }
        (now, fired)
    }
}

/// Whether a deadline of `hop` is due by the clock.
fn due(hop: &Hop, clock: &Clock) -> bool {
    hop.deadlines.next().is_some_and(|t| t <= clock.now())
}

/// The dispatch thread's loop (see the module doc); the writer's share
/// of the report is filled in by [`run_loop`].
fn dispatch_loop(
    hop: &mut Hop,
    ch: &Tun,
    sh: &Tun,
    clock: &Clock,
    stop: &AtomicBool,
    mut egress: QueueEgress,
    (failed, written): (&AtomicU64, &AtomicU64),
) -> LoopReport {
    // Sleep with nanosecond precision rather than the default 50 us slack.
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    let cpu0 = thread_cpu_s();
    let start = clock.now();
    let mut fired = Fired::default();
    let qos = hold_low_latency_idle();
    let mut report = LoopReport {
        realtime: set_realtime(RT_PRIORITY),
        low_latency_idle: qos.is_some(),
        offloads: ch.offloads() && sh.offloads(),
        ..LoopReport::default()
    };
    // The only buffers of the path: one frame as read (a super-packet at
    // most) and one segment cut from it, both reused.
    let mut buf = vec![0u8; MAX_FRAME];
    let mut scratch = Vec::with_capacity(MAX_FRAME);
    let mut awake_since = clock.now();
    while !stop.load(Ordering::Acquire) {
        let pass_start = clock.now();
        if pass_start.saturating_since(awake_since) > BUSY_MAX {
            egress.kick(pass_start, true);
            yield_cpu(YIELD);
            report.yields += 1;
            awake_since = clock.now();
            continue;
        }
        let (mut now, n) = fired.fire_due(hop, clock, &mut egress, written, pass_start);
        let mut worked = n > 0;
        egress.kick(now, false);
        hop.poll_commands(now);
        for (side, tun) in [(Side::Ch, ch), (Side::Sh, sh)] {
            let mut taken = 0;
            while taken < READ_BUDGET {
                match tun.recv(&mut buf) {
                    Ok(Some(n)) => {
                        report.frames_read += 1;
                        let frame = &mut buf[..n];
                        let mut k = 0;
                        egress.at = now;
                        let split = split(frame, &mut scratch, |d, origin| {
                            // Deadlines that fell due while the frame's
                            // earlier segments were handled go first;
                            // the rest of the frame enters after them.
                            if k > 0 && due(hop, clock) {
                                now = fired
                                    .fire_due(hop, clock, &mut egress, written, clock.now())
                                    .0;
                                egress.at = now;
                            }
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
                        worked = true;
                        if due(hop, clock) {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(_) => {
                        report.read_errors += 1;
                        break;
                    }
                }
            }
        }
        egress.kick(now, false);
        let lost = failed.swap(0, Ordering::Relaxed);
        if lost > 0 {
            hop.egress_failed(lost);
        }
        if worked {
            continue;
        }
        let until = hop.deadlines.next().unwrap_or(Time::NEVER);
        let timeout = until.saturating_since(clock.now()).min(MAX_SLEEP);
        if timeout > SPIN {
            egress.kick(now, true);
            wait(ch, sh, timeout - SPIN);
            awake_since = clock.now();
        }
    }
    hop.flush(&mut egress);
    egress.kick(clock.now(), true);
    drop(qos);
    report.queue_full_waits = egress.full_waits;
    report.lateness = fired.all.summary();
    report.lateness_by_timer = fired
        .by_kind
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
    fn datagrams_cross_the_queue_whole_and_in_order_across_its_wrap() {
        // A ring of 100 bytes: records of 13 + 30..=50 bytes wrap often,
        // and a full ring makes the producer wait for the consumer.
        let (tx, mut rx) = rtrb::RingBuffer::new(100);
        let mut q = QueueEgress {
            tx,
            rec: Vec::new(),
            writer: std::thread::current(),
            at: Time::ZERO,
            full_waits: 0,
            unsignalled: None,
            unsignalled_bytes: 0,
            queued: 0,
        };
        let sent: Vec<(Side, Vec<u8>, Time)> = (0..40u8)
            .map(|i| {
                let side = if i % 3 == 0 { Side::Ch } else { Side::Sh };
                (
                    side,
                    vec![i; 30 + usize::from(i % 21)],
                    Time(1000 * u64::from(i)),
                )
            })
            .collect();
        let got = std::thread::scope(|scope| {
            let consumer = scope.spawn(move || {
                let mut got = Vec::new();
                let mut buf = Vec::new();
                while got.len() < 40 {
                    match pop_record(&mut rx, &mut buf) {
                        Some((k, at)) => got.push((k, buf.clone(), at)),
                        None => std::thread::yield_now(),
                    }
                }
                got
            });
            for (side, d, at) in &sent {
                q.at = *at;
                q.deliver(*side, d).unwrap();
            }
            consumer.join().unwrap()
        });
        let want: Vec<(usize, Vec<u8>, Time)> = sent
            .into_iter()
            .map(|(side, d, at)| (usize::from(side == Side::Sh), d, at))
            .collect();
        assert_eq!(got, want);
        assert!(q.full_waits > 0, "the small ring filled up");
    }

    #[test]
    fn no_dispatch_gives_zeros() {
        assert_eq!(Lateness::default().summary(), LatenessSummary::default());
    }
}
