#!/usr/bin/env python3
"""xltcp against ns-3 under primary-user blockage that destroys frames.

Replays, for each configuration and seed of bench/ns3/run_blockage.py, the
same primary-user schedule (bench/ns3/results/blockage-intervals/) through
xltcp's `availability model = "file"` with `blocked = "lose"`, the same
topology and TCP settings (scenarios/pu-blockage-lose.toml with loss off),
and prints both tools side by side: mean goodput, retransmissions and
timeouts over the seeds with 95% confidence intervals.

    python3 bench/blockage.py                      # tcp.profile = "ns3" and "rfc"
    python3 bench/blockage.py --ns3-json bench/out/ns3_blockage.json
    python3 bench/blockage.py --with-gilbert       # and bench/gilbert.py's table: both in one command
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from xltcp.stats import mean_ci

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "pu-blockage-lose.toml"
RUNNER = ROOT / "target" / "release" / "examples" / "run"
CONFIGS = {
    # ns-3 config -> xltcp overrides (the rest is the shipped scenario).
    "a": ["wireless.rate=10Mbps", "tcp.mss=1448B", "wired.delay=10ms"],
    "b": ["wireless.rate=250kbps", "tcp.mss=95B", "wired.delay=1ms"],
}


def ci95(xs: list[float]) -> float:
    """Half width of the mean's 95 % Student t interval (0 for one value)."""
    return mean_ci(xs)[1] if len(xs) > 1 else 0.0


def run_xltcp(config: str, seed: int, profile: str, intervals: Path) -> dict:
    sets = CONFIGS[config] + [
        "sim.duration=600s",
        "wireless.loss.down.p=0",
        f"tcp.profile={profile}",
        "wired.queue=100p",
        "sim.sample_interval=10ms",
        "wireless.availability.model=file",
        f"wireless.availability.file={json.dumps(str(intervals))}",
    ]
    # Remove the ON/OFF keys the file model does not take.
    text = SCENARIO.read_text()
    for key in ("on = ", "off = ", "start = "):
        text = "\n".join(l for l in text.splitlines() if not l.startswith(key))
    tmp = ROOT / "target" / "blockage-scenario.toml"
    tmp.write_text(text)
    out_dir = ROOT / "target" / "blockage-run"
    args = [str(RUNNER), str(tmp), "--seed", str(seed), "--out", str(out_dir)]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    f = json.loads(out)["flows"][0]
    # The largest RTO the sender reached, from its time series (every 100 ms).
    rows = (out_dir / "timeseries" / f"{f['name']}.csv").read_text().splitlines()
    col = rows[0].split(",").index("rto_s")
    max_rto = max((float(r.split(",")[col]) for r in rows[1:] if r.split(",")[col]), default=0.0)
    idle, none = idle_after_blockage(rows, intervals)
    return {"goodput_bps": f["goodput_bps"], "retransmissions": f["retransmissions"],
            "rto_count": f["rto_count"], "max_rto_s": max_rto,
            "mean_idle_to_app_delivery_s": idle, "no_app_delivery_fraction": none}


def idle_after_blockage(rows: list[str], intervals: Path, duration: float = 600.0) -> tuple[float, float]:
    """ns-3's `mean_idle_to_app_delivery_s` and `no_app_delivery_fraction`
    (bench/README.md) from the time series: for each available period [s, e)
    that follows a blockage and ends by the end of the run, the time from s
    to the first sample (10 ms) in which the application read bytes."""
    blocked = []
    for line in intervals.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            a, b = line.split()[:2]
            blocked.append((float(a), float(b)))
    col = rows[0].split(",").index("goodput_bps")
    delivered = [float(r.split(",")[0]) for r in rows[1:] if float(r.split(",")[col] or 0) > 0]
    idles, empty = [], 0
    for (_, s), (e, _) in zip(blocked, blocked[1:]):
        if e > duration:
            break
        t1 = next((t for t in delivered if s < t <= e + 1e-9), None)
        if t1 is None:
            empty += 1
        else:
            idles.append(max(0.0, t1 - 0.005 - s))  # the middle of the sample's interval
    n = len(idles) + empty
    return (statistics.mean(idles) if idles else 0.0, empty / n if n else 0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-json", type=Path, default=ROOT / "bench" / "ns3" / "results" / "ns3_blockage.json")
    ap.add_argument("--profiles", default="ns3,rfc")
    ap.add_argument("--with-gilbert", action="store_true", help="then print bench/gilbert.py's table too")
    args = ap.parse_args()
    ns3 = json.loads(args.ns3_json.read_text())
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True)
    idir = ROOT / "bench" / "ns3" / "results" / "blockage-intervals"
    print(f"{'config':<7}{'tool':<16}{'goodput Mbit/s':>20}{'retx':>14}{'RTOs':>12}{'max RTO s':>11}"
          f"{'idle s':>8}{'no deliv.':>10}{'diff':>8}")
    for config in CONFIGS:
        runs = [r for r in ns3["runs"] if r["config"] == config]
        seeds = sorted(r["seed"] for r in runs)
        g = [r["goodput_bps"] / 1e6 for r in runs]
        row = lambda name, gs, rx, rt, mx, idle, none, diff="": print(
            f"{config:<7}{name:<16}{statistics.mean(gs):>11.3f} ± {ci95(gs):<6.3f}"
            f"{statistics.mean(rx):>9.0f} ± {ci95(rx):<4.0f}{statistics.mean(rt):>7.1f} ± {ci95(rt):<4.1f}"
            f"{min(mx):>5.0f}-{max(mx):<5.0f}{statistics.mean(idle):>8.2f}{statistics.mean(none):>10.2f}{diff:>8}")
        row("ns-3 3.44", g, [r["retransmissions"] for r in runs], [r["rto_count"] for r in runs],
            [r["max_rto_s"] for r in runs], [r["mean_idle_to_app_delivery_s"] for r in runs],
            [r["no_app_delivery_fraction"] for r in runs])
        for profile in args.profiles.split(","):
            xs = []
            for seed in seeds:
                # The schedule depends on the seed only (the same for a and b).
                ifile = idir / f"seed{seed}.txt"
                xs.append(run_xltcp(config, seed, profile, ifile))
            xg = [x["goodput_bps"] / 1e6 for x in xs]
            diff = f"{(statistics.mean(xg) / statistics.mean(g) - 1) * 100:+.1f}%"
            row(f"xltcp ({profile})", xg, [x["retransmissions"] for x in xs], [x["rto_count"] for x in xs],
                [x["max_rto_s"] for x in xs], [x["mean_idle_to_app_delivery_s"] for x in xs],
                [x["no_app_delivery_fraction"] for x in xs], diff)
    if args.with_gilbert:
        print()
        import gilbert

        sys.argv = [sys.argv[0]]
        return gilbert.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
