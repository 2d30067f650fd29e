"""Campaigns: a scenario swept over parameter values and seeds, run on every
core or on a Dask cluster, into a results store that resumes.

A campaign folder holds:

- ``campaign.json``: the plan (scenario, fixed overrides, swept keys and
  values, seeds, every run with its point, seed and key);
- ``runs/<key>/``: one folder per run (``summary.json``, time series, ...,
  and ``run.json``: its point, seed and overrides). The key is a hash of the
  scenario after overrides (the core's validated echo), the seed and the
  xltcp version. A run is written into ``runs/.<key>.tmp-<random>/`` and
  renamed when complete, so a folder named by its key is always whole; a
  campaign run again runs only the keys it lacks;
- ``results.parquet`` (``results.csv`` without pyarrow): one row per run and
  flow, with the point, every swept key as a column, the seed, the run key,
  the flow's scalar metrics and the run's (dotted names such as
  ``accounting.dropped``). ``wall_seconds`` is left out: it is the one value
  that differs between two runs of the same seed, and the table is the same
  bytes whichever executor ran the campaign.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from xltcp import budget, runner
from xltcp.values import Value, ValueSpecError, parse_vary, values_from_toml

#: Executors: a pool of threads or processes on this machine, or a Dask cluster.
EXECUTORS = ("threads", "processes", "dask")

#: The default executor (measured faster than processes on this core: see the README).
DEFAULT_EXECUTOR = "threads"

RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"
PLAN_FILE = "campaign.json"

#: Summary fields not in the table: the scenario echo, per-flow and per-run
#: lists handled apart, and the two values that are not results.
_NOT_METRICS = ("scenario", "flows", "xltcp_version", "seed", "wall_seconds")


class CampaignError(ValueError):
    """A campaign that cannot be planned: its message names what is wrong."""


@dataclass(frozen=True)
class RunSpec:
    """One run of a campaign: a point of the sweep and a seed."""

    key: str
    point: int
    seed: int
    scenario: str
    overrides: tuple[str, ...]


@dataclass
class Plan:
    """Every run of a campaign, validated, before anything runs."""

    scenario: Path
    base: list[str]
    keys: list[str]
    points: list[dict[str, Value]]
    seeds: list[int]
    zip: bool
    version: str
    runs: list[RunSpec] = field(default_factory=list)
    echoes: list[dict] = field(default_factory=list)

    def point_overrides(self, index: int) -> list[str]:
        """The overrides of point ``index``: the fixed ones, then the swept values."""
        return [*self.base, *(f"{k}={v.toml}" for k, v in self.points[index].items())]

    def describe_point(self, index: int) -> str:
        """``wireless.loss.down.p=0.01, wireless.rate="10Mbps"``."""
        return ", ".join(f"{k}={v.toml}" for k, v in self.points[index].items()) or "(base)"

    def to_json(self) -> dict:
        """What ``campaign.json`` holds."""
        return {
            "scenario": str(self.scenario),
            "set": self.base,
            "vary": {k: [p[k].value for p in self.points] for k in self.keys},
            "zip": self.zip,
            "seeds": self.seeds,
            "xltcp_version": self.version,
            "points": [{k: v.value for k, v in p.items()} for p in self.points],
            "runs": [{"key": r.key, "point": r.point, "seed": r.seed} for r in self.runs],
        }

    def estimates(self) -> list[budget.Estimate]:
        """The output estimate of each run."""
        return [budget.estimate_run(self.echoes[r.point]) for r in self.runs]


def cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def run_key(echo: dict, seed: int, version: str) -> str:
    """The store key of a run: SHA-256 of (scenario echo, seed, version), 16 hex digits."""
    text = json.dumps(
        {"scenario": echo, "seed": seed, "xltcp_version": version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _core_version() -> str:
    from xltcp import _core

    return str(_core.version())


def points_of(vary: Sequence[tuple[str, list[Value]]], zip_: bool) -> list[dict[str, Value]]:
    """The cartesian product of the values (or, with ``zip_``, their pairing)."""
    keys = [k for k, _ in vary]
    if len(set(keys)) != len(keys):
        twice = next(k for k in keys if keys.count(k) > 1)
        raise CampaignError(f"{twice}: varied twice; give each key one --vary")
    lists = [values for _, values in vary]
    if zip_:
        lengths = {len(v) for v in lists}
        if len(lengths) > 1:
            sizes = ", ".join(f"{k} has {len(v)}" for k, v in vary)
            raise CampaignError(f"--zip needs as many values for every key: {sizes}")
        combos = list(zip(*lists, strict=True)) if lists else [()]
    else:
        combos = list(itertools.product(*lists))
    return [dict(zip(keys, combo, strict=True)) for combo in combos]


def plan(
    scenario: str | Path,
    vary: Sequence[tuple[str, list[Value]]] = (),
    seeds: Sequence[int] | None = None,
    zip_: bool = False,
    base: Sequence[str] = (),
    max_runs: int = 1_000_000,
) -> Plan:
    """Validate every point of the sweep and list its runs.

    ``seeds`` None runs the scenario's own ``sim.seed``. Raises
    CampaignError, or ``_core.ScenarioError`` naming the point, for a sweep
    that cannot run.
    """
    from xltcp import _core

    scenario = Path(scenario).absolute()
    points = points_of(vary, zip_)
    the_plan = Plan(scenario, list(base), [k for k, _ in vary], points, [], zip_, _core_version())
    for index in range(len(points)):
        try:
            echo = runner.validate(scenario, the_plan.point_overrides(index))
        except _core.ScenarioError as e:
            where = "" if not vary else f"at {the_plan.describe_point(index)}: "
            raise _core.ScenarioError(f"{where}{e}") from None
        the_plan.echoes.append(echo)
    if seeds is None:
        seeds = [int(the_plan.echoes[0].get("sim", {}).get("seed", 1))]
    the_plan.seeds = list(seeds)
    if len(points) * len(seeds) > max_runs:
        raise CampaignError(
            f"{len(points)} points x {len(seeds)} seeds = {len(points) * len(seeds)} runs; "
            f"at most {max_runs} in one campaign"
        )
    for index, echo in enumerate(the_plan.echoes):
        for seed in the_plan.seeds:
            key = run_key(echo, seed, the_plan.version)
            the_plan.runs.append(
                RunSpec(key, index, seed, str(scenario), tuple(the_plan.point_overrides(index)))
            )
    return the_plan


def load_campaign_file(path: Path) -> dict:
    """The ``[sweep]`` table of a campaign file, checked: scenario (relative to
    the file), vary ({key: "values" or [values]}), seeds, zip, set, out."""
    try:
        doc = tomllib.loads(Path(path).read_text())
    except tomllib.TOMLDecodeError as e:
        raise CampaignError(f"{path}: {e}") from None
    sweep = doc.get("sweep")
    if not isinstance(sweep, dict):
        raise CampaignError(f"{path}: no [sweep] table")
    allowed = {"scenario", "vary", "seeds", "zip", "set", "out"}
    unknown = sorted(set(sweep) - allowed)
    if unknown:
        raise CampaignError(
            f"{path}: sweep.{unknown[0]}: unknown key (allowed: {', '.join(sorted(allowed))})"
        )
    if not isinstance(sweep.get("scenario"), str):
        raise CampaignError(f"{path}: sweep.scenario: expected the scenario file, a string")
    scenario = (Path(path).parent / sweep["scenario"]).resolve()
    if not scenario.is_file():
        raise CampaignError(f"{path}: sweep.scenario: no file {sweep['scenario']!r}")
    vary_table = sweep.get("vary", {})
    if not isinstance(vary_table, dict):
        raise CampaignError(f"{path}: sweep.vary: expected a table of KEY = VALUES")
    vary = []
    for key, raw in _dotted(vary_table):
        try:
            vary.append((key, values_from_toml(key, raw)))
        except ValueSpecError as e:
            raise CampaignError(f"{path}: sweep.vary.{e}") from None
    seeds = sweep.get("seeds")
    if isinstance(seeds, int):
        seeds = [seeds]
    elif isinstance(seeds, str):
        try:
            seeds = runner.parse_seeds(seeds)
        except runner.SeedSpecError as e:
            raise CampaignError(f"{path}: sweep.seeds: {e}") from None
    elif isinstance(seeds, list):
        if not all(isinstance(s, int) and s >= 0 for s in seeds):
            raise CampaignError(f"{path}: sweep.seeds: seeds are integers >= 0")
    elif seeds is not None:
        raise CampaignError(f'{path}: sweep.seeds: expected "1..10", a list or an integer')
    base = sweep.get("set", [])
    if isinstance(base, dict):
        from xltcp.values import toml_value

        base = [f"{k}={toml_value(v)}" for k, v in _dotted(base)]
    if not isinstance(base, list) or not all(isinstance(s, str) and "=" in s for s in base):
        raise CampaignError(f'{path}: sweep.set: expected a table or a list of "KEY=VALUE"')
    if not isinstance(sweep.get("zip", False), bool):
        raise CampaignError(f"{path}: sweep.zip: expected true or false")
    out = sweep.get("out")
    return {
        "scenario": scenario,
        "vary": vary,
        "seeds": seeds,
        "zip": sweep.get("zip", False),
        "set": base,
        "out": None if out is None else Path(path).parent / str(out),
    }


def _dotted(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    # {wireless = {rate = ...}} and "wireless.rate" = ... both name wireless.rate.
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _dotted(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def parse_vary_options(texts: Sequence[str]) -> list[tuple[str, list[Value]]]:
    """``--vary`` options parsed; raises ValueSpecError naming the key."""
    return [parse_vary(text) for text in texts]


# --- Running ---------------------------------------------------------------------


def execute(spec: RunSpec, runs_dir: str) -> tuple[str, bool, float]:
    """Run ``spec`` into ``runs_dir/<key>/`` unless it is there already.

    Returns (key, ran, wall seconds). The run is written under a temporary
    name and renamed when complete; a failed or interrupted run leaves nothing.
    Module-level so that process pools and Dask workers can call it.
    """
    final = Path(runs_dir) / spec.key
    if (final / "summary.json").is_file():
        return spec.key, False, 0.0
    tmp = Path(runs_dir) / f".{spec.key}.tmp-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    try:
        runner.run_one(spec.scenario, spec.seed, tmp, spec.overrides, atomic=False)
        about = {"key": spec.key, "seed": spec.seed, "set": list(spec.overrides)}
        (tmp / "run.json").write_text(json.dumps(about, indent=2) + "\n")
        try:
            os.rename(tmp, final)
        except OSError:
            # Another worker finished the same run first: keep its folder.
            if not (final / "summary.json").is_file():
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return spec.key, True, time.perf_counter() - started


def clean_partial(runs_dir: Path) -> int:
    """Remove the temporary folders of runs that never completed; how many."""
    removed = 0
    for path in runs_dir.glob(".*.tmp-*"):
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed


def pending(the_plan: Plan, runs_dir: Path) -> list[RunSpec]:
    """The runs of the plan not yet in the store, each key once."""
    seen: set[str] = set()
    todo = []
    for spec in the_plan.runs:
        if spec.key in seen or (runs_dir / spec.key / "summary.json").is_file():
            continue
        seen.add(spec.key)
        todo.append(spec)
    return todo


Done = Callable[[RunSpec, float], None]


def run_local(
    todo: Sequence[RunSpec], runs_dir: Path, jobs: int, processes: bool, done: Done
) -> None:
    """Run on a pool of ``jobs`` threads (the core releases the GIL) or processes."""
    import concurrent.futures as cf

    pool_type = cf.ProcessPoolExecutor if processes else cf.ThreadPoolExecutor
    if jobs == 1:
        for spec in todo:
            _, _, wall = execute(spec, str(runs_dir))
            done(spec, wall)
        return
    with pool_type(max_workers=jobs) as pool:
        futures = {pool.submit(execute, spec, str(runs_dir)): spec for spec in todo}
        try:
            for future in cf.as_completed(futures):
                _, _, wall = future.result()
                done(futures[future], wall)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def run_dask(todo: Sequence[RunSpec], runs_dir: Path, scheduler: Any, done: Done) -> None:
    """Submit every run to a Dask cluster: ``scheduler`` is an address
    (``tcp://host:8786``) or a ``distributed.Client``. The campaign folder must
    be on a filesystem the workers share."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise CampaignError(
            "--executor dask needs the distributed package (pip install 'xltcp[dask]')"
        ) from None
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = {
            client.submit(execute, spec, str(runs_dir.absolute()), key=f"xltcp-{spec.key}"): spec
            for spec in todo
        }
        try:
            for future in as_completed(futures):
                _, _, wall = future.result()
                done(futures[future], wall)
        except BaseException:
            client.cancel(list(futures))
            raise
    finally:
        if own:
            client.close()


