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

#: The preset families: (name, what sets it apart), the paper's first.
FAMILIES: tuple[tuple[str, str], ...] = (
    (
        "paper",
        "no MAC retries; with CR-aware TCP the sender's MAC held from pu_start to "
        "pu_stop, without it contending while the PU is on",
    ),
    ("standard", "802.15.4 MAC retries (3), the MAC contending while a PU is on"),
)

#: The paper's ordering of the sequence traces, best first; the last two
#: are tied in the paper ("{PHY-LR, NewReno}").
PAPER_ORDER: tuple[str, ...] = ("tcp-lr-cr", "phy-lr-cr", "newreno-cr", "tcp-lr")

#: The paper's own figures for the configurations (§5.1, on Fig. 3: "Over
#: the course of 600 seconds, they only succeeded in delivering 26 packets
#: (TCP-NewReno) and 163 packets (PHY-LR scheme), respectively"): packets
#: delivered in one 600 s run each.
PAPER_PACKETS: dict[str, float] = {"newreno": 26.0, "phy-lr": 163.0}

#: The paper's other result figure (§5.1): "we observed poor goodput over
#: all the TCP implementations (at most up to 780 kB/s)". As printed; an
#: 802.15.4 channel carries at most 250 kbit/s = 31.25 kB/s.
PAPER_PEAK_GOODPUT = "at most up to 780 kB/s"

#: How many seeds, at most, the reproduction runs to decide a step of the
#: ordering the requested seeds leave undecided (paired 95 % interval
#: across zero); only when at least :data:`DECIDE_FROM` seeds were asked for.
DECIDE_SEEDS = 50
DECIDE_FROM = 10

#: Metrics of the table: (key, column title, format).
METRICS: tuple[tuple[str, str, str], ...] = (
    ("packets", "delivered packets", "{:.0f}"),
    ("goodput_bps", "goodput (bit/s)", "{:.0f}"),
    ("rto_count", "RTOs", "{:.1f}"),
    ("tcp_rtx", "TCP rtx", "{:.0f}"),
    ("lr_rtx", "LR link rtx", "{:.0f}"),
    ("mac_rtx", "MAC rtx", "{:.0f}"),
    ("total_rtx", "total rtx", "{:.0f}"),
    ("efficiency", "efficiency", "{:.3f}"),
    ("normalised", "normalised", "{:.3f}"),
    ("lr_reports", "LR reports", "{:.0f}"),
    ("lr_reports_lost", "LR reports lost", "{:.0f}"),
    ("lr_repair_ms", "LR repair (ms)", "{:.0f}"),
    ("lr_buffer_peak", "LR link buffer peak", "{:.0f}"),
)

#: The causes of the RTOs (``summary.json``'s ``rto_causes``, what the
#: simulator saw of each timeout): (key, column title).
RTO_CAUSES: tuple[tuple[str, str], ...] = (
    ("blockage", "blockage"),
    ("lost_ack", "lost ACK"),
    ("lost_retransmission", "lost retransmission"),
    ("lost_report", "lost report"),
    ("lost_segment", "lost segment"),
    ("late", "late ACK"),
)

#: Every per-run value the table keeps: the metrics, then the RTO causes.
KEYS: tuple[str, ...] = tuple(k for k, _, _ in METRICS) + tuple(f"rto_{k}" for k, _ in RTO_CAUSES)

#: The presets' mean PU OFF period and t_idle (for the ceiling lines).
PAPER_PU_MEAN_S = 4.0
PAPER_T_IDLE_S = 1.0

#: Configurations the standard family's sweeps run.
SWEEP_CONFIGS = ("newreno", "newreno-cr", "phy-lr-cr", "tcp-lr-cr")

Progress = Callable[[str], None]


def t_idle_share(t_idle_s: float = PAPER_T_IDLE_S, mean_off_s: float = PAPER_PU_MEAN_S) -> float:
    """The share of PU-OFF time a detector with ``t_idle`` leaves usable,
    with exponential OFF periods: E[(OFF - t_idle)+] / E[OFF] = exp(-t_idle / mean)."""
    return math.exp(-t_idle_s / mean_off_s)


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
    return n


