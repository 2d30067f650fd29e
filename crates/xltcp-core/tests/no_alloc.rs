//! The packet path allocates nothing in steady state: once queues, the
//! event heap and TCP's buffers have grown to their working size, a run
//! twice as long makes (almost) no more allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions};

struct Counting;

thread_local! {
    /// Allocations made by this thread: the runs measured here are
    /// single-threaded, and the test harness's other threads (reporting a
    /// finished test) must not count.
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down has no counter left.
    let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
}

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const SCENARIO: &str = r#"
[sim]
duration = "10s"
[wired]
rate = "100Mbps"
delay = "10ms"
[wireless]
rate = "10Mbps"
delay = "1ms"
[wireless.loss.down]
model = "iid"
p = 0.01
[[flow]]
direction = "down"
app = "bulk"
"#;

/// The tests of this file count their own thread's allocations; one at a
/// time all the same.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Allocations and events of a run of `duration` with congestion control `cc`.
fn allocations(duration: &str, cc: &str) -> (u64, u64) {
    let s = scenario::load_str(
        SCENARIO,
        "alloc.toml",
        Path::new("."),
        &[format!("sim.duration={duration}"), format!("tcp.cc={cc}")],
    )
    .unwrap();
    let before = allocs();
    let summary = sim::run(&s, RunOptions::default()).unwrap();
    (allocs() - before, summary.events)
}

/// BBR keeps its rate stamps in the transmission log's records and paces
/// with a timer of the endpoint's table: nothing per packet either.
#[test]
fn steady_state_packet_path_does_not_allocate() {
    steady_state("newreno");
    steady_state("bbr");
}

fn steady_state(cc: &str) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (a10, e10) = allocations("10s", cc);
    let (a40, e40) = allocations("40s", cc);
    let extra_events = e40 - e10;
    let extra_allocs = a40.saturating_sub(a10);
    println!("{cc}: 10 s: {a10} allocations / {e10} events; 40 s: {a40} / {e40}");
    // The counter sees this thread's allocations (building a world makes
    // some), or the test below would pass on a counter that counts nothing.
    assert!(a10 > 0, "no allocation counted");
    // Growth of buffers to a new high-water mark is allowed; one allocation
    // per thousand extra events is not per-packet allocation.
    assert!(
        extra_allocs * 1000 < extra_events,
        "{extra_allocs} extra allocations for {extra_events} extra events"
    );
}

#[test]
fn event_lines_are_written_without_allocating() {
    use xltcp_core::sim::output::Output;
    use xltcp_core::time::{Dur, Time};
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("alloc-events");
    let mut out = Output::create(&dir, &["a".to_string()], true, 0.1).unwrap();
    // The first lines may grow the line buffer; then none allocates.
    out.hop_blocked(Time::ZERO, true);
    out.hop_blocked(Time::ZERO + Dur::from_secs(1), false);
    let before = allocs();
    for k in 2..20_000u64 {
        out.hop_blocked(Time::ZERO + Dur::from_millis(1000 * k + 1), k % 2 == 0);
    }
    let allocs = allocs() - before;
    out.finish().unwrap();
    let lines = std::fs::read_to_string(dir.join("events.csv"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 20_001);
    assert_eq!(allocs, 0, "{allocs} allocations for 19,998 event lines");
}
