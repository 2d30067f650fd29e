"""Paper 000 (Byun, JIPS 2016): the reproduction's figures. Fig. 3 and
Fig. 4 in the paper's layout, the zoom on one PU period, and the sweep and
sensitivity grids (see :mod:`xltcp.reproduce.byun2016`)."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path

from xltcp.reproduce.byun2016_paper import (
    CONFIGS,
    PAPER_PU_MEAN_S,
    PAPER_T_IDLE_S,
    TWINS,
    t_idle_share,
)


def _series(run_dir: Path) -> dict[str, list[float]]:
    files = sorted((run_dir / "timeseries").glob("*.csv"))
    cols: dict[str, list[float]] = {}
    keys = ("time_s", "goodput_bps", "snd_una_rel", "hop_blocked", "cwnd_bytes", "rto_s")
    with open(files[0]) as f:
        for row in csv.DictReader(f):
            for key in keys:
                if key in row:
                    cols.setdefault(key, []).append(float(row[key] or 0.0))
    return cols


def _moving_average(values: Sequence[float], n: int) -> list[float]:
    out, acc = [], 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= n:
            acc -= values[i - n]
        out.append(acc / min(i + 1, n))
    return out


def _pu_spans(run_dir: Path) -> list[tuple[float, float]]:
    """The run's PU-on intervals: exact from its ``events.csv``, else from
    the sampled ``hop_blocked`` column."""
    from xltcp.plot import blocked_spans

    return blocked_spans(sorted((run_dir / "timeseries").glob("*.csv"))[0])[0]


def _shade_pu(
    ax, spans: list[tuple[float, float]], t0: float = -math.inf, t1: float = math.inf
) -> None:
    for start, end in spans:
        if end >= t0 and start <= t1:
            ax.axvspan(start, end, color="0.9", lw=0)


def _common_pu(out: Path, results: dict[str, list[dict]], names) -> tuple[list, str]:
    """The PU-on intervals to shade on a mean over the seeds of ``names``
    (those of every run, when all have the same), and the axis note."""
    from xltcp.plot import common_spans

    spans = common_spans([_pu_spans(out / "runs" / r["key"]) for n in names for r in results[n]])
    if spans is None:
        return [], "time (s); PU periods differ between seeds: not shaded"
    return spans, "time (s); grey: primary user on (every seed)"


def figures(
    out: Path, results: dict[str, list[dict]], family: str = "standard", mss: int = 94
) -> list[Path]:
    """The paper's Fig. 3 (three panels, with and without CR) and Fig. 4
    (packets acknowledged over time) of a family: every seed's run, as the
    mean over seeds with its 95 % confidence band (the seeds of a family
    share the PU schedule of each seed, so the configurations are compared
    on the same primary users)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import band_line

    seeds = [r["seed"] for r in results[CONFIGS[0][0]]]
    span = f"seeds {seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else f"seed {seeds[0]}"
    series = {
        name: [_series(out / "runs" / r["key"]) for r in results[name]] for name, _ in CONFIGS
    }
    written = []
    spans, note = _common_pu(out, results, [n for n, _ in CONFIGS])
    fig, axes = plt.subplots(3, 1, figsize=(9, 8.5), sharex=True, sharey=True)
    for ax, (cr, twin) in zip(axes, TWINS, strict=True):
        _shade_pu(ax, spans)
        for i, name in enumerate((twin, cr)):
            runs = [[g / 1000 for g in _moving_average(s["goodput_bps"], 10)] for s in series[name]]
            t = max((s["time_s"] for s in series[name]), key=len)
            band_line(ax, t, runs, i, dict(CONFIGS)[name])
        ax.set_ylabel("goodput (kbit/s)")
        ax.set_title(dict(CONFIGS)[twin] + " with and without CR-aware TCP", fontsize=9, loc="left")
        ax.legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel(note)
    fig.suptitle(
        f"Goodput, 10 s moving average: mean of {span}, band: 95 % CI (family {family})",
        fontsize=10,
    )
    fig.tight_layout()
    path = out / f"fig3_goodput_{family}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    fig, ax = plt.subplots(figsize=(9, 5.5))
    _shade_pu(ax, spans)
    for i, (name, label) in enumerate(CONFIGS):
        t = max((s["time_s"] for s in series[name]), key=len)
        band_line(ax, t, [[u / mss for u in s["snd_una_rel"]] for s in series[name]], i, label)
    ax.set_xlabel(note)
    ax.set_ylabel("packets acknowledged")
    ax.set_title(f"Sequence traces: mean of {span}, band: 95 % CI (family {family})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / f"fig4_sequence_{family}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    written.append(_zoom(out, results, family))
    return written


def _signals(run_dir: Path) -> list[tuple[float, str]]:
    path = run_dir / "signals.jsonl"
    found = []
    if path.is_file():
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("node") == 1 and rec.get("type") in ("pu_start", "pu_stop"):
                found.append((rec["t_ns"] / 1e9, rec["type"]))
    return found


def _zoom(out: Path, results: dict[str, list[dict]], family: str) -> Path:
    """One PU period (the first of at least 3 s after 30 s, first seed):
    TCP-LR+CR and TCP-LR, cwnd and RTO over time, PU on shaded, the
    pu_start / pu_stop signals marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import style

    # One seed: a PU period is a moment of one seed's schedule, which the
    # other seeds do not share (the figures above average over seeds).
    cr_dir = out / "runs" / results["tcp-lr-cr"][0]["key"]
    cr = _series(cr_dir)
    plain = _series(out / "runs" / results["tcp-lr"][0]["key"])
    # The PU periods at their exact times (events.csv), as the signals are.
    spans = _pu_spans(cr_dir)
    window = (30.0, 60.0)
    for start, end in spans:
        if end - start >= 3 and start >= 30:
            window = (start - 5, end + 8)
            break
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for ax, key, title in ((ax1, "cwnd_bytes", "cwnd (bytes)"), (ax2, "rto_s", "RTO (s)")):
        _shade_pu(ax, spans, *window)
        for i, (s, label) in enumerate(((cr, "TCP-LR+CR"), (plain, "TCP-LR"))):
            if key in s:
                pts = [
                    (x, y)
                    for x, y in zip(s["time_s"], s[key], strict=True)
                    if window[0] <= x <= window[1]
                ]
                ax.step(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    where="post",
                    label=label,
                    markevery=max(1, len(pts) // 12),
                    markersize=4,
                    **style(i),
                )
        ax.set_ylabel(title)
        for when, kind in _signals(out / "runs" / results["tcp-lr-cr"][0]["key"]):
            if window[0] <= when <= window[1]:
                ax.axvline(
                    when, color="tab:green" if kind == "pu_stop" else "tab:red", lw=0.8, ls=":"
                )
        ax.legend(fontsize=8)
    ax2.set_xlim(*window)
    ax2.set_xlabel(
        "time (s); grey: PU on; red dotted: pu_start (freeze), green dotted: pu_stop (resume)"
    )
    fig.suptitle(
        f"One PU period, 1 s samples (seed {results['tcp-lr-cr'][0]['seed']}, family {family})",
        fontsize=10,
    )
    fig.tight_layout()
    path = out / f"zoom_{family}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _ceiling(sweep: str, x: float) -> float:
    if sweep == "t_idle":
        return t_idle_share(x, PAPER_PU_MEAN_S)
    if sweep == "pu_mean":
        return t_idle_share(PAPER_T_IDLE_S, x)
    return t_idle_share()


def _plot_grid(rows, table, configs, out: Path, stem: str, family: str = "standard") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import plain_log_axis, sweep_line

    for sweep, label, values, _ in table:
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        for i, name in enumerate(configs):
            pts = [r for r in rows if r["sweep"] == sweep and r["config"] == name]
            xs = [r["value"] for r in pts]
            ys = [r["efficiency_mean"] for r in pts]
            err = [r["efficiency_ci95"] for r in pts]
            sweep_line(ax, xs, ys, err, i, dict(CONFIGS)[name])
        grid = sorted(values)
        ax.plot(
            grid,
            [_ceiling(sweep, x) for x in grid],
            color="k",
            ls=":",
            label="ceiling exp(-t_idle / mean OFF)",
        )
        if sweep in ("t_idle", "pu_mean", "max_rto"):
            plain_log_axis(ax, grid)
        else:
            ax.set_xticks(grid)
            ax.set_xticklabels([f"{x:g}" for x in grid])
        ax.set_xlabel(label)
        ax.set_title(f"family {family}, mean and 95 % CI over seeds", fontsize=9, loc="left")
        ax.set_ylabel("goodput / oracle bound")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        fig.savefig(out / f"{stem}_{sweep}.png", dpi=110)
        plt.close(fig)