def preset(name: str, family: str = "standard") -> Path:
    """The path of a byun2016 preset of a family."""
    root = xltcp.scenarios_dir() / "byun2016"
    return (root / f"{name}.toml") if family == "standard" else (root / family / f"{name}.toml")


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

    def low(self) -> float:
        """The interval's lower end (the mean when there is no interval)."""
        return self.mean if math.isnan(self.half) else self.mean - self.half


def _cell(values: Sequence[float]) -> Cell:
    mean, half = mean_ci(list(values), 0.95)
    return Cell(mean, half)


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


def ratios(results: dict[str, list[dict]], metric: str = "packets") -> dict[str, Cell]:
    """Per CR-aware config: the per-seed ratio to its twin, mean and interval."""
    out = {}
    for cr, twin in TWINS:
        pairs = zip(results[cr], results[twin], strict=True)
        values = [a[metric] / b[metric] if b[metric] > 0 else math.inf for a, b in pairs]
        out[cr] = _cell(values)
    return out


def paired_step(results: dict[str, list[dict]], better: str, worse: str) -> Cell:
    """The per-seed difference of delivered packets ``better - worse``, mean
    and 95 % interval (paired: the seeds share the PU schedule)."""
    pairs = zip(results[better], results[worse], strict=True)
    return _cell([a["packets"] - b["packets"] for a, b in pairs])


def ordering_steps(results: dict[str, list[dict]]) -> list[tuple[str, str, Cell]]:
    """Each step of the paper's ordering (the last one against both tied
    configurations) with its paired difference."""
    chain = list(PAPER_ORDER)
    steps = [(a, b, paired_step(results, a, b)) for a, b in zip(chain, chain[1:], strict=False)]
    for tied in ("phy-lr", "newreno"):
        steps.append((chain[-1], tied, paired_step(results, chain[-1], tied)))
    return steps


def verdict(cell: Cell) -> str:
    """A paired difference's verdict at 95 %: "holds" (interval above zero),
    "reversed" (below) or "undecided" (across zero, or no interval)."""
    if math.isnan(cell.half):
        return "undecided"
    if cell.mean - cell.half > 0:
        return "holds"
    if cell.mean + cell.half < 0:
        return "reversed"
    return "undecided"


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


def _final_verdict(row: dict) -> str:
    return row["more_verdict"] or row["verdict"]


