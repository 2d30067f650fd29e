"""What each paper's scheme does under other congestion controls: a row of
``--sweeps`` shared by every reproduction.

The papers measured their schemes over NewReno (or Reno). Here each scheme's
preset and its paper's baseline preset run again with ``tcp.cc`` set to each
of :data:`CCS` that the simulator models, over the same seeds (so the same
channel and primary-user draws), and the table gives the total goodput of
both with its 95 % Student t interval and the scheme's gain over the
baseline, paired by seed. Writes ``cc.csv`` and returns the lines of a
``table.md`` section.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from xltcp import runner
from xltcp.reproduce.common import ci, pool

#: The congestion controls compared: the presets' NewReno as the reference,
#: Linux's default (CUBIC) and BBR, each where the simulator models it.
CCS: tuple[str, ...] = ("newreno", "cubic", "bbr")


@dataclass(frozen=True)
class Comparison:
    """One baseline preset and the scheme presets measured against it."""

    baseline: tuple[str, Path]
    schemes: tuple[tuple[str, Path], ...]


def simulated(ccs: Sequence[str] = CCS) -> list[str]:
    """The names of ``ccs`` the simulator models (the others run only in
    the emulator)."""
    from xltcp import _core

    probe = Path(__file__).resolve().parent.parent / "scenarios" / "lossy-last-hop.toml"
    out = []
    for cc in ccs:
        try:
            _core.validate(str(probe), [f'tcp.cc="{cc}"'], "sim")
        except Exception:  # noqa: BLE001 - the core's error names the cc; skipped
            continue
        out.append(cc)
    return out


def total_runs(comparisons: Sequence[Comparison], seeds: int) -> int:
    """How many runs :func:`run` makes."""
    per_cc = sum(1 + len(c.schemes) for c in comparisons)
    return per_cc * len(simulated()) * seeds


def _goodput(path: Path, seed: int, sets: list[str]) -> float:
    summary = runner.run_one(path, seed, None, sets)
    return float(sum(f["goodput_bps"] for f in summary["flows"]))


def run(
    comparisons: Sequence[Comparison],
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
    jobs: int | None = None,
) -> tuple[list[dict], list[str]]:
    """Run every comparison under every simulated cc; returns the rows (also
    written to ``out/cc.csv``) and the lines of the ``table.md`` section."""
    ccs = simulated()
    tasks = {}
    with pool(jobs, progress) as p:
        for comp in comparisons:
            for label, path in (comp.baseline, *comp.schemes):
                for cc in ccs:
                    sets = [*overrides, f'tcp.cc="{cc}"']
                    for seed in seeds:
                        what = f"{label} tcp.cc={cc} seed {seed}"
                        tasks[(label, cc, seed)] = p.run(what, _goodput, path, seed, sets)
    got = {key: task.result() for key, task in tasks.items()}
    rows = []
    for comp in comparisons:
        base_label = comp.baseline[0]
        for label, _ in comp.schemes:
            for cc in ccs:
                base = [got[(base_label, cc, s)] for s in seeds]
                mine = [got[(label, cc, s)] for s in seeds]
                b_mean, b_half = ci(base)
                s_mean, s_half = ci(mine)
                g_mean, g_half = ci([m - b for m, b in zip(mine, base, strict=True)])
                rows.append(
                    {
                        "scheme": label,
                        "baseline": base_label,
                        "cc": cc,
                        "seeds": len(seeds),
                        "baseline_goodput_bps": b_mean,
                        "baseline_goodput_bps_ci95": b_half,
                        "scheme_goodput_bps": s_mean,
                        "scheme_goodput_bps_ci95": s_half,
                        "gain": g_mean / b_mean if b_mean else math.nan,
                        "gain_ci95": g_half / b_mean if b_mean else math.nan,
                    }
                )
    out.mkdir(parents=True, exist_ok=True)
    with (out / "cc.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["scheme"])
        writer.writeheader()
        writer.writerows(rows)
    return rows, lines(rows, ccs, len(seeds))


def _unit(rows: Sequence[dict]) -> tuple[str, float]:
    """Mbit/s, or kbit/s when every goodput is below 1 Mbit/s (802.15.4)."""
    top = max((max(r["baseline_goodput_bps"], r["scheme_goodput_bps"]) for r in rows), default=0.0)
    return ("Mbit/s", 1e6) if top >= 1e6 else ("kbit/s", 1e3)


def _rate(mean: float, half: float, scale: float) -> str:
    if math.isnan(half):
        return f"{mean / scale:.3f}"
    return f"{mean / scale:.3f} ± {half / scale:.3f}"


def lines(rows: Sequence[dict], ccs: Sequence[str], seeds: int) -> list[str]:
    """The ``table.md`` section of :func:`run`'s rows."""
    missing = [cc for cc in CCS if cc not in ccs]
    unit, scale = _unit(rows)
    out = [
        "",
        "## Under other congestion controls",
        "",
        f"Total goodput ({unit}, mean ± 95 % CI over {seeds} seeds) of each scheme and "
        "of its baseline with `tcp.cc` set for every flow, and the scheme's gain "
        "paired by seed. The papers measured NewReno only.",
    ]
    if missing:
        out.append(
            f"Not simulated, so not in the table: {', '.join(missing)} (runs only in the emulator)."
        )
    out += [
        "",
        f"| scheme | baseline | tcp.cc | baseline {unit} | scheme {unit} | gain % |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        gain = (
            f"{100 * r['gain']:+.1f}"
            if math.isnan(r["gain_ci95"])
            else f"{100 * r['gain']:+.1f} ± {100 * r['gain_ci95']:.1f}"
        )
        out.append(
            f"| {r['scheme']} | {r['baseline']} | {r['cc']} "
            f"| {_rate(r['baseline_goodput_bps'], r['baseline_goodput_bps_ci95'], scale)} "
            f"| {_rate(r['scheme_goodput_bps'], r['scheme_goodput_bps_ci95'], scale)} | {gain} |"
        )
    return out


def append(
    comparisons: Sequence[Comparison],
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
    jobs: int | None = None,
) -> list[dict]:
    """:func:`run`, with its section appended to ``out/table.md``; returns the rows."""
    rows, section = run(comparisons, seeds, out, overrides, progress, jobs)
    table = Path(out) / "table.md"
    before = table.read_text() if table.exists() else ""
    table.write_text(before.rstrip("\n") + "\n" + "\n".join(section) + "\n")
    return rows
