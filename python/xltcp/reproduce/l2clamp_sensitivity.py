"""Paper 004 (CLAMP, L2-CLAMP): what the choices the paper leaves open do to
the comparison (``xltcp reproduce l2clamp --sensitivity``).

The presets of ``scenarios/l2clamp`` with one setting changed per row, each
row run for NewReno, CLAMP and L2-CLAMP under PF and under round robin over
the same seeds (paired: a seed gives every run the same fading and error
draws). The settings:

- the controller's parts the paper does not write (``alpha`` following the
  measured service rate instead of fixed; the window moved by ``dw`` per
  window of data instead of per packet; a halving at most once per window
  of data instead of at every ``dw <= 0``; the three together, this
  project's earlier reconstruction), and the values it does not give
  (``alpha``, ``tau``); the receivers' window updates let through (ours)
  instead of dropped with every other standalone ACK (L2-CLAMP only);
- the receivers' channels: equal at 30 dB without fading (PF is then round
  robin), the far edge's mean SNR (the others 3.5 and 9.5 dB above it, as
  at 50 and 25 m), and the fading's coherence time.

It writes ``sensitivity.csv``, a section of ``table.md`` and
``sensitivity.png`` (L2-CLAMP minus CLAMP, and PF's gain over round robin,
per row).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path

from xltcp import runner
from xltcp.reproduce.common import ci as _ci
from xltcp.reproduce.common import pool as _pool
from xltcp.reproduce.common import text as _text

#: The variants of each row: (name, preset stem).
VARIANTS: tuple[tuple[str, str], ...] = (
    ("newreno", "newreno"),
    ("clamp", "clamp"),
    ("l2clamp", "l2clamp"),
)

#: The schedulers of each row.
SCHEDULERS: tuple[str, ...] = ("pf", "rr")

#: The run length (the paper's sweeps run 200 s).
DURATION_S = 200


def _channels(far_db: float | None, coherence: str = "50ms") -> tuple[str, ...]:
    """The three receivers' channels: the far edge's mean SNR, the others
    3.5 and 9.5 dB above (25, 50 and 75 m with path loss 20 log10 d);
    None: every receiver at 30 dB without fading."""
    if far_db is None:
        return tuple(f"wireless.station.{i}.snr={{ mean_db = 30 }}" for i in range(3))
    means = (far_db + 9.5, far_db + 3.5, far_db)
    return tuple(
        f'wireless.station.{i}.snr={{ mean_db = {m:g}, fading = "rayleigh", '
        f'coherence = "{coherence}" }}'
        for i, m in enumerate(means)
    )


def _agent(*sets: str) -> tuple[str, ...]:
    """Overrides of the CLAMP agent (NewReno's preset has none: skipped)."""
    return tuple(f"agent.0.{s}" for s in sets)


#: The rows: (factor, value label, overrides of the agent, overrides of the
#: scenario, whether the presets have it).
ROWS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], bool], ...] = (
    ("presets", "as shipped", (), (), True),
    ("alpha", "measured (target 100 ms)", _agent('alpha="measured"'), (), False),
    ("alpha", "2 packets", _agent("alpha=2"), (), False),
    ("alpha", "10 packets", _agent("alpha=10"), (), False),
    ("growth", "per window", _agent('growth="window"'), (), False),
    ("halving", "once per window", _agent('halving="once_per_window"'), (), False),
    (
        "controller",
        "all three ours",
        _agent('alpha="measured"', 'growth="window"', 'halving="once_per_window"'),
        (),
        False,
    ),
    ("window updates", "pass (ours)", _agent('window_updates="pass"'), (), False),
    ("tau", "750 B", _agent('tau="750B"'), (), False),
    ("tau", "3000 B", _agent('tau="3000B"'), (), False),
    ("channels", "equal, 30 dB, no fading", (), _channels(None), False),
    ("channels", "far edge 4 dB", (), _channels(4), False),
    ("channels", "far edge 10 dB", (), _channels(10), False),
    ("channels", "far edge 20 dB", (), _channels(20), False),
    ("coherence", "10 ms", (), _channels(7, "10ms"), False),
    ("coherence", "200 ms", (), _channels(7, "200ms"), False),
)

Progress = Callable[[str], None]


def total_runs(seeds: int) -> int:
    """How many runs :func:`run` makes."""
    return len(ROWS) * len(VARIANTS) * len(SCHEDULERS) * seeds


def _preset(stem: str) -> Path:
    import xltcp

    return xltcp.scenarios_dir() / "l2clamp" / f"{stem}.toml"


def _metrics(summary: dict) -> dict:
    from xltcp.reproduce.l2clamp import jain

    flows = [f["goodput_bps"] for f in summary["flows"]]
    samples = (summary["wifi"].get("scheduler") or {}).get("queue", [])
    cells = [q for row in samples for q in row]
    return {
        "per_flow_bps": sum(flows) / len(flows),
        "aggregate_bps": sum(flows),
        "jain": jain(flows),
        "mean_queue": sum(cells) / len(cells) if cells else 0.0,
    }


