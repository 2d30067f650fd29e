"""Paper 000: Byun, CR-aware TCP and SACK local recovery (JIPS 2016).

Runs the six presets of ``scenarios/byun2016`` ({NewReno, PHY-LR, TCP-LR}
x {without, with CR-aware TCP}) over several seeds and writes, into OUT:

- ``table.csv`` / ``table.md``: per configuration, delivered packets,
  goodput, RTOs, retransmissions and efficiency against the oracle bound,
  each as mean ± half width of the 95 % Student t interval over seeds; the
  ratio of each CR-aware configuration to its twin (mean and interval of
  the per-seed ratios; the PU schedule of a seed is the same for all six,
  so the comparison is paired); and the checks of the reproduction targets;
- ``fig3_goodput.png``: goodput over time per configuration (first seed,
  10 s moving average, PU-on periods shaded), as the paper's Fig. 3;
- ``fig4_sequence.png``: the sender's cumulatively acknowledged packets over
  time per configuration (first seed), as the paper's Fig. 4;
- with ``sweeps=True``, ``sweeps.csv`` and ``sweep_<name>.png`` for
  ``t_idle`` 0.1-2 s, PU mean ON/OFF 0.5-8 s and missed-detection
  probability 0-0.2, each against the oracle bound.

Every run goes through the campaign layer (:mod:`xltcp.campaign`): on every
core (``jobs``), into the store ``OUT/runs/<key>/`` (summary.json, time
series, signals.jsonl), so that a reproduction run again runs only what it
lacks; ``reproduce.json`` lists the key of each configuration's run per seed.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import xltcp
from xltcp import campaign
from xltcp.stats import mean_ci

#: (preset file stem, label) in the paper's order.
CONFIGS: tuple[tuple[str, str], ...] = (
    ("newreno", "NewReno"),
    ("phy-lr", "PHY-LR"),
    ("tcp-lr", "TCP-LR"),
    ("newreno-cr", "NewReno+CR"),
    ("phy-lr-cr", "PHY-LR+CR"),
    ("tcp-lr-cr", "TCP-LR+CR"),
)

#: Each CR-aware configuration and its twin without CR-aware TCP.
TWINS: tuple[tuple[str, str], ...] = (
    ("newreno-cr", "newreno"),
    ("phy-lr-cr", "phy-lr"),
    ("tcp-lr-cr", "tcp-lr"),
)

#: The paper's ordering of the sequence traces, best first; the last two
#: are tied in the paper ("{PHY-LR, NewReno}").
PAPER_ORDER: tuple[str, ...] = ("tcp-lr-cr", "phy-lr-cr", "newreno-cr", "tcp-lr")

#: Metrics of the table: (summary key, column title, format).
METRICS: tuple[tuple[str, str, str], ...] = (
    ("packets", "delivered packets", "{:.0f}"),
    ("goodput_bps", "goodput (bit/s)", "{:.0f}"),
    ("rto_count", "RTOs", "{:.1f}"),
    ("retransmissions", "retransmissions", "{:.1f}"),
    ("efficiency", "efficiency", "{:.3f}"),
)

#: The presets' mean PU OFF period and t_idle (for the sweeps' ceiling line).
PAPER_PU_MEAN_S = 4.0
PAPER_T_IDLE_S = 1.0

#: Configurations the sweeps run.
SWEEP_CONFIGS = ("newreno", "newreno-cr", "phy-lr-cr", "tcp-lr-cr")

Progress = Callable[[str], None]


def total_runs(seeds: int, sweeps: bool) -> int:
    """How many runs :func:`reproduce` makes (for a progress bar)."""
    n = (len(CONFIGS) + 1) * seeds
    if sweeps:
        n += sum(len(values) for _, _, values, _ in SWEEPS) * len(SWEEP_CONFIGS) * seeds
    return n


def preset(name: str) -> Path:
    """The path of a byun2016 preset."""
    return xltcp.scenarios_dir() / "byun2016" / f"{name}.toml"


def _flow_metrics(summary: dict) -> dict:
    flow = summary["flows"][0]
    mss = _mss(summary)
    return {
        "packets": flow["bytes_delivered"] / mss,
        "goodput_bps": flow["goodput_bps"],
        "rto_count": float(flow["rto_count"]),
        "retransmissions": float(flow["retransmissions"]),
        "efficiency": flow["efficiency"],
        "oracle_bps": flow["oracle_bps"],
    }


def _mss(summary: dict) -> int:
    text = str(summary["scenario"]["flow"][0]["tcp"]["mss"])
    return int(text.rstrip("B")) if text.rstrip("B").isdigit() else 94


@dataclass
class Cell:
    """Mean and 95 % half width of one metric over seeds."""

    mean: float
    half: float

    def text(self, fmt: str) -> str:
        """``mean ± half`` with the given number format."""
        if math.isnan(self.half):
            return fmt.format(self.mean)
        return f"{fmt.format(self.mean)} ± {fmt.format(self.half)}"


def _cell(values: Sequence[float]) -> Cell:
    mean, half = mean_ci(list(values), 0.95)
    return Cell(mean, half)


def _runs(
    groups: dict[str, tuple[str, Sequence[str]]],
    seeds: Sequence[int],
    out: Path,
    progress: Progress | None,
    jobs: int | None,
) -> dict[str, list[tuple[campaign.RunSpec, dict]]]:
    """Run each group (label -> (preset, overrides)) for every seed through the
    campaign store; per group, each seed's run and summary in seed order."""
    specs: dict[str, list[campaign.RunSpec]] = {}
    label_of: dict[str, str] = {}
    for label, (name, overrides) in groups.items():
        specs[label] = campaign.plan(preset(name), [], list(seeds), base=list(overrides)).runs
        for spec in specs[label]:
            label_of.setdefault(spec.key, f"{label} seed {spec.seed}")

    def done(spec: campaign.RunSpec, wall: float) -> None:
        if progress:
            progress(label_of[spec.key])

    everything = [spec for group in specs.values() for spec in group]
    summaries = campaign.run_specs(everything, out, jobs=jobs, done=done)
    return {
        label: [(spec, summaries[spec.key]) for spec in group] for label, group in specs.items()
    }


