"""The ``xltcp`` command: run, sweep, emu, validate, demo, scenarios, plot, reproduce.

Exit status (:data:`EXIT_STATUSES`, also in ``xltcp --help``): 0 on success,
2 for a user error (bad arguments or an invalid scenario; the message names
what is wrong), 1 for anything else that went wrong (e.g. a results folder
that cannot be written), for ``reproduce`` 3 when it ran but missed one of
the paper's targets (``--no-check`` reports the targets and exits 0), and
130 when interrupted.

Results go to ``--out DIR`` (refused when it holds files, unless
``--force``, which empties only a folder of xltcp's own files that its
manifest marks as xltcp's; never the current folder or one that holds it),
by default the first free one of ``results/<scenario name>``, ``-2``, ``-3``,
... under the current directory: ``manifest.json`` (xltcp's marker, command,
overrides, scenario hash, version, host), ``run.log``, ``summary.json``,
``timeseries/<flow>.csv`` and, with ``--pcap``, packet captures. With several
seeds each run goes to ``DIR/seed-<n>/``, ``DIR/runs.csv`` gets a row per
flow as each seed finishes and ``DIR/aggregate.json`` is added at the end;
``--resume`` finishes such a run that was interrupted. ``sweep`` writes into
a new or empty folder or one holding a campaign with the same plan
(``--append`` extends one with another). See :mod:`xltcp.results`.

SIGTERM and SIGHUP stop a command as Ctrl-C does (exit status 130): the
run's temporary folder is removed and its manifest says ``interrupted``.
Progress goes to stderr (not with ``--quiet``): on a terminal, bars that
appear once a run has taken 2 s; elsewhere (a batch job, a log file) plain
lines, one per finished run at most every 5 s (:mod:`xltcp.progress`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

import xltcp
from xltcp import budget, files, progress, runner, table

if TYPE_CHECKING:
    from rich.progress import Progress

    from xltcp.results import Manifest

#: Exit status of ``reproduce`` when it ran but missed a target of the paper.
TARGETS_MISSED = 3

#: Every exit status of the command and what it means: in ``xltcp --help``
#: and in the README's "Exit status" section (a test keeps them the same).
EXIT_STATUSES: tuple[tuple[int, str], ...] = (
    (0, "success (also a reproduction that missed a target, with --no-check)"),
    (
        1,
        "something else went wrong: a file that cannot be read or written, a run that "
        "failed, an internal error (a bug: please report it)",
    ),
    (
        2,
        "bad input: arguments, a scenario or campaign file, a results folder refused, "
        "traces over --max-output or the free space, a machine that cannot host xltcp emu",
    ),
    (TARGETS_MISSED, "xltcp reproduce ran but missed a target of the paper (its table says which)"),
    (130, "interrupted: Ctrl-C, SIGTERM or SIGHUP"),
)


def exit_status_text() -> str:
    """:data:`EXIT_STATUSES` as the help's epilog (``\\b``: click keeps its lines)."""
    rows = []
    for code, meaning in EXIT_STATUSES:
        lines = textwrap.wrap(meaning, 68)
        rows += [f"  {code:<5}{lines[0]}", *(f"       {line}" for line in lines[1:])]
    return "\b\nExit status:\n" + "\n".join(rows)


app = typer.Typer(
    name="xltcp",
    help="TCP over disruptive wireless links: run and check scenarios.",
    epilog=exit_status_text(),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
)

out_console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

#: Wall time a run must take before its progress bar appears.
PROGRESS_DELAY_S = 2.0


class UserError(Exception):
    """A problem with the user's input: reported without a traceback, exit 2."""


def refusals() -> tuple[type[BaseException], ...]:
    """The errors that refuse the user's input (exit status 2, the message
    alone): UserError and those of xltcp's modules loaded so far (a module
    not loaded raised none)."""
    found: list[type[BaseException]] = [
        UserError,
        files.FileError,
        budget.BudgetError,
        runner.SeedSpecError,
    ]
    for module, name in (
        ("xltcp._core", "ScenarioError"),
        ("xltcp.values", "ValueSpecError"),
        ("xltcp.campaign", "CampaignError"),
        ("xltcp.report", "ReportError"),
        ("xltcp.results", "OutDirError"),
    ):
        kind = getattr(sys.modules.get(module), name, None)
        if isinstance(kind, type) and issubclass(kind, BaseException):
            found.append(kind)
    return tuple(found)


def last_resort(e: Exception) -> int:
    """What every command does with an exception nothing else handled: a
    refusal of the input or an OS error is reported as such, anything else
    as an internal error with how to report it; never a traceback (unless
    XLTCP_TRACEBACK=1). Returns the exit status."""
    if isinstance(e, refusals()):
        _error(str(e), 2)
        return 2
    if isinstance(e, OSError):
        where = f"{e.filename}: " if e.filename else ""
        _error(f"{where}{e.strerror or e}", 1)
        return 1
    _error(
        f"internal error: {type(e).__name__}: {e}\n"
        "This is a bug in xltcp. Please report it with the command line and the files "
        "it names (run it again with XLTCP_TRACEBACK=1 to see the traceback).",
        1,
    )
    return 1


