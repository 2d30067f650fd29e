"""Reproductions of published results: one module per paper.

``xltcp reproduce <paper>`` runs ``reproduce(seeds, out, sweeps, overrides,
progress)`` of the paper's module, with a progress bar over its
``total_runs(seeds, sweeps)`` runs: ``progress(label)`` is called as each
run ends (runs on a :func:`common.pool` report through ``RunPool.run``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

from xltcp import progress
from xltcp.reproduce import byun2016, dsasync, kim_chung, l2clamp, ucl

#: Paper name -> its module.
PAPERS = {
    "byun2016": byun2016,
    "dsasync": dsasync,
    "kim-chung": kim_chung,
    "ucl": ucl,
    "l2clamp": l2clamp,
}

__all__ = [
    "PAPERS",
    "byun2016",
    "dsasync",
    "kim_chung",
    "l2clamp",
    "progress_bar",
    "reproduce_all",
    "ucl",
]


def reproduce_all(
    seeds: Sequence[int],
    out: Path,
    sweeps: bool = False,
    overrides: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
    jobs: int | None = None,
) -> dict:
    """Every paper into ``out/<paper>/``; writes ``out/reproduce-all.json``
    (each paper's checks, and the count of targets met and missed) and the
    HTML report ``out/report.html``."""
    out = Path(out)
    papers = {}
    for name in sorted(PAPERS):
        report = PAPERS[name].reproduce(seeds, out / name, sweeps, overrides, progress, jobs)
        papers[name] = {"checks": report["checks"]}
    checks = [c for p in papers.values() for c in p["checks"]]
    met = sum(1 for c in checks if c["met"])
    summary = {"papers": papers, "met": met, "missed": len(checks) - met, "seeds": list(seeds)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "reproduce-all.json").write_text(json.dumps(summary, indent=2) + "\n")
    from xltcp import report

    report.build(out)
    return summary


@contextlib.contextmanager
def progress_bar(console: Console, enabled: bool, total: int) -> Iterator[Callable[[str], None]]:
    """A bar over `total` runs; yields the callback to call, with the run's
    label, as each run ends (from any thread).

    Off a terminal, plain lines instead (:class:`xltcp.progress.Lines`).
    """
    if not enabled:
        yield lambda _label: None
        return
    if not progress.live(console):
        yield progress.Lines(console, total).finished
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

        def step(label: str) -> None:
            bar.update(task, advance=1, description=f"{label} done")

        yield step
