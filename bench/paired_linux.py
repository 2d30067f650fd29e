#!/usr/bin/env python3
"""Paired runs of the simulator and Linux through the emulator on the lossy
last hop: both lose the same packets.

For each seed a list of the downlink frames to lose is drawn once (as
``bench/paired.py`` draws it: i.i.d. with probability p, or a Gilbert
chain) and given to both engines as ``[wireless.loss.down] model =
"list"``; the emulator's hop runs the simulator's loss code, so its
wireless losses are exactly the list's entries within the frames the run
carried. Frame n is the n-th datagram towards SH, handshake included; the
two senders number the frames a little differently (Linux acknowledges the
SYN-ACK in a segment of its own and iperf3 sends a 37-byte cookie first),
so the two runs part early and from there each sees the same loss process.
The paired difference of the goodputs has less spread than the difference
of two independent means.

    sudo python3 bench/paired_linux.py --loss iid:0.01 --seeds 1-20
        # rows cubic (the rfc profile), cubic-linux (tcp.cubic_variant =
        # "linux"), ... (--rows); Linux runs kept in
        # bench/ns3/results/linux_paired.json
    sudo python3 bench/paired_linux.py --loss iid:0.01 --show 1 --out DIR
        # one seed on both sides into DIR/linux and DIR/sim with 10 ms time
        # series and captures, and where slow start first ended

Each row: seeds, goodput mean ± 95% CI (Student t) on each side, the paired
difference (mean of simulator − Linux per seed, relative to Linux's mean, ±
its half width), retransmissions and RTOs per run, and the BS queue's drops
per run (datagrams a full queue refused).
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cc_agreement import emu_summary  # noqa: E402
from paired import drop_list as _drop_list  # noqa: E402
from paired import list_digest, parse_seeds  # noqa: E402

from xltcp.stats import mean_ci  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "lossy-last-hop.toml"
RUNNER = ROOT / "target" / "release" / "examples" / "run"
RUNS = ROOT / "bench" / "ns3" / "results" / "linux_paired.json"
FIELDS = ("goodput_bps", "retransmissions", "rto_count")
# A 10 s run at 10 Mbit/s carries fewer than 9000 downlink frames.
FRAMES = 20_000

# Rows: (Linux cc, simulator overrides beside tcp.cc, RTT samples from every
# ACK as Linux takes them, and HyStart on as Linux's CUBIC has it).
ROWS: dict[str, tuple[str, list[str]]] = {
    "cubic": ("cubic", []),
    "cubic-linux": ("cubic", ['tcp.cubic_variant="linux"']),
    "cubic-linux-cwnd": ("cubic", ['tcp.cubic_variant="linux"', 'tcp.ssthresh_from="cwnd"']),
    "cubic-as-linux": ("cubic", ["tcp.abc_limit=0", 'tcp.ssthresh_from="cwnd"']),
    "cubic-as-linux-ca": (
        "cubic",
        ["tcp.abc_limit=0", 'tcp.ssthresh_from="cwnd"', 'tcp.cubic_variant="linux"'],
    ),
}


def drop_list(loss: str, seed: int) -> Path:
    return _drop_list(loss, seed, FRAMES)


def loss_set(drops: Path) -> str:
    return f'wireless.loss.down={{model = "list", file = {json.dumps(str(drops))}}}'


def queue_drops(summary: dict) -> int:
    return sum(link["drops"]["queue_full"] for link in summary["links"])


def sim_run(row: str, drops: Path, duration: int, out: Path | None = None) -> dict:
    cc, extra = ROWS[row]
    sets = [
        loss_set(drops),
        f"sim.duration={duration}s",
        f'tcp.cc="{cc}"',
        "tcp.hystart=true",
        'tcp.rtt_sampling="every_ack"',
        *extra,
    ]
    args = [str(RUNNER), str(SCENARIO), "--seed", "1"]
    if out is not None:
        args += ["--out", str(out)]
        sets += ["sim.sample_interval=10ms", "output.pcap=true"]
    for s in sets:
        args += ["--set", s]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    summary = json.loads(done.stdout)
    f = summary["flows"][0]
    return {**{k: f[k] for k in FIELDS}, "queue_drops": queue_drops(summary)}


def emu_run(cc: str, drops: Path, seed: int, duration: int, out: Path) -> dict:
    sets = [loss_set(drops), "sim.sample_interval=10ms"]
    summary = emu_summary(cc, seed, duration, sets, str(out), "--pcap")
    f = summary["flows"][0]
    air = next(link for link in summary["links"] if link["name"] == "bs-air")
    lost = sum(1 for line in drops.read_text().split() if int(line) <= air["offered"])
    if air["drops"]["loss"] != lost:
        print(
            f"warning: seed {seed}: {air['drops']['loss']} wireless losses, "
            f"the list has {lost} within the run's {air['offered']} frames",
            file=sys.stderr,
        )
    return {**{k: f[k] for k in FIELDS}, "queue_drops": queue_drops(summary)}


def load_runs() -> dict:
    return json.loads(RUNS.read_text())["runs"] if RUNS.exists() else {}


def save_runs(runs: dict) -> None:
    RUNS.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "key": "cc:loss:duration_s:seed:list digest",
        "program": "xltcp emu scenarios/lossy-last-hop.toml --cc=CC, the list's frames lost",
        "runs": dict(sorted(runs.items())),
    }
    RUNS.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n")


def linux_runs(cc: str, loss: str, seeds: list[int], duration: int) -> list[dict]:
    """Linux's runs, from the cache or run one at a time (the emulator
    paces in real time)."""
    runs = load_runs()
    out = []
    for s in seeds:
        drops = drop_list(loss, s)
        key = f"{cc}:{loss}:{duration}:{s}:{list_digest(drops)}"
        if key not in runs:
            with tempfile.TemporaryDirectory() as tmp:
                runs[key] = emu_run(cc, drops, s, duration, Path(tmp))
            save_runs(runs)
        out.append(runs[key])
    return out


def row_md(row: str, loss: str, seeds: list[int], lx: list[dict], sx: list[dict]) -> str:
    ls = [r["goodput_bps"] / 1e6 for r in lx]
    ss = [r["goodput_bps"] / 1e6 for r in sx]
    d = [s - v for s, v in zip(ss, ls, strict=True)]
    (ml, hl), (ms, hs), (md, hd) = mean_ci(ls), mean_ci(ss), mean_ci(d)

    def avg(rs: list[dict], k: str) -> float:
        return sum(r[k] for r in rs) / len(rs)

    return (
        f"| {row} | {loss} | {len(seeds)} | {ml:.3f} ± {hl:.3f} | {ms:.3f} ± {hs:.3f} "
        f"| {100 * md / ml:+.1f}% ± {100 * hd / ml:.1f} "
        f"| {avg(lx, 'retransmissions'):.0f} | {avg(sx, 'retransmissions'):.0f} "
        f"| {avg(lx, 'rto_count'):.2f} | {avg(sx, 'rto_count'):.2f} "
        f"| {avg(lx, 'queue_drops'):.1f} | {avg(sx, 'queue_drops'):.1f} |"
    )


def first_ssthresh(series: Path) -> str:
    """When ssthresh was first set, to what, in which state, and the largest
    cwnd before (segments): where slow start ended."""
    top = 0
    for r in csv.DictReader(series.open()):
        cwnd = int(r["cwnd_bytes"]) // 1448
        top = max(top, cwnd)
        if r["ssthresh_bytes"]:
            ss = int(r["ssthresh_bytes"]) // 1448
            return f"{r['time_s']} s: ssthresh {ss} ({r['congestion_state']}), cwnd at most {top}"
    return "never"


def show(a: argparse.Namespace) -> int:
    drops = drop_list(a.loss, a.show)
    out = Path(a.out)
    cc, _ = ROWS[a.rows.split(",")[0]]
    theirs = emu_run(cc, drops, a.show, a.duration, out / "linux")
    print(f"drop list: {drops}")
    print(f"Linux: {theirs}; slow start ended {first_ssthresh(out / 'linux/timeseries/bulk.csv')}")
    for row in a.rows.split(","):
        mine = sim_run(row, drops, a.duration, out / row)
        where = first_ssthresh(out / row / "timeseries" / "bulk.csv")
        print(f"{row}: {mine}; slow start ended {where}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--loss", default="iid:0.01", help="iid:P or gilbert:MEAN_LOSS:MEAN_BURST")
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--duration", type=int, default=10, help="seconds per run")
    ap.add_argument("--rows", default=",".join(ROWS), help=f"of {','.join(ROWS)}")
    ap.add_argument("--show", type=int, help="one seed, both sides, with time series and captures")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "paired-linux-show"))
    a = ap.parse_args()
    if a.show is not None:
        return show(a)
    seeds = parse_seeds(a.seeds)
    print(
        f"Paired runs, simulator (profile rfc) against Linux (xltcp emu), lossy-last-hop, "
        f"{a.duration} s, loss lists {a.loss}; goodput Mbit/s, mean ± 95% CI; "
        "diff = paired (simulator - Linux)/Linux"
    )
    print()
    print(
        "| row | loss | seeds | Linux | simulator | diff | Linux retx | sim retx "
        "| Linux RTOs | sim RTOs | Linux queue drops | sim queue drops |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in a.rows.split(","):
        cc, _ = ROWS[row]
        lx = linux_runs(cc, a.loss, seeds, a.duration)
        sx = [sim_run(row, drop_list(a.loss, s), a.duration) for s in seeds]
        print(row_md(row, a.loss, seeds, lx, sx), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
