"""The Python API for notebooks: scenarios, runs, sweeps and stored results.

::

    import xltcp
    s = xltcp.Scenario.load("scenarios/lossy-last-hop.toml").set({"sim.duration": "10s"})
    r = xltcp.run(s, seed=1)
    r.flows                       # one row per flow
    r.timeseries("bulk")          # cwnd, srtt, goodput ... every sample_interval
    table = xltcp.sweep(s, vary={"wireless.loss.down.p": "0,0.01,0.05"}, seeds="1..5")
    table.groupby("wireless.loss.down.p")["goodput_bps"].mean()
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomli_w

from xltcp import budget, campaign, runner, schema
from xltcp.values import Value, toml_value, values_from_toml

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunResult", "Scenario", "load", "run", "sweep"]


def _flatten_settings(values: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items = []
    for key, value in values.items():
        if isinstance(value, Mapping):
            items += _flatten_settings(value, f"{prefix}{key}.")
        else:
            items.append((f"{prefix}{key}", value))
    return items


class Scenario:
    """A scenario file and the overrides applied to it, immutable.

    Build one with :meth:`load` or :meth:`from_dict`; :meth:`set` returns a
    new scenario with more overrides. Nothing is checked until :meth:`echo`,
    :func:`run` or :func:`sweep` hands it to the core.
    """

    def __init__(self, path: str | Path, overrides: Sequence[str] = ()) -> None:
        self.path = Path(path)
        self.overrides: tuple[str, ...] = tuple(overrides)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """The scenario file at ``path`` (a shipped scenario's name also works: ``"demo"``)."""
        path = Path(path)
        if not path.exists() and not path.suffix:
            from xltcp import shipped_scenario

            if shipped_scenario(str(path)).is_file():
                path = shipped_scenario(str(path))
        return cls(path)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """A scenario from the tables of a scenario file as a dict
        (``{"sim": {"duration": "10s"}, "flow": [{"name": "bulk"}]}``).

        The dict is written as TOML to a file in the temporary folder; files
        it names (an availability trace) need absolute paths.
        """
        data = dict(data)
        data.setdefault("name", "scenario")
        text = tomli_w.dumps(data)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        folder = Path(tempfile.gettempdir()) / "xltcp-scenarios"
        folder.mkdir(exist_ok=True)
        path = folder / f"{digest}.toml"
        if not path.is_file():
            tmp = path.with_suffix(f".{digest}.tmp")
            tmp.write_text(text)
            tmp.replace(path)
        return cls(path)

    def set(self, values: Mapping[str, Any] | None = None, /, **keys: Any) -> Scenario:
        """A copy with overrides: ``.set({"wireless.rate": "5Mbps"})`` or
        ``.set(sim__duration="10s")`` (a double underscore stands for a dot).
        Nested dicts set every key inside them; values are Python values
        (``"5Mbps"``, ``0.01``, ``True``) written out as TOML."""
        items = _flatten_settings(values or {})
        items += _flatten_settings({k.replace("__", "."): v for k, v in keys.items()})
        return Scenario(self.path, [*self.overrides, *(f"{k}={toml_value(v)}" for k, v in items)])

    def echo(self) -> dict:
        """The scenario after overrides, as the core validated it, with every
        default filled in. Raises ``xltcp._core.ScenarioError`` when invalid."""
        return runner.validate(self.path, self.overrides)

    def __repr__(self) -> str:
        sets = "".join(f", {o!r}" for o in self.overrides)
        return f"Scenario({str(self.path)!r}{sets})"


def _scenario(scenario: Scenario | str | Path) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)


class RunResult:
    """The results of one run: its summary and, from its folder, the traces."""

    def __init__(self, summary: dict, folder: Path | None, keep: Any = None) -> None:
        self.summary = summary
        self.folder = folder
        self._keep = keep  # a TemporaryDirectory that lives as long as the result

    @property
    def seed(self) -> int:
        """The run's seed."""
        return int(self.summary["seed"])

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow: goodput, efficiency, retransmissions, RTOs, ..."""
        import pandas as pd

        return pd.json_normalize(self.summary.get("flows", []))

    def _folder(self) -> Path:
        if self.folder is None:
            raise ValueError("this result has no folder (it was loaded from a summary alone)")
        return self.folder

    def timeseries(self, flow: str | int = 0) -> pd.DataFrame:
        """A flow's time series (by name or index): one row every sample interval."""
        import pandas as pd

        names = [f["name"] for f in self.summary.get("flows", [])]
        name = names[flow] if isinstance(flow, int) else flow
        if name not in names:
            raise KeyError(f"no flow {name!r}; flows: {', '.join(names)}")
        path = self._folder() / "timeseries" / f"{name}.csv"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no time series (output.timeseries = false?)")
        return pd.read_csv(path)

    @property
    def signals(self) -> pd.DataFrame:
        """The cross-layer signals the run logged (empty when it logged none)."""
        import pandas as pd

        path = self._folder() / "signals.jsonl"
        if not path.is_file() or path.stat().st_size == 0:
            return pd.DataFrame(columns=["t_ns", "node", "type"])
        return pd.read_json(path, lines=True)

    def __repr__(self) -> str:
        flows = ", ".join(
            f"{f['name']} {f['goodput_bps'] / 1e6:.3g} Mbit/s" for f in self.summary["flows"]
        )
        return f"<RunResult seed {self.summary.get('seed')}: {flows}>"


