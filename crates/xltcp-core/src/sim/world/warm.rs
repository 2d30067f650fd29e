//! Bringing the next events' state into the cache ahead of them.
//!
//! With thousands of flows, each flow's endpoints, links and queued
//! packets have left the cache by the time its next packet comes: between
//! two of one flow's packets pass those of all the others. The event loop
//! knows the next events (the clock's slot is sorted), so it asks the
//! processor to fetch what they will touch while the current event runs.
//! A hint only: nothing is read for the model, the order of events and
//! every output are unchanged, and a run with few flows (whose state stays
//! in the cache) skips it.

use super::{Ev, World};
use crate::hop::{Hop, BS};
use crate::net::link::Dest;

/// The fewest flows for which the event loop warms the cache. Our choice,
/// from measurements (bench/README, "Warming the cache"): at 1,000 flows
/// the lines each packet touches still stay in a core's caches (a packet
/// costs about what it does at 100 flows, and warming gains nothing); at
/// 3,000 they no longer do, and warming pays.
pub(super) const WARM_FLOWS: usize = 1024;

impl World {
    /// Brings into the cache what the next two events will touch, in two
    /// steps: for the event after next, the link or endpoint it names or
    /// the packet a hop will hand over; for the next (whose first lines
    /// the previous call fetched), what those point to: the packet at the
    /// link's head, the flow's endpoint, its log of sent segments and its
    /// link back.
    #[inline(never)]
    pub(super) fn warm(&self) {
        if let Some(&ev) = self.q.peek_near(1) {
            match ev {
                Ev::Arrive { link } => {
                    prefetch(&self.links[link as usize]);
                }
                Ev::Timer { flow, side } | Ev::StackOut { flow, side } => {
                    prefetch(&self.flows[flow as usize].ep[usize::from(side)]);
                }
                Ev::Hop(t) => {
                    if let Some((_, p)) = self.hops[usize::from(t.hop)].arriving(t) {
                        prefetch(p);
                    }
                }
                _ => {}
            }
        }
        let Some(&ev) = self.q.peek_near(0) else {
            return;
        };
        match ev {
            Ev::Arrive { link } => {
                let l = &self.links[link as usize];
                if let Some(p) = l.pipe_head() {
                    prefetch(p);
                }
                // For the wired host's endpoint (an ACK, on a downlink
                // flow), which answers on its uplink.
                if let Dest::Ch(f) = l.dest {
                    self.warm_flow(f as usize, 0);
                    prefetch(&self.links[2 * f as usize]);
                }
            }
            Ev::Hop(t) => {
                if let Some((to, p)) = self.hops[usize::from(t.hop)].arriving(t) {
                    let f = p.meta.flow as usize;
                    if f < self.flows.len() {
                        if to == BS {
                            prefetch(&self.links[2 * f + 1]);
                        } else {
                            self.warm_flow(f, 1);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Flow `f`'s endpoint on `side`, its log of sent segments and the
    /// flow's application counters.
    fn warm_flow(&self, f: usize, side: usize) {
        let flow = &self.flows[f];
        let ep = &flow.ep[side];
        prefetch(ep);
        if let Some(r) = ep.sent.head() {
            prefetch(r);
        }
        prefetch(&flow.spec.app);
        prefetch(&flow.written);
    }
}

/// Asks the processor to bring the cache lines of `x` in.
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = std::ptr::from_ref(x).cast::<i8>();
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            // SAFETY: a prefetch reads nothing into the program and cannot
            // fault; every address is inside `x`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off)) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;
    use crate::sim::output::Output;
    use crate::sim::world::Accounting;
    use std::path::Path;

    /// What a run of many-flows with `sets` made: whether it was warmed
    /// (by default, or as `warm` says), its events, its accounting and
    /// each flow's bytes read and segments retransmitted.
    fn run(sets: &[&str], warm: Option<bool>) -> (bool, u64, Accounting, Vec<(u64, u64)>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/many-flows.toml");
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let mut w = World::new(
            scenario::load_file(&path, &sets).unwrap(),
            3,
            Output::none(),
        );
        w.warm = warm.unwrap_or(w.warm);
        w.run(None);
        let flows = w.flows.iter();
        let per_flow = flows.map(|f| {
            (
                f.delivered,
                f.ep[0].stats().retransmissions + f.ep[1].stats().retransmissions,
            )
        });
        (w.warm, w.events(), w.accounting, per_flow.collect())
    }

    #[test]
    fn a_large_world_is_warmed_and_runs_as_a_cold_one() {
        let sets = [
            "flow.0.count=1100",
            "wireless.rate=10Gbps",
            "wireless.queue=2000p",
            "wireless.loss.down.p=0.01",
            "sim.duration=300ms",
        ];
        let (warmed, events, acc, flows) = run(&sets, None);
        assert!(warmed, "1,100 flows are warmed");
        assert!(events > 100_000, "only {events} events");
        assert!(flows.iter().any(|f| f.1 > 0), "no losses were repaired");
        let cold = run(&sets, Some(false));
        assert_eq!((false, events, acc, flows), cold);
    }

    #[test]
    fn a_small_world_warmed_by_force_runs_as_a_cold_one() {
        for dir in ["down", "up"] {
            let d = format!("flow.0.direction={dir}");
            let sets = [
                "flow.0.count=3",
                "wireless.loss.down.p=0.02",
                "sim.duration=3s",
                &d,
            ];
            let (warmed, events, acc, flows) = run(&sets, Some(true));
            assert!(
                warmed && flows.iter().all(|f| f.0 > 0 && f.1 > 0),
                "{dir}: {flows:?}"
            );
            assert_eq!((false, events, acc, flows), run(&sets, None), "{dir}");
        }
    }
}
