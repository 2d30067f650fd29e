"""Paper 004: Sridhar, CLAMP and L2-CLAMP over an AP with per-receiver queues.

Runs the presets of ``scenarios/l2clamp`` (4 wired sources at 0.5 Mbit/s and
20 ms, an 802.11b AP at 2 Mbit/s with one 50-packet queue per receiver and a
proportional-fair scheduler, flows F1 -> MN1, F2 -> MN2, F3 and F4 -> MN3,
the receivers at mean SNRs 16.5, 10.5 and 7 dB with Rayleigh fading;
1250-byte packets, 5 % error rate per data-frame transmission each way) for
NewReno, CLAMP and L2-CLAMP (the controller as paper 004 writes it, the
rest a documented reconstruction, see ``crates/xltcp-core/src/schemes/clamp``),
each under PF and under round robin, over several seeds, and writes, into
OUT:

- ``table.csv`` / ``table.md``: per variant, mean per-flow throughput, the
  aggregate, Jain's fairness index over the four flows, the uplink (TCP
  ACK) frames on the air, the AP's mean queue and how often a receiver's
  queue stood empty, each as mean ± 95 % Student t half width over seeds;
  throughput against the run's length (100-500 s, the paper's Fig. 4, read
  from the 500 s runs' time series); the checks of the paper's claims and
  of this project's targets; PF against round robin per variant (paired
  by seed);
- ``fig_throughput_time.png``, ``fig_queue.png`` (the AP's queues over
  time), ``fig_cwnd.png`` (each variant's congestion window and flight of
  F1), each the mean over seeds with its 95 % band;
- with ``--sweeps``: ``fig_packet_size.png`` (250-1250 B),
  ``fig_error_rate.png`` (0.05-0.25), ``fig_queue_delay.png`` (CLAMP's
  target delay 20-100 ms), ``fig_scheduler.png`` (the AP's FIFO, round
  robin and PF), throughput and fairness with 95 % CI bars;
- with ``--sensitivity``: ``sensitivity.md`` / ``.csv`` / ``.png``, the
  controller's reconstructed parts and the receivers' channels, one change
  at a time (see :mod:`xltcp.reproduce.l2clamp_sensitivity`).

Each run's summary and time series are kept in
``OUT/runs/<variant><tag>/seed-<n>/``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import xltcp
from xltcp import runner
from xltcp.reproduce import cc_table
from xltcp.reproduce.common import checks_table, ci, pool, text, write_report

#: (preset stem, label).
VARIANTS: tuple[tuple[str, str], ...] = (
    ("newreno", "NewReno"),
    ("clamp", "CLAMP"),
    ("l2clamp", "L2-CLAMP"),
)

#: The AP's schedulers of the default runs: the paper's PF, and round robin
#: to show what PF gains where the receivers' channels differ.
SCHEDULERS: tuple[str, ...] = ("pf", "rr")

#: Packets per second a receiver's queue is served at, about (2 Mbit/s
#: shared by 3 receivers, 1250-byte frames): the presets' alpha is 100 ms
#: of it (5 packets), and the queue-delay sweep sets alpha to the delay
#: times it (see scenarios/l2clamp/clamp.toml; ours, the paper gives no
#: alpha).
RECEIVER_PACKETS_PER_S = 50

#: The run length of the default runs (the paper's longest).
DURATION_S = 500

#: The run lengths of the throughput-vs-time figure (the paper's Fig. 4).
TIMES_S = (100, 200, 300, 400, 500)

#: The sweeps (200 s runs): key -> (values, default). The first three are
#: the paper's Figs. 5-7; the AP's scheduler is ours (the paper runs PF).
SWEEPS: dict[str, tuple[tuple, object]] = {
    "packet_size": ((250, 500, 750, 1000, 1250), 1250),
    "error_rate": ((0.05, 0.10, 0.15, 0.20, 0.25), 0.05),
    "queue_delay": ((0.02, 0.04, 0.06, 0.08, 0.10), 0.10),
    "scheduler": (("fifo", "rr", "pf"), "pf"),
}


def _fmt(value) -> str:
    """A sweep value as text."""
    return value if isinstance(value, str) else f"{value:g}"


SWEEP_DURATION_S = 200

Progress = Callable[[str], None]


def total_runs(seeds: int, sweeps: bool, sensitivity: bool = False) -> int:
    """How many runs :func:`reproduce` makes (for a progress bar)."""
    n = len(VARIANTS) * len(SCHEDULERS) * seeds
    if sweeps:
        n += sum(len(v) for v, _ in SWEEPS.values()) * len(VARIANTS) * seeds
        n += cc_table.total_runs(CC_COMPARISONS, seeds)
    if sensitivity:
        from xltcp.reproduce import l2clamp_sensitivity

        n += l2clamp_sensitivity.total_runs(seeds)
    return n


def preset(variant: str) -> Path:
    """The path of an l2clamp preset."""
    return xltcp.scenarios_dir() / "l2clamp" / f"{variant}.toml"


#: ``--sweeps``: CLAMP and L2-CLAMP against NewReno under other congestion
#: controls, at the sweeps' run length (:mod:`xltcp.reproduce.cc_table`).
CC_COMPARISONS = (
    cc_table.Comparison(
        ("NewReno", preset("newreno")),
        (("CLAMP", preset("clamp")), ("L2-CLAMP", preset("l2clamp"))),
    ),
)


def _sets(variant: str, key: str | None, value) -> list[str]:
    """Overrides of one sweep point."""
    if key is None or value is None:
        return []
    if key == "scheduler":
        return [f'wireless.scheduler="{value}"']
    if key == "packet_size":
        return [f'tcp.mss="{int(value) - 40}B"']
    if key == "error_rate":
        return [f"wireless.loss.down.p={value}", f"wireless.loss.up.p={value}"]
    # queue_delay: CLAMP's alpha, that delay at the receiver's nominal
    # service rate (NewReno has no such parameter).
    if variant == "newreno":
        return []
    return [f"agent.0.alpha={value * RECEIVER_PACKETS_PER_S:g}"]


def jain(xs: Sequence[float]) -> float:
    """Jain's fairness index of ``xs`` (1 = equal shares)."""
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 0.0


