//! One run on two threads (`[sim] threads = 2`).
//!
//! The world is cut at the wired access links: one thread runs the wired
//! hosts (their endpoints, and the links they send on), the other the base
//! station, the hops and the wireless hosts (and the links the base station
//! sends on). Each thread builds the same world from the scenario and seed
//! and runs its own side of it. A packet sent on an access link is
//! serialised by the side that sends it and handed to the other with its
//! arrival time, which is at least the link's delay after the sending
//! instant: the threads advance in windows of that delay, and exchange the
//! packets at each window's end, which the receiving side inserts in the
//! order they were sent. A run is still a function of its scenario and
//! seed, but not the same function as the one-thread run: packet uids are
//! numbered per side, and events tied at one nanosecond across the cut may
//! pop in another order (downlink flows give the one-thread summary; uplink
//! flows another history, with every packet accounted for).
//!
//! At the end the base station's side absorbs the wired side's endpoints,
//! applications, link counters and accounting, and makes the summary.
//! Not covered ([`supported`] refuses them): agents, host stacks, wired
//! jitter, time series and captures (they would need both sides' records
//! merged): an output folder holds `summary.json` only. The RTO causes are not
//! given (`rto_causes` absent): a sender's timeouts would be classified
//! without the drops and the receiver state of the other side, so none
//! rather than wrong ones.

use super::flow::{Flow, Side};
use super::output::Output;
use super::summary::Summary;
use super::world::{Accounting, Ev, World};
use super::RunOptions;
use crate::net::link::LinkStats;
use crate::scenario::{self, Scenario};
use crate::time::{Dur, Time};
use crate::wire::Packet;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// One side of a split run.
#[derive(Debug)]
pub(crate) struct Part {
    /// The side whose endpoints this world runs (`Ch`: the wired hosts).
    pub(crate) side: Side,
    /// Packets sent to the other side in the current window.
    pub(crate) outbox: Vec<Crossing>,
}

/// A packet on its way across the cut.
#[derive(Debug)]
pub(crate) struct Crossing {
    pub(crate) at: Time,
    pub(crate) link: u32,
    pub(crate) p: Packet,
}

/// What the wired side hands over at the end.
struct Tail {
    flows: Vec<Flow>,
    links: Vec<LinkStats>,
    accounting: Accounting,
    events: u64,
}

/// Whether `s` can run on two threads; if not, why (naming the key).
pub fn supported(s: &Scenario) -> Result<(), String> {
    let why = if !s.agents.is_empty() {
        "[[agent]] entries see both sides of the cut"
    } else if s.hosts.stack_delay + s.hosts.stack_jitter > Dur::ZERO {
        "[hosts] stack_delay and stack_jitter must be 0"
    } else if s.wired.jitter > Dur::ZERO {
        "[wired] jitter must be 0"
    } else if s.wired.delay == Dur::ZERO {
        "[wired] delay must be above 0 (it is the threads' window)"
    } else if s.output.timeseries || s.output.pcap {
        "it writes summary.json only: set output.timeseries = false and output.pcap = false"
    } else {
        return Ok(());
    };
    Err(format!("sim.threads = 2: {why} (or set sim.threads = 1)"))
}

/// A meeting point of the two threads that either may leave for good (it
/// stopped: the run was interrupted, or it panicked): the other's waits
/// then return false instead of waiting for ever.
#[derive(Default)]
struct Meet {
    /// (threads arrived in this round, rounds completed, left).
    state: Mutex<(u8, u64, bool)>,
    cv: Condvar,
    /// Bumped at each change of `state` other than an arrival, for a
    /// waiter to spin on before it sleeps.
    changes: AtomicU64,
}

/// How many times a waiting thread checks [`Meet::changes`] before it
/// sleeps (a few microseconds): small windows end sooner than a sleeping
/// thread wakes.
const SPINS: u32 = 2000;

impl Meet {
    /// Waits for the other thread; false once either has left.
    fn wait(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.2 {
            return false;
        }
        s.0 += 1;
        if s.0 == 2 {
            s.0 = 0;
            s.1 += 1;
            self.changes.fetch_add(1, Ordering::Release);
            self.cv.notify_all();
            return true;
        }
        let round = s.1;
        let seen = self.changes.load(Ordering::Acquire);
        drop(s);
        for _ in 0..SPINS {
            if self.changes.load(Ordering::Acquire) != seen {
                break;
            }
            std::hint::spin_loop();
        }
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while s.1 == round && !s.2 {
            s = self.cv.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        s.1 != round
    }

    fn leave(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).2 = true;
        self.changes.fetch_add(1, Ordering::Release);
        self.cv.notify_all();
    }
}

