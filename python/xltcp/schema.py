"""One results schema for a ``--seeds`` folder's ``runs.csv`` and a
campaign's table: the same rows, the same column names.

A row is one flow of one run: ``seed`` and ``flow`` (the flow's name), then
the flow's scalar fields (``goodput_bps``, ``rto_count``, ...), then the
run's scalar metrics flattened to dotted names (``accounting.dropped``,
``links.bs-air.drops.loss``, ``hop.blocked_s``). A campaign's rows start
with ``point``, every swept key and ``run`` (the store key). Units are in
the column names: ``_s`` seconds, ``_bps`` bit/s, ``bytes_`` and ``_bytes``
bytes; counts carry none. ``wall_seconds`` is in no table: it is the one
value that differs between two runs of the same seed (each run's
``summary.json`` keeps it).

A swept key whose values are written with a unit (``tcp.min_rto`` =
``"200ms"``) keeps its text column and gains a numeric one in SI units
beside it (``tcp.min_rto_s`` = 0.2): sort, group and plot on that one.

Constant columns: a campaign's table leaves out the metrics that are the
same in every row (``direction`` of a one-flow scenario, drop counters
that stayed 0, ...); they are kept in ``constants.json`` beside the table
and :func:`xltcp.load` puts them in ``frame.attrs["constants"]`` (or back as
columns with ``constants=True``). ``runs.csv`` keeps every column, as it is
written a run at a time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: Summary fields that are not in any table: the scenario echo, the per-flow
#: list (rows of their own), the version and seed (columns of their own) and
#: the wall time (not a result).
NOT_METRICS = ("scenario", "flows", "xltcp_version", "seed", "wall_seconds")

#: Columns that say which run and flow a row is: never moved out as constants.
IDENTITY = ("point", "seed", "run", "flow")

#: The file beside a campaign's table that holds its constant columns.
CONSTANTS_FILE = "constants.json"

#: Suffix of the numeric column of a swept key, by the kind of its unit.
_SUFFIX = {"duration": "_s", "rate": "_bps", "size": "_bytes", "packets": "_packets"}

_PACKETS = re.compile(r"\s*([0-9]+)\s*(p|pkt|pkts|packets?)\s*")


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


def flow_rows(summary: dict) -> list[dict[str, Any]]:
    """One row per flow of a run's ``summary.json``: ``flow`` (its name) and
    the flow's scalar fields, then the run's scalar metrics flattened to
    dotted names (a name a flow field has already gets ``run.`` before it)."""
    run_level: dict[str, Any] = {}
    for key, value in summary.items():
        if key not in NOT_METRICS:
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


def seeds_rows(summary: dict) -> list[dict[str, Any]]:
    """The rows of ``runs.csv`` for one run: ``seed`` first, then :func:`flow_rows`."""
    return [{"seed": summary.get("seed"), **row} for row in flow_rows(summary)]


def quantity(value: Any) -> tuple[float, str] | None:
    """``(number in SI units, kind)`` of a value written with a unit
    (``"200ms"`` -> ``(0.2, "duration")``, ``"10Mbps"``, ``"64KiB"``,
    ``"100p"`` packets), else None (a plain number, or text that is not one)."""
    from xltcp.values import _QUANTITY, _UNITS

    if not isinstance(value, str):
        return None
    match = _PACKETS.fullmatch(value)
    if match:
        return float(match.group(1)), "packets"
    match = _QUANTITY.fullmatch(value)
    if not match or match.group(2) not in _UNITS:
        return None
    kind, factor = _UNITS[match.group(2)]
    return float(match.group(1)) * factor, kind


def numeric_name(key: str, values: Iterable[Any]) -> tuple[str, list[float | None]] | None:
    """The numeric column of a swept key (its name and values) when every
    value is written with a unit of one kind, else None."""
    found = [quantity(v) for v in values]
    kinds = {q[1] for q in found if q is not None}
    if not found or any(q is None for q in found) or len(kinds) != 1:
        return None
    return key + _SUFFIX[kinds.pop()], [q[0] for q in found]  # type: ignore[index]


def add_numeric(frame, keys: Sequence[str]):
    """``frame`` with the numeric column of each swept key that has units,
    placed right after the key's own column."""
    for key in keys:
        if key not in frame:
            continue
        made = numeric_name(key, list(frame[key]))
        if made is None or made[0] in frame:
            continue
        name, numbers = made
        frame.insert(frame.columns.get_loc(key) + 1, name, numbers)
    return frame


