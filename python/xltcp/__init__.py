"""xltcp: TCP over disruptive wireless links.

The simulator core is the compiled extension ``xltcp._core``; this package
adds the ``xltcp`` command (:mod:`xltcp.cli`), seed sweeps with confidence
intervals (:mod:`xltcp.runner`, :mod:`xltcp.stats`), campaigns
(:mod:`xltcp.campaign`) and an API for notebooks (:mod:`xltcp.api`)::

    import xltcp
    s = xltcp.Scenario.load("scenarios/demo.toml").set({"sim.duration": "5s"})
    r = xltcp.run(s, seed=3)
    r.summary["flows"][0]["goodput_bps"], r.flows, r.timeseries(0)
    table = xltcp.sweep(s, vary={"wireless.loss.down.p": "0,0.01"}, seeds="1..3")
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xltcp.api import RunResult, Scenario, load, run, sweep, to_xarray

#: The API's names, imported on first use (PEP 562): the ``xltcp`` command
#: imports this package, and most of its commands never need the API's
#: campaign machinery.
_API = ("RunResult", "Scenario", "load", "run", "sweep", "to_xarray")


def __getattr__(name: str):
    if name in _API:
        from xltcp import api

        return getattr(api, name)
    raise AttributeError(f"module 'xltcp' has no attribute {name!r}")


__all__ = [
    "RunResult",
    "Scenario",
    "load",
    "run",
    "scenarios_dir",
    "shipped_names",
    "shipped_scenario",
    "sweep",
    "to_xarray",
]


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


def shipped_names() -> list[str]:
    """Names of the shipped scenarios: ``demo``, ``byun2016/newreno``, ..."""
    folder = scenarios_dir()
    names = [p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.toml")]
    # The top-level scenarios first, then each paper's presets.
    return sorted(names, key=lambda n: ("/" in n, n))


def shipped_scenario(name: str) -> Path:
    """The path of the shipped scenario ``name`` (with or without ``.toml``)."""
    file_name = name if name.endswith(".toml") else f"{name}.toml"
    return scenarios_dir() / file_name
