"""Paper 002 beyond the paper: Snoop, SNACK and C-Snoop against the other
disruptions xltcp models.

Kim and Chung measure their schemes against random burst loss only. Here
the same four variants (plain TCP, Snoop, SNACK, C-Snoop, placed as in the
``scenarios/kim-chung`` presets, SACK on for all) meet:

- **a primary user on the 802.11b cell**: the kim-chung presets with the
  primary-user ON/OFF process of paper 000 (exponential, 4 s mean each
  way) that blocks the channel, first with no burst loss (blockage alone),
  then with the paper's 5 % bursts; both directions;
- **the 802.15.4 hop of paper 000**: ``scenarios/byun2016/newreno.toml``
  (standard family, MAC retries) and ``scenarios/byun2016/paper/newreno.toml``
  (paper family, no MAC ARQ), the sensor's upload, with SACK turned on so
  that SNACK has its blocks; beside them C-Snoop composed with paper 000's
  CR-aware sender, and paper 000's own TCP-LR+CR (with SACK too).

Overrides given to ``xltcp reproduce kim-chung`` reach the 802.11b runs
whole; the 802.15.4 runs take only the ``sim.`` and ``tcp.`` ones (the
others name 802.11b keys).

Writes ``beyond.csv``, ``beyond.md`` (also appended to ``table.md`` by the
caller) and ``fig_beyond.png``; runs go to ``OUT/runs/beyond/...``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import xltcp
from xltcp import runner
from xltcp.reproduce.common import ci, pool, text

#: The variants: (key, label, agent overrides, other overrides).
_SACK = ["tcp.sack=true", 'tcp.recovery="sack"']


def _agents(*entries: tuple[str, str]) -> list[str]:
    items = ",".join(f'{{scheme="{s}",at="{a}"}}' for s, a in entries)
    return [f"agent=[{items}]"] if entries else []


VARIANTS: tuple[tuple[str, str, list[str]], ...] = (
    ("tcp", "TCP", []),
    ("snoop", "Snoop", _agents(("snoop", "bs"))),
    # SNACK reads the host's SACK blocks: SACK offered, as its presets do.
    ("snack", "SNACK", [*_agents(("snack", "bs"), ("snack", "hosts")), "tcp.sack=true"]),
    ("c-snoop", "C-Snoop", _agents(("c_snoop", "bs"), ("c_snoop", "hosts"))),
)

#: Extra rows on the 802.15.4 hop: paper 000's sender composed with C-Snoop,
#: and paper 000's best scheme.
LRWPAN_EXTRA: tuple[tuple[str, str, list[str]], ...] = (
    (
        "c-snoop-cr",
        "C-Snoop + CR-aware TCP",
        [*_agents(("c_snoop", "bs"), ("c_snoop", "hosts")), "schemes.cr_aware=true"],
    ),
    (
        "tcp-lr-cr",
        "TCP-LR+CR (paper 000)",
        ["schemes.cr_aware=true", 'schemes.local_recovery="tcp"'],
    ),
)

_PU = [
    'wireless.availability.model="onoff"',
    'wireless.availability.on="exp(4s)"',
    'wireless.availability.off="exp(4s)"',
]


def _settings() -> list[tuple[str, str, str, Path, list[str], tuple]]:
    """(key, label, direction, base scenario, overrides, variants)."""
    kc = xltcp.scenarios_dir() / "kim-chung"
    by = xltcp.scenarios_dir() / "byun2016"
    out = []
    for d in ("down", "up"):
        base = kc / f"tcp-{d}.toml"
        out.append(
            (
                f"11b-pu-{d}",
                "802.11b, primary user",
                d,
                base,
                [*_PU, "wireless.loss.down.mean_loss=0", "wireless.loss.up.mean_loss=0"],
                VARIANTS,
            )
        )
        out.append(
            (f"11b-pu-burst-{d}", "802.11b, primary user + 5 % bursts", d, base, _PU, VARIANTS)
        )
    for fam, path in (("standard", by / "newreno.toml"), ("paper", by / "paper" / "newreno.toml")):
        label = f"802.15.4 {fam} family, primary user"
        extra = LRWPAN_EXTRA if fam == "standard" else _held(LRWPAN_EXTRA)
        out.append((f"lrwpan-{fam}", label, "up", path, list(_SACK), VARIANTS + extra))
    return out


def _held(variants: tuple[tuple[str, str, list[str]], ...]) -> tuple:
    """The CR-aware rows as the paper family's CR presets run them: the MAC
    held from the detector's pu_start to its pu_stop (``mac_hold``; the
    family's base, ``paper/newreno.toml``, is a non-CR row and does not)."""
    return tuple(
        (key, label, [*sets, "schemes.mac_hold=true"] if "schemes.cr_aware=true" in sets else sets)
        for key, label, sets in variants
    )


def total_runs(seeds: int) -> int:
    """How many runs :func:`run` makes."""
    return seeds * sum(len(s[5]) for s in _settings())


def _metrics(summary: dict) -> dict:
    flow = summary["flows"][0]
    local = summary.get("local_retransmissions", {})
    return {
        "goodput_bps": flow["goodput_bps"],
        "rto_count": float(flow["rto_count"]),
        "local_delivered": float(local.get("delivered", 0)),
        "unnecessary": float(local.get("unnecessary", 0)),
    }