def run_configs(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
) -> dict[str, list[dict]]:
    """Run every configuration for every seed; per config, the per-seed metrics
    (with ``key``, the run's folder in ``out/runs``)."""
    groups = {label: (name, overrides) for name, label in CONFIGS}
    runs = _runs(groups, seeds, Path(out), progress, jobs)
    return {
        name: [
            {"seed": spec.seed, "key": spec.key, **_flow_metrics(summary)}
            for spec, summary in runs[label]
        ]
        for name, label in CONFIGS
    }


#: Overrides that keep the primary user away for the whole run.
NO_PU = ('wireless.availability.on="1000000s"', 'wireless.availability.off="1s"')


def ceiling(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
) -> Cell:
    """TCP-LR+CR's efficiency with no primary user: what the hop's two-station
    contention (collisions, back-off, TCP ACK frames) leaves of the bound."""
    label = "TCP-LR+CR without PU"
    runs = _runs({label: ("tcp-lr-cr", [*overrides, *NO_PU])}, seeds, Path(out), progress, jobs)
    return _cell([_flow_metrics(summary)["efficiency"] for _, summary in runs[label]])


def ratios(results: dict[str, list[dict]], metric: str = "packets") -> dict[str, Cell]:
    """Per CR-aware config: the per-seed ratio to its twin, mean and interval."""
    out = {}
    for cr, twin in TWINS:
        pairs = zip(results[cr], results[twin], strict=True)
        values = [a[metric] / b[metric] if b[metric] > 0 else math.inf for a, b in pairs]
        out[cr] = _cell(values)
    return out


