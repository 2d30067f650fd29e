#!/usr/bin/env python3
"""Throughput, dispatch lateness and CPU of the emulator's data path.

Runs one bulk download through a lossless point-to-point hop of each rate
(scenarios/lossy-last-hop.toml with its loss off, SACK on, a 10 Gbit/s
2 ms wired link, 1000-packet queues, so that Linux reno can fill the hop) on this
tree's emulator and, with --baseline-rev or --baseline-bin, on an earlier
one, alternating the two for each seed so both see the same load. Prints
one Markdown row per tree and rate: goodput against the oracle, dispatch
lateness (clock when a deadline was fired minus the deadline; median and
99th percentile), delivery delay (the model's instant of delivery to the
return of the write that carried the datagram to its host, where the
tree reports it), the data path's share of a core and its CPU seconds per
Gbit carried (all its threads), each the median over the seeds, and the
load average before each run and at the end.

Needs root (the emulator does). Examples:

    sudo python3 bench/emu_speed.py                          # this tree only
    sudo python3 bench/emu_speed.py --baseline-rev a13a32a   # against an earlier commit
    sudo python3 bench/emu_speed.py --rates 1Gbps --seeds 1 --duration 5s
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "lossy-last-hop.toml"
BIN = ROOT / "target" / "release" / "xltcp-emu"


def overrides(rate: str, duration: str) -> list[str]:
    """The --set overrides of one run: a lossless hop of `rate`."""
    sets = [
        f"sim.duration={duration}",
        f"wireless.rate={rate}",
        "wireless.loss.down.p=0",
        "wireless.queue=1000p",
        "wired.rate=10Gbps",
        "wired.delay=2ms",
        "wired.queue=1000p",
        # SACK on: without it NewReno repairs the slow-start overshoot of
        # a 1000-packet queue one segment per round trip, which takes most
        # of a 10 s run whatever the data path does.
        "tcp.sack=true",
    ]
    return [a for s in sets for a in ("--set", s)]


def run(binary: Path, rate: str, seed: int, duration: str) -> dict:
    """One emulation; the figures of its summary."""
    cmd = [str(binary), str(SCENARIO), "--seed", str(seed), *overrides(rate, duration)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    s = json.loads(proc.stdout)
    f, e = s["flows"][0], s["emu"]
    gbit = f["bytes_delivered"] * 8 / 1e9
    return {
        "goodput": f["goodput_bps"],
        "oracle": f["oracle_bps"],
        "median_us": e["lateness"]["median_us"],
        "p99_us": e["lateness"]["p99_us"],
        "delay_median_us": (e.get("delivery_delay") or {}).get("median_us"),
        "delay_p99_us": (e.get("delivery_delay") or {}).get("p99_us"),
        "cpu_share": e["cpu_share"],
        "cpu_per_gbit": e["cpu_s"] / gbit if gbit > 0 else float("nan"),
        "super_in": e.get("super_packets", 0),
        "super_out": e.get("super_packets_written", 0),
        "warnings": e["warnings"],
    }


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def build_baseline(rev: str) -> Path:
    """Builds the emulator of an earlier revision in a worktree of its own."""
    tree = ROOT / "target" / "baseline" / rev
    if not tree.exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev], cwd=ROOT, check=True)
    target = ROOT / "target" / "baseline-build"
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "xltcp-emu"], cwd=tree, check=True,
                   env={**os.environ, "CARGO_TARGET_DIR": str(target)})
    return target / "release" / "xltcp-emu"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", default="100Mbps,500Mbps,1Gbps", help="hop rates, comma-separated")
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N per rate and tree")
    ap.add_argument("--duration", default="10s", help="scenario duration of each run")
    ap.add_argument("--baseline-rev", help="also run the emulator built from this git revision")
    ap.add_argument("--baseline-bin", type=Path, help="also run this (earlier) xltcp-emu binary")
    ap.add_argument("--no-build", action="store_true", help="use target/release/xltcp-emu as it is")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("emu_speed.py needs root (the emulator does)", file=sys.stderr)
        return 2
    if not args.no_build:
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "xltcp-emu"], cwd=ROOT, check=True)
    trees = []
    if args.baseline_rev:
        trees.append((f"before ({args.baseline_rev[:8]})", build_baseline(args.baseline_rev)))
    elif args.baseline_bin:
        trees.append((f"before ({args.baseline_bin.name})", args.baseline_bin))
    trees.append(("after (this tree)", BIN))
    rates = [r.strip() for r in args.rates.split(",") if r.strip()]
    print(f"load average before: {load()}", file=sys.stderr)
    results: dict[tuple[str, str], list[dict]] = {}
    for rate in rates:
        for seed in range(1, args.seeds + 1):
            for name, binary in trees:
                before = load()
                r = run(binary, rate, seed, args.duration)
                results.setdefault((name, rate), []).append(r)
                delay = ""
                if r["delay_p99_us"] is not None:
                    delay = f", delivery delay p99 {r['delay_p99_us']:.0f} us"
                print(f"{name} {rate} seed {seed} (load {before}): "
                      f"{r['goodput'] / 1e6:.1f} Mbit/s of {r['oracle'] / 1e6:.1f}, "
                      f"lateness p99 {r['p99_us']:.0f} us{delay}, {r['cpu_share']:.2f} core, "
                      f"super-packets in/out {r['super_in']}/{r['super_out']}", file=sys.stderr)
    print(f"load average after: {load()}", file=sys.stderr)
    med = statistics.median
    print("| tree | hop | goodput (Mbit/s) | of oracle | lateness median / p99 (us) | "
          "delivery delay median / p99 (us) | data-path core share | CPU s per Gbit | "
          "runs behind (p99 > 1 ms) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for rate in rates:
        for name, _ in trees:
            rs = results[(name, rate)]
            behind = sum(any("could not keep up" in w for w in r["warnings"]) for r in rs)
            if any(r["delay_p99_us"] is None for r in rs):
                delay = "not measured"
            else:
                d50 = med(r["delay_median_us"] for r in rs)
                delay = f"{d50:.1f} / {med(r['delay_p99_us'] for r in rs):.0f}"
            print(f"| {name} | {rate} | {med(r['goodput'] for r in rs) / 1e6:.1f} | "
                  f"{med(r['goodput'] / r['oracle'] for r in rs):.0%} | "
                  f"{med(r['median_us'] for r in rs):.1f} / {med(r['p99_us'] for r in rs):.0f} | "
                  f"{delay} | "
                  f"{med(r['cpu_share'] for r in rs):.2f} | {med(r['cpu_per_gbit'] for r in rs):.2f} | "
                  f"{behind} of {len(rs)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
