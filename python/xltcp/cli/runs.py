"""``xltcp run``: one run or several seeds of a scenario."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.text import Text

from xltcp import budget, runner, table

if TYPE_CHECKING:
    from xltcp.results import Manifest

from xltcp.cli.common import (
    FORCE_OPT,
    JSON_OPT,
    MAX_OUTPUT_OPT,
    OUT_OPT,
    QUIET_OPT,
    SCENARIO_ARG,
    SEED_OPT,
    SET_OPT,
    ProgressView,
    UserError,
    _parse_seeds_option,
    default_out_dir,
    err_console,
    out_console,
    user_errors,
)


def run(
    scenario: Path = SCENARIO_ARG,
    seed: Optional[int] = SEED_OPT,
    seeds: Optional[str] = typer.Option(
        None,
        "--seeds",
        metavar="A..B|A,B,C",
        callback=_parse_seeds_option,
        help="Run several seeds (inclusive range or list) into OUT/seed-<n>/ "
        "and write OUT/aggregate.json and OUT/runs.csv.",
    ),
    out: Optional[Path] = OUT_OPT,
    set_: Optional[List[str]] = SET_OPT,
    pcap: bool = typer.Option(
        False, "--pcap", help="Write pcapng captures (same as --set output.pcap=true)."
    ),
    max_output: Optional[str] = MAX_OUTPUT_OPT,
    force: bool = FORCE_OPT,
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Finish an interrupted --seeds run in --out: keep the seeds it completed, run "
        "the others (same scenario, overrides, seeds and version; else exit 2).",
    ),
    quiet: bool = QUIET_OPT,
    json_: bool = JSON_OPT,
) -> None:
    """Run a scenario for one seed or several and print the results.

    Before it starts, the run's traces are estimated (time-series rows and
    pcap records from the duration, sampling interval, flows and link rates);
    it refuses, with exit status 2, when they exceed --max-output or the free
    space of the results folder's filesystem.
    """
    if seed is not None and seeds is not None:
        raise typer.BadParameter("give either --seed or --seeds, not both", param_hint="'--seeds'")
    if resume and (force or out is None or seeds is None or len(seeds) < 2):
        raise typer.BadParameter(
            "--resume finishes a --seeds run in --out DIR: give --seeds A..B and --out, "
            "not --force",
            param_hint="'--resume'",
        )
    overrides = list(set_ or []) + (["output.pcap=true"] if pcap else [])
    limit = max_output if max_output is not None else budget.DEFAULT_LIMIT
    run_scenario(scenario, seed, seeds, out, overrides, quiet, json_, limit, force, resume)


def run_scenario(
    scenario: Path,
    seed: Optional[int],
    seeds: Optional[List[int]],
    out: Optional[Path],
    overrides: List[str],
    quiet: bool,
    as_json: bool,
    max_output: int = budget.DEFAULT_LIMIT,
    force: bool = False,
    resume: bool = False,
) -> Path:
    """What ``run`` and ``demo`` share: validate, check the output budget, run, report.

    Returns the results folder: ``out``, or when no ``out`` is given the
    first free one of ``results/<name>``, ``results/<name>-2``, ...
    """
    from xltcp import results

    with user_errors():
        echo = runner.validate(scenario, overrides)
        many = seeds is not None and len(seeds) > 1
        out_dir = _results_folder(out, echo, scenario, force, seeds if resume else None)
        budget.check([budget.estimate_run(echo)] * (len(seeds) if many else 1), out_dir, max_output)
        if seeds is not None and not many:
            seed = seeds[0]
        manifest = results.Manifest(
            out_dir, scenario, echo, overrides, seeds if many else [seed_of(echo, seed)]
        )
        view = ProgressView(err_console, len(seeds) if many else 1, not quiet)
        try:
            if many:
                result = _run_seeds(scenario, seeds, out_dir, overrides, view, manifest, resume)
            else:
                result = _run_single(scenario, seed, out_dir, overrides, view, manifest)
        finally:
            view.close()
    _print_results(result, out_dir, many, quiet, as_json)
    return out_dir


def _results_folder(
    out: Optional[Path],
    echo: dict,
    scenario: Path,
    force: bool,
    resume_seeds: Optional[List[int]],
) -> Path:
    """``out`` made ready (emptied with ``force``; checked for ``--resume``),
    or the first free default folder."""
    from xltcp import results

    if out is None:
        return results.fresh(default_out_dir(echo, scenario))
    try:
        if resume_seeds is not None:
            results.check_resume(out, echo, resume_seeds)
        else:
            results.prepare(out, force)
    except results.OutDirError as e:
        raise UserError(str(e)) from None
    return out


def _run_single(
    scenario: Path,
    seed: Optional[int],
    out_dir: Path,
    overrides: List[str],
    view: ProgressView,
    manifest: Manifest,
) -> dict:
    """One run: its folder appears, with its manifest and log, once it is whole."""
    from xltcp import results

    def seal(folder: Path, summary: dict) -> None:
        results.log(folder, results.summary_line(summary))
        manifest.finish("complete", folder)

    view.run_started(0, seed)
    return runner.run_one(scenario, seed, out_dir, overrides, view.progress, seal=seal)


def _run_seeds(
    scenario: Path,
    seeds: List[int],
    out_dir: Path,
    overrides: List[str],
    view: ProgressView,
    manifest: Manifest,
    resume: bool,
) -> dict:
    """Several seeds, the manifest saying ``running`` until they end; with
    ``resume``, the seeds already whole in ``out_dir`` are kept."""
    from xltcp import results

    keep = runner.completed_seeds(out_dir, seeds) if resume else []
    if resume:
        manifest.data["kept_seeds"] = keep
        results.log(out_dir, f"resumed: kept seeds {', '.join(map(str, keep)) or 'none'}")
    manifest.write()
    try:
        result = runner.run_seeds(scenario, seeds, out_dir, overrides, view, keep=keep)
    except KeyboardInterrupt:
        manifest.finish("interrupted")
        raise
    except BaseException as e:
        manifest.finish("failed", error=str(e))
        raise
    manifest.finish("complete")
    return result


def _print_results(result: dict, out_dir: Path, many: bool, quiet: bool, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2))
    elif not quiet:
        if many:
            out_console.print(table.aggregate_table(result))
            out_console.print(table.aggregate_line(result))
        else:
            out_console.print(table.run_table(result))
            out_console.print(table.run_line(result))
            for line in (table.energy_line(result), table.output_warning(result)):
                if line is not None:
                    out_console.print(line)
        out_console.print(Text(f"results in {out_dir}"), soft_wrap=True)


def seed_of(echo: dict, seed: Optional[int]) -> Optional[int]:
    """The seed a single run uses: ``seed``, else the scenario's ``sim.seed``."""
    if seed is not None:
        return seed
    sim = echo.get("sim", {})
    value = sim.get("seed") if isinstance(sim, dict) else None
    return value if isinstance(value, int) else None
