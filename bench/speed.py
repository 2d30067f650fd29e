#!/usr/bin/env python3
"""Speed and memory of xltcp against ns-3 on the same many-flow scenario.

Runs, each in its own process so that peak memory is its own:
  * xltcp on scenarios/many-flows.toml for the given simulated durations;
  * ns-3 3.44 on bench/ns3/many_flows.cc (built by bench/ns3/build.sh) for
    the first duration.
Prints simulated packets per wall-second, events per wall-second, peak RSS
and the ratios. Packets are link transmissions (every hop of every packet)
in both tools.

    python3 bench/speed.py                    # 60 s, and 600 s for xltcp memory
    python3 bench/speed.py --durations 60     # quicker
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "many-flows.toml"
NS3_BIN = ROOT / "bench" / "ns3" / "build" / "many_flows"

RUNNER = ROOT / "target" / "release" / "examples" / "run"


def peak_rss_of(cmd: list[str]) -> tuple[dict, int]:
    """Runs cmd, returns its JSON output (last line) and its own peak RSS in bytes."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed with status {proc.returncode}")
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        result = json.loads(out.strip().splitlines()[-1])
    return result, usage.ru_maxrss * 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--durations", default="60,600", help="simulated seconds for xltcp, comma-separated (default 60,600)")
    ap.add_argument("--no-ns3", action="store_true", help="skip ns-3")
    ap.add_argument("--ns3-json", type=Path, help="reuse an earlier ns-3 result (bench/out/ns3_many_flows_60s.json)")
    args = ap.parse_args()
    durations = [int(d) for d in args.durations.split(",")]

    rows = []
    # The core's own runner (no Python interpreter in the measured process).
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True)
    for d in durations:
        r, rss = peak_rss_of([str(RUNNER), str(SCENARIO), "--set", f"sim.duration={d}s"])
        rows.append(("xltcp", d, r["packets"], r["events"], r["wall_seconds"], rss))

    ns3 = None
    if args.ns3_json:
        r = json.loads(args.ns3_json.read_text())
        ns3 = ("ns-3 3.44", int(r["duration_s"]), r["packets"], r["events"], r["wall_seconds_run"], r["peak_rss_bytes"])
        rows.append(ns3)
    elif not args.no_ns3:
        if not NS3_BIN.exists():
            print(f"ns-3 binary {NS3_BIN} missing: run bench/ns3/build.sh (skipping ns-3)", file=sys.stderr)
        else:
            d = durations[0]
            r, _ = peak_rss_of([str(NS3_BIN), f"--duration={d}"])
            ns3 = ("ns-3 3.44", d, r["packets"], r["events"], r["wall_seconds_run"], r["peak_rss_bytes"])
            rows.append(ns3)

    print(f"{'tool':<10} {'sim s':>6} {'packets':>12} {'events':>12} {'wall s':>8} {'pkts/s':>12} {'events/s':>12} {'peak RSS':>10}")
    for tool, d, pk, ev, wall, rss in rows:
        print(f"{tool:<10} {d:>6} {pk:>12} {ev:>12} {wall:>8.2f} {pk / wall:>12.0f} {ev / wall:>12.0f} {rss / 2**20:>8.1f}MiB")
    if ns3:
        x = rows[0]
        print(f"xltcp / ns-3: {(x[2] / x[4]) / (ns3[2] / ns3[4]):.1f}x packets per wall-second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