def _error(message: str, code: int) -> typer.Exit:
    # The message is printed verbatim: no markup, highlighting or wrapping.
    err_console.print(
        Text("error: ", style="bold red") + Text(message), soft_wrap=True, markup=False
    )
    return typer.Exit(code)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the known failures into a message on stderr and an exit status."""
    try:
        from xltcp import _core
    except ImportError as e:
        raise _error(f"the xltcp core extension is not available ({e})", 1) from None
    missing = [name for name in ("ScenarioError", "validate", "run") if not hasattr(_core, name)]
    if missing:
        raise _error(
            f"the xltcp core extension lacks {', '.join(missing)}: rebuild it (maturin develop)", 1
        )
    with refused():
        yield


@contextlib.contextmanager
def refused() -> Iterator[None]:
    """:func:`user_errors` for commands that do without the core (plot, report)."""
    try:
        yield
    except typer.Exit:
        raise  # an exit status already chosen (typer.Exit is a RuntimeError)
    except refusals() as e:
        raise _error(str(e), 2) from None
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        raise _error(f"{where}{e.strerror or e}", 1) from None
    except RuntimeError as e:
        raise _error(str(e), 1) from None
    except KeyboardInterrupt:
        raise _error("interrupted", 130) from None


class ProgressView(runner.Observer):
    """Progress on stderr: bars on a terminal, shown only once a run has taken
    a while; plain lines elsewhere (:class:`xltcp.progress.Lines`).

    The bars start once ``delay`` seconds of wall time have passed since the
    view was made, so quick runs print nothing. The core calls back with
    simulated seconds done and total; several seeds add an overall bar. Off
    a terminal, each finished seed of several writes a line, and a long run
    a line about its simulated time, each at most every few seconds.
    """

    def __init__(
        self,
        console: Console,
        seeds: int,
        enabled: bool,
        delay: float = PROGRESS_DELAY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console, self.seeds, self.enabled = console, seeds, enabled
        self.delay, self.clock = delay, clock
        self.started_at = clock()
        self.last_refresh = 0.0
        self.bar: Progress | None = None
        self.lines: progress.Lines | None = None
        if enabled and not progress.live(console):
            self.lines = progress.Lines(console, seeds, clock=clock)
        self.seed: int | None = None
        self.done_s, self.total_s, self.finished = 0.0, 0.0, 0

    def run_started(self, index: int, seed: int | None) -> None:
        """Reset the per-run bar for a new seed."""
        self.seed, self.done_s, self.total_s = seed, 0.0, 0.0
        self._update(force=True)

    def progress(self, done_s: float, total_s: float) -> None:
        """Called by the core with simulated seconds done and total."""
        self.done_s, self.total_s = done_s, total_s
        if self.lines is not None:
            self.lines.note(f"{self._label()}: {done_s:.0f} of {total_s:.0f} s simulated")
            return
        self._update()

    def run_finished(self, index: int, seed: int | None, summary: dict) -> None:
        """Advance the overall bar (off a terminal, a line for several seeds)."""
        self.finished += 1
        if self.lines is not None:
            if self.seeds > 1:
                self.lines.finished("run" if seed is None else f"seed {seed}")
            return
        self._update(force=True)

    def _label(self) -> str:
        return "run" if self.seed is None else f"seed {self.seed}"

    def close(self) -> None:
        """Remove the bars, if they were shown."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def _update(self, force: bool = False) -> None:
        now = self.clock()
        if self.bar is None:
            if not self.enabled or self.lines is not None or now - self.started_at < self.delay:
                return
            self._start()
        assert self.bar is not None
        if self.seeds > 1:
            self.bar.update(self.overall, completed=self.finished)
        self.bar.update(
            self.current,
            description=self._label(),
            total=self.total_s or None,
            completed=self.done_s,
        )
        # The core holds the interpreter while it runs, so the bar is redrawn
        # here rather than by a background thread; at most ten times a second.
        if force or now - self.last_refresh >= 0.1:
            self.last_refresh = now
            self.bar.refresh()

    def _start(self) -> None:
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
            auto_refresh=False,
        )
        self.bar.start()
        if self.seeds > 1:
            self.overall = self.bar.add_task("seeds", total=self.seeds)
        self.current = self.bar.add_task("run", total=None)


def _parse_seeds_option(value: Optional[str]) -> Optional[List[int]]:
    if value is None:
        return None
    try:
        return runner.parse_seeds(value)
    except runner.SeedSpecError as e:
        raise typer.BadParameter(str(e), param_hint="'--seeds'") from None


def _check_overrides(values: Optional[List[str]]) -> List[str]:
    values = values or []
    for value in values:
        if "=" not in value or not value.partition("=")[0].strip():
            raise typer.BadParameter(f"{value!r}: expected KEY=VALUE, e.g. sim.duration=10s")
    return values


def default_out_dir(echo: dict, scenario: Path) -> Path:
    """``results/<scenario name>``, the name made safe as a folder name."""
    name = str(echo.get("name") or scenario.stem)
    return Path("results") / (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip(".") or "scenario")


def resolve_scenario(value: Path) -> Path:
    """A scenario file, or the name of a shipped one (``xltcp scenarios``)."""
    if value.is_file():
        return value
    if value.exists():
        raise typer.BadParameter(f"{value}: not a file")
    name = value.as_posix().removesuffix(".toml")
    if name in xltcp.shipped_names():
        return xltcp.shipped_scenario(name)
    raise typer.BadParameter(
        f"{value}: the file does not exist, and it is not the name of a shipped scenario "
        f"(shipped: {', '.join(xltcp.shipped_names())}; see xltcp scenarios)"
    )


SCENARIO_ARG = typer.Argument(
    ...,
    metavar="SCENARIO",
    callback=resolve_scenario,
    help="Scenario file (TOML), or the name of a shipped one (xltcp scenarios).",
)
SET_OPT = typer.Option(
    None,
    "--set",
    metavar="KEY=VALUE",
    callback=_check_overrides,
    help="Override a scenario key, e.g. --set sim.duration=10s (repeatable).",
)
OUT_OPT = typer.Option(
    None, "--out", "-o", metavar="DIR", help="Results folder [default: results/<scenario name>]."
)


def _check_seed(value: Optional[int]) -> Optional[int]:
    if value is not None and not 0 <= value <= runner.MAX_SEED:
        raise typer.BadParameter(f"{value}: a seed is an integer from 0 to {runner.MAX_SEED}")
    return value


SEED_OPT = typer.Option(
    None,
    "--seed",
    metavar="N",
    callback=_check_seed,
    help="Seed of a single run [default: the scenario's sim.seed].",
)
QUIET_OPT = typer.Option(False, "--quiet", "-q", help="Print nothing but errors.")
FORCE_OPT = typer.Option(
    False,
    "--force",
    help="Replace a non-empty --out folder that xltcp wrote (its manifest.json says so) and "
    "that holds only xltcp's files; never the current folder or one that holds it.",
)
JSON_OPT = typer.Option(False, "--json", help="Print the summary (or aggregate) as JSON.")


def _max_output_option(value: Optional[str]) -> Optional[int]:
    if value is None:
        return None
    from xltcp.budget import parse_size

    try:
        return parse_size(value)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None


MAX_OUTPUT_OPT = typer.Option(
    None,
    "--max-output",
    metavar="SIZE",
    callback=_max_output_option,
    help="Refuse to start when the estimated traces exceed SIZE, e.g. 20GiB [default: 4GiB].",
)


