"""Running a scenario for one seed or many, and aggregating over seeds.

A run into a missing or empty folder is written into a temporary sibling
(``.NAME.tmp-<host>-<pid>-<random>``) and renamed when complete, so a run
that fails or is killed leaves no folder that looks whole; the next run
into the same parent removes the temporary folders of dead processes.

A run with several seeds writes each run into ``OUT/seed-<n>/`` and adds
``OUT/runs.csv`` (one row per run and flow) and ``OUT/aggregate.json``
(mean and Student t confidence interval over seeds, per flow). Given the
seeds to keep (:func:`completed_seeds`), it reads their summaries instead
of running them again, so a resumed run writes the tables an uninterrupted
one writes (but for the wall times).
"""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from xltcp import schema
from xltcp.stats import mean_ci

#: Largest seed the core accepts (an unsigned 64-bit integer).
MAX_SEED = 2**64 - 1

#: Most seeds one ``--seeds`` value may name (a guard against typos like 1..1000000000).
MAX_SEED_COUNT = 100_000

#: Per-flow metrics that ``aggregate.json`` summarises over seeds.
AGGREGATED_METRICS = ("goodput_bps", "efficiency", "retransmissions", "rto_count")

Progress = Callable[[float, float], None]

#: ``seal(folder, summary)``: the last files of a run, written before it is renamed.
Seal = Callable[[Path, dict], None]


class SeedSpecError(ValueError):
    """A ``--seeds`` value that does not name a set of seeds."""


def _parse_seed(text: str, whole: str) -> int:
    text = text.strip()
    if not re.fullmatch(r"[0-9]+", text):
        raise SeedSpecError(
            f"{whole!r}: {text!r} is not a seed; expected a range like 1..10 "
            "or a list like 1,2,5 (seeds are integers >= 0)"
        )
    seed = int(text)
    if seed > MAX_SEED:
        raise SeedSpecError(f"{whole!r}: seed {seed} is larger than {MAX_SEED}")
    return seed


def parse_seeds(text: str) -> list[int]:
    """The seeds named by ``A..B`` (inclusive), ``1,2,5`` or a single ``N``.

    Raises SeedSpecError for anything else: an empty value, a reversed range,
    a negative or non-integer seed, a seed listed twice, or more than
    MAX_SEED_COUNT seeds.
    """
    whole = text
    text = text.strip()
    if not text:
        raise SeedSpecError("empty seed list; expected a range like 1..10 or a list like 1,2,5")
    if ".." in text:
        low_text, _, high_text = text.partition("..")
        low, high = _parse_seed(low_text, whole), _parse_seed(high_text, whole)
        if high < low:
            raise SeedSpecError(f"{whole!r}: the range ends ({high}) before it starts ({low})")
        if high - low + 1 > MAX_SEED_COUNT:
            raise SeedSpecError(
                f"{whole!r}: {high - low + 1} seeds; at most {MAX_SEED_COUNT} in one sweep"
            )
        return list(range(low, high + 1))
    seeds = [_parse_seed(part, whole) for part in text.split(",")]
    for i, seed in enumerate(seeds):
        if seed in seeds[:i]:
            raise SeedSpecError(f"{whole!r}: seed {seed} is listed twice")
    return seeds