def checks(
    results: dict[str, list[dict]],
    sweep_rows: Sequence[dict] = (),
    family: str | None = None,
    decisions: Sequence[dict] = (),
) -> list[tuple[str, bool, str]]:
    """The reproduction targets: (target, met, measured), each target named
    with its family when one is given; the t_idle = 0.1 s target only when
    the sweeps ran; with ``decisions`` (:func:`decide_ordering`), a step the
    requested seeds left undecided is judged over the seeds it took."""
    prefix = f"{family}: " if family else ""
    label = dict(CONFIGS)
    mean = {name: _cell([r["packets"] for r in rows]).mean for name, rows in results.items()}
    found = []
    order = list(PAPER_ORDER) + ["max(PHY-LR, NewReno)"]
    chain = [mean[n] for n in PAPER_ORDER] + [max(mean["phy-lr"], mean["newreno"])]
    ok = all(a > b for a, b in zip(chain, chain[1:], strict=False))
    measured = " > ".join(f"{label.get(n, n)} {m:.0f}" for n, m in zip(order, chain, strict=True))
    target = "ordering TCP-LR+CR > PHY-LR+CR > NewReno+CR > TCP-LR > {PHY-LR, NewReno}"
    found.append((prefix + target, ok, measured))
    steps = ordering_steps(results)
    if decisions:
        significant = all(_final_verdict(r) == "holds" for r in decisions)
        parts = []
        for r in decisions:
            step = f"{label[r['better']]} - {label[r['worse']]} {_diff_text(r, '')}"
            if r["more_seeds"]:
                step += f" ({r['verdict']}), at {r['more_seeds']} seeds {_diff_text(r, 'more_')}"
            parts.append(f"{step} ({_final_verdict(r)})")
        text = "; ".join(parts)
        what = (
            "each step of the ordering significant at 95 % (paired), with up to "
            f"{DECIDE_SEEDS} seeds where the first leave it undecided"
        )
    else:
        significant = all(cell.low() > 0 for _, _, cell in steps)
        text = "; ".join(f"{label[a]} - {label[b]} {cell.text('{:.0f}')}" for a, b, cell in steps)
        what = "each step of the ordering significant at 95 % (paired)"
    found.append((prefix + what, significant, text))
    for cr, cell in ratios(results).items():
        twin = dict(TWINS)[cr]
        found.append(
            (
                f"{prefix}{label[cr]} delivers >= 1.5x {label[twin]}",
                cell.mean >= 1.5,
                f"x{cell.mean:.2f} ± {cell.half:.2f}",
            )
        )
    twin_steps = [(cr, twin, paired_step(results, cr, twin)) for cr, twin in TWINS]
    found.append(
        (
            prefix + "each CR-aware variant delivers more than its twin, at 95 % (paired by seed)",
            all(cell.low() > 0 for _, _, cell in twin_steps),
            "; ".join(
                f"{label[cr]} - {label[twin]} {cell.text('{:.0f}')}"
                for cr, twin, cell in twin_steps
            ),
        )
    )
    eff = _cell([r["efficiency"] for r in results["tcp-lr-cr"]])
    found.append(
        (prefix + "TCP-LR+CR >= 70 % of the oracle bound", eff.mean >= 0.70, eff.text("{:.3f}"))
    )
    if all("normalised" in r for r in results["tcp-lr-cr"]):
        share = t_idle_share()
        norm = _cell([r["normalised"] / share for r in results["tcp-lr-cr"]])
        free = _cell([r["no_pu_efficiency"] for r in results["tcp-lr-cr"]])
        # Normalising by a PU-free run that itself collapses says nothing:
        # the target needs a working PU-free link (at least half the bound).
        found.append(
            (
                f"{prefix}TCP-LR+CR >= 90 % of what t_idle allows (normalised / "
                f"exp(-t_idle / mean OFF) = normalised / {share:.3f}; the no-PU run "
                "itself >= 0.5 of the bound)",
                norm.mean >= 0.90 and free.mean >= 0.5,
                f"{norm.text('{:.3f}')} (no-PU efficiency {free.text('{:.3f}')})",
            )
        )
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
                "standard: TCP-LR+CR >= 90 % of the bound with t_idle 0.1 s, perfect detection",
                r["efficiency_mean"] >= 0.90,
                f"{r['efficiency_mean']:.3f} ± {half:.3f}",
            )
        )
    return found


def _diff_text(row: dict, prefix: str) -> str:
    half = row[f"{prefix}ci95"]
    mean = row[f"{prefix}mean"]
    return f"{mean:.0f}" if half is None else f"{mean:.0f} ± {half:.0f}"


