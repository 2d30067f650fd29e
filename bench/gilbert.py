#!/usr/bin/env python3
"""xltcp against ns-3 under Gilbert-Elliott bursts on the last hop.

scenarios/lossy-last-hop.toml with a simple Gilbert chain on the data
direction (mean burst 3 frames, mean loss 0.01, 0.05, 0.1), 100 s, seeds
1-10, against bench/ns3/run_gilbert.py's runs (decide-then-step, stationary
start: what xltcp's chain does). Prints mean goodput, retransmissions and
timeouts with 95% confidence intervals, and the frame-loss rate each tool
observed on the data direction.

    python3 bench/gilbert.py
    python3 bench/gilbert.py --ns3-variants bench/ns3/results/ns3_variants_gilbert.json
        # xltcp over that file's seeds beside each of its ns-3 variants
        # (bench/ns3/run_variants.py gilbert); markdown table
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blockage import ROOT, RUNNER, ci95  # noqa: E402

SCENARIO = ROOT / "scenarios" / "lossy-last-hop.toml"


def run_xltcp(mean_loss: float, seed: int, profile: str, steps: str = "own") -> dict:
    sets = [
        f"wireless.loss.down.steps={steps}",
        "sim.duration=100s",
        f"tcp.profile={profile}",
        "wireless.loss.down.model=gilbert",
        f"wireless.loss.down.mean_loss={mean_loss}",
        "wireless.loss.down.mean_burst=3",
    ]
    text = "\n".join(l for l in SCENARIO.read_text().splitlines() if not l.startswith("p = "))
    tmp = ROOT / "target" / "gilbert-scenario.toml"
    tmp.write_text(text)
    args = [str(RUNNER), str(tmp), "--seed", str(seed)]
    for s in sets:
        args += ["--set", s]
    d = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    f = d["flows"][0]
    air = next(l for l in d["links"] if l["name"] == "bs-air")
    lost = air["drops"]["loss"]
    sent = air["transmitted"]
    return {"goodput_bps": f["goodput_bps"], "retransmissions": f["retransmissions"],
            "rto_count": f["rto_count"], "observed": lost / sent if sent else 0.0,
            "segments_sent": f.get("segments_sent", f.get("data_segments_sent", math.nan))}


def variants_table(path: Path, names: list[str] | None, profiles: list[str], steps: list[str]) -> int:
    """xltcp's profiles beside the ns-3 variants of a run_variants.py gilbert file."""
    data = json.loads(path.read_text())
    runs = data["runs"]
    variants = names or list(dict.fromkeys(r["variant"] for r in runs))
    print("| mean loss | tool | goodput Mbit/s | RTOs | segments sent | frame loss seen | xltcp (ns3) / this |")
    print("|---|---|---|---|---|---|---|")
    for mean_loss in sorted({r["loss"] for r in runs}):
        seeds = sorted({r["seed"] for r in runs if r["loss"] == mean_loss})
        tools = [(f"xltcp ({p})" + ("" if st == "own" else f", steps = {st}"),
                  [run_xltcp(mean_loss, s, p, st) for s in seeds]) for st in steps for p in profiles]
        tools += [(f"ns-3 3.44, {v}", [r for r in runs if r["loss"] == mean_loss and r["variant"] == v])
                  for v in variants]
        ref = statistics.mean(x["goodput_bps"] for x in tools[0][1]) if profiles else None
        for name, xs in tools:
            g = [x["goodput_bps"] / 1e6 for x in xs]
            seg = [x.get("data_segments_sent", x.get("segments_sent", math.nan)) for x in xs]
            ratio = f"{ref / 1e6 / statistics.mean(g):.2f}" if ref and statistics.mean(g) else ""
            print(f"| {mean_loss:g} | {name} | {statistics.mean(g):.3f} ± {ci95(g):.3f} "
                  f"| {statistics.mean(x['rto_count'] for x in xs):.1f} | {statistics.mean(seg):.0f} "
                  f"| {statistics.mean(x['observed'] for x in xs):.4f} | {ratio} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-json", type=Path, default=ROOT / "bench" / "ns3" / "results" / "ns3_gilbert.json")
    ap.add_argument("--ns3-variants", type=Path, help="a bench/ns3/run_variants.py gilbert file")
    ap.add_argument("--variants", nargs="+", help="names of the variants of --ns3-variants to show (default all)")
    ap.add_argument("--profiles", default="ns3,rfc")
    ap.add_argument("--steps", default="own",
                    help="xltcp's [wireless.loss.down] steps values of the --ns3-variants table, e.g. own,both")
    args = ap.parse_args()
    if args.ns3_variants:
        subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True)
        return variants_table(args.ns3_variants, args.variants, args.profiles.split(","),
                              args.steps.split(","))
    ns3 = json.loads(args.ns3_json.read_text())
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True)
    print(f"{'loss':<6}{'tool':<16}{'goodput Mbit/s':>20}{'retx':>13}{'RTOs':>12}{'observed':>10}{'diff':>8}")
    for mean_loss in (0.01, 0.05, 0.1):
        runs = [r for r in ns3["runs"] if r["mean_loss"] == mean_loss
                and r["order"] == "decide-then-step" and r["init"] == "stationary"]
        seeds = sorted(r["seed"] for r in runs)

        def row(name, xs, diff=""):
            g = [x["goodput_bps"] / 1e6 for x in xs]
            rx = [x["retransmissions"] for x in xs]
            rt = [x["rto_count"] for x in xs]
            ob = [x["observed"] for x in xs]
            print(f"{mean_loss:<6}{name:<16}{statistics.mean(g):>11.3f} ± {ci95(g):<6.3f}"
                  f"{statistics.mean(rx):>8.0f} ± {ci95(rx):<4.0f}{statistics.mean(rt):>6.1f} ± {ci95(rt):<4.1f}"
                  f"{statistics.mean(ob):>10.4f}{diff:>8}")
            return statistics.mean(g)

        ref = row("ns-3 3.44", [dict(r, observed=r["observed_loss_rate"]) for r in runs])
        for profile in args.profiles.split(","):
            xs = [run_xltcp(mean_loss, seed, profile) for seed in seeds]
            g = statistics.mean(x["goodput_bps"] / 1e6 for x in xs)
            row(f"xltcp ({profile})", xs, f"{(g / ref - 1) * 100:+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
