"""What the reproductions share: paired runs on a thread pool, means with
95 % Student t intervals as table text, and the checks of a paper's
targets as a table and in ``reproduce.json``."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from xltcp.stats import mean_ci


class RunPool(ThreadPoolExecutor):
    """A thread pool whose runs tell ``progress`` their label as each one ends."""

    def __init__(self, jobs: int, progress: Callable[[str], None] | None = None) -> None:
        super().__init__(max_workers=jobs)
        self.progress = progress

    def run(self, label: str, fn: Callable[..., Any], *args: Any) -> Future:
        """Submit ``fn(*args)``; once it returns, ``progress(label)``."""
        future = self.submit(fn, *args)
        progress = self.progress
        if progress is not None:

            def ended(done: Future) -> None:
                if not done.cancelled() and done.exception() is None:
                    progress(label)

            future.add_done_callback(ended)
        return future


def pool(jobs: int | None, progress: Callable[[str], None] | None = None) -> RunPool:
    """A thread pool of ``jobs`` workers (default: the usable cores); runs
    release the GIL, and each writes its own folder. Runs given to
    :meth:`RunPool.run` report to ``progress`` as they end."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return RunPool(jobs or cores or 1, progress)


def ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and 95 % half width (NaN for one value)."""
    return mean_ci(list(values), 0.95)


def text(values: Sequence[float], scale: float, fmt: str) -> str:
    """``mean ± half`` of ``values / scale`` in ``fmt``."""
    mean, half = ci(values)
    if math.isnan(half):
        return fmt.format(mean / scale)
    return f"{fmt.format(mean / scale)} ± {fmt.format(half / scale)}"


#: A paper's target checked: (target, met, measured).
Check = tuple[str, bool, str]


def checks_table(found: Sequence[Check]) -> list[str]:
    """The checks as Markdown table lines (a blank line first)."""
    lines = ["", "| target | met | measured |", "|---|---|---|"]
    return lines + [f"| {t} | {'yes' if m else 'no'} | {s} |" for t, m, s in found]


def write_report(out: Path, report: dict, found: Sequence[Check]) -> dict:
    """``report`` with its ``checks``, written to ``out/reproduce.json``."""
    report["checks"] = [{"target": t, "met": m, "measured": s} for t, m, s in found]
    (out / "reproduce.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
