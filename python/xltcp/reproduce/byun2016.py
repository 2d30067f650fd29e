"""Paper 000: Byun, CR-aware TCP and SACK local recovery (JIPS 2016).

Runs the six presets ({NewReno, PHY-LR, TCP-LR} x {without, with CR-aware
TCP}) of two families over several seeds:

- ``paper`` (``scenarios/byun2016/paper``): as the paper's USRP prototype,
  no MAC retransmission (``max_frame_retries = 0``); with CR-aware TCP the
  sender's MAC is held from ``pu_start`` to ``pu_stop`` with its queue kept
  (``[schemes] mac_hold``: the paper's PHY stops on the signal), without
  it the MAC keeps contending while the PU is on (the paper's non-CR TCPs
  "continue to transmit or retransmit the user data, even though the
  physical channel is blocked"); every value of its presets cites the
  paper or says it is our choice;
- ``standard`` (``scenarios/byun2016``): 802.15.4 as the standard has it,
  three MAC retries, the sender's MAC contending while a PU is on.

Each configuration also runs with no primary user (its *no-PU* twin), so
that ``normalised`` = efficiency / the same preset's no-PU efficiency (per
seed, paired) separates what the PU costs from what the hop's contention
costs. Writes, into OUT:

- ``table.csv`` / ``table.md``: per family and configuration, delivered
  packets, goodput, RTOs, retransmissions split into TCP's, local
  recovery's link resends (PHY-LR) and the MAC's retries, and their total;
  efficiency against the oracle bound and ``normalised``; local-recovery
  reports sent and lost, the mean repair latency (report sent to the hole
  filled at the BS) and PHY-LR's link-buffer peak (TCP-LR needs none: it
  retransmits from TCP's send buffer); each as mean ± half width of the 95 % Student t
  interval over seeds; the ratio of each CR-aware configuration to its twin
  (per-seed ratios: the PU schedule of a seed is the same for all six); and
  the checks of the reproduction targets per family, the ordering with a
  paired 95 % test of each step; the paper's own figures (NewReno 26 and
  PHY-LR 163 packets in 600 s, its peak goodput, NewReno+CR "slightly"
  above TCP-LR) beside ours; and, for every step of the ordering that the
  seeds leave undecided (when at least 10 were asked for), the same step
  over :data:`DECIDE_SEEDS` seeds (``ordering.csv``);
- ``fig3_goodput_<family>.png``: the paper's Fig. 3 layout, three panels
  (NewReno, PHY-LR, TCP-LR) with and without CR overlaid, the mean over
  seeds of the 10 s moving average with its 95 % confidence band (the PU
  periods shaded are the first seed's);
  ``fig4_sequence_<family>.png``: the sequence traces, mean over seeds with
  its 95 % band; ``zoom_<family>.png``: one PU period of TCP-LR+CR and
  TCP-LR (first seed: a PU period belongs to one seed's schedule) with
  cwnd, RTO and the freeze/resume signals marked;
- with ``sweeps=True``, ``sweeps.csv`` and ``sweep_<name>.png``: ``t_idle``,
  PU means and missed detection on the standard family;
- with ``sensitivity=True``, ``sensitivity.csv``, ``sensitivity.md`` and
  ``sensitivity_<family>_<name>.png``: the six configurations of each
  family over each value the paper leaves open or gives (:data:`SENSITIVITY`:
  max RTO, MAC retries, frame loss, signalling delay, ``t_idle``, the PU
  ON/OFF means, the wired link's delay and jitter, the hosts' stack latency
  at Linux's and at a USRP's scale), with per value the packets of each
  configuration, each CR variant over its twin (paired by seed) and whether
  the paper's ordering holds by mean.

Every run goes through the campaign layer (:mod:`xltcp.campaign`): on every
core (``jobs``), into the store ``OUT/runs/<key>/`` (summary.json, time
series, signals.jsonl), so that a reproduction run again runs only what it
lacks; ``reproduce.json`` lists the key of each run per family,
configuration and seed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from xltcp import campaign
from xltcp.reproduce import cc_table
from xltcp.reproduce.byun2016_paper import (
    CONFIGS,
    DECIDE_FROM,
    DECIDE_SEEDS,
    FAMILIES,
    KEYS,
    METRICS,
    PAPER_ORDER,
    PAPER_PACKETS,
    PAPER_PEAK_GOODPUT,
    PAPER_PU_MEAN_S,
    PAPER_T_IDLE_S,
    RTO_CAUSES,
    SENSITIVITY,
    SWEEP_CONFIGS,
    SWEEPS,
    TWINS,
    preset,
    t_idle_share,
)
from xltcp.reproduce.byun2016_plots import (
    _moving_average,
    _plot_grid,
    _series,
    figures,
)
from xltcp.reproduce.byun2016_tables import (
    Cell,
    _cell,
    _write_rows,
    checks,
    ordering_steps,
    paired_step,
    ratios,
    verdict,
    write_sensitivity_md,
    write_table,
)

__all__ = [
    "CONFIGS",
    "Cell",
    "DECIDE_FROM",
    "DECIDE_SEEDS",
    "FAMILIES",
    "KEYS",
    "METRICS",
    "NO_PU",
    "PAPER_ORDER",
    "PAPER_PACKETS",
    "PAPER_PEAK_GOODPUT",
    "PAPER_PU_MEAN_S",
    "PAPER_T_IDLE_S",
    "Progress",
    "RTO_CAUSES",
    "SENSITIVITY",
    "SWEEPS",
    "SWEEP_CONFIGS",
    "TWINS",
    "_flow_metrics",
    "checks",
    "decide_ordering",
    "figures",
    "ordering_steps",
    "paired_step",
    "preset",
    "ratios",
    "reproduce",
    "run_configs",
    "run_sensitivity",
    "run_sweeps",
    "t_idle_share",
    "total_runs",
    "verdict",
    "write_sensitivity_md",
    "write_table",
]

Progress = Callable[[str], None]

#: ``--sweeps``: CR-aware TCP with TCP local recovery against NewReno
#: (the paper family) under other congestion controls
#: (:mod:`xltcp.reproduce.cc_table`).
CC_COMPARISONS = (
    cc_table.Comparison(
        ("NewReno", preset("newreno", "paper")),
        (("TCP-LR + CR-aware", preset("tcp-lr-cr", "paper")),),
    ),
)


def total_runs(seeds: int, sweeps: bool, sensitivity: bool = False) -> int:
    """How many runs :func:`reproduce` makes (for a progress bar)."""
    n = 2 * len(CONFIGS) * len(FAMILIES) * seeds
    if DECIDE_FROM <= seeds < DECIDE_SEEDS:
        # At most: every configuration of both families to DECIDE_SEEDS.
        n += len(CONFIGS) * len(FAMILIES) * (DECIDE_SEEDS - seeds)
    if sweeps:
        n += sum(len(values) for _, _, values, _ in SWEEPS) * len(SWEEP_CONFIGS) * seeds
    if sensitivity:
        n += sum(len(v) for _, _, v, _ in SENSITIVITY) * len(CONFIGS) * len(FAMILIES) * seeds
    if sweeps:
        n += cc_table.total_runs(CC_COMPARISONS, seeds)
    return n


def _flow_metrics(summary: dict) -> dict:
    flow = summary["flows"][0]
    mss = _mss(summary)
    lr = summary.get("local_recovery") or {}
    up = (summary.get("lrwpan") or {}).get("up") or {}
    tcp_rtx = float(flow["retransmissions"])
    lr_rtx = float(lr.get("link_resends", 0))
    mac_rtx = float(up.get("frames_retried", 0))
    sent = float(lr.get("reports_sent", 0))
    causes = flow.get("rto_causes") or {}
    return {
        **{f"rto_{k}": float(causes.get(k, 0)) for k, _ in RTO_CAUSES},
        "packets": flow["bytes_delivered"] / mss,
        "goodput_bps": flow["goodput_bps"],
        "rto_count": float(flow["rto_count"]),
        "tcp_rtx": tcp_rtx,
        "lr_rtx": lr_rtx,
        "mac_rtx": mac_rtx,
        "total_rtx": tcp_rtx + lr_rtx + mac_rtx,
        "retransmissions": tcp_rtx,
        "efficiency": flow["efficiency"],
        "oracle_bps": flow["oracle_bps"],
        "lr_reports": sent,
        "lr_reports_lost": sent - float(lr.get("reports_received", 0)),
        "lr_repair_ms": (lr["repair_ns_total"] / lr["repairs"] / 1e6 if lr.get("repairs") else 0.0),
        "lr_buffer_peak": float(lr.get("link_buffer_peak", 0)),
    }


def _mss(summary: dict) -> int:
    text = str(summary["scenario"]["flow"][0]["tcp"]["mss"])
    return int(text.rstrip("B")) if text.rstrip("B").isdigit() else 94


def _runs(
    groups: dict[str, tuple[Path, Sequence[str]]],
    seeds: Sequence[int],
    out: Path,
    progress: Progress | None,
    jobs: int | None,
) -> dict[str, list[tuple[campaign.RunSpec, dict]]]:
    """Run each group (label -> (preset path, overrides)) for every seed through
    the campaign store; per group, each seed's run and summary in seed order."""
    specs: dict[str, list[campaign.RunSpec]] = {}
    label_of: dict[str, str] = {}
    for label, (path, overrides) in groups.items():
        specs[label] = campaign.plan(path, [], list(seeds), base=list(overrides)).runs
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


