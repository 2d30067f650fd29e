#!/usr/bin/env python3
"""Run the ns-3 primary-user blockage reference scenario over two hop configurations and seeds.

Every replication is one process of bench/ns3/build/blockage (build it with
bench/ns3/build.sh), at most --parallel at a time. Writes all runs plus
per-configuration summaries to bench/out/ns3_blockage.json, the PU schedule
of every (configuration, seed) to bench/out/blockage-intervals/, and prints
a table of means with 95 % Student-t confidence intervals.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from pathlib import Path

from ns3runs import missing_binary, pm, run_all, summarize, write_json

HERE = Path(__file__).resolve().parent
DEFAULT_BINARY = HERE / "build" / "blockage"
DEFAULT_OUT = HERE.parent / "out" / "ns3_blockage.json"
DEFAULT_INTERVALS = HERE.parent / "out" / "blockage-intervals"

# The two hop configurations (everything else at the program's defaults:
# wired 100 Mbit/s, wireless delay 1 ms, wireless queues 100 packets).
CONFIGS = {
    "a": {
        "desc": "10 Mbit/s hop, MSS 1448 B, wired 100 Mbit/s 10 ms",
        "args": ["--wirelessRate=10Mbps", "--mss=1448", "--wiredDelay=10ms"],
    },
    "b": {
        "desc": "250 kbit/s hop, MSS 95 B, wired 100 Mbit/s 1 ms",
        "args": ["--wirelessRate=250kbps", "--mss=95", "--wiredDelay=1ms"],
    },
}

FIELDS = [
    "goodput_bps",
    "retransmissions",
    "rto_count",
    "max_rto_s",
    "blocked_s",
    "mean_idle_after_blockage_s",
    "mean_idle_after_blockage_censored_s",
    "no_delivery_fraction",
    "mean_idle_to_app_delivery_s",
    "wireless_drops",
    "wireless_queue_drops",
    "wired_queue_drops",
    "data_segments_sent",
    "events",
    "wall_seconds",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--intervals-dir", type=Path, default=DEFAULT_INTERVALS)
    parser.add_argument("--duration", type=float, default=600.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--wired-queue", type=int, default=100, help="wired queues, packets")
    parser.add_argument("--p", type=float, default=0.0, help="extra i.i.d. loss, data direction")
    parser.add_argument(
        "--pu-rule",
        default="rx-end",
        choices=["rx-end", "airtime"],
        help="which frames the PU destroys (see blockage.cc)",
    )
    parser.add_argument("--parallel", type=int, default=2, help="processes at a time")
    args = parser.parse_args()

    if missing_binary(args.binary):
        return 1
    args.intervals_dir.mkdir(parents=True, exist_ok=True)

    jobs = []
    for name in args.configs:
        for seed in args.seeds:
            intervals = args.intervals_dir / f"{name}-seed{seed}.txt"
            cmd = [
                str(args.binary),
                *CONFIGS[name]["args"],
                f"--seed={seed}",
                f"--duration={args.duration}",
                f"--wiredQueue={args.wired_queue}",
                f"--p={args.p}",
                f"--puRule={args.pu_rule}",
                f"--intervalsOut={intervals}",
            ]
            jobs.append(({"config": name}, cmd))

    def log(r: dict) -> None:
        print(
            f"config={r['config']} seed={r['seed']}: {r['goodput_bps'] / 1e3:.1f} kbit/s, "
            f"{r['retransmissions']} retx, {r['rto_count']} RTOs, max RTO {r['max_rto_s']:g} s, "
            f"{r['wall_seconds']:.1f} s wall",
            file=sys.stderr,
        )

    runs = run_all(jobs, args.parallel, log)
    rows = summarize(runs, ["config"], FIELDS)
    for row in rows:
        row["desc"] = CONFIGS[row["config"]]["desc"]
    result = {
        "scenario": "blockage",
        "ns3_version": importlib.metadata.version("ns3"),
        "duration_s": args.duration,
        "seeds": args.seeds,
        "wired_queue_p": args.wired_queue,
        "p": args.p,
        "pu_rule": args.pu_rule,
        "configs": {k: CONFIGS[k] for k in args.configs},
        "summary": rows,
        "runs": runs,
    }
    write_json(args.out, result)

    print(
        "| config | n | goodput kbit/s | retransmissions | RTOs | max RTO (s) | blocked (s) "
        "| mean idle after blockage (s) | idle, censored (s) | no-delivery fraction "
        "| PU drops | queue drops (wireless / wired) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['config']}: {r['desc']} | {r['n']} | {pm(r, 'goodput_bps', 1e3, 1)} "
            f"| {pm(r, 'retransmissions', 1, 0)} | {pm(r, 'rto_count', 1, 1)} "
            f"| {pm(r, 'max_rto_s', 1, 1)} | {pm(r, 'blocked_s', 1, 1)} "
            f"| {pm(r, 'mean_idle_after_blockage_s', 1, 2)} "
            f"| {pm(r, 'mean_idle_after_blockage_censored_s', 1, 2)} "
            f"| {pm(r, 'no_delivery_fraction', 1, 3)} | {pm(r, 'wireless_drops', 1, 0)} "
            f"| {r['wireless_queue_drops_mean']:.1f} / {r['wired_queue_drops_mean']:.1f} |"
        )
    print(f"\nwrote {args.out} and {args.intervals_dir}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
