"""Data safety: ``--force`` and ``--out`` never lose a file xltcp did not
write; a killed run leaves nothing that looks whole, nothing hidden once the
next run has gone, and resumes to the tables of an uninterrupted run."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from xltcp import results
from xltcp.cli import app

from conftest import REPO, needs_core

pytestmark = needs_core

LOSSY = REPO / "scenarios" / "lossy-last-hop.toml"
SHORT = ["--set", "sim.duration=1s"]

#: Long enough to be killed midway: about a second of wall time per run.
SLOW = ["--set", "sim.duration=1000s"]

COMMANDS = {
    "run": ["run", LOSSY],
    "run --seeds": ["run", LOSSY, "--seeds", "1..2"],
    "sweep": ["sweep", LOSSY, "--vary", "sim.seed=1,2"],
}

#: Every flag that changes what a command does with a folder that holds files.
FLAGS = {"run": [[], ["--force"]], "run --seeds": [[], ["--force"], ["--resume"]]}
FLAGS["sweep"] = [[], ["--append"]]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) and its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def hidden(*folders: Path) -> list[str]:
    return [p.name for folder in folders if folder.is_dir() for p in folder.glob(".*")]


# --- Folders that hold someone else's files ------------------------------------


def other_program(folder: Path) -> None:
    folder.mkdir()
    (folder / "manifest.json").write_text('{"name": "my-app", "version": "1.0"}\n')
    (folder / "index.html").write_text("<html>my site</html>\n")


def old_marker_names(folder: Path) -> None:
    folder.mkdir()
    (folder / "summary.json").write_text("{}\n")
    (folder / "thesis.tex").write_text("\\documentclass{article}\n")


def xltcp_run_and_notes(folder: Path) -> None:
    assert invoke("run", LOSSY, *SHORT, "--out", folder, "-q").exit_code == 0
    (folder / "notes.txt").write_text("mine\n")


def xltcp_seeds_and_a_plot_of_mine(folder: Path) -> None:
    result = invoke("run", LOSSY, *SHORT, "--seeds", "1..2", "--out", folder, "-q")
    assert result.exit_code == 0, result.output
    (folder / "seed-1" / "timeseries" / "by-hand.txt").write_text("mine\n")


def results_table_and_notes(folder: Path) -> None:
    folder.mkdir()
    (folder / "results.csv").write_text("a,b\n1,2\n")
    (folder / "notes.txt").write_text("mine\n")


FOLDERS = {
    "another program's manifest": other_program,
    "xltcp's old marker names": old_marker_names,
    "an xltcp run and a note": xltcp_run_and_notes,
    "an xltcp --seeds run and a file in it": xltcp_seeds_and_a_plot_of_mine,
    "a table and a note": results_table_and_notes,
}

CASES = [
    pytest.param(folder, command, flags, id=f"{folder}-{command}-{' '.join(flags) or 'plain'}")
    for folder in FOLDERS
    for command in COMMANDS
    for flags in FLAGS[command]
]


@pytest.mark.parametrize(("folder", "command", "flags"), CASES)
def test_a_folder_with_a_file_xltcp_did_not_write_survives(folder, command, flags, tmp_path):
    out = tmp_path / "site"
    FOLDERS[folder](out)
    before = snapshot(out)
    result = invoke(*COMMANDS[command], *SHORT, "--out", out, "-q", *flags)
    if folder == "an xltcp --seeds run and a file in it" and flags == ["--resume"]:
        # The same command again: resumed (nothing left to run), the file kept.
        assert result.exit_code == 0, result.output
        name = "seed-1/timeseries/by-hand.txt"
        assert snapshot(out)[name] == before[name]
        return
    assert result.exit_code == 2, result.output
    assert snapshot(out) == before


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_the_current_folder_and_its_ancestors_are_never_emptied(
    command, force, tmp_path, monkeypatch
):
    old_marker_names(tmp_path / "work")
    (tmp_path / "work" / "sub").mkdir()
    before = snapshot(tmp_path)
    for where, out in ((tmp_path / "work", "."), (tmp_path / "work" / "sub", "..")):
        monkeypatch.chdir(where)
        result = invoke(*COMMANDS[command], *SHORT, "--out", out, "-q", *force)
        assert result.exit_code == 2, result.output
        assert snapshot(tmp_path) == before


def test_out_dot_names_the_current_folder(tmp_path, monkeypatch):
    run = tmp_path / "r"
    assert invoke("run", LOSSY, *SHORT, "--out", run, "-q").exit_code == 0
    before = snapshot(run)
    monkeypatch.chdir(run)
    result = invoke("run", LOSSY, *SHORT, "--out", ".", "--force", "-q")
    assert result.exit_code == 2
    assert "the current folder" in result.stderr
    monkeypatch.chdir(run / "timeseries")
    result = invoke("run", LOSSY, *SHORT, "--out", "..", "--force", "-q")
    assert result.exit_code == 2
    assert "holds the current one" in result.stderr
    assert snapshot(run) == before


def test_force_names_the_file_it_will_not_delete(tmp_path):
    out = tmp_path / "r"
    xltcp_seeds_and_a_plot_of_mine(out)
    result = invoke("run", LOSSY, *SHORT, "--seeds", "1..2", "--out", out, "--force", "-q")
    assert result.exit_code == 2
    assert "seed-1/timeseries/by-hand.txt" in result.stderr
    other_program(tmp_path / "site")
    result = invoke("run", LOSSY, *SHORT, "--out", tmp_path / "site", "--force", "-q")
    assert "not a results folder written by xltcp" in result.stderr


def test_force_replaces_a_folder_of_xltcp_files_only(tmp_path):
    out = tmp_path / "r"
    result = invoke("run", LOSSY, *SHORT, "--seeds", "1..2", "--out", out, "-q")
    assert result.exit_code == 0, result.output
    assert invoke("plot", out).exit_code == 0
    assert invoke("report", out).exit_code == 0
    (out / f".seed-3.tmp-{results._host()}-{dead_pid()}-0123abcd").mkdir()
    result = invoke("run", LOSSY, *SHORT, "--out", out, "--force", "-q")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "events.csv", "manifest.json", "run.log", "summary.json", "timeseries"
    ]  # fmt: skip
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["schema"] == results.SCHEMA and manifest["xltcp_version"]


@pytest.mark.parametrize("host", ["this host", "another host"])
def test_force_waits_for_a_process_writing_into_the_folder(host, tmp_path):
    out = tmp_path / "r"
    assert invoke("run", LOSSY, *SHORT, "--seeds", "1..2", "--out", out, "-q").exit_code == 0
    busy = out / results.temp_path(out / "seed-3").name
    if host == "another host":
        busy = out / f".seed-3.tmp-{results._host()}-elsewhere-{dead_pid()}-0123abcd"
    busy.mkdir()
    before = snapshot(out)
    for flag in ("--force", "--resume"):
        result = invoke("run", LOSSY, *SHORT, "--seeds", "1..2", "--out", out, flag, "-q")
        assert result.exit_code == 2
        assert "another xltcp process is writing into it" in result.stderr
    assert snapshot(out) == before and busy.is_dir()


def test_resume_refuses_another_command_and_says_what_differs(tmp_path):
    out = tmp_path / "s"
    assert invoke("run", LOSSY, *SHORT, "--seeds", "1..2", "--out", out, "-q").exit_code == 0
    before = snapshot(out)
    result = invoke("run", LOSSY, *SHORT, "--seeds", "1..3", "--out", out, "--resume")
    assert result.exit_code == 2
    assert "seeds: [1, 2] there, [1, 2, 3] here" in " ".join(result.stderr.split())
    other = ["--set", "sim.duration=2s", "--seeds", "1..2", "--out", out, "--resume"]
    result = invoke("run", LOSSY, *other)
    assert result.exit_code == 2 and "the scenario as validated" in result.stderr
    for wrong in (
        ["--seeds", "1..2", "--out", out, "--force"],  # --resume never deletes
        ["--seed", "1", "--out", out],  # a single run: nothing to resume
        ["--seeds", "1..2"],  # no --out
    ):
        result = invoke("run", LOSSY, *SHORT, *wrong, "--resume")
        assert result.exit_code == 2 and "--resume" in result.stderr
    assert snapshot(out) == before


# --- Campaign folders -------------------------------------------------------------


def sweep(out, *args):
    return invoke("sweep", LOSSY, *SHORT, "--vary", "wireless.loss.down.p=0.01,0.05",
                  "--out", out, "-q", *args)  # fmt: skip


def test_sweep_refuses_a_campaign_with_another_plan(tmp_path):
    out = tmp_path / "c"
    assert sweep(out, "--seeds", "1..2").exit_code == 0
    before = snapshot(out)
    result = sweep(out, "--seeds", "1..3")
    assert result.exit_code == 2
    message = " ".join(result.stderr.split())
    assert "another plan (seeds 1..2 there, 1..3 here)" in message
    assert "--append" in message
    result = sweep(out, "--seeds", "1..2", "--set", "wireless.rate=5Mbps")
    assert result.exit_code == 2
    assert '--set ["sim.duration=1s"] there' in " ".join(result.stderr.split())
    assert snapshot(out) == before
    # The same plan again runs nothing and is welcome.
    assert sweep(out, "--seeds", "1..2").exit_code == 0


def test_append_adds_points_and_seeds_to_a_campaign(tmp_path):
    import pandas as pd

    out = tmp_path / "c"
    assert sweep(out, "--seeds", "1..2").exit_code == 0
    first = pd.read_parquet(out / "results.parquet")
    more = ["--vary", "wireless.loss.down.p=0.05,0.1", "--seeds", "2..3"]
    result = invoke("sweep", LOSSY, *SHORT, *more, "--out", out, "--append")
    assert result.exit_code == 0, result.output
    assert "3 runs (4 already done)" in " ".join(result.stdout.split())
    table = pd.read_parquet(out / "results.parquet")
    pairs = set(zip(table["wireless.loss.down.p"], table["seed"], strict=True))
    assert pairs == {(p, s) for p in (0.01, 0.05) for s in (1, 2)} | {
        (p, s) for p in (0.05, 0.1) for s in (2, 3)
    }
    assert table.head(len(first)).equals(first)
    plan = json.loads((out / "campaign.json").read_text())
    assert plan["seeds"] == [1, 2, 3] and plan["status"] == "complete"
    # Appending the same again runs nothing; another swept key is refused.
    again = invoke("sweep", LOSSY, *SHORT, *more, "--out", out, "--append", "-q")
    assert again.exit_code == 0
    assert pd.read_parquet(out / "results.parquet").equals(table)
    other = invoke("sweep", LOSSY, *SHORT, "--vary", "wireless.rate=5Mbps", "--out", out,
                   "--append", "-q")  # fmt: skip
    assert other.exit_code == 2 and "swept keys" in other.stderr


def test_a_campaign_whose_scenario_changed_is_neither_resumed_nor_extended(tmp_path):
    scenario = tmp_path / "lossy.toml"
    scenario.write_text(LOSSY.read_text())
    args = ["sweep", scenario, *SHORT, "--vary", "sim.seed=1,2", "--out", tmp_path / "c", "-q"]
    assert invoke(*args).exit_code == 0
    scenario.write_text(LOSSY.read_text().replace('min_rto = "1s"', 'min_rto = "2s"'))
    before = snapshot(tmp_path / "c")
    for flags in ([], ["--append"]):
        result = invoke(*args, *flags)
        assert result.exit_code == 2
        assert "the scenario (or a file it extends) changed" in " ".join(result.stderr.split())
    assert snapshot(tmp_path / "c") == before


def test_the_python_sweep_refuses_another_plan_too(tmp_path):
    import xltcp
    from xltcp.campaign import CampaignError

    s = xltcp.Scenario.load(LOSSY).set(sim__duration="1s")
    vary = {"wireless.loss.down.p": [0.01, 0.05]}
    assert len(xltcp.sweep(s, vary=vary, seeds="1..2", out=tmp_path / "c", jobs=1)) == 4
    with pytest.raises(CampaignError, match="seeds 1..2 there, 1..3 here"):
        xltcp.sweep(s, vary=vary, seeds="1..3", out=tmp_path / "c", jobs=1)
    table = xltcp.sweep(s, vary=vary, seeds="1..3", out=tmp_path / "c", jobs=1, append=True)
    assert len(table) == 6


# --- Temporary folders of dead runs ----------------------------------------------


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_only_temporary_folders_of_dead_processes_are_removed(tmp_path):
    host = results._host()
    dead = tmp_path / f".r.tmp-{host}-{dead_pid()}-0123abcd"
    live = tmp_path / f".r.tmp-{host}-{os.getpid()}-0123abcd"
    elsewhere = tmp_path / f".r.tmp-{host}x-{dead_pid()}-0123abcd"
    older = tmp_path / ".r.tmp-0123abcd"
    mine = [tmp_path / ".r.tmp-notes", tmp_path / ".config", tmp_path / "r.tmp-1-2-0123abcd"]
    for folder in (dead, live, elsewhere, older, *mine):
        folder.mkdir()
    assert results.clean_stale(tmp_path) == 2
    assert not dead.exists() and not older.exists()
    assert live.is_dir() and elsewhere.is_dir() and all(p.is_dir() for p in mine)


def test_the_next_run_into_a_parent_removes_dead_runs_temporary_folders(tmp_path):
    stale = tmp_path / f".r.tmp-{results._host()}-{dead_pid()}-0123abcd"
    (stale / "pcap").mkdir(parents=True)
    (stale / "pcap" / "wireless.pcapng").write_bytes(b"\0" * 1024)
    assert invoke("run", LOSSY, *SHORT, "--out", tmp_path / "other", "-q").exit_code == 0
    assert not stale.exists()
    assert hidden(tmp_path, tmp_path / "other") == []


def test_sigterm_and_sighup_stop_like_ctrl_c():
    from xltcp.cli import stop_signals

    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous = signal.signal(signum, signal.SIG_DFL)
        try:
            with pytest.raises(KeyboardInterrupt), stop_signals():
                assert signal.getsignal(signum) is not signal.SIG_DFL
                os.kill(os.getpid(), signum)
                time.sleep(5)
            assert signal.getsignal(signum) is signal.SIG_DFL
        finally:
            signal.signal(signum, previous)
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stop_signals():  # as under nohup: the hang-up stays ignored
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


# --- Killed runs ----------------------------------------------------------------

KILLS = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT]


def start(*args) -> subprocess.Popen:
    """The ``xltcp`` command in a process of its own, Ctrl-C restored."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-m", "xltcp", *map(str, args), "-q"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def kill_when(proc: subprocess.Popen, ready, signum: int) -> int:
    """Send ``signum`` once ``ready()``, while the command still runs; its exit status."""
    deadline = time.monotonic() + 120
    while not ready() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the command ended before it could be killed"
    proc.send_signal(signum)
    proc.communicate(timeout=120)
    return proc.returncode