#: Overrides that keep the primary user away for the whole run.
NO_PU = ('wireless.availability.on="1000000s"', 'wireless.availability.off="1s"')


def run_configs(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
    family: str = "standard",
) -> dict[str, list[dict]]:
    """Run every configuration of a family for every seed, with and without
    the primary user; per config, the per-seed metrics (with ``key``, the
    run's folder in ``out/runs``, ``no_pu_efficiency`` and ``normalised``)."""
    groups: dict[str, tuple[Path, Sequence[str]]] = {}
    for name, label in CONFIGS:
        groups[f"{family} {label}"] = (preset(name, family), overrides)
        groups[f"{family} {label} no PU"] = (preset(name, family), [*overrides, *NO_PU])
    runs = _runs(groups, seeds, Path(out), progress, jobs)
    results = {}
    for name, label in CONFIGS:
        rows = []
        pairs = zip(runs[f"{family} {label}"], runs[f"{family} {label} no PU"], strict=True)
        for (spec, summary), (free_spec, free) in pairs:
            m = _flow_metrics(summary)
            ceiling = free["flows"][0]["efficiency"]
            m["no_pu_efficiency"] = ceiling
            m["normalised"] = m["efficiency"] / ceiling if ceiling > 0 else math.nan
            m["peak_Bps"] = _peak_goodput(Path(out) / "runs" / spec.key)
            rows.append({"seed": spec.seed, "key": spec.key, "no_pu_key": free_spec.key, **m})
        results[name] = rows
    return results


