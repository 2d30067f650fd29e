"""Paper 001: Kumar and Shin, DSASync.

Runs the presets of ``scenarios/dsasync`` (one 802.11a 24 Mbit/s cell;
primary users 20 % of the time, each host sensing 5 % of its time, the
whole cell quiet 0.5 %; one bulk flow) over several seeds, downlink and
uplink, for three configurations: regular (no DSASync), DSASync as the
paper describes it (uplink smoothing by Algorithm 4), and DSASync without
the uplink smoothing. It also runs the paper's capacity drop (the cell
switches from a 24 to a 12 Mbit/s channel at t = 5 s, no other
disruption). It writes, into OUT:

- ``table.csv`` / ``table.md``: per direction and configuration, goodput,
  retransmitted traffic and RTOs (mean ± 95 % Student t half width over
  seeds); the gain of each DSASync configuration over regular (mean and
  interval of the per-seed ratios: a seed gives every configuration the
  same TFP schedule, so the comparison is paired); the capacity drop's
  goodput after the switch; and the paper's numbers beside ours;
- ``fig3_goodput_down.png`` / ``fig3_goodput_up.png``: goodput over time
  per configuration, the mean over seeds with its 95 % band;
- ``fig7_capacity_drop.png``: goodput over time around the switch (mean
  over seeds, 95 % band);
- with ``sweeps=True``, ``sweep_utilisation.csv`` / ``.png``: downlink
  goodput against the primary users' utilisation, 0 to 0.8.

Each run's results are kept in ``OUT/runs/<config>/seed-<n>/``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path

import xltcp
from xltcp import runner
from xltcp.reproduce.common import ci as _ci
from xltcp.reproduce.common import pool as _pool
from xltcp.reproduce.common import text as _text
from xltcp.reproduce.common import write_report as _write_report

#: (name, preset stem without the direction, extra overrides, label).
CONFIGS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("regular", "regular", (), "regular"),
    ("dsasync", "dsasync", (), "DSASync"),
    ("dsasync-nosmooth", "dsasync", ('agent.0.smoothing="off"',), "DSASync, no smoothing"),
)

DIRECTIONS = ("down", "up")


#: What the paper reports (single client unless said).
PAPER = {
    "down_gain": 0.74,
    "up_gain": 0.10,
    "retx_regular_mbps": 3.1,
    "retx_dsasync_mbps": 0.018,
}

Progress = Callable[[str], None]


def total_runs(seeds: int, sweeps: bool) -> int:
    """How many runs :func:`reproduce` makes (for a progress bar)."""
    n = len(CONFIGS) * len(DIRECTIONS) * seeds + 2 * seeds
    if sweeps:
        n += 2 * len(UTILISATIONS) * seeds
    return n


def preset(name: str, variant: str) -> Path:
    """The path of a dsasync preset: `variant` is down, up or capacity."""
    return xltcp.scenarios_dir() / "dsasync" / f"{name}-{variant}.toml"


def _metrics(summary: dict) -> dict:
    flow = summary["flows"][0]
    mss = int(str(summary["scenario"]["flow"][0]["tcp"]["mss"]).rstrip("B"))
    dur = summary["duration_s"]
    return {
        "goodput_bps": flow["goodput_bps"],
        "retx_bps": flow["retransmissions"] * mss * 8 / dur,
        "rto_count": float(flow["rto_count"]),
    }


def run_all(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> dict[tuple[str, str], list[dict]]:
    """Every configuration, direction and seed: per (config, dir), metrics per seed."""
    tasks = {}
    with _pool(jobs) as pool:
        for direction in DIRECTIONS:
            for name, stem, extra, label in CONFIGS:
                for seed in seeds:
                    if progress:
                        progress(f"{label} {direction} seed {seed}")
                    run_dir = out / "runs" / f"{name}-{direction}" / f"seed-{seed}"
                    args = (preset(stem, direction), seed, run_dir, [*overrides, *extra])
                    tasks[(name, direction, seed)] = pool.submit(runner.run_one, *args)
    results: dict[tuple[str, str], list[dict]] = {}
    for (name, direction, seed), task in tasks.items():
        row = {"seed": seed, **_metrics(task.result())}
        results.setdefault((name, direction), []).append(row)
    return results


def run_capacity_drop(
    seeds: Sequence[int], out: Path, overrides: Sequence[str], progress: Progress | None
) -> dict[str, list[float]]:
    """Downlink goodput after the switch (5-20 s), regular and DSASync."""
    after: dict[str, list[float]] = {}
    for name in ("regular", "dsasync"):
        values = []
        for seed in seeds:
            if progress:
                progress(f"capacity drop {name} seed {seed}")
            run_dir = out / "runs" / f"capacity-{name}" / f"seed-{seed}"
            runner.run_one(preset(name, "capacity"), seed, run_dir, list(overrides))
            rows = _series(run_dir)
            late = [g for t, g in zip(rows["time_s"], rows["goodput_bps"], strict=True) if t > 5.0]
            values.append(sum(late) / max(len(late), 1))
        after[name] = values
    return after


#: PU utilisations of the sweep (mean ON + OFF period 2.5 s).
UTILISATIONS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def run_sweep(
    seeds: Sequence[int], overrides: Sequence[str], progress: Progress | None
) -> list[dict]:
    """Downlink goodput against the PU utilisation, regular and DSASync."""
    rows = []
    for u in UTILISATIONS:
        if u == 0.0:
            # Available for longer than any run.
            pu = ['wireless.availability.on="1000000s"', 'wireless.availability.off="1s"']
        else:
            pu = [
                f'wireless.availability.on="exp({2.5 * (1 - u):.3f}s)"',
                f'wireless.availability.off="exp({2.5 * u:.3f}s)"',
            ]
        for name in ("regular", "dsasync"):
            values = []
            for seed in seeds:
                if progress:
                    progress(f"utilisation {u} {name} seed {seed}")
                s = runner.run_one(preset(name, "down"), seed, None, [*overrides, *pu])
                values.append(s["flows"][0]["goodput_bps"])
            mean, half = _ci(values)
            rows.append({"utilisation": u, "config": name, "goodput_bps": mean, "ci95": half})
    return rows


def _series(run_dir: Path) -> dict[str, list[float]]:
    path = next((run_dir / "timeseries").glob("*.csv"))
    with path.open() as f:
        rows = list(csv.DictReader(f))
    return {
        "time_s": [float(r["time_s"]) for r in rows],
        "goodput_bps": [float(r["goodput_bps"]) for r in rows],
    }


def _gain(results, name: str, direction: str) -> tuple[float, float]:
    base = results[("regular", direction)]
    other = results[(name, direction)]
    ratios = [o["goodput_bps"] / b["goodput_bps"] - 1 for o, b in zip(other, base, strict=True)]
    return _ci(ratios)


def write_table(results, after, out: Path, seeds: Sequence[int], sweep: list[dict]) -> list:
    """table.csv, table.md; returns the checks (target, met, measured)."""
    lines = [
        "# DSASync (Kumar and Shin): reproduction",
        "",
        f"Seeds {seeds[0]}..{seeds[-1]} ({len(seeds)}), mean ± 95 % CI; 20 s runs.",
        "",
        "| direction | configuration | goodput (Mbit/s) | retransmitted (Mbit/s) | RTOs "
        "| gain over regular |",
        "|---|---|---|---|---|---|",
    ]
    with (out / "table.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["direction", "config", "goodput_bps", "ci95", "retx_bps", "rto", "gain", "gain_ci95"]
        )
        for direction in DIRECTIONS:
            for name, _, _, label in CONFIGS:
                rows = results[(name, direction)]
                g = [r["goodput_bps"] for r in rows]
                x = [r["retx_bps"] for r in rows]
                o = [r["rto_count"] for r in rows]
                gain = (
                    ""
                    if name == "regular"
                    else "{:+.1%} ± {:.1%}".format(*_gain(results, name, direction))
                )
                lines.append(
                    f"| {direction} | {label} | {_text(g, 1e6, '{:.2f}')} | "
                    f"{_text(x, 1e6, '{:.3f}')} | {_text(o, 1, '{:.1f}')} | {gain} |"
                )
                gm, gh = _ci(g)
                gn, gnh = _gain(results, name, direction) if name != "regular" else (0.0, 0.0)
                w.writerow([direction, name, gm, gh, _ci(x)[0], _ci(o)[0], gn, gnh])
    down_gain = _gain(results, "dsasync", "down")[0]
    up_gain = _gain(results, "dsasync", "up")[0]
    retx_reg = _ci([r["retx_bps"] for r in results[("regular", "down")]])[0]
    retx_dsa = _ci([r["retx_bps"] for r in results[("dsasync", "down")]])[0]
    reg_after = _ci(after["regular"])[0]
    dsa_after = _ci(after["dsasync"])[0]
    checks = [
        ("downlink gain >= +74 %", down_gain >= 0.74, f"{down_gain:+.1%}"),
        ("uplink gain >= +10 %", up_gain >= 0.10, f"{up_gain:+.1%}"),
        (
            "retransmitted downlink traffic: DSASync far below regular (paper 0.018 vs 3.1 Mbit/s)",
            retx_dsa < 0.1 * retx_reg,
            f"{retx_dsa / 1e6:.3f} vs {retx_reg / 1e6:.3f} Mbit/s",
        ),
        (
            "after a 24 -> 12 Mbit/s switch, DSASync keeps at least regular's goodput",
            dsa_after >= reg_after,
            f"{dsa_after / 1e6:.2f} vs {reg_after / 1e6:.2f} Mbit/s",
        ),
    ]
    lines += [
        "",
        "Capacity drop (24 -> 12 Mbit/s at 5 s, no other disruption), downlink "
        f"goodput after the switch: regular {_text(after['regular'], 1e6, '{:.2f}')}, "
        f"DSASync {_text(after['dsasync'], 1e6, '{:.2f}')} Mbit/s.",
        "",
        "Paper: downlink +74 %, retransmitted traffic 0.018 vs 3.1 Mbit/s, "
        "uplink +10 %; after the switch no drop beyond the capacity loss.",
        "",
        "| target | met | measured |",
        "|---|---|---|",
    ]
    lines += [f"| {t} | {'yes' if m else 'no'} | {s} |" for t, m, s in checks]
    if sweep:
        lines += ["", "Downlink goodput vs PU utilisation: `sweep_utilisation.csv`."]
    (out / "table.md").write_text("\n".join(lines) + "\n")
    return checks


def figures(out: Path, seeds: Sequence[int], sweep: list[dict]) -> list[Path]:
    """Goodput over time per direction and the capacity drop (mean over
    ``seeds`` with its 95 % band); the sweep (means with 95 % error bars)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import band_line, sweep_line

    def runs(folder: str) -> tuple[list[float], list[list[float]]]:
        series = [_series(out / "runs" / folder / f"seed-{seed}") for seed in seeds]
        t = max((s["time_s"] for s in series), key=len)
        return t, [[g / 1e6 for g in s["goodput_bps"]] for s in series]

    span = f"seeds {seeds[0]}..{seeds[-1]}" if len(seeds) > 1 else f"seed {seeds[0]}"
    paths = []
    for direction in DIRECTIONS:
        fig, ax = plt.subplots(figsize=(7, 3.5))
        for i, (name, _, _, label) in enumerate(CONFIGS):
            band_line(ax, *runs(f"{name}-{direction}"), i, label)
        ax.set(
            xlabel="time (s)",
            ylabel="goodput (Mbit/s)",
            title=f"{direction}link, mean of {span}, band: 95 % CI",
        )
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = out / f"fig3_goodput_{direction}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for i, name in enumerate(("regular", "dsasync")):
        band_line(ax, *runs(f"capacity-{name}"), i, name)
    ax.axvline(5.0, color="grey", lw=0.8)
    ax.set(
        xlabel="time (s)",
        ylabel="goodput (Mbit/s)",
        title=f"24 -> 12 Mbit/s at 5 s, mean of {span}, band: 95 % CI",
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "fig7_capacity_drop.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    paths.append(path)
    if sweep:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for i, name in enumerate(("regular", "dsasync")):
            rows = [r for r in sweep if r["config"] == name]
            u = [r["utilisation"] for r in rows]
            g = [r["goodput_bps"] / 1e6 for r in rows]
            h = [r["ci95"] / 1e6 for r in rows]
            sweep_line(ax, u, g, h, i, name)
        ax.set(
            xlabel="PU utilisation",
            ylabel="downlink goodput (Mbit/s)",
            title=f"mean of {span}, 95 % CI",
        )
        ax.legend()
        fig.tight_layout()
        path = out / "sweep_utilisation.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


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
    out.mkdir(parents=True, exist_ok=True)
    results = run_all(seeds, out, overrides, progress, jobs)
    after = run_capacity_drop(seeds, out, overrides, progress)
    sweep = run_sweep(seeds, overrides, progress) if sweeps else []
    if sweep:
        with (out / "sweep_utilisation.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["utilisation", "config", "goodput_bps", "ci95"])
            w.writeheader()
            w.writerows(sweep)
    checks = write_table(results, after, out, seeds, sweep)
    figures(out, seeds, sweep)
    report = {
        "paper": "dsasync",
        "seeds": list(seeds),
        "results": {f"{n}-{d}": rows for (n, d), rows in results.items()},
        "capacity_drop_after_bps": after,
    }
    if sweep:
        report["sweep"] = sweep
    return _write_report(out, report, checks)
