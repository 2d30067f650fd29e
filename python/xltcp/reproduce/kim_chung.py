"""Paper 002: Kim and Chung, C-Snoop against Snoop and SNACK.

Runs the presets of ``scenarios/kim-chung`` (FH - BS - MH over an 802.11b
11 Mbit/s cell; a Gilbert-Elliott process per direction drops 5 % of the
packets, TCP data and ACKs alike, in bursts; the fixed host's TCP as ns-2's
NewReno agent; 100 s; 0.6 W transmitting, 0.3 W receiving, a 100 J
battery) for
plain TCP, Snoop, SNACK (our documented reconstruction) and C-Snoop, both
directions, over several seeds, and writes, into OUT:

- ``table.csv`` / ``table.md``: at 5 % burst loss, per direction and
  variant: throughput, the MH's energy, energy efficiency (bits delivered
  per joule the MH spent), local retransmissions and the unnecessary ones
  (segments the receiver already had), each as mean ± 95 % Student t half
  width over seeds; C-Snoop's ratio to SNACK and to Snoop (ratios of the
  means, with a 95 % interval paired by seed: a seed gives every variant the
  same loss pattern); the paper's numbers beside ours and the checks of its
  targets; and the energy table: the MH's joules in the paper's model
  (ns-2's per-frame charges, ``[wireless.energy] model = "ns2"``, as the
  presets set it) and in our time-based one, the BS's, and Eq. 2's
  efficiency (throughput in kbit/s over the MH's joules) with C-Snoop's
  gain, beside the paper's 26 / 31 / 39 J and 20-90 %, with sensitivity
  rows for an idle draw (:data:`IDLE_SENSITIVITY`);
- with ``--sweeps``, sensitivity rows at 5 %: a mean burst of 6 packets, a
  1 s minimum RTO, RTS/CTS on every data frame (choices the paper leaves
  open), each with its ranking;
- ``fig_throughput.png`` / ``fig_efficiency.png`` (with ``--sweeps``):
  throughput and energy efficiency against the burst loss rate, 0-10 %,
  both directions, with 95 % CI bars, in the paper's layout;
- ``beyond.md`` / ``beyond.csv`` / ``fig_beyond.png`` (with ``--sweeps``):
  the four variants against a primary user on the 802.11b cell and on the
  802.15.4 hop of paper 000 (:mod:`xltcp.reproduce.kim_chung_beyond`).

Each run's results are kept in ``OUT/runs/<variant>-<dir>/seed-<n>/``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import xltcp
from xltcp import runner
from xltcp.reproduce import cc_table
from xltcp.reproduce import kim_chung_beyond as beyond
from xltcp.reproduce.common import checks_table, ci, pool, text, write_report

#: (preset stem, label), the paper's baselines first.
VARIANTS: tuple[tuple[str, str], ...] = (
    ("tcp", "TCP"),
    ("snoop", "Snoop"),
    ("snack", "SNACK"),
    ("c-snoop", "C-Snoop"),
)

DIRECTIONS = ("down", "up")

#: Burst loss rates of the sweeps.
LOSS_RATES = (0.0, 0.01, 0.02, 0.05, 0.1)

#: What the paper reports at 5 % burst loss (read as REPRODUCTION.md says:
#: C-Snoop 2.1, SNACK 1.2, Snoop 0.9 Mbit/s; energy 26, 31, 39 J).
PAPER_5PCT = {
    "c-snoop": (2.1e6, 26.0),
    "snack": (1.2e6, 31.0),
    "snoop": (0.9e6, 39.0),
}

#: The paper's 5 % ratios (C-Snoop 2.1 over SNACK 1.2 and Snoop 0.9).
PAPER_RATIOS = {"snack": 2.1 / 1.2, "snoop": 2.1 / 0.9}

#: Every run charges energy as the paper's ns-2 (2.35, ``WirelessPhy``):
#: 0.6 W x airtime sent, 0.3 W x airtime heard, each frame at its start
#: from the end of the last one charged (the presets set it; said here
#: again so that a scenario given with other settings keeps it). It
#: changes no packet's fate; the time-based joules are still derived from
#: the time per state (``_metrics``).
ENERGY = ('wireless.energy.model="ns2"',)

#: Idle draws for the energy table's sensitivity rows, with where each
#: comes from; neither is the paper's (it names none) nor ns-2's default
#: (``P_idle_ = 0.0`` in ns-2.35's ``mac/wireless-phy.cc``). An idle draw
#: changes no packet's fate, so each row is the same runs' per-packet
#: joules plus the watts times the MH's time idle.
IDLE_SENSITIVITY: tuple[tuple[float, str], ...] = (
    (0.035, "ns-2's commented-out P_idle_"),
    (0.26, "the meter's default idle draw"),
)

#: Sensitivity settings (``--sweeps``): label and overrides, at 5 %.
SENSITIVITY: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "mean burst 6 packets",
        ("wireless.loss.down.mean_burst=6", "wireless.loss.up.mean_burst=6"),
    ),
    ("minimum RTO 1 s (RFC 6298)", ("tcp.min_rto=1s",)),
    ("RTS/CTS on every data frame", ("wireless.rts_threshold=0",)),
)

#: The schemes the sensitivity rows compare.
SCHEMES = ("snoop", "snack", "c-snoop")

Progress = Callable[[str], None]


def total_runs(seeds: int, sweeps: bool) -> int:
    """How many runs :func:`reproduce` makes (for a progress bar)."""
    n = len(VARIANTS) * len(DIRECTIONS) * seeds
    if sweeps:
        n += (len(LOSS_RATES) - 1) * len(VARIANTS) * len(DIRECTIONS) * seeds
        n += len(SENSITIVITY) * len(SCHEMES) * len(DIRECTIONS) * seeds
        n += beyond.total_runs(seeds)
        n += cc_table.total_runs(CC_COMPARISONS, seeds)
    return n


def preset(variant: str, direction: str) -> Path:
    """The path of a kim-chung preset."""
    return xltcp.scenarios_dir() / "kim-chung" / f"{variant}-{direction}.toml"


#: ``--sweeps``: the three schemes against plain TCP on the downlink under
#: other congestion controls (:mod:`xltcp.reproduce.cc_table`).
CC_COMPARISONS = (
    cc_table.Comparison(
        ("TCP", preset("tcp", "down")),
        tuple((v, preset(v.lower(), "down")) for v in ("Snoop", "SNACK", "C-Snoop")),
    ),
)


def _loss(p: float) -> list[str]:
    """Both directions' loss rate (the presets' is 5 %)."""
    return [f"wireless.loss.{d}.mean_loss={p}" for d in DIRECTIONS] if p != 0.05 else []


def _time_joules(station: dict, power: dict) -> float:
    """A station's joules in the time-based model: each state's power over
    the time in it (the summary counts the time either way)."""
    return sum(station[f"{k}_s"] * power[f"{k}_w"] for k in ("tx", "rx", "idle", "sleep"))


def _metrics(summary: dict) -> dict:
    flow = summary["flows"][0]
    # The BS is station 0, the mobile host station 1.
    bs, mh_station = summary["wifi"]["stations"][:2]
    mh = mh_station["energy_j"]
    power = summary["scenario"]["wireless"]["energy"]
    local = summary.get("local_retransmissions", {})
    return {
        "goodput_bps": flow["goodput_bps"],
        "mh_energy_j": mh,
        "mh_energy_time_j": _time_joules(mh_station, power),
        "bs_energy_j": bs["energy_j"],
        "mh_idle_s": mh_station["idle_s"],
        "efficiency_bpj": 8 * flow["bytes_delivered"] / mh if mh > 0 else 0.0,
        # Eq. 2: throughput (kbit/s) over consumed energy (J).
        "eta_kbps_per_j": flow["goodput_bps"] / 1e3 / mh if mh > 0 else 0.0,
        "local_delivered": float(local.get("delivered", 0)),
        "unnecessary": float(local.get("unnecessary", 0)),
    }


def run_grid(
    seeds: Sequence[int],
    out: Path,
    losses: Sequence[float],
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None,
) -> dict[tuple[str, str, float], list[dict]]:
    """Every variant, direction, loss rate and seed: metrics per seed."""
    tasks = {}
    with pool(jobs, progress) as p:
        for loss in losses:
            for direction in DIRECTIONS:
                for variant, label in VARIANTS:
                    for seed in seeds:
                        tag = "" if loss == 0.05 else f"-loss{loss:g}"
                        run_dir = out / "runs" / f"{variant}-{direction}{tag}" / f"seed-{seed}"
                        sets = [*ENERGY, *overrides, *_loss(loss)]
                        args = (preset(variant, direction), seed, run_dir, sets)
                        what = f"{label} {direction} {loss:.0%} seed {seed}"
                        tasks[(variant, direction, loss, seed)] = p.run(what, runner.run_one, *args)
    results: dict[tuple[str, str, float], list[dict]] = {}
    for (variant, direction, loss, _), task in tasks.items():
        results.setdefault((variant, direction, loss), []).append(_metrics(task.result()))
    return results


def _ratio(results, a: str, b: str, direction: str, loss: float = 0.05) -> float:
    """Ratio of the mean throughputs (a seed where one variant collapses
    would dominate a mean of per-seed ratios)."""
    x = _mean(results, (a, direction, loss), "goodput_bps")
    y = _mean(results, (b, direction, loss), "goodput_bps")
    return x / y if y > 0 else math.inf


def ratio_ci(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """mean(x) / mean(y) and its 95 % half width, paired by seed (delta
    method: the t interval of x_i - R y_i, over mean(y))."""
    my = ci(y)[0]
    if my <= 0:
        return math.inf, math.nan
    r = ci(x)[0] / my
    return r, ci([a - r * b for a, b in zip(x, y, strict=True)])[1] / my


def _ratio_text(results, a: str, b: str, direction: str, loss: float = 0.05) -> str:
    x = [r["goodput_bps"] for r in results[(a, direction, loss)]]
    y = [r["goodput_bps"] for r in results[(b, direction, loss)]]
    r, h = ratio_ci(x, y)
    return f"{r:.2f}" if math.isnan(h) else f"{r:.2f} ± {h:.2f}"


def _mean(results, key: tuple, metric: str) -> float:
    return ci([r[metric] for r in results[key]])[0]


def _eff_gain(results, a: str, b: str, direction: str) -> float:
    x = _mean(results, (a, direction, 0.05), "efficiency_bpj")
    y = _mean(results, (b, direction, 0.05), "efficiency_bpj")
    return x / y - 1


def checks(results, sweeps: bool) -> list[tuple[str, bool, str]]:
    """The paper's targets against the measurements."""
    out = []
    for d in DIRECTIONS:
        vs_snack = _ratio(results, "c-snoop", "snack", d)
        vs_snoop = _ratio(results, "c-snoop", "snoop", d)
        out.append((f"{d}: C-Snoop >= 1.75x SNACK at 5 %", vs_snack >= 1.75, f"{vs_snack:.2f}x"))
        out.append((f"{d}: C-Snoop >= 2.3x Snoop at 5 %", vs_snoop >= 2.3, f"{vs_snoop:.2f}x"))
        gains = [_eff_gain(results, "c-snoop", b, d) for b in ("snack", "snoop")]
        out.append(
            (
                f"{d}: C-Snoop's energy efficiency 20-90 % above SNACK's and Snoop's",
                all(0.2 <= g for g in gains),
                ", ".join(f"{g:+.0%}" for g in gains),
            )
        )
        unn = _mean(results, ("c-snoop", d, 0.05), "unnecessary")
        loc = _mean(results, ("c-snoop", d, 0.05), "local_delivered")
        out.append(
            (
                f"{d}: C-Snoop's unnecessary local retransmissions near zero (< 1 %)",
                loc == 0 or unn / loc < 0.01,
                f"{unn:.1f} of {loc:.0f}",
            )
        )
    if sweeps:
        above = all(
            _mean(results, ("c-snoop", d, p), "goodput_bps")
            >= max(_mean(results, (b, d, p), "goodput_bps") for b in ("snack", "snoop"))
            for d in DIRECTIONS
            for p in LOSS_RATES
            if p > 0
        )
        out.append(("C-Snoop above SNACK and Snoop at every loss rate, both ways", above, ""))
    return out