def _peak_goodput(run_dir: Path, window: int = 10) -> float:
    """The run's highest goodput over ``window`` samples (10 s: what Fig. 3
    draws), in bytes per second; NaN without a time series."""
    try:
        series = _series(run_dir)
    except (IndexError, OSError):
        return math.nan
    values = series.get("goodput_bps") or []
    return max(_moving_average(values, window), default=math.nan) / 8


def _more_seeds(seeds: Sequence[int], n: int) -> list[int]:
    """``seeds`` and the next integers above the largest of them, ``n`` in all."""
    extended = list(seeds)
    nxt = max(extended) + 1
    while len(extended) < n:
        extended.append(nxt)
        nxt += 1
    return extended


def decide_ordering(
    results: dict[str, list[dict]],
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
    family: str = "standard",
    upto: int = DECIDE_SEEDS,
) -> list[dict]:
    """Each step of the paper's ordering at the requested seeds and, for a
    step they leave undecided (when at least :data:`DECIDE_FROM` seeds were
    asked for), over ``upto`` seeds (the requested ones and those after):
    only the configurations of those steps run again, through the campaign
    store (the requested seeds' runs are found there). Two looks at the
    data, at ``len(seeds)`` and at ``upto``; a step is reported at both."""
    steps = ordering_steps(results)
    undecided = [(a, b) for a, b, cell in steps if verdict(cell) == "undecided"]
    extended: dict[str, list[dict]] = {}
    if undecided and DECIDE_FROM <= len(seeds) < upto:
        names = sorted({n for step in undecided for n in step})
        label = dict(CONFIGS)
        groups = {
            f"{family} {label[n]} ({upto} seeds)": (preset(n, family), overrides) for n in names
        }
        runs = _runs(groups, _more_seeds(seeds, upto), Path(out), progress, jobs)
        for n in names:
            extended[n] = [
                {"seed": spec.seed, "key": spec.key, **_flow_metrics(summary)}
                for spec, summary in runs[f"{family} {label[n]} ({upto} seeds)"]
            ]
    rows = []
    for a, b, cell in steps:
        row = {
            "family": family,
            "better": a,
            "worse": b,
            "seeds": len(seeds),
            "mean": cell.mean,
            "ci95": None if math.isnan(cell.half) else cell.half,
            "verdict": verdict(cell),
            "more_seeds": None,
            "more_mean": None,
            "more_ci95": None,
            "more_verdict": None,
        }
        if (a, b) in undecided and extended:
            more = paired_step(extended, a, b)
            row.update(
                more_seeds=len(extended[a]),
                more_mean=more.mean,
                more_ci95=None if math.isnan(more.half) else more.half,
                more_verdict=verdict(more),
            )
        rows.append(row)
    return rows


