"""Paper 000 (Byun, JIPS 2016): what the reproduction runs and compares
against. The six configurations and their CR-aware twins, the two preset
families, the paper's own figures and ordering, the table's metrics, and
the sweeps and sensitivity cases (see :mod:`xltcp.reproduce.byun2016`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import xltcp

#: (preset file stem, label) in the paper's order.
CONFIGS: tuple[tuple[str, str], ...] = (
    ("newreno", "NewReno"),
    ("phy-lr", "PHY-LR"),
    ("tcp-lr", "TCP-LR"),
    ("newreno-cr", "NewReno+CR"),
    ("phy-lr-cr", "PHY-LR+CR"),
    ("tcp-lr-cr", "TCP-LR+CR"),
)

#: Each CR-aware configuration and its twin without CR-aware TCP.
TWINS: tuple[tuple[str, str], ...] = (
    ("newreno-cr", "newreno"),
    ("phy-lr-cr", "phy-lr"),
    ("tcp-lr-cr", "tcp-lr"),
)

#: The preset families: (name, what sets it apart), the paper's first.
FAMILIES: tuple[tuple[str, str], ...] = (
    (
        "paper",
        "no MAC retries; with CR-aware TCP the sender's MAC held from pu_start to "
        "pu_stop, without it contending while the PU is on",
    ),
    ("standard", "802.15.4 MAC retries (3), the MAC contending while a PU is on"),
)

#: The paper's ordering of the sequence traces, best first; the last two
#: are tied in the paper ("{PHY-LR, NewReno}").
PAPER_ORDER: tuple[str, ...] = ("tcp-lr-cr", "phy-lr-cr", "newreno-cr", "tcp-lr")

#: The paper's own figures for the configurations (§5.1, on Fig. 3: "Over
#: the course of 600 seconds, they only succeeded in delivering 26 packets
#: (TCP-NewReno) and 163 packets (PHY-LR scheme), respectively"): packets
#: delivered in one 600 s run each.
PAPER_PACKETS: dict[str, float] = {"newreno": 26.0, "phy-lr": 163.0}

#: The paper's other result figure (§5.1): "we observed poor goodput over
#: all the TCP implementations (at most up to 780 kB/s)". As printed; an
#: 802.15.4 channel carries at most 250 kbit/s = 31.25 kB/s.
PAPER_PEAK_GOODPUT = "at most up to 780 kB/s"

#: How many seeds, at most, the reproduction runs to decide a step of the
#: ordering the requested seeds leave undecided (paired 95 % interval
#: across zero); only when at least :data:`DECIDE_FROM` seeds were asked for.
DECIDE_SEEDS = 50

DECIDE_FROM = 10

#: Metrics of the table: (key, column title, format).
METRICS: tuple[tuple[str, str, str], ...] = (
    ("packets", "delivered packets", "{:.0f}"),
    ("goodput_bps", "goodput (bit/s)", "{:.0f}"),
    ("rto_count", "RTOs", "{:.1f}"),
    ("tcp_rtx", "TCP rtx", "{:.0f}"),
    ("lr_rtx", "LR link rtx", "{:.0f}"),
    ("mac_rtx", "MAC rtx", "{:.0f}"),
    ("total_rtx", "total rtx", "{:.0f}"),
    ("efficiency", "efficiency", "{:.3f}"),
    ("normalised", "normalised", "{:.3f}"),
    ("lr_reports", "LR reports", "{:.0f}"),
    ("lr_reports_lost", "LR reports lost", "{:.0f}"),
    ("lr_repair_ms", "LR repair (ms)", "{:.0f}"),
    ("lr_buffer_peak", "LR link buffer peak", "{:.0f}"),
)

#: The causes of the RTOs (``summary.json``'s ``rto_causes``, what the
#: simulator saw of each timeout): (key, column title).
RTO_CAUSES: tuple[tuple[str, str], ...] = (
    ("blockage", "blockage"),
    ("lost_ack", "lost ACK"),
    ("lost_retransmission", "lost retransmission"),
    ("lost_report", "lost report"),
    ("lost_segment", "lost segment"),
    ("late", "late ACK"),
)

#: Every per-run value the table keeps: the metrics, then the RTO causes.
KEYS: tuple[str, ...] = tuple(k for k, _, _ in METRICS) + tuple(f"rto_{k}" for k, _ in RTO_CAUSES)

#: The presets' mean PU OFF period and t_idle (for the ceiling lines).
PAPER_PU_MEAN_S = 4.0

PAPER_T_IDLE_S = 1.0

#: Configurations the standard family's sweeps run.
SWEEP_CONFIGS = ("newreno", "newreno-cr", "phy-lr-cr", "tcp-lr-cr")


def t_idle_share(t_idle_s: float = PAPER_T_IDLE_S, mean_off_s: float = PAPER_PU_MEAN_S) -> float:
    """The share of PU-OFF time a detector with ``t_idle`` leaves usable,
    with exponential OFF periods: E[(OFF - t_idle)+] / E[OFF] = exp(-t_idle / mean)."""
    return math.exp(-t_idle_s / mean_off_s)


def preset(name: str, family: str = "standard") -> Path:
    """The path of a byun2016 preset of a family."""
    root = xltcp.scenarios_dir() / "byun2016"
    return (root / f"{name}.toml") if family == "standard" else (root / family / f"{name}.toml")


#: Sweeps of the standard family: name, axis label, values, overrides of one value.
SWEEPS: tuple[tuple[str, str, tuple[float, ...], Callable[[float], list[str]]], ...] = (
    (
        "t_idle",
        "t_idle (s)",
        (0.1, 0.25, 0.5, 1.0, 2.0),
        lambda v: [f'pu_detection.t_idle="{v}s"'],
    ),
    (
        "pu_mean",
        "PU mean ON = mean OFF (s)",
        (0.5, 1.0, 2.0, 4.0, 8.0),
        lambda v: [
            f'wireless.availability.on="exp({v}s)"',
            f'wireless.availability.off="exp({v}s)"',
        ],
    ),
    (
        "missed_detection",
        "missed-detection probability",
        (0.0, 0.05, 0.1, 0.15, 0.2),
        lambda v: [f"pu_detection.missed_detection={v}"],
    ),
)

#: The sensitivity of both families: name, axis label, values, overrides.
SENSITIVITY: tuple[tuple[str, str, tuple[float, ...], Callable[[float], list[str]]], ...] = (
    (
        "max_rto",
        "max RTO (s)",
        (4.0, 10.0, 60.0, 120.0, 600.0),
        lambda v: [f'tcp.max_rto="{v}s"'],
    ),
    (
        "mac_retries",
        "macMaxFrameRetries",
        (0.0, 1.0, 2.0, 3.0),
        lambda v: [f"wireless.max_frame_retries={int(v)}"],
    ),
    (
        "frame_loss",
        "random frame loss each way",
        (0.0, 0.02, 0.05, 0.1, 0.2, 0.3),
        lambda v: [f"wireless.loss.up.p={v}", f"wireless.loss.down.p={v}"],
    ),
    (
        "signalling_delay",
        "signalling delay (s)",
        (0.0, 0.01, 0.03, 0.1),
        lambda v: [f'pu_detection.signalling_delay="{v}s"'],
    ),
    ("t_idle", "t_idle (s)", (0.1, 0.25, 0.5, 1.0, 2.0), lambda v: [f'pu_detection.t_idle="{v}s"']),
    (
        "pu_mean",
        "PU mean ON = mean OFF (s)",
        (1.0, 2.0, 4.0, 8.0, 16.0),
        lambda v: [
            f'wireless.availability.on="exp({v}s)"',
            f'wireless.availability.off="exp({v}s)"',
        ],
    ),
    (
        "wired_delay",
        "wired delay (ms)",
        (0.5, 1.0, 2.0, 5.0, 10.0, 20.0),
        lambda v: [f'wired.delay="{v}ms"'],
    ),
    (
        "wired_jitter",
        "wired jitter (µs)",
        (0.0, 10.0, 50.0, 100.0, 200.0, 500.0),
        lambda v: [f'wired.jitter="{int(v)}us"'],
    ),
    (
        "host_stack",
        "hosts' stack latency: v µs + up to 3v µs",
        (0.0, 5.0, 10.0, 20.0, 50.0, 100.0),
        lambda v: [f'hosts.stack_delay="{int(v)}us"', f'hosts.stack_jitter="{int(3 * v)}us"'],
    ),
    (
        # The paper's hosts: TCP and 802.15.4 as user processes on a USRP
        # E100's ARM core, talking over Unix domain sockets (§4.1, §4.2).
        "usrp_stack",
        "hosts' stack latency: v ms + up to v ms",
        (0.0, 1.0, 5.0, 10.0, 20.0, 50.0, 100.0),
        lambda v: [f'hosts.stack_delay="{int(v)}ms"', f'hosts.stack_jitter="{int(v)}ms"'],
    ),
)
