"""Output budgets: what a run will write, estimated before it starts.

A run's traces are time series (one row per flow every ``sim.sample_interval``)
and, with ``output.pcap``, packet captures (one record per packet on each
link). :func:`estimate_run` bounds both from the scenario echo alone:

- time series: ``duration / sample_interval x flows`` rows of at most
  :data:`ROW_BYTES` bytes;
- pcaps: on each link, both directions, at most ``2 x rate / (8 x (MSS + 40))``
  records a second (full-size data segments plus at most one ACK each) of at
  most :data:`PCAP_BLOCK_BYTES` plus the snap length (default 128: headers
  and the start of the payload), twice with ``pcap_point = "both"``; each
  flow's wired link runs at most at the slower of the wired and wireless
  rates;
- the signal log (``signals.jsonl``, an 802.11 hop's signals to the
  schemes' agents): a line of at most :data:`SIGNAL_LINE_BYTES` bytes per
  SNR report (``snr_report``) at each end of the hop and per start and end
  of a DSA sensing period, at most :data:`SIGNAL_LOG_MAX` lines;
- the events (``events.csv``, with the time series): two lines of at most
  :data:`EVENT_LINE_BYTES` bytes per flow per sample interval, at most
  :data:`EVENTS_MAX` lines. An estimate, not a bound: a line is a timeout,
  a fast retransmit or the end of a recovery (each takes at least a round
  trip, and losses seldom recur every round trip; the shipped scenarios
  write at most a few lines per flow a second) or a change of the hop's
  blockage.

The core stops writing traces at ``[output] max_bytes`` (default 1 GiB, the
time series, pcaps, signal log and events together) on its own; :func:`check`
refuses, before anything runs, a run whose estimate exceeds the limit
(``--max-output``, default :data:`DEFAULT_LIMIT`), a set of runs whose total
(each capped at its ``max_bytes``) does, or one that does not fit in the free
space of the output filesystem.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Bytes of one time-series row, an upper bound (a typical row is ~75 bytes).
ROW_BYTES = 160

#: Bytes of a pcapng record's block around the captured bytes (32), and the
#: captured bytes of a datagram without ``pcap_snaplen`` (128: IPv4 and TCP
#: headers with every option, the start of the payload).
PCAP_BLOCK_BYTES = 32
PCAP_DEFAULT_SNAPLEN = 128

#: Bytes of one pcap record at the default snap length.
PCAP_RECORD_BYTES = PCAP_BLOCK_BYTES + PCAP_DEFAULT_SNAPLEN

#: Bytes of one line of ``signals.jsonl``, an upper bound (a typical line is ~75 bytes).
SIGNAL_LINE_BYTES = 110

#: The most signals the core logs in a run (``xltcp_core::sim::SIGNAL_LOG_MAX``).
SIGNAL_LOG_MAX = 1 << 20

#: Bytes of one line of ``events.csv``, an upper bound for flow names of up
#: to 24 characters (a typical line is ~60 bytes).
EVENT_LINE_BYTES = 100

#: The most lines the core writes to ``events.csv`` (``xltcp_core::sim::output::EVENTS_MAX``).
EVENTS_MAX = 1 << 20

#: The core's trace budget of a run without ``[output] max_bytes``.
CORE_MAX_BYTES = 1 << 30

#: Default limit of the estimated output of one command: 4 GiB.
DEFAULT_LIMIT = 4 << 30

_SIZE_UNITS = {
    "B": 1,
    "kB": 1000,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
    "KiB": 1 << 10,
    "MiB": 1 << 20,
    "GiB": 1 << 30,
    "TiB": 1 << 40,
}
_RATE_UNITS = {"bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12}
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600}


class BudgetError(ValueError):
    """The output would not fit: over the limit or over the free space."""


def parse_size(text: str) -> int:
    """Bytes in ``"4GiB"``, ``"500MB"``, ``"1024"`` (bytes); ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([A-Za-z]*)\s*", str(text))
    if not match or (match.group(2) and match.group(2) not in _SIZE_UNITS):
        raise ValueError(
            f"{text!r} is not a size; expected a number with a unit: B, kB, MB, GB, TB (x1000) "
            "or KiB, MiB, GiB, TiB (x1024), e.g. 4GiB"
        )
    return int(float(match.group(1)) * _SIZE_UNITS.get(match.group(2) or "B", 1))


def human_size(n: float) -> str:
    """Bytes in binary units with three significant digits: "1.50 GiB"."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def _quantity(text: object, units: dict, lower: bool = False) -> float | None:
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*(\S*)\s*", str(text).replace("_", ""))
    if not match:
        return None
    unit = match.group(2).lower() if lower else match.group(2)
    unit = unit.replace("bit/s", "bps")
    return float(match.group(1)) * units[unit] if unit in units else None


def seconds(text: object) -> float | None:
    """Seconds in a duration as the echo writes it ("60s", "100ms"), None if not one."""
    return _quantity(text, _DURATION_UNITS)


def rate_bps(text: object) -> float | None:
    """Bit/s in a rate as the echo writes it ("10Mbps"), None if not one."""
    return _quantity(text, _RATE_UNITS, lower=True)


@dataclass(frozen=True)
class Estimate:
    """A run's estimated trace bytes, uncapped, and its ``max_bytes``."""

    timeseries: int
    pcap: int
    max_bytes: int
    signals: int = 0
    events: int = 0

    @property
    def total(self) -> int:
        """What the traces would take with no budget."""
        return self.timeseries + self.pcap + self.signals + self.events

    @property
    def written(self) -> int:
        """What reaches the disk: the total, cut at ``max_bytes``."""
        return min(self.total, self.max_bytes)