def write_table(
    results: dict[str, dict[str, list[dict]]],
    out: Path,
    seeds: Sequence[int],
    sweep_rows: Sequence[dict] = (),
    decisions: dict[str, list[dict]] | None = None,
) -> None:
    """``table.csv`` and ``table.md``: a row per family and configuration;
    with ``decisions`` (per family, :func:`decide_ordering`), the ordering
    step by step in ``table.md`` and ``ordering.csv``."""
    decisions = decisions or {}
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "table.csv", "w", newline="") as f:
        w = csv.writer(f)
        header = ["family", "config", "seeds"]
        for key in KEYS:
            header += [f"{key}_mean", f"{key}_ci95"]
        header += ["no_pu_efficiency_mean", "no_pu_efficiency_ci95"]
        header += ["ratio_to_twin_mean", "ratio_to_twin_ci95"]
        w.writerow(header)
        for family, _ in FAMILIES:
            rat = ratios(results[family])
            for name, label in CONFIGS:
                rows = results[family][name]
                row: list = [family, label, len(rows)]
                for key in [*KEYS, "no_pu_efficiency"]:
                    c = _cell([r[key] for r in rows])
                    row += [f"{c.mean:.6g}", "" if math.isnan(c.half) else f"{c.half:.6g}"]
                if name in rat:
                    row += [f"{rat[name].mean:.4f}", f"{rat[name].half:.4f}"]
                else:
                    row += ["", ""]
                w.writerow(row)
    share = t_idle_share()
    lines = [
        "# Byun 2016 (paper 000): six configurations, two preset families",
        "",
        f"Seeds {', '.join(map(str, seeds))}; mean ± 95 % confidence half width (Student t).",
        "Retransmissions: TCP's, local recovery's link resends (PHY-LR) and the MAC's "
        "retries, and their total. normalised = efficiency / the same preset's efficiency "
        f"with no primary user (per seed); t_idle = 1 s leaves exp(-1/4) = {share:.3f} of "
        "the PU-OFF time usable, so normalised cannot exceed about that.",
    ]
    for family, what in FAMILIES:
        rat = ratios(results[family])
        lines += [
            "",
            f"## Family `{family}`: {what}",
            "",
            "| configuration | " + " | ".join(t for _, t, _ in METRICS) + " | x twin |",
            "|---|" + "---|" * (len(METRICS) + 1),
        ]
        for name, label in CONFIGS:
            rows = results[family][name]
            cells = [_cell([r[k] for r in rows]).text(fmt) for k, _, fmt in METRICS]
            ratio = rat[name].text("{:.2f}") if name in rat else ""
            lines.append(f"| {label} ({family}) | " + " | ".join(cells) + f" | {ratio} |")
        free = _cell([r["no_pu_efficiency"] for r in results[family]["tcp-lr-cr"]])
        lines += ["", f"TCP-LR+CR with no primary user: efficiency {free.text('{:.3f}')}."]
        lines += _paper_figures(results[family], family)
        if decisions.get(family):
            lines += _ordering_lines(decisions[family], family)
        lines += [
            "",
            f"RTOs by cause ({family}): what kept the ACK of the oldest unacknowledged "
            "segment from returning before the timer fired (blockage: dropped or held "
            "while the primary user was on).",
            "",
            "| configuration | RTOs | " + " | ".join(t for _, t in RTO_CAUSES) + " |",
            "|---|---|" + "---|" * len(RTO_CAUSES),
        ]
        for name, label in CONFIGS:
            rows = results[family][name]
            cells = [_cell([r[f"rto_{k}"] for r in rows]).text("{:.1f}") for k, _ in RTO_CAUSES]
            total = _cell([r["rto_count"] for r in rows]).text("{:.1f}")
            lines.append(f"| {label} ({family}) | {total} | " + " | ".join(cells) + " |")
    lines += ["", "## Targets", ""]
    for family, _ in FAMILIES:
        rows = sweep_rows if family == "standard" else ()
        for target, met, measured in checks(
            results[family], rows, family, decisions.get(family, ())
        ):
            lines.append(f"- [{'x' if met else ' '}] {target}: {measured}")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    every = [r for family, _ in FAMILIES for r in decisions.get(family, [])]
    if every:
        _write_rows(every, out / "ordering.csv")


