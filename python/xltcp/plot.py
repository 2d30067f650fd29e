"""Plots of a run's time series: one PNG per flow.

Each figure has three panels sharing the time axis: goodput (100 ms bins),
cwnd and ssthresh, and the highest sequence number sent and acknowledged,
with the intervals in which the wireless hop was blocked shaded.
"""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _read(path: Path) -> dict[str, list[float]]:
    cols: dict[str, list[float]] = {}
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            for key, value in row.items():
                try:
                    x = float(value) if value != "" else float("nan")
                except ValueError:
                    continue  # text columns (congestion state)
                cols.setdefault(key, []).append(x)
    return cols


def _blocked_spans(t: list[float], blocked: list[float]) -> list[tuple[float, float]]:
    spans, start = [], None
    for ti, b in zip(t, blocked):
        if b and start is None:
            start = ti
        elif not b and start is not None:
            spans.append((start, ti))
            start = None
    if start is not None and t:
        spans.append((start, t[-1]))
    return spans


def plot_flow(csv_path: Path, out_path: Path, title: str) -> Path:
    """Draws one flow's time series into ``out_path``."""
    fig = flow_figure(csv_path, title)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return out_path


def flow_figure(csv_path: Path, title: str):
    """One flow's goodput, cwnd and sequence panels as a matplotlib figure."""
    c = _read(csv_path)
    t = c.get("time_s", [])
    fig, (ax_g, ax_w, ax_s) = plt.subplots(3, 1, sharex=True, figsize=(9, 7.5))
    ax_g.plot(t, [g / 1e6 for g in c.get("goodput_bps", [])], lw=1)
    ax_g.set_ylabel("goodput (Mbit/s)")
    ax_w.plot(t, [w / 1e3 for w in c.get("cwnd_bytes", [])], lw=1, label="cwnd")
    ss = [s / 1e3 if s < 2**31 else float("nan") for s in c.get("ssthresh_bytes", [])]
    ax_w.plot(t, ss, lw=1, ls="--", label="ssthresh")
    ax_w.set_ylabel("kB")
    ax_w.legend(loc="upper right", fontsize="small")
    ax_s.plot(t, [x / 1e6 for x in c.get("snd_max_rel", [])], lw=1, label="highest sent")
    ax_s.plot(t, [x / 1e6 for x in c.get("snd_una_rel", [])], lw=1, label="highest acked")
    ax_s.set_ylabel("sequence (MB)")
    ax_s.set_xlabel("time (s)")
    ax_s.legend(loc="upper left", fontsize="small")
    for a, b in _blocked_spans(t, c.get("hop_blocked", [])):
        for ax in (ax_g, ax_w, ax_s):
            ax.axvspan(a, b, color="0.85", lw=0)
    fig.suptitle(title + "  (grey: wireless hop blocked)" if any(c.get("hop_blocked", [])) else title)
    fig.tight_layout()
    return fig


def plot_run(run_dir: Path) -> list[Path]:
    """Plots every flow of a results folder into ``run_dir/plots/``."""
    series = sorted((run_dir / "timeseries").glob("*.csv"))
    return [plot_flow(p, run_dir / "plots" / f"{p.stem}.png", p.stem) for p in series]
