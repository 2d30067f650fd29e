"""xltcp plot on synthetic folders (no simulation): a flow's start and a
file transfer's completion are marked, a seeds folder's titles name the
scenario and the seeds, and its axes scale their units."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from xltcp import plot  # noqa: E402

COLUMNS = [
    "time_s",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_s",
    "rto_s",
    "flight_bytes",
    "snd_max_rel",
    "snd_una_rel",
    "goodput_bps",
    "congestion_state",
    "hop_blocked",
]


def _run(folder: Path, seed: int, goodput: float) -> Path:
    (folder / "timeseries").mkdir(parents=True)
    with (folder / "timeseries" / "ftp.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for i in range(40):
            rate = goodput * (1 + seed / 10)
            w.writerow(
                [i * 0.1, 3000 + 10 * i, "", 0.05, 1.0, 1000, 1000 * i, 900 * i, rate, "open", 0]
            )
    summary = {
        "seed": seed,
        "scenario": {"name": "lossy", "flow": [{"name": "ftp", "start": "1.5s"}]},
        "flows": [{"name": "ftp", "completion_s": 2.0}],
    }
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_start_and_completion_are_marked(tmp_path, monkeypatch):
    run = _run(tmp_path / "r", 4, 2e4)
    seen = []
    real = plot.flow_figure

    def spy(path, title, marks=None):
        fig = real(path, title, marks)
        seen.append((title, marks, fig))
        return fig

    monkeypatch.setattr(plot, "flow_figure", spy)
    plot.plot_run(run)
    ((title, marks, fig),) = seen
    assert title == "lossy, seed 4: flow ftp"
    assert marks == {"start": 1.5, "completed": 3.5}
    goodput_axis = fig.axes[0]
    dotted = [ln.get_xdata()[0] for ln in goodput_axis.get_lines() if ln.get_linestyle() == ":"]
    assert dotted == [1.5, 3.5]
    assert goodput_axis.get_ylabel() == "goodput (kbit/s)"


def test_seed_folders_name_the_scenario_and_seeds_and_scale_units(tmp_path, monkeypatch):
    for seed in (1, 2, 3):
        _run(tmp_path / f"seed-{seed}", seed, 500.0)
    figures = []
    real = plot.seeds_figure

    def spy(paths, seeds, title):
        fig = real(paths, seeds, title)
        figures.append(fig)
        return fig

    monkeypatch.setattr(plot, "seeds_figure", spy)
    monkeypatch.setattr(plt, "close", lambda fig: None)
    (written,) = plot.plot_seeds(tmp_path)
    assert written.name == "ftp.png"
    (fig,) = figures
    assert fig._suptitle.get_text() == "lossy: flow ftp, seeds 1..3"
    assert [ax.get_ylabel() for ax in fig.axes] == [
        "goodput, 1 s moving average (bit/s)",
        "cwnd (kB)",
    ]