def _metrics(summary: dict) -> dict:
    flows = [f["goodput_bps"] for f in summary["flows"]]
    wifi = summary["wifi"]
    sched = wifi.get("scheduler") or {}
    samples = sched.get("queue", [])
    l2 = summary.get("l2clamp", {})
    cells = [q for row in samples for q in row]
    return {
        "per_flow_bps": sum(flows) / len(flows),
        "aggregate_bps": sum(flows),
        "flows_bps": flows,
        "jain": jain(flows),
        "jain_receivers": jain([flows[0], flows[1], flows[2] + flows[3]]),
        "up_frames": float(wifi["up"]["frames_sent"]),
        "mean_queue": sum(cells) / len(cells) if cells else 0.0,
        "empty_share": sum(1 for q in cells if q == 0) / len(cells) if cells else 0.0,
        # MN3's queue: the receiver of two flows, whose share of the air
        # stays below what its wired links could bring in every variant.
        "mn3_empty": sum(1 for row in samples if row[2] == 0) / len(samples) if samples else 0.0,
        "queue_samples": samples,
        "ack_ahead_max": float(l2.get("ack_ahead_max_bytes", 0)),
        "acks_discarded": float(l2.get("acks_discarded", 0)),
    }


def _series(run_dir: Path) -> dict:
    """Per flow: (time_s, goodput_bps, cwnd_bytes, flight_bytes) columns."""
    out = {}
    for f in sorted((run_dir / "timeseries").glob("*.csv")):
        with f.open() as fh:
            rows = list(csv.DictReader(fh))
        out[f.stem] = {
            "t": [float(r["time_s"]) for r in rows],
            "goodput": [float(r["goodput_bps"] or 0) for r in rows],
            "cwnd": [float(r["cwnd_bytes"] or 0) for r in rows],
            "flight": [float(r["flight_bytes"] or 0) for r in rows],
        }
    return out


def _throughput_at(series: dict, t_end: float) -> float:
    """Mean per-flow throughput over [0, t_end] from the time series."""
    vals = []
    for s in series.values():
        xs = [g for t, g in zip(s["t"], s["goodput"], strict=True) if 0 < t <= t_end]
        vals.append(sum(xs) / len(xs) if xs else 0.0)
    return sum(vals) / len(vals) if vals else 0.0


def _key(variant: str, scheduler: str) -> str:
    """The default run's name: the variant, with ``-rr`` under round robin."""
    return variant if scheduler == "pf" else f"{variant}-{scheduler}"