def _paper_figures(results: dict[str, list[dict]], family: str) -> list[str]:
    """The paper's result figures beside this family's (the paper's are one
    600 s run each, so ours are given per seed as well)."""
    label = dict(CONFIGS)
    lines = [
        "",
        f"The paper's figures beside ours ({family}; the paper's are one 600 s run each):",
        "",
        "| figure | paper | ours: mean ± 95 % CI | ours per seed: min / median / max "
        "| seeds at or below the paper's |",
        "|---|---|---|---|---|",
    ]
    for name, figure in PAPER_PACKETS.items():
        values = [r["packets"] for r in results[name]]
        below = sum(v <= figure for v in values)
        lines.append(
            f"| {label[name]}, packets in 600 s | {figure:.0f} | {_cell(values).text('{:.0f}')} "
            f"| {min(values):.0f} / {_median(values):.0f} / {max(values):.0f} "
            f"| {below} of {len(values)} |"
        )
    peaks = {
        name: _cell([r.get("peak_Bps", math.nan) for r in rows]) for name, rows in results.items()
    }
    best = max(peaks, key=lambda n: -math.inf if math.isnan(peaks[n].mean) else peaks[n].mean)
    lines.append(
        f'| peak goodput (10 s average), best of the six | "{PAPER_PEAK_GOODPUT}" (as printed: '
        "802.15.4 carries at most 31.25 kB/s) "
        f"| {label[best]}: {peaks[best].text('{:.0f}')} B/s | | |"
    )
    means = {name: _cell([r["goodput_bps"] / 8 for r in rows]) for name, rows in results.items()}
    top = max(means, key=lambda n: means[n].mean)
    lines.append(
        "| goodput over the 600 s, best of the six | (the same figure, if it is a "
        f"run's average) | {label[top]}: {means[top].text('{:.0f}')} B/s | | |"
    )
    pairs = zip(results["newreno-cr"], results["tcp-lr"], strict=True)
    step = _cell([a["packets"] / b["packets"] for a, b in pairs])
    lines.append(
        '| NewReno+CR over TCP-LR | "slightly outperforms" (Fig. 4) '
        f"| x{step.text('{:.2f}')} (per seed) | | |"
    )
    return lines


def _ordering_lines(rows: Sequence[dict], family: str) -> list[str]:
    label = dict(CONFIGS)
    lines = [
        "",
        f"The paper's ordering step by step ({family}): paired differences of delivered "
        f"packets, 95 %; a step the first seeds leave undecided runs again over up to "
        f"{DECIDE_SEEDS} seeds.",
        "",
        "| step | seeds | difference | verdict | more seeds | difference | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        more = (
            f"| {r['more_seeds']} | {_diff_text(r, 'more_')} | {r['more_verdict']} |"
            if r["more_seeds"]
            else "| | | |"
        )
        lines.append(
            f"| {label[r['better']]} > {label[r['worse']]} | {r['seeds']} "
            f"| {_diff_text(r, '')} | {r['verdict']} {more}"
        )
    return lines


def _series(run_dir: Path) -> dict[str, list[float]]:
    files = sorted((run_dir / "timeseries").glob("*.csv"))
    cols: dict[str, list[float]] = {}
    keys = ("time_s", "goodput_bps", "snd_una_rel", "hop_blocked", "cwnd_bytes", "rto_s")
    with open(files[0]) as f:
        for row in csv.DictReader(f):
            for key in keys:
                if key in row:
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


def _pu_spans(run_dir: Path) -> list[tuple[float, float]]:
    """The run's PU-on intervals: exact from its ``events.csv``, else from
    the sampled ``hop_blocked`` column."""
    from xltcp.plot import blocked_spans

    return blocked_spans(sorted((run_dir / "timeseries").glob("*.csv"))[0])[0]


def _shade_pu(
    ax, spans: list[tuple[float, float]], t0: float = -math.inf, t1: float = math.inf
) -> None:
    for start, end in spans:
        if end >= t0 and start <= t1:
            ax.axvspan(start, end, color="0.9", lw=0)


def _common_pu(out: Path, results: dict[str, list[dict]], names) -> tuple[list, str]:
    """The PU-on intervals to shade on a mean over the seeds of ``names``
    (those of every run, when all have the same), and the axis note."""
    from xltcp.plot import common_spans

    spans = common_spans([_pu_spans(out / "runs" / r["key"]) for n in names for r in results[n]])
    if spans is None:
        return [], "time (s); PU periods differ between seeds: not shaded"
    return spans, "time (s); grey: primary user on (every seed)"


def _median(values: Sequence[float]) -> float:
    return _quantile(values, 0.5)


