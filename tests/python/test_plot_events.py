"""Plots drawn from exact event times (``events.csv``), seeds bands that
stay nonnegative, axes that fit the data, and blockage shading only where
every seed shows the same."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from xltcp import budget, plot, results  # noqa: E402

from conftest import REPO, needs_core  # noqa: E402

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

EVENTS_HEADER = ["time_s", "flow", "event", "cwnd_bytes", "ssthresh_bytes", "rto_s"]


def _series(folder: Path, goodput, blocked=None, states=None, name: str = "ftp") -> Path:
    """A run folder with one flow's time series at 100 ms samples."""
    (folder / "timeseries").mkdir(parents=True)
    path = folder / "timeseries" / f"{name}.csv"
    n = len(goodput)
    blocked = blocked or [0] * n
    states = states or ["open"] * n
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for i in range(n):
            w.writerow(
                [
                    f"{i * 0.1:.3f}",
                    3000 + 10 * i,
                    "",
                    0.05,
                    1.0,
                    1000,
                    1448 * i + 2896,
                    1448 * i,
                    goodput[i],
                    states[i],
                    blocked[i],
                ]
            )
    (folder / "summary.json").write_text(
        json.dumps({"seed": 1, "duration_s": n * 0.1, "scenario": {"name": "x"}})
    )
    return path


