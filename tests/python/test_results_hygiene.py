"""Results folders: never mixed, always saying what made them."""

import csv
import json

from typer.testing import CliRunner

from xltcp import results, runner
from xltcp.cli import app

from conftest import needs_core

pytestmark = needs_core

SHORT = ["--set", "sim.duration=1s"]


def invoke(*args, cwd=None):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_a_non_empty_out_is_refused_without_force(demo, tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = invoke("run", demo, *SHORT, "--out", out, "--quiet")
    assert result.exit_code == 2
    assert "not empty" in result.stderr and "--force" in result.stderr
    assert (out / "notes.txt").read_text() == "mine"
    # --force does not remove a folder xltcp did not write.
    result = invoke("run", demo, *SHORT, "--out", out, "--quiet", "--force")
    assert result.exit_code == 2
    assert "not a results folder written by xltcp" in result.stderr
    assert (out / "notes.txt").is_file()


def test_force_replaces_an_old_run_so_nothing_stale_is_left(demo, tmp_path):
    out = tmp_path / "r"
    assert invoke("run", demo, *SHORT, "--out", out, "--quiet").exit_code == 0
    (out / "timeseries" / "stale-flow.csv").write_text("time_s\n")
    again = invoke("run", demo, *SHORT, "--out", out, "--quiet")
    assert again.exit_code == 2
    result = invoke("run", demo, *SHORT, "--out", out, "--quiet", "--force")
    assert result.exit_code == 0, result.output
    assert not (out / "timeseries" / "stale-flow.csv").exists()


def test_the_default_folder_moves_on_to_a_fresh_numbered_one(demo, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = invoke("run", demo, *SHORT)
    second = invoke("run", demo, *SHORT)
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    assert "results in results/demo\n" in first.stdout
    assert "results in results/demo-2\n" in second.stdout
    assert (tmp_path / "results" / "demo-2" / "summary.json").is_file()


def test_manifest_says_what_made_the_folder(demo, tmp_path):
    out = tmp_path / "r"
    result = invoke("run", demo, *SHORT, "--seed", "4", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["overrides"] == ["sim.duration=1s"]
    assert manifest["seeds"] == [4]
    assert manifest["scenario"]["sha256"] == results.sha256_file(demo)
    echo = runner.validate(demo, ["sim.duration=1s"])
    assert manifest["scenario"]["validated_sha256"] == results.sha256_json(echo)
    assert manifest["core_version"] and manifest["host"]["name"] is not None
    assert manifest["started_at"] <= manifest["finished_at"]
    assert "finished seed 4" in (out / "run.log").read_text()


def test_seeds_append_runs_csv_and_log_as_they_finish(demo, tmp_path, monkeypatch):
    out = tmp_path / "r"
    real = runner.run_one
    calls = []

    def interrupted_third(path, seed, *args, **kwargs):
        calls.append(seed)
        if seed == 3:
            raise KeyboardInterrupt
        return real(path, seed, *args, **kwargs)

    monkeypatch.setattr(runner, "run_one", interrupted_third)
    result = invoke("run", demo, *SHORT, "--seeds", "1..4", "--out", out, "--quiet")
    assert result.exit_code == 130
    assert calls == [1, 2, 3]
    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert sorted({r["seed"] for r in rows}) == ["1", "2"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["seeds"] == [1, 2, 3, 4]
    log = (out / "run.log").read_text()
    assert "finished seed 2" in log and "failed seed 3" in log
    assert "finished seed 1" in (out / "seed-1" / "run.log").read_text()
    assert not (out / "aggregate.json").exists()


def test_plot_draws_a_seeds_folder_as_mean_and_band(demo, tmp_path):
    out = tmp_path / "r"
    result = invoke("run", demo, *SHORT, "--seeds", "1..3", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    drawn = invoke("plot", out)
    assert drawn.exit_code == 0, drawn.output
    flows = json.loads((out / "seed-1" / "summary.json").read_text())["flows"]
    for flow in flows:
        png = out / "plots" / f"{flow['name']}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_mean_band_is_the_t_interval_per_sample():
    from xltcp.plot import _mean_band
    from xltcp.stats import mean_ci

    means, halves = _mean_band([[1.0, 2.0], [3.0, 4.0], [5.0]])
    assert means == [3.0, 3.0]
    assert halves[0] == mean_ci([1.0, 3.0, 5.0])[1]
    assert halves[1] == mean_ci([2.0, 4.0])[1]