def _quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of `values`."""
    v = sorted(values)
    x = q * (len(v) - 1)
    i = int(x)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (x - i)


def figures(
    out: Path, results: dict[str, list[dict]], family: str = "standard", mss: int = 94
) -> list[Path]:
    """The paper's Fig. 3 (three panels, with and without CR) and Fig. 4
    (packets acknowledged over time) of a family: every seed's run, as the
    mean over seeds with its 95 % confidence band (the seeds of a family
    share the PU schedule of each seed, so the configurations are compared
    on the same primary users)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import band_line

    seeds = [r["seed"] for r in results[CONFIGS[0][0]]]
    span = f"seeds {seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else f"seed {seeds[0]}"
    series = {
        name: [_series(out / "runs" / r["key"]) for r in results[name]] for name, _ in CONFIGS
    }
    written = []
    spans, note = _common_pu(out, results, [n for n, _ in CONFIGS])
    fig, axes = plt.subplots(3, 1, figsize=(9, 8.5), sharex=True, sharey=True)
    for ax, (cr, twin) in zip(axes, TWINS, strict=True):
        _shade_pu(ax, spans)
        for i, name in enumerate((twin, cr)):
            runs = [[g / 1000 for g in _moving_average(s["goodput_bps"], 10)] for s in series[name]]
            t = max((s["time_s"] for s in series[name]), key=len)
            band_line(ax, t, runs, i, dict(CONFIGS)[name])
        ax.set_ylabel("goodput (kbit/s)")
        ax.set_title(dict(CONFIGS)[twin] + " with and without CR-aware TCP", fontsize=9, loc="left")
        ax.legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel(note)
    fig.suptitle(
        f"Goodput, 10 s moving average: mean of {span}, band: 95 % CI (family {family})",
        fontsize=10,
    )
    fig.tight_layout()
    path = out / f"fig3_goodput_{family}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    fig, ax = plt.subplots(figsize=(9, 5.5))
    _shade_pu(ax, spans)
    for i, (name, label) in enumerate(CONFIGS):
        t = max((s["time_s"] for s in series[name]), key=len)
        band_line(ax, t, [[u / mss for u in s["snd_una_rel"]] for s in series[name]], i, label)
    ax.set_xlabel(note)
    ax.set_ylabel("packets acknowledged")
    ax.set_title(f"Sequence traces: mean of {span}, band: 95 % CI (family {family})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / f"fig4_sequence_{family}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    written.append(_zoom(out, results, family))
    return written


def _signals(run_dir: Path) -> list[tuple[float, str]]:
    path = run_dir / "signals.jsonl"
    found = []
    if path.is_file():
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("node") == 1 and rec.get("type") in ("pu_start", "pu_stop"):
                found.append((rec["t_ns"] / 1e9, rec["type"]))
    return found


def _zoom(out: Path, results: dict[str, list[dict]], family: str) -> Path:
    """One PU period (the first of at least 3 s after 30 s, first seed):
    TCP-LR+CR and TCP-LR, cwnd and RTO over time, PU on shaded, the
    pu_start / pu_stop signals marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import style

    # One seed: a PU period is a moment of one seed's schedule, which the
    # other seeds do not share (the figures above average over seeds).
    cr_dir = out / "runs" / results["tcp-lr-cr"][0]["key"]
    cr = _series(cr_dir)
    plain = _series(out / "runs" / results["tcp-lr"][0]["key"])
    # The PU periods at their exact times (events.csv), as the signals are.
    spans = _pu_spans(cr_dir)
    window = (30.0, 60.0)
    for start, end in spans:
        if end - start >= 3 and start >= 30:
            window = (start - 5, end + 8)
            break
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for ax, key, title in ((ax1, "cwnd_bytes", "cwnd (bytes)"), (ax2, "rto_s", "RTO (s)")):
        _shade_pu(ax, spans, *window)
        for i, (s, label) in enumerate(((cr, "TCP-LR+CR"), (plain, "TCP-LR"))):
            if key in s:
                pts = [
                    (x, y)
                    for x, y in zip(s["time_s"], s[key], strict=True)
                    if window[0] <= x <= window[1]
                ]
                ax.step(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    where="post",
                    label=label,
                    markevery=max(1, len(pts) // 12),
                    markersize=4,
                    **style(i),
                )
        ax.set_ylabel(title)
        for when, kind in _signals(out / "runs" / results["tcp-lr-cr"][0]["key"]):
            if window[0] <= when <= window[1]:
                ax.axvline(
                    when, color="tab:green" if kind == "pu_stop" else "tab:red", lw=0.8, ls=":"
                )
        ax.legend(fontsize=8)
    ax2.set_xlim(*window)
    ax2.set_xlabel(
        "time (s); grey: PU on; red dotted: pu_start (freeze), green dotted: pu_stop (resume)"
    )
    fig.suptitle(
        f"One PU period, 1 s samples (seed {results['tcp-lr-cr'][0]['seed']}, family {family})",
        fontsize=10,
    )
    fig.tight_layout()
    path = out / f"zoom_{family}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


#: Sweeps of the standard family: name, axis label, values, overrides of one value.
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

#: The sensitivity of both families: name, axis label, values, overrides.
SENSITIVITY: tuple[tuple[str, str, tuple[float, ...], Callable[[float], list[str]]], ...] = (
    (
        "max_rto",
        "max RTO (s)",
        (4.0, 10.0, 60.0, 120.0, 600.0),
        lambda v: [f'tcp.max_rto="{v}s"'],
    ),
    (
        "mac_retries",
        "macMaxFrameRetries",
        (0.0, 1.0, 2.0, 3.0),
        lambda v: [f"wireless.max_frame_retries={int(v)}"],
    ),
    (
        "frame_loss",
        "random frame loss each way",
        (0.0, 0.02, 0.05, 0.1, 0.2, 0.3),
        lambda v: [f"wireless.loss.up.p={v}", f"wireless.loss.down.p={v}"],
    ),
    (
        "signalling_delay",
        "signalling delay (s)",
        (0.0, 0.01, 0.03, 0.1),
        lambda v: [f'pu_detection.signalling_delay="{v}s"'],
    ),
    ("t_idle", "t_idle (s)", (0.1, 0.25, 0.5, 1.0, 2.0), lambda v: [f'pu_detection.t_idle="{v}s"']),
    (
        "pu_mean",
        "PU mean ON = mean OFF (s)",
        (1.0, 2.0, 4.0, 8.0, 16.0),
        lambda v: [
            f'wireless.availability.on="exp({v}s)"',
            f'wireless.availability.off="exp({v}s)"',
        ],
    ),
    (
        "wired_delay",
        "wired delay (ms)",
        (0.5, 1.0, 2.0, 5.0, 10.0, 20.0),
        lambda v: [f'wired.delay="{v}ms"'],
    ),
    (
        "wired_jitter",
        "wired jitter (µs)",
        (0.0, 10.0, 50.0, 100.0, 200.0, 500.0),
        lambda v: [f'wired.jitter="{int(v)}us"'],
    ),
    (
        "host_stack",
        "hosts' stack latency: v µs + up to 3v µs",
        (0.0, 5.0, 10.0, 20.0, 50.0, 100.0),
        lambda v: [f'hosts.stack_delay="{int(v)}us"', f'hosts.stack_jitter="{int(3 * v)}us"'],
    ),
    (
        # The paper's hosts: TCP and 802.15.4 as user processes on a USRP
        # E100's ARM core, talking over Unix domain sockets (§4.1, §4.2).
        "usrp_stack",
        "hosts' stack latency: v ms + up to v ms",
        (0.0, 1.0, 5.0, 10.0, 20.0, 50.0, 100.0),
        lambda v: [f'hosts.stack_delay="{int(v)}ms"', f'hosts.stack_jitter="{int(v)}ms"'],
    ),
)


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


def _pm(row: dict, key: str, fmt: str) -> str:
    half = row[f"{key}_ci95"]
    mean = fmt.format(row[f"{key}_mean"])
    return mean if half is None or math.isnan(half) else f"{mean} ± {fmt.format(half)}"


def write_sensitivity_md(rows: Sequence[dict], path: Path, seeds: Sequence[int]) -> None:
    """``sensitivity.md``: per family and parameter, a line per value with
    the mean packets of the six configurations, each CR variant over its
    twin (mean of the per-seed ratios) and whether the paper's ordering
    holds by mean; the paper's NewReno and PHY-LR figures head the columns."""
    label = dict(CONFIGS)
    heads = [
        label[n] + (f" (paper {PAPER_PACKETS[n]:.0f})" if n in PAPER_PACKETS else "")
        for n, _ in CONFIGS
    ]
    lines = [
        "# Byun 2016: sensitivity, packets delivered per run",
        "",
        f"Seeds {', '.join(map(str, seeds))}: mean ± 95 % half width over seeds; `x twin`: "
        "a CR variant over its twin, mean of the per-seed ratios; `ordering`: TCP-LR+CR > "
        "PHY-LR+CR > NewReno+CR > TCP-LR > max(PHY-LR, NewReno) by mean, or the steps it "
        "misses; per seed: the lowest and highest run. The paper's figures are one 600 s "
        "run each.",
    ]
    for family, _ in FAMILIES:
        for sweep, axis, values, _ in SENSITIVITY:
            cells = {
                (r["value"], r["config"]): r
                for r in rows
                if r["family"] == family and r["sweep"] == sweep
            }
            if not cells:
                continue
            lines += [
                "",
                f"## {family}: {sweep} ({axis})",
                "",
                "| value | "
                + " | ".join(heads)
                + " | x twin (NR / PHY / TCP) | ordering | per seed, NewReno / PHY-LR |",
                "|---|" + "---|" * (len(heads) + 3),
            ]
            for value in values:
                if (value, CONFIGS[0][0]) not in cells:
                    continue
                mean = {n: cells[(value, n)]["packets_mean"] for n, _ in CONFIGS}
                gains = " / ".join(
                    _pm(cells[(value, cr)], "ratio_to_twin", "{:.2f}") for cr, _ in TWINS
                )
                chain = [*PAPER_ORDER, max(("phy-lr", "newreno"), key=lambda n: mean[n])]
                broken = [
                    f"{label[a]} < {label[b]}"
                    for a, b in zip(chain, chain[1:], strict=False)
                    if not mean[a] > mean[b]
                ]
                lines.append(
                    f"| {value:g} | "
                    + " | ".join(_pm(cells[(value, n)], "packets", "{:.0f}") for n, _ in CONFIGS)
                    + f" | {gains} | {'no: ' + ', '.join(broken) if broken else 'yes'} | "
                    + " / ".join(
                        f"{cells[(value, n)]['packets_min']:.0f}-"
                        f"{cells[(value, n)]['packets_max']:.0f}"
                        for n in PAPER_PACKETS
                    )
                    + " |"
                )
    path.write_text("\n".join(lines) + "\n")


def _write_rows(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _ceiling(sweep: str, x: float) -> float:
    if sweep == "t_idle":
        return t_idle_share(x, PAPER_PU_MEAN_S)
    if sweep == "pu_mean":
        return t_idle_share(PAPER_T_IDLE_S, x)
    return t_idle_share()


def _plot_grid(rows, table, configs, out: Path, stem: str, family: str = "standard") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import plain_log_axis, sweep_line

    for sweep, label, values, _ in table:
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        for i, name in enumerate(configs):
            pts = [r for r in rows if r["sweep"] == sweep and r["config"] == name]
            xs = [r["value"] for r in pts]
            ys = [r["efficiency_mean"] for r in pts]
            err = [r["efficiency_ci95"] for r in pts]
            sweep_line(ax, xs, ys, err, i, dict(CONFIGS)[name])
        grid = sorted(values)
        ax.plot(
            grid,
            [_ceiling(sweep, x) for x in grid],
            color="k",
            ls=":",
            label="ceiling exp(-t_idle / mean OFF)",
        )
        if sweep in ("t_idle", "pu_mean", "max_rto"):
            plain_log_axis(ax, grid)
        else:
            ax.set_xticks(grid)
            ax.set_xticklabels([f"{x:g}" for x in grid])
        ax.set_xlabel(label)
        ax.set_title(f"family {family}, mean and 95 % CI over seeds", fontsize=9, loc="left")
        ax.set_ylabel("goodput / oracle bound")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        fig.savefig(out / f"{stem}_{sweep}.png", dpi=110)
        plt.close(fig)


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
    if sensitivity:
        report["sensitivity"] = sens_rows
    (out / "reproduce.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
