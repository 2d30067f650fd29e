"""Paper 001 (DSASync), the experiments beside the single-client figures:
what the uplink pacer costs and why, the 24-flow macrobenchmark, the
overhead with no DSA, the receiver's jitter with and without the uplink
smoothing, and DSASync on paper 000's 802.15.4 scenario (alone and with the
CR-aware sender). :mod:`xltcp.reproduce.dsasync` runs them and writes
their tables and figures; each function here returns plain rows.

Definitions used in the tables:

- **delay**: the sender's smoothed RTT (``srtt_s`` of the time series,
  sampled every ``sim.sample_interval``), averaged over the samples; the
  paper's "end-to-end delay" is not defined further, and a BS agent adds
  its delay to the RTT.
- **jitter**: at the receiver (the wired host, CH, of an uplink flow), over
  the data segments in the order they reach it: (1) RFC 3550 §6.4.1
  interarrival jitter ``J += (|D| - J) / 16`` with ``D`` the change of the
  transit time ``R - S`` between consecutive segments, ``R`` the time the
  segment leaves the BS on the CH's wired link (the CH receives it a fixed
  time later, which cancels) and ``S`` the sender's TCP timestamp (TSval,
  1 ms clock: as RTP's timestamp, it is the sender's clock), reported as
  the mean of ``J`` over the segments; (2) the standard deviation of the
  inter-arrival times, and that over their mean (the coefficient of
  variation: the std alone grows as the rate falls). Both come from the
  run's ``pcap/wired-<flow>.pcapng`` (96-byte snaplen), which is deleted
  once read.
"""

from __future__ import annotations

import csv
import math
import shutil
import statistics
import struct
from collections.abc import Callable, Sequence
from pathlib import Path

import xltcp
from xltcp import runner
from xltcp.reproduce.common import pool as _pool

Progress = Callable[[str], None]


def _preset(name: str) -> Path:
    return xltcp.scenarios_dir() / "dsasync" / f"{name}.toml"


def mean_srtt_s(run_dir: Path) -> float:
    """The mean of the sampled smoothed RTT of every flow of a run (NaN if none)."""
    values = []
    for path in sorted((run_dir / "timeseries").glob("*.csv")):
        with path.open() as f:
            values += [float(r["srtt_s"]) for r in csv.DictReader(f) if r["srtt_s"]]
    return statistics.fmean(values) if values else math.nan


def _submit(
    pool, tasks: dict, key, path: Path, seed: int, run_dir: Path, sets: Sequence[str], label: str
):
    tasks[key] = pool.run(label, runner.run_one, path, seed, run_dir, list(sets))


# --- 1. the uplink pacer ---------------------------------------------------

#: MAC retries that never run out (30 each): no frame is lost on the air,
#: so no loss halves the TCP's window.
RETRIES_30 = ("wireless.retry_long=30", "wireless.retry_short=30")

#: (name, preset stem, extra overrides, label) of the pacer diagnosis; the
#: stem gets the direction (``-down``, ``-up``).
PACER_CONFIGS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("regular", "regular", (), "regular"),
    ("dsasync", "dsasync", (), "DSASync (preset)"),
    ("dsasync-meantfp", "dsasync", ('agent.0.max_wait="mean_tfp"',), "DSASync, wait <= mean TFP"),
    ("dsasync-window", "dsasync", ('agent.0.rate_over="window"',), "DSASync, D over the window"),
    ("dsasync-beta1", "dsasync", ("agent.0.alpha_min=1.0",), "DSASync, beta = 1"),
    ("dsasync-nosmooth", "dsasync", ('agent.0.smoothing="off"',), "DSASync, no smoothing"),
    ("dsasync-retries", "dsasync", RETRIES_30, "DSASync, retries 30"),
    (
        "dsasync-nosmooth-retries",
        "dsasync",
        (*RETRIES_30, 'agent.0.smoothing="off"'),
        "DSASync, no smoothing, retries 30",
    ),
)

#: PU settings of the pacer diagnosis: the preset's 20 %, and none.
PACER_PU: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("20%", ()),
    ("0%", ('wireless.availability.on="1000000s"', 'wireless.availability.off="1s"')),
)

#: Directions of the pacer diagnosis (on the downlink it paces the host's ACKs).
PACER_DIRS: tuple[str, ...] = ("down", "up")

#: The configurations also run with no PU (the rest only at the preset's 20 %).
PACER_PU0 = ("regular", "dsasync", "dsasync-beta1", "dsasync-nosmooth")


