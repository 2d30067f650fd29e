"""`xltcp plot RESULTS --against OTHER` draws one flow of two runs together
(e.g. the emulator's Linux and the simulator on one scenario and seed)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from typer.testing import CliRunner  # noqa: E402

from test_plot_marks import COLUMNS  # noqa: E402
from xltcp import plot  # noqa: E402
from xltcp.cli import app  # noqa: E402


def _run(folder: Path, engine: str | None, flows: list[str], rto_at: float) -> Path:
    (folder / "timeseries").mkdir(parents=True)
    for name in flows:
        with (folder / "timeseries" / f"{name}.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            for i in range(30):
                t = round(i * 0.1, 1)
                state = "loss" if t == rto_at else "open"
                w.writerow([t, 14480, "", 0.05, 1.0, 1000, 1000 * i, 900 * i, 1e6, state, 0])
    summary = {"seed": 3, "scenario": {"name": "pu-blockage"}, "flows": []}
    if engine:
        summary["engine"] = engine
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_each_flow_of_both_runs_is_drawn_with_both_engines_named(tmp_path, monkeypatch):
    emu = _run(tmp_path / "emu", "emu", ["bulk", "only-here"], rto_at=1.0)
    sim = _run(tmp_path / "sim", None, ["bulk"], rto_at=2.0)
    seen = []
    real = plot.compare_figure

    def spy(paths, labels, title):
        fig = real(paths, labels, title)
        seen.append((paths, labels, title, fig))
        return fig

    monkeypatch.setattr(plot, "compare_figure", spy)
    result = CliRunner().invoke(app, ["plot", str(emu), "--against", str(sim)])
    assert result.exit_code == 0, result.output
    assert (emu / "plots" / "bulk-against-sim.png").is_file()
    assert not (emu / "plots" / "only-here-against-sim.png").exists()
    [(paths, labels, title, fig)] = seen
    assert [p.parent.parent.name for p in paths] == ["emu", "sim"]
    assert labels == ["Linux via the emulator (emu)", "simulator (sim)"]
    assert title == "pu-blockage, seed 3: flow bulk"
    # Each run's timeout is marked on the window panel, at its own time.
    window = fig.axes[1]
    marked = sorted(
        float(x) for line in window.lines if line.get_marker() == "v" for x in line.get_xdata()
    )
    assert marked == [1.0, 2.0]


def test_a_folder_without_time_series_or_a_flow_in_common_exits_2(tmp_path):
    emu = _run(tmp_path / "emu", "emu", ["bulk"], rto_at=1.0)
    other = _run(tmp_path / "other", None, ["up"], rto_at=1.0)
    runner = CliRunner()
    empty = runner.invoke(app, ["plot", str(emu), "--against", str(tmp_path)])
    assert empty.exit_code == 2
    assert "--against" in empty.output and "no timeseries/ folder" in empty.output
    disjoint = runner.invoke(app, ["plot", str(emu), "--against", str(other)])
    assert disjoint.exit_code == 2
    assert "no flow name in both" in disjoint.output