def _for_lrwpan(overrides: Sequence[str]) -> list[str]:
    return [o for o in overrides if o.startswith(("sim.", "tcp."))]


def run(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Callable[[str], None] | None,
    jobs: int | None,
) -> dict[tuple[str, str], list[dict]]:
    """Every setting, variant and seed: metrics per seed, keyed by
    (setting, variant)."""
    tasks = {}
    with pool(jobs, progress) as p:
        for key, _, _, base, sets, variants in _settings():
            user = _for_lrwpan(overrides) if key.startswith("lrwpan") else list(overrides)
            for vkey, vlabel, vsets in variants:
                for seed in seeds:
                    run_dir = out / "runs" / "beyond" / f"{key}-{vkey}" / f"seed-{seed}"
                    args = (base, seed, run_dir, [*sets, *vsets, *user])
                    what = f"beyond: {key} {vlabel} seed {seed}"
                    tasks[(key, vkey, seed)] = p.run(what, runner.run_one, *args)
    results: dict[tuple[str, str], list[dict]] = {}
    for (key, vkey, _), task in tasks.items():
        results.setdefault((key, vkey), []).append(_metrics(task.result()))
    return results


def _goodput(results, key: str, vkey: str) -> float:
    return ci([r["goodput_bps"] for r in results[(key, vkey)]])[0]


def write(results, out: Path) -> list[str]:
    """``beyond.csv`` and ``beyond.md``; returns the Markdown lines."""
    lines = [
        "",
        "## Beyond the paper: other disruptions",
        "",
        "Mean ± 95 % CI over seeds. 'x TCP' is the ratio of the mean goodputs to plain "
        "TCP's in the same setting (the 802.11b rows as the presets, SACK only for "
        "SNACK; the 802.15.4 rows SACK on). Primary user: ON/OFF, "
        "exp(4 s) each way, as paper 000.",
        "",
        "| setting | dir | variant | goodput (kbit/s) | x TCP | RTOs | local rxmits "
        "| unnecessary |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with (out / "beyond.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["setting", "direction", "variant", "goodput_bps", "ci95", "vs_tcp"]
            + ["rto_count", "local_retransmissions", "unnecessary"]
        )
        for key, label, d, _, _, variants in _settings():
            base = _goodput(results, key, "tcp")
            for vkey, vlabel, _ in variants:
                rows = results[(key, vkey)]
                col = {k: [r[k] for r in rows] for k in rows[0]}
                m, h = ci(col["goodput_bps"])
                ratio = m / base if base > 0 else math.inf
                lines.append(
                    f"| {label} | {d} | {vlabel} | {text(col['goodput_bps'], 1e3, '{:.1f}')} | "
                    f"{ratio:.2f} | {ci(col['rto_count'])[0]:.1f} | "
                    f"{ci(col['local_delivered'])[0]:.0f} | {ci(col['unnecessary'])[0]:.1f} |"
                )
                w.writerow(
                    [key, d, vkey, m, "" if math.isnan(h) else h, ratio]
                    + [ci(col[k])[0] for k in ("rto_count", "local_delivered", "unnecessary")]
                )
    lines += ["", *_where_each_helps(results)]
    (out / "beyond.md").write_text("\n".join(lines[1:]) + "\n")
    return lines


def _where_each_helps(results) -> list[str]:
    """One line per setting: the best of the four and each scheme's gain
    over plain TCP, from the measurements."""
    lines = []
    for key, label, d, _, _, variants in _settings():
        base = _goodput(results, key, "tcp")
        gains = []
        for vkey, vlabel, _ in variants[1:]:
            g = _goodput(results, key, vkey)
            gains.append(f"{vlabel} {g / base:.2f}x" if base > 0 else f"{vlabel} n/a")
        best = max(VARIANTS, key=lambda v: _goodput(results, key, v[0]))
        lines.append(f"- {label}, {d}: best of the four {best[1]}; vs TCP: {', '.join(gains)}")
    return lines


def figure(results, out: Path) -> Path:
    """Goodput per variant in each setting, normalised to plain TCP, with
    95 % CI bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings = _settings()
    fig, axes = plt.subplots(1, len(settings), figsize=(2.6 * len(settings), 4), sharey=True)
    for ax, (key, label, d, _, _, variants) in zip(axes, settings, strict=True):
        base = _goodput(results, key, "tcp")
        xs = range(len(variants))
        means, halves = [], []
        for vkey, _, _ in variants:
            m, h = ci([r["goodput_bps"] for r in results[(key, vkey)]])
            means.append(m / base if base > 0 else 0.0)
            halves.append(0.0 if math.isnan(h) or base <= 0 else h / base)
        colours = [f"C{i}" for i in xs]
        ax.bar(xs, means, yerr=halves, capsize=3, color=colours)
        ax.set_xticks(list(xs), [v[1] for v in variants], rotation=60, ha="right", fontsize=7)
        ax.axhline(1.0, color="0.5", lw=0.8, ls=":")
        ax.set_title(f"{label}\n{d}link", fontsize=8)
    axes[0].set_ylabel("goodput / plain TCP's")
    fig.tight_layout()
    path = out / "fig_beyond.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
