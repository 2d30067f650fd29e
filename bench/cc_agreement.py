#!/usr/bin/env python3
"""Congestion controls of xltcp against ns-3 3.44 on the lossy last hop.

For each congestion control (CUBIC with and without HyStart, Westwood+,
Vegas, and BBR once the simulator accepts ``tcp.cc = "bbr"``) and loss rate
p, runs scenarios/lossy-last-hop.toml in xltcp (``tcp.profile = "ns3"``) and
bench/ns3/build/lossy_last_hop with ``--cc`` over the same seeds, 60 s each,
and prints one markdown row: goodput mean ± 95% CI (Student t) on each side,
the difference in %, retransmissions and RTOs. Seeds start at --seeds (20)
and grow by --step while either interval's half width exceeds --rel-ci (3%)
of its mean, up to --max-seeds.

    bench/ns3/build.sh bench/ns3/lossy_last_hop.cc
    python3 bench/cc_agreement.py                 # the table; JSON in bench/out/cc_agreement.json
    python3 bench/cc_agreement.py --cc cubic --p 0.01

ns-3 runs are kept in --cache (bench/ns3/results/ns3_cc_lossy.json) and reused.

With --linux (as root: the emulator needs ip netns, /dev/net/tun and iperf3)
the table is Linux through ``xltcp emu`` against the simulator with its
default profile instead, for --linux-cc (cubic, cubic-as-linux, cubic-linux, bbr) and --p, seeds 1..
--linux-seeds of --linux-duration seconds each (runs kept in
bench/ns3/results/linux_cc_lossy.json):

    sudo python3 bench/cc_agreement.py --linux --linux-seeds 10 --linux-duration 10

Parameters: both sides use their defaults, which agree where both have them
(CUBIC C = 0.4, beta = 0.7, fast convergence on; Vegas alpha 2, beta 4,
gamma 1; Westwood+ filtering once per RTT). ns-3's TcpCubic runs classic
HyStart (delay increase and ACK train) while xltcp's ``tcp.hystart = true``
is HyStart++ (RFC 9406); the cubic rows run both with it on and both with
it off. xltcp samples the RTT on every ACK, as ns-3 and Linux do (HyStart++
and Vegas need it); the -timed rows show xltcp's default sampling.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from xltcp import _core
from xltcp.stats import mean_ci

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "lossy-last-hop.toml"
NS3_BIN = ROOT / "bench" / "ns3" / "build" / "lossy_last_hop"
DURATION = 60

# row: (xltcp overrides, ns-3 arguments, key of the ns-3 runs in the cache).
# ns-3 takes an RTT sample from every ACK (timestamps off: its send-time
# history), as Linux does, and HyStart++ (8 samples a round) and Vegas (3)
# need them, so the rows sample every ACK; the -timed rows keep xltcp's
# default (one timed segment per round trip) for the RTO estimator, the
# controller taking every ACK's sample from the transmission log anyway.
EVERY_ACK = 'tcp.rtt_sampling="every_ack"'
CUBIC_HS = ['tcp.cc="cubic"', "tcp.hystart=true"]
CCS: dict[str, tuple[list[str], list[str], str]] = {
    "newreno": (['tcp.cc="newreno"'], ["--cc=NewReno"], "newreno"),
    "cubic": ([*CUBIC_HS, EVERY_ACK], ["--cc=Cubic", "--hyStart=1"], "cubic"),
    "cubic-timed": (CUBIC_HS, ["--cc=Cubic", "--hyStart=1"], "cubic"),
    "cubic-nohs": (
        ['tcp.cc="cubic"', "tcp.hystart=false", EVERY_ACK],
        ["--cc=Cubic", "--hyStart=0"],
        "cubic-nohs",
    ),
    "westwood": (['tcp.cc="westwood"', EVERY_ACK], ["--cc=WestwoodPlus"], "westwood"),
    "vegas": (['tcp.cc="vegas"', EVERY_ACK], ["--cc=Vegas"], "vegas"),
    "vegas-timed": (['tcp.cc="vegas"'], ["--cc=Vegas"], "vegas"),
    "bbr": (['tcp.cc="bbr"'], ["--cc=Bbr"], "bbr"),
}
DEFAULT_CCS = "cubic,cubic-timed,cubic-nohs,westwood,vegas,vegas-timed,bbr"
FIELDS = ("goodput_bps", "retransmissions", "rto_count")


def xltcp_run(cc: str, p: float, seed: int, extra: list[str] | None = None) -> dict:
    overrides = [
        f"wireless.loss.down.p={p}",
        'tcp.profile="ns3"',
        f"sim.duration={DURATION}s",
        *CCS[cc][0],
        *(extra or []),
    ]
    f = json.loads(_core.run(str(SCENARIO), seed, None, overrides, None))["flows"][0]
    return {k: f[k] for k in FIELDS}


def ns3_run(cc: str, p: float, seed: int) -> dict:
    cmd = [str(NS3_BIN), f"--p={p}", f"--seed={seed}", f"--duration={DURATION}", *CCS[cc][1]]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    return {k: r[k] for k in FIELDS}


def emu_summary(cc: str, seed: int, duration: int, sets: list[str], out: str, *extra: str) -> dict:
    """`xltcp emu` on the lossy hop with Linux `cc` (needs root): the run's
    summary, its results written to `out`; `sets` are `--set` overrides,
    `extra` more arguments (e.g. `--pcap`)."""
    cmd = [shutil.which("xltcp") or "xltcp", "emu", str(SCENARIO), f"--seed={seed}", f"--cc={cc}"]
    for s in [f"sim.duration={duration}s", *sets]:
        cmd += ["--set", s]
    cmd += ["-o", out, "--json", "-q", *extra]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def emu_run(cc: str, p: float, seed: int, duration: int) -> dict:
    """Linux `cc` through the emulator on the lossy hop (needs root)."""
    with tempfile.TemporaryDirectory() as out:
        f = emu_summary(cc, seed, duration, [f"wireless.loss.down.p={p}"], out)["flows"][0]
    return {k: f[k] for k in FIELDS}


# Rows of --linux beyond a plain cc name: (Linux cc, simulator overrides).
# cubic-as-linux: Linux's slow start (all an ACK acknowledges,
# `tcp_slow_start`) and CUBIC's ssthresh from cwnd (`bictcp_recalc_ssthresh`).
# cubic-linux: Linux's CUBIC congestion avoidance and ssthresh in whole
# segments (`bictcp_update`, `bictcp_recalc_ssthresh`).
LINUX_ROWS = {
    "cubic-as-linux": ("cubic", ["tcp.abc_limit=0", 'tcp.ssthresh_from="cwnd"']),
    "cubic-linux": ("cubic", ['tcp.cubic_variant="linux"']),
}


def sim_run(cc: str, p: float, seed: int, duration: int, extra: list[str]) -> dict:
    """The simulator, default (rfc) profile, as the emulator runs the scenario;
    CUBIC with HyStart++ and RTT samples from every ACK, as Linux takes them."""
    overrides = [
        f"wireless.loss.down.p={p}",
        f"sim.duration={duration}s",
        f'tcp.cc="{cc}"',
        EVERY_ACK,
        *(["tcp.hystart=true"] if cc == "cubic" else []),
        *extra,
    ]
    f = json.loads(_core.run(str(SCENARIO), seed, None, overrides, None))["flows"][0]
    return {k: f[k] for k in FIELDS}


#: The runs kept between invocations (tracked, so that the tables regenerate
#: without rerunning ns-3 or the emulator): {"key", "program", "runs"}.
NS3_RUNS = ROOT / "bench" / "ns3" / "results" / "ns3_cc_lossy.json"
LINUX_RUNS = ROOT / "bench" / "ns3" / "results" / "linux_cc_lossy.json"


def load_runs(path: Path) -> dict:
    """The runs kept in ``path`` (a flat mapping of an older layout too)."""
    if not path.exists():
        return {}
    kept = json.loads(path.read_text())
    return kept["runs"] if "runs" in kept else kept


def save_runs(path: Path, runs: dict, key: str, program: str) -> None:
    """Writes ``runs`` to ``path`` with what its keys and runs are."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"key": key, "program": program, "runs": runs}
    path.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n")