def overrides_list(overrides: Mapping[str, Any] | Iterable[str] | None) -> list[str]:
    """``--set`` strings from a mapping ({"sim.duration": "2s"}) or strings."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{key}={_override_value(value)}" for key, value in overrides.items()]
    return [str(item) for item in overrides]


def _override_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _core():
    # Imported on use so that seed parsing and statistics work without the
    # compiled extension.
    from xltcp import _core

    return _core


def validate(path: str | Path, overrides: Sequence[str] = (), engine: str = "sim") -> dict:
    """The scenario echo of a valid scenario; raises ``_core.ScenarioError``.

    ``engine="sim"`` makes every check ``run`` makes (the simulator refuses
    what only the emulator runs); ``"emu"`` only the loader's.
    """
    return json.loads(_core().validate(str(path), list(overrides), engine))


def run_one(
    path: str | Path,
    seed: int | None = None,
    out_dir: str | Path | None = None,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    atomic: bool = True,
    seal: Seal | None = None,
) -> dict:
    """Run the scenario once; returns the summary (also in out_dir/summary.json).

    When ``out_dir`` is missing or empty (and ``atomic``), the run is written
    into a temporary sibling folder renamed to ``out_dir`` once complete, so a
    run that fails or is killed midway leaves no results folder at all; the
    temporary folders of dead runs in the same parent are removed first. A
    folder with files (or the current folder) is written in place.
    ``seal(folder, summary)``, when given, adds files to the finished run
    before it is renamed.
    """
    from xltcp import results

    core = _core()
    if out_dir is None:
        return json.loads(core.run(str(path), seed, None, list(overrides), progress))
    out = Path(out_dir)
    if not atomic or not results.is_empty(out) or results.holds_cwd(out):
        summary = json.loads(core.run(str(path), seed, str(out), list(overrides), progress))
        if seal is not None:
            seal(out, summary)
        return summary
    out.parent.mkdir(parents=True, exist_ok=True)
    results.clean_stale(out.parent)
    tmp = results.temp_path(out)
    try:
        try:
            text = core.run(str(path), seed, str(tmp), list(overrides), progress)
        except RuntimeError as e:
            raise RuntimeError(str(e).replace(str(tmp), str(out))) from None
        summary = json.loads(text)
        if seal is not None:
            seal(tmp, summary)
        results.publish(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summary


class Observer:
    """Hooks a caller of :func:`run_seeds` may override (all do nothing here)."""

    def run_started(self, index: int, seed: int) -> None:
        """Run number ``index`` (from 0) with ``seed`` is about to start."""

    def progress(self, done_s: float, total_s: float) -> None:
        """Simulated seconds done out of the total, within the current run."""

    def run_finished(self, index: int, seed: int, summary: dict) -> None:
        """Run number ``index`` finished with this summary."""


def run_seeds(
    path: str | Path,
    seeds: Sequence[int],
    out_dir: str | Path,
    overrides: Sequence[str] = (),
    observer: Observer | None = None,
    confidence: float = 0.95,
    keep: Collection[int] = (),
) -> dict:
    """Run every seed into ``out_dir/seed-<n>/``; write and return the aggregate.

    ``runs.csv`` is written anew, its rows added as each seed finishes, so an
    interrupted sweep keeps the seeds it completed; ``run.log`` (in
    ``out_dir`` and in each seed's folder) has a line per run started,
    finished or failed. The seeds in ``keep`` are not run again: their
    ``seed-<n>/summary.json`` is read back (see :func:`completed_seeds`).
    """
    from xltcp import results

    observer = observer or Observer()
    out_dir = Path(out_dir)
    summaries = []
    table = RunsCsv(out_dir / "runs.csv")
    for index, seed in enumerate(seeds):
        run_dir = out_dir / f"seed-{seed}"
        if seed in keep:
            summary = json.loads((run_dir / "summary.json").read_text())
        else:
            summary = _run_seed(path, seed, run_dir, overrides, observer, index)
        table.append(summary)
        summaries.append(summary)
        observer.run_finished(index, seed, summary)
    result = aggregate(summaries, confidence)
    results.write_whole(out_dir / "aggregate.json", json.dumps(result, indent=2) + "\n")
    return result


def _run_seed(
    path: str | Path,
    seed: int,
    run_dir: Path,
    overrides: Sequence[str],
    observer: Observer,
    index: int,
) -> dict:
    from xltcp import results

    observer.run_started(index, seed)
    results.log(run_dir.parent, f"started seed {seed}")

    def seal(folder: Path, summary: dict) -> None:
        results.log(folder, results.summary_line(summary))

    try:
        summary = run_one(path, seed, run_dir, overrides, observer.progress, seal=seal)
    except BaseException as e:
        results.log(run_dir.parent, f"failed seed {seed}: {type(e).__name__}: {e}")
        raise
    results.log(run_dir.parent, results.summary_line(summary))
    return summary


def completed_seeds(out_dir: str | Path, seeds: Sequence[int]) -> list[int]:
    """The seeds whose run is whole in ``out_dir`` (``seed-<n>/summary.json``).

    A seed's folder appears only when its run completed (it is written under
    a temporary name), so these are the seeds a resumed run keeps.
    """
    return [s for s in seeds if (Path(out_dir) / f"seed-{s}" / "summary.json").is_file()]


def _columns(summaries: Sequence[dict]) -> list[str]:
    """The columns of ``runs.csv``: those of the first run's rows
    (:func:`xltcp.schema.seeds_rows`), then any a later run adds."""
    columns: dict[str, None] = {}
    for summary in summaries:
        for row in schema.seeds_rows(summary):
            columns.update(dict.fromkeys(row))
    return list(columns)


def _rows(summary: dict, columns: Sequence[str]) -> Iterable[dict]:
    for row in schema.seeds_rows(summary):
        yield {key: row.get(key) for key in columns}


class RunsCsv:
    """``runs.csv`` written a run at a time: the header from the first run.

    Every run of one scenario has the same flow fields, so the first run's
    columns hold for all; a field only a later run has is left out.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.columns: list[str] | None = None

    def append(self, summary: dict) -> None:
        """Add the run's rows (one per flow) and flush them to disk."""
        fresh = self.columns is None
        if self.columns is None:
            self.columns = _columns([summary])
        with open(self.path, "w" if fresh else "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=self.columns, extrasaction="ignore")
            if fresh:
                writer.writeheader()
            writer.writerows(_rows(summary, self.columns))


def write_runs_csv(path: Path, summaries: Sequence[dict]) -> None:
    """One row per run and flow: the flow's scalar fields and the run's totals."""
    columns = _columns(summaries)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for summary in summaries:
            writer.writerows(_rows(summary, columns))


def _json_number(value: float) -> float | None:
    # JSON has no NaN: an undefined interval (one seed) is written as null.
    return None if math.isnan(value) else value


def _metric_stats(values: Sequence[float], confidence: float) -> dict:
    mean, half = mean_ci(values, confidence)
    return {
        "mean": mean,
        "ci_half_width": _json_number(half),
        "min": min(values),
        "max": max(values),
    }


def aggregate(summaries: Sequence[dict], confidence: float = 0.95) -> dict:
    """Per-flow mean and confidence half width of each aggregated metric.

    Flows are matched across runs by name and listed in the order of the
    first run. A metric missing from a run is left out of that flow's values.
    """
    if not summaries:
        raise ValueError("aggregate needs at least one run")
    first = summaries[0]
    names = [flow["name"] for flow in first.get("flows", [])]
    flows = []
    for name in names:
        per_run = [f for s in summaries for f in s.get("flows", []) if f.get("name") == name]
        entry: dict[str, Any] = {
            "name": name,
            "direction": per_run[0].get("direction"),
            "runs": len(per_run),
        }
        for metric in AGGREGATED_METRICS:
            values = [float(f[metric]) for f in per_run if f.get(metric) is not None]
            if values:
                entry[metric] = _metric_stats(values, confidence)
        flows.append(entry)
    return {
        "xltcp_version": first.get("xltcp_version"),
        "scenario": first.get("scenario"),
        "seeds": [s.get("seed") for s in summaries],
        "confidence": confidence,
        "duration_s": first.get("duration_s"),
        "events": sum(int(s.get("events", 0)) for s in summaries),
        "wall_seconds": sum(float(s.get("wall_seconds", 0.0)) for s in summaries),
        "flows": flows,
    }