def run(
    seeds: Sequence[int],
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> dict:
    """Every row, variant, scheduler and seed: (factor, value, variant,
    scheduler) -> per-seed metrics."""
    tasks = {}
    with _pool(jobs, progress) as pool:
        for factor, label, agent, scenario, _ in ROWS:
            for name, stem in VARIANTS:
                for sched in SCHEDULERS:
                    for seed in seeds:
                        sets = [
                            f'sim.duration="{DURATION_S}s"',
                            f'wireless.scheduler="{sched}"',
                            *scenario,
                            *(agent if name != "newreno" else ()),
                            *overrides,
                        ]
                        args = (_preset(stem), seed, None, sets)
                        what = f"sensitivity {factor}={label} {name} {sched} seed {seed}"
                        tasks[(factor, label, name, sched, seed)] = pool.run(
                            what, runner.run_one, *args
                        )
        per_run = {key: _metrics(t.result()) for key, t in tasks.items()}
    out: dict = {}
    for (factor, label, name, sched, _), m in per_run.items():
        out.setdefault((factor, label, name, sched), []).append(m)
    return out


def paired(a: list[dict], b: list[dict], key: str) -> tuple[float, float]:
    """Mean and 95 % half width of the per-seed differences ``a - b``."""
    return _ci([x[key] - y[key] for x, y in zip(a, b, strict=True)])


def write(out: Path, rows: dict, seeds: Sequence[int]) -> list[str]:
    """``sensitivity.csv`` and the lines of the table's section."""
    with (out / "sensitivity.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["factor", "value", "preset", "variant", "scheduler"]
            + ["per_flow_bps", "ci95", "aggregate_bps", "jain", "mean_queue"]
        )
        for factor, label, _, _, preset in ROWS:
            for name, _ in VARIANTS:
                for sched in SCHEDULERS:
                    runs = rows[(factor, label, name, sched)]
                    m, h = _ci([r["per_flow_bps"] for r in runs])
                    w.writerow(
                        [factor, label, preset, name, sched, m, h]
                        + [_ci([r[k] for r in runs])[0] for k in ("aggregate_bps", "jain")]
                        + [_ci([r["mean_queue"] for r in runs])[0]]
                    )
    lines = [
        "",
        "## Sensitivity: the choices the paper leaves open",
        "",
        f"One setting changed per row from the presets (marked *), PF unless said; "
        f"{DURATION_S} s runs, seeds {seeds[0]}..{seeds[-1]} ({len(seeds)}), mean ± 95 % CI; "
        "differences paired by seed. L2 - CLAMP: per-flow throughput and Jain's index of "
        "L2-CLAMP minus CLAMP's. PF gain: aggregate throughput under PF minus under round "
        "robin, over round robin's (NewReno / L2-CLAMP).",
        "",
        "| factor | value | CLAMP (Mbit/s) | L2-CLAMP (Mbit/s) | L2 - CLAMP (Mbit/s) "
        "| L2 - CLAMP, Jain | queue CLAMP / L2 (pkts) | PF gain NewReno | PF gain L2-CLAMP |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for factor, label, _, _, preset in ROWS:

        def cell(name: str, sched: str = "pf", f: str = factor, v: str = label) -> list[dict]:
            return rows[(f, v, name, sched)]

        def gain(name: str) -> str:
            base = _ci([r["aggregate_bps"] for r in cell(name, "rr")])[0]
            m, h = paired(cell(name), cell(name, "rr"), "aggregate_bps")
            return f"{m / base:+.1%} ± {h / base:.1%}" if base else "n/a"

        dt = paired(cell("l2clamp"), cell("clamp"), "per_flow_bps")
        dj = paired(cell("l2clamp"), cell("clamp"), "jain")
        qc = _ci([r["mean_queue"] for r in cell("clamp")])[0]
        ql = _ci([r["mean_queue"] for r in cell("l2clamp")])[0]
        lines.append(
            f"| {factor} | {label}{' *' if preset else ''} "
            f"| {_text([r['per_flow_bps'] for r in cell('clamp')], 1e6, '{:.3f}')} "
            f"| {_text([r['per_flow_bps'] for r in cell('l2clamp')], 1e6, '{:.3f}')} "
            f"| {dt[0] / 1e6:+.3f} ± {dt[1] / 1e6:.3f} | {dj[0]:+.3f} ± {dj[1]:.3f} "
            f"| {qc:.1f} / {ql:.1f} | {gain('newreno')} | {gain('l2clamp')} |"
        )
    return lines


def figure(out: Path, rows: dict) -> Path:
    """``sensitivity.png``: per row, L2-CLAMP minus CLAMP in per-flow
    throughput, and PF's gain over round robin, with 95 % CI bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{f}: {v}" for f, v, _, _, _ in ROWS]
    ys = list(range(len(ROWS)))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 0.35 * len(ROWS) + 1.5), sharey=True)
    d = [
        paired(rows[(f, v, "l2clamp", "pf")], rows[(f, v, "clamp", "pf")], "per_flow_bps")
        for f, v, _, _, _ in ROWS
    ]
    a1.errorbar([m / 1e6 for m, _ in d], ys, xerr=[h / 1e6 for _, h in d], fmt="o", capsize=3)
    a1.axvline(0, color="black", lw=0.8)
    a1.axvline(0.05, color="grey", ls="--", lw=0.8, label="paper Fig. 4: +0.05")
    a1.set(xlabel="L2-CLAMP - CLAMP, per-flow throughput (Mbit/s)")
    a1.legend(fontsize=7)
    for i, (name, marker) in enumerate((("newreno", "s"), ("l2clamp", "o"))):
        g = []
        for f, v, _, _, _ in ROWS:
            base = _ci([r["aggregate_bps"] for r in rows[(f, v, name, "rr")]])[0] or 1.0
            m, h = paired(rows[(f, v, name, "pf")], rows[(f, v, name, "rr")], "aggregate_bps")
            g.append((100 * m / base, 100 * h / base))
        a2.errorbar(
            [m for m, _ in g],
            [y + 0.15 * (i - 0.5) for y in ys],
            xerr=[h for _, h in g],
            fmt=marker,
            capsize=3,
            label=name,
        )
    a2.axvline(0, color="black", lw=0.8)
    a2.set(xlabel="PF over round robin, aggregate (%)")
    a2.legend(fontsize=7)
    a1.set_yticks(ys, labels, fontsize=8)
    a1.invert_yaxis()
    fig.tight_layout()
    path = out / "sensitivity.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
