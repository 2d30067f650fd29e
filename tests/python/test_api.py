"""The Python API: Scenario, run, sweep, load, and the notebook example."""

from __future__ import annotations

import os
import runpy

import pytest

import xltcp
from xltcp.stats import mean_ci

from conftest import REPO, needs_core

LOSSY = REPO / "scenarios" / "lossy-last-hop.toml"
BYUN = REPO / "scenarios" / "byun2016" / "tcp-lr-cr.toml"


def test_set_writes_toml_overrides():
    s = xltcp.Scenario.load(LOSSY)
    t = s.set({"wireless.rate": "5Mbps", "wireless": {"loss": {"down": {"p": 0.02}}}})
    t = t.set(sim__duration="3s", output__pcap=True)
    assert s.overrides == ()
    assert t.overrides == (
        'wireless.rate="5Mbps"',
        "wireless.loss.down.p=0.02",
        'sim.duration="3s"',
        "output.pcap=true",
    )


@needs_core
def test_scenario_echo_and_errors():
    echo = xltcp.Scenario.load(LOSSY).set({"wireless.rate": "5Mbps"}).echo()
    assert echo["wireless"]["rate"] == "5Mbps"
    from xltcp import _core

    with pytest.raises(_core.ScenarioError, match="wireless.rat"):
        xltcp.Scenario.load(LOSSY).set({"wireless.rat": "5Mbps"}).echo()
    assert xltcp.Scenario.load("demo").path == xltcp.shipped_scenario("demo")


@needs_core
def test_run_result(tmp_path):
    s = xltcp.Scenario.load(LOSSY).set(sim__duration="3s")
    r = xltcp.run(s, seed=4, out=tmp_path)
    assert r.seed == 4 and r.folder == tmp_path
    assert list(r.flows["name"]) == ["bulk"]
    assert r.flows.loc[0, "goodput_bps"] == r.summary["flows"][0]["goodput_bps"]
    series = r.timeseries("bulk")
    assert len(series) == 31 and series["time_s"].iloc[-1] == pytest.approx(3.0)
    assert series.equals(r.timeseries(0))
    with pytest.raises(KeyError, match="no flow 'nope'"):
        r.timeseries("nope")
    assert r.signals.empty
    # Without out, the traces live in a temporary folder as long as the result.
    r2 = xltcp.run(s, seed=4)
    assert r2.timeseries().equals(series)
    folder = r2.folder
    del r2
    assert not folder.exists()


@needs_core
def test_run_signals(tmp_path):
    r = xltcp.run(xltcp.Scenario.load(BYUN).set(sim__duration="30s"), seed=1, out=tmp_path)
    signals = r.signals
    assert len(signals) > 0 and {"t_ns", "node", "type"} <= set(signals.columns)
    assert "pu_start" in set(signals["type"])


@needs_core
def test_from_dict_runs_like_the_file(tmp_path):
    import tomllib

    data = tomllib.loads(LOSSY.read_text())
    data["name"] = "lossy-last-hop"
    data["sim"]["duration"] = "2s"
    a = xltcp.run(xltcp.Scenario.from_dict(data), seed=1).summary
    b = xltcp.run(xltcp.Scenario.load(LOSSY).set(sim__duration="2s"), seed=1).summary
    for s in (a, b):
        s.pop("wall_seconds")
    assert a == b


@needs_core
def test_sweep_and_load(tmp_path):
    from typer.testing import CliRunner

    from xltcp.cli import app

    s = xltcp.Scenario.load(LOSSY).set(sim__duration="2s")
    table = xltcp.sweep(
        s,
        vary={"wireless.loss.down.p": [0.0, 0.05], "wireless.rate": "5Mbps..10Mbps/2"},
        seeds="1..2",
        out=tmp_path / "api",
    )
    assert len(table) == 8
    result = CliRunner().invoke(
        app,
        [
            "sweep", str(LOSSY), "--set", "sim.duration=2s",
            "--vary", "wireless.loss.down.p=0.0,0.05", "--vary", "wireless.rate=5Mbps,10Mbps",
            "--seeds", "1..2", "--out", str(tmp_path / "cli"), "--quiet",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "api" / "results.parquet").read_bytes() == (
        tmp_path / "cli" / "results.parquet"
    ).read_bytes()
    assert xltcp.load(tmp_path / "cli").equals(table)
    run_dir = tmp_path / "api" / "runs" / table["run"].iloc[0]
    loaded = xltcp.load(run_dir)
    assert isinstance(loaded, xltcp.RunResult)
    assert loaded.summary["seed"] == table["seed"].iloc[0]
    with pytest.raises(FileNotFoundError, match="not a results folder"):
        xltcp.load(tmp_path)


@needs_core
def test_notebook_example_runs_top_to_bottom(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = runpy.run_path(str(REPO / "docs" / "notebook.py"), run_name="__main__")
    table = namespace["table"]
    assert len(table) == 30
    assert os.path.isfile(tmp_path / "results" / "notebook-sweep" / "results.parquet")
    # Goodput falls with the loss rate at each link rate.
    summary = namespace["summary"]
    means = summary.set_index(["wireless.rate_bps", "wireless.loss.down.p"])["mean"]
    for rate in (5e6, 10e6):
        assert means[rate, 0.05] < means[rate, 0.0]
    # Student t over the 5 seeds, as the command line computes it.
    row = summary.iloc[0]
    goodputs = table[
        (table["wireless.rate_bps"] == row["wireless.rate_bps"])
        & (table["wireless.loss.down.p"] == row["wireless.loss.down.p"])
    ]["goodput_bps"]
    assert row["seeds"] == 5
    assert row["ci95"] == pytest.approx(mean_ci(list(goodputs))[1])