# --- The table ----------------------------------------------------------------


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{prefix}{key}.", out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            label: Any = index
            if isinstance(item, dict):
                for name in ("name", "direction", "station", "host"):
                    if name in item and isinstance(item[name], (str, int)):
                        label = item[name]
                        item = {k: v for k, v in item.items() if k != name}
                        break
            _flatten(item, f"{prefix}{label}.", out)
    elif isinstance(value, (int, float, str, bool)) or value is None:
        out[prefix.rstrip(".")] = value


def run_rows(summary: dict) -> list[dict[str, Any]]:
    """One row per flow: the flow's scalar fields (``flow`` its name), then the
    run's scalar metrics flattened to dotted names."""
    run_level: dict[str, Any] = {}
    for key, value in summary.items():
        if key not in _NOT_METRICS:
            _flatten(value, f"{key}.", run_level)
    rows = []
    for flow in summary.get("flows", []):
        row: dict[str, Any] = {}
        for key, value in flow.items():
            if isinstance(value, (int, float, str, bool)) or value is None:
                row["flow" if key == "name" else key] = value
            else:
                _flatten(value, f"{key}.", row)
        for key, value in run_level.items():
            row[key if key not in row else f"run.{key}"] = value
        rows.append(row)
    return rows


def table(the_plan: Plan, runs_dir: Path):
    """The campaign table as a pandas DataFrame (module doc), from the store."""
    import pandas as pd

    records = []
    for spec in the_plan.runs:
        summary = json.loads((runs_dir / spec.key / "summary.json").read_text())
        params = {k: v.value for k, v in the_plan.points[spec.point].items()}
        for row in run_rows(summary):
            head = {"point": spec.point, **params, "seed": spec.seed, "run": spec.key}
            clash = {k: v for k, v in row.items() if k in head}
            row = {k: v for k, v in row.items() if k not in head}
            row.update({f"summary.{k}": v for k, v in clash.items()})
            records.append({**head, **row})
    frame = pd.DataFrame.from_records(records)
    for key in the_plan.keys:
        kinds = {type(v.value) for p in the_plan.points for v in [p[key]]}
        if len(kinds - {int, float}) > 0 and len(kinds) > 1:
            frame[key] = frame[key].map(str)
    return frame


