"""``xltcp plot`` and ``xltcp report``: figures and HTML pages of a results folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.text import Text

from xltcp import files

if TYPE_CHECKING:
    pass

from xltcp.cli.common import UserError, _error, out_console, refused


def plot(
    results: Path = typer.Argument(
        ...,
        metavar="RESULTS",
        help="A results folder written by xltcp run: one run, a seed-<n> folder, "
        "or a --seeds folder (drawn as the mean over seeds with a 95% CI band).",
    ),
    fmt: str = typer.Option("png", "--format", metavar="png|pdf|svg", help="Image format."),
    against: Optional[Path] = typer.Option(
        None,
        "--against",
        metavar="OTHER",
        help="Another run's results folder (e.g. the same scenario and seed on the "
        "other engine): each flow both have is drawn with both runs, goodput, cwnd, "
        "SRTT and RTO, into RESULTS/plots/<flow>-against-<OTHER>.FORMAT.",
    ),
) -> None:
    """Draw each flow's goodput, cwnd and sequence trace into RESULTS/plots/.

    Titles name the scenario, seed and flow; RTOs and fast recoveries are
    marked, so are a flow's start and a file's completion; with several
    flows, all-flows.FORMAT draws every flow's goodput on one axis.
    """
    from xltcp.plot import FORMATS, plot_run, plot_seeds, seed_folders

    if fmt not in FORMATS:
        raise typer.BadParameter(f"{fmt!r}: allowed {', '.join(FORMATS)}", param_hint="'--format'")
    if against is not None:
        with refused():
            _plot_against(results, against, fmt)
        return
    with refused():
        if (results / "timeseries").is_dir():
            written = plot_run(results, fmt)
        elif seed_folders(results):
            written = plot_seeds(results, fmt)
        else:
            raise UserError(
                f"{results}: no timeseries/ or seed-<n>/timeseries/ folder here "
                "(allowed: a folder written by xltcp run, with one seed or --seeds)"
            )
    for path in written:
        out_console.print(Text(f"wrote {path}"), soft_wrap=True)


def _plot_against(results: Path, other: Path, fmt: str) -> None:
    """``xltcp plot RESULTS --against OTHER``."""
    from xltcp.plot import compare_runs

    for folder, what in ((results, "RESULTS"), (other, "--against")):
        if not (folder / "timeseries").is_dir():
            raise _error(
                f"{what} {folder}: no timeseries/ folder here (allowed: one run's "
                "results folder, written by xltcp run or xltcp emu)",
                2,
            )
    written = compare_runs(results, other, fmt)
    if not written:
        raise _error(f"{results} and {other}: no flow name in both timeseries/ folders", 2)
    for path in written:
        out_console.print(Text(f"wrote {path}"), soft_wrap=True)


def report(
    results: Path = typer.Argument(
        ...,
        metavar="DIR",
        help="A folder written by xltcp run (one seed or --seeds), xltcp sweep or xltcp reproduce.",
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", metavar="FILE", help="HTML file to write [default: DIR/report.html]."
    ),
) -> None:
    """Write one self-contained HTML report (tables and plots embedded) of a results folder."""
    from xltcp import report as report_module

    if not results.is_dir():
        raise _error(f"{results}: no such folder", 2)
    try:
        path = report_module.build(results, out)
    except (report_module.ReportError, files.FileError) as e:
        raise _error(str(e), 2) from None
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        raise _error(f"{where}{e.strerror or e}", 1) from None
    out_console.print(Text(f"wrote {path}"), soft_wrap=True)