def write_table(results, out: Path, seeds: Sequence[int], sweeps: bool) -> list:
    """table.csv, table.md; returns the checks."""
    lines = [
        "# C-Snoop (Kim and Chung): reproduction",
        "",
        f"Seeds {seeds[0]}..{seeds[-1]} ({len(seeds)}), mean ± 95 % CI; 100 s runs, "
        "5 % burst loss both ways (mean burst 3), the FH's TCP as ns-2's NewReno. "
        "SNACK is a reconstruction (see its module doc).",
        "",
        "| direction | variant | throughput (Mbit/s) | MH energy (J) | efficiency (Mbit/J) "
        "| local rxmits | unnecessary | paper: Mbit/s, J |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with (out / "table.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["direction", "variant", "goodput_bps", "ci95", "mh_energy_j", "efficiency_bpj"]
            + ["local_retransmissions", "unnecessary"]
            + ["mh_energy_time_j", "bs_energy_j", "eta_kbps_per_j"]
        )
        for d in DIRECTIONS:
            for variant, label in VARIANTS:
                rows = results[(variant, d, 0.05)]
                col = {k: [r[k] for r in rows] for k in rows[0]}
                paper = PAPER_5PCT.get(variant)
                ptext = f"{paper[0] / 1e6:.1f}, {paper[1]:.0f}" if paper and d == "down" else ""
                lines.append(
                    f"| {d} | {label} | {text(col['goodput_bps'], 1e6, '{:.2f}')} | "
                    f"{text(col['mh_energy_j'], 1, '{:.1f}')} | "
                    f"{text(col['efficiency_bpj'], 1e6, '{:.2f}')} | "
                    f"{ci(col['local_delivered'])[0]:.0f} | {ci(col['unnecessary'])[0]:.1f} | "
                    f"{ptext} |"
                )
                m, h = ci(col["goodput_bps"])
                w.writerow(
                    [d, variant, m, "" if math.isnan(h) else h]
                    + [ci(col[k])[0] for k in ("mh_energy_j", "efficiency_bpj")]
                    + [ci(col[k])[0] for k in ("local_delivered", "unnecessary")]
                    + [ci(col[k])[0] for k in ("mh_energy_time_j", "bs_energy_j", "eta_kbps_per_j")]
                )
    lines.append("")
    for d in DIRECTIONS:
        a = _ratio_text(results, "c-snoop", "snack", d)
        b = _ratio_text(results, "c-snoop", "snoop", d)
        lines.append(
            f"- {d}: C-Snoop / SNACK {a} (paper {PAPER_RATIOS['snack']:.2f}), "
            f"C-Snoop / Snoop {b} (paper {PAPER_RATIOS['snoop']:.2f}); ratios of means, "
            "95 % CI paired by seed"
        )
    lines += energy_lines(results)
    found = checks(results, sweeps)
    lines += checks_table(found)
    (out / "table.md").write_text("\n".join(lines) + "\n")
    return found