/// Leaves the meeting point when dropped before [`Stay::done`]: on an
/// early return and on a panic.
struct Stay<'a>(&'a Meet, bool);

impl Stay<'_> {
    fn done(mut self) {
        self.1 = true;
    }
}

impl Drop for Stay<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.leave();
        }
    }
}

/// Runs `scenario` on two threads, as [`super::run`] does on one (which
/// calls it for `[sim] threads = 2`): `progress` is called from the calling
/// thread; an output folder gets `summary.json` only ([`supported`]
/// refuses time series and captures).
/// Expects a scenario [`super::check`] passed.
pub(super) fn run(scenario: &Scenario, opts: RunOptions<'_>) -> io::Result<Summary> {
    if let Some(dir) = opts.out_dir {
        std::fs::create_dir_all(dir)?;
    }
    let seed = opts.seed.unwrap_or(scenario.sim.seed);
    let started = opts.wall_clock.map(|c| c());
    let mut progress = opts.progress;
    let boxes = [Mutex::new(Vec::new()), Mutex::new(Vec::new())];
    let tail = Mutex::new(None);
    let meet = Meet::default();
    let summary = std::thread::scope(|scope| {
        scope.spawn(|| {
            let stay = Stay(&meet, false);
            let Some(mut w) = side(scenario, seed, Side::Ch, &boxes, &meet, &mut None) else {
                return;
            };
            *tail.lock().unwrap_or_else(PoisonError::into_inner) = Some(Tail {
                flows: std::mem::take(&mut w.flows),
                links: w.links.iter().map(|l| l.stats).collect(),
                accounting: w.accounting,
                events: w.events(),
            });
            // The other side takes the tail after this.
            if meet.wait() {
                stay.done();
            }
        });
        let stay = Stay(&meet, false);
        let mut b = side(scenario, seed, Side::Sh, &boxes, &meet, &mut progress)?;
        if !meet.wait() {
            return None;
        }
        stay.done();
        let t = tail.lock().unwrap_or_else(PoisonError::into_inner).take()?;
        b.absorb(t);
        let mut summary = b.summary(scenario::echo(scenario));
        // Not classified across the cut (see the module doc): none rather
        // than wrong ones.
        for f in &mut summary.flows {
            f.rto_causes = None;
        }
        Some(summary)
    });
    let Some(mut summary) = summary else {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "run interrupted",
        ));
    };
    if let (Some(clock), Some(t0)) = (opts.wall_clock, started) {
        summary.wall_seconds = clock() - t0;
    }
    if let Some(dir) = opts.out_dir {
        super::write_summary(dir, &summary)?;
    }
    Ok(summary)
}

/// Runs `side`'s part of the world to the end; `None` when the run stopped
/// (`progress` asked to, or the other side left).
fn side(
    scenario: &Scenario,
    seed: u64,
    side: Side,
    boxes: &[Mutex<Vec<Crossing>>; 2],
    meet: &Meet,
    progress: &mut Option<&mut dyn FnMut(Time, Time) -> bool>,
) -> Option<World> {
    let mut w = World::unstarted(scenario.clone(), seed, Output::none(), Vec::new());
    w.split = Some(Part {
        side,
        outbox: Vec::new(),
    });
    // Both sides open each flow; the hop and the channel run on the base
    // station's side only.
    w.schedule_starts();
    if side == Side::Sh {
        w.start_network();
    }
    if progress.is_some() {
        w.start_progress();
    }
    let (mine, theirs) = match side {
        Side::Ch => (&boxes[0], &boxes[1]),
        Side::Sh => (&boxes[1], &boxes[0]),
    };
    let window = scenario.wired.delay;
    let end = w.end();
    let mut from = Time::ZERO;
    loop {
        let limit = (from + Dur(window.0 - 1)).min(end);
        if !w.run_until(limit, progress) {
            return None;
        }
        let out = std::mem::take(&mut w.split.as_mut().expect("split").outbox);
        *mine.lock().unwrap_or_else(PoisonError::into_inner) = out;
        if !meet.wait() {
            return None;
        }
        let incoming = std::mem::take(&mut *theirs.lock().unwrap_or_else(PoisonError::into_inner));
        if !meet.wait() {
            return None;
        }
        for c in incoming {
            w.import(c);
        }
        if limit >= end {
            break;
        }
        from = limit + Dur(1);
    }
    w.finish();
    Some(w)
}