@app.command()
def run(
    scenario: Path = SCENARIO_ARG,
    seed: Optional[int] = SEED_OPT,
    seeds: Optional[str] = typer.Option(
        None,
        "--seeds",
        metavar="A..B|A,B,C",
        callback=_parse_seeds_option,
        help="Run several seeds (inclusive range or list) into OUT/seed-<n>/ "
        "and write OUT/aggregate.json and OUT/runs.csv.",
    ),
    out: Optional[Path] = OUT_OPT,
    set_: Optional[List[str]] = SET_OPT,
    pcap: bool = typer.Option(
        False, "--pcap", help="Write pcapng captures (same as --set output.pcap=true)."
    ),
    max_output: Optional[str] = MAX_OUTPUT_OPT,
    force: bool = FORCE_OPT,
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Finish an interrupted --seeds run in --out: keep the seeds it completed, run "
        "the others (same scenario, overrides, seeds and version; else exit 2).",
    ),
    quiet: bool = QUIET_OPT,
    json_: bool = JSON_OPT,
) -> None:
    """Run a scenario for one seed or several and print the results.

    Before it starts, the run's traces are estimated (time-series rows and
    pcap records from the duration, sampling interval, flows and link rates);
    it refuses, with exit status 2, when they exceed --max-output or the free
    space of the results folder's filesystem.
    """
    if seed is not None and seeds is not None:
        raise typer.BadParameter("give either --seed or --seeds, not both", param_hint="'--seeds'")
    if resume and (force or out is None or seeds is None or len(seeds) < 2):
        raise typer.BadParameter(
            "--resume finishes a --seeds run in --out DIR: give --seeds A..B and --out, "
            "not --force",
            param_hint="'--resume'",
        )
    overrides = list(set_ or []) + (["output.pcap=true"] if pcap else [])
    limit = max_output if max_output is not None else budget.DEFAULT_LIMIT
    run_scenario(scenario, seed, seeds, out, overrides, quiet, json_, limit, force, resume)


def run_scenario(
    scenario: Path,
    seed: Optional[int],
    seeds: Optional[List[int]],
    out: Optional[Path],
    overrides: List[str],
    quiet: bool,
    as_json: bool,
    max_output: int = budget.DEFAULT_LIMIT,
    force: bool = False,
    resume: bool = False,
) -> Path:
    """What ``run`` and ``demo`` share: validate, check the output budget, run, report.

    Returns the results folder: ``out``, or when no ``out`` is given the
    first free one of ``results/<name>``, ``results/<name>-2``, ...
    """
    from xltcp import results

    with user_errors():
        echo = runner.validate(scenario, overrides)
        many = seeds is not None and len(seeds) > 1
        out_dir = _results_folder(out, echo, scenario, force, seeds if resume else None)
        budget.check([budget.estimate_run(echo)] * (len(seeds) if many else 1), out_dir, max_output)
        if seeds is not None and not many:
            seed = seeds[0]
        manifest = results.Manifest(
            out_dir, scenario, echo, overrides, seeds if many else [seed_of(echo, seed)]
        )
        view = ProgressView(err_console, len(seeds) if many else 1, not quiet)
        try:
            if many:
                result = _run_seeds(scenario, seeds, out_dir, overrides, view, manifest, resume)
            else:
                result = _run_single(scenario, seed, out_dir, overrides, view, manifest)
        finally:
            view.close()
    _print_results(result, out_dir, many, quiet, as_json)
    return out_dir


def _results_folder(
    out: Optional[Path],
    echo: dict,
    scenario: Path,
    force: bool,
    resume_seeds: Optional[List[int]],
) -> Path:
    """``out`` made ready (emptied with ``force``; checked for ``--resume``),
    or the first free default folder."""
    from xltcp import results

    if out is None:
        return results.fresh(default_out_dir(echo, scenario))
    try:
        if resume_seeds is not None:
            results.check_resume(out, echo, resume_seeds)
        else:
            results.prepare(out, force)
    except results.OutDirError as e:
        raise UserError(str(e)) from None
    return out


def _run_single(
    scenario: Path,
    seed: Optional[int],
    out_dir: Path,
    overrides: List[str],
    view: ProgressView,
    manifest: Manifest,
) -> dict:
    """One run: its folder appears, with its manifest and log, once it is whole."""
    from xltcp import results

    def seal(folder: Path, summary: dict) -> None:
        results.log(folder, results.summary_line(summary))
        manifest.finish("complete", folder)

    view.run_started(0, seed)
    return runner.run_one(scenario, seed, out_dir, overrides, view.progress, seal=seal)


def _run_seeds(
    scenario: Path,
    seeds: List[int],
    out_dir: Path,
    overrides: List[str],
    view: ProgressView,
    manifest: Manifest,
    resume: bool,
) -> dict:
    """Several seeds, the manifest saying ``running`` until they end; with
    ``resume``, the seeds already whole in ``out_dir`` are kept."""
    from xltcp import results

    keep = runner.completed_seeds(out_dir, seeds) if resume else []
    if resume:
        manifest.data["kept_seeds"] = keep
        results.log(out_dir, f"resumed: kept seeds {', '.join(map(str, keep)) or 'none'}")
    manifest.write()
    try:
        result = runner.run_seeds(scenario, seeds, out_dir, overrides, view, keep=keep)
    except KeyboardInterrupt:
        manifest.finish("interrupted")
        raise
    except BaseException as e:
        manifest.finish("failed", error=str(e))
        raise
    manifest.finish("complete")
    return result


def _print_results(result: dict, out_dir: Path, many: bool, quiet: bool, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2))
    elif not quiet:
        if many:
            out_console.print(table.aggregate_table(result))
            out_console.print(table.aggregate_line(result))
        else:
            out_console.print(table.run_table(result))
            out_console.print(table.run_line(result))
            for line in (table.energy_line(result), table.output_warning(result)):
                if line is not None:
                    out_console.print(line)
        out_console.print(Text(f"results in {out_dir}"), soft_wrap=True)


def seed_of(echo: dict, seed: Optional[int]) -> Optional[int]:
    """The seed a single run uses: ``seed``, else the scenario's ``sim.seed``."""
    if seed is not None:
        return seed
    sim = echo.get("sim", {})
    value = sim.get("seed") if isinstance(sim, dict) else None
    return value if isinstance(value, int) else None


# --- Campaigns ----------------------------------------------------------------


def _is_campaign_file(path: Path) -> bool:
    # Not TOML, too large or not a regular file: the core says why as it
    # reads the file as a scenario.
    try:
        return isinstance(files.read_toml(path).get("sweep"), dict)
    except (files.FileError, OSError):
        return False


