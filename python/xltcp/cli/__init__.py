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
import os
import signal
import sys
from collections.abc import Iterator

import typer

from xltcp.cli import emu, info, plots, reproduce, runs, sweep
from xltcp.cli.common import (
    EXIT_STATUSES,
    TARGETS_MISSED,
    ProgressView,
    UserError,
    _interrupt,
    app,
    default_out_dir,
    err_console,
    last_resort,
    out_console,
    resolve_scenario,
    user_errors,
)
from xltcp.cli.info import description, first_sentence
from xltcp.cli.sweep import SweepView, sweep_line, sweep_table

__all__ = [
    "EXIT_STATUSES",
    "TARGETS_MISSED",
    "ProgressView",
    "SweepView",
    "UserError",
    "app",
    "default_out_dir",
    "description",
    "err_console",
    "first_sentence",
    "last_resort",
    "main",
    "out_console",
    "resolve_scenario",
    "stop_signals",
    "sweep_line",
    "sweep_table",
    "user_errors",
]

#: The commands, in the order ``xltcp --help`` lists them: one module each
#: (``validate``, ``demo`` and ``scenarios`` share :mod:`xltcp.cli.info`).
COMMANDS = (
    runs.run,
    sweep.sweep,
    emu.emu,
    info.validate,
    info.demo,
    info.scenarios,
    plots.plot,
    plots.report,
    reproduce.reproduce,
)
for _command in COMMANDS:
    app.command()(_command)


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
