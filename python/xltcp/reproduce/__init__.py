"""Reproductions of published results: one module per paper.

``xltcp reproduce <paper>`` runs ``reproduce(seeds, out, sweeps, overrides,
progress)`` of the paper's module, with a progress bar over its
``total_runs(seeds, sweeps)`` runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

from xltcp.reproduce import byun2016, dsasync

#: Paper name -> its module.
PAPERS = {"byun2016": byun2016, "dsasync": dsasync}

__all__ = ["PAPERS", "byun2016", "dsasync", "progress_bar"]


@contextlib.contextmanager
def progress_bar(console: Console, enabled: bool, total: int) -> Iterator[Callable[[str], None]]:
    """A bar over `total` runs; yields the callback to call as each run starts."""
    if not enabled:
        yield lambda _label: None
        return
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    with bar:
        task = bar.add_task("starting", total=total)
        started = [False]

        def step(label: str) -> None:
            # Called as each run starts: the previous one is done.
            if started[0]:
                bar.advance(task)
            started[0] = True
            bar.update(task, description=label)

        yield step
