"""xltcp: TCP over disruptive wireless links.

The simulator core is the compiled extension ``xltcp._core``; this package
adds the ``xltcp`` command (:mod:`xltcp.cli`), seed sweeps with confidence
intervals (:mod:`xltcp.runner`, :mod:`xltcp.stats`) and a small API::

    import xltcp
    summary = xltcp.run("scenarios/demo.toml", seed=3, set={"sim.duration": "5s"})
    summary["flows"][0]["goodput_bps"]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from xltcp import runner

__all__ = ["run", "scenarios_dir", "shipped_scenario"]


def run(
    path: str | Path,
    seed: int | None = None,
    out: str | Path | None = None,
    set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 (mirrors --set)
) -> dict:
    """Run a scenario once and return its summary as a dict.

    ``seed`` None uses the scenario's ``[sim] seed``; ``out`` is a results
    folder to write (summary.json, time series, pcaps), None writes nothing;
    ``set`` holds overrides, as ``{"sim.duration": "2s"}`` or
    ``["sim.duration=2s"]``. Raises ``xltcp._core.ScenarioError`` for an
    invalid scenario.
    """
    return runner.run_one(path, seed, out, runner.overrides_list(set))


def scenarios_dir() -> Path:
    """The folder of the scenarios shipped with xltcp.

    Installed wheels carry them in ``xltcp/scenarios``; in a source checkout
    that path links to the repository's top-level ``scenarios/`` folder.
    """
    here = Path(__file__).resolve().parent
    packaged = here / "scenarios"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "scenarios"


def shipped_scenario(name: str) -> Path:
    """The path of the shipped scenario ``name`` (with or without ``.toml``)."""
    file_name = name if name.endswith(".toml") else f"{name}.toml"
    return scenarios_dir() / file_name