def _run_default(
    variant: str, seed: int, out: Path, overrides: Sequence[str], scheduler: str = "pf"
) -> dict:
    run_dir = out / "runs" / _key(variant, scheduler) / f"seed-{seed}"
    sched = [] if scheduler == "pf" else [f'wireless.scheduler="{scheduler}"']
    sets = [f'sim.duration="{DURATION_S}s"', *sched, *overrides]
    summary = runner.run_one(preset(variant), seed, run_dir, sets)
    series = _series(run_dir)
    # The signal log is not used here and is large: keep the summary and
    # the time series only.
    (run_dir / "signals.jsonl").unlink(missing_ok=True)
    m = _metrics(summary)
    m["by_time"] = {t: _throughput_at(series, t) for t in TIMES_S}
    f1 = series.get("f1", {})
    m["f1_series"] = {k: f1.get(k, []) for k in ("t", "cwnd", "flight")}
    return m


def _run_point(variant: str, seed: int, key: str, value, overrides: Sequence[str]) -> dict:
    sets = [f'sim.duration="{SWEEP_DURATION_S}s"', *overrides, *_sets(variant, key, value)]
    m = _metrics(runner.run_one(preset(variant), seed, None, sets))
    m.pop("queue_samples")
    return m


def run_all(
    seeds: Sequence[int],
    out: Path,
    sweeps: bool,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None,
) -> tuple[dict, dict]:
    """The default runs (variant, or variant-rr under round robin -> per-seed
    metrics) and, with sweeps, (key, value, variant) -> per-seed metrics."""
    default_tasks, sweep_tasks = {}, {}
    with pool(jobs, progress) as p:
        for scheduler in SCHEDULERS:
            for variant, label in VARIANTS:
                for seed in seeds:
                    what = f"{label} {scheduler} {DURATION_S} s seed {seed}"
                    default_tasks[(_key(variant, scheduler), seed)] = p.run(
                        what, _run_default, variant, seed, out, overrides, scheduler
                    )
        if sweeps:
            for key, (values, _) in SWEEPS.items():
                for value in values:
                    for variant, label in VARIANTS:
                        for seed in seeds:
                            what = f"{label} {key}={_fmt(value)} seed {seed}"
                            sweep_tasks[(key, value, variant, seed)] = p.run(
                                what, _run_point, variant, seed, key, value, overrides
                            )
    default: dict[str, list[dict]] = {}
    for (variant, _), task in default_tasks.items():
        default.setdefault(variant, []).append(task.result())
    swept: dict[tuple[str, float, str], list[dict]] = {}
    for (key, value, variant, _), task in sweep_tasks.items():
        swept.setdefault((key, value, variant), []).append(task.result())
    return default, swept


def _mean(rows: list[dict], metric: str) -> float:
    return ci([r[metric] for r in rows])[0]


def pf_gain(default: dict, variant: str, metric: str = "aggregate_bps") -> tuple[float, float]:
    """PF over round robin for ``variant``: (mean difference, 95 % half
    width of the paired differences), both relative to round robin's mean."""
    pf, rr = default[variant], default[_key(variant, "rr")]
    base = ci([r[metric] for r in rr])[0]
    if not base:
        return math.nan, math.nan
    m, h = ci([a[metric] - b[metric] for a, b in zip(pf, rr, strict=True)])
    return m / base, h / base


