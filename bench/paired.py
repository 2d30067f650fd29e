#!/usr/bin/env python3
"""Paired runs of xltcp and ns-3 3.44 on the lossy last hop: both lose the
same packets.

For each seed, a list of the data-direction frames to lose is drawn once
(i.i.d. with probability p, or from a simple Gilbert chain with a mean loss
and a mean burst, started in its stationary state) and given to both tools:
xltcp as ``[wireless.loss.down] model = "list"``, ns-3 as
``lossy_last_hop --dropList`` (its ``ReceiveListErrorModel`` on SH's device).
Frame n is the n-th packet the hop carries towards SH, handshake included
(the `ns3` profile acknowledges the SYN-ACK in a segment of its own, as
ns-3 does, so both tools number the frames alike). While the two TCPs send the same packets the two runs are the same
run; where a rule differs they part, and from there on each still sees the
same loss process. The paired difference of the goodputs then has far less
spread than the difference of two independent means, and a seed whose runs
part is a trace to read (``--show SEED`` prints where).

    bench/ns3/build.sh bench/ns3/lossy_last_hop.cc
    python3 bench/paired.py --cc newreno --loss iid:0.05 --seeds 1-200
    python3 bench/paired.py --cc cubic --loss iid:0.01 --seeds 1-200
    python3 bench/paired.py --cc newreno --loss gilbert:0.05:3 --seeds 1-500
    python3 bench/paired.py --table          # every row of the paired agreement table
    python3 bench/paired.py --cc cubic --loss iid:0.01 --show 3
        # where the two senders first send different segments: xltcp's
        # sender-side capture (read with tshark) against ns-3's --txTrace

Each row: seeds, goodput mean ± 95% CI (Student t) on each side, the paired
difference (mean of xltcp − ns-3 per seed, relative to ns-3's mean, ± its
half width), how many seeds gave the same run on both sides (the same retransmissions
and timeouts, the bytes delivered within one segment),
retransmissions and RTOs per run. ns-3 runs are kept in --cache and reused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cc_agreement import CCS  # noqa: E402

from xltcp.stats import mean_ci  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "lossy-last-hop.toml"
NS3_BIN = ROOT / "bench" / "ns3" / "build" / "lossy_last_hop"
RUNNER = ROOT / "target" / "release" / "examples" / "run"
LISTS = ROOT / "bench" / "out" / "paired"
FIELDS = ("goodput_bps", "retransmissions", "rto_count")
# Bump when the way lists are drawn changes, so cached ns-3 runs are not reused.
LIST_VERSION = 4


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def drop_list(loss: str, seed: int, frames: int) -> Path:
    """The frames to lose for `loss` ("iid:P" or "gilbert:MEAN_LOSS:MEAN_BURST")
    and `seed`, written once to a file; returns its path."""
    path = LISTS / loss.replace(":", "_") / f"{seed}-{frames}-v{LIST_VERSION}.txt"
    if path.exists():
        return path
    rng = random.Random(f"{loss}/{seed}")
    kind, *args = loss.split(":")
    lost: list[int] = []
    if kind == "iid":
        p = float(args[0])
        lost = [n for n in range(1, frames + 1) if rng.random() < p]
    elif kind == "gilbert":
        mean_loss, mean_burst = float(args[0]), float(args[1])
        r = 1.0 / mean_burst
        p = mean_loss / (mean_burst * (1.0 - mean_loss))
        bad = rng.random() < p / (p + r)
        for n in range(1, frames + 1):
            if bad:
                lost.append(n)
            u = rng.random()
            bad = u >= r if bad else u < p
    else:
        raise SystemExit(f"--loss: expected iid:P or gilbert:MEAN_LOSS:MEAN_BURST, got {loss!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{n}\n" for n in lost))
    # Both senders answer the SYN-ACK with an ACK of its own (the `ns3`
    # profile follows ns-3 there), so both number the frames alike.
    ns3_list(path).write_text("".join(f"{n}\n" for n in lost))
    return path


def list_digest(path: Path) -> str:
    """A short digest of a list file's content."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def ns3_list(path: Path) -> Path:
    """The ns-3 numbering of the list at `path`."""
    return path.with_suffix(".ns3.txt")