def finish(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-m", "xltcp", *map(str, args)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def check_exit(code: int, signum: int) -> None:
    assert code == (-signal.SIGKILL if signum == signal.SIGKILL else 130)


def without_wall(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_seconds"}


def runs_rows(path: Path) -> list[dict]:
    # runs.csv holds no wall time, so a resumed run's table is the same bytes.
    rows = list(csv.DictReader(path.open()))
    assert all("wall_seconds" not in row for row in rows)
    return rows


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The same commands run to the end: a run, three seeds, a sweep."""
    base = tmp_path_factory.mktemp("uninterrupted")
    for name, args in (
        ("run", ["run", LOSSY]),
        ("seeds", ["run", LOSSY, "--seeds", "1..3"]),
        ("sweep", ["sweep", LOSSY, "--vary", "wireless.loss.down.p=0.01,0.05", "--seeds",
                   "1..2"]),
    ):  # fmt: skip
        result = invoke(*args, *SLOW, "--out", base / name, "-q")
        assert result.exit_code == 0, result.output
    return base


@pytest.mark.parametrize("signum", KILLS, ids=lambda s: signal.Signals(s).name)
def test_a_killed_run_leaves_no_folder_and_runs_again_whole(signum, tmp_path, uninterrupted):
    out = tmp_path / "r"
    args = ["run", LOSSY, *SLOW, "--out", out]
    code = kill_when(start(*args), lambda: any(tmp_path.glob(".r.tmp-*/timeseries")), signum)
    check_exit(code, signum)
    assert not out.exists()
    left = list(tmp_path.glob(".r.tmp-*"))
    assert len(left) == (1 if signum == signal.SIGKILL else 0)
    assert not any((p / "summary.json").exists() for p in left)
    finish(*args, "-q")
    assert hidden(tmp_path, out) == []
    summary = json.loads((out / "summary.json").read_text())
    reference = json.loads((uninterrupted / "run" / "summary.json").read_text())
    assert without_wall(summary) == without_wall(reference)
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


@pytest.mark.parametrize("signum", KILLS, ids=lambda s: signal.Signals(s).name)
def test_a_killed_seeds_run_resumes_to_the_same_tables(signum, tmp_path, uninterrupted):
    out = tmp_path / "s"
    args = ["run", LOSSY, *SLOW, "--seeds", "1..3", "--out", out]
    code = kill_when(start(*args), lambda: (out / "seed-1").is_dir(), signum)
    check_exit(code, signum)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == ("running" if signum == signal.SIGKILL else "interrupted")
    assert not (out / "aggregate.json").exists() and not (out / "seed-3").exists()
    if signum != signal.SIGKILL:
        assert hidden(out) == []
    kept = sorted(p.name for p in out.glob("seed-*"))
    mtimes = {name: (out / name / "summary.json").stat().st_mtime_ns for name in kept}
    refused = invoke(*args, "-q")
    assert refused.exit_code == 2 and "--resume" in refused.stderr

    finish(*args, "--resume", "-q")
    assert hidden(tmp_path, out) == []
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["kept_seeds"] == [int(name.split("-")[1]) for name in kept]
    for name, mtime in mtimes.items():
        assert (out / name / "summary.json").stat().st_mtime_ns == mtime
    reference = uninterrupted / "seeds"
    assert runs_rows(out / "runs.csv") == runs_rows(reference / "runs.csv")
    ours, theirs = (json.loads((d / "aggregate.json").read_text()) for d in (out, reference))
    assert without_wall(ours) == without_wall(theirs)


@pytest.mark.parametrize("signum", KILLS, ids=lambda s: signal.Signals(s).name)
def test_a_killed_sweep_resumes_to_the_same_table(signum, tmp_path, uninterrupted):
    out = tmp_path / "c"
    runs = out / "runs"
    args = ["sweep", LOSSY, "--vary", "wireless.loss.down.p=0.01,0.05", "--seeds", "1..2",
            *SLOW, "--out", out, "--jobs", "2"]  # fmt: skip

    def a_run_is_whole() -> bool:
        return runs.is_dir() and any(not p.name.startswith(".") for p in runs.iterdir())

    code = kill_when(start(*args), a_run_is_whole, signum)
    check_exit(code, signum)
    assert not (out / "results.parquet").exists()
    plan = json.loads((out / "campaign.json").read_text())
    assert plan["status"] == ("running" if signum == signal.SIGKILL else "interrupted")
    if signum != signal.SIGKILL:
        assert hidden(out, runs) == []
    whole = sorted(p.name for p in runs.iterdir() if not p.name.startswith("."))
    assert 1 <= len(whole) < 4

    done = finish(*args)
    assert f"{4 - len(whole)} runs ({len(whole)} already done)" in " ".join(done.stdout.split())
    assert hidden(tmp_path, out, runs) == []
    table = (out / "results.parquet").read_bytes()
    assert table == (uninterrupted / "sweep" / "results.parquet").read_bytes()