def run(
    scenario: Scenario | str | Path,
    seed: int | None = None,
    out: str | Path | None = None,
    set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 (mirrors --set)
    max_output: int | str = budget.DEFAULT_LIMIT,
) -> RunResult:
    """Run a scenario once.

    ``scenario`` is a :class:`Scenario` or a path; ``seed`` None uses the
    scenario's ``sim.seed``; ``out`` is the results folder (None: a temporary
    folder that lives as long as the result); ``set`` adds overrides
    (``{"sim.duration": "2s"}`` or ``["sim.duration=2s"]``). Refuses with
    ``budget.BudgetError`` a run whose traces would exceed ``max_output``
    bytes (or a size such as ``"20GiB"``). Raises ``xltcp._core.ScenarioError``
    for an invalid scenario.
    """
    s = _scenario(scenario)
    overrides = [*s.overrides, *runner.overrides_list(set)]
    keep = None
    if out is None:
        keep = tempfile.TemporaryDirectory(prefix="xltcp-run-")
        folder = Path(keep.name)
    else:
        folder = Path(out)
    limit = budget.parse_size(max_output) if isinstance(max_output, str) else max_output
    echo = runner.validate(s.path, overrides)
    budget.check([budget.estimate_run(echo)], folder, limit)
    summary = runner.run_one(s.path, seed, folder, overrides)
    return RunResult(summary, folder, keep)


def _vary(vary: Mapping[str, Any]) -> list[tuple[str, list[Value]]]:
    return [(key, values_from_toml(key, raw)) for key, raw in vary.items()]


def sweep(
    scenario: Scenario | str | Path,
    vary: Mapping[str, str | Sequence[Any]] | None = None,
    seeds: str | Sequence[int] | None = None,
    out: str | Path | None = None,
    zip: bool = False,  # noqa: A002 (mirrors --zip)
    jobs: int | None = None,
    executor: str = campaign.DEFAULT_EXECUTOR,
    scheduler: Any = None,
    max_output: int | str = budget.DEFAULT_LIMIT,
    append: bool = False,
) -> pd.DataFrame:
    """Run a campaign and return its table (one row per run and flow).

    ``vary`` maps each key to its values: a string in the ``--vary`` syntax
    (``"0,0.01,0.05"``, ``"1Mbps..10Mbps/10"``, ``"1ms..1s/log4"``) or a list
    (``[0, 0.01]``). ``seeds`` is ``"1..10"``, a list, or None for the
    scenario's seed. ``out`` is the campaign folder (default
    ``results/<scenario name>-sweep``); runs already there are not run again.
    A folder with other files, or with a campaign of another plan, raises
    ``campaign.CampaignError`` saying what differs; ``append=True`` adds
    this plan's points and seeds to that campaign instead (``--append``).
    ``executor`` is ``"threads"``, ``"processes"`` or ``"dask"`` (with
    ``scheduler`` an address or a ``distributed.Client``; with none, a local
    cluster of ``jobs`` worker processes, every core by default).
    """
    s = _scenario(scenario)
    seed_list = runner.parse_seeds(seeds) if isinstance(seeds, str) else seeds
    the_plan = campaign.plan(s.path, _vary(vary or {}), seed_list, zip, list(s.overrides))
    if out is None:
        from xltcp.cli import default_out_dir

        name = default_out_dir(the_plan.echoes[0], s.path).name
        out = Path("results") / f"{name}-sweep"
    limit = budget.parse_size(max_output) if isinstance(max_output, str) else max_output
    the_plan = campaign.prepare_out(the_plan, Path(out), append)
    campaign.run_campaign(the_plan, Path(out), executor, jobs, scheduler, None, limit)
    return campaign.read_table(Path(out))


def load(
    results: str | Path,
    where: Mapping[str, Any] | None = None,
    constants: bool = False,
) -> pd.DataFrame | RunResult:
    """Stored results: a campaign folder's table or a ``--seeds`` folder's
    ``runs.csv`` (a DataFrame, one row per run and flow, the columns of
    :mod:`xltcp.schema`), or a run folder (:class:`RunResult`).

    ``where`` keeps the rows that meet every condition: ``{column: value}``,
    a list of values, or a function of the column giving a mask
    (``where={"tcp.min_rto_s": lambda s: s < 1, "flow": "bulk"}``); an
    unknown column raises KeyError. A campaign table's constant columns are
    in ``frame.attrs["constants"]``; ``constants=True`` adds them back as
    columns. :func:`xltcp.to_xarray` turns a table into an xarray Dataset.
    """
    import pandas as pd

    folder = Path(results)
    if any((folder / name).is_file() for name in (campaign.RESULTS_PARQUET, campaign.RESULTS_CSV)):
        return schema.select(campaign.read_table(folder, constants), where)
    if (folder / "summary.json").is_file():
        if where:
            raise ValueError(f"{folder}: where= selects rows of a table; this is one run's folder")
        return RunResult(json.loads((folder / "summary.json").read_text()), folder)
    if (folder / "runs.csv").is_file():
        frame = pd.read_csv(folder / "runs.csv")
        frame.attrs.update({"constants": {}, "swept": [], "numeric": {}})
        return schema.select(frame, where)
    raise FileNotFoundError(
        f"{folder}: not a results folder (no {campaign.RESULTS_PARQUET}, summary.json or runs.csv)"
    )


def to_xarray(frame: pd.DataFrame, dims: Sequence[str] | None = None):
    """A results table (:func:`load`) as an ``xarray.Dataset``: a data variable
    per numeric metric over ``dims`` (default: the swept keys, by their
    numeric columns where they have one, then ``seed`` and ``flow``)."""
    return schema.to_xarray(frame, dims)