def xltcp_run(
    cc: str, drops: Path, duration: int, out: Path | None = None, extra: list[str] | None = None
) -> dict:
    sets = [
        f'wireless.loss.down={{model = "list", file = {json.dumps(str(drops))}}}',
        'tcp.profile="ns3"',
        f"sim.duration={duration}s",
        # ns-3 takes an RTT sample from every ACK (its send-time history).
        'tcp.rtt_sampling="every_ack"',
        *CCS[cc][0],
        *(extra or []),
    ]
    args = [str(RUNNER), str(SCENARIO), "--seed", "1"]
    if out is not None:
        args += ["--out", str(out)]
    for s in sets:
        args += ["--set", s]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    f = json.loads(done.stdout)["flows"][0]
    out = {k: f[k] for k in FIELDS}
    # xltcp counts a SYN sent again as a retransmission; ns-3's trace of
    # the socket's `Retransmission` counts data only.
    out["retransmissions"] -= f["syn_timeouts"]
    return out


def ns3_run(cc: str, drops: Path, duration: int, extra: tuple[str, ...] = ()) -> dict:
    cmd = [str(NS3_BIN), f"--dropList={ns3_list(drops)}", f"--duration={duration}", *CCS[cc][1], *extra]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    r = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: r[k] for k in FIELDS} | {"stderr": done.stderr}


def row(
    cc: str, loss: str, seeds: list[int], pairs: list[tuple[dict, dict]], duration: int
) -> str:
    ns = [b["goodput_bps"] / 1e6 for _, b in pairs]
    xs = [a["goodput_bps"] / 1e6 for a, _ in pairs]
    d = [x - n for x, n in zip(xs, ns)]
    (mn, hn), (mx, hx), (md, hd) = mean_ci(ns), mean_ci(xs), mean_ci(d)
    # The same run: the same retransmissions and timeouts and the same
    # bytes delivered up to one segment (the two tools' send times drift
    # apart by some microseconds per simulated second, which can move the
    # last segment across the end of the run).
    segment_bps = 1448 * 8 / duration
    same = sum(
        abs(a["goodput_bps"] - b["goodput_bps"]) <= segment_bps + 1e-6
        and a["retransmissions"] == b["retransmissions"]
        and a["rto_count"] == b["rto_count"]
        for a, b in pairs
    )

    def avg(side: int, k: str) -> float:
        return sum(p[side][k] for p in pairs) / len(pairs)

    return (
        f"| {cc} | {loss} | {len(seeds)} | {mn:.3f} ± {hn:.3f} | {mx:.3f} ± {hx:.3f} "
        f"| {100 * md / mn:+.1f}% ± {100 * hd / mn:.1f} | {same} "
        f"| {avg(1, 'retransmissions'):.0f} | {avg(0, 'retransmissions'):.0f} "
        f"| {avg(1, 'rto_count'):.1f} | {avg(0, 'rto_count'):.1f} |"
    )


