"""Statistics over independent runs (one value per seed)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache


@lru_cache(maxsize=256)
def _t_quantile(q: float, dof: float) -> float:
    # scipy takes ~1 s and ~60 MB to import: only the statistics pay for it,
    # not every start of the command.
    from scipy import stats as scipy_stats

    return float(scipy_stats.t.ppf(q, dof))


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Mean of `values` and the half width of its Student t confidence interval.

    The interval is ``mean ± t_{(1+confidence)/2, n-1} * s / sqrt(n)`` with
    ``s`` the sample standard deviation (n - 1 in the denominator). With a
    single value the half width is NaN: one run says nothing about spread.
    Raises ValueError for no values or a confidence outside (0, 1).
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    mean = math.fsum(values) / n
    if n == 1:
        return mean, math.nan
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    t = _t_quantile((1.0 + confidence) / 2.0, n - 1)
    return mean, t * math.sqrt(variance) / math.sqrt(n)


def welch_ci(
    a: Sequence[float], b: Sequence[float], confidence: float = 0.95
) -> tuple[float, float]:
    """mean(a) - mean(b) and the half width of Welch's confidence interval
    for it (two independent samples, variances not assumed equal; degrees
    of freedom by Welch-Satterthwaite). NaN half width when either sample
    has fewer than two values or neither varies."""
    if not a or not b:
        raise ValueError("welch_ci needs values in both samples")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    ma, mb = math.fsum(a) / len(a), math.fsum(b) / len(b)
    if len(a) < 2 or len(b) < 2:
        return ma - mb, math.nan
    va = math.fsum((v - ma) ** 2 for v in a) / (len(a) - 1) / len(a)
    vb = math.fsum((v - mb) ** 2 for v in b) / (len(b) - 1) / len(b)
    if va + vb == 0.0:
        return ma - mb, math.nan
    dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    t = _t_quantile((1.0 + confidence) / 2.0, dof)
    return ma - mb, t * math.sqrt(va + vb)