def estimate_run(echo: dict) -> Estimate:
    """The output of one run of the scenario echo (module doc)."""
    sim = echo.get("sim", {})
    output = echo.get("output", {})
    duration = seconds(sim.get("duration")) or 0.0
    interval = seconds(sim.get("sample_interval")) or 0.1
    flows = [f for f in echo.get("flow", []) if isinstance(f, dict)]
    timeseries = events = 0
    if output.get("timeseries", True):
        timeseries = int((duration / interval + 2) * len(flows) * ROW_BYTES)
        events = event_log_bytes(duration, interval, len(flows))
    pcap = 0
    if output.get("pcap", False):
        mss = min([mss_bytes(f.get("tcp", {}).get("mss")) for f in flows] or [1448])
        snaplen = int(output.get("pcap_snaplen") or 0)
        # A datagram's headers are always whole (at least 80 bytes), and
        # captured no longer than a full-size segment.
        snaplen = min(max(snaplen, 80), mss + 100) if snaplen else PCAP_DEFAULT_SNAPLEN
        per_packet = PCAP_BLOCK_BYTES + snaplen
        if output.get("pcap_point") == "both":
            per_packet *= 2
        hops = echo.get("wireless", {})
        hops = [h for h in (hops if isinstance(hops, list) else [hops]) if isinstance(h, dict)]
        rates = [rate_bps(h.get("rate")) or 1e9 for h in hops] or [1e9]
        wireless = max(rates)
        wired = rate_bps(echo.get("wired", {}).get("rate")) or wireless
        # The wireless hops (an interface choice may use any), and each
        # flow's wired link at its bottleneck; an 802.11 hop adds the air
        # capture (data, MAC ACK, RTS, CTS).
        # (`rates` holds a default when there are no hops: zip stops short.)
        per_hop = zip(rates, hops, strict=False)
        links = sum(r * (3 if h.get("kind") == "wifi" else 1) for r, h in per_hop) or wireless
        links += len(flows) * min(wired, wireless)
        packets = 2 * links / (8 * (mss + 40)) * duration
        pcap = int(packets * per_packet)
    max_bytes = int(output.get("max_bytes") or CORE_MAX_BYTES)
    return Estimate(timeseries, pcap, max_bytes, signal_log_bytes(echo, duration, flows), events)


def event_log_bytes(duration: float, interval: float, flows: int) -> int:
    """The bytes of ``events.csv`` (module doc): two lines per flow a sample."""
    lines = 2 * flows * duration / interval if interval > 0 else 0.0
    return int(min(lines, EVENTS_MAX) * EVENT_LINE_BYTES)


def signal_log_bytes(echo: dict, duration: float, flows: list[dict]) -> int:
    """The signal log's bytes (module doc): the periodic signals of 802.11 hops."""
    hosts = len({str(f.get("host") or f.get("name")) for f in flows}) or 1
    hops = echo.get("wireless", {})
    hops = [h for h in (hops if isinstance(hops, list) else [hops]) if isinstance(h, dict)]
    lines = 0.0
    for hop in hops:
        if hop.get("kind") != "wifi":
            continue
        report = seconds(hop.get("snr_report"))
        if report:
            lines += duration / report * (hosts + 1)
        dsa = hop.get("dsa")
        if isinstance(dsa, dict):
            for key in ("node_sensing_every", "cell_sensing_every"):
                every = seconds(dsa.get(key))
                if every:
                    lines += 2 * duration / every * (hosts + 1)
    return int(min(lines, SIGNAL_LOG_MAX) * SIGNAL_LINE_BYTES)


def mss_bytes(text: object) -> int:
    """Bytes in a size as the echo writes it ("1448B"); 1448 if unreadable."""
    match = re.fullmatch(r"\s*(\d+)\s*B?\s*", str(text))
    return int(match.group(1)) if match else 1448


def free_bytes(path: Path) -> int:
    """Free bytes of the filesystem that holds ``path`` (or its nearest existing parent)."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


def check(estimates: Sequence[Estimate], out_dir: Path, limit: int = DEFAULT_LIMIT) -> int:
    """Raise BudgetError unless the runs fit; returns the bytes they will write."""
    worst = max(estimates, key=lambda e: e.total, default=None)
    advice = (
        "shorten sim.duration, coarsen sim.sample_interval, set output.timeseries=false, "
        "turn pcap off or set output.pcap_snaplen, or raise the limit with --max-output"
    )
    if worst is not None and worst.total > limit:
        signals = f", {human_size(worst.signals)} signal log" if worst.signals else ""
        signals += f", {human_size(worst.events)} events" if worst.events else ""
        raise BudgetError(
            f"a run would write about {human_size(worst.total)} of traces "
            f"({human_size(worst.timeseries)} time series, {human_size(worst.pcap)} pcap"
            f"{signals}), over the output limit of {human_size(limit)}: {advice}"
        )
    total = sum(e.written for e in estimates)
    if total > limit:
        raise BudgetError(
            f"{len(estimates)} runs would write about {human_size(total)} of traces, "
            f"over the output limit of {human_size(limit)}: {advice}"
        )
    free = free_bytes(out_dir)
    if total > free:
        raise BudgetError(
            f"{out_dir}: the runs would write about {human_size(total)} but the filesystem "
            f"has {human_size(free)} free"
        )
    return total
