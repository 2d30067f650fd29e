import csv
import json
import math

import pytest

from xltcp import runner, schema
from xltcp.cli import ProgressView, default_out_dir


def summary(seed, goodputs, retx=(0, 0)):
    return {
        "xltcp_version": "0.1.0",
        "scenario": {"name": "two"},
        "seed": seed,
        "duration_s": 2.0,
        "events": 100 * seed,
        "wall_seconds": 0.25,
        "flows": [
            {
                "name": name,
                "direction": direction,
                "goodput_bps": goodput,
                "efficiency": goodput / 10e6,
                "retransmissions": r,
                "rto_count": 1,
                "fast_retransmits": 0,
                "bytes_delivered": int(goodput * 2 / 8),
                "oracle_bps": 10e6,
                "cwnd_max": 9,
                "nested": {"ignored": True},
            }
            for name, direction, goodput, r in zip(
                ("a", "b"), ("down", "up"), goodputs, retx, strict=True
            )
        ],
    }


RUNS = [
    summary(1, (1e6, 4e6), (1, 10)),
    summary(2, (2e6, 4e6), (2, 20)),
    summary(3, (3e6, 4e6), (3, 30)),
    summary(4, (4e6, 4e6), (4, 40)),
    summary(5, (5e6, 4e6), (5, 50)),
]


def test_aggregate_per_flow_mean_and_interval():
    agg = runner.aggregate(RUNS)
    assert agg["seeds"] == [1, 2, 3, 4, 5]
    assert agg["events"] == 1500
    assert agg["wall_seconds"] == pytest.approx(1.25)
    a, b = agg["flows"]
    assert (a["name"], a["direction"], a["runs"]) == ("a", "down", 5)
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)
    assert a["goodput_bps"]["mean"] == pytest.approx(3e6)
    assert a["goodput_bps"]["ci_half_width"] == pytest.approx(half * 1e6)
    assert (a["goodput_bps"]["min"], a["goodput_bps"]["max"]) == (1e6, 5e6)
    assert a["retransmissions"]["mean"] == pytest.approx(3.0)
    assert a["efficiency"]["mean"] == pytest.approx(0.3)
    assert b["goodput_bps"] == {"mean": 4e6, "ci_half_width": 0.0, "min": 4e6, "max": 4e6}
    assert b["retransmissions"]["ci_half_width"] == pytest.approx(half * 10)
    assert b["rto_count"]["ci_half_width"] == 0.0


def test_aggregate_of_one_run_writes_null_width():
    agg = runner.aggregate(RUNS[:1])
    assert agg["flows"][0]["goodput_bps"]["ci_half_width"] is None
    json.dumps(agg, allow_nan=False)


def test_runs_csv_one_row_per_run_and_flow(tmp_path):
    path = tmp_path / "runs.csv"
    runner.write_runs_csv(path, RUNS[:2])
    rows = list(csv.DictReader(path.open()))
    assert [(r["seed"], r["flow"]) for r in rows] == [
        ("1", "a"),
        ("1", "b"),
        ("2", "a"),
        ("2", "b"),
    ]
    header = path.read_text().splitlines()[0].split(",")
    # The campaign table's schema: seed, flow, the flow's fields (nested ones
    # dotted), the run's metrics; no wall time (it is not a result).
    assert header == ["seed", *schema.flow_rows(RUNS[0])[0]]
    assert header[:4] == ["seed", "flow", "direction", "goodput_bps"]
    assert "nested.ignored" in header and "events" in header
    assert "name" not in header and "wall_seconds" not in header
    assert rows[3]["goodput_bps"] == "4000000.0"
    assert rows[3]["events"] == "200"


def test_overrides_list_accepts_mappings_and_strings():
    assert runner.overrides_list(None) == []
    assert runner.overrides_list("sim.duration=2s") == ["sim.duration=2s"]
    assert runner.overrides_list(["a=1", "b=2"]) == ["a=1", "b=2"]
    assert runner.overrides_list({"sim.duration": "2s", "tcp.sack": False, "p": 0.05}) == [
        "sim.duration=2s",
        "tcp.sack=false",
        "p=0.05",
    ]


def test_default_out_dir_uses_the_scenario_name(tmp_path):
    assert str(default_out_dir({"name": "demo"}, tmp_path / "x.toml")) == "results/demo"
    assert str(default_out_dir({}, tmp_path / "lossy.toml")) == "results/lossy"
    assert str(default_out_dir({"name": "a b/../c"}, tmp_path / "x.toml")) == "results/a_b_.._c"


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_progress_bar_appears_only_after_the_delay():
    from rich.console import Console

    clock = FakeClock()
    view = ProgressView(
        Console(file=open("/dev/null", "w"), force_terminal=True), 3, True, delay=2.0, clock=clock
    )
    view.run_started(0, 1)
    view.progress(5.0, 20.0)
    assert view.bar is None
    clock.now = 101.9
    view.progress(10.0, 20.0)
    assert view.bar is None
    clock.now = 102.0
    view.progress(15.0, 20.0)
    assert view.bar is not None
    tasks = {t.description: t for t in view.bar.tasks}
    assert tasks["seed 1"].completed == 15.0 and tasks["seed 1"].total == 20.0
    view.run_finished(0, 1, {})
    view.run_started(1, 2)
    tasks = {t.description: t for t in view.bar.tasks}
    assert tasks["seeds"].completed == 1 and tasks["seeds"].total == 3
    assert tasks["seed 2"].completed == 0.0
    view.close()
    assert view.bar is None


def test_progress_bar_never_appears_when_disabled():
    from rich.console import Console

    clock = FakeClock()
    view = ProgressView(Console(file=open("/dev/null", "w")), 1, False, clock=clock)
    clock.now = 1000.0
    view.progress(1.0, 2.0)
    assert view.bar is None