def checks(
    results: dict[str, list[dict]], sweep_rows: Sequence[dict] = ()
) -> list[tuple[str, bool, str]]:
    """The reproduction targets: (target, met, measured); the t_idle = 0.1 s
    target only when the sweeps ran."""
    mean = {name: _cell([r["packets"] for r in rows]).mean for name, rows in results.items()}
    found = []
    order = list(PAPER_ORDER) + ["max(PHY-LR, NewReno)"]
    chain = [mean[n] for n in PAPER_ORDER] + [max(mean["phy-lr"], mean["newreno"])]
    ok = all(a > b for a, b in zip(chain, chain[1:], strict=False))
    measured = " > ".join(
        f"{dict(CONFIGS).get(n, n)} {m:.0f}" for n, m in zip(order, chain, strict=True)
    )
    found.append(
        ("ordering TCP-LR+CR > PHY-LR+CR > NewReno+CR > TCP-LR > {PHY-LR, NewReno}", ok, measured)
    )
    for cr, cell in ratios(results).items():
        twin = dict(TWINS)[cr]
        found.append(
            (
                f"{dict(CONFIGS)[cr]} delivers >= 1.5x {dict(CONFIGS)[twin]}",
                cell.mean >= 1.5,
                f"x{cell.mean:.2f} ± {cell.half:.2f}",
            )
        )
    eff = _cell([r["efficiency"] for r in results["tcp-lr-cr"]])
    found.append(("TCP-LR+CR >= 70 % of the oracle bound", eff.mean >= 0.70, eff.text("{:.3f}")))
    short = [
        r
        for r in sweep_rows
        if r["sweep"] == "t_idle" and r["config"] == "tcp-lr-cr" and r["value"] == 0.1
    ]
    if short:
        r = short[0]
        half = r["efficiency_ci95"] or 0.0
        found.append(
            (
                "TCP-LR+CR >= 90 % of the bound with t_idle 0.1 s, perfect detection",
                r["efficiency_mean"] >= 0.90,
                f"{r['efficiency_mean']:.3f} ± {half:.3f}",
            )
        )
    return found


def write_table(
    results: dict[str, list[dict]],
    out: Path,
    seeds: Sequence[int],
    no_pu: Cell | None = None,
    sweep_rows: Sequence[dict] = (),
) -> None:
    """``table.csv`` and ``table.md`` (with the reference runs if given)."""
    out.mkdir(parents=True, exist_ok=True)
    rat = ratios(results)
    with open(out / "table.csv", "w", newline="") as f:
        w = csv.writer(f)
        header = ["config", "seeds"]
        for key, _, _ in METRICS:
            header += [f"{key}_mean", f"{key}_ci95"]
        header += ["ratio_to_twin_mean", "ratio_to_twin_ci95"]
        w.writerow(header)
        for name, label in CONFIGS:
            row: list = [label, len(results[name])]
            for key, _, _ in METRICS:
                c = _cell([r[key] for r in results[name]])
                row += [f"{c.mean:.6g}", "" if math.isnan(c.half) else f"{c.half:.6g}"]
            if name in rat:
                row += [f"{rat[name].mean:.4f}", f"{rat[name].half:.4f}"]
            else:
                row += ["", ""]
            w.writerow(row)
    lines = [
        "# Byun 2016 (paper 000): six configurations",
        "",
        f"Seeds {', '.join(map(str, seeds))}; mean ± 95 % confidence half width (Student t).",
        "",
        "| configuration | " + " | ".join(title for _, title, _ in METRICS) + " | x twin |",
        "|---|" + "---|" * (len(METRICS) + 1),
    ]
    for name, label in CONFIGS:
        cells = [_cell([r[k] for r in results[name]]).text(fmt) for k, _, fmt in METRICS]
        ratio = rat[name].text("{:.2f}") if name in rat else ""
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ratio} |")
    lines += ["", "## Targets", ""]
    for target, met, measured in checks(results, sweep_rows):
        lines.append(f"- [{'x' if met else ' '}] {target}: {measured}")
    if no_pu is not None:
        lines += [
            "",
            "## Reference",
            "",
            f"- TCP-LR+CR with no primary user: efficiency {no_pu.text('{:.3f}')} (two-station "
            "CSMA-CA contention: collisions and the longer back-offs after busy CCAs cost the "
            "rest; the oracle bound charges neither)",
            f"- share of PU-OFF time left after t_idle = 1 s, exponential OFF of mean 4 s: "
            f"exp(-1/4) = {math.exp(-0.25):.3f}",
        ]
    (out / "table.md").write_text("\n".join(lines) + "\n")


