"""Helpers shared by the ns-3 sweep drivers: running replications (at most N
processes at a time), Student-t confidence intervals (:mod:`xltcp.stats`), and
summary rows."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from xltcp import stats


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 95 % Student t confidence interval (nan for
    one value); missing values (None, nan) are left out."""
    values = [v for v in values if v is not None and not math.isnan(v)]
    if not values:
        return math.nan, math.nan
    return stats.mean_ci(values)


def missing_binary(binary: Path) -> bool:
    """True (after saying so on stderr) when the program `binary` has not been built."""
    if binary.exists():
        return False
    print(f"{binary} not found: run bench/ns3/build.sh first", file=sys.stderr)
    return True


def run_json(cmd: list[str]) -> dict:
    """Runs one program and returns the JSON object on the last line of its stdout."""
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_all(jobs: list[tuple[dict, list[str]]], parallel: int, log=None) -> list[dict]:
    """Runs (tags, command) jobs with at most `parallel` processes; returns the
    outputs, each merged with its tags, in job order."""

    def one(job: tuple[dict, list[str]]) -> dict:
        tags, cmd = job
        out = run_json(cmd)
        out.update(tags)
        if log:
            log(out)
        return out

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        return list(pool.map(one, jobs))


def summarize(runs: list[dict], keys: list[str], fields: list[str]) -> list[dict]:
    """One row per distinct value of `keys` (first-seen order) with n and, for
    every field, its mean and 95 % CI half-width (`<field>_mean`, `<field>_ci95`)."""
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault(tuple(run[k] for k in keys), []).append(run)
    rows = []
    for key, group in groups.items():
        row = dict(zip(keys, key))
        row["n"] = len(group)
        for f in fields:
            mean, ci = mean_ci([r[f] for r in group])
            row[f + "_mean"] = mean
            row[f + "_ci95"] = ci
        rows.append(row)
    return rows


def pm(row: dict, field: str, scale: float = 1.0, digits: int = 3) -> str:
    """'mean ± ci' of a summary field, divided by `scale`."""
    mean, ci = row[field + "_mean"], row[field + "_ci95"]
    if math.isnan(mean):
        return "n/a"
    if math.isnan(ci):
        return f"{mean / scale:.{digits}f}"
    return f"{mean / scale:.{digits}f} ± {ci / scale:.{digits}f}"


def write_json(path: Path, obj: dict) -> None:
    """Writes `obj` as indented JSON, creating the parent directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2) + "\n")