def _grid(
    table: Sequence[tuple[str, str, tuple[float, ...], Callable[[float], list[str]]]],
    configs: Sequence[str],
    family: str,
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None,
) -> list[dict]:
    groups = {}
    for sweep, _, values, sets in table:
        for value in values:
            for name in configs:
                label = f"{family} {sweep}={value} {dict(CONFIGS)[name]}"
                groups[label] = (preset(name, family), [*overrides, *sets(value)])
    runs = _runs(groups, seeds, Path(out), progress, jobs)
    rows = []
    for sweep, _, values, _ in table:
        for value in values:
            for name in configs:
                label = f"{family} {sweep}={value} {dict(CONFIGS)[name]}"
                per_seed = [_flow_metrics(summary) for _, summary in runs[label]]
                row = {"family": family, "sweep": sweep, "value": value, "config": name}
                for key in ("efficiency", "packets", "rto_count", "total_rtx"):
                    c = _cell([m[key] for m in per_seed])
                    row[f"{key}_mean"] = c.mean
                    row[f"{key}_ci95"] = None if math.isnan(c.half) else c.half
                packets = [m["packets"] for m in per_seed]
                row["packets_min"], row["packets_max"] = min(packets), max(packets)
                row["ratio_to_twin_mean"] = row["ratio_to_twin_ci95"] = None
                twin = dict(TWINS).get(name)
                if twin in configs:
                    other = f"{family} {sweep}={value} {dict(CONFIGS)[twin]}"
                    pairs = zip(runs[label], runs[other], strict=True)
                    r = _cell([_ratio(a, b) for (_, a), (_, b) in pairs])
                    row["ratio_to_twin_mean"] = r.mean
                    row["ratio_to_twin_ci95"] = None if math.isnan(r.half) else r.half
                rows.append(row)
    return rows