def checks(default: dict, swept: dict) -> list[tuple[str, bool, str]]:
    """The paper's claims and this project's targets against the runs."""
    out = []
    c, l2, nr = default["clamp"], default["l2clamp"], default["newreno"]
    d = _mean(l2, "per_flow_bps") - _mean(c, "per_flow_bps")
    out.append(
        (
            "L2-CLAMP above CLAMP in throughput (paper Fig. 4: +0.05-0.06 Mbit/s per flow)",
            d > 0,
            f"{d / 1e6:+.3f} Mbit/s per flow at {DURATION_S} s",
        )
    )
    by_time = [
        ci([r["by_time"][t] for r in l2])[0] - ci([r["by_time"][t] for r in c])[0] for t in TIMES_S
    ]
    out.append(
        (
            "L2-CLAMP above CLAMP at every run length 100-500 s",
            all(x > 0 for x in by_time),
            ", ".join(f"{x / 1e6:+.3f}" for x in by_time) + " Mbit/s",
        )
    )
    jl, jc = _mean(l2, "jain"), _mean(c, "jain")
    out.append(
        ("L2-CLAMP at least as fair as CLAMP (Jain, 4 flows)", jl >= jc, f"{jl:.3f} vs {jc:.3f}")
    )
    cut = 1 - _mean(l2, "up_frames") / _mean(c, "up_frames")
    out.append(("L2-CLAMP cuts the wireless ACK frames by >= 90 %", cut >= 0.9, f"{cut:.1%}"))
    el, ec = _mean(l2, "mn3_empty"), _mean(c, "mn3_empty")
    out.append(
        (
            "L2-CLAMP keeps MN3's AP queue from emptying at least as well as CLAMP (paper Fig. 9)",
            el <= ec,
            f"empty in {el:.1%} vs {ec:.1%} of the 1 s samples",
        )
    )
    ql = _mean(l2, "mean_queue")
    qc = _mean(c, "mean_queue")
    out.append(
        (
            "L2-CLAMP holds more packets in the AP's queues than CLAMP (paper Fig. 9)",
            ql > qc,
            f"{ql:.1f} vs {qc:.1f} packets",
        )
    )
    if all(_key(v, "rr") in default for v, _ in VARIANTS):
        gains = {label: pf_gain(default, v) for v, label in VARIANTS}
        out.append(
            (
                "PF above round robin in aggregate throughput, every variant "
                "(channels differ; 95 % CI of the paired gain above 0)",
                all(m - h > 0 for m, h in gains.values()),
                ", ".join(f"{k} {m:+.1%} ± {h:.1%}" for k, (m, h) in gains.items()),
            )
        )
    qn = _mean(nr, "mean_queue")
    out.append(
        (
            "CLAMP keeps the AP's queues shorter than NewReno",
            qc < qn,
            f"{qc:.1f} vs {qn:.1f} packets",
        )
    )
    ahead = max(r["ack_ahead_max"] for r in l2)
    out.append(
        (
            "L2-CLAMP never acknowledges data the receiver's TCP has not (end-to-end)",
            ahead == 0,
            f"max {ahead:.0f} bytes ahead",
        )
    )
    if swept:
        worst_t, worst_j = math.inf, math.inf
        for key, (values, _) in SWEEPS.items():
            for v in values:
                a, b = swept[(key, v, "l2clamp")], swept[(key, v, "clamp")]
                worst_t = min(worst_t, _mean(a, "per_flow_bps") - _mean(b, "per_flow_bps"))
                worst_j = min(worst_j, _mean(a, "jain") - _mean(b, "jain"))
        out.append(
            (
                "L2-CLAMP never below CLAMP in throughput across the sweeps",
                worst_t >= 0,
                f"smallest difference {worst_t / 1e6:+.3f} Mbit/s",
            )
        )
        out.append(
            (
                "L2-CLAMP never below CLAMP in fairness across the sweeps",
                worst_j >= 0,
                f"smallest difference {worst_j:+.3f}",
            )
        )
    return out