impl World {
    /// Enters a packet the other side sent.
    fn import(&mut self, c: Crossing) {
        if self.links[c.link as usize].import(c.at, c.p) {
            self.q.schedule(c.at, Ev::Arrive { link: c.link });
        }
    }

    /// Takes the wired side's endpoints, applications, counters and
    /// accounting into this (the base station's) side.
    fn absorb(&mut self, t: Tail) {
        for (f, w) in self.flows.iter_mut().zip(t.flows) {
            f.absorb_side(w, Side::Ch);
        }
        for (l, s) in self.links.iter_mut().zip(&t.links) {
            l.stats.absorb(s);
        }
        let a = &mut self.accounting;
        a.injected += t.accounting.injected;
        a.delivered += t.accounting.delivered;
        a.dropped += t.accounting.dropped;
        a.in_flight += t.accounting.in_flight;
        // Each flow's start was popped on both sides.
        let end = self.end();
        let started = self
            .flows
            .iter()
            .filter(|f| Time::ZERO + f.spec.start <= end);
        self.absorbed_events = t.events - started.count() as u64;
    }
}

impl Flow {
    /// Takes `side`'s endpoint and application from `other`, the copy of
    /// this flow that ran that side.
    fn absorb_side(&mut self, other: Flow, side: Side) {
        let i = side as usize;
        let [ch, sh] = other.ep;
        self.ep[i] = if i == 0 { ch } else { sh };
        self.ip_id[i] = other.ip_id[i];
        self.timer_armed[i] = other.timer_armed[i];
        if side == self.sender_side() {
            self.written = other.written;
            self.closed = other.closed;
        } else {
            self.delivered = other.delivered;
            self.delivered_at_sample = other.delivered_at_sample;
            self.completed_at = other.completed_at;
            self.blocked_at_completion = other.blocked_at_completion;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn many_flows(sets: &[&str]) -> Scenario {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/many-flows.toml");
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        scenario::load_file(&path, &sets).unwrap()
    }

    fn run_seed(s: &Scenario, seed: u64) -> io::Result<Summary> {
        super::super::run(
            s,
            RunOptions {
                seed: Some(seed),
                ..Default::default()
            },
        )
    }

    fn two(mut s: Scenario) -> Scenario {
        s.sim.threads = 2;
        s.output.timeseries = false;
        s
    }

    fn json(s: &Summary) -> serde_json::Value {
        let mut v = serde_json::to_value(s).unwrap();
        v["wall_seconds"] = serde_json::json!(0);
        v["scenario"]["sim"]
            .as_object_mut()
            .unwrap()
            .remove("threads");
        v
    }

    /// Downlink flows whose ties never straddle the cut: the two-thread
    /// run gives the one-thread summary, but for the RTO causes, which it
    /// does not give.
    #[test]
    fn two_threads_give_the_one_thread_summary_on_downlink_flows() {
        let s = many_flows(&[
            "flow.0.count=20",
            "sim.duration=3s",
            "wireless.loss.down.p=0.01",
            "output.timeseries=false",
            "wireless.availability.model=onoff",
            "wireless.availability.on=exp(500ms)",
            "wireless.availability.off=exp(100ms)",
        ]);
        let one = run_seed(&s, 4).unwrap();
        let mut two = run_seed(&two(s), 4).unwrap();
        assert_eq!(two.scenario["sim"]["threads"], 2);
        assert!(one.flows.iter().map(|f| f.rto_count).sum::<u64>() > 0);
        assert!(one.flows.iter().map(|f| f.retransmissions).sum::<u64>() > 100);
        for (a, b) in one.flows.iter().zip(&mut two.flows) {
            assert!(b.rto_causes.is_none());
            b.rto_causes = a.rto_causes;
        }
        assert_eq!(json(&one), json(&two));
    }

    /// With uplink flows, ties at the base station change order across the
    /// cut: another history, with every packet accounted for, and the
    /// same from run to run.
    #[test]
    fn uplink_flows_on_two_threads_balance_and_repeat() {
        let s = many_flows(&["flow.0.count=20", "sim.duration=3s", "flow.0.direction=up"]);
        let one = run_seed(&s, 2).unwrap();
        let s = two(s);
        let two = run_seed(&s, 2).unwrap();
        assert!(two.accounting.balances(), "{:?}", two.accounting);
        let delivered = |s: &Summary| s.flows.iter().map(|f| f.bytes_delivered).sum::<u64>() as f64;
        let ratio = delivered(&two) / delivered(&one);
        assert!((0.97..1.03).contains(&ratio), "{ratio}");
        assert_eq!(json(&two), json(&run_seed(&s, 2).unwrap()));
    }

    #[test]
    fn what_the_split_does_not_cover_is_refused_naming_the_key() {
        for (set, key) in [
            ("wired.jitter=1ms", "[wired] jitter"),
            ("hosts.stack_delay=20us", "[hosts] stack_delay"),
            ("wired.delay=0s", "[wired] delay"),
            ("output.pcap=true", "output.pcap = false"),
        ] {
            let s = two(many_flows(&[set]));
            let e = super::super::check(&s).unwrap_err();
            assert!(e.starts_with("sim.threads = 2: ") && e.contains(key), "{e}");
            let e = run_seed(&s, 1).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::Unsupported);
        }
        assert!(super::super::check(&two(many_flows(&[]))).is_ok());
    }

    /// An output folder gets `summary.json`, the summary returned; time
    /// series are refused, before anything is written.
    #[test]
    fn an_output_folder_gets_the_summary_only() {
        let dir = std::env::temp_dir().join(format!("xltcp-split-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut s = two(many_flows(&["flow.0.count=3", "sim.duration=1s"]));
        let opts = |dir| RunOptions {
            out_dir: Some(dir),
            ..Default::default()
        };
        s.output.timeseries = true;
        let e = super::super::run(&s, opts(&dir)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Unsupported);
        assert!(e.to_string().contains("output.timeseries = false"), "{e}");
        assert!(!dir.exists());
        s.output.timeseries = false;
        let summary = super::super::run(&s, opts(&dir)).unwrap();
        let written: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(written, serde_json::to_value(&summary).unwrap());
        let files = std::fs::read_dir(&dir).unwrap().count();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(files, 1);
    }

    /// Progress comes from the calling thread; when it asks to stop, both
    /// threads stop and the run fails with `Interrupted`.
    #[test]
    fn progress_is_reported_and_stops_both_threads() {
        let s = two(many_flows(&["flow.0.count=3", "sim.duration=2s"]));
        let (mut calls, mut last) = (0, Time::ZERO);
        let mut report = |done: Time, total: Time| {
            assert!(done > last && total == Time::ZERO + Dur::from_secs(2));
            last = done;
            calls += 1;
            true
        };
        let opts = RunOptions {
            progress: Some(&mut report),
            ..Default::default()
        };
        super::super::run(&s, opts).unwrap();
        assert!((95..=100).contains(&calls), "{calls}");
        let mut calls = 0;
        let mut stop = |_: Time, _: Time| {
            calls += 1;
            calls < 5
        };
        let opts = RunOptions {
            progress: Some(&mut stop),
            ..Default::default()
        };
        let e = super::super::run(&s, opts).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Interrupted);
        assert_eq!(calls, 5);
    }

    /// A thread that leaves (it stopped, or panicked) wakes the other,
    /// whose waits then fail instead of blocking.
    #[test]
    fn leaving_the_meeting_point_wakes_the_other_thread() {
        let meet = Meet::default();
        std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                let stay = Stay(&meet, false);
                assert!(meet.wait());
                drop(stay);
            });
            assert!(meet.wait());
            other.join().unwrap();
            assert!(!meet.wait());
            assert!(!meet.wait());
        });
        let meet = Meet::default();
        let panicked = std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                let _stay = Stay(&meet, false);
                panic!("a side failed");
            });
            let woke = meet.wait();
            (woke, other.join().is_err())
        });
        assert_eq!(panicked, (false, true));
    }
}
