#!/usr/bin/env python3
"""Where the fairness of 1000 flows goes: the handshake or the data phase.

scenarios/many-flows.toml with 1000 flows for 10 s (one shared 1 Gbit/s hop,
0.1 % loss, a 1000-packet queue), each TCP profile with all flows opening at
once and with 1 ms between starts (what bench/ns3/many_flows.cc does by
default). Per run: aggregate goodput, Jain's index over every flow, over the
flows whose handshake timed out and over the others, how many flows had a
SYN (or SYN-ACK) timeout, Jain's index over all but the first 10% of flows
to start, and the data RTOs. xltcp runs with the TCP settings of
bench/ns3/many_flows.cc (SACK off, NewReno recovery, a 2-byte PPP header on
the shared hop; --scenario-tcp keeps the scenario's SACK recovery). With
--ns3, the same for bench/ns3/many_flows (aggregate and Jain's index only;
build it first with bench/ns3/build.sh).

    python3 bench/fairness.py [--seeds 1,2,3] [--ns3]
    python3 bench/fairness.py --seeds 1-10 --profiles ns3 --staggers 1ms --ns3 \
        --cache bench/ns3/results/many_flows_1000.json
        # the agreement row: 1 ms apart, 10 seeds a side; each ns-3 run is kept
        # in the cache as it ends and reused (a 1000-flow run takes minutes)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blockage import ROOT, RUNNER, ci95  # noqa: E402

SCENARIO = ROOT / "scenarios" / "many-flows.toml"
NS3 = ROOT / "bench" / "ns3" / "build" / "many_flows"


def jain(x: list[float]) -> float:
    s = sum(x)
    return s * s / (len(x) * sum(v * v for v in x)) if x and s > 0 else float("nan")


# What bench/ns3/many_flows.cc runs that the scenario does not: SACK off with
# classic NewReno recovery (ConfigureTcpDefaults in scenario_common.h) and a
# 2-byte PPP header on every frame of every point-to-point link (the shared
# hop and the access links).
LIKE_NS3 = [
    "tcp.sack=false",
    'tcp.recovery="newreno"',
    'wireless.frame_overhead="2B"',
    'wired.frame_overhead="2B"',
]


def run_xltcp(
    profile: str, stagger: str, seed: int, flows: int, like_ns3: bool = True, extra: tuple = ()
) -> dict:
    sets = [
        'sim.duration="10s"',
        f"flow.0.count={flows}",
        f'flow.0.stagger="{stagger}"',
        f'tcp.profile="{profile}"',
    ]
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
    }


def run_ns3(stagger_ms: float, seed: int, flows: int, cache: Path | None = None) -> dict:
    key = f"flows={flows} stagger_ms={stagger_ms:g} seed={seed}"
    kept = json.loads(cache.read_text()) if cache and cache.exists() else {}
    if key in kept:
        return kept[key]
    args = [str(NS3), f"--flows={flows}", "--duration=10", f"--seed={seed}"]
    args.append(f"--staggerMs={stagger_ms}")
    d = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    row = {"aggregate_bps": d["goodput_bps_total"], "jain": d["jain_index"]}
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
    ap.add_argument("--flows", type=int, default=1000)
    ap.add_argument("--ns3", action="store_true", help="also run bench/ns3/build/many_flows")
    ap.add_argument("--profiles", default="rfc,ns3", help="xltcp profiles (comma-separated)")
    ap.add_argument("--staggers", default="0ms,1ms", help="start spacings (comma-separated)")
    ap.add_argument("--cache", type=Path, help="JSON file keeping each ns-3 run")
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
    print("| " + " | ".join(head) + " | flows with SYN t/o | data RTOs |")
    print("|" + "---|" * (len(head) + 2))
    for profile in args.profiles.split(","):
        for stagger in staggers:
            like_ns3 = not args.scenario_tcp
            rows = [run_xltcp(profile, stagger, s, args.flows, like_ns3, args.set) for s in seeds]
            print(
                f"| xltcp ({profile}) | {stagger} apart "
                f"| {cell(rows, 'aggregate_bps', 1e6, '{:.1f}')} "
                f"| {cell(rows, 'jain')} | {cell(rows, 'jain_syn_timeout')} "
                f"| {cell(rows, 'jain_no_syn_timeout')} | {cell(rows, 'jain_later')} "
                f"| {cell(rows, 'flows_with_syn_timeout', 1, '{:.0f}')} "
                f"| {cell(rows, 'data_rtos', 1, '{:.0f}')} |",
                flush=True,
            )
    if args.ns3:
        for stagger_ms in (float(s.removesuffix("ms")) for s in staggers):
            rows = [run_ns3(stagger_ms, s, args.flows, args.cache) for s in seeds]
            print(
                f"| ns-3 3.44 | {stagger_ms:g}ms apart | "
                f"{cell(rows, 'aggregate_bps', 1e6, '{:.1f}')} | {cell(rows, 'jain')} "
                "| - | - | - | - | - |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
