//! The packet path allocates nothing in steady state: once queues, the
//! event heap and TCP's buffers have grown to their working size, a run
//! twice as long makes (almost) no more allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use xltcp_core::scenario;
use xltcp_core::sim::{self, RunOptions};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
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

fn allocations(duration: &str) -> (u64, u64) {
    let s = scenario::load_str(
        SCENARIO,
        "alloc.toml",
        Path::new("."),
        &[format!("sim.duration={duration}")],
    )
    .unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    let summary = sim::run(&s, RunOptions::default()).unwrap();
    (ALLOCS.load(Ordering::Relaxed) - before, summary.events)
}

#[test]
fn steady_state_packet_path_does_not_allocate() {
    let (a10, e10) = allocations("10s");
    let (a40, e40) = allocations("40s");
    let extra_events = e40 - e10;
    let extra_allocs = a40.saturating_sub(a10);
    println!("10 s: {a10} allocations / {e10} events; 40 s: {a40} / {e40}");
    // Growth of buffers to a new high-water mark is allowed; one allocation
    // per thousand extra events is not per-packet allocation.
    assert!(
        extra_allocs * 1000 < extra_events,
        "{extra_allocs} extra allocations for {extra_events} extra events"
    );
}