#: A Dask scheduler's address: PROTOCOL://HOST:PORT or HOST:PORT (or inproc://...).
SCHEDULER_ADDRESS = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):[0-9]{1,5}|inproc://\S+"
)


class SweepView:
    """Progress over the runs of a campaign on stderr: a bar on a terminal,
    plain lines elsewhere (:class:`xltcp.progress.Lines`)."""

    def __init__(self, console: Console, total: int, enabled: bool) -> None:
        self.bar: Progress | None = None
        self.lines: progress.Lines | None = None
        if enabled and total and not progress.live(console):
            self.lines = progress.Lines(console, total)
        elif enabled and total:
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("runs"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            self.task = self.bar.add_task("runs", total=total)
            self.bar.start()

    def done(self, spec: object, wall: float) -> None:
        """One more run finished."""
        if self.bar is not None:
            self.bar.advance(self.task)
        if self.lines is not None:
            point, seed = getattr(spec, "point", None), getattr(spec, "seed", None)
            self.lines.finished(f"point {point} seed {seed}")

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


@app.command()
def sweep(
    scenario: Path = typer.Argument(
        ...,
        metavar="SCENARIO|CAMPAIGN",
        callback=resolve_scenario,
        help="Scenario file (or a shipped scenario's name), or a campaign file "
        "with a [sweep] table.",
    ),
    vary: Optional[List[str]] = typer.Option(
        None,
        "--vary",
        metavar="KEY=VALUES",
        help="A key and its values: a list 0,0.01,0.05; a range 1Mbps..10Mbps/10 "
        "(10 values); a log range 1ms..1s/log4 (repeatable).",
    ),
    zip_: bool = typer.Option(
        False,
        "--zip",
        help="Pair the values of every --vary (same count) instead of crossing them.",
    ),
    seeds: Optional[str] = typer.Option(
        None,
        "--seeds",
        metavar="A..B|A,B,C",
        callback=_parse_seeds_option,
        help="Seeds of every point [default: the scenario's sim.seed].",
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR",
        help="Campaign folder [default: results/<scenario name>-sweep].",
    ),
    set_: Optional[List[str]] = SET_OPT,
    plan_only: bool = typer.Option(
        False, "--plan", help="Print the points, the run count and estimates; run nothing."
    ),
    jobs: Optional[int] = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        metavar="N",
        help="Runs at once on this machine (or workers of a local Dask cluster) "
        "[default: every core].",
    ),
    executor: str = typer.Option(
        "threads",
        "--executor",
        metavar="threads|processes|dask",
        help="Where the runs go: a thread pool (default), a process pool, or a Dask cluster "
        "(--scheduler's, else a local one: --jobs worker processes).",
    ),
    scheduler: Optional[str] = typer.Option(
        None,
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler, e.g. tcp://host:8786 [default with --executor dask: a local "
        "cluster, started and closed by the sweep].",
    ),
    max_output: Optional[str] = MAX_OUTPUT_OPT,
    append: bool = typer.Option(
        False,
        "--append",
        help="OUT holds a campaign with another plan: add this one's points and seeds to it "
        "(same scenario, --set, swept keys and version); the table then holds both.",
    ),
    quiet: bool = QUIET_OPT,
) -> None:
    """Run a scenario over a grid of parameter values and seeds.

    Each point x seed is one run, kept in OUT/runs/<key>/; a campaign run
    again runs only what it lacks. OUT/results.parquet holds one row per run
    and flow, with every swept key as a column.

    OUT must be new, empty, or hold a campaign with the same plan (exit 2
    otherwise, saying what differs); --append extends a campaign instead.
    """
    from xltcp import budget, campaign, values

    if executor not in campaign.EXECUTORS:
        raise typer.BadParameter(
            f"{executor!r}: allowed {', '.join(campaign.EXECUTORS)}", param_hint="'--executor'"
        )
    if scheduler is not None and executor != "dask":
        raise typer.BadParameter(
            "give --scheduler with --executor dask", param_hint="'--scheduler'"
        )
    if scheduler is not None and not SCHEDULER_ADDRESS.fullmatch(scheduler):
        raise typer.BadParameter(
            f"{scheduler!r} is not a scheduler's address (allowed: PROTOCOL://HOST:PORT or "
            "HOST:PORT, e.g. tcp://head:8786)",
            param_hint="'--scheduler'",
        )
    limit = max_output if max_output is not None else budget.DEFAULT_LIMIT
    with user_errors():
        try:
            base = list(set_ or [])
            if _is_campaign_file(scenario):
                spec = campaign.load_campaign_file(scenario)
                scenario_path = spec["scenario"]
                varied = spec["vary"] + campaign.parse_vary_options(vary or [])
                seed_list = seeds if seeds is not None else spec["seeds"]
                zipped = zip_ or spec["zip"]
                base = spec["set"] + base
                out = out or spec["out"]
            else:
                scenario_path, seed_list, zipped = scenario, seeds, zip_
                varied = campaign.parse_vary_options(vary or [])
            the_plan = campaign.plan(scenario_path, varied, seed_list, zipped, base)
        except (values.ValueSpecError, campaign.CampaignError) as e:
            raise UserError(str(e)) from None
        name = default_out_dir(the_plan.echoes[0], Path(scenario_path)).name
        out_dir = out if out is not None else Path("results") / f"{name}-sweep"
        try:
            the_plan = campaign.prepare_out(the_plan, out_dir, append)
        except campaign.CampaignError as e:
            raise UserError(str(e)) from None
        if plan_only:
            _print_plan(the_plan, out_dir, limit)
            return
        todo = campaign.pending(the_plan, out_dir / "runs")
        view = SweepView(err_console, len(todo), not quiet)
        try:
            outcome = campaign.run_campaign(
                the_plan, out_dir, executor, jobs, scheduler, view.done, limit
            )
        except (budget.BudgetError, campaign.CampaignError) as e:
            raise UserError(str(e)) from None
        finally:
            view.close()
    if quiet:
        return
    frame = campaign.read_table(out_dir)
    out_console.print(sweep_table(the_plan, frame))
    out_console.print(sweep_line(outcome))
    out_console.print(Text(f"results in {outcome.table_path}"), soft_wrap=True)


