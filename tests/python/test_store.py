"""The results store: keyed runs, whole folders only, campaigns that resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO, needs_core

LOSSY = REPO / "scenarios" / "lossy-last-hop.toml"


def _plan(seeds=(1, 2, 3, 4), duration="2s"):
    from xltcp import campaign
    from xltcp.values import parse_vary

    return campaign.plan(
        LOSSY,
        [parse_vary("wireless.loss.down.p=0.01,0.05")],
        list(seeds),
        base=[f'sim.duration="{duration}"'],
    )


@needs_core
def test_key_is_scenario_seed_and_version():
    from xltcp import campaign

    plan = _plan()
    keys = [r.key for r in plan.runs]
    assert len(set(keys)) == len(keys) == 8
    # The same scenario reached by other overrides has the same key.
    same = campaign.plan(LOSSY, [], [1], base=['sim.duration="2s"', "wireless.loss.down.p=0.01"])
    assert same.runs[0].key == plan.runs[0].key
    echo = plan.echoes[0]
    assert campaign.run_key(echo, 1, "0.1.0") != campaign.run_key(echo, 1, "0.1.1")
    assert campaign.run_key(echo, 1, "0.1.0") != campaign.run_key(echo, 2, "0.1.0")


@needs_core
def test_interrupted_campaign_resumes_with_the_missing_runs(tmp_path, monkeypatch):
    from xltcp import campaign

    plan = _plan()
    real = campaign.execute
    ran: list[str] = []

    def crash_after_three(spec, runs_dir):
        if len(ran) == 3:
            raise KeyboardInterrupt
        ran.append(spec.key)
        return real(spec, runs_dir)

    monkeypatch.setattr(campaign, "execute", crash_after_three)
    with pytest.raises(KeyboardInterrupt):
        campaign.run_campaign(plan, tmp_path, "threads", 1)
    kept = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert kept == sorted(ran)
    assert not (tmp_path / "results.parquet").exists()
    times = {k: (tmp_path / "runs" / k / "summary.json").stat().st_mtime_ns for k in kept}

    ran.clear()

    def counted(spec, runs_dir):
        ran.append(spec.key)
        return real(spec, runs_dir)

    monkeypatch.setattr(campaign, "execute", counted)
    outcome = campaign.run_campaign(plan, tmp_path, "threads", 2)
    assert outcome.ran == 5 and outcome.skipped == 3
    assert sorted(ran) == sorted({r.key for r in plan.runs} - set(kept))
    for key, mtime in times.items():
        assert (tmp_path / "runs" / key / "summary.json").stat().st_mtime_ns == mtime
    # The resumed table is the one an uninterrupted campaign writes.
    whole = campaign.run_campaign(plan, tmp_path / "whole", "threads", 1)
    assert whole.table_path.read_bytes() == outcome.table_path.read_bytes()

    # Nothing left to run: a third pass runs nothing.
    ran.clear()
    again = campaign.run_campaign(plan, tmp_path, "threads", 2)
    assert again.ran == 0 and again.skipped == 8 and ran == []


@needs_core
def test_more_seeds_run_only_the_new_ones(tmp_path):
    from xltcp import campaign

    campaign.run_campaign(_plan(seeds=(1, 2)), tmp_path, "threads", 2)
    outcome = campaign.run_campaign(_plan(seeds=(1, 2, 3)), tmp_path, "threads", 2)
    assert outcome.ran == 2 and outcome.skipped == 4
    assert len(campaign.read_table(tmp_path)) == 6


@needs_core
def test_killed_campaign_resumes(tmp_path):
    """SIGKILL the command midway: only whole runs are kept, the rest run again."""
    out = tmp_path / "c"
    args = [
        sys.executable, "-m", "xltcp", "sweep", str(LOSSY),
        "--vary", "wireless.loss.down.p=0.001,0.01",
        "--seeds", "1..6", "--set", "sim.duration=300s", "--set", "sim.sample_interval=5ms",
        "--out", str(out), "--jobs", "1", "--quiet",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(args, env=env, start_new_session=True)
    runs = out / "runs"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        whole = [p for p in runs.iterdir() if not p.name.startswith(".")] if runs.is_dir() else []
        if len(whole) >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the campaign ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    whole = sorted(p.name for p in runs.iterdir() if not p.name.startswith("."))
    assert 3 <= len(whole) < 12
    for name in whole:
        summary = json.loads((runs / name / "summary.json").read_text())
        assert summary["duration_s"] == 300.0
        assert (runs / name / "run.json").is_file()
    mtimes = {n: (runs / n / "summary.json").stat().st_mtime_ns for n in whole}

    done = subprocess.run(args[:-1], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    line = " ".join(done.stdout.split())
    assert f"{12 - len(whole)} runs ({len(whole)} already done)" in line
    assert not [p for p in runs.iterdir() if p.name.startswith(".")]
    for name, mtime in mtimes.items():
        assert (runs / name / "summary.json").stat().st_mtime_ns == mtime
    assert (out / "results.parquet").is_file()


@needs_core
def test_a_killed_run_leaves_no_results_folder(tmp_path):
    """xltcp run writes a new folder under a temporary name, renamed when whole."""
    out = tmp_path / "r"
    args = [sys.executable, "-m", "xltcp", "run", str(LOSSY), "--set", "sim.duration=100000s",
            "--set", "sim.sample_interval=1s", "--out", str(out), "--quiet"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(args, env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(tmp_path.glob(".r.tmp-*/timeseries/*.csv")):
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    [partial] = tmp_path.glob(".r.tmp-*")
    assert not (partial / "summary.json").exists()


@needs_core
def test_runs_into_new_and_existing_folders(tmp_path):
    from xltcp import runner

    out = tmp_path / "a" / "b"
    first = runner.run_one(LOSSY, 1, out, ["sim.duration=2s"])
    assert json.loads((out / "summary.json").read_text())["seed"] == first["seed"] == 1
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["b"]
    (out / "notes.txt").write_text("kept")
    runner.run_one(LOSSY, 2, out, ["sim.duration=2s"])
    assert json.loads((out / "summary.json").read_text())["seed"] == 2
    assert (out / "notes.txt").read_text() == "kept"
