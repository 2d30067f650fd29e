"""``xltcp reproduce``: the papers' experiments and their targets."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.text import Text

if TYPE_CHECKING:
    pass

from xltcp.cli.common import (
    QUIET_OPT,
    SET_OPT,
    TARGETS_MISSED,
    UserError,
    _interrupt,
    _parse_seeds_option,
    err_console,
    out_console,
    user_errors,
)


def reproduce(
    paper: str = typer.Argument(
        ...,
        metavar="PAPER",
        help=(
            "Paper to reproduce: byun2016 (paper 000), dsasync (001), kim-chung (002), "
            "ucl (003), l2clamp (004), or all."
        ),
    ),
    seeds: Optional[str] = typer.Option(
        None,
        "--seeds",
        metavar="A..B|A,B,C",
        help="Seeds of every configuration [default: 1..10; 1..3 with --engine emu].",
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR",
        help="Results folder [default: results/reproduce-PAPER, or -emu with --engine emu].",
    ),
    engine: str = typer.Option(
        "sim",
        "--engine",
        metavar="sim|emu",
        help="byun2016 only: emu runs each configuration on real Linux TCP through the "
        "emulator (needs root) beside the simulator, 60 s per run unless --set "
        "sim.duration says otherwise.",
    ),
    sweeps: bool = typer.Option(False, "--sweeps", help="Also run the parameter sweeps."),
    sensitivity: bool = typer.Option(
        False,
        "--sensitivity",
        help="byun2016: also run both families over max RTO, MAC retries, frame loss, "
        "signalling delay, t_idle, the PU means, the wired delay and jitter and the hosts' "
        "stack latency. dsasync: also run the downlink over what a TFP does to queued "
        "frames, the TCP, the AP queue, the wired delay and the TFP statistics. "
        "l2clamp: also run the controller's reconstructed parts and the receivers' "
        "channels, each variant under PF and round robin.",
    ),
    set_: Optional[List[str]] = SET_OPT,
    jobs: Optional[int] = typer.Option(
        None, "--jobs", "-j", min=1, metavar="N", help="Runs at once [default: every core]."
    ),
    no_check: bool = typer.Option(
        False,
        "--no-check",
        help="Only report the paper's targets: exit 0 even when one is missed "
        "[default: exit 3 when one is missed].",
    ),
    repeat: int = typer.Option(
        1,
        "--repeat",
        min=1,
        metavar="N",
        help="--engine emu only: run each configuration and seed N times on Linux (the "
        "same seed does not make the same run there) and report the spread.",
    ),
    quiet: bool = QUIET_OPT,
) -> None:
    """Reproduce a paper: its configurations over seeds, a table and figures.

    Exits with status 3 when a target of the paper is missed (the table says
    which), unless --no-check.

    The runs go through the campaign layer: on every core, into OUT/runs/<key>/,
    and a reproduction run again runs only the runs it lacks. "all" runs
    every paper into OUT/<paper>/ and writes OUT/reproduce-all.json and
    OUT/report.html (a section per paper, a summary of targets met and missed).
    """
    from xltcp.reproduce import PAPERS, progress_bar, reproduce_all

    if paper not in PAPERS and paper != "all":
        raise typer.BadParameter(
            f"{paper!r}: known papers are {', '.join(sorted(PAPERS))}, or all",
            param_hint="'PAPER'",
        )
    if sensitivity and paper not in ("byun2016", "dsasync", "l2clamp"):
        raise typer.BadParameter(
            f"--sensitivity is for byun2016, dsasync and l2clamp only, not {paper!r}",
            param_hint="'--sensitivity'",
        )
    if engine not in ("sim", "emu"):
        raise typer.BadParameter(f"{engine!r}: expected sim or emu", param_hint="'--engine'")
    if engine == "emu":
        if paper != "byun2016":
            raise typer.BadParameter(
                f"--engine emu is for byun2016 only, not {paper!r}", param_hint="'--engine'"
            )
        if sweeps or sensitivity:
            raise typer.BadParameter(
                "--engine emu runs the six configurations only, without --sweeps or --sensitivity",
                param_hint="'--engine'",
            )
        _reproduce_emu(_parse_seeds_option(seeds), out, set_ or [], quiet, repeat)
        return
    if repeat != 1:
        raise typer.BadParameter("--repeat is for --engine emu only", param_hint="'--repeat'")
    seed_list = _parse_seeds_option(seeds) or list(range(1, 11))
    out_dir = out or Path("results") / f"reproduce-{paper}"
    papers = sorted(PAPERS) if paper == "all" else [paper]
    with user_errors():
        from xltcp import results

        results.check_reproduction(out_dir, papers if paper == "all" else ())
    total = sum(PAPERS[p].total_runs(len(seed_list), sweeps) for p in papers)
    if sensitivity:
        total = PAPERS[paper].total_runs(len(seed_list), sweeps, sensitivity=True)
    bar = progress_bar(err_console, not quiet, total)
    with user_errors(), bar as step:
        if paper == "all":
            summary = reproduce_all(seed_list, out_dir, sweeps, set_ or [], step, jobs)
            checks = [c for p in summary["papers"].values() for c in p["checks"]]
        else:
            extra = {"sensitivity": True} if sensitivity else {}
            report = PAPERS[paper].reproduce(
                seed_list, out_dir, sweeps, set_ or [], step, jobs, **extra
            )
            checks = report["checks"]
    if not quiet:
        for name in papers:
            folder = out_dir / name if paper == "all" else out_dir
            out_console.print(
                (folder / "table.md").read_text(), markup=False, highlight=False, soft_wrap=True
            )
        if paper == "all":
            met = sum(1 for c in checks if c["met"])
            out_console.print(Text(f"targets: {met} met, {len(checks) - met} missed"))
            out_console.print(Text(f"report in {out_dir / 'report.html'}"), soft_wrap=True)
        out_console.print(Text(f"results in {out_dir}"), soft_wrap=True)
    missed = [c for c in checks if not c["met"]]
    if missed:
        where = out_dir / "table.md" if paper != "all" else out_dir / "report.html"
        err_console.print(
            Text(f"{len(missed)} of {len(checks)} targets missed (see {where})"),
            soft_wrap=True,
        )
        if not no_check:
            raise typer.Exit(TARGETS_MISSED)


def _reproduce_emu(
    seeds: Optional[List[int]],
    out: Optional[Path],
    overrides: List[str],
    quiet: bool,
    repeats: int = 1,
) -> None:
    """``xltcp reproduce byun2016 --engine emu``."""
    from xltcp.reproduce import byun2016_emu, progress_bar

    seed_list = seeds or list(byun2016_emu.DEFAULT_SEEDS)
    out_dir = out or Path("results") / "reproduce-byun2016-emu"
    with user_errors():
        from xltcp import _core

        total = byun2016_emu.total_runs(len(seed_list), overrides, repeats)
        total += byun2016_emu.population_steps(overrides)
        bar = progress_bar(err_console, not quiet, total)
        # SIGTERM stops the runs like Ctrl-C, so the emulator's teardown runs.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            with bar as step:
                byun2016_emu.reproduce(seed_list, out_dir, overrides, step, repeats)
        except _core.EmuUnavailable as e:
            raise UserError(str(e)) from None
        finally:
            signal.signal(signal.SIGTERM, previous)
    if not quiet:
        out_console.print(
            (out_dir / "emu.md").read_text(), markup=False, highlight=False, soft_wrap=True
        )
        out_console.print(Text(f"results in {out_dir}"), soft_wrap=True)
