"""Shared by every command: exit statuses, the typer app, errors, progress and options."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.console import Console
from rich.text import Text

import xltcp
from xltcp import budget, files, progress, runner

if TYPE_CHECKING:
    from rich.progress import Progress


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

#: Tables fit the terminal; into a file or pipe (no terminal: rich would
#: assume 80 columns and squeeze them) they are as wide as their content, up
#: to 160 columns, unless COLUMNS says otherwise.
out_console = Console(
    highlight=False,
    width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 160,
)
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


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
