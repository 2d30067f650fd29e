#!/usr/bin/env python3
"""Where the fairness of 1000 flows goes: the handshake or the data phase.

scenarios/many-flows.toml with 1000 flows for 10 s (one shared 1 Gbit/s hop,
0.1 % loss, a 1000-packet queue), each TCP profile with all flows opening at
once and with 1 ms between starts (what bench/ns3/many_flows.cc does by
default). Per run: aggregate goodput, Jain's index over every flow, over the
flows whose handshake timed out and over the others, how many flows had a
SYN (or SYN-ACK) timeout, and the data RTOs. With --ns3, the same for
bench/ns3/many_flows (aggregate and Jain's index only; build it first with
bench/ns3/build.sh).

    python3 bench/fairness.py [--seeds 1,2,3] [--ns3]
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


def run_xltcp(profile: str, stagger: str, seed: int, flows: int) -> dict:
    sets = [
        'sim.duration="10s"',
        f"flow.0.count={flows}",
        f'flow.0.stagger="{stagger}"',
        f'tcp.profile="{profile}"',
    ]
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
        "jain_syn_timeout": jain(hit),
        "jain_no_syn_timeout": jain(clean),
        "flows_with_syn_timeout": len(hit),
        "data_rtos": sum(f["rto_count"] for f in fl),
    }


def run_ns3(stagger_ms: float, seed: int, flows: int) -> dict:
    args = [str(NS3), f"--flows={flows}", "--duration=10", f"--seed={seed}"]
    args.append(f"--staggerMs={stagger_ms}")
    d = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    return {"aggregate_bps": d["goodput_bps_total"], "jain": d["jain_index"]}


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
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True
    )
    head = ("tool", "starts", "aggregate Mbit/s", "Jain all", "Jain SYN t/o", "Jain others")
    print("| " + " | ".join(head) + " | flows with SYN t/o | data RTOs |")
    print("|" + "---|" * (len(head) + 2))
    for profile in ("rfc", "ns3"):
        for stagger in ("0ms", "1ms"):
            rows = [run_xltcp(profile, stagger, s, args.flows) for s in seeds]
            print(
                f"| xltcp ({profile}) | {stagger} apart | {cell(rows, 'aggregate_bps', 1e6, '{:.1f}')} "
                f"| {cell(rows, 'jain')} | {cell(rows, 'jain_syn_timeout')} "
                f"| {cell(rows, 'jain_no_syn_timeout')} "
                f"| {cell(rows, 'flows_with_syn_timeout', 1, '{:.0f}')} "
                f"| {cell(rows, 'data_rtos', 1, '{:.0f}')} |",
                flush=True,
            )
    if args.ns3:
        for stagger_ms in (0.0, 1.0):
            rows = [run_ns3(stagger_ms, s, args.flows) for s in seeds]
            print(
                f"| ns-3 3.44 | {stagger_ms:g}ms apart | "
                f"{cell(rows, 'aggregate_bps', 1e6, '{:.1f}')} | {cell(rows, 'jain')} "
                "| - | - | - | - |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
