"""Campaigns: a scenario swept over parameter values and seeds, run on every
core or on a Dask cluster, into a results store that resumes.

A campaign folder holds:

- ``campaign.json``: xltcp's marker (``"schema"``: :data:`SCHEMA`), the plan
  (scenario, fixed overrides, swept keys and values, seeds, every run with
  its point, seed and key, the xltcp version) and ``status`` (``running``,
  then ``complete``, ``interrupted`` or ``failed``);
- ``runs/<key>/``: one folder per run (``summary.json``, time series, ...,
  and ``run.json``: its point, seed and overrides). The key is a hash of the
  scenario after overrides (the core's validated echo), the seed and the
  xltcp version. A run is written into
  ``runs/.<key>.tmp-<host>-<pid>-<random>/`` and renamed when complete, so a
  folder named by its key is always whole; a campaign run again runs only
  the keys it lacks, after removing the temporary folders of dead
  processes;
- ``results.parquet`` (``results.csv`` without pyarrow): one row per run and
  flow, with the point, every swept key as a column (and, for a key written
  with a unit, its value in SI units beside it: ``tcp.min_rto_s``), the seed,
  the run key, the flow's scalar metrics and the run's (dotted names such as
  ``accounting.dropped``): the schema of :mod:`xltcp.schema`, the same as a
  ``--seeds`` folder's ``runs.csv``. Columns that hold one value in every row
  are kept out of it, in ``constants.json``. The table is the same bytes
  whichever executor ran the campaign. It is written once every run is in
  the store (a stale one is removed when runs are still to come).

``xltcp sweep`` (and :func:`xltcp.sweep`) write only into a folder that is
new, empty, or holds a campaign with the same plan (:func:`prepare_out`):
a folder with other files is refused, and so is a campaign with another
plan, unless ``--append`` adds the new plan's points and seeds to it (same
scenario, fixed overrides, swept keys and xltcp version).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xltcp import budget, results, runner, schema
from xltcp.values import Value, parse_vary

#: Executors: a pool of threads or processes on this machine, or a Dask cluster.
EXECUTORS = ("threads", "processes", "dask")

#: The default executor (measured faster than processes on this core: see docs/campaigns.md).
DEFAULT_EXECUTOR = "threads"

#: xltcp's marker in ``campaign.json``: a campaign folder is xltcp's only if it says so.
SCHEMA = "xltcp.campaign/1"

RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"
PLAN_FILE = "campaign.json"


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
        """What ``campaign.json`` holds (but its ``status``)."""
        return {
            "schema": SCHEMA,
            "scenario": str(self.scenario),
            "set": self.base,
            "vary": {k: [p[k].value for p in self.points] for k in self.keys},
            "zip": self.zip,
            "seeds": self.seeds,
            "xltcp_version": self.version,
            "points": [{k: v.value for k, v in p.items()} for p in self.points],
            "points_toml": [{k: v.toml for k, v in p.items()} for p in self.points],
            "runs": [{"key": r.key, "point": r.point, "seed": r.seed} for r in self.runs],
        }

    @classmethod
    def from_json(cls, data: dict) -> Plan:
        """The plan ``campaign.json`` records, its points validated again.

        Raises CampaignError when ``data`` is not a plan, or when the
        scenario no longer gives the runs' keys (it changed since).
        """
        try:
            keys = list(data["vary"])
            points = [
                {k: Value(p[k], t[k]) for k in keys}
                for p, t in zip(data["points"], data["points_toml"], strict=True)
            ]
            the_plan = cls(
                Path(data["scenario"]), list(data["set"]), keys, points,
                list(data["seeds"]), bool(data["zip"]), str(data["xltcp_version"]),
            )  # fmt: skip
            runs = [(str(r["key"]), int(r["point"]), int(r["seed"])) for r in data["runs"]]
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise CampaignError(f"{PLAN_FILE}: not a campaign plan ({e!r})") from None
        for index in range(len(points)):
            echo = runner.validate(the_plan.scenario, the_plan.point_overrides(index))
            the_plan.echoes.append(echo)
        for key, point, seed in runs:
            the_plan.add_stored_run(key, point, seed)
        return the_plan

    def add_stored_run(self, key: str, point: int, seed: int) -> None:
        """Add a run ``campaign.json`` lists, checking that its key still holds."""
        if not 0 <= point < len(self.points):
            raise CampaignError(f"{PLAN_FILE}: run {key} names point {point}, not in the plan")
        if run_key(self.echoes[point], seed, self.version) != key:
            raise CampaignError(
                f"{self.scenario}: the scenario (or a file it extends) changed since the "
                "campaign ran (its runs' keys differ): give another --out"
            )
        overrides = tuple(self.point_overrides(point))
        self.runs.append(RunSpec(key, point, seed, str(self.scenario), overrides))

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


#: Most points one campaign validates (each is checked by the core and its
#: scenario echo kept: about a millisecond and some 30 kB each).
MAX_POINTS = 10_000

#: Most runs (points x seeds) in one campaign.
MAX_RUNS = 100_000


def point_count(vary: Sequence[tuple[str, list[Value]]], zip_: bool) -> int:
    """How many points the values make, from their counts alone (nothing is
    built); CampaignError for a key varied twice or ``--zip`` lists of
    different lengths."""
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
        return lengths.pop() if lengths else 1
    return math.prod(len(v) for v in lists)


def points_of(vary: Sequence[tuple[str, list[Value]]], zip_: bool) -> list[dict[str, Value]]:
    """The cartesian product of the values (or, with ``zip_``, their pairing)."""
    point_count(vary, zip_)
    keys = [k for k, _ in vary]
    lists = [values for _, values in vary]
    if zip_:
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
    max_runs: int = MAX_RUNS,
    max_points: int = MAX_POINTS,
) -> Plan:
    """Validate every point of the sweep and list its runs.

    ``seeds`` None runs the scenario's own ``sim.seed``. Raises
    CampaignError, or ``_core.ScenarioError`` naming the point, for a sweep
    that cannot run. The sizes are checked first, from the counts of values
    and seeds: at most ``max_points`` points and ``max_runs`` runs.
    """
    from xltcp import _core

    scenario = Path(scenario).absolute()
    count = point_count(vary, zip_)
    shape = " x ".join(str(len(v)) for _, v in vary) or "1"
    if count > max_points:
        what = "paired" if zip_ else "crossed"
        raise CampaignError(
            f"--vary: {shape} values {what} make {count} points; at most {max_points} "
            "in one campaign (each is validated before anything runs): vary fewer values"
        )
    if seeds is not None and len(seeds) == 0:
        raise CampaignError("no seeds; give at least one (e.g. --seeds 1..10)")
    runs = count * (1 if seeds is None else len(seeds))
    if runs > max_runs:
        raise CampaignError(
            f"{count} points x {len(seeds or [1])} seeds = {runs} runs; "
            f"at most {max_runs} in one campaign"
        )
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
    for index, echo in enumerate(the_plan.echoes):
        for seed in the_plan.seeds:
            key = run_key(echo, seed, the_plan.version)
            the_plan.runs.append(
                RunSpec(key, index, seed, str(scenario), tuple(the_plan.point_overrides(index)))
            )
    return the_plan


def parse_vary_options(texts: Sequence[str]) -> list[tuple[str, list[Value]]]:
    """``--vary`` options parsed; raises ValueSpecError naming the key."""
    return [parse_vary(text) for text in texts]


# --- The campaign folder ---------------------------------------------------------

#: Fields of ``campaign.json`` that are not the plan.
_NOT_PLAN = ("schema", "status")


def stored_plan(out_dir: Path) -> dict | None:
    """``out_dir/campaign.json`` when xltcp wrote it (its schema marker), else None."""
    try:
        data = json.loads((Path(out_dir) / PLAN_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == SCHEMA else None


def _same_plan(stored: dict, the_plan: Plan) -> bool:
    new = the_plan.to_json()
    fields = {k for k in {*stored, *new} if k not in _NOT_PLAN and k != "scenario"}
    return _resolved(stored.get("scenario")) == _resolved(new["scenario"]) and all(
        stored.get(k) == new.get(k) for k in fields
    )


def _resolved(path: Any) -> str | None:
    return str(Path(path).resolve()) if isinstance(path, str) else None


def prepare_out(the_plan: Plan, out_dir: Path, append: bool = False) -> Plan:
    """The plan to run into ``out_dir``: ``the_plan`` when the folder is
    missing, empty, or holds a campaign with the same plan; with ``append``
    the folder's plan extended by this one (:func:`extend`).

    Raises CampaignError for a folder with other files, or one with another
    plan (saying what differs and how to go on).
    """
    out_dir = Path(out_dir)
    if not out_dir.exists() or (out_dir.is_dir() and not any(out_dir.iterdir())):
        return the_plan
    if not out_dir.is_dir():
        raise CampaignError(f"{out_dir}: exists and is not a folder; give another --out")
    stored = stored_plan(out_dir)
    if stored is None:
        held = ", ".join(sorted(p.name for p in out_dir.iterdir())[:4])
        raise CampaignError(
            f"{out_dir}: not empty (it holds {held}) and not a campaign folder xltcp wrote "
            f'(no {PLAN_FILE} with "schema": "{SCHEMA}"); give another --out'
        )
    if _same_plan(stored, the_plan):
        return the_plan
    if not append:
        differs = "; ".join(plan_differences(stored, the_plan.to_json()))
        raise CampaignError(
            f"{out_dir}: holds a campaign with another plan ({differs}); give --append to "
            "add this plan's runs to it (its table then holds both), or another --out"
        )
    try:
        _check_appendable(stored, the_plan)
        return extend(Plan.from_json(stored), the_plan)
    except CampaignError as e:
        raise CampaignError(f"{out_dir}: {e}") from None


def plan_differences(stored: dict, new: dict) -> list[str]:
    """What differs between two plans as ``campaign.json`` records them, in words."""
    fields = (
        ("scenario", "scenario"),
        ("set", "--set"),
        ("seeds", "seeds"),
        ("zip", "--zip"),
        ("xltcp_version", "xltcp version"),
    )
    found = []
    for field_name, what in fields:
        there, here = stored.get(field_name), new.get(field_name)
        if field_name == "scenario":
            there, here = _resolved(there), _resolved(here)
        if there != here:
            found.append(f"{what} {_brief(there)} there, {_brief(here)} here")
    found += _vary_differences(stored.get("vary"), new.get("vary"))
    if found:
        return found
    if _run_keys(stored) == _run_keys(new):
        return ["the order of the points (of the --vary keys or values)"]
    return ["the scenario (or a file it extends) changed since: the runs' keys differ"]


def _run_keys(data: dict) -> set:
    runs = data.get("runs")
    return {r.get("key") for r in runs if isinstance(r, dict)} if isinstance(runs, list) else set()


def _vary_differences(there: Any, here: Any) -> list[str]:
    there = there if isinstance(there, dict) else {}
    found = []
    for key in [*there, *(k for k in here if k not in there)]:
        old, new = _distinct(there.get(key)), _distinct(here.get(key))
        if old != new:
            found.append(
                f"--vary {key}: {_brief(old) if old else 'not varied'} there, "
                f"{_brief(new) if new else 'not varied'} here"
            )
    return found


def _distinct(values: Any) -> list:
    if not isinstance(values, list):
        return []
    seen: dict[str, Any] = {}
    for value in values:
        seen.setdefault(json.dumps(value, sort_keys=True), value)
    return list(seen.values())


def _brief(value: Any, most: int = 60) -> str:
    ints = isinstance(value, list) and value and all(type(v) is int for v in value)
    if ints and len(value) > 1 and value == list(range(value[0], value[0] + len(value))):
        return f"{value[0]}..{value[-1]}"
    text = json.dumps(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def extend(old: Plan, new: Plan) -> Plan:
    """``old`` with the points and seeds of ``new`` added, each run once.

    Both must sweep the same keys of the same scenario with the same fixed
    overrides and xltcp version (else CampaignError): the old runs keep
    their points, a new point is numbered after them.
    """
    _check_appendable(old.to_json(), new)
    merged = Plan(
        old.scenario, old.base, old.keys, list(old.points),
        [*old.seeds, *(s for s in new.seeds if s not in old.seeds)],
        old.zip, old.version, list(old.runs), list(old.echoes),
    )  # fmt: skip
    index = {_point_id(p, old.keys): i for i, p in enumerate(old.points)}
    have = {(r.point, r.seed) for r in old.runs}
    for spec in new.runs:
        point = new.points[spec.point]
        found = _point_id(point, old.keys)
        if found not in index:
            index[found] = len(merged.points)
            merged.points.append({k: point[k] for k in old.keys})
            merged.echoes.append(new.echoes[spec.point])
        where = index[found]
        if (where, spec.seed) not in have:
            have.add((where, spec.seed))
            merged.runs.append(replace(spec, point=where))
    return merged


def _check_appendable(stored: dict, new: Plan) -> None:
    """Refuse to extend the plan ``stored`` (as ``campaign.json`` holds it)
    with ``new`` unless both sweep the same keys of the same scenario with
    the same fixed overrides and xltcp version."""
    vary = stored.get("vary")
    checks = (
        ("scenario", _resolved(stored.get("scenario")), _resolved(str(new.scenario))),
        ("--set", stored.get("set"), new.base),
        ("swept keys", sorted(vary) if isinstance(vary, dict) else None, sorted(new.keys)),
        ("xltcp version", stored.get("xltcp_version"), new.version),
    )
    mismatch = [what for what, there, here in checks if there != here]
    if mismatch:
        raise CampaignError(
            "--append adds points or seeds to the same sweep, but this one differs in "
            f"{', '.join(mismatch)}: give another --out"
        )


def _point_id(point: Mapping[str, Value], keys: Sequence[str]) -> tuple[str, ...]:
    return tuple(point[k].toml for k in keys)


# --- Running ---------------------------------------------------------------------


#: Stores whose campaign was interrupted: runs on other threads stop early.
_STOPPING: set[str] = set()


def _stop_check(runs_dir: str) -> runner.Progress:
    def check(done_s: float, total_s: float) -> None:
        if runs_dir in _STOPPING:
            raise KeyboardInterrupt

    return check


def execute(spec: RunSpec, runs_dir: str) -> tuple[str, bool, float]:
    """Run ``spec`` into ``runs_dir/<key>/`` unless it is there already.

    Returns (key, ran, wall seconds). The run is written under a temporary
    name (which names this host and process) and renamed when complete; a
    failed or interrupted run leaves nothing. Module-level so that process
    pools and Dask workers can call it.
    """
    final = Path(runs_dir) / spec.key
    if (final / "summary.json").is_file():
        return spec.key, False, 0.0
    tmp = results.temp_path(final)
    started = time.perf_counter()
    try:
        stop = _stop_check(runs_dir)
        runner.run_one(spec.scenario, spec.seed, tmp, spec.overrides, stop, atomic=False)
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
    """Remove the temporary folders of runs whose process died; how many.

    Those of live processes (another campaign into the same store) and of
    other hosts (Dask workers) are left alone.
    """
    return results.clean_stale(runs_dir)


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
    try:
        with pool_type(max_workers=jobs) as pool:
            futures = {pool.submit(execute, spec, str(runs_dir)): spec for spec in todo}
            try:
                for future in cf.as_completed(futures):
                    _, _, wall = future.result()
                    done(futures[future], wall)
            except BaseException:
                # Ctrl-C, SIGTERM, SIGHUP or a failed run: the threads' runs stop too.
                _STOPPING.add(str(runs_dir))
                for future in futures:
                    future.cancel()
                raise
    finally:
        _STOPPING.discard(str(runs_dir))


def run_dask(
    todo: Sequence[RunSpec],
    runs_dir: Path,
    scheduler: Any,
    done: Done,
    workers: int | None = None,
) -> None:
    """Submit every run to a Dask cluster: ``scheduler`` is an address
    (``tcp://host:8786``) or a ``distributed.Client``. The campaign folder must
    be on a filesystem the workers share. With no ``scheduler``, a local
    cluster of ``workers`` processes (default: every core), one run at a
    time each, is started for these runs and closed after them."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise CampaignError(
            "--executor dask needs the distributed package (pip install 'xltcp[dask]')"
        ) from None
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = LocalCluster(
                n_workers=workers or cores(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            scheduler = stack.enter_context(cluster)
        own = not isinstance(scheduler, Client)
        try:
            client = Client(scheduler) if own else scheduler
        except (ValueError, OSError, TimeoutError) as e:
            raise CampaignError(
                f"--scheduler {scheduler}: cannot reach a Dask scheduler: {e}"
            ) from None
        if own:
            stack.callback(client.close)  # before the local cluster, if any
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


# --- The table ----------------------------------------------------------------


def table(the_plan: Plan, runs_dir: Path):
    """The campaign table as a pandas DataFrame, every column (the schema:
    :mod:`xltcp.schema`), from the store."""
    import pandas as pd

    records = []
    for spec in the_plan.runs:
        summary = json.loads((runs_dir / spec.key / "summary.json").read_text())
        params = {k: v.value for k, v in the_plan.points[spec.point].items()}
        for row in schema.flow_rows(summary):
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
    return schema.add_numeric(frame, the_plan.keys)


def swept_columns(frame, keys: Sequence[str]) -> dict[str, str]:
    """{swept key: its numeric column} for the keys :func:`schema.add_numeric` gave one."""
    found = {}
    for key in keys:
        made = schema.numeric_name(key, list(frame[key])) if key in frame else None
        if made is not None and made[0] in frame:
            found[key] = made[0]
    return found


def have_pyarrow() -> bool:
    """Whether pyarrow is importable (Parquet tables), else CSV."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def write_table(
    frame, out_dir: Path, parquet: bool | None = None, keys: Sequence[str] = ()
) -> Path:
    """``results.parquet`` (or ``results.csv``) without the constant columns,
    which go to ``constants.json`` (:func:`schema.split_constants`; ``keys``
    are the swept keys, kept whatever they hold), each written whole then
    renamed."""
    parquet = have_pyarrow() if parquet is None else parquet
    kept = [*keys, *swept_columns(frame, keys).values()]
    frame, constants = schema.split_constants(frame, kept)
    schema.write_constants(out_dir, constants)
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


def read_table(out_dir: Path, constants: bool = False):
    """The table of a campaign folder as a DataFrame; its constant columns in
    ``attrs["constants"]`` (or, with ``constants``, back as columns), its swept
    keys in ``attrs["swept"]`` and their numeric columns in ``attrs["numeric"]``."""
    import pandas as pd

    out_dir = Path(out_dir)
    if (out_dir / RESULTS_PARQUET).is_file():
        frame = pd.read_parquet(out_dir / RESULTS_PARQUET)
    elif (out_dir / RESULTS_CSV).is_file():
        frame = pd.read_csv(out_dir / RESULTS_CSV)
    else:
        raise FileNotFoundError(f"{out_dir}: no {RESULTS_PARQUET} or {RESULTS_CSV} here")
    stored = stored_plan(out_dir) or {}
    keys = [k for k in stored.get("vary", {}) if k in frame]
    fixed = schema.read_constants(out_dir)
    if constants:
        for column, value in fixed.items():
            frame[column] = value
    frame.attrs["constants"] = fixed
    frame.attrs["swept"] = keys
    frame.attrs["numeric"] = swept_columns(frame, keys)
    return frame


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
    """Run what the store lacks, then write the table. ``jobs`` None: every core.

    ``campaign.json`` is written first (``status`` ``running``) and again at
    the end: ``complete``, or ``interrupted`` (Ctrl-C, SIGTERM, SIGHUP) or
    ``failed``. This writes into ``out_dir`` whatever it holds: see
    :func:`prepare_out` for the checks ``xltcp sweep`` makes first.
    """
    if executor not in EXECUTORS:
        raise CampaignError(f"executor {executor!r}: allowed {', '.join(EXECUTORS)}")
    out_dir = Path(out_dir)
    runs_dir = out_dir / "runs"
    todo = pending(the_plan, runs_dir)
    keys = {spec.key for spec in todo}
    budget.check(
        [budget.estimate_run(the_plan.echoes[spec.point]) for spec in todo], out_dir, max_output
    )
    write_plan(the_plan, out_dir, "running")
    runs_dir.mkdir(parents=True, exist_ok=True)
    clean_partial(runs_dir)
    if todo:
        remove_table(out_dir)
    jobs = jobs or cores()
    started = time.perf_counter()
    run_seconds = [0.0]

    def finished(spec: RunSpec, wall: float) -> None:
        run_seconds[0] += wall
        if done is not None:
            done(spec, wall)

    try:
        if todo and executor == "dask":
            run_dask(todo, runs_dir, scheduler, finished, min(jobs, len(todo)))
        elif todo:
            run_local(todo, runs_dir, min(jobs, len(todo)), executor == "processes", finished)
        path = write_table(table(the_plan, runs_dir), out_dir, keys=the_plan.keys)
    except KeyboardInterrupt:
        write_plan(the_plan, out_dir, "interrupted")
        raise
    except BaseException:
        write_plan(the_plan, out_dir, "failed")
        raise
    write_plan(the_plan, out_dir, "complete")
    skipped = len({spec.key for spec in the_plan.runs} - keys)
    wall = time.perf_counter() - started
    return Outcome(path, len(todo), skipped, wall, run_seconds[0], jobs, executor)


def write_plan(the_plan: Plan, out_dir: Path, status: str) -> None:
    """Write ``campaign.json`` whole: the plan and its ``status``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps({**the_plan.to_json(), "status": status}, indent=2) + "\n"
    results.write_whole(out_dir / PLAN_FILE, text)


def remove_table(out_dir: Path) -> None:
    """Remove the campaign's table (it is written again once every run is in)."""
    for name in (RESULTS_PARQUET, RESULTS_CSV, schema.CONSTANTS_FILE):
        with contextlib.suppress(FileNotFoundError):
            (out_dir / name).unlink()


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
        workers = min(jobs or cores(), len(todo))
        run_dask(todo, runs_dir, scheduler, done or (lambda spec, wall: None), workers)
    elif todo:
        jobs = min(jobs or cores(), len(todo))
        run_local(todo, runs_dir, jobs, executor == "processes", done or (lambda s, w: None))
    return {key: json.loads((runs_dir / key / "summary.json").read_text()) for key in seen}


def estimate_seconds(
    the_plan: Plan, todo: Sequence[RunSpec], runs_dir: Path, simulated: float = 2.0
) -> tuple[float, str]:
    """Wall seconds the runs ``todo`` should take on one core, and where the
    figure comes from.

    Learned from measured runs first: a point with runs in the store (other
    seeds of it, an earlier or interrupted campaign) takes their mean wall
    time per run. The other points run once for up to ``simulated`` seconds
    and scale that to their duration: a rough figure, as a run's cost per
    simulated second changes along it (slow start, blockages), said so in
    the source.
    """
    measured: dict[int, list[float]] = {}
    for spec in the_plan.runs:
        try:
            summary = json.loads((Path(runs_dir) / spec.key / "summary.json").read_text())
            measured.setdefault(spec.point, []).append(float(summary["wall_seconds"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    per_point: dict[int, float] = {p: sum(w) / len(w) for p, w in measured.items()}
    piloted = 0
    for point in sorted({spec.point for spec in todo} - set(per_point)):
        per_point[point] = _pilot(the_plan, point, simulated)
        piloted += 1
    total = sum(per_point[spec.point] for spec in todo)
    learned = len({spec.point for spec in todo}) - piloted
    if piloted == 0:
        source = "from the measured runs of each point in the store"
    elif learned == 0:
        source = f"rough: from a {simulated:g} s run of each point, scaled to its duration"
    else:
        source = (
            f"{learned} points from their measured runs, {piloted} from a rough "
            f"{simulated:g} s run scaled to their duration"
        )
    return total, source


def _pilot(the_plan: Plan, point: int, simulated: float) -> float:
    """Wall seconds of one run of ``point``, from a run of up to ``simulated`` s."""
    echo = the_plan.echoes[point]
    duration = budget.seconds(echo.get("sim", {}).get("duration")) or 0.0
    short = min(duration, simulated)
    if short <= 0:
        return 0.0
    overrides = [*the_plan.point_overrides(point), f'sim.duration="{short:g}s"']
    started = time.perf_counter()
    runner.run_one(the_plan.scenario, the_plan.seeds[0], None, overrides)
    return (time.perf_counter() - started) * duration / short
