"""Progress of long commands on stderr: a live bar on a terminal, plain lines elsewhere.

On a terminal the commands draw rich's bars (``cli.ProgressView`` for runs
and seeds, ``cli.SweepView`` for campaigns, ``reproduce.progress_bar`` for
reproductions). When stderr is not a terminal (a batch job, a log file, a
pipe) a bar would print nothing until the end, so each of them writes
:class:`Lines` instead: one line per finished run, at most every
:data:`LINE_INTERVAL_S` seconds, and always the last one::

    [12/120] seed 7 done, 0:42 elapsed, ~5:10 left
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from rich.console import Console

#: Least wall time between two plain progress lines (the last run's line is always written).
LINE_INTERVAL_S = 5.0


def live(console: Console) -> bool:
    """Whether ``console`` is a terminal, where progress is a live bar."""
    return console.is_terminal


def clock_text(seconds: float) -> str:
    """Wall seconds as ``M:SS``, or ``H:MM:SS`` from an hour."""
    whole = max(0, int(round(seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Lines:
    """Plain progress lines over ``total`` runs, written to ``console``'s stream.

    :meth:`finished` counts a run and writes its line when the last line is
    ``interval`` seconds old or the run is the last; :meth:`note` writes a
    line about the run under way at most that often. Safe to call from
    several threads.
    """

    def __init__(
        self,
        console: Console,
        total: int,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console, self.total, self.clock = console, total, clock
        self.interval = LINE_INTERVAL_S if interval is None else interval
        self.started = self.last = clock()
        self.done = 0
        self.lock = threading.Lock()

    def finished(self, label: str) -> None:
        """One more run ended: ``[done/total] label done, elapsed, ~left``."""
        with self.lock:
            self.done += 1
            now = self.clock()
            if self.done < self.total and now - self.last < self.interval:
                return
            elapsed = now - self.started
            parts = [f"[{self.done}/{self.total}] {label} done", f"{clock_text(elapsed)} elapsed"]
            if 0 < self.done < self.total:
                left = elapsed / self.done * (self.total - self.done)
                parts.append(f"~{clock_text(left)} left")
            self._write(", ".join(parts), now)

    def note(self, text: str) -> None:
        """A line about the run under way, when the last line is ``interval`` seconds old."""
        with self.lock:
            now = self.clock()
            if now - self.last < self.interval:
                return
            head = f"[{self.done}/{self.total}] " if self.total > 1 else ""
            self._write(f"{head}{text}, {clock_text(now - self.started)} elapsed", now)

    def _write(self, line: str, now: float) -> None:
        self.last = now
        stream = self.console.file
        stream.write(line + "\n")
        stream.flush()