def split_constants(frame, keep: Iterable[str] = ()) -> tuple[Any, dict[str, Any]]:
    """``(frame without its constant columns, {column: value})``.

    A column is constant when every row holds the same value (missing
    counts as a value). Identity columns and ``keep`` (the swept keys and
    their numeric columns) stay whatever they hold, and nothing is moved
    out of a table of fewer than two runs (every column is constant there).
    """
    keep = set(IDENTITY) | set(keep)
    runs = frame["run"].nunique() if "run" in frame else frame.get("seed", frame.index).nunique()
    if len(frame) < 2 or runs < 2:
        return frame, {}
    constants = {}
    for column in frame.columns:
        if column in keep:
            continue
        values = frame[column]
        if values.nunique(dropna=False) == 1:
            constants[column] = _plain(values.iloc[0])
    return frame.drop(columns=list(constants)), constants


def _plain(value: Any) -> Any:
    # numpy scalars and NaN as JSON can hold them.
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def write_constants(out_dir: Path, constants: Mapping[str, Any]) -> Path:
    """``constants.json``: the columns the table left out, with their one value."""
    from xltcp import results

    path = Path(out_dir) / CONSTANTS_FILE
    results.write_whole(path, json.dumps(dict(constants), indent=2, sort_keys=True) + "\n")
    return path


def read_constants(out_dir: Path) -> dict[str, Any]:
    """What ``constants.json`` holds ({} when there is none)."""
    try:
        data = json.loads((Path(out_dir) / CONSTANTS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


Condition = Any | Sequence[Any] | Callable[[Any], Any]


def select(frame, where: Mapping[str, Condition] | None):
    """The rows of ``frame`` that meet every condition of ``where``.

    Each condition names a column and gives a value (rows equal to it), a
    list, tuple or set of values (rows equal to one of them) or a function
    of the column returning a boolean mask (``lambda p: p <= 0.01``).
    Raises KeyError naming an unknown column and the columns there are.
    """
    if not where:
        return frame
    mask = None
    for column, condition in where.items():
        if column not in frame:
            known = ", ".join(str(c) for c in frame.columns[:12])
            more = ", ..." if len(frame.columns) > 12 else ""
            raise KeyError(f"where: no column {column!r} (columns: {known}{more})")
        values = frame[column]
        if callable(condition):
            hit = condition(values)
        elif isinstance(condition, (list, tuple, set, frozenset)):
            hit = values.isin(list(condition))
        else:
            hit = values == condition
        mask = hit if mask is None else (mask & hit)
    return frame[mask].reset_index(drop=True)


def to_xarray(frame, dims: Sequence[str] | None = None, metrics: Sequence[str] | None = None):
    """The table as an ``xarray.Dataset``: one data variable per numeric
    metric, indexed by ``dims``.

    ``dims`` defaults to the swept keys recorded in ``frame.attrs["swept"]``
    (each by its numeric column when it has one), then ``seed`` and
    ``flow``. The rows must be unique over ``dims`` (ValueError otherwise).
    Needs the xarray package (``pip install 'xltcp[xarray]'``).
    """
    try:
        import xarray  # noqa: F401
    except ImportError:
        raise ImportError(
            "to_xarray needs the xarray package: pip install 'xltcp[xarray]'"
        ) from None
    if dims is None:
        swept = list(frame.attrs.get("swept", []))
        numeric = frame.attrs.get("numeric", {})
        dims = [numeric.get(k, k) for k in swept] + [d for d in ("seed", "flow") if d in frame]
    dims = list(dims)
    missing = [d for d in dims if d not in frame]
    if missing:
        raise KeyError(f"to_xarray: no column {missing[0]!r}")
    if frame.duplicated(subset=dims).any():
        raise ValueError(
            f"to_xarray: rows are not unique over {dims}: give dims that tell them apart"
        )
    if metrics is None:
        skip = set(dims) | set(IDENTITY) | set(frame.attrs.get("swept", []))
        metrics = [c for c in frame.columns if c not in skip and frame[c].dtype.kind in "biuf"]
    return frame.set_index(dims)[list(metrics)].to_xarray()
