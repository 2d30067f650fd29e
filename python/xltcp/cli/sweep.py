"""``xltcp sweep``: a campaign over parameter values and seeds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from xltcp import budget, files, progress, table

if TYPE_CHECKING:
    from rich.progress import Progress

from xltcp.cli.common import (
    MAX_OUTPUT_OPT,
    QUIET_OPT,
    SET_OPT,
    UserError,
    _parse_seeds_option,
    default_out_dir,
    err_console,
    out_console,
    resolve_scenario,
    user_errors,
)

# --- Campaigns ----------------------------------------------------------------


def _is_campaign_file(path: Path) -> bool:
    # Not TOML, too large or not a regular file: the core says why as it
    # reads the file as a scenario.
    try:
        return isinstance(files.read_toml(path).get("sweep"), dict)
    except (files.FileError, OSError):
        return False


#: A Dask scheduler's address: PROTOCOL://HOST:PORT or HOST:PORT (or inproc://...).
SCHEDULER_ADDRESS = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):[0-9]{1,5}|inproc://\S+"
)


class SweepView:
    """Progress over the runs of a campaign on stderr: a bar on a terminal,
    plain lines elsewhere (:class:`xltcp.progress.Lines`)."""

    def __init__(self, console: Console, total: int, enabled: bool) -> None:
        self.bar: Progress | None = None
        self.lines: progress.Lines | None = None
        if enabled and total and not progress.live(console):
            self.lines = progress.Lines(console, total)
        elif enabled and total:
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("runs"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            self.task = self.bar.add_task("runs", total=total)
            self.bar.start()

    def done(self, spec: object, wall: float) -> None:
        """One more run finished."""
        if self.bar is not None:
            self.bar.advance(self.task)
        if self.lines is not None:
            point, seed = getattr(spec, "point", None), getattr(spec, "seed", None)
            self.lines.finished(f"point {point} seed {seed}")

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def sweep(
    scenario: Path = typer.Argument(
        ...,
        metavar="SCENARIO|CAMPAIGN",
        callback=resolve_scenario,
        help="Scenario file (or a shipped scenario's name), or a campaign file "
        "with a [sweep] table.",
    ),
    vary: Optional[List[str]] = typer.Option(
        None,
        "--vary",
        metavar="KEY=VALUES",
        help="A key and its values: a list 0,0.01,0.05; a range 1Mbps..10Mbps/10 "
        "(10 values); a log range 1ms..1s/log4 (repeatable).",
    ),
    zip_: bool = typer.Option(
        False,
        "--zip",
        help="Pair the values of every --vary (same count) instead of crossing them.",
    ),
    seeds: Optional[str] = typer.Option(
        None,
        "--seeds",
        metavar="A..B|A,B,C",
        callback=_parse_seeds_option,
        help="Seeds of every point [default: the scenario's sim.seed].",
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR",
        help="Campaign folder [default: results/<scenario name>-sweep].",
    ),
    set_: Optional[List[str]] = SET_OPT,
    plan_only: bool = typer.Option(
        False, "--plan", help="Print the points, the run count and estimates; run nothing."
    ),
    jobs: Optional[int] = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        metavar="N",
        help="Runs at once on this machine (or workers of a local Dask cluster) "
        "[default: every core].",
    ),
    executor: str = typer.Option(
        "threads",
        "--executor",
        metavar="threads|processes|dask",
        help="Where the runs go: a thread pool (default), a process pool, or a Dask cluster "
        "(--scheduler's, else a local one: --jobs worker processes).",
    ),
    scheduler: Optional[str] = typer.Option(
        None,
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler, e.g. tcp://host:8786 [default with --executor dask: a local "
        "cluster, started and closed by the sweep].",
    ),
    max_output: Optional[str] = MAX_OUTPUT_OPT,
    append: bool = typer.Option(
        False,
        "--append",
        help="OUT holds a campaign with another plan: add this one's points and seeds to it "
        "(same scenario, --set, swept keys and version); the table then holds both.",
    ),
    quiet: bool = QUIET_OPT,
) -> None:
    """Run a scenario over a grid of parameter values and seeds.

    Each point x seed is one run, kept in OUT/runs/<key>/; a campaign run
    again runs only what it lacks. OUT/results.parquet holds one row per run
    and flow, with every swept key as a column.

    OUT must be new, empty, or hold a campaign with the same plan (exit 2
    otherwise, saying what differs); --append extends a campaign instead.
    """
    from xltcp import campaign, campaign_file, values

    if executor not in campaign.EXECUTORS:
        raise typer.BadParameter(
            f"{executor!r}: allowed {', '.join(campaign.EXECUTORS)}", param_hint="'--executor'"
        )
    if scheduler is not None and executor != "dask":
        raise typer.BadParameter(
            "give --scheduler with --executor dask", param_hint="'--scheduler'"
        )
    if scheduler is not None and not SCHEDULER_ADDRESS.fullmatch(scheduler):
        raise typer.BadParameter(
            f"{scheduler!r} is not a scheduler's address (allowed: PROTOCOL://HOST:PORT or "
            "HOST:PORT, e.g. tcp://head:8786)",
            param_hint="'--scheduler'",
        )
    limit = max_output if max_output is not None else budget.DEFAULT_LIMIT
    with user_errors():
        try:
            base = list(set_ or [])
            if _is_campaign_file(scenario):
                spec = campaign_file.load_campaign_file(scenario)
                scenario_path = spec["scenario"]
                varied = spec["vary"] + campaign.parse_vary_options(vary or [])
                seed_list = seeds if seeds is not None else spec["seeds"]
                zipped = zip_ or spec["zip"]
                base = spec["set"] + base
                out = out or spec["out"]
            else:
                scenario_path, seed_list, zipped = scenario, seeds, zip_
                varied = campaign.parse_vary_options(vary or [])
            the_plan = campaign.plan(scenario_path, varied, seed_list, zipped, base)
        except (values.ValueSpecError, campaign.CampaignError) as e:
            raise UserError(str(e)) from None
        name = default_out_dir(the_plan.echoes[0], Path(scenario_path)).name
        out_dir = out if out is not None else Path("results") / f"{name}-sweep"
        try:
            the_plan = campaign.prepare_out(the_plan, out_dir, append)
        except campaign.CampaignError as e:
            raise UserError(str(e)) from None
        if plan_only:
            _print_plan(the_plan, out_dir, limit)
            return
        todo = campaign.pending(the_plan, out_dir / "runs")
        view = SweepView(err_console, len(todo), not quiet)
        try:
            outcome = campaign.run_campaign(
                the_plan, out_dir, executor, jobs, scheduler, view.done, limit
            )
        except (budget.BudgetError, campaign.CampaignError) as e:
            raise UserError(str(e)) from None
        finally:
            view.close()
    if quiet:
        return
    frame = campaign.read_table(out_dir)
    out_console.print(sweep_table(the_plan, frame))
    out_console.print(sweep_line(outcome))
    out_console.print(Text(f"results in {outcome.table_path}"), soft_wrap=True)


def _print_plan(the_plan, out_dir: Path, limit: int) -> None:
    from xltcp import campaign

    listing = Table(title=f"{len(the_plan.points)} points", title_justify="left")
    listing.add_column("point", justify="right")
    for key in the_plan.keys:
        listing.add_column(key)
    for index, point in enumerate(the_plan.points):
        listing.add_row(str(index), *(str(v.value) for v in point.values()))
    out_console.print(listing)
    runs_dir = out_dir / "runs"
    todo = campaign.pending(the_plan, runs_dir) if runs_dir.is_dir() else the_plan.runs
    estimates = [budget.estimate_run(the_plan.echoes[r.point]) for r in todo]
    disk = sum(e.written for e in estimates)
    one_core, source = campaign.estimate_seconds(the_plan, todo, runs_dir)
    cores = campaign.cores()
    have = len(the_plan.runs) - len(todo)
    lines = [
        f"{len(the_plan.points)} points x {len(the_plan.seeds)} seeds = {len(the_plan.runs)} runs"
        + (f" ({have} already in {out_dir})" if have else ""),
        f"time: about {table.human_seconds(one_core)} on one core, "
        f"{table.human_seconds(one_core / min(cores, max(1, len(todo))))} on {cores} cores "
        f"({source})",
        f"disk: about {budget.human_size(disk)} of traces (limit {budget.human_size(limit)}, "
        f"{budget.human_size(budget.free_bytes(out_dir))} free)",
    ]
    for line in lines:
        out_console.print(Text(line), soft_wrap=True)
    try:
        budget.check(estimates, out_dir, limit)
    except budget.BudgetError as e:
        raise UserError(str(e)) from None


def sweep_table(the_plan, frame) -> Table:
    """Per point and flow: goodput, efficiency and RTOs, mean ± 95% CI over
    seeds; one unit per column, in its header, and the swept keys' names whole."""
    from xltcp.stats import mean_ci

    stats = []
    for (point, flow), group in frame.groupby(["point", "flow"], sort=True):
        cells = []
        for metric in ("goodput_bps", "efficiency", "rto_count"):
            values = [float(v) for v in group[metric].dropna()] if metric in group else []
            if not values:
                cells.append(None)
                continue
            mean, half = mean_ci(values)
            cells.append((mean, None if half != half else half))
        stats.append((int(point), str(flow), cells))
    scale, unit = table.rate_column([c[0][0] for _, _, c in stats if c[0] is not None])
    listing = Table(
        title=f"{len(the_plan.seeds)} seeds per point, mean ± 95% CI", title_justify="left"
    )
    for key in the_plan.keys:
        listing.add_column(key, no_wrap=True, min_width=len(key))
    listing.add_column("flow", no_wrap=True)
    for header in (f"goodput {unit}", "efficiency %", "RTOs"):
        listing.add_column(header, justify="right", no_wrap=True)
    for point, flow, cells in stats:
        shown = []
        for cell, cell_scale in zip(cells, (scale, 0.01, 1.0), strict=True):
            shown.append("n/a" if cell is None else table.number_pm(*cell, cell_scale))
        params = [str(v.value) for v in the_plan.points[point].values()]
        listing.add_row(*params, flow, *shown)
    return listing


def sweep_line(outcome) -> Text:
    """Runs made and skipped and the wall time they took where they ran.

    No speed-up is printed: the runs' own times add up differently when they
    share the cores (each slows the others), so their sum over the wall time
    is not what one job would have taken; only running the same work on one
    job measures that.
    """
    parts = [f"{outcome.ran} runs"]
    if outcome.skipped:
        parts[0] += f" ({outcome.skipped} already done)"
    where = (
        "on the Dask cluster"
        if outcome.executor == "dask"
        else f"on {outcome.jobs} {outcome.executor if outcome.jobs > 1 else 'job'}"
    )
    parts.append(f"wall {table.human_seconds(outcome.wall_seconds)} {where}")
    return Text(" | ".join(parts))
