#!/usr/bin/env python3
"""Speed and memory of xltcp against ns-3 on the same many-flow scenario.

Runs, each in its own process so that peak memory is its own:
  * xltcp on scenarios/many-flows.toml for the given simulated durations;
  * ns-3 3.44 on bench/ns3/many_flows.cc (built by bench/ns3/build.sh) for
    the first duration.
Prints simulated packets per wall-second, events per wall-second, events
per packet, peak RSS and the ratios. Packets are link transmissions (every
hop of every packet) in both tools. With --baseline-rev, also instructions
per packet of this tree and of that revision (bench/icount.py's
many-flows case under cachegrind: wall time is noisy on a shared machine,
instruction counts are not).

Then the same for a 10-station 802.11a cell (scenarios/wifi-11a.toml with
ten downlink bulk flows, one wired host and one wireless station each, at
24 Mbit/s and 30 dB, TCP as in bench/wifi.py, flows from 1 s) against
bench/ns3/wifi_cell.cc on the same cell. Packets there are the wired links'
transmissions plus every 802.11 data frame put on the air (first tries and
retries, both directions) in both tools; MAC ACKs and ns-3's beacons and
association frames are not counted.

    python3 bench/speed.py                    # 60 s, and 600 s for xltcp memory
    python3 bench/speed.py --durations 60     # quicker
    python3 bench/speed.py --baseline-rev REV --durations 60 --no-ns3
                                              # this tree against an earlier commit, alternating runs,
                                              # and instructions per packet of both (--no-icount: not)
    python3 bench/speed.py --flows 10000 --durations 10 --no-ns3 --no-wifi-cell --repeat 1 \
        --set wireless.rate=10Gbps --set wireless.queue=10000p
                                              # 10,000 flows: wall time and peak RSS
    python3 bench/speed.py --flows 10000 --durations 60 --no-ns3 --no-wifi-cell --threads2 \
        --set wireless.rate=10Gbps --set wireless.queue=10000p
                                              # also each run on two threads (sim.threads = 2), alternating
    python3 bench/speed.py --durations 60 --no-wifi-cell --pgo --ns3-json bench/out/ns3_many_flows_60s.json
                                              # also the profile-guided runner (bench/pgo.sh), beside
                                              # the default build and an earlier ns-3 run
    python3 bench/speed.py --only-wifi-cell --cell-duration 30
                                              # the 802.11a cell alone (30 s after the 1 s start)
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
CELL_SCENARIO = ROOT / "scenarios" / "wifi-11a.toml"
NS3_CELL_BIN = ROOT / "bench" / "ns3" / "build" / "wifi_cell"
CELL_SETS = [
    "wireless.snr_db=30",
    "wireless.rate=24Mbps",
    "tcp.profile=ns3",
    "tcp.sack=false",
    "tcp.mss=1448B",
    "output.timeseries=false",
]

#: Cargo's target directory (`$CARGO_TARGET_DIR`, else target/).
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
RUNNER = TARGET / "release" / "examples" / "run"
#: The instruction-count case of --baseline-rev (bench/icount.py's first).
ICOUNT_CASE = "many-flows-100x2s"


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
    # The process's own CPU time, beside its wall time: on a shared machine
    # the wall clock also counts the other processes' turns.
    result["process_cpu_seconds"] = usage.ru_utime + usage.ru_stime
    return result, usage.ru_maxrss * 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--durations", default="60,600", help="simulated seconds for xltcp, comma-separated (default 60,600)")
    ap.add_argument("--no-ns3", action="store_true", help="skip ns-3")
    ap.add_argument("--ns3-json", type=Path, help="reuse an earlier ns-3 result (bench/out/ns3_many_flows_60s.json)")
    ap.add_argument("--baseline-rev", help="also run the runner built from this git revision (e.g. a commit before a refactor)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per duration and build, alternating (default 3; the median is printed)")
    ap.add_argument("--stations", type=int, default=10, help="stations of the 802.11a cell (default 10)")
    ap.add_argument("--cell-duration", type=float, default=30.0,
                    help="simulated seconds of the cell after its 1 s start (default 30)")
    ap.add_argument("--cell-ns3-json", type=Path, help="reuse an earlier bench/ns3/build/wifi_cell result")
    ap.add_argument("--no-wifi-cell", action="store_true", help="skip the 802.11a cell")
    ap.add_argument("--flows", type=int, help="flows of the many-flow scenario (default: the file's 100)")
    ap.add_argument("--set", action="append", default=[], dest="sets", metavar="KEY=VALUE",
                    help="a further --set for the many-flow runs (repeatable)")
    ap.add_argument("--no-icount", action="store_true",
                    help="with --baseline-rev: skip the instruction counts (they need valgrind)")
    ap.add_argument("--only-wifi-cell", action="store_true", help="run the 802.11a cell alone")
    ap.add_argument("--pgo", action="store_true",
                    help="also run the runner built with profile-guided optimisation (bench/pgo.sh)")
    ap.add_argument("--threads2", action="store_true",
                    help="also run each many-flow case on two threads (sim.threads = 2; summary only)")
    args = ap.parse_args()
    if args.only_wifi_cell:
        subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True)
        return wifi_cell(args)
    durations = [int(d) for d in args.durations.split(",")]

    rows = []
    # The core's own runner (no Python interpreter in the measured process).
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True)
    runners = [("xltcp", RUNNER, ROOT)]
    # Runners that run with further settings (and are left out of the
    # instruction counts, whose cases fix their own).
    extra = {"xltcp-2t": ["sim.threads=2", "output.timeseries=false"]} if args.threads2 else {}
    if args.threads2:
        runners.append(("xltcp-2t", RUNNER, ROOT))
    if args.pgo:
        built = subprocess.run([str(ROOT / "bench" / "pgo.sh")], cwd=ROOT, check=True,
                               stdout=subprocess.PIPE, text=True).stdout
        runners.append(("xltcp-pgo", Path(built.strip().splitlines()[-1]), ROOT))
    if args.baseline_rev:
        tree, runner = build_baseline(args.baseline_rev)
        runners.append((f"@{args.baseline_rev[:8]}", runner, tree))
    sets = ([f"flow.0.count={args.flows}"] if args.flows else []) + args.sets
    for d in durations:
        runs: dict[str, list] = {name: [] for name, _, _ in runners}
        for _ in range(max(1, args.repeat)):
            for name, runner, tree in runners:
                cmd = [str(runner), str(tree / SCENARIO.relative_to(ROOT)), "--set", f"sim.duration={d}s"]
                for x in sets + extra.get(name, []):
                    cmd += ["--set", x]
                r, rss = peak_rss_of(cmd)
                runs[name].append((r["wall_seconds"], r, rss))
        for name, _, _ in runners:
            wall, r, rss = sorted(runs[name], key=lambda x: x[0])[len(runs[name]) // 2]
            rows.append((name, d, r["packets"], r["events"], wall, rss, r["process_cpu_seconds"]))

    ns3 = None
    if args.ns3_json:
        r = json.loads(args.ns3_json.read_text())
        ns3 = ("ns-3 3.44", int(r["duration_s"]), r["packets"], r["events"], r["wall_seconds_run"], r["peak_rss_bytes"],
               r.get("process_cpu_seconds", r["cpu_seconds"]))
        rows.append(ns3)
    elif not args.no_ns3:
        if not NS3_BIN.exists():
            print(f"ns-3 binary {NS3_BIN} missing: run bench/ns3/build.sh (skipping ns-3)", file=sys.stderr)
        else:
            d = durations[0]
            r, _ = peak_rss_of([str(NS3_BIN), f"--duration={d}"])
            ns3 = ("ns-3 3.44", d, r["packets"], r["events"], r["wall_seconds_run"], r["peak_rss_bytes"],
                   r["process_cpu_seconds"])
            rows.append(ns3)
            saved = ROOT / "bench" / "out" / f"ns3_many_flows_{d}s.json"
            saved.parent.mkdir(parents=True, exist_ok=True)
            saved.write_text(json.dumps(r, indent=1) + "\n")
            print(f"ns-3 run kept in {saved.relative_to(ROOT)} for --ns3-json", file=sys.stderr)

    print(f"{'tool':<10} {'sim s':>6} {'packets':>12} {'events':>12} {'wall s':>8} {'pkts/s':>12} {'events/s':>12} "
          f"{'ev/pkt':>7} {'peak RSS':>10} {'CPU s':>8}")
    for tool, d, pk, ev, wall, rss, cpu in rows:
        print(f"{tool:<10} {d:>6} {pk:>12} {ev:>12} {wall:>8.2f} {pk / wall:>12.0f} {ev / wall:>12.0f} "
              f"{ev / pk:>7.3f} {rss / 2**20:>8.1f}MiB {cpu:>8.2f}")
    if ns3:
        for x in rows:
            if x[0].startswith("xltcp") and x[1] == durations[0]:
                print(f"{x[0]} / ns-3: {(x[2] / x[4]) / (ns3[2] / ns3[4]):.1f}x packets per wall-second, "
                      f"{(x[2] / x[6]) / (ns3[2] / ns3[6]):.1f}x per CPU-second")
    if args.threads2:
        for d in durations:
            one = next(r for r in rows if r[0] == "xltcp" and r[1] == d)
            two = next(r for r in rows if r[0] == "xltcp-2t" and r[1] == d)
            print(f"{d} s: two threads / one: {two[4] / one[4]:.3f}x the wall time, {two[6] / one[6]:.3f}x the CPU "
                  f"time, {two[5] / one[5]:.2f}x the peak RSS (medians of {args.repeat})")
    if args.baseline_rev:
        for d in durations:
            now = next(r for r in rows if r[0] == "xltcp" and r[1] == d)
            base = next(r for r in rows if r[0].startswith("@") and r[1] == d)
            ratio = (now[2] / now[4]) / (base[2] / base[4])
            print(f"{d} s: this tree / {base[0]}: {ratio:.3f}x packets per wall-second (median of {args.repeat})")
        if not args.no_icount:
            instructions_per_packet([r for r in runners if r[0] not in extra])
    if not args.no_wifi_cell:
        print()
        return wifi_cell(args)
    return 0


def wifi_cell(args) -> int:
    """The 802.11a cell: xltcp (median of --repeat) and ns-3 (one run)."""
    n, start, d = args.stations, 1.0, args.cell_duration
    text = CELL_SCENARIO.read_text().replace("[[flow]]", f'[[flow]]\ncount = {n}\nstart = "{start:g}s"', 1)
    tmp = TARGET / "speed-wifi-cell.toml"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(text)
    cmd = [str(RUNNER), str(tmp), "--set", f"sim.duration={start + d:g}s"]
    for x in CELL_SETS:
        cmd += ["--set", x]
    runs = []
    for _ in range(max(1, args.repeat)):
        r, rss = peak_rss_of(cmd)
        runs.append((r["wall_seconds"], r, rss))
    wall, r, rss = sorted(runs, key=lambda x: x[0])[len(runs) // 2]
    w = r["wifi"]
    rows = [("xltcp", r["packets"], r["events"], wall, rss, sum(f["goodput_bps"] for f in r["flows"]) * (start + d) / d,
             w["down"]["frames_sent"] + w["up"]["frames_sent"], w["down"]["retransmissions"] + w["up"]["retransmissions"])]
    ns3 = None
    if args.cell_ns3_json:
        ns3 = json.loads(args.cell_ns3_json.read_text())
    elif not args.no_ns3:
        if not NS3_CELL_BIN.exists():
            print(f"ns-3 binary {NS3_CELL_BIN} missing: run bench/ns3/build.sh (skipping ns-3)", file=sys.stderr)
        else:
            ns3, _ = peak_rss_of([str(NS3_CELL_BIN), f"--stations={n}", f"--duration={d:g}", f"--start={start:g}",
                                  "--staggerMs=0", "--snr=30"])
    if ns3:
        rows.append(("ns-3 3.44", ns3["packets"], ns3["events"], ns3["wall_seconds_run"], ns3["peak_rss_bytes"],
                     ns3["goodput_bps_total"], ns3["wifi_data_frames"], ns3["wifi_retries"]))
    print(f"802.11a cell: {n} stations, 24 Mbit/s, {d:g} s of traffic after a {start:g} s start")
    print(f"{'tool':<10} {'packets':>10} {'802.11 data':>12} {'retries':>8} {'events':>10} {'wall s':>8} "
          f"{'pkts/s':>10} {'events/s':>11} {'peak RSS':>10} {'goodput':>9}")
    for tool, pk, ev, wall, rss, g, frames, retries in rows:
        print(f"{tool:<10} {pk:>10} {frames:>12} {retries:>8} {ev:>10} {wall:>8.3f} {pk / wall:>10.0f} {ev / wall:>11.0f} "
              f"{rss / 2**20:>8.1f}MiB {g / 1e6:>7.2f}Mb")
    if ns3:
        x, y = rows[0], rows[1]
        print(f"xltcp / ns-3: {(x[1] / x[3]) / (y[1] / y[3]):.0f}x packets per wall-second, "
              f"{y[3] / x[3]:.0f}x less wall time for the same simulated cell")
    return 0


def build_baseline(rev: str) -> tuple[Path, Path]:
    """Builds the runner of an earlier revision in a worktree of its own; returns (tree, runner)."""
    return icount_module().build_rev(rev)


def icount_module():
    """bench/icount.py, for its cases, its cachegrind runs and its revision builds."""
    sys.path.insert(0, str(ROOT / "bench"))
    import icount

    return icount


def instructions_per_packet(runners) -> None:
    """Instructions per packet (cachegrind) of each runner on the icount many-flow case."""
    icount = icount_module()
    case = next(c for c in icount.CASES if c.name == ICOUNT_CASE)
    print(f"instructions per packet, {case.name} ({case.what}):")
    for name, runner, tree in runners:
        count, r = icount.instructions(runner, case, tree)
        print(f"  {name:<10} {count:>15,} instructions {r['packets']:>9} packets {count / r['packets']:>8.0f} per packet "
              f"{r['events'] / r['packets']:>6.3f} events per packet")


if __name__ == "__main__":
    sys.exit(main())
