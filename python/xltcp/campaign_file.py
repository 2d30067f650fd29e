"""Campaign files: a ``[sweep]`` table naming the scenario, the swept keys and
their values, the seeds, ``zip``, fixed overrides and the output folder;
``xltcp sweep FILE.toml`` reads one (:func:`load_campaign_file`).

```toml
[sweep]
scenario = "lossy-last-hop.toml"   # relative to this file
seeds = "1..10"
set = { "sim.duration" = "60s" }
out = "results/lossy"

[sweep.vary]
"wireless.loss.down.p" = [0, 0.01, 0.05]
"wireless.rate" = "1Mbps..10Mbps/4"  # the --vary syntax
```
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from xltcp import files, runner
from xltcp.campaign import CampaignError
from xltcp.values import ValueSpecError, values_from_toml


def load_campaign_file(path: Path) -> dict:
    """The ``[sweep]`` table of a campaign file, checked: scenario (relative to
    the file), vary ({key: "values" or [values]}), seeds, zip, set, out."""
    try:
        doc = files.read_toml(path)
    except files.FileError as e:
        raise CampaignError(str(e)) from None
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
    seeds = _campaign_seeds(path, sweep.get("seeds"))
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


def _campaign_seeds(path: Path, seeds: Any) -> list[int] | None:
    """``sweep.seeds``: "1..10", "1,2,5", a list of seeds or one seed (each
    an integer from 0 to runner.MAX_SEED, none twice, at least one)."""
    allowed = (
        f'"1..10", "1,2,5", a non-empty list of seeds or one seed; seeds are integers '
        f"from 0 to {runner.MAX_SEED}"
    )
    where = f"{path}: sweep.seeds"
    if seeds is None:
        return None
    if isinstance(seeds, str):
        try:
            return runner.parse_seeds(seeds)
        except runner.SeedSpecError as e:
            raise CampaignError(f"{where}: {e}") from None
    listed = seeds if isinstance(seeds, list) else [seeds]
    if not listed:
        raise CampaignError(f"{where}: an empty list, no run at all (allowed: {allowed})")
    if len(listed) > runner.MAX_SEED_COUNT:
        raise CampaignError(
            f"{where}: {len(listed)} seeds; at most {runner.MAX_SEED_COUNT} (allowed: {allowed})"
        )
    for seed in listed:
        # TOML's true is not a seed (Python's bool is an int).
        if isinstance(seed, bool) or not isinstance(seed, int):
            got = "a boolean" if isinstance(seed, bool) else f"{type(seed).__name__} {seed!r}"
            raise CampaignError(f"{where}: {got} is not a seed (allowed: {allowed})")
        if not 0 <= seed <= runner.MAX_SEED:
            raise CampaignError(f"{where}: {seed} is out of range (allowed: {allowed})")
    if len(set(listed)) != len(listed):
        twice = next(s for s in listed if listed.count(s) > 1)
        raise CampaignError(f"{where}: seed {twice} is listed twice (allowed: {allowed})")
    return list(listed)


def _dotted(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    # {wireless = {rate = ...}} and "wireless.rate" = ... both name wireless.rate.
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _dotted(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value
