"""Every ``xltcp reproduce`` figure of a time series or a sweep draws all
seeds (the mean with its 95 % band, or error bars) in styles that differ by
colour, marker and line style, through the helpers of :mod:`xltcp.plot`.
The figures are drawn here from small synthetic run folders, so no
simulation runs; the helpers are wrapped to record what each figure gave
them."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from xltcp import plot  # noqa: E402
from xltcp.reproduce import byun2016, dsasync, kim_chung, l2clamp, ucl  # noqa: E402
from xltcp.stats import mean_ci  # noqa: E402

SEEDS = [1, 2, 3]


def _write_series(folder: Path, seed: int, name: str = "flow0") -> None:
    ts = folder / "timeseries"
    ts.mkdir(parents=True, exist_ok=True)
    cols = ["time_s", "goodput_bps", "snd_una_rel", "hop_blocked", "cwnd_bytes", "rto_s"]
    with (ts / f"{name}.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(60):
            t = i * 1.0
            w.writerow([t, 1e5 * seed + 10 * i, 94 * i * seed, int(20 <= i < 25), 1000 + i, 1.0])


@pytest.fixture
def calls(monkeypatch):
    """What band_line and sweep_line were asked to draw."""
    seen: dict[str, list] = {"band": [], "sweep": []}
    band, sweep = plot.band_line, plot.sweep_line

    def band_line(ax, t, runs, i, label, where=None):
        seen["band"].append((len(runs), i, label))
        band(ax, t, runs, i, label, where)

    def sweep_line(ax, xs, means, halves, i, label):
        seen["sweep"].append((list(halves), i, label))
        sweep(ax, xs, means, halves, i, label)

    monkeypatch.setattr(plot, "band_line", band_line)
    monkeypatch.setattr(plot, "sweep_line", sweep_line)
    return seen


def _distinct_styles(drawn: list[tuple]) -> None:
    """The series of one figure use distinct style indices."""
    indices = [i for _, i, _ in drawn]
    assert len(set(indices)) == len(indices), drawn


def test_styles_differ_in_colour_marker_and_line_style():
    for key in ("color", "marker", "ls"):
        values = [repr(s[key]) for s in plot.STYLES]
        assert len(set(values)) == len(values), key


def test_band_line_draws_the_mean_and_the_t_interval_of_every_seed():
    runs = [[1.0, 2.0, 4.0], [3.0, 2.0, 6.0], [2.0, 5.0, 5.0]]
    fig, ax = plt.subplots()
    plot.band_line(ax, [0.0, 1.0, 2.0], runs, 1, "x")
    (line,) = ax.get_lines()
    assert list(line.get_ydata()) == [2.0, 3.0, 5.0]
    assert line.get_label() == "x (mean of 3 seeds)"
    assert (line.get_color(), line.get_marker(), line.get_linestyle()) == ("C3", "s", "--")
    band = [round(float(y), 9) for y in ax.collections[0].get_paths()[0].vertices[:, 1]]
    for column in zip(*runs, strict=True):
        mean, half = mean_ci(list(column))
        # The lower end clipped at 0: every quantity so drawn is nonnegative.
        low = max(mean - half, 0.0)
        assert round(low, 9) in band and round(mean + half, 9) in band, column
    plt.close(fig)


def test_log_axes_are_written_plainly():
    fig, ax = plt.subplots()
    ax.plot([0.1, 0.5, 2.0], [1, 2, 3])
    plot.plain_log_axis(ax, [0.1, 0.25, 0.5, 1.0, 2.0])
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["0.1", "0.25", "0.5", "1", "2"]
    assert all(t.get_text() == "" for t in ax.get_xticklabels(minor=True))
    plt.close(fig)


def test_dsasync_figures_draw_every_seed(tmp_path, calls):
    for seed in SEEDS:
        for name, *_ in dsasync.CONFIGS:
            for d in dsasync.DIRECTIONS:
                _write_series(tmp_path / "runs" / f"{name}-{d}" / f"seed-{seed}", seed)
        for name in ("regular", "dsasync"):
            _write_series(tmp_path / "runs" / f"capacity-{name}" / f"seed-{seed}", seed)
    sweep = [
        {"utilisation": u, "config": c, "goodput_bps": 1e6, "ci95": 1e5}
        for u in (0.1, 0.5)
        for c in ("regular", "dsasync")
    ]
    paths = dsasync.figures(tmp_path, SEEDS, sweep)
    assert all(p.stat().st_size > 0 for p in paths)
    assert calls["band"] and all(n == len(SEEDS) for n, _, _ in calls["band"])
    for k in range(0, 6, 3):  # each direction's three configurations
        _distinct_styles(calls["band"][k : k + 3])
    _distinct_styles(calls["band"][6:8])
    _distinct_styles([(None, i, lab) for _, i, lab in calls["sweep"]])


def test_ucl_moving_figure_draws_every_seed(tmp_path, calls):
    for seed in SEEDS:
        for key, *_ in ucl.MOVING_VARIANTS:
            _write_series(tmp_path / "runs" / f"moving-{key}" / f"seed-{seed}", seed, "ftp")
    moving = {"paper": [{"bs_switch_log": [{"t": 10.0, "iface": 1}, {"t": 20.0, "iface": 0}]}]}
    ucl.figures(moving, tmp_path, SEEDS, sweeps=False)
    assert [n for n, _, _ in calls["band"]] == [len(SEEDS)] * len(ucl.MOVING_VARIANTS)
    _distinct_styles(calls["band"])


def test_l2clamp_figures_draw_every_seed(tmp_path, calls):
    def row(seed):
        return {
            "by_time": {t: 1e6 * seed for t in l2clamp.TIMES_S},
            "queue_samples": [[seed, 2 * seed, 0] for _ in range(30)],
            "mean_queue": float(seed),
            "mn3_empty": 1.0,
            "f1_series": {
                "t": [0.1 * i for i in range(50)],
                "cwnd": [1e4] * 50,
                "flight": [5e3] * 50,
            },
        }

    default = {v: [row(s) for s in SEEDS] for v, _ in l2clamp.VARIANTS}
    l2clamp.figures(default, {}, tmp_path)
    assert calls["band"] and all(n == len(SEEDS) for n, _, _ in calls["band"])
    assert len(calls["band"]) == len(l2clamp.VARIANTS) * (3 + 2)
    assert len(calls["sweep"]) == len(l2clamp.VARIANTS)
    assert all(not math.isnan(h) for halves, _, _ in calls["sweep"] for h in halves)
    _distinct_styles([(None, i, lab) for _, i, lab in calls["sweep"]])


def test_kim_chung_sweeps_have_error_bars_and_distinct_styles(tmp_path, calls):
    results = {
        (v, d, p): [{"goodput_bps": 1e6 * s, "efficiency_bpj": 1e5 * s} for s in SEEDS]
        for v, _ in kim_chung.VARIANTS
        for d in kim_chung.DIRECTIONS
        for p in kim_chung.LOSS_RATES
    }
    kim_chung.figures(results, tmp_path)
    first = calls["sweep"][: len(kim_chung.VARIANTS)]
    _distinct_styles([(None, i, lab) for _, i, lab in first])
    assert all(h > 0 for halves, _, _ in calls["sweep"] for h in halves)


def test_byun2016_time_series_figures_draw_every_seed(tmp_path, calls):
    results = {}
    for name, _ in byun2016.CONFIGS:
        results[name] = []
        for seed in SEEDS:
            key = f"{name}-{seed}"
            _write_series(tmp_path / "runs" / key, seed)
            results[name].append({"seed": seed, "key": key})
    paths = byun2016.figures(tmp_path, results, "standard")
    assert all(p.stat().st_size > 0 for p in paths)
    # Fig. 3: three panels of two; Fig. 4: the six configurations.
    assert [n for n, _, _ in calls["band"]] == [len(SEEDS)] * (3 * 2 + 6)
    _distinct_styles(calls["band"][6:])