# --table: the cases of the paired agreement table, (cc, loss, seeds).
TABLE = [
    ("newreno", "iid:0.05", 200),
    ("newreno", "iid:0.01", 200),
    ("cubic", "iid:0.01", 100),
    ("newreno", "gilbert:0.05:3", 200),
    ("newreno", "gilbert:0.1:3", 400),
    ("cubic-nohs", "iid:0.01", 100),
    ("newreno", "iid:0.001", 200),
    ("newreno", "iid:0.03", 200),
    ("newreno", "gilbert:0.01:3", 200),
    ("cubic", "iid:0", 100),
    ("cubic", "iid:0.001", 100),
    ("cubic-nohs", "iid:0", 100),
    ("cubic-nohs", "iid:0.001", 100),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="newreno", choices=sorted(CCS))
    ap.add_argument("--loss", default="iid:0.05", help="iid:P or gilbert:MEAN_LOSS:MEAN_BURST")
    ap.add_argument("--seeds", default="1-20", help="e.g. 1-200 or 1,4,9")
    ap.add_argument("--duration", type=int, default=60, help="simulated seconds")
    ap.add_argument("--frames", type=int, default=200_000, help="frames each list covers")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=ROOT / "bench/ns3/results/ns3_paired.json")
    ap.add_argument("--table", action="store_true", help="every case of the paired table")
    ap.add_argument("--show", type=int, help="one seed: print both runs and where their timeouts part")
    a = ap.parse_args()
    if not NS3_BIN.exists():
        print(f"{NS3_BIN} is missing: run bench/ns3/build.sh bench/ns3/lossy_last_hop.cc", file=sys.stderr)
        return 2
    if a.show is not None:
        return show(a)
    cases = TABLE if a.table else [(a.cc, a.loss, 0)]
    cache = json.loads(a.cache.read_text()) if a.cache.exists() else {}
    print(
        "| cc | loss | seeds | ns-3 Mbit/s | xltcp (ns3) Mbit/s | paired diff | same run "
        "| ns-3 retx | xltcp retx | ns-3 RTOs | xltcp RTOs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cc, loss, n in cases:
        seeds = list(range(1, n + 1)) if n else parse_seeds(a.seeds)
        print(one_row(a, cc, loss, seeds, cache), flush=True)
    return 0


def one_row(a: argparse.Namespace, cc: str, loss: str, seeds: list[int], cache: dict) -> str:
    """Runs one case over `seeds` (ns-3 from `cache` where it has the run)
    and returns its table row; new ns-3 runs go into the cache file."""

    def key(seed: int) -> str:
        # Keyed by what ns-3 is given: its list's digest.
        digest = list_digest(ns3_list(drop_list(loss, seed, a.frames)))
        return f"{cc}|{loss}|{seed}|{a.duration}|{digest}"

    def one(seed: int) -> tuple[dict, dict]:
        drops = drop_list(loss, seed, a.frames)
        mine = xltcp_run(cc, drops, a.duration)
        theirs = cache.get(key(seed))
        if theirs is None:
            theirs = ns3_run(cc, drops, a.duration)
            theirs.pop("stderr")
        return mine, theirs

    with ThreadPoolExecutor(a.jobs) as pool:
        pairs = list(pool.map(one, seeds))
    for seed, (_, theirs) in zip(seeds, pairs):
        cache[key(seed)] = theirs
    a.cache.parent.mkdir(parents=True, exist_ok=True)
    a.cache.write_text(json.dumps(dict(sorted(cache.items())), indent=1) + "\n")
    return row(cc, loss, seeds, pairs, a.duration)


def xltcp_segments(out: Path) -> list[tuple[int, int, int]]:
    """(time ns, relative seq, length) of each data segment the sender put on
    its access link, from the run's sender-side capture."""
    cap = out / "pcap" / "wired-bulk.pcapng"
    fields = ["frame.time_relative", "tcp.seq", "tcp.len", "frame.interface_name", "frame.comment"]
    cmd = ["tshark", "-r", str(cap), "-Y", "tcp.len > 0", "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    rows = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    segs = []
    for r in rows:
        t, seq, n, iface, comment = r.split("\t")
        # A record with a comment is a drop (a full queue), not a transmission.
        if iface.endswith(".tx") and iface.startswith("ch") and not comment:
            segs.append((round(float(t) * 1e9), int(seq), int(n)))
    return segs


def show(a: argparse.Namespace) -> int:
    """Both runs of one seed, and where their senders first send different
    segments."""
    drops = drop_list(a.loss, a.show, a.frames)
    out = ROOT / "bench" / "out" / "paired-show"
    trace = out / "ns3-tx.txt"
    out.mkdir(parents=True, exist_ok=True)
    mine = xltcp_run(a.cc, drops, a.duration, out, ["output.pcap=true", "output.pcap_snaplen=0"])
    theirs = ns3_run(a.cc, drops, a.duration, (f"--txTrace={trace}",))
    print(f"drop list: {drops}")
    print(f"xltcp: {mine}")
    print(f"ns-3:  { {k: theirs[k] for k in FIELDS} }")
    xs = xltcp_segments(out)
    ns = [tuple(int(v) for v in line.split()) for line in trace.read_text().splitlines()]
    part = next((i for i, (x, n) in enumerate(zip(xs, ns)) if x[1:] != n[1:]), None)
    # Both record a segment as its transmission starts on CH's link.
    late = next((i for i, (x, n) in enumerate(zip(xs, ns)) if abs(x[0] - n[0]) > 1e6), None)
    if late is not None and (part is None or late < part):
        print(f"segment {late + 1} is sent more than 1 ms apart (same segments before it)")
        part = late
    if part is None:
        print(f"the senders sent the same {min(len(xs), len(ns))} segments")
        return 0
    print(f"segments {part + 1} onwards differ (time s, seq, len; xltcp | ns-3):")
    for i in range(max(0, part - 4), min(part + 8, len(xs), len(ns))):
        (tx, sx, lx), (tn, sn, ln) = xs[i], ns[i]
        mark = "  " if i < part else "->"
        print(f"{mark} {i + 1:6d}  {tx / 1e9:10.6f} {sx:9d} {lx:5d} | {tn / 1e9:10.6f} {sn:9d} {ln:5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