def linux_table(args) -> int:
    """Linux through the emulator against the simulator, same cc, p and seeds."""
    path = LINUX_RUNS
    cache = load_runs(path)
    print(
        f"Linux (xltcp emu) against the simulator (profile rfc) on lossy-last-hop, "
        f"{args.linux_duration} s runs, seeds 1..{args.linux_seeds}; goodput Mbit/s, "
        "mean ± 95% CI (Student t); diff = simulator/Linux - 1"
    )
    print()
    print(
        "| cc | p | seeds | Linux | simulator | diff "
        "| Linux retx | sim retx | Linux RTOs | sim RTOs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for row in args.linux_cc.split(","):
        cc, extra = LINUX_ROWS.get(row, (row, []))
        for p in (float(x) for x in args.p.split(",")):
            seeds = range(1, args.linux_seeds + 1)
            for s in seeds:
                key = f"{cc}:{p:g}:{args.linux_duration}:{s}"
                if key not in cache:
                    cache[key] = emu_run(cc, p, s, args.linux_duration)
                    save_runs(
                        path,
                        cache,
                        "cc:p:duration_s:seed",
                        "xltcp emu scenarios/lossy-last-hop.toml --cc=CC",
                    )
            lx = [cache[f"{cc}:{p:g}:{args.linux_duration}:{s}"] for s in seeds]
            try:
                sx = [sim_run(cc, p, s, args.linux_duration, extra) for s in seeds]
            except Exception:  # e.g. bbr, which only the emulator runs
                sx = []
            r = summary(row, p, len(lx), lx, sx)
            rows.append(r)
            print(row_md(r).replace("nan ± nan", "n/a").replace("+nan% ± nan", "n/a"), flush=True)
    out = ROOT / "bench" / "out" / "linux_cc_agreement.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows}, indent=2) + "\n")
    return 0


def simulator_accepts(cc: str) -> str | None:
    """None when xltcp's simulator runs `cc`, else its error message."""
    try:
        xltcp_run(cc, 0.0, 1)
    except Exception as e:  # the scenario loader's error, e.g. an emulator-only cc
        return str(e).split(": ", 1)[-1]
    return None


def ci_ok(values: list[float], rel: float) -> bool:
    m, h = mean_ci(values)
    return m == 0 or h <= rel * abs(m)


def case(cc: str, p: float, args, cache: dict, save) -> dict:
    """Runs seeds 1..n on both sides, n grown until both intervals are narrow enough."""
    n = args.seeds
    xs: list[dict] = []
    ns: list[dict] = []
    while True:
        todo = [s for s in range(len(ns) + 1, n + 1)]
        key = CCS[cc][2]
        missing = [s for s in todo if f"{key}:{p:g}:{s}" not in cache]
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            runs = pool.map(lambda s: ns3_run(cc, p, s), missing)
            for s, r in zip(missing, runs, strict=True):
                cache[f"{key}:{p:g}:{s}"] = r
        if missing:
            save()
        ns += [cache[f"{key}:{p:g}:{s}"] for s in todo]
        xs += [xltcp_run(cc, p, s) for s in todo]
        good = [r["goodput_bps"] / 1e6 for r in ns], [r["goodput_bps"] / 1e6 for r in xs]
        if all(ci_ok(g, args.rel_ci) for g in good) or n >= args.max_seeds:
            break
        n = min(n + args.step, args.max_seeds)
    return summary(cc, p, n, ns, xs)


def summary(cc: str, p: float, n: int, ns: list[dict], xs: list[dict]) -> dict:
    """One row: `ns` the reference side (ns-3 or Linux), `xs` xltcp's simulator."""
    nan = (float("nan"), float("nan"))
    nm, nh = mean_ci([r["goodput_bps"] / 1e6 for r in ns])
    xm, xh = mean_ci([r["goodput_bps"] / 1e6 for r in xs]) if xs else nan

    def avg(rs: list[dict], k: str) -> float:
        return sum(r[k] for r in rs) / len(rs) if rs else float("nan")

    return {
        "cc": cc,
        "p": p,
        "seeds": n,
        "ns3_mbps": nm,
        "ns3_ci": nh,
        "xltcp_mbps": xm,
        "xltcp_ci": xh,
        "diff_pct": (xm / nm - 1) * 100 if nm else float("nan"),
        "diff_ci_pct": (nh**2 + xh**2) ** 0.5 / nm * 100 if nm else float("nan"),
        "ns3_retx": avg(ns, "retransmissions"),
        "xltcp_retx": avg(xs, "retransmissions"),
        "ns3_rto": avg(ns, "rto_count"),
        "xltcp_rto": avg(xs, "rto_count"),
    }


def row_md(r: dict) -> str:
    return (
        f"| {r['cc']} | {r['p']:g} | {r['seeds']} | {r['ns3_mbps']:.3f} ± {r['ns3_ci']:.3f} "
        f"| {r['xltcp_mbps']:.3f} ± {r['xltcp_ci']:.3f} "
        f"| {r['diff_pct']:+.1f}% ± {r['diff_ci_pct']:.1f} "
        f"| {r['ns3_retx']:.0f} | {r['xltcp_retx']:.0f} "
        f"| {r['ns3_rto']:.1f} | {r['xltcp_rto']:.1f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cc", default=DEFAULT_CCS, help=f"of {','.join(CCS)}")
    ap.add_argument("--p", default="0,0.001,0.01")
    ap.add_argument("--seeds", type=int, default=20, help="seeds per side at least")
    ap.add_argument("--step", type=int, default=20)
    ap.add_argument("--max-seeds", type=int, default=200)
    ap.add_argument("--rel-ci", type=float, default=0.03)
    ap.add_argument("--jobs", type=int, default=1, help="ns-3 processes at a time")
    ap.add_argument("--cache", type=Path, default=NS3_RUNS)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "cc_agreement.json")
    ap.add_argument("--linux", action="store_true", help="Linux (emulator) against the simulator")
    ap.add_argument("--linux-cc", default="cubic,cubic-as-linux,cubic-linux,bbr")
    ap.add_argument("--linux-seeds", type=int, default=10)
    ap.add_argument("--linux-duration", type=int, default=10, help="seconds per emulator run")
    args = ap.parse_args()
    if args.linux:
        return linux_table(args)
    if not NS3_BIN.exists():
        print(f"{NS3_BIN} missing: run bench/ns3/build.sh first", file=sys.stderr)
        return 2
    cache = load_runs(args.cache)
    program = json.loads(args.cache.read_text()).get("program", "") if args.cache.exists() else ""

    def save() -> None:
        save_runs(args.cache, cache, "cc:p:seed", program or "bench/ns3/build/lossy_last_hop")

    print(
        f"xltcp (profile ns3) against ns-3 3.44 on lossy-last-hop, {DURATION} s runs, "
        "same seeds; goodput Mbit/s, mean ± 95% CI (Student t); "
        "diff = xltcp/ns-3 - 1 ± the half width of the difference relative to ns-3"
    )
    print()
    print(
        "| cc | p | seeds | ns-3 | xltcp | diff | ns-3 retx | xltcp retx | ns-3 RTOs | xltcp RTOs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows, notes = [], []
    for cc in args.cc.split(","):
        why = simulator_accepts(cc)
        if why:
            notes.append(f"{cc}: skipped, the simulator does not run it ({why})")
            continue
        for p in (float(x) for x in args.p.split(",")):
            r = case(cc, p, args, cache, save)
            rows.append(r)
            print(row_md(r), flush=True)
    for n in notes:
        print(f"\n{n}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "notes": notes}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
