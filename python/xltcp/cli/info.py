"""``xltcp validate``, ``demo`` and ``scenarios``: checking and listing scenarios."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.table import Table
from rich.text import Text

import xltcp
from xltcp import runner

if TYPE_CHECKING:
    pass

from xltcp.cli.common import (
    FORCE_OPT,
    JSON_OPT,
    OUT_OPT,
    QUIET_OPT,
    SCENARIO_ARG,
    SEED_OPT,
    SET_OPT,
    UserError,
    _error,
    out_console,
    user_errors,
)
from xltcp.cli.runs import run_scenario


def describe(echo: dict) -> List[str]:
    """Short lines about a scenario echo: its flows, duration and wireless hop."""
    flows = echo.get("flows", echo.get("flow", []))
    lines = []
    if isinstance(flows, list):
        directions = [str(f.get("direction", "down")) for f in flows if isinstance(f, dict)]
        counts = ", ".join(f"{directions.count(d)} {d}" for d in ("down", "up") if d in directions)
        names = ", ".join(str(f.get("name")) for f in flows[:6] if isinstance(f, dict))
        more = ", ..." if len(flows) > 6 else ""
        lines.append(f"flows: {len(flows)} ({counts}): {names}{more}")
    sim = echo.get("sim", {})
    if isinstance(sim, dict) and "duration" in sim:
        lines.append(f"duration: {sim['duration']}, seed {sim.get('seed')}")
    hop = echo.get("wireless", {})
    if isinstance(hop, dict) and hop:
        lines.append("wireless hop: " + _describe_hop(hop))
    elif isinstance(hop, list):
        for entry in hop:
            if isinstance(entry, dict):
                lines.append(f"wireless hop {entry.get('name')}: " + _describe_hop(entry))
    schemes = echo.get("schemes", {})
    if isinstance(schemes, dict) and schemes:
        lines.append("schemes: " + ", ".join(f"{k}={v}" for k, v in schemes.items()))
    return lines


def _describe_hop(hop: dict) -> str:
    parts = [str(hop[key]) for key in ("rate", "delay", "queue") if key in hop]
    if hop.get("kind") == "lrwpan":
        parts.insert(0, f"802.15.4 ({hop.get('layout')} frames)")
    loss = hop.get("loss", {})
    if isinstance(loss, dict):
        for direction in ("down", "up"):
            spec = loss.get(direction)
            if isinstance(spec, dict) and spec.get("model", "none") != "none":
                params = ", ".join(f"{k}={v}" for k, v in spec.items() if k != "model")
                parts.append(f"loss {direction} {spec['model']}({params})")
    availability = hop.get("availability", {})
    if isinstance(availability, dict) and availability.get("model", "always") != "always":
        params = ", ".join(f"{k}={v}" for k, v in availability.items() if k != "model")
        parts.append(f"availability {availability['model']}({params})")
    return ", ".join(parts)


def validate(
    scenario: Path = SCENARIO_ARG,
    set_: Optional[List[str]] = SET_OPT,
    emu: bool = typer.Option(
        False,
        "--emu",
        help="Check for xltcp emu instead of xltcp run (the loader's checks only).",
    ),
) -> None:
    """Check a scenario file as xltcp run would, and print a short summary of it."""
    with user_errors():
        echo = runner.validate(scenario, set_ or [], engine="emu" if emu else "sim")
        if emu:
            from xltcp import _core

            # What xltcp emu refuses before it looks at the machine.
            refusal = _core.emu_refusal(str(scenario), set_ or [])
            if refusal:
                raise UserError(f"{scenario}: xltcp emu does not run it: {refusal}")
    out_console.print(Text(f"{scenario}: ok"), soft_wrap=True)
    for line in describe(echo):
        out_console.print(Text(f"  {line}"), soft_wrap=True)


def demo(
    out: Optional[Path] = OUT_OPT,
    seed: Optional[int] = SEED_OPT,
    force: bool = FORCE_OPT,
    quiet: bool = QUIET_OPT,
    json_: bool = JSON_OPT,
) -> None:
    """Run the shipped demo scenario and print the results."""
    path = xltcp.shipped_scenario("demo")
    if not path.is_file():
        raise _error(f"the shipped demo scenario is missing ({path})", 1)
    out_dir = run_scenario(path, seed, None, out, [], quiet, json_, force=force)
    # The demo also draws its flows (RESULTS/plots/<flow>.png), when the run
    # wrote time series (xltcp plot refuses a folder without them).
    if not (out_dir / "timeseries").is_dir():
        return
    from xltcp.plot import plot_run

    written = plot_run(out_dir)
    if not quiet and not json_:
        out_console.print(Text(f"plots in {out_dir / 'plots'} ({len(written)} flows)"))


def description(path: Path) -> str:
    """The comment block a scenario file opens with, as one paragraph."""
    lines = []
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
    return " ".join(part for part in lines if part)


def first_sentence(text: str, width: int) -> str:
    """The first sentence of ``text``, cut at a word to at most ``width``
    characters (ending ``...`` when cut)."""
    found = re.match(r"(.*?[.!?])(?=\s+[A-Z(]|\s*$)", text)  # not at "Fig. 7"
    sentence = found.group(1) if found else text
    if len(sentence) <= width:
        return sentence
    head = sentence[: max(0, width - 3)]
    if sentence[len(head)] != " ":
        head = head.rsplit(" ", 1)[0]  # not half a word
    return head.rstrip(",;:") + "..."


def scenarios(
    long: bool = typer.Option(
        False, "--long", "-l", help="Each scenario's whole description, in a table."
    ),
) -> None:
    """List the scenarios shipped with xltcp, a line each.

    Give a name to run or validate one (xltcp run demo); --long prints each
    scenario's whole description.
    """
    folder = xltcp.scenarios_dir()
    names = xltcp.shipped_names()
    if not names:
        raise _error(f"no shipped scenarios found in {folder}", 1)
    if long:
        listing = Table(show_lines=True)
        listing.add_column("scenario", no_wrap=True)
        listing.add_column("about")
        for name in names:
            listing.add_row(name, description(xltcp.shipped_scenario(name)))
        out_console.print(listing)
        out_console.print(Text(f"in {folder}; run one with xltcp run NAME"), soft_wrap=True)
        return
    column = max(len(name) for name in names) + 2
    room = max(30, out_console.width - column)
    for name in names:
        about = first_sentence(description(xltcp.shipped_scenario(name)), room)
        out_console.print(Text(f"{name:<{column}}{about}".rstrip()), soft_wrap=True)
    out_console.print(
        Text(
            f"{len(names)} scenarios in {folder}; run one with xltcp run NAME, "
            "xltcp scenarios --long for their descriptions"
        ),
        soft_wrap=True,
    )