def have_pyarrow() -> bool:
    """Whether pyarrow is importable (Parquet tables), else CSV."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def write_table(frame, out_dir: Path, parquet: bool | None = None) -> Path:
    """``results.parquet`` (or ``results.csv``), written whole then renamed."""
    parquet = have_pyarrow() if parquet is None else parquet
    path = out_dir / (RESULTS_PARQUET if parquet else RESULTS_CSV)
    tmp = path.with_name(f".{path.name}.tmp")
    if parquet:
        frame.to_parquet(tmp, index=False)
    else:
        frame.to_csv(tmp, index=False)
    os.replace(tmp, path)
    stale = out_dir / (RESULTS_CSV if parquet else RESULTS_PARQUET)
    with contextlib.suppress(FileNotFoundError):
        stale.unlink()
    return path


def read_table(out_dir: Path):
    """The table of a campaign folder as a DataFrame."""
    import pandas as pd

    out_dir = Path(out_dir)
    if (out_dir / RESULTS_PARQUET).is_file():
        return pd.read_parquet(out_dir / RESULTS_PARQUET)
    if (out_dir / RESULTS_CSV).is_file():
        return pd.read_csv(out_dir / RESULTS_CSV)
    raise FileNotFoundError(f"{out_dir}: no {RESULTS_PARQUET} or {RESULTS_CSV} here")


@dataclass
class Outcome:
    """What :func:`run_campaign` did."""

    table_path: Path
    ran: int
    skipped: int
    wall_seconds: float
    run_seconds: float
    jobs: int
    executor: str


def run_campaign(
    the_plan: Plan,
    out_dir: Path,
    executor: str = DEFAULT_EXECUTOR,
    jobs: int | None = None,
    scheduler: Any = None,
    done: Done | None = None,
    max_output: int = budget.DEFAULT_LIMIT,
) -> Outcome:
    """Run what the store lacks, then write the table. ``jobs`` None: every core."""
    if executor not in EXECUTORS:
        raise CampaignError(f"executor {executor!r}: allowed {', '.join(EXECUTORS)}")
    if executor == "dask" and scheduler is None:
        raise CampaignError("--executor dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    out_dir = Path(out_dir)
    runs_dir = out_dir / "runs"
    todo = pending(the_plan, runs_dir)
    keys = {spec.key for spec in todo}
    budget.check(
        [budget.estimate_run(the_plan.echoes[spec.point]) for spec in todo], out_dir, max_output
    )
    runs_dir.mkdir(parents=True, exist_ok=True)
    clean_partial(runs_dir)
    (out_dir / PLAN_FILE).write_text(json.dumps(the_plan.to_json(), indent=2) + "\n")
    jobs = jobs or cores()
    started = time.perf_counter()
    run_seconds = [0.0]

    def finished(spec: RunSpec, wall: float) -> None:
        run_seconds[0] += wall
        if done is not None:
            done(spec, wall)

    if todo:
        if executor == "dask":
            run_dask(todo, runs_dir, scheduler, finished)
        else:
            run_local(todo, runs_dir, min(jobs, len(todo)), executor == "processes", finished)
    path = write_table(table(the_plan, runs_dir), out_dir)
    skipped = len({spec.key for spec in the_plan.runs} - keys)
    return Outcome(
        path,
        len(todo),
        skipped,
        time.perf_counter() - started,
        run_seconds[0],
        jobs,
        executor,
    )


def run_specs(
    specs: Sequence[RunSpec],
    out_dir: Path,
    executor: str = DEFAULT_EXECUTOR,
    jobs: int | None = None,
    scheduler: Any = None,
    done: Done | None = None,
    max_output: int = budget.DEFAULT_LIMIT,
) -> dict[str, dict]:
    """Run any runs (of one scenario or several) into the store ``out_dir/runs``,
    skipping those it has, after the output-budget check; returns each key's summary."""
    from xltcp import _core

    out_dir = Path(out_dir)
    runs_dir = out_dir / "runs"
    seen: set[str] = set()
    todo = []
    for spec in specs:
        if spec.key not in seen and not (runs_dir / spec.key / "summary.json").is_file():
            todo.append(spec)
        seen.add(spec.key)
    echoes = [json.loads(_core.validate(s.scenario, list(s.overrides))) for s in todo]
    budget.check([budget.estimate_run(e) for e in echoes], out_dir, max_output)
    runs_dir.mkdir(parents=True, exist_ok=True)
    clean_partial(runs_dir)
    if todo and executor == "dask":
        run_dask(todo, runs_dir, scheduler, done or (lambda spec, wall: None))
    elif todo:
        jobs = min(jobs or cores(), len(todo))
        run_local(todo, runs_dir, jobs, executor == "processes", done or (lambda s, w: None))
    return {key: json.loads((runs_dir / key / "summary.json").read_text()) for key in seen}


def pilot_seconds(the_plan: Plan, simulated: float = 2.0) -> float:
    """Estimated wall seconds of the whole campaign on one core: each point
    run once for up to ``simulated`` seconds, scaled to its duration and seeds."""
    total = 0.0
    for index, echo in enumerate(the_plan.echoes):
        duration = budget.seconds(echo.get("sim", {}).get("duration")) or 0.0
        short = min(duration, simulated)
        if short <= 0:
            continue
        overrides = [*the_plan.point_overrides(index), f'sim.duration="{short:g}s"']
        started = time.perf_counter()
        runner.run_one(the_plan.scenario, the_plan.seeds[0], None, overrides)
        total += (time.perf_counter() - started) * duration / short * len(the_plan.seeds)
    return total
