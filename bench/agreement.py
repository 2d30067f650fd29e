#!/usr/bin/env python3
"""Agreement of xltcp with ns-3 3.44 on the lossy-last-hop scenario.

CH --100 Mbit/s, 10 ms-- BS --10 Mbit/s, 1 ms-- SH, i.i.d. loss p on the data
direction of the wireless hop, NewReno with classic recovery, SACK and
timestamps off, MSS 1448 B, IW 10, delayed ACK 2 / 200 ms, min RTO 1 s, 60 s.

Runs xltcp (scenarios/lossy-last-hop.toml) and ns-3 (bench/ns3/build/
lossy_last_hop, built by bench/ns3/build.sh) for each p and seed and prints
mean goodput with its 95% confidence interval, retransmissions, and the
difference.

    python3 bench/agreement.py                        # p in 0,0.001,0.01,0.05; seeds 1..5
    python3 bench/agreement.py --profile ns3          # xltcp with its ns-3 behaviour profile
    python3 bench/agreement.py --ns3-json FILE        # reuse earlier ns-3 results
    python3 bench/agreement.py --ns3-variants bench/ns3/results/ns3_lossy_20seeds.json
        # every ns-3 variant of that file (bench/ns3/run_variants.py) beside xltcp's
        # profiles, over the file's loss rates and seeds; markdown table
    python3 bench/agreement.py --table
        # the agreement table: xltcp's ns3 profile against ns-3 on the
        # lossy hop (p in 0..0.05, 60 s) and under Gilbert bursts (mean loss 0.01,
        # 0.05, 0.1, mean burst 3, 100 s), seeds per case from --table-seeds;
        # ns-3 runs are kept in --cache and reused; markdown table on stdout
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from xltcp import _core
from xltcp.stats import mean_ci

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "lossy-last-hop.toml"
NS3_BIN = ROOT / "bench" / "ns3" / "build" / "lossy_last_hop"
NS3_GILBERT = ROOT / "bench" / "ns3" / "build" / "gilbert"
# Seeds per case of --table: enough for a 95% interval of about 2% of the
# mean at the i.i.d. loss rates (run-to-run sd about 10% of the mean at
# p = 0.05); Gilbert runs spread far more (sd 60-100% of the mean).
TABLE_SEEDS = (
    "iid:0=5,iid:0.001=200,iid:0.01=200,iid:0.03=200,iid:0.05=200,"
    "gilbert:0.01=1000,gilbert:0.05=1000,gilbert:0.1=1000"
)


def xltcp_run(p: float, seed: int, profile: str, duration: int) -> dict:
    overrides = [
        f"wireless.loss.down.p={p}",
        f'tcp.profile="{profile}"',
        f"sim.duration={duration}s",
    ]
    s = json.loads(_core.run(str(SCENARIO), seed, None, overrides, None))
    f = s["flows"][0]
    return {
        "goodput_bps": f["goodput_bps"],
        "retransmissions": f["retransmissions"],
        "rto_count": f["rto_count"],
    }


def ns3_run(p: float, seed: int, duration: int) -> dict:
    out = subprocess.run(
        [str(NS3_BIN), f"--p={p}", f"--seed={seed}", f"--duration={duration}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def gilbert_xltcp(mean_loss: float, seed: int, profile: str) -> dict:
    """xltcp on the lossy hop with bench/gilbert.py's Gilbert chain (mean burst 3, 100 s)."""
    lines = SCENARIO.read_text().splitlines()
    text = "\n".join(line for line in lines if not line.startswith("p = "))
    tmp = ROOT / "bench" / "out" / "gilbert-scenario.toml"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    if not tmp.exists() or tmp.read_text() != text:
        tmp.write_text(text)
    overrides = [
        'wireless.loss.down.steps="own"',
        "sim.duration=100s",
        f'tcp.profile="{profile}"',
        'wireless.loss.down.model="gilbert"',
        f"wireless.loss.down.mean_loss={mean_loss}",
        "wireless.loss.down.mean_burst=3",
    ]
    f = json.loads(_core.run(str(tmp), seed, None, overrides, None))["flows"][0]
    return {k: f[k] for k in ("goodput_bps", "retransmissions", "rto_count")}