def energy_lines(results) -> list[str]:
    """The energy table at 5 %: the MH's joules in the paper's model and in
    ours, the BS's, Eq. 2's efficiency and C-Snoop's gain, beside the
    paper's figures."""
    lines = [
        "",
        "## Energy at 5 % burst loss (section 4.1, Eq. 2, Fig. 14)",
        "",
        "The paper gives the MH 100 J and charges 0.6 W per packet sent and 0.3 W per "
        "packet received; its 26 / 31 / 39 J are the MH's (read as C-Snoop, SNACK, Snoop), "
        "in a direction it does not name. Per packet: each frame at its start, from the end "
        "of the last one charged (ns-2.35's WirelessPhy); time: each state's power over the "
        "time in it. "
        "η = throughput / MH energy (Eq. 2, kbit/s per J); gain = C-Snoop's η over the "
        "row's − 1 (ratio of means, 95 % CI paired by seed).",
        "",
        "| direction | variant | MH J, per packet | MH J, time | BS J, per packet "
        "| η (kbit/s/J) | C-Snoop's η gain | paper: MH J, η |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d in DIRECTIONS:
        top = [r["eta_kbps_per_j"] for r in results[("c-snoop", d, 0.05)]]
        for variant, label in VARIANTS:
            rows = results[(variant, d, 0.05)]
            col = {k: [r[k] for r in rows] for k in rows[0]}
            gain = ""
            if variant != "c-snoop":
                g, h = ratio_ci(top, col["eta_kbps_per_j"])
                gain = f"{g - 1:+.0%}" + ("" if math.isnan(h) else f" ± {h:.0%}")
            paper = PAPER_5PCT.get(variant)
            ptext = f"{paper[1]:.0f}, {paper[0] / 1e3 / paper[1]:.1f}" if paper else ""
            lines.append(
                f"| {d} | {label} | {text(col['mh_energy_j'], 1, '{:.2f}')} | "
                f"{text(col['mh_energy_time_j'], 1, '{:.2f}')} | "
                f"{text(col['bs_energy_j'], 1, '{:.2f}')} | "
                f"{text(col['eta_kbps_per_j'], 1, '{:.1f}')} | {gain} | {ptext} |"
            )
    paper_gain = [
        PAPER_5PCT["c-snoop"][0] / PAPER_5PCT["c-snoop"][1] / (t / j) - 1
        for t, j in (PAPER_5PCT["snack"], PAPER_5PCT["snoop"])
    ]
    lines += [
        "",
        "- The paper's gain: 20-90 % over its loss rates (Fig. 14); its own 5 % figures "
        f"give {paper_gain[0]:+.0%} over SNACK and {paper_gain[1]:+.0%} over Snoop.",
        "- The paper lists the 5 % throughputs in the reverse of its own ranking "
        '("C-Snoop, SNACK and Snoop are respectively about 0.9 Mbps, 1.2 Mbps and '
        '2.1 Mbps"); read with the joules reversed the same way (Snoop 26, SNACK 31, '
        f"C-Snoop 39 J) η is {900 / 26:.1f} / {1200 / 31:.1f} / {2100 / 39:.1f} and "
        f"C-Snoop's gain {2100 / 39 / (1200 / 31) - 1:+.0%} over SNACK and "
        f"{2100 / 39 / (900 / 26) - 1:+.0%} over Snoop, inside its 20-90 %.",
    ]
    # Joules per delivered Mbit over a 100 s run: 10 / η.
    ours = [
        10 / _mean(results, (v, d, 0.05), "eta_kbps_per_j")
        for v, _ in VARIANTS
        for d in DIRECTIONS
        if _mean(results, (v, d, 0.05), "eta_kbps_per_j") > 0
    ]
    if ours:
        theirs = ", ".join(
            f"{label} {10 / (PAPER_5PCT[v][0] / 1e3 / PAPER_5PCT[v][1]):.2f}"
            for v, label in VARIANTS
            if v in PAPER_5PCT
        )
        lines.append(
            f"- The MH's joules per delivered Mbit: ours {min(ours):.2f}-{max(ours):.2f} "
            f"for every variant and direction; the paper's {theirs}. With no idle draw "
            "the MH's energy follows its traffic, so η differs between schemes only by "
            "the airtime they waste (local retransmissions, duplicate ACKs, SNACK "
            "options), a few % of the frames here."
        )
    return lines + idle_lines(results)


def idle_lines(results) -> list[str]:
    """The energy table's sensitivity rows: the MH's joules, η and
    C-Snoop's η gain at 5 % with each :data:`IDLE_SENSITIVITY` draw added."""
    lines = [
        "",
        "Sensitivity: an idle draw (neither the paper's nor ns-2's default; the same "
        "runs, the per-packet joules plus the draw times the MH's idle time).",
        "",
        "| idle draw | direction | MH J (Snoop / SNACK / C-Snoop) "
        "| η (Snoop / SNACK / C-Snoop) | C-Snoop's η gain over SNACK, Snoop |",
        "|---|---|---|---|---|",
    ]
    order = ("snoop", "snack", "c-snoop")
    for watts, why in IDLE_SENSITIVITY:
        for d in DIRECTIONS:
            joules, etas = {}, {}
            for v in order:
                rows = results[(v, d, 0.05)]
                joules[v] = [r["mh_energy_j"] + watts * r["mh_idle_s"] for r in rows]
                etas[v] = [
                    r["goodput_bps"] / 1e3 / j if j > 0 else 0.0
                    for r, j in zip(rows, joules[v], strict=True)
                ]
            gains = []
            for b in ("snack", "snoop"):
                g, h = ratio_ci(etas["c-snoop"], etas[b])
                gains.append(f"{g - 1:+.0%}" + ("" if math.isnan(h) else f" ± {h:.0%}"))
            lines.append(
                f"| {watts} W ({why}) | {d} | "
                + " / ".join(f"{ci(joules[v])[0]:.1f}" for v in order)
                + " | "
                + " / ".join(f"{ci(etas[v])[0]:.1f}" for v in order)
                + f" | {', '.join(gains)} |"
            )
    return lines


def run_sensitivity(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None,
) -> dict[tuple[str, str, str], list[dict]]:
    """The three schemes at 5 % under each :data:`SENSITIVITY` setting:
    metrics per seed, keyed (setting label, variant, direction)."""
    tasks = {}
    with pool(jobs, progress) as p:
        for k, (label, sets) in enumerate(SENSITIVITY):
            for direction in DIRECTIONS:
                for variant in SCHEMES:
                    for seed in seeds:
                        run_dir = out / "runs" / f"sensitivity-{k}" / f"{variant}-{direction}"
                        args = (
                            preset(variant, direction),
                            seed,
                            run_dir / f"seed-{seed}",
                            [*ENERGY, *overrides, *sets],
                        )
                        what = f"{label}: {variant} {direction} seed {seed}"
                        key = (label, variant, direction, seed)
                        tasks[key] = p.run(what, runner.run_one, *args)
    results: dict[tuple[str, str, str], list[dict]] = {}
    for (label, variant, direction, _), task in tasks.items():
        results.setdefault((label, variant, direction), []).append(_metrics(task.result()))
    return results


def write_sensitivity(sens, base) -> list[str]:
    """Markdown rows: the presets' setting, then each :data:`SENSITIVITY`
    one, with C-Snoop's paired ratios and the ranking."""
    names = {"snoop": "Snoop", "snack": "SNACK", "c-snoop": "C-Snoop"}
    lines = [
        "",
        "## Sensitivity at 5 % burst loss (choices the paper leaves open)",
        "",
        "| setting | dir | Snoop | SNACK | C-Snoop (Mbit/s) | C-Snoop / SNACK "
        "| C-Snoop / Snoop | ranking |",
        "|---|---|---|---|---|---|---|---|",
    ]
    settings = [("presets (burst 3, minimum RTO 200 ms, no RTS/CTS)", None)]
    settings += [(label, label) for label, _ in SENSITIVITY]
    for label, key in settings:
        for d in DIRECTIONS:
            if key is None:
                col = {v: [r["goodput_bps"] for r in base[(v, d, 0.05)]] for v in SCHEMES}
            else:
                col = {v: [r["goodput_bps"] for r in sens[(key, v, d)]] for v in SCHEMES}
            cells = [text(col[v], 1e6, "{:.2f}") for v in SCHEMES]
            ratios = []
            for b in ("snack", "snoop"):
                r, h = ratio_ci(col["c-snoop"], col[b])
                ratios.append(f"{r:.2f}" if math.isnan(h) else f"{r:.2f} ± {h:.2f}")
            order = sorted(SCHEMES, key=lambda v: -ci(col[v])[0])
            ranking = " > ".join(names[v] for v in order)
            lines.append(
                f"| {label} | {d} | {' | '.join(cells)} | {' | '.join(ratios)} | {ranking} |"
            )
    return lines


def figures(results, out: Path) -> list[Path]:
    """Throughput and energy efficiency against the loss rate (sweeps)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import sweep_line

    paths = []
    for metric, ylabel, scale, name in (
        ("goodput_bps", "throughput (Mbit/s)", 1e6, "fig_throughput.png"),
        ("efficiency_bpj", "energy efficiency (Mbit/J)", 1e6, "fig_efficiency.png"),
    ):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
        for ax, d in zip(axes, DIRECTIONS, strict=True):
            for i, (variant, label) in enumerate(VARIANTS):
                means, halves = [], []
                for p in LOSS_RATES:
                    m, h = ci([r[metric] for r in results[(variant, d, p)]])
                    means.append(m / scale)
                    halves.append(h / scale)
                xs = [100 * p for p in LOSS_RATES]
                sweep_line(ax, xs, means, halves, i, label)
            seeds = len(results[(VARIANTS[0][0], d, LOSS_RATES[0])])
            ax.set(
                xlabel="burst loss rate (%)",
                title=f"{d}link, mean of {seeds} seeds, 95 % CI",
            )
        axes[0].set_ylabel(ylabel)
        axes[0].legend()
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        paths.append(out / name)
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
    losses = LOSS_RATES if sweeps else (0.05,)
    results = run_grid(seeds, out, losses, overrides, progress, jobs)
    found = write_table(results, out, seeds, sweeps)
    report = {
        "paper": "kim-chung",
        "seeds": list(seeds),
        "results": {f"{v}-{d}-{p:g}": rows for (v, d, p), rows in results.items()},
    }
    if sweeps:
        figures(results, out)
        sens = run_sensitivity(seeds, out, overrides, progress, jobs)
        more = beyond.run(seeds, out, overrides, progress, jobs)
        table = out / "table.md"
        extra = write_sensitivity(sens, results) + beyond.write(more, out)
        table.write_text(table.read_text() + "\n".join(extra) + "\n")
        report["sensitivity"] = {f"{k}|{v}-{d}": rows for (k, v, d), rows in sens.items()}
        beyond.figure(more, out)
        report["beyond"] = {f"{k}-{v}": rows for (k, v), rows in more.items()}
        report["cc"] = cc_table.append(CC_COMPARISONS, seeds, out, overrides, progress, jobs)
    return write_report(out, report, found)