def _print_plan(the_plan, out_dir: Path, limit: int) -> None:
    from xltcp import budget, campaign

    listing = Table(title=f"{len(the_plan.points)} points", title_justify="left")
    listing.add_column("point", justify="right")
    for key in the_plan.keys:
        listing.add_column(key)
    for index, point in enumerate(the_plan.points):
        listing.add_row(str(index), *(str(v.value) for v in point.values()))
    out_console.print(listing)
    runs_dir = out_dir / "runs"
    todo = campaign.pending(the_plan, runs_dir) if runs_dir.is_dir() else the_plan.runs
    estimates = [budget.estimate_run(the_plan.echoes[r.point]) for r in todo]
    disk = sum(e.written for e in estimates)
    one_core = campaign.pilot_seconds(the_plan)
    share = len(todo) / max(1, len(the_plan.runs))
    cores = campaign.cores()
    have = len(the_plan.runs) - len(todo)
    lines = [
        f"{len(the_plan.points)} points x {len(the_plan.seeds)} seeds = {len(the_plan.runs)} runs"
        + (f" ({have} already in {out_dir})" if have else ""),
        f"time: about {table.human_seconds(one_core * share)} on one core, "
        f"{table.human_seconds(one_core * share / cores)} on {cores} cores "
        "(from a short run of each point)",
        f"disk: about {budget.human_size(disk)} of traces (limit {budget.human_size(limit)}, "
        f"{budget.human_size(budget.free_bytes(out_dir))} free)",
    ]
    for line in lines:
        out_console.print(Text(line), soft_wrap=True)
    try:
        budget.check(estimates, out_dir, limit)
    except budget.BudgetError as e:
        raise UserError(str(e)) from None


def sweep_table(the_plan, frame) -> Table:
    """Per point and flow: goodput, efficiency and RTOs, mean ± 95% CI over seeds."""
    from xltcp.stats import mean_ci

    listing = Table(
        title=f"{len(the_plan.seeds)} seeds per point, mean ± 95% CI", title_justify="left"
    )
    for key in the_plan.keys:
        listing.add_column(key)
    listing.add_column("flow")
    listing.add_column("goodput", justify="right")
    listing.add_column("efficiency", justify="right")
    listing.add_column("RTOs", justify="right")
    for (point, flow), group in frame.groupby(["point", "flow"], sort=True):
        cells = []
        for metric, fmt in (
            ("goodput_bps", table.rate_pm),
            ("efficiency", table.percent_pm),
            ("rto_count", table.count_pm),
        ):
            values = [float(v) for v in group[metric].dropna()] if metric in group else []
            if not values:
                cells.append("n/a")
                continue
            mean, half = mean_ci(values)
            cells.append(fmt(mean, None if half != half else half))
        params = [str(v.value) for v in the_plan.points[int(point)].values()]
        listing.add_row(*params, str(flow), *cells)
    return listing


def sweep_line(outcome) -> Text:
    """Runs made and skipped, wall time, and the speed-up over running them one by one."""
    parts = [f"{outcome.ran} runs"]
    if outcome.skipped:
        parts[0] += f" ({outcome.skipped} already done)"
    where = (
        "on the Dask cluster"
        if outcome.executor == "dask"
        else f"on {outcome.jobs} {outcome.executor if outcome.jobs > 1 else 'job'}"
    )
    parts.append(f"wall {table.human_seconds(outcome.wall_seconds)} {where}")
    if outcome.ran and outcome.wall_seconds > 0:
        parts.append(
            f"runs' own time {table.human_seconds(outcome.run_seconds)}, "
            f"speed-up x{outcome.run_seconds / outcome.wall_seconds:.2f}"
        )
    return Text(" | ".join(parts))


# --- The emulator -------------------------------------------------------------