def write_table(default: dict, swept: dict, out: Path, seeds: Sequence[int]) -> list:
    """table.csv, table.md; returns the checks."""
    lines = [
        "# CLAMP and L2-CLAMP (Sridhar): reproduction",
        "",
        f"Seeds {seeds[0]}..{seeds[-1]} ({len(seeds)}), mean ± 95 % CI; {DURATION_S} s runs, "
        "1250-byte packets, 5 % error rate, alpha 5 packets (100 ms), PF; receivers at "
        "16.5, 10.5 and 7 dB with Rayleigh fading. CLAMP's controller as paper 004 writes it, "
        "the rest a reconstruction (crates/xltcp-core/src/schemes/clamp/mod.rs).",
        "",
        "| variant | per-flow throughput (Mbit/s) | aggregate (Mbit/s) | Jain (flows) "
        "| Jain (receivers) | uplink frames | mean AP queue (pkts) | queues empty (all, MN3) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with (out / "table.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["variant", "per_flow_bps", "ci95", "aggregate_bps", "jain", "jain_receivers"]
            + ["up_frames", "mean_queue", "empty_share", "mn3_empty"]
            + [f"throughput_{t}s" for t in TIMES_S]
        )
        for variant, label in VARIANTS:
            rows = default[variant]
            col = {k: [r[k] for r in rows] for k in rows[0] if isinstance(rows[0][k], float)}
            lines.append(
                f"| {label} | {text(col['per_flow_bps'], 1e6, '{:.3f}')} | "
                f"{text(col['aggregate_bps'], 1e6, '{:.3f}')} | {text(col['jain'], 1, '{:.3f}')} | "
                f"{text(col['jain_receivers'], 1, '{:.3f}')} | "
                f"{text(col['up_frames'], 1, '{:.0f}')} | "
                f"{text(col['mean_queue'], 1, '{:.1f}')} | {ci(col['empty_share'])[0]:.1%}, "
                f"{ci(col['mn3_empty'])[0]:.1%} |"
            )
            m, h = ci(col["per_flow_bps"])
            w.writerow(
                [variant, m, "" if math.isnan(h) else h]
                + [ci(col[k])[0] for k in ("aggregate_bps", "jain", "jain_receivers")]
                + [ci(col[k])[0] for k in ("up_frames", "mean_queue", "empty_share", "mn3_empty")]
                + [ci([r["by_time"][t] for r in rows])[0] for t in TIMES_S]
            )
    lines += ["", "Per-flow throughput (Mbit/s) against the run's length (paper Fig. 4):", ""]
    lines += ["| variant | " + " | ".join(f"{t} s" for t in TIMES_S) + " |"]
    lines += ["|---|" + "---|" * len(TIMES_S)]
    for variant, label in VARIANTS:
        cells = [text([r["by_time"][t] for r in default[variant]], 1e6, "{:.3f}") for t in TIMES_S]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if all(_key(v, "rr") in default for v, _ in VARIANTS):
        lines += [
            "",
            "The AP's scheduler where the receivers' channels differ (mean SNR 16.5, "
            "10.5, 7 dB, Rayleigh fading): PF against round robin, paired by seed "
            "(gain: mean of the per-seed differences over round robin's mean, 95 % CI):",
            "",
            "| variant | aggregate PF (Mbit/s) | aggregate RR (Mbit/s) | PF gain "
            "| Jain PF | Jain RR |",
            "|---|---|---|---|---|---|",
        ]
        for variant, label in VARIANTS:
            pf, rr = default[variant], default[_key(variant, "rr")]
            m, h = pf_gain(default, variant)
            lines.append(
                f"| {label} | {text([r['aggregate_bps'] for r in pf], 1e6, '{:.3f}')} | "
                f"{text([r['aggregate_bps'] for r in rr], 1e6, '{:.3f}')} | "
                f"{m:+.1%} ± {h:.1%} | {text([r['jain'] for r in pf], 1, '{:.3f}')} | "
                f"{text([r['jain'] for r in rr], 1, '{:.3f}')} |"
            )
    if swept:
        for key, (values, _) in SWEEPS.items():
            lines += [
                "",
                f"Sweep of {key.replace('_', ' ')} ({SWEEP_DURATION_S} s runs): "
                "per-flow throughput (Mbit/s) / Jain",
                "",
            ]
            lines += ["| variant | " + " | ".join(_fmt(v) for v in values) + " |"]
            lines += ["|---|" + "---|" * len(values)]
            for variant, label in VARIANTS:
                cells = [
                    f"{_mean(swept[(key, v, variant)], 'per_flow_bps') / 1e6:.3f} / "
                    f"{_mean(swept[(key, v, variant)], 'jain'):.3f}"
                    for v in values
                ]
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
    found = checks(default, swept)
    lines += checks_table(found)
    (out / "table.md").write_text("\n".join(lines) + "\n")
    return found


