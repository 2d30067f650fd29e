#!/usr/bin/env python3
"""Run the ns-3 lossy-last-hop reference scenario over a grid of loss rates and seeds.

Every replication is one process of bench/ns3/build/lossy_last_hop (build it with
bench/ns3/build.sh). Writes all runs plus per-configuration summaries to
bench/out/ns3_lossy.json and prints a table: mean goodput with a 95 % Student-t
confidence interval, and mean retransmissions, RTOs and duplicate arrivals.

By default it also repeats p = 0 and p = 0.01 with the emulated-SACK fix off, to
show what the fix changes, and once more with ns-3's stock BulkSendApplication
and TcpSocketBase, to check that "fix off" is exactly stock ns-3.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import sys
from pathlib import Path

from ns3runs import mean_ci, missing_binary, run_json, write_json

HERE = Path(__file__).resolve().parent
DEFAULT_BINARY = HERE / "build" / "lossy_last_hop"
DEFAULT_OUT = HERE.parent / "out" / "ns3_lossy.json"

# Sender variants: our socket with the fix, our socket without it, stock ns-3.
SENDERS = {
    "fix on": ["--fixEmulatedSack=1"],
    "fix off": ["--fixEmulatedSack=0"],
    "stock": ["--stockSender=1"],
}

# Fields that must agree between "fix off" and "stock" runs of the same (p, seed).
SAME_AS_STOCK = ("bytes_delivered", "data_segments_sent", "retransmissions", "wireless_drops")


def run_one(binary: Path, p: float, seed: int, duration: float, sender: str) -> dict:
    """Runs one replication and returns its JSON output, tagged with the sender variant."""
    cmd = [
        str(binary),
        f"--p={p}",
        f"--seed={seed}",
        f"--duration={duration}",
        *SENDERS[sender],
    ]
    run = run_json(cmd)
    run["sender"] = sender
    return run


def summarize(runs: list[dict]) -> list[dict]:
    """One summary row per (sender, p), in first-seen order."""
    groups: dict[tuple[str, float], list[dict]] = {}
    for run in runs:
        groups.setdefault((run["sender"], run["p"]), []).append(run)
    rows = []
    for (sender, p), group in groups.items():
        goodput, ci = mean_ci([r["goodput_bps"] for r in group])
        rows.append(
            {
                "p": p,
                "sender": sender,
                "n": len(group),
                "goodput_bps_mean": goodput,
                "goodput_bps_ci95": ci,
                "retransmissions_mean": statistics.fmean(r["retransmissions"] for r in group),
                "rto_count_mean": (
                    statistics.fmean(r["rto_count"] for r in group) if sender != "stock" else None
                ),
                "duplicate_arrivals_mean": statistics.fmean(
                    r["duplicate_arrivals_at_sh"] for r in group
                ),
                "last_duplicate_arrival_s_max": max(r["last_duplicate_arrival_s"] for r in group),
                "wireless_drops_mean": statistics.fmean(r["wireless_drops"] for r in group),
                "queue_drops_mean": statistics.fmean(r["queue_drops"] for r in group),
            }
        )
    return rows


def check_stock(runs: list[dict]) -> bool | None:
    """Whether every stock run matches the fix-off run of the same (p, seed); None if no pairs."""
    fix_off = {(r["p"], r["seed"]): r for r in runs if r["sender"] == "fix off"}
    pairs = [(r, fix_off.get((r["p"], r["seed"]))) for r in runs if r["sender"] == "stock"]
    pairs = [(a, b) for a, b in pairs if b is not None]
    if not pairs:
        return None
    return all(a[k] == b[k] for a, b in pairs for k in SAME_AS_STOCK)


def print_table(rows: list[dict]) -> None:
    """Prints the summary as a Markdown table."""
    print(
        "| p | sender | n | goodput Mbit/s (mean ± 95% CI) | retransmissions | RTOs "
        "| duplicate arrivals | last duplicate (s) | wireless drops | queue drops |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        last = r["last_duplicate_arrival_s_max"]
        last_dup = "none" if last < 0 else f"{last:.1f}"
        print(
            f"| {r['p']:g} | {r['sender']} | {r['n']} "
            f"| {r['goodput_bps_mean'] / 1e6:.3f} ± {r['goodput_bps_ci95'] / 1e6:.3f} "
            f"| {r['retransmissions_mean']:.1f} "
            f"| {'n/a' if r['rto_count_mean'] is None else format(r['rto_count_mean'], '.1f')} "
            f"| {r['duplicate_arrivals_mean']:.1f} | {last_dup} "
            f"| {r['wireless_drops_mean']:.1f} "
            f"| {r['queue_drops_mean']:.1f} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--ps", type=float, nargs="+", default=[0.0, 0.001, 0.01, 0.05])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument(
        "--fix-off-ps",
        type=float,
        nargs="*",
        default=[0.0, 0.01],
        help="loss rates to repeat with the emulated-SACK fix off and with stock ns-3 (none: skip)",
    )
    args = parser.parse_args()

    if missing_binary(args.binary):
        return 1

    grid = [(p, "fix on") for p in args.ps]
    grid += [(p, "fix off") for p in args.fix_off_ps] + [(p, "stock") for p in args.fix_off_ps]
    runs = []
    for p, sender in grid:
        for seed in args.seeds:
            run = run_one(args.binary, p, seed, args.duration, sender)
            runs.append(run)
            print(
                f"p={p:g} sender={sender} seed={seed}: "
                f"{run['goodput_bps'] / 1e6:.3f} Mbit/s, {run['retransmissions']} retx, "
                f"{run['rto_count']} RTOs, {run['wall_seconds']:.2f} s wall",
                file=sys.stderr,
            )

    rows = summarize(runs)
    stock_matches = check_stock(runs)
    result = {
        "scenario": "lossy_last_hop",
        "ns3_version": importlib.metadata.version("ns3"),
        "duration_s": args.duration,
        "seeds": args.seeds,
        "summary": rows,
        "fix_off_equals_stock": stock_matches,
        "runs": runs,
    }
    write_json(args.out, result)
    print_table(rows)
    if stock_matches is not None:
        print(f"\n'fix off' identical to stock ns-3 in {SAME_AS_STOCK}: {stock_matches}")
    print(f"\nwrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
