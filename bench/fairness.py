#!/usr/bin/env python3
"""Where the fairness of 1000 flows goes: the handshake or the data phase.

scenarios/many-flows.toml with 1000 flows for 10 s (one shared 1 Gbit/s hop,
0.1 % loss, a 1000-packet queue), each TCP profile with all flows opening at
once and with 1 ms between starts (what bench/ns3/many_flows.cc does by
default). Per run: aggregate goodput, Jain's index over every flow, over the
flows with a SYN or SYN-ACK timeout and over the others, how many flows had
one, Jain's index over all but the first 10% of flows to start, and the data
RTOs a flow. xltcp runs with the TCP settings of bench/ns3/many_flows.cc
(SACK off, NewReno recovery, an RTT sample per ACK, a 2-byte PPP header on
every link; --scenario-tcp keeps the scenario's SACK recovery). With --ns3,
the same for bench/ns3/many_flows (build it first with bench/ns3/build.sh),
counted from its --perFlowOut lines (kept under target/fairness-ns3/).

Every link serialises on the same nanosecond grid in both tools and flows
on equal paths start in lock-step, so the index taken at one timing is one
phase's. --access-jitter-ns N draws the access links' delay per seed, 10 ms
plus U[0, N) whole nanoseconds from the seed, and gives both tools the same
value: the mean over seeds is then over phases too.

    python3 bench/fairness.py [--seeds 1,2,3] [--ns3]
    python3 bench/fairness.py --seeds 1-100 --ns3-seeds 1-10 --profiles ns3 \
        --staggers 1ms --access-jitter-ns 10000 --ns3 \
        --cache bench/ns3/results/many_flows_1000.json
        # the agreement row: 1 ms apart, phases averaged; each ns-3 run is
        # kept in the cache as it ends and reused (a 1000-flow run takes minutes)
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blockage import ROOT, RUNNER, ci95  # noqa: E402

SCENARIO = ROOT / "scenarios" / "many-flows.toml"
NS3 = ROOT / "bench" / "ns3" / "build" / "many_flows"
PER_FLOW = ROOT / "target" / "fairness-ns3"


# The access links' delay (the scenario's wired.delay, many_flows.cc's access
# links) when it is not perturbed.
ACCESS_DELAY_NS = 10_000_000


def access_delay_ns(seed: int, jitter_ns: int) -> int:
    """The access-link delay of `seed`: 10 ms plus a whole number of
    nanoseconds drawn uniformly from [0, jitter_ns) by a generator seeded with
    the seed (the same value for both tools)."""
    if jitter_ns <= 0:
        return ACCESS_DELAY_NS
    return ACCESS_DELAY_NS + random.Random(seed).randrange(jitter_ns)


def jain(x: list[float]) -> float:
    s = sum(x)
    return s * s / (len(x) * sum(v * v for v in x)) if x and s > 0 else float("nan")


# What bench/ns3/many_flows.cc runs that the scenario does not: SACK off with
# classic NewReno recovery (ConfigureTcpDefaults in scenario_common.h), an RTT
# sample from every ACK of new data (TcpSocketBase::EstimateRtt runs on every
# ACK; it matters after a SYN timeout, whose ~1 s first sample the later ones
# bring down) and a 2-byte PPP header on every frame of every point-to-point
# link (the shared hop and the access links).
LIKE_NS3 = [
    "tcp.sack=false",
    'tcp.recovery="newreno"',
    'tcp.rtt_sampling="every_ack"',
    'wireless.frame_overhead="2B"',
    'wired.frame_overhead="2B"',
]


def run_xltcp(
    profile: str,
    stagger: str,
    seed: int,
    flows: int,
    like_ns3: bool = True,
    extra: tuple = (),
    jitter_ns: int = 0,
) -> dict:
    sets = [
        'sim.duration="10s"',
        f"flow.0.count={flows}",
        f'flow.0.stagger="{stagger}"',
        f'tcp.profile="{profile}"',
    ]
    if jitter_ns > 0:
        sets.append(f'wired.delay="{access_delay_ns(seed, jitter_ns)}ns"')
    if like_ns3:
        sets += LIKE_NS3
    sets += list(extra)
    args = [str(RUNNER), str(SCENARIO), "--seed", str(seed)]
    for s in sets:
        args += ["--set", s]
    d = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    fl = d["flows"]
    g = [f["goodput_bps"] for f in fl]
    hit = [f["goodput_bps"] for f in fl if f["syn_timeouts"] > 0]
    clean = [f["goodput_bps"] for f in fl if f["syn_timeouts"] == 0]
    return {
        "aggregate_bps": sum(g),
        "jain": jain(g),
        "jain_later": jain(g[len(g) // 10 :]),
        "jain_syn_timeout": jain(hit),
        "jain_no_syn_timeout": jain(clean),
        "flows_with_syn_timeout": len(hit),
        "data_rtos": sum(f["rto_count"] for f in fl),
        "retransmissions": sum(f["retransmissions"] for f in fl),
        "queue_drops": sum(link["drops"]["queue_full"] for link in d["links"]),
        "packets": sum(link["transmitted"] for link in d["links"]),
    }


def run_ns3(
    stagger_ms: float, seed: int, flows: int, cache: Path | None = None, jitter_ns: int = 0
) -> dict:
    key = f"flows={flows} stagger_ms={stagger_ms:g} seed={seed}"
    if jitter_ns > 0:
        key += f" access_delay_ns={access_delay_ns(seed, jitter_ns)}"
    kept = json.loads(cache.read_text()) if cache and cache.exists() else {}
    if key in kept:
        return kept[key]
    args = [str(NS3), f"--flows={flows}", "--duration=10", f"--seed={seed}"]
    args.append(f"--staggerMs={stagger_ms}")
    args.append(f"--accessDelayNs={access_delay_ns(seed, jitter_ns)}")
    # The run's per-flow lines (SYNs sent, RTOs, ...) are kept beside the build.
    per_flow = PER_FLOW / (key.replace(" ", "_") + ".csv")
    per_flow.parent.mkdir(parents=True, exist_ok=True)
    args.append(f"--perFlowOut={per_flow}")
    d = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    with per_flow.open() as f:
        fl = list(csv.DictReader(f))
    g = [int(f["rx_bytes"]) * 8 / 10.0 for f in fl]
    # As xltcp's syn_timeouts: the client's SYN timeouts (SYNs sent beyond the
    # first) and the server's SYN-ACK timeouts (SYN-ACKs beyond one per SYN
    # that arrived).
    syn_to = [int(f["syn_sent"]) - 1 + int(f["syn_ack_sent"]) - int(f["syn_arrived"]) for f in fl]
    row = {
        "aggregate_bps": d["goodput_bps_total"],
        "jain": d["jain_index"],
        "jain_later": jain(g[len(g) // 10 :]),
        "jain_syn_timeout": jain([x for x, n in zip(g, syn_to, strict=True) if n > 0]),
        "jain_no_syn_timeout": jain([x for x, n in zip(g, syn_to, strict=True) if n == 0]),
        "flows_with_syn_timeout": sum(n > 0 for n in syn_to),
        "client_syn_timeouts": sum(int(f["syn_sent"]) - 1 for f in fl),
        "server_syn_ack_timeouts": sum(int(f["syn_ack_sent"]) - int(f["syn_arrived"]) for f in fl),
        "data_rtos": sum(int(f["rtos"]) for f in fl),
        "retransmissions": d["retransmissions"],
        "queue_drops": d["queue_drops"],
        "packets": d["packets"],
    }
    if cache:
        kept = json.loads(cache.read_text()) if cache.exists() else {}
        kept[key] = row
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
    return row


def seed_list(text: str) -> list[int]:
    """``1,2,3`` or ``1-10``."""
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def cell(rows: list[dict], key: str, scale: float = 1.0, fmt: str = "{:.3f}") -> str:
    vals = [r[key] / scale for r in rows if key in r and r[key] == r[key]]
    if not vals:
        return "-"
    m, h = sum(vals) / len(vals), ci95(vals)
    return f"{fmt.format(m)} ± {fmt.format(h)}" if len(vals) > 1 else fmt.format(m)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--ns3-seeds", help="the ns-3 runs' seeds (default: --seeds)")
    ap.add_argument("--flows", type=int, default=1000)
    ap.add_argument("--ns3", action="store_true", help="also run bench/ns3/build/many_flows")
    ap.add_argument("--profiles", default="rfc,ns3", help="xltcp profiles (comma-separated)")
    ap.add_argument("--staggers", default="0ms,1ms", help="start spacings (comma-separated)")
    ap.add_argument("--cache", type=Path, help="JSON file keeping each ns-3 run")
    ap.add_argument(
        "--access-jitter-ns",
        type=int,
        default=0,
        metavar="NS",
        help="perturb the access links' delay per seed: 10 ms plus U[0, NS) whole nanoseconds "
        "drawn from the seed, the same in both tools (0: no perturbation)",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an extra scenario override of the xltcp runs (repeatable), e.g. wired.delay=10.001ms",
    )
    ap.add_argument(
        "--scenario-tcp",
        action="store_true",
        help="keep the scenario's SACK recovery and frame size (default: as many_flows.cc, "
        "SACK off, NewReno recovery, 2-byte PPP header)",
    )
    args = ap.parse_args()
    seeds = seed_list(args.seeds)
    ns3_seeds = seed_list(args.ns3_seeds) if args.ns3_seeds else seeds
    staggers = args.staggers.split(",")
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True
    )
    head = (
        "tool",
        "starts",
        "aggregate Mbit/s",
        "Jain all",
        "Jain SYN t/o",
        "Jain others",
        "Jain, all but the first 10%",
    )
    tail = ("flows with SYN t/o", "data RTOs a flow", "retransmissions a flow", "queue drops")
    print("| " + " | ".join(head + tail) + " |")
    print("|" + "---|" * (len(head) + len(tail)))
    for profile in filter(None, args.profiles.split(",")):
        for stagger in staggers:
            like_ns3 = not args.scenario_tcp
            rows = [
                run_xltcp(
                    profile, stagger, s, args.flows, like_ns3, args.set, args.access_jitter_ns
                )
                for s in seeds
            ]
            print(
                f"| xltcp ({profile}), seeds {args.seeds} | {stagger} apart "
                f"| {cell(rows, 'aggregate_bps', 1e6, '{:.1f}')} "
                f"| {cell(rows, 'jain')} | {cell(rows, 'jain_syn_timeout')} "
                f"| {cell(rows, 'jain_no_syn_timeout')} | {cell(rows, 'jain_later')} "
                f"| {cell(rows, 'flows_with_syn_timeout', 1, '{:.0f}')} "
                f"| {cell(rows, 'data_rtos', args.flows, '{:.2f}')} "
                f"| {cell(rows, 'retransmissions', args.flows, '{:.1f}')} "
                f"| {cell(rows, 'queue_drops', 1, '{:.0f}')} |",
                flush=True,
            )
    if args.ns3:
        for stagger_ms in (float(s.removesuffix("ms")) for s in staggers):
            rows = [
                run_ns3(stagger_ms, s, args.flows, args.cache, args.access_jitter_ns)
                for s in ns3_seeds
            ]
            print(
                f"| ns-3 3.44, seeds {args.ns3_seeds or args.seeds} | {stagger_ms:g}ms apart "
                f"| {cell(rows, 'aggregate_bps', 1e6, '{:.1f}')} "
                f"| {cell(rows, 'jain')} | {cell(rows, 'jain_syn_timeout')} "
                f"| {cell(rows, 'jain_no_syn_timeout')} | {cell(rows, 'jain_later')} "
                f"| {cell(rows, 'flows_with_syn_timeout', 1, '{:.0f}')} "
                f"| {cell(rows, 'data_rtos', args.flows, '{:.2f}')} "
                f"| {cell(rows, 'retransmissions', args.flows, '{:.1f}')} "
                f"| {cell(rows, 'queue_drops', 1, '{:.0f}')} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
