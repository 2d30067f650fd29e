#!/usr/bin/env python3
"""Run the ns-3 Gilbert burst-loss reference scenario over mean losses, chain variants and seeds.

Every replication is one process of bench/ns3/build/gilbert (build it with
bench/ns3/build.sh), at most --parallel at a time. Also drives the chain alone
(--chainOnly) for each mean loss and variant, to separate the chain from TCP.
Writes bench/out/ns3_gilbert.json and prints the summary table.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import sys
from pathlib import Path

from ns3runs import pm, run_all, run_json, summarize, write_json

HERE = Path(__file__).resolve().parent
DEFAULT_BINARY = HERE / "build" / "gilbert"
DEFAULT_OUT = HERE.parent / "out" / "ns3_gilbert.json"

# (order, initial state); the first is the one xltcp uses.
VARIANTS = [
    ("decide-then-step", "stationary"),
    ("decide-then-step", "good"),
    ("step-then-decide", "stationary"),
    ("step-then-decide", "good"),
]

# Per-run fields kept in the output file (the program prints more).
RUN_KEYS = [
    "seed", "mean_loss", "order", "init", "initial_bad", "goodput_bps", "bytes_delivered",
    "data_segments_sent", "retransmissions", "rto_count", "chain_frames", "chain_losses",
    "loss_bursts", "observed_loss_rate", "mean_observed_burst", "queue_drops",
    "duplicate_arrivals_at_sh", "events", "wall_seconds",
]

FIELDS = [
    "goodput_bps",
    "retransmissions",
    "rto_count",
    "observed_loss_rate",
    "mean_observed_burst",
    "chain_frames",
    "chain_losses",
    "loss_bursts",
    "queue_drops",
    "wall_seconds",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--duration", type=float, default=100.0)
    parser.add_argument("--mean-losses", type=float, nargs="+", default=[0.01, 0.05, 0.1])
    parser.add_argument("--mean-burst", type=float, default=3.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    parser.add_argument("--chain-frames", type=int, default=1_000_000)
    parser.add_argument("--parallel", type=int, default=2, help="processes at a time")
    parser.add_argument("--no-runs", action="store_true", help="leave the per-run list out")
    args = parser.parse_args()

    if not args.binary.exists():
        print(f"{args.binary} not found: run bench/ns3/build.sh first", file=sys.stderr)
        return 1

    def cmd(loss: float, order: str, init: str, seed: int, extra: list[str]) -> list[str]:
        return [
            str(args.binary),
            f"--meanLoss={loss}",
            f"--meanBurst={args.mean_burst}",
            f"--order={order}",
            f"--init={init}",
            f"--seed={seed}",
            f"--duration={args.duration}",
            *extra,
        ]

    jobs = [
        ({}, cmd(loss, order, init, seed, []))
        for loss in args.mean_losses
        for order, init in VARIANTS
        for seed in args.seeds
    ]

    def log(r: dict) -> None:
        print(
            f"loss={r['mean_loss']:g} {r['order']} {r['init']} seed={r['seed']}: "
            f"{r['goodput_bps'] / 1e6:.3f} Mbit/s, {r['rto_count']} RTOs, observed "
            f"{r['observed_loss_rate']:.4f} over {r['chain_frames']} frames",
            file=sys.stderr,
        )

    runs = run_all(jobs, args.parallel, log)
    rows = summarize(runs, ["mean_loss", "order", "init"], FIELDS)
    for row in rows:
        group = [
            r
            for r in runs
            if (r["mean_loss"], r["order"], r["init"]) == (row["mean_loss"], row["order"], row["init"])
        ]
        frames = sum(r["chain_frames"] for r in group)
        losses = sum(r["chain_losses"] for r in group)
        bursts = sum(r["loss_bursts"] for r in group)
        row["pooled_loss_rate"] = losses / frames if frames else None
        row["observed_loss_rate_median"] = statistics.median(r["observed_loss_rate"] for r in group)
        row["pooled_mean_burst"] = losses / bursts if bursts else None

    # The chain alone, long enough to show its stationary loss and burst.
    chain_only = [
        run_json(cmd(loss, order, init, 1, [f"--chainOnly={args.chain_frames}"]))
        for loss in args.mean_losses
        for order, init in VARIANTS
    ]

    write_json(
        args.out,
        {
            "scenario": "gilbert",
            "ns3_version": importlib.metadata.version("ns3"),
            "duration_s": args.duration,
            "mean_burst": args.mean_burst,
            "seeds": args.seeds,
            "summary": rows,
            "chain_only": chain_only,
            "runs": [] if args.no_runs else [{k: r[k] for k in RUN_KEYS} for r in runs],
        },
    )

    print(
        "| mean loss | order | initial state | n | goodput Mbit/s | retransmissions | RTOs "
        "| frames seen | observed loss (per-run mean) | per-run median | pooled loss "
        "| pooled mean burst |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['mean_loss']:g} | {r['order']} | {r['init']} | {r['n']} "
            f"| {pm(r, 'goodput_bps', 1e6, 3)} | {pm(r, 'retransmissions', 1, 0)} "
            f"| {pm(r, 'rto_count', 1, 1)} | {r['chain_frames_mean']:.0f} "
            f"| {pm(r, 'observed_loss_rate', 1, 4)} | {r['observed_loss_rate_median']:.4f} "
            f"| {r['pooled_loss_rate']:.4f} "
            f"| {r['pooled_mean_burst']:.2f} |"
        )
    print(f"\nchain alone, {args.chain_frames} frames, seed 1:")
    for c in chain_only:
        print(
            f"  loss {c['mean_loss']:g} {c['order']} {c['init']}: observed "
            f"{c['observed_loss_rate']:.5f}, mean burst {c['mean_observed_burst']:.3f}"
        )
    print(f"\nwrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