def _series(run_dir: Path) -> dict[str, list[float]]:
    files = sorted((run_dir / "timeseries").glob("*.csv"))
    cols: dict[str, list[float]] = {}
    with open(files[0]) as f:
        for row in csv.DictReader(f):
            for key in ("time_s", "goodput_bps", "snd_una_rel", "hop_blocked"):
                cols.setdefault(key, []).append(float(row[key] or 0.0))
    return cols


def _moving_average(values: Sequence[float], n: int) -> list[float]:
    out, acc = [], 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= n:
            acc -= values[i - n]
        out.append(acc / min(i + 1, n))
    return out


def _shade_pu(ax, s: dict[str, list[float]]) -> None:
    t, b = s["time_s"], s["hop_blocked"]
    start = None
    for i, blocked in enumerate(b):
        if blocked and start is None:
            start = t[i]
        if not blocked and start is not None:
            ax.axvspan(start, t[i], color="0.9", lw=0)
            start = None
    if start is not None:
        ax.axvspan(start, t[-1], color="0.9", lw=0)


def figures(out: Path, results: dict[str, list[dict]], mss: int = 94) -> list[Path]:
    """``fig3_goodput.png`` and ``fig4_sequence.png`` from each configuration's
    run of the first seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seed = results[CONFIGS[0][0]][0]["seed"]
    series = {name: _series(out / "runs" / results[name][0]["key"]) for name, _ in CONFIGS}
    written = []
    fig, axes = plt.subplots(len(CONFIGS), 1, figsize=(9, 11), sharex=True, sharey=True)
    for ax, (name, label) in zip(axes, CONFIGS, strict=True):
        s = series[name]
        _shade_pu(ax, s)
        ax.plot(s["time_s"], [g / 1000 for g in _moving_average(s["goodput_bps"], 10)], lw=1)
        ax.set_ylabel("kbit/s")
        ax.set_title(label, fontsize=9, loc="left")
    axes[-1].set_xlabel("time (s); grey: primary user on")
    fig.suptitle(f"Goodput over time, 10 s moving average (seed {seed})")
    fig.tight_layout()
    path = out / "fig3_goodput.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    fig, ax = plt.subplots(figsize=(9, 5.5))
    _shade_pu(ax, series[CONFIGS[0][0]])
    for name, label in CONFIGS:
        s = series[name]
        style = "-" if name.endswith("-cr") else "--"
        ax.plot(s["time_s"], [u / mss for u in s["snd_una_rel"]], style, label=label, lw=1.2)
    ax.set_xlabel("time (s); grey: primary user on")
    ax.set_ylabel("packets acknowledged")
    ax.set_title(f"Sequence traces (seed {seed})")
    ax.legend()
    fig.tight_layout()
    path = out / "fig4_sequence.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


#: Sweeps: name, axis label, values, overrides of one value.
SWEEPS: tuple[tuple[str, str, tuple[float, ...], Callable[[float], list[str]]], ...] = (
    (
        "t_idle",
        "t_idle (s)",
        (0.1, 0.25, 0.5, 1.0, 2.0),
        lambda v: [f'pu_detection.t_idle="{v}s"'],
    ),
    (
        "pu_mean",
        "PU mean ON = mean OFF (s)",
        (0.5, 1.0, 2.0, 4.0, 8.0),
        lambda v: [
            f'wireless.availability.on="exp({v}s)"',
            f'wireless.availability.off="exp({v}s)"',
        ],
    ),
    (
        "missed_detection",
        "missed-detection probability",
        (0.0, 0.05, 0.1, 0.15, 0.2),
        lambda v: [f"pu_detection.missed_detection={v}"],
    ),
)


def run_sweeps(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
) -> list[dict]:
    """Every sweep for the sweep configurations; writes ``sweeps.csv`` and plots."""
    groups = {}
    for sweep, _, values, sets in SWEEPS:
        for value in values:
            for name in SWEEP_CONFIGS:
                label = f"{sweep}={value} {dict(CONFIGS)[name]}"
                groups[label] = (name, [*overrides, *sets(value)])
    runs = _runs(groups, seeds, Path(out), progress, jobs)
    rows = []
    for sweep, _, values, _ in SWEEPS:
        for value in values:
            for name in SWEEP_CONFIGS:
                label = f"{sweep}={value} {dict(CONFIGS)[name]}"
                per_seed = [_flow_metrics(summary) for _, summary in runs[label]]
                row = {"sweep": sweep, "value": value, "config": name}
                for key in ("efficiency", "packets", "rto_count"):
                    c = _cell([m[key] for m in per_seed])
                    row[f"{key}_mean"] = c.mean
                    row[f"{key}_ci95"] = None if math.isnan(c.half) else c.half
                rows.append(row)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "sweeps.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    _plot_sweeps(rows, out)
    return rows


def _plot_sweeps(rows: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for sweep, label, _, _ in SWEEPS:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name in SWEEP_CONFIGS:
            pts = [r for r in rows if r["sweep"] == sweep and r["config"] == name]
            xs = [r["value"] for r in pts]
            ys = [r["efficiency_mean"] for r in pts]
            err = [r["efficiency_ci95"] or 0.0 for r in pts]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=dict(CONFIGS)[name])
        if sweep in ("t_idle", "pu_mean"):
            ax.set_xscale("log")
            # With exponential OFF periods of mean m, the share of OFF time
            # left after t_idle is E[(OFF - t_idle)+] / m = exp(-t_idle / m).
            xs = [r["value"] for r in rows if r["sweep"] == sweep and r["config"] == "newreno"]
            if sweep == "t_idle":
                ceiling = [math.exp(-x / PAPER_PU_MEAN_S) for x in xs]
            else:
                ceiling = [math.exp(-PAPER_T_IDLE_S / x) for x in xs]
            ax.plot(xs, ceiling, "k:", label="exp(-t_idle / mean OFF)")
        ax.set_xlabel(label)
        ax.set_ylabel("goodput / oracle bound")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / f"sweep_{sweep}.png", dpi=110)
        plt.close(fig)


def reproduce(
    seeds: Sequence[int],
    out: Path,
    sweeps: bool = False,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
) -> dict:
    """The whole reproduction; returns what ``table.md`` says, as a dict.
    ``jobs`` runs at once (default: every core)."""
    out = Path(out)
    results = run_configs(seeds, out, overrides, progress, jobs)
    no_pu = ceiling(seeds, out, overrides, progress, jobs)
    sweep_rows = run_sweeps(seeds, out, overrides, progress, jobs) if sweeps else []
    write_table(results, out, seeds, no_pu, sweep_rows)
    figures(out, results)
    report = {
        "paper": "byun2016",
        "seeds": list(seeds),
        "runs": {name: {str(r["seed"]): r["key"] for r in rows} for name, rows in results.items()},
        "configs": {
            name: {
                key: {"mean": c.mean, "ci95": None if math.isnan(c.half) else c.half}
                for key in (k for k, _, _ in METRICS)
                for c in [_cell([r[key] for r in results[name]])]
            }
            for name, _ in CONFIGS
        },
        "ratios": {
            k: {"mean": v.mean, "ci95": None if math.isnan(v.half) else v.half}
            for k, v in ratios(results).items()
        },
        "no_pu_efficiency": {
            "mean": no_pu.mean,
            "ci95": None if math.isnan(no_pu.half) else no_pu.half,
        },
        "checks": [
            {"target": t, "met": m, "measured": s} for t, m, s in checks(results, sweep_rows)
        ],
    }
    if sweeps:
        report["sweeps"] = sweep_rows
    (out / "reproduce.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