@app.command()
def emu(
    scenario: Path = SCENARIO_ARG,
    seed: Optional[int] = SEED_OPT,
    out: Optional[Path] = OUT_OPT,
    set_: Optional[List[str]] = SET_OPT,
    cc: Optional[str] = typer.Option(
        None,
        "--cc",
        metavar="NAME",
        help="Linux congestion control for every flow, e.g. cubic "
        "[default: the scenario's; newreno runs as Linux reno].",
    ),
    signals: Optional[Path] = typer.Option(
        None,
        "--signals",
        metavar="SOCKET",
        help="Publish the radio's signals (and accept injected ones) as "
        "line-delimited JSON on this Unix-domain socket; see docs/emulator.md.",
    ),
    pcap: bool = typer.Option(
        False,
        "--pcap",
        help="Write the base station's pcapng captures (same as --set output.pcap=true).",
    ),
    sysctl: Optional[List[str]] = typer.Option(
        None,
        "--sysctl",
        metavar="NAME=VALUE",
        help="Set a network-namespace sysctl on both hosts after the ones the "
        "scenario's tcp keys give, e.g. net.ipv4.tcp_ecn=1 for ECN "
        "(repeatable; names under net.).",
    ),
    quiet: bool = QUIET_OPT,
    json_: bool = JSON_OPT,
) -> None:
    """Run a scenario on real Linux TCP through the emulated hop (needs root).

    Writes the same summary.json as xltcp run (goodput: the application
    data delivered in order by the scenario's end), each flow's time series
    of Linux's TCP state at its sender (timeseries/<flow>.csv, the
    simulator's columns), the applications' reports and, with --pcap, the
    base station's pcapng captures. Exit 2 when the machine cannot host the
    emulator (not root, no /dev/net/tun, no ip netns, no iperf3).
    """
    overrides = list(set_ or []) + (["output.pcap=true"] if pcap else [])
    with user_errors():
        from xltcp import _core

        if not hasattr(_core, "emu"):
            raise _error("the xltcp core extension lacks emu: rebuild it (maturin develop)", 1)
        echo = runner.validate(scenario, overrides, engine="emu")
        out_dir = out if out is not None else default_out_dir(echo, scenario)
        out_dir.mkdir(parents=True, exist_ok=True)
        view = ProgressView(err_console, 1, not quiet)
        # SIGTERM stops the run like Ctrl-C, so the teardown runs.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            view.run_started(0, seed)
            socket = None if signals is None else str(signals)
            text = _core.emu(
                str(scenario),
                seed,
                str(out_dir),
                overrides,
                view.progress,
                cc,
                socket,
                list(sysctl or []),
            )
        except _core.EmuUnavailable as e:
            raise UserError(str(e)) from None
        finally:
            signal.signal(signal.SIGTERM, previous)
            view.close()
        result = json.loads(text)
    if json_:
        print(json.dumps(result, indent=2))
    elif not quiet:
        out_console.print(table.run_table(result))
        out_console.print(emu_line(result))
        out_console.print(Text(f"results in {out_dir}"))
    if not json_:
        for warning in result.get("emu", {}).get("warnings", []):
            line = Text("warning: ", style="bold yellow") + Text(str(warning))
            err_console.print(line, soft_wrap=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def emu_line(summary: dict) -> Text:
    """Dispatch lateness, data-path CPU and wall time of an emulator run."""
    details = summary.get("emu", {})
    late = details.get("lateness", {})
    parts = [
        f"seed {summary.get('seed')}",
        f"emulated {table.human_seconds(summary.get('duration_s'))}",
        f"lateness median {late.get('median_us', 0):.1f} us, p99 {late.get('p99_us', 0):.1f} us",
        f"delivery delay p99 {details.get('delivery_delay', {}).get('p99_us', 0):.0f} us",
        # Dispatch and writer threads together: it may exceed one core.
        f"data path {100 * details.get('cpu_share', 0):.0f}% of a core (2 threads)",
        f"wall {table.human_seconds(summary.get('wall_seconds'))}",
    ]
    return Text(" | ".join(parts))


def describe(echo: dict) -> List[str]:
    """Short lines about a scenario echo: its flows, duration and wireless hop."""
    flows = echo.get("flows", echo.get("flow", []))
    lines = []
    if isinstance(flows, list):
        directions = [str(f.get("direction", "down")) for f in flows if isinstance(f, dict)]
        counts = ", ".join(f"{directions.count(d)} {d}" for d in ("down", "up") if d in directions)
        names = ", ".join(str(f.get("name")) for f in flows[:6] if isinstance(f, dict))
        more = ", ..." if len(flows) > 6 else ""
        lines.append(f"flows: {len(flows)} ({counts}): {names}{more}")
    sim = echo.get("sim", {})
    if isinstance(sim, dict) and "duration" in sim:
        lines.append(f"duration: {sim['duration']}, seed {sim.get('seed')}")
    hop = echo.get("wireless", {})
    if isinstance(hop, dict) and hop:
        lines.append("wireless hop: " + _describe_hop(hop))
    elif isinstance(hop, list):
        for entry in hop:
            if isinstance(entry, dict):
                lines.append(f"wireless hop {entry.get('name')}: " + _describe_hop(entry))
    schemes = echo.get("schemes", {})
    if isinstance(schemes, dict) and schemes:
        lines.append("schemes: " + ", ".join(f"{k}={v}" for k, v in schemes.items()))
    return lines


def _describe_hop(hop: dict) -> str:
    parts = [str(hop[key]) for key in ("rate", "delay", "queue") if key in hop]
    if hop.get("kind") == "lrwpan":
        parts.insert(0, f"802.15.4 ({hop.get('layout')} frames)")
    loss = hop.get("loss", {})
    if isinstance(loss, dict):
        for direction in ("down", "up"):
            spec = loss.get(direction)
            if isinstance(spec, dict) and spec.get("model", "none") != "none":
                params = ", ".join(f"{k}={v}" for k, v in spec.items() if k != "model")
                parts.append(f"loss {direction} {spec['model']}({params})")
    availability = hop.get("availability", {})
    if isinstance(availability, dict) and availability.get("model", "always") != "always":
        params = ", ".join(f"{k}={v}" for k, v in availability.items() if k != "model")
        parts.append(f"availability {availability['model']}({params})")
    return ", ".join(parts)


@app.command()
def validate(
    scenario: Path = SCENARIO_ARG,
    set_: Optional[List[str]] = SET_OPT,
    emu: bool = typer.Option(
        False,
        "--emu",
        help='Check for xltcp emu instead of xltcp run (which refuses, e.g., tcp.cc = "bbr").',
    ),
) -> None:
    """Check a scenario file as xltcp run would, and print a short summary of it."""
    with user_errors():
        echo = runner.validate(scenario, set_ or [], engine="emu" if emu else "sim")
        if emu:
            from xltcp import _core

            # What xltcp emu refuses before it looks at the machine.
            refusal = _core.emu_refusal(str(scenario), set_ or [])
            if refusal:
                raise UserError(f"{scenario}: xltcp emu does not run it: {refusal}")
    out_console.print(Text(f"{scenario}: ok"), soft_wrap=True)
    for line in describe(echo):
        out_console.print(Text(f"  {line}"), soft_wrap=True)


@app.command()
def demo(
    out: Optional[Path] = OUT_OPT,
    seed: Optional[int] = SEED_OPT,
    force: bool = FORCE_OPT,
    quiet: bool = QUIET_OPT,
    json_: bool = JSON_OPT,
) -> None:
    """Run the shipped demo scenario and print the results."""
    path = xltcp.shipped_scenario("demo")
    if not path.is_file():
        raise _error(f"the shipped demo scenario is missing ({path})", 1)
    out_dir = run_scenario(path, seed, None, out, [], quiet, json_, force=force)
    # The demo also draws its flows (RESULTS/plots/<flow>.png), when the run
    # wrote time series (xltcp plot refuses a folder without them).
    if not (out_dir / "timeseries").is_dir():
        return
    from xltcp.plot import plot_run

    written = plot_run(out_dir)
    if not quiet and not json_:
        out_console.print(Text(f"plots in {out_dir / 'plots'} ({len(written)} flows)"))


def description(path: Path) -> str:
    """The comment block a scenario file opens with, as one paragraph."""
    lines = []
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
    return " ".join(part for part in lines if part)


def first_sentence(text: str, width: int) -> str:
    """The first sentence of ``text``, cut at a word to at most ``width``
    characters (ending ``...`` when cut)."""
    found = re.match(r"(.*?[.!?])(?=\s+[A-Z(]|\s*$)", text)  # not at "Fig. 7"
    sentence = found.group(1) if found else text
    if len(sentence) <= width:
        return sentence
    head = sentence[: max(0, width - 3)]
    if sentence[len(head)] != " ":
        head = head.rsplit(" ", 1)[0]  # not half a word
    return head.rstrip(",;:") + "..."


@app.command()
def scenarios(
    long: bool = typer.Option(
        False, "--long", "-l", help="Each scenario's whole description, in a table."
    ),
) -> None:
    """List the scenarios shipped with xltcp, a line each.

    Give a name to run or validate one (xltcp run demo); --long prints each
    scenario's whole description.
    """
    folder = xltcp.scenarios_dir()
    names = xltcp.shipped_names()
    if not names:
        raise _error(f"no shipped scenarios found in {folder}", 1)
    if long:
        listing = Table(show_lines=True)
        listing.add_column("scenario", no_wrap=True)
        listing.add_column("about")
        for name in names:
            listing.add_row(name, description(xltcp.shipped_scenario(name)))
        out_console.print(listing)
        out_console.print(Text(f"in {folder}; run one with xltcp run NAME"), soft_wrap=True)
        return
    column = max(len(name) for name in names) + 2
    room = max(30, out_console.width - column)
    for name in names:
        about = first_sentence(description(xltcp.shipped_scenario(name)), room)
        out_console.print(Text(f"{name:<{column}}{about}".rstrip()), soft_wrap=True)
    out_console.print(
        Text(
            f"{len(names)} scenarios in {folder}; run one with xltcp run NAME, "
            "xltcp scenarios --long for their descriptions"
        ),
        soft_wrap=True,
    )


@app.command()
def plot(
    results: Path = typer.Argument(
        ...,
        metavar="RESULTS",
        help="A results folder written by xltcp run: one run, a seed-<n> folder, "
        "or a --seeds folder (drawn as the mean over seeds with a 95% CI band).",
    ),
    fmt: str = typer.Option("png", "--format", metavar="png|pdf|svg", help="Image format."),
    against: Optional[Path] = typer.Option(
        None,
        "--against",
        metavar="OTHER",
        help="Another run's results folder (e.g. the same scenario and seed on the "
        "other engine): each flow both have is drawn with both runs, goodput, cwnd, "
        "SRTT and RTO, into RESULTS/plots/<flow>-against-<OTHER>.FORMAT.",
    ),
) -> None:
    """Draw each flow's goodput, cwnd and sequence trace into RESULTS/plots/.

    Titles name the scenario, seed and flow; RTOs and fast recoveries are
    marked, so are a flow's start and a file's completion; with several
    flows, all-flows.FORMAT draws every flow's goodput on one axis.
    """
    from xltcp.plot import FORMATS, plot_run, plot_seeds, seed_folders

    if fmt not in FORMATS:
        raise typer.BadParameter(f"{fmt!r}: allowed {', '.join(FORMATS)}", param_hint="'--format'")
    if against is not None:
        with refused():
            _plot_against(results, against, fmt)
        return
    with refused():
        if (results / "timeseries").is_dir():
            written = plot_run(results, fmt)
        elif seed_folders(results):
            written = plot_seeds(results, fmt)
        else:
            raise UserError(
                f"{results}: no timeseries/ or seed-<n>/timeseries/ folder here "
                "(allowed: a folder written by xltcp run, with one seed or --seeds)"
            )
    for path in written:
        out_console.print(Text(f"wrote {path}"), soft_wrap=True)


def _plot_against(results: Path, other: Path, fmt: str) -> None:
    """``xltcp plot RESULTS --against OTHER``."""
    from xltcp.plot import compare_runs

    for folder, what in ((results, "RESULTS"), (other, "--against")):
        if not (folder / "timeseries").is_dir():
            raise _error(
                f"{what} {folder}: no timeseries/ folder here (allowed: one run's "
                "results folder, written by xltcp run or xltcp emu)",
                2,
            )
    written = compare_runs(results, other, fmt)
    if not written:
        raise _error(f"{results} and {other}: no flow name in both timeseries/ folders", 2)
    for path in written:
        out_console.print(Text(f"wrote {path}"), soft_wrap=True)


@app.command()
def report(
    results: Path = typer.Argument(
        ...,
        metavar="DIR",
        help="A folder written by xltcp run (one seed or --seeds), xltcp sweep or xltcp reproduce.",
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", metavar="FILE", help="HTML file to write [default: DIR/report.html]."
    ),
) -> None:
    """Write one self-contained HTML report (tables and plots embedded) of a results folder."""
    from xltcp import report as report_module

    if not results.is_dir():
        raise _error(f"{results}: no such folder", 2)
    try:
        path = report_module.build(results, out)
    except (report_module.ReportError, files.FileError) as e:
        raise _error(str(e), 2) from None
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        raise _error(f"{where}{e.strerror or e}", 1) from None
    out_console.print(Text(f"wrote {path}"), soft_wrap=True)


@app.command()
def reproduce(
    paper: str = typer.Argument(
        ...,
        metavar="PAPER",
        help=(
            "Paper to reproduce: byun2016 (paper 000), dsasync (001), kim-chung (002), "
            "ucl (003), l2clamp (004), or all."
        ),
    ),
    seeds: Optional[str] = typer.Option(
        None,
        "--seeds",
        metavar="A..B|A,B,C",
        help="Seeds of every configuration [default: 1..10; 1..3 with --engine emu].",
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR",
        help="Results folder [default: results/reproduce-PAPER, or -emu with --engine emu].",
    ),
    engine: str = typer.Option(
        "sim",
        "--engine",
        metavar="sim|emu",
        help="byun2016 only: emu runs each configuration on real Linux TCP through the "
        "emulator (needs root) beside the simulator, 60 s per run unless --set "
        "sim.duration says otherwise.",
    ),
    sweeps: bool = typer.Option(False, "--sweeps", help="Also run the parameter sweeps."),
    sensitivity: bool = typer.Option(
        False,
        "--sensitivity",
        help="byun2016: also run both families over max RTO, MAC retries, frame loss, "
        "signalling delay, t_idle, the PU means, the wired delay and jitter and the hosts' "
        "stack latency. dsasync: also run the downlink over what a TFP does to queued "
        "frames, the TCP, the AP queue, the wired delay and the TFP statistics. "
        "l2clamp: also run the controller's reconstructed parts and the receivers' "
        "channels, each variant under PF and round robin.",
    ),
    set_: Optional[List[str]] = SET_OPT,
    jobs: Optional[int] = typer.Option(
        None, "--jobs", "-j", min=1, metavar="N", help="Runs at once [default: every core]."
    ),
    no_check: bool = typer.Option(
        False,
        "--no-check",
        help="Only report the paper's targets: exit 0 even when one is missed "
        "[default: exit 3 when one is missed].",
    ),
    repeat: int = typer.Option(
        1,
        "--repeat",
        min=1,
        metavar="N",
        help="--engine emu only: run each configuration and seed N times on Linux (the "
        "same seed does not make the same run there) and report the spread.",
    ),
    quiet: bool = QUIET_OPT,
) -> None:
    """Reproduce a paper: its configurations over seeds, a table and figures.

    Exits with status 3 when a target of the paper is missed (the table says
    which), unless --no-check.

    The runs go through the campaign layer: on every core, into OUT/runs/<key>/,
    and a reproduction run again runs only the runs it lacks. "all" runs
    every paper into OUT/<paper>/ and writes OUT/reproduce-all.json and
    OUT/report.html (a section per paper, a summary of targets met and missed).
    """
    from xltcp.reproduce import PAPERS, progress_bar, reproduce_all

    if paper not in PAPERS and paper != "all":
        raise typer.BadParameter(
            f"{paper!r}: known papers are {', '.join(sorted(PAPERS))}, or all",
            param_hint="'PAPER'",
        )
    if sensitivity and paper not in ("byun2016", "dsasync", "l2clamp"):
        raise typer.BadParameter(
            f"--sensitivity is for byun2016, dsasync and l2clamp only, not {paper!r}",
            param_hint="'--sensitivity'",
        )
    if engine not in ("sim", "emu"):
        raise typer.BadParameter(f"{engine!r}: expected sim or emu", param_hint="'--engine'")
    if engine == "emu":
        if paper != "byun2016":
            raise typer.BadParameter(
                f"--engine emu is for byun2016 only, not {paper!r}", param_hint="'--engine'"
            )
        if sweeps or sensitivity:
            raise typer.BadParameter(
                "--engine emu runs the six configurations only, without --sweeps or --sensitivity",
                param_hint="'--engine'",
            )
        _reproduce_emu(_parse_seeds_option(seeds), out, set_ or [], quiet, repeat)
        return
    if repeat != 1:
        raise typer.BadParameter("--repeat is for --engine emu only", param_hint="'--repeat'")
    seed_list = _parse_seeds_option(seeds) or list(range(1, 11))
    out_dir = out or Path("results") / f"reproduce-{paper}"
    papers = sorted(PAPERS) if paper == "all" else [paper]
    with user_errors():
        from xltcp import results

        results.check_reproduction(out_dir, papers if paper == "all" else ())
    total = sum(PAPERS[p].total_runs(len(seed_list), sweeps) for p in papers)
    if sensitivity:
        total = PAPERS[paper].total_runs(len(seed_list), sweeps, sensitivity=True)
    bar = progress_bar(err_console, not quiet, total)
    with user_errors(), bar as step:
        if paper == "all":
            summary = reproduce_all(seed_list, out_dir, sweeps, set_ or [], step, jobs)
            checks = [c for p in summary["papers"].values() for c in p["checks"]]
        else:
            extra = {"sensitivity": True} if sensitivity else {}
            report = PAPERS[paper].reproduce(
                seed_list, out_dir, sweeps, set_ or [], step, jobs, **extra
            )
            checks = report["checks"]
    if not quiet:
        for name in papers:
            folder = out_dir / name if paper == "all" else out_dir
            out_console.print(
                (folder / "table.md").read_text(), markup=False, highlight=False, soft_wrap=True
            )
        if paper == "all":
            met = sum(1 for c in checks if c["met"])
            out_console.print(Text(f"targets: {met} met, {len(checks) - met} missed"))
            out_console.print(Text(f"report in {out_dir / 'report.html'}"), soft_wrap=True)
        out_console.print(Text(f"results in {out_dir}"), soft_wrap=True)
    missed = [c for c in checks if not c["met"]]
    if missed:
        where = out_dir / "table.md" if paper != "all" else out_dir / "report.html"
        err_console.print(
            Text(f"{len(missed)} of {len(checks)} targets missed (see {where})"),
            soft_wrap=True,
        )
        if not no_check:
            raise typer.Exit(TARGETS_MISSED)


def _reproduce_emu(
    seeds: Optional[List[int]],
    out: Optional[Path],
    overrides: List[str],
    quiet: bool,
    repeats: int = 1,
) -> None:
    """``xltcp reproduce byun2016 --engine emu``."""
    from xltcp.reproduce import byun2016_emu, progress_bar

    seed_list = seeds or list(byun2016_emu.DEFAULT_SEEDS)
    out_dir = out or Path("results") / "reproduce-byun2016-emu"
    with user_errors():
        from xltcp import _core

        total = byun2016_emu.total_runs(len(seed_list), overrides, repeats)
        total += byun2016_emu.population_steps(overrides)
        bar = progress_bar(err_console, not quiet, total)
        # SIGTERM stops the runs like Ctrl-C, so the emulator's teardown runs.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            with bar as step:
                byun2016_emu.reproduce(seed_list, out_dir, overrides, step, repeats)
        except _core.EmuUnavailable as e:
            raise UserError(str(e)) from None
        finally:
            signal.signal(signal.SIGTERM, previous)
    if not quiet:
        out_console.print(
            (out_dir / "emu.md").read_text(), markup=False, highlight=False, soft_wrap=True
        )
        out_console.print(Text(f"results in {out_dir}"), soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        from xltcp.entry import version_text

        print(version_text())
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """TCP over disruptive wireless links: run and check scenarios."""


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt, as Ctrl-C does, so that a
    run killed by ``timeout`` or a batch scheduler, or whose terminal closed,
    removes its temporary folder and says ``interrupted`` in its manifest.
    A signal ignored when xltcp started (``nohup``) stays ignored."""
    names = ("SIGTERM", "SIGHUP")
    numbers = [getattr(signal, name) for name in names if hasattr(signal, name)]
    changed = [n for n in numbers if signal.getsignal(n) is signal.SIG_DFL]
    for number in changed:
        signal.signal(number, _interrupt)
    try:
        yield
    finally:
        for number in changed:
            signal.signal(number, signal.SIG_DFL)


def main() -> None:
    """Entry point of the ``xltcp`` command: every command's exceptions end
    here as a message and an exit status (:func:`last_resort`)."""
    with stop_signals():
        try:
            app(prog_name="xltcp")
        except Exception as e:
            if os.environ.get("XLTCP_TRACEBACK") == "1":
                raise
            sys.exit(last_resort(e))


if __name__ == "__main__":
    sys.exit(main())