def _ratio(summary: dict, twin: dict) -> float:
    a = summary["flows"][0]["bytes_delivered"]
    b = twin["flows"][0]["bytes_delivered"]
    return a / b if b > 0 else math.inf


def run_sweeps(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
) -> list[dict]:
    """Every sweep for the sweep configurations (standard family); writes
    ``sweeps.csv`` and plots."""
    rows = _grid(SWEEPS, SWEEP_CONFIGS, "standard", seeds, out, overrides, progress, jobs)
    out.mkdir(parents=True, exist_ok=True)
    _write_rows(rows, out / "sweeps.csv")
    _plot_grid(rows, SWEEPS, SWEEP_CONFIGS, out, "sweep")
    return rows


def run_sensitivity(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
) -> list[dict]:
    """Both families' six configurations over each parameter of
    :data:`SENSITIVITY`; writes ``sensitivity.csv`` and
    ``sensitivity_<family>_<parameter>.png``."""
    names = [n for n, _ in CONFIGS]
    rows = []
    for family, _ in FAMILIES:
        mine = _grid(SENSITIVITY, names, family, seeds, out, overrides, progress, jobs)
        out.mkdir(parents=True, exist_ok=True)
        _plot_grid(mine, SENSITIVITY, names, out, f"sensitivity_{family}", family)
        rows += mine
    _write_rows(rows, out / "sensitivity.csv")
    write_sensitivity_md(rows, out / "sensitivity.md", seeds)
    return rows


def reproduce(
    seeds: Sequence[int],
    out: Path,
    sweeps: bool = False,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
    sensitivity: bool = False,
) -> dict:
    """The whole reproduction, both families; returns what ``table.md`` says,
    as a dict. ``jobs`` runs at once (default: every core)."""
    out = Path(out)
    results = {
        family: run_configs(seeds, out, overrides, progress, jobs, family) for family, _ in FAMILIES
    }
    decisions = {
        family: decide_ordering(results[family], seeds, out, overrides, progress, jobs, family)
        for family, _ in FAMILIES
    }
    sweep_rows = run_sweeps(seeds, out, overrides, progress, jobs) if sweeps else []
    sens_rows = run_sensitivity(seeds, out, overrides, progress, jobs) if sensitivity else []
    write_table(results, out, seeds, sweep_rows, decisions)
    for family, _ in FAMILIES:
        figures(out, results[family], family)
    report = {
        "paper": "byun2016",
        "seeds": list(seeds),
        "families": {
            family: {
                "runs": {
                    name: {str(r["seed"]): r["key"] for r in rows}
                    for name, rows in results[family].items()
                },
                "configs": {
                    name: {
                        key: {"mean": c.mean, "ci95": None if math.isnan(c.half) else c.half}
                        for key in [*KEYS, "no_pu_efficiency"]
                        for c in [_cell([r[key] for r in results[family][name]])]
                    }
                    for name, _ in CONFIGS
                },
                "ratios": {
                    k: {"mean": v.mean, "ci95": None if math.isnan(v.half) else v.half}
                    for k, v in ratios(results[family]).items()
                },
                "peak_goodput_Bps": {
                    name: {"mean": c.mean, "ci95": None if math.isnan(c.half) else c.half}
                    for name, _ in CONFIGS
                    for c in [_cell([r.get("peak_Bps", math.nan) for r in results[family][name]])]
                },
                "paper_packets": PAPER_PACKETS,
                "ordering": decisions[family],
            }
            for family, _ in FAMILIES
        },
        "checks": [
            {"target": t, "met": m, "measured": s}
            for family, _ in FAMILIES
            for t, m, s in checks(
                results[family],
                sweep_rows if family == "standard" else (),
                family,
                decisions[family],
            )
        ],
    }
    if sweeps:
        report["sweeps"] = sweep_rows
        report["cc"] = cc_table.append(CC_COMPARISONS, seeds, out, overrides, progress, jobs)
    if sensitivity:
        report["sensitivity"] = sens_rows
    (out / "reproduce.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
