"""What the reproductions share: paired runs on a thread pool, and means
with 95 % Student t intervals as table text."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from xltcp.stats import mean_ci


def pool(jobs: int | None) -> ThreadPoolExecutor:
    """A thread pool of ``jobs`` workers (default: the usable cores); runs
    release the GIL, and each writes its own folder."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return ThreadPoolExecutor(max_workers=jobs or cores or 1)


def ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and 95 % half width (NaN for one value)."""
    return mean_ci(list(values), 0.95)


def text(values: Sequence[float], scale: float, fmt: str) -> str:
    """``mean ± half`` of ``values / scale`` in ``fmt``."""
    mean, half = ci(values)
    if math.isnan(half):
        return fmt.format(mean / scale)
    return f"{fmt.format(mean / scale)} ± {fmt.format(half / scale)}"