def _events(folder: Path, rows) -> None:
    with (folder / "events.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(EVENTS_HEADER)
        w.writerows(rows)


def _markers(fig, label: str) -> list[float]:
    ax_w = fig.axes[1]
    found = [ln for ln in ax_w.get_lines() if ln.get_label() == label]
    return [float(x) for ln in found for x in ln.get_xdata()]


def test_markers_sit_at_the_events_times_not_the_samples(tmp_path):
    states = ["open"] * 5 + ["loss"] * 10 + ["open"] * 5
    path = _series(tmp_path, [1e6] * 20, states=states)
    _events(
        tmp_path,
        [
            ["0.123456789", "ftp", "fast_retransmit", 5000, 2500, "1.0"],
            ["0.437000001", "ftp", "rto", 1448, 2500, "2.0"],
            ["0.437000001", "other", "rto", 1448, 2500, "2.0"],
            ["1.437000000", "ftp", "loss_end", 6000, 2500, "1.0"],
        ],
    )
    fig = plot.flow_figure(path, "t")
    assert _markers(fig, "RTO") == [0.437000001]
    assert _markers(fig, "fast recovery") == [0.123456789]
    plt.close(fig)


def test_without_events_the_sampled_states_are_used_and_said(tmp_path):
    states = ["open"] * 5 + ["loss"] * 10 + ["open"] * 5
    path = _series(tmp_path, [1e6] * 20, states=states)
    fig = plot.flow_figure(path, "t")
    assert _markers(fig, "RTO (sampled)") == [0.5]
    assert _markers(fig, "RTO") == []
    plt.close(fig)


def test_blocked_spans_come_from_the_events(tmp_path):
    blocked = [0] * 3 + [1] * 4 + [0] * 13
    path = _series(tmp_path, [1e6] * 20, blocked=blocked)
    assert plot.blocked_spans(path) == ([(0.3, 0.7)], False)
    _events(
        tmp_path,
        [
            ["0.250000000", "", "hop_blocked", "", "", ""],
            ["0.650000000", "", "hop_unblocked", "", "", ""],
            ["1.950000000", "", "hop_blocked", "", "", ""],
        ],
    )
    # One still open at the end runs to the run's duration.
    assert plot.blocked_spans(path) == ([(0.25, 0.65), (1.95, 2.0)], True)


def test_sent_and_acked_are_told_apart(tmp_path):
    path = _series(tmp_path, [1e6] * 20)
    fig = plot.flow_figure(path, "t")
    ax_s, ax_o = fig.axes[2], fig.axes[3]
    assert [ln.get_label() for ln in ax_s.get_lines()] == ["highest acked"]
    (gap,) = ax_o.get_lines()
    # sent - acked: two segments all along, on an axis of its own.
    assert set(gap.get_ydata()) == {2.896}
    assert ax_o.get_ylabel() == "sent beyond acked (kB)"
    plt.close(fig)


def _seeds(tmp_path: Path, goodputs, blocked=None, events=None) -> list[Path]:
    paths = []
    for k, g in enumerate(goodputs):
        folder = tmp_path / f"seed-{k + 1}"
        paths.append(_series(folder, g, blocked=blocked[k] if blocked else None))
        if events:
            _events(folder, events[k])
    return paths


def _band_ys(ax) -> list[float]:
    return [float(y) for c in ax.collections for y in c.get_paths()[0].vertices[:, 1]]


def test_seeds_bands_never_go_below_zero(tmp_path):
    # Two seeds near zero, one far above: the t interval reaches below 0.
    g = [[0.0] * 20, [0.0] * 20, [5e6] * 20]
    lo = plot.mean_band([[0.0, 1.0], [0.0, 1.0], [9.0, 1.0]])[1]
    assert lo[0] < 0
    assert plot.mean_band([[0.0, 1.0], [0.0, 1.0], [9.0, 1.0]], floor=0.0)[1][0] == 0.0
    fig = plot.seeds_figure(_seeds(tmp_path, g), [1, 2, 3], "t")
    for ax in fig.axes:
        ys = _band_ys(ax)
        assert ys and min(ys) >= 0.0
        assert ax.get_ylim()[0] == 0.0
    plt.close(fig)


def test_band_line_clips_at_zero_and_keeps_one_line():
    fig, ax = plt.subplots()
    plot.band_line(ax, [0.0, 1.0], [[0.0, 1.0], [0.0, 1.0], [9.0, 1.0]], 0, "x")
    assert len(ax.get_lines()) == 1
    assert min(_band_ys(ax)) == 0.0
    (band,) = ax.collections
    # A light fill with stronger edges: overlapping bands stay readable.
    assert band.get_facecolor()[0][3] == pytest.approx(plot.BAND_ALPHA)
    assert band.get_edgecolor()[0][3] == pytest.approx(plot.BAND_EDGE_ALPHA)
    plt.close(fig)


def test_seeds_goodput_is_smoothed_so_the_axis_fits(tmp_path):
    # Deliveries in bursts: 10 Mbit/s on average, 100 Mbit/s samples.
    burst = [1e8 if i % 10 == 0 else 0.0 for i in range(40)]
    fig = plot.seeds_figure(_seeds(tmp_path, [burst, burst]), [1, 2], "t")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "goodput, 1 s moving average (Mbit/s)"
    (mean,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("mean")]
    assert max(mean.get_ydata()[10:]) == pytest.approx(10.0)
    plt.close(fig)


def _shaded(fig) -> int:
    from matplotlib.patches import Rectangle

    return sum(
        isinstance(p, Rectangle) and p.get_facecolor()[:3] == (0.88, 0.88, 0.88)
        for p in fig.axes[0].patches
    )


def test_shading_only_when_every_seed_has_the_same_blockages(tmp_path):
    same = [["1.000000000", "", "hop_blocked", "", "", ""]] * 2
    other = [
        ["1.000000000", "", "hop_blocked", "", "", ""],
        ["1.5", "", "hop_unblocked", "", "", ""],
    ]
    paths = _seeds(tmp_path / "same", [[1e6] * 20] * 2, events=[same, same])
    fig = plot.seeds_figure(paths, [1, 2], "t")
    assert _shaded(fig) == 1
    assert "the same in every seed" in fig._suptitle.get_text()
    plt.close(fig)
    paths = _seeds(tmp_path / "differ", [[1e6] * 20] * 2, events=[same, other])
    fig = plot.seeds_figure(paths, [1, 2], "t")
    assert _shaded(fig) == 0
    assert "blockages differ: not shaded" in fig._suptitle.get_text()
    plt.close(fig)
    # Sampled columns alike: differing schedules shade nothing.
    b1 = [0] * 5 + [1] * 5 + [0] * 10
    b2 = [0] * 6 + [1] * 5 + [0] * 9
    paths = _seeds(tmp_path / "sampled", [[1e6] * 20] * 2, blocked=[b1, b2])
    fig = plot.seeds_figure(paths, [1, 2], "t")
    assert _shaded(fig) == 0
    plt.close(fig)


def test_events_file_is_xltcps_and_budgeted():
    assert "events.csv" in results.OWN_FILES
    echo = {
        "sim": {"duration": "60s", "sample_interval": "100ms"},
        "wired": {"delay": "10ms"},
        "wireless": {"delay": "1ms"},
        "flow": [{"name": "a"}, {"name": "b"}],
    }
    e = budget.estimate_run(echo)
    # Two lines per flow a sample.
    assert e.events == int(2 * 2 * 600 * budget.EVENT_LINE_BYTES)
    assert e.total == e.timeseries + e.pcap + e.signals + e.events
    off = budget.estimate_run({**echo, "output": {"timeseries": False}})
    assert off.events == 0


def _rto_count(folder: Path, flow: str) -> int:
    summary = json.loads((folder / "summary.json").read_text())
    return next(f["rto_count"] for f in summary["flows"] if f["name"] == flow)


@needs_core
def test_demo_up_flow_rto_is_marked_at_its_event_time(tmp_path):
    from xltcp import api

    out = tmp_path / "demo"
    api.run(REPO / "scenarios" / "demo.toml", seed=1, out=out)
    events = plot.read_events(out)
    assert events is not None
    rtos = [e["time_s"] for e in events if e["flow"] == "up" and e["event"] == "rto"]
    assert rtos and len(rtos) == _rto_count(out, "up")
    fig = plot.flow_figure(out / "timeseries" / "up.csv", "t")
    assert _markers(fig, "RTO") == rtos
    plt.close(fig)


@needs_core
def test_pu_blockage_rto_markers_match_the_summary(tmp_path):
    from xltcp import api

    out = tmp_path / "pu"
    api.run(REPO / "scenarios" / "pu-blockage.toml", seed=1, out=out)
    fig = plot.flow_figure(next((out / "timeseries").glob("*.csv")), "t")
    flow = next((out / "timeseries").glob("*.csv")).stem
    assert len(_markers(fig, "RTO")) == _rto_count(out, flow) > 0
    plt.close(fig)