def figures(default: dict, swept: dict, out: Path) -> list[Path]:
    """The figures (see the module doc)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import band_line, sweep_line

    paths = []

    def save(fig, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        paths.append(out / name)

    seeds = len(default[VARIANTS[0][0]])
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for i, (variant, label) in enumerate(VARIANTS):
        means, halves = [], []
        for t in TIMES_S:
            m, h = ci([r["by_time"][t] for r in default[variant]])
            means.append(m / 1e6)
            halves.append(h / 1e6)
        sweep_line(ax, TIMES_S, means, halves, i, label)
    ax.set(
        xlabel="simulation time (s)",
        ylabel="per-flow throughput (Mbit/s)",
        title=f"mean of {seeds} seeds, 95 % CI",
    )
    ax.legend(fontsize=8)
    save(fig, "fig_throughput_time.png")

    # Every seed's queue samples (one a second): the mean over seeds with
    # its 95 % band, per receiver.
    fig, axes = plt.subplots(1, len(VARIANTS), figsize=(12, 3.6), sharey=True)
    for ax, (variant, label) in zip(axes, VARIANTS, strict=True):
        for k, name in enumerate(("MN1", "MN2", "MN3")):
            runs = [[row[k] for row in r["queue_samples"]] for r in default[variant]]
            t = list(range(max((len(q) for q in runs), default=0)))
            band_line(ax, t, runs, k, name)
        ax.set(xlabel="time (s)", title=label)
    axes[0].set_ylabel("packets waiting at the AP")
    axes[0].legend(fontsize=7)
    means = {v: _mean(default[v], "mean_queue") for v, _ in VARIANTS}
    empty = {v: _mean(default[v], "mn3_empty") for v, _ in VARIANTS}
    fig.suptitle(
        "paper Fig. 9: L2-CLAMP holds more packets, MN3's queue never empty (limit 50); "
        f"measured: mean {means['l2clamp']:.1f} (L2-CLAMP) vs {means['clamp']:.1f} (CLAMP), "
        f"MN3 empty {empty['l2clamp']:.1%} vs {empty['clamp']:.1%}",
        fontsize=9,
    )
    save(fig, "fig_queue.png")

    # The sender's cwnd keeps growing while the advertised window limits
    # it (CLAMP's window, or the receive buffer): the axis is scaled to the
    # flight (the window in effect), and cwnd runs off the top there.
    fig, axes = plt.subplots(1, len(VARIANTS), figsize=(12, 3.6), sharey=True)
    top = 1.0
    for ax, (variant, label) in zip(axes, VARIANTS, strict=True):
        series = [r.get("f1_series", {}) for r in default[variant]]
        t = max((s.get("t", []) for s in series), key=len)
        for i, key in enumerate(("cwnd", "flight")):
            runs = [[x / 1000 for x in s.get(key, [])] for s in series]
            band_line(ax, t, runs, i, key)
        ax.set(xlabel="time (s)", title=f"{label}, F1")
        flights = [x for s in series for x in s.get("flight", [])]
        top = max(top, 1.5 * max(flights, default=0.0) / 1000)
    axes[0].set_ylim(0, top)
    axes[0].set_ylabel("window (kB)")
    axes[0].legend(fontsize=7)
    save(fig, "fig_cwnd.png")

    if swept:
        names = {
            "packet_size": "packet size (B)",
            "error_rate": "error rate",
            "queue_delay": "queue delay (ms)",
            "scheduler": "the AP's scheduler",
        }
        for key, (values, _) in SWEEPS.items():
            fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
            xs = [v * 1000 if key == "queue_delay" else v for v in values]
            for i, (variant, label) in enumerate(VARIANTS):
                for ax, metric, scale in ((a1, "per_flow_bps", 1e6), (a2, "jain", 1.0)):
                    means, halves = [], []
                    for v in values:
                        m, h = ci([r[metric] for r in swept[(key, v, variant)]])
                        means.append(m / scale)
                        halves.append(h / scale)
                    sweep_line(ax, xs, means, halves, i, label)
            a1.set(xlabel=names[key], ylabel="per-flow throughput (Mbit/s)")
            a2.set(xlabel=names[key], ylabel="Jain's fairness (4 flows)")
            a1.legend()
            save(fig, f"fig_{key}.png")
    return paths


def reproduce(
    seeds: Sequence[int],
    out: Path,
    sweeps: bool = False,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
    sensitivity: bool = False,
) -> dict:
    """The whole reproduction; returns what ``table.md`` says, as a dict.
    ``jobs`` runs at once (default: every core)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    default, swept = run_all(seeds, out, sweeps, overrides, progress, jobs)
    found = write_table(default, swept, out, seeds)
    figures(default, swept, out)
    if sensitivity:
        from xltcp.reproduce import l2clamp_sensitivity as sens

        rows = sens.run(seeds, overrides, progress, jobs)
        with (out / "table.md").open("a") as f:
            f.write("\n".join(sens.write(out, rows, seeds)) + "\n")
        sens.figure(out, rows)
    slim = {
        v: [{k: x for k, x in r.items() if k not in ("queue_samples", "f1_series")} for r in rows]
        for v, rows in default.items()
    }
    report = {
        "paper": "l2clamp",
        "seeds": list(seeds),
        "results": slim,
        "sweeps": {f"{k}-{_fmt(v)}-{var}": rows for (k, v, var), rows in swept.items()},
    }
    if sweeps:
        report["cc"] = cc_table.append(CC_COMPARISONS, seeds, out, overrides, progress, jobs)
    return write_report(out, report, found)