def pacer_cells() -> list[tuple[str, str, str, str, tuple[str, ...], str]]:
    """(direction, PU, name, stem, overrides, label) of every pacer cell run."""
    return [
        (d, pu, name, f"{stem}-{d}", (*pu_sets, *extra), label)
        for d in PACER_DIRS
        for pu, pu_sets in PACER_PU
        for name, stem, extra, label in PACER_CONFIGS
        if pu == PACER_PU[0][0] or name in PACER_PU0
    ]


def run_pacer(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> list[dict]:
    """Runs that show what the pacer does to a window-limited TCP, both
    directions: per (direction, PU, config, seed) goodput, mean sampled srtt
    and cwnd, the mean time a paced packet waited and the share of packets
    that waited."""
    tasks: dict = {}

    def run_dir(d: str, pu: str, name: str, seed: int) -> Path:
        return out / "runs" / f"pacer-{d}-{name}-pu{pu.rstrip('%')}" / f"seed-{seed}"

    with _pool(jobs, progress) as pool:
        for d, pu, name, stem, extra, label in pacer_cells():
            for seed in seeds:
                sets = [*overrides, *extra]
                key = (d, pu, name, seed)
                tag = f"pacer {d} {label} PU {pu} seed {seed}"
                path, folder = _preset(stem), run_dir(d, pu, name, seed)
                _submit(pool, tasks, key, path, seed, folder, sets, tag)
    rows = []
    for (d, pu, name, seed), task in tasks.items():
        s = task.result()
        a = s.get("dsasync") or {}
        paced = max(int(a.get("paced", 0)), 1)
        cwnd = []
        for path in (run_dir(d, pu, name, seed) / "timeseries").glob("*.csv"):
            with path.open() as f:
                cwnd += [float(r["cwnd_bytes"]) for r in csv.DictReader(f)]
        rows.append(
            {
                "direction": d,
                "pu": pu,
                "config": name,
                "seed": seed,
                "goodput_bps": s["flows"][0]["goodput_bps"],
                "srtt_s": mean_srtt_s(run_dir(d, pu, name, seed)),
                "cwnd_bytes": statistics.fmean(cwnd) if cwnd else math.nan,
                "pacing_wait_s": float(a.get("pacing_delay_total_s", 0.0)) / paced,
                "share_waited": int(a.get("paced_waited", 0)) / paced,
            }
        )
    return rows


# --- 2. the macrobenchmark -------------------------------------------------

#: Flow entries of the macro presets (6 hosts x 4 flows).
MACRO_HOSTS = 6


def run_macro(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> dict[tuple[str, str], list[dict]]:
    """6 hosts x 4 flows in one DSA cell switching among 4 channels, both
    directions, regular and DSASync: per (config, direction) the total
    goodput, retransmitted traffic and RTOs of the 24 flows, per seed."""
    tasks: dict = {}
    with _pool(jobs, progress) as pool:
        for direction in ("down", "up"):
            turn = [f'flow.{k}.direction="{direction}"' for k in range(MACRO_HOSTS)]
            for name in ("regular", "dsasync"):
                for seed in seeds:
                    run_dir = out / "runs" / f"macro-{name}-{direction}" / f"seed-{seed}"
                    sets = [*overrides, *turn]
                    path = _preset(f"{name}-macro")
                    tag = f"macro {name} {direction} seed {seed}"
                    _submit(pool, tasks, (name, direction, seed), path, seed, run_dir, sets, tag)
    results: dict[tuple[str, str], list[dict]] = {}
    for (name, direction, seed), task in tasks.items():
        s = task.result()
        flows = s["flows"]
        mss = int(str(s["scenario"]["flow"][0]["tcp"]["mss"]).rstrip("B"))
        row = {
            "seed": seed,
            "goodput_bps": sum(f["goodput_bps"] for f in flows),
            "retx_bps": sum(f["retransmissions"] for f in flows) * mss * 8 / s["duration_s"],
            "rto_count": float(sum(f["rto_count"] for f in flows)),
            "flows": len(flows),
        }
        results.setdefault((name, direction), []).append(row)
    return results


# --- 3. the overhead with no DSA -------------------------------------------


def run_overhead(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> dict[tuple[str, str], list[dict]]:
    """The cell with no TFP at all, regular and DSASync, both directions:
    goodput and mean srtt per seed."""
    tasks: dict = {}
    with _pool(jobs, progress) as pool:
        for direction in ("down", "up"):
            for name in ("regular", "dsasync"):
                for seed in seeds:
                    run_dir = out / "runs" / f"nodsa-{name}-{direction}" / f"seed-{seed}"
                    sets = [*overrides, f'flow.0.direction="{direction}"']
                    path = _preset(f"{name}-nodsa")
                    tag = f"no DSA {name} {direction} seed {seed}"
                    _submit(pool, tasks, (name, direction, seed), path, seed, run_dir, sets, tag)
    results: dict[tuple[str, str], list[dict]] = {}
    for (name, direction, seed), task in tasks.items():
        s = task.result()
        run_dir = out / "runs" / f"nodsa-{name}-{direction}" / f"seed-{seed}"
        row = {
            "seed": seed,
            "goodput_bps": s["flows"][0]["goodput_bps"],
            "srtt_s": mean_srtt_s(run_dir),
        }
        results.setdefault((name, direction), []).append(row)
    return results


# --- 4. the receiver's jitter ----------------------------------------------


def _pcap_packets(path: Path):
    """(time in s, IPv4 packet bytes) of the records of a pcapng capture
    as the simulator writes it (little-endian; every interface's records,
    drop records included: they carry a comment and are skipped)."""
    data = path.read_bytes()
    if data[:4] != b"\x0a\x0d\x0d\x0a" or data[8:12] != b"\x4d\x3c\x2b\x1a":
        raise ValueError(f"{path}: not a little-endian pcapng capture")
    scales: list[float] = []
    off = 0
    while off + 12 <= len(data):
        kind, length = struct.unpack("<II", data[off : off + 8])
        if length < 12 or off + length > len(data):
            raise ValueError(f"{path}: a block of {length} bytes at offset {off}")
        body = data[off + 8 : off + length - 4]
        if kind == 1:  # Interface Description Block: find if_tsresol
            scale, i = 1e-6, 8
            while i + 4 <= len(body):
                code, n = struct.unpack("<HH", body[i : i + 4])
                if code == 0:
                    break
                if code == 9 and n == 1:
                    r = body[i + 4]
                    scale = 2.0 ** -(r & 0x7F) if r & 0x80 else 10.0**-r
                i += 4 + (n + 3) // 4 * 4
            scales.append(scale)
        elif kind == 6:  # Enhanced Packet Block
            iface, hi, lo, caplen, _whole = struct.unpack("<IIIII", body[:20])
            options = body[20 + (caplen + 3) // 4 * 4 :]
            if len(options) < 4 or options[:2] == b"\x00\x00":
                yield ((hi << 32) | lo) * scales[iface], body[20 : 20 + caplen]
        off += length


def data_arrivals(path: Path) -> list[tuple[float, int]]:
    """(capture time s, TSval) of the TCP segments carrying data in a capture."""
    out = []
    for t, pkt in _pcap_packets(path):
        if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != 6:
            continue
        ihl = (pkt[0] & 0x0F) * 4
        total = struct.unpack("!H", pkt[2:4])[0]
        tcp = pkt[ihl:]
        if len(tcp) < 20:
            continue
        doff = (tcp[12] >> 4) * 4
        if total - ihl - doff <= 0:
            continue
        opts, i, tsval = tcp[20:doff], 0, None
        while i < len(opts):
            kind = opts[i]
            if kind == 0:
                break
            if kind == 1:
                i += 1
                continue
            if i + 1 >= len(opts):
                break
            length = opts[i + 1]
            if kind == 8 and length == 10 and i + 10 <= len(opts):
                tsval = struct.unpack("!I", opts[i + 2 : i + 6])[0]
            i += max(length, 2)
        if tsval is not None:
            out.append((t, tsval))
    return out


def jitter(arrivals: Sequence[tuple[float, int]]) -> tuple[float, float, float]:
    """Mean RFC 3550 interarrival jitter (s), the std of the inter-arrival
    times (s) and their coefficient of variation (std / mean: the std
    alone grows as the rate falls)."""
    if len(arrivals) < 3:
        return math.nan, math.nan, math.nan
    j, js = 0.0, []
    for (r0, s0), (r1, s1) in zip(arrivals, arrivals[1:], strict=False):
        d = (r1 - r0) - (s1 - s0) / 1e3
        j += (abs(d) - j) / 16
        js.append(j)
    gaps = [b[0] - a[0] for a, b in zip(arrivals, arrivals[1:], strict=False)]
    std = statistics.stdev(gaps)
    return statistics.fmean(js), std, std / statistics.fmean(gaps)


#: (name, preset, extra overrides, label) of the jitter runs (uplink).
JITTER_CONFIGS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("regular", "regular-up", (), "regular"),
    ("dsasync", "dsasync-up", (), "DSASync (smoothing, Alg. 4)"),
    ("dsasync-node", "dsasync-up", ('agent.0.smoothing="node"',), "DSASync (smoothing, Alg. 3)"),
    ("dsasync-nosmooth", "dsasync-up", ('agent.0.smoothing="off"',), "DSASync, no smoothing"),
)


def run_jitter(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> list[dict]:
    """Uplink runs with the wired capture: per (config, seed) the CH's
    jitter (both definitions) and the goodput."""
    capture = ["output.pcap=true", "output.pcap_snaplen=96"]
    tasks: dict = {}
    with _pool(jobs, progress) as pool:
        for name, stem, extra, label in JITTER_CONFIGS:
            for seed in seeds:
                run_dir = out / "runs" / f"jitter-{name}" / f"seed-{seed}"
                sets = [*overrides, *extra, *capture]
                tag = f"jitter {label} seed {seed}"
                _submit(pool, tasks, (name, seed), _preset(stem), seed, run_dir, sets, tag)
    rows = []
    for (name, seed), task in tasks.items():
        s = task.result()
        run_dir = out / "runs" / f"jitter-{name}" / f"seed-{seed}"
        pcap_dir = run_dir / "pcap"
        flow = s["flows"][0]["name"]
        rfc, std, cv = jitter(data_arrivals(pcap_dir / f"wired-{flow}.pcapng"))
        # The captures were only for this: keep the results folder small.
        shutil.rmtree(pcap_dir, ignore_errors=True)
        rows.append(
            {
                "config": name,
                "seed": seed,
                "goodput_bps": s["flows"][0]["goodput_bps"],
                "jitter_rfc3550_s": rfc,
                "interarrival_std_s": std,
                "interarrival_cv": cv,
            }
        )
    return rows


# --- 5. DSASync on paper 000's 802.15.4 scenario -----------------------------

#: (name, preset path relative to the scenarios folder, extra, label).
BYUN_CONFIGS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("newreno", "byun2016/newreno.toml", (), "NewReno"),
    ("newreno-cr", "byun2016/newreno-cr.toml", (), "NewReno + CR-aware"),
    ("tcp-lr-cr", "byun2016/tcp-lr-cr.toml", (), "TCP-LR + CR-aware (paper 000's best)"),
    ("newreno-dsasync", "dsasync/byun2016-newreno.toml", (), "NewReno + DSASync"),
    (
        "newreno-dsasync-nosmooth",
        "dsasync/byun2016-newreno.toml",
        ('agent.0.smoothing="off"',),
        "NewReno + DSASync, no smoothing",
    ),
    ("newreno-cr-dsasync", "dsasync/byun2016-newreno-cr.toml", (), "NewReno + CR-aware + DSASync"),
    (
        "newreno-cr-dsasync-nosmooth",
        "dsasync/byun2016-newreno-cr.toml",
        ('agent.0.smoothing="off"',),
        "NewReno + CR-aware + DSASync, no smoothing",
    ),
)


def run_byun(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> dict[str, list[dict]]:
    """Paper 000's standard-family scenario (uplink sensor flow, PU 50 %):
    per config the goodput, RTOs, retransmissions and DSASync's buffer
    accounting, per seed."""
    tasks: dict = {}
    with _pool(jobs, progress) as pool:
        for name, rel, extra, label in BYUN_CONFIGS:
            for seed in seeds:
                run_dir = out / "runs" / f"byun-{name}" / f"seed-{seed}"
                path = xltcp.scenarios_dir() / rel
                sets, tag = [*overrides, *extra], f"802.15.4 {label} seed {seed}"
                _submit(pool, tasks, (name, seed), path, seed, run_dir, sets, tag)
    results: dict[str, list[dict]] = {}
    for (name, seed), task in tasks.items():
        s = task.result()
        f = s["flows"][0]
        d = s.get("dsasync") or {}
        row = {
            "seed": seed,
            "goodput_bps": f["goodput_bps"],
            "rto_count": float(f["rto_count"]),
            "retransmissions": float(f["retransmissions"]),
            "accepted": int(d.get("accepted", 0)),
            "released": int(d.get("released", 0)),
            "replaced": int(d.get("replaced", 0)),
            "buffered": int(d.get("buffered", 0)),
            "refused_full": int(d.get("refused_full", 0)),
        }
        results.setdefault(name, []).append(row)
    return results
