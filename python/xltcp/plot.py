"""Plots of a run's time series: one PNG per flow.

Each figure has three panels sharing the time axis: goodput (100 ms bins),
cwnd and ssthresh, and the highest sequence number sent and acknowledged,
with the intervals in which the wireless hop was blocked shaded.

A folder of several seeds (``xltcp run --seeds``: ``seed-<n>/timeseries/``)
is drawn per flow as the mean over seeds at each sample time with its 95%
Student t confidence band, goodput and cwnd, the seeds themselves as thin
lines behind.
"""

from __future__ import annotations

import csv
import math
import re
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
    # An empty cell (no threshold before the first loss) reads as NaN: a gap.
    ss = [s / 1e3 for s in c.get("ssthresh_bytes", [])]
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


def seed_folders(folder: Path) -> list[Path]:
    """The ``seed-<n>`` folders of a seeds run that have time series, by seed."""
    found = [
        p
        for p in folder.glob("seed-*")
        if re.fullmatch(r"seed-[0-9]+", p.name) and (p / "timeseries").is_dir()
    ]
    return sorted(found, key=lambda p: int(p.name.split("-")[1]))


def _mean_band(columns: list[list[float]], confidence: float = 0.95):
    """Per sample index: mean and CI half width over the runs that have it."""
    from xltcp.stats import mean_ci

    length = max((len(c) for c in columns), default=0)
    means, halves = [], []
    for i in range(length):
        values = [c[i] for c in columns if i < len(c) and not math.isnan(c[i])]
        if not values:
            means.append(float("nan"))
            halves.append(float("nan"))
            continue
        mean, half = mean_ci(values, confidence)
        means.append(mean)
        halves.append(0.0 if math.isnan(half) else half)
    return means, halves


def seeds_figure(csv_paths: list[Path], seeds: list[int], title: str):
    """Goodput and cwnd of one flow over seeds: mean, 95% CI band, each seed."""
    runs = [_read(p) for p in csv_paths]
    longest = max(runs, key=lambda c: len(c.get("time_s", [])))
    t = longest.get("time_s", [])
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    panels = (
        ("goodput_bps", 1e6, "goodput (Mbit/s)"),
        ("cwnd_bytes", 1e3, "cwnd (kB)"),
    )
    for ax, (column, scale, label) in zip(axes, panels, strict=True):
        series = [[x / scale for x in c.get(column, [])] for c in runs]
        for one in series:
            ax.plot(t[: len(one)], one, lw=0.5, color="0.7")
        mean, half = _mean_band(series)
        n = min(len(t), len(mean))
        ax.plot(t[:n], mean[:n], lw=1.4, color="C0", label=f"mean of {len(runs)} seeds")
        ax.fill_between(
            t[:n],
            [m - h for m, h in zip(mean[:n], half[:n], strict=True)],
            [m + h for m, h in zip(mean[:n], half[:n], strict=True)],
            color="C0",
            alpha=0.25,
            lw=0,
            label="95% CI",
        )
        ax.set_ylabel(label)
    axes[0].legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"{title}, seeds {_seed_span(seeds)}")
    fig.tight_layout()
    return fig


def _seed_span(seeds: list[int]) -> str:
    if seeds and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}" if len(seeds) > 1 else str(seeds[0])
    return ",".join(str(s) for s in seeds)


def plot_seeds(folder: Path) -> list[Path]:
    """Plots every flow of a seeds run, over its seeds, into ``folder/plots/``."""
    runs = seed_folders(folder)
    seeds = [int(p.name.split("-")[1]) for p in runs]
    names = sorted({p.stem for run in runs for p in (run / "timeseries").glob("*.csv")})
    written = []
    for name in names:
        paths = [r / "timeseries" / f"{name}.csv" for r in runs]
        have = [(p, s) for p, s in zip(paths, seeds, strict=True) if p.is_file()]
        fig = seeds_figure([p for p, _ in have], [s for _, s in have], name)
        out_path = folder / "plots" / f"{name}.png"
        out_path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out_path, dpi=110)
        plt.close(fig)
        written.append(out_path)
    return written
