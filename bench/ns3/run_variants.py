#!/usr/bin/env python3
"""Vary the settings in which two ns-3 programs of the same scenario can differ,
one at a time, and measure what each changes.

The settings: how the application writes (`--sendSize`, `--bulkSendWrites`: one
MSS per write, as ns-3's BulkSendApplication with SendSize 1448), the wired
queue (`--wiredQueue`), how replications map onto ns-3's generator
(`--rngLayout`: RngRun = seed or RngSeed = seed; `--lossStream`: the error
model's stream fixed instead of ns-3's automatic assignment), the rule by which
the emulated-SACK fix clears its marks (`--fixRule`), and for the Gilbert chain
its stepping (`--order`, `--init`, `--ackChain`). "independent" is every
setting of the independently written program at once.

    python3 bench/ns3/run_variants.py lossy     # p 0.03, 0.05 x seeds 1..20, 60 s
    python3 bench/ns3/run_variants.py gilbert   # mean loss 0.05 x seeds 1..20, 100 s
    python3 bench/ns3/run_variants.py lossy --p 0 0.001 0.01 0.03 0.05 --variants ours independent

Writes every run to bench/out/ns3_variants_<scenario>.json (or --out; the runs
reported in bench/README.md are in bench/ns3/results/) and
prints mean goodput, timeouts, segments sent and the frame-loss rate seen, with
95 % Student-t intervals over the seeds, and the change against "ours".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ns3runs import mean_ci, pm, run_all, summarize, write_json

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "out"

# The settings of the independently written program, as options of ours.
INDEPENDENT = ["--sendSize=1448", "--bulkSendWrites=1", "--wiredQueue=1000", "--rngLayout=seed"]

LOSSY_VARIANTS = {
    "ours": [],
    "one MSS per write": ["--sendSize=1448", "--bulkSendWrites=1"],
    "wired queue 1000": ["--wiredQueue=1000"],
    "RngSeed = seed": ["--rngLayout=seed"],
    "loss stream 0": ["--lossStream=0"],
    "loss stream 1": ["--lossStream=1"],
    "fix at recovery exit": ["--fixRule=recovery-exit"],
    "fix on every ACK": ["--fixRule=every-ack"],
    "independent": INDEPENDENT + ["--lossStream=0"],
    # Not differences the other program is known to have: what it would take.
    "PRR recovery": ["--recovery=prr"],
    "ACK every segment": ["--delAckCount=1"],
}

GILBERT_VARIANTS = {
    "ours": [],
    "step-then-decide, start Good": ["--order=step-then-decide", "--init=good"],
    "one MSS per write": ["--sendSize=1448", "--bulkSendWrites=1"],
    "wired queue 1000": ["--wiredQueue=1000"],
    "RngSeed = seed": ["--rngLayout=seed"],
    "chain stream 0": ["--stream=0"],
    "ACKs step the chain": ["--ackChain=step"],
    "ACKs step it, lost in Bad": ["--ackChain=lose"],
    "independent": INDEPENDENT + ["--order=step-then-decide", "--init=good", "--stream=0"],
    "independent, ACKs step": INDEPENDENT
    + ["--order=step-then-decide", "--init=good", "--stream=0", "--ackChain=step"],
}

FIELDS = ["goodput_bps", "rto_count", "data_segments_sent", "retransmissions", "observed"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=["lossy", "gilbert"])
    ap.add_argument("--p", type=float, nargs="+", help="loss rates (lossy: 0.03 0.05; gilbert: mean loss 0.05)")
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 21)))
    ap.add_argument("--duration", type=float, help="seconds (lossy 60, gilbert 100)")
    ap.add_argument("--variants", nargs="+", help="names of the variants to run (default all)")
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    lossy = args.scenario == "lossy"
    table = LOSSY_VARIANTS if lossy else GILBERT_VARIANTS
    names = args.variants or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        print(f"unknown variant(s) {unknown}; known: {list(table)}", file=sys.stderr)
        return 2
    ps = args.p or ([0.03, 0.05] if lossy else [0.05])
    duration = args.duration or (60.0 if lossy else 100.0)
    binary = HERE / "build" / ("lossy_last_hop" if lossy else "gilbert")
    if not binary.exists():
        print(f"{binary} missing: run bench/ns3/build.sh first", file=sys.stderr)
        return 2
    loss_flag = "--p" if lossy else "--meanLoss"

    jobs = []
    for p in ps:
        for name in names:
            for seed in args.seeds:
                cmd = [str(binary), f"{loss_flag}={p}", f"--seed={seed}", f"--duration={duration}", *table[name]]
                jobs.append(({"variant": name, "loss": p}, cmd))
    runs = run_all(jobs, args.parallel)
    for r in runs:
        if lossy:
            frames = r["wireless_drops"] + r["data_arrivals_at_sh"]
            r["observed"] = r["wireless_drops"] / frames if frames else 0.0
        else:
            r["observed"] = r["observed_loss_rate"]
    rows = summarize(runs, ["loss", "variant"], FIELDS)
    out = args.out or OUT / f"ns3_variants_{args.scenario}.json"
    keep = ["variant", "loss", "seed", "goodput_bps", "rto_count", "data_segments_sent",
            "retransmissions", "observed", "wireless_drops", "data_arrivals_at_sh"]
    write_json(out, {
        "scenario": args.scenario,
        "duration_s": duration,
        "variants": {n: table[n] for n in names},
        "runs": [{k: r[k] for k in keep if k in r} for r in runs],
        "summary": rows,
    })

    loss_name = "p" if lossy else "mean loss"
    print(f"| {loss_name} | variant | goodput Mbit/s | vs ours | RTOs | segments sent | retransmissions | frame loss seen |")
    print("|---|---|---|---|---|---|---|---|")
    for p in ps:
        base = next((r for r in rows if r["loss"] == p and r["variant"] == "ours"), None)
        for r in (r for r in rows if r["loss"] == p):
            rel = ""
            if base and base["goodput_bps_mean"] > 0:
                rel = f"{(r['goodput_bps_mean'] / base['goodput_bps_mean'] - 1) * 100:+.1f}%"
            print(f"| {p:g} | {r['variant']} | {pm(r, 'goodput_bps', 1e6)} | {rel} | {pm(r, 'rto_count', 1, 1)} "
                  f"| {pm(r, 'data_segments_sent', 1, 0)} | {pm(r, 'retransmissions', 1, 0)} | {pm(r, 'observed', 1, 4)} |")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
