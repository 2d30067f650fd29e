"""Progress off a terminal: plain lines on stderr, one per finished run at most
every few seconds, never rich's live bar."""

from __future__ import annotations

import io
import json
import re

from rich.console import Console
from typer.testing import CliRunner

from xltcp import progress
from xltcp.cli import ProgressView, SweepView, app

from conftest import needs_core

#: A plain progress line: ``[done/total] what done, M:SS elapsed[, ~M:SS left]``.
LINE = re.compile(r"^\[(\d+)/(\d+)\] (.+) done, \d+:\d\d elapsed(, ~\d+:\d\d left)?$")


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def plain_console() -> tuple[Console, io.StringIO]:
    stream = io.StringIO()
    return Console(file=stream), stream


def test_clock_text():
    assert progress.clock_text(0) == "0:00"
    assert progress.clock_text(42.4) == "0:42"
    assert progress.clock_text(310) == "5:10"
    assert progress.clock_text(3723) == "1:02:03"


def test_lines_one_per_finished_run_at_most_every_interval_and_always_the_last():
    clock = FakeClock()
    console, stream = plain_console()
    lines = progress.Lines(console, 4, interval=5.0, clock=clock)
    clock.now = 101.0
    lines.finished("seed 1")  # 1 s after the start: too soon
    clock.now = 106.0
    lines.finished("seed 2")
    clock.now = 108.0
    lines.finished("seed 3")  # 2 s after the last line: too soon
    clock.now = 109.0
    lines.finished("seed 4")  # the last run: always
    assert stream.getvalue().splitlines() == [
        "[2/4] seed 2 done, 0:06 elapsed, ~0:06 left",
        "[4/4] seed 4 done, 0:09 elapsed",
    ]


def test_lines_note_the_run_under_way_at_most_every_interval():
    clock = FakeClock()
    console, stream = plain_console()
    lines = progress.Lines(console, 1, interval=5.0, clock=clock)
    clock.now = 102.0
    lines.note("run: 10 of 60 s simulated")
    clock.now = 105.0
    lines.note("run: 20 of 60 s simulated")
    clock.now = 107.0
    lines.note("run: 25 of 60 s simulated")
    assert stream.getvalue().splitlines() == ["run: 20 of 60 s simulated, 0:05 elapsed"]


def test_views_write_lines_off_a_terminal_and_draw_bars_on_one():
    console, stream = plain_console()
    view = ProgressView(console, 2, True, delay=0.0)
    assert view.lines is not None
    view.run_started(0, 7)
    view.progress(1.0, 2.0)
    view.run_finished(0, 7, {})
    view.run_started(1, 8)
    view.run_finished(1, 8, {})
    view.close()
    assert view.bar is None
    assert stream.getvalue().splitlines()[-1].startswith("[2/2] seed 8 done, ")
    terminal = Console(file=io.StringIO(), force_terminal=True)
    assert ProgressView(terminal, 2, True).lines is None
    sweep = SweepView(terminal, 3, True)
    assert sweep.bar is not None and sweep.lines is None
    sweep.close()
    assert SweepView(console, 3, True).bar is None
    assert SweepView(console, 3, False).lines is None


def test_reproduce_progress_writes_lines_off_a_terminal(monkeypatch):
    from xltcp.reproduce import progress_bar

    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)
    console, stream = plain_console()
    with progress_bar(console, True, 2) as step:
        step("AA seed 1")
        step("AA seed 2")
    assert [LINE.match(s).group(3) for s in stream.getvalue().splitlines()] == [
        "AA seed 1",
        "AA seed 2",
    ]


def test_a_pools_runs_report_as_they_end():
    from xltcp.reproduce.common import pool

    ended = []
    with pool(2, ended.append) as p:
        task = p.run("one", lambda x: x + 1, 1)
        assert task.result() == 2
    assert ended == ["one"]


def _progress_lines(text: str) -> list[re.Match]:
    assert "\x1b[" not in text  # no escape sequences: no live bar
    return [m for m in map(LINE.match, text.splitlines()) if m]


@needs_core
def test_run_seeds_prints_a_line_per_seed_on_stderr(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)
    args = ["run", "demo", "--seeds", "1..2", "--set", "sim.duration=2s"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "s"), "--json"])
    assert result.exit_code == 0, result.output
    found = _progress_lines(result.stderr)
    assert [(m.group(1), m.group(2), m.group(3)) for m in found] == [
        ("1", "2", "seed 1"),
        ("2", "2", "seed 2"),
    ]
    json.loads(result.stdout)  # stdout is untouched
    quiet = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "q"), "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


@needs_core
def test_sweep_prints_a_line_per_run_on_stderr(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)
    args = ["sweep", "demo", "--vary", "wireless.rate=5Mbps,10Mbps", "--seeds", "1"]
    args += ["--set", "sim.duration=2s", "--out", str(tmp_path / "c"), "-j", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    found = _progress_lines(result.stderr)
    assert [m.group(1) for m in found] == ["1", "2"]
    assert {m.group(3) for m in found} == {"point 0 seed 1", "point 1 seed 1"}


class _StepPaper:
    """A paper that reports two runs through its progress callback."""

    def total_runs(self, seeds, sweeps):
        return 2

    def reproduce(self, seeds, out, sweeps, overrides, step, jobs):
        out.mkdir(parents=True, exist_ok=True)
        (out / "table.md").write_text("| config |\n")
        step("AA seed 1")
        step("AA seed 2")
        return {"checks": []}


def test_reproduce_prints_lines_on_stderr(tmp_path, monkeypatch):
    from xltcp import reproduce

    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)
    monkeypatch.setitem(reproduce.PAPERS, "fake", _StepPaper())
    result = CliRunner().invoke(app, ["reproduce", "fake", "--seeds", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert [m.group(3) for m in _progress_lines(result.stderr)] == ["AA seed 1", "AA seed 2"]


@needs_core
def test_an_error_raised_by_the_progress_callback_stops_the_run_and_is_raised():
    from xltcp import _core

    calls = []

    def stop(done_s, total_s):
        calls.append((done_s, total_s))
        raise LookupError("stop here")

    try:
        _core.run("scenarios/lossy-last-hop.toml", 1, None, ["sim.duration=60s"], stop)
    except LookupError as e:
        assert str(e) == "stop here"
    else:
        raise AssertionError("the run went on after its progress callback raised")
    assert len(calls) == 1 and abs(calls[0][1] - 60.0) < 1e-9