def gilbert_ns3(mean_loss: float, seed: int) -> dict:
    out = subprocess.run(
        [
            str(NS3_GILBERT),
            f"--meanLoss={mean_loss}",
            "--meanBurst=3",
            f"--seed={seed}",
            "--duration=100",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def save_cache(path: Path, cache: dict) -> None:
    """Writes the ns-3 runs of --table, one run a line, sorted (small diffs when it grows)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{json.dumps(k)}: {json.dumps(cache[k])}" for k in sorted(cache, key=cache_order)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def cache_order(key: str) -> tuple:
    kind, loss, seed = key.split(":")
    return (kind, float(loss), int(seed))


def agreement_table(spec: str, profile: str, cache_path: Path, out: Path) -> int:
    """xltcp against ns-3 per case of `spec` ("kind:loss=seeds,..."), with 95% intervals."""
    for b in (NS3_BIN, NS3_GILBERT):
        if not b.exists():
            print(f"{b} missing: run bench/ns3/build.sh first", file=sys.stderr)
            return 2
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    print(
        f"xltcp profile {profile} against ns-3 3.44; goodput Mbit/s, mean ± 95% CI (Student t), "
        "CI also as % of the mean; diff = xltcp/ns-3 - 1 with the interval of the difference "
        "of the means relative to ns-3's"
    )
    print()
    print(
        "| case | seeds | ns-3 goodput | CI % | xltcp goodput | CI % | diff | ns-3 RTOs "
        "| xltcp RTOs | ns-3 retx | xltcp retx |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for item in spec.split(","):
        case, n = item.split("=")
        kind, loss_s = case.split(":")
        loss, seeds = float(loss_s), range(1, int(n) + 1)
        ns, xs = [], []
        fresh = 0
        for seed in seeds:
            key = f"{kind}:{loss:g}:{seed}"
            if key not in cache:
                r = ns3_run(loss, seed, 60) if kind == "iid" else gilbert_ns3(loss, seed)
                cache[key] = {k: r[k] for k in ("goodput_bps", "retransmissions", "rto_count")}
                fresh += 1
                if fresh % 25 == 0:  # an interrupted run keeps what it has done
                    save_cache(cache_path, cache)
            ns.append(cache[key])
            if kind == "iid":
                xs.append(xltcp_run(loss, seed, profile, 60))
            else:
                xs.append(gilbert_xltcp(loss, seed, profile))
        save_cache(cache_path, cache)
        nm, nh = mean_ci([r["goodput_bps"] / 1e6 for r in ns])
        xm, xh = mean_ci([r["goodput_bps"] / 1e6 for r in xs])
        diff = (xm / nm - 1) * 100 if nm else float("nan")
        dh = (nh**2 + xh**2) ** 0.5 / nm * 100 if nm else float("nan")

        def avg(rs: list[dict], k: str) -> float:
            return sum(r[k] for r in rs) / len(rs)

        label = f"i.i.d. p = {loss:g}" if kind == "iid" else f"Gilbert mean loss {loss:g}"
        print(
            f"| {label} | {len(ns)} | {nm:.4f} ± {nh:.4f} | {nh / nm * 100 if nm else 0:.1f} "
            f"| {xm:.4f} ± {xh:.4f} | {xh / xm * 100 if xm else 0:.1f} | {diff:+.1f}% ± {dh:.1f} "
            f"| {avg(ns, 'rto_count'):.1f} | {avg(xs, 'rto_count'):.1f} "
            f"| {avg(ns, 'retransmissions'):.0f} | {avg(xs, 'retransmissions'):.0f} |"
        )
        rows.append(
            {
                "kind": kind,
                "loss": loss,
                "seeds": len(ns),
                "ns3_mbps": nm,
                "ns3_ci": nh,
                "xltcp_mbps": xm,
                "xltcp_ci": xh,
                "diff_pct": diff,
                "diff_ci_pct": dh,
            }
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"profile": profile, "rows": rows}, indent=2) + "\n")
    return 0


def variants_table(path: Path, profiles: list[str]) -> int:
    """xltcp's profiles beside every ns-3 variant of a run_variants.py file."""
    data = json.loads(path.read_text())
    duration = int(data["duration_s"])
    runs = data["runs"]
    variants = list(dict.fromkeys(r["variant"] for r in runs))
    ps = sorted({r["loss"] for r in runs})
    head = "| p | tool | goodput Mbit/s | RTOs | retransmissions |" + "".join(
        f" vs {v} |" for v in variants
    )
    print(head)
    print("|---" * (5 + len(variants)) + "|")
    rows = []
    for p in ps:
        groups = {v: [r for r in runs if r["variant"] == v and r["loss"] == p] for v in variants}
        seeds = sorted({r["seed"] for r in groups[variants[0]]})
        means = {v: mean_ci([r["goodput_bps"] / 1e6 for r in g]) for v, g in groups.items()}
        tools = [(f"ns-3 3.44, {v}", groups[v]) for v in variants]
        tools += [
            (f"xltcp ({pr})", [xltcp_run(p, s, pr, duration) for s in seeds]) for pr in profiles
        ]
        for name, xs in tools:
            m, h = mean_ci([r["goodput_bps"] / 1e6 for r in xs])
            rto = sum(r["rto_count"] for r in xs) / len(xs)
            retx = sum(r["retransmissions"] for r in xs) / len(xs)
            diffs = "".join(
                f" {(m / means[v][0] - 1) * 100:+.1f}% |" if means[v][0] else " |" for v in variants
            )
            print(f"| {p:g} | {name} | {m:.3f} ± {h:.3f} | {rto:.1f} | {retx:.0f} |{diffs}")
            rows.append(
                {
                    "p": p,
                    "tool": name,
                    "n": len(xs),
                    "goodput_mbps": m,
                    "ci95": h,
                    "rto_count": rto,
                    "retransmissions": retx,
                }
            )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--ns3-variants",
        type=Path,
        help="a bench/ns3/run_variants.py lossy file: compare with each of its variants",
    )
    ap.add_argument(
        "--profiles", default="ns3,rfc", help="xltcp profiles of the --ns3-variants table"
    )
    ap.add_argument("--p", default="0,0.001,0.01,0.05")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", type=int, default=60)
    ap.add_argument("--profile", default="rfc", choices=["rfc", "ns3"])
    ap.add_argument(
        "--ns3-json",
        type=Path,
        help="ns-3 results of an earlier run "
        "(bench/ns3/run_lossy.py writes bench/out/ns3_lossy.json)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "agreement.json")
    ap.add_argument(
        "--table", action="store_true", help="the lossy-hop and Gilbert agreement table"
    )
    ap.add_argument(
        "--table-seeds", default=TABLE_SEEDS, help="cases and seeds of --table: kind:loss=seeds,..."
    )
    ap.add_argument(
        "--cache",
        type=Path,
        default=ROOT / "bench" / "ns3" / "results" / "ns3_agreement_runs.json",
        help="ns-3 runs of --table, reused across invocations",
    )
    args = ap.parse_args()
    if args.table:
        profile = "ns3" if args.profile == "rfc" and "--profile" not in sys.argv else args.profile
        out = args.out if "--out" in sys.argv else ROOT / "bench" / "out" / "agreement_table.json"
        return agreement_table(args.table_seeds, profile, args.cache, out)
    if args.ns3_variants:
        return variants_table(args.ns3_variants, args.profiles.split(","))
    ps = [float(x) for x in args.p.split(",")]
    seeds = range(1, args.seeds + 1)

    cached = {}
    if args.ns3_json:
        data = json.loads(args.ns3_json.read_text())
        runs = data["runs"] if isinstance(data, dict) else data
        for r in runs:
            if r.get("fix_emulated_sack", True):
                cached[(float(r["p"]), int(r["seed"]))] = r
    elif not NS3_BIN.exists():
        print(f"{NS3_BIN} missing: run bench/ns3/build.sh first", file=sys.stderr)
        return 2

    rows = []
    print(f"xltcp profile: {args.profile}; {args.seeds} seeds x {args.duration} s")
    print(
        f"{'p':>6} | {'xltcp Mbit/s':>18} {'retx':>7} {'RTOs':>5} "
        f"| {'ns-3 Mbit/s':>18} {'retx':>7} {'RTOs':>5} | {'diff':>7}"
    )
    for p in ps:
        xs = [xltcp_run(p, s, args.profile, args.duration) for s in seeds]
        ns = [cached.get((p, s)) or ns3_run(p, s, args.duration) for s in seeds]
        xm, xh = mean_ci([r["goodput_bps"] / 1e6 for r in xs])
        nm, nh = mean_ci([r["goodput_bps"] / 1e6 for r in ns])
        xr = sum(r["retransmissions"] for r in xs) / len(xs)
        xt = sum(r["rto_count"] for r in xs) / len(xs)
        nr = sum(r["retransmissions"] for r in ns) / len(ns)
        nt = sum(r.get("rto_count", float("nan")) for r in ns) / len(ns)
        diff = (xm - nm) / nm * 100 if nm else float("nan")
        print(
            f"{p:>6} | {xm:>9.3f} ± {xh:<6.3f} {xr:>7.1f} {xt:>5.1f} "
            f"| {nm:>9.3f} ± {nh:<6.3f} {nr:>7.1f} {nt:>5.1f} | {diff:>+6.1f}%"
        )
        rows.append(
            {
                "p": p,
                "xltcp": xs,
                "ns3": ns,
                "xltcp_mean_mbps": xm,
                "ns3_mean_mbps": nm,
                "diff_pct": diff,
            }
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"profile": args.profile, "rows": rows}, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
