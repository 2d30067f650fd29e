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
  seeds); the gain of each DSASync configuration over regular with the
  same TCP (ratio of the mean goodputs, 95 % interval by the delta method:
  a seed gives every configuration the same TFP schedule, so the
  comparison is paired); the RFC TCP's rows; the capacity drop's
  goodput after the switch; and the paper's numbers beside ours;
- ``fig3_goodput_down.png`` / ``fig3_goodput_up.png``: goodput over time
  per configuration, the mean over seeds with its 95 % band;
- ``fig7_capacity_drop.png``: goodput over time around the switch (mean
  over seeds, 95 % band);
- with ``sweeps=True``, ``sweep_utilisation.csv`` / ``.png``: downlink
  goodput against the primary users' utilisation, 0 to 0.8;
- the experiments of :mod:`xltcp.reproduce.dsasync_more`, each a table
  section and a CSV: ``pacer.csv`` (what the pacer does to a
  window-limited TCP, both directions, its keys and the MAC's retries;
  ``pacer.png``), ``macro.csv`` /
  ``fig8_macro.png`` (6 hosts x 4 flows, 4 channels), ``overhead.csv`` (no
  DSA at all: goodput and delay), ``jitter.csv`` / ``fig5_jitter.png``
  (the CH's jitter on the uplink, with and without smoothing) and
  ``lrwpan.csv`` (DSASync on paper 000's 802.15.4 scenario, alone and with
  the CR-aware sender);
- with ``sensitivity=True``, :mod:`xltcp.reproduce.dsasync_sensitivity`.

Each run's results are kept in ``OUT/runs/<config>/seed-<n>/``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import xltcp
from xltcp import runner
from xltcp.reproduce import cc_table
from xltcp.reproduce import dsasync_more as more
from xltcp.reproduce import dsasync_sensitivity as sens
from xltcp.reproduce.common import checks_table as _checks_lines
from xltcp.reproduce.common import ci as _ci
from xltcp.reproduce.common import pool as _pool
from xltcp.reproduce.common import text as _text
from xltcp.reproduce.common import write_report as _write_report

#: (name, preset stem without the direction, extra overrides, label). The
#: presets run the testbed's TCP (Linux's); the "-rfc" rows run the RFC TCP
#: (NewReno with SACK, no F-RTO) on the same cell.
CONFIGS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("regular", "regular", (), "regular"),
    ("dsasync", "dsasync", (), "DSASync"),
    ("dsasync-nosmooth", "dsasync", ('agent.0.smoothing="off"',), "DSASync, no smoothing"),
    ("regular-rfc", "regular", sens.RFC_TCP, "regular, RFC TCP"),
    ("dsasync-rfc", "dsasync", sens.RFC_TCP, "DSASync, RFC TCP"),
    (
        "dsasync-nosmooth-rfc",
        "dsasync",
        (*sens.RFC_TCP, 'agent.0.smoothing="off"'),
        "DSASync, no smoothing, RFC TCP",
    ),
)


def _base(name: str) -> str:
    """The regular configuration `name` compares with (same TCP)."""
    return "regular-rfc" if name.endswith("-rfc") else "regular"


DIRECTIONS = ("down", "up")


#: What the paper reports (single client unless said).
PAPER = {
    "down_gain": 0.74,
    "up_gain": 0.10,
    "retx_regular_mbps": 3.1,
    "retx_dsasync_mbps": 0.018,
    "macro_down_gain": 1.02,
    "overhead_goodput": -0.019,
    "overhead_delay_s": 0.0011,
}

Progress = Callable[[str], None]


def total_runs(seeds: int, sweeps: bool, sensitivity: bool = False) -> int:
    """How many runs :func:`reproduce` makes (for a progress bar)."""
    n = len(CONFIGS) * len(DIRECTIONS) * seeds + 2 * seeds
    if sensitivity:
        n += sens.total_runs(seeds)
    n += len(more.pacer_cells()) * seeds
    n += 2 * 2 * seeds * 2  # macro and no DSA: 2 configs x 2 directions
    n += len(more.JITTER_CONFIGS) * seeds + len(more.BYUN_CONFIGS) * seeds
    if sweeps:
        n += 2 * len(UTILISATIONS) * seeds
        n += cc_table.total_runs(CC_COMPARISONS, seeds)
    return n


def preset(name: str, variant: str) -> Path:
    """The path of a dsasync preset: `variant` is down, up, capacity, macro,
    nodsa, or (with name "byun2016") newreno or newreno-cr."""
    return xltcp.scenarios_dir() / "dsasync" / f"{name}-{variant}.toml"


#: ``--sweeps``: DSASync against the regular TCP on the downlink under
#: other congestion controls (:mod:`xltcp.reproduce.cc_table`).
CC_COMPARISONS = (
    cc_table.Comparison(
        ("regular", preset("regular", "down")),
        (("DSASync", preset("dsasync", "down")),),
    ),
)


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
    with _pool(jobs, progress) as pool:
        for direction in DIRECTIONS:
            for name, stem, extra, label in CONFIGS:
                for seed in seeds:
                    run_dir = out / "runs" / f"{name}-{direction}" / f"seed-{seed}"
                    args = (preset(stem, direction), seed, run_dir, [*overrides, *extra])
                    tag = f"{label} {direction} seed {seed}"
                    tasks[(name, direction, seed)] = pool.run(tag, runner.run_one, *args)
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
            run_dir = out / "runs" / f"capacity-{name}" / f"seed-{seed}"
            runner.run_one(preset(name, "capacity"), seed, run_dir, list(overrides))
            if progress:
                progress(f"capacity drop {name} seed {seed}")
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
                s = runner.run_one(preset(name, "down"), seed, None, [*overrides, *pu])
                if progress:
                    progress(f"utilisation {u} {name} seed {seed}")
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
    """Mean goodput of `name` over its regular's, minus 1, with a 95 %
    half width (paired by seed; a seed whose regular run delivers nothing,
    such as a SYN that meets a sensing period at every retry, counts)."""
    return sens.ratio_of_means(results[(_base(name), direction)], results[(name, direction)])


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
                    if name == _base(name)
                    else "{:+.1%} ± {:.1%}".format(*_gain(results, name, direction))
                )
                lines.append(
                    f"| {direction} | {label} | {_text(g, 1e6, '{:.2f}')} | "
                    f"{_text(x, 1e6, '{:.3f}')} | {_text(o, 1, '{:.1f}')} | {gain} |"
                )
                gm, gh = _ci(g)
                gn, gnh = _gain(results, name, direction) if name != _base(name) else (0.0, 0.0)
                w.writerow([direction, name, gm, gh, _ci(x)[0], _ci(o)[0], gn, gnh])
    down_gain = _gain(results, "dsasync", "down")[0]
    up_gain = _gain(results, "dsasync", "up")[0]
    retx_reg = _ci([r["retx_bps"] for r in results[("regular", "down")]])[0]
    retx_dsa = _ci([r["retx_bps"] for r in results[("dsasync", "down")]])[0]
    reg_after = _ci(after["regular"])[0]
    dsa_after = _ci(after["dsasync"])[0]
    retx_lo, retx_hi = 0.7 * PAPER["retx_regular_mbps"], 1.3 * PAPER["retx_regular_mbps"]
    checks = [
        (
            "regular's downlink retransmitted traffic within 30 % of the paper's 3.1 Mbit/s",
            retx_lo <= retx_reg / 1e6 <= retx_hi,
            f"{retx_reg / 1e6:.3f} Mbit/s",
        ),
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


def _paired_gain(base: list[dict], other: list[dict], key: str = "goodput_bps"):
    """Mean of `other` over mean of `base`, minus 1, with a 95 % half width
    (paired by seed)."""
    return sens.ratio_of_means(base, other, key)


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def more_sections(out: Path, pacer, macro, overhead, jitter, byun) -> tuple[list[str], list]:
    """The sections of table.md for the experiments of ``dsasync_more``,
    their CSVs, and their checks."""
    lines: list[str] = []
    checks = []
    # The pacer.
    _write_csv(out / "pacer.csv", pacer)
    lines += [
        "",
        "## The pacer (Algorithm 4) on a window-limited TCP",
        "",
        "One host. srtt and cwnd: means of the 100 ms samples; wait: the mean time "
        "a paced packet spent in the pacer; waited: the share of packets it held at all. "
        "On the downlink the pacer holds the host's ACKs.",
        "",
        "| direction | PU | configuration | goodput (Mbit/s) | vs regular | srtt (ms) "
        "| cwnd (kB) | wait/packet (ms) | waited |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d, pu, name, _, _, label in more.pacer_cells():
        base = [r for r in pacer if (r["direction"], r["pu"], r["config"]) == (d, pu, "regular")]
        rows = [r for r in pacer if (r["direction"], r["pu"], r["config"]) == (d, pu, name)]
        gain = "" if name == "regular" else "{:+.1%} ± {:.1%}".format(*_paired_gain(base, rows))
        col = lambda k, sc, fmt, rows=rows: _text([r[k] for r in rows], sc, fmt)  # noqa: E731
        lines.append(
            f"| {d} | {pu} | {label} | {col('goodput_bps', 1e6, '{:.2f}')} | {gain} "
            f"| {col('srtt_s', 1e-3, '{:.1f}')} | {col('cwnd_bytes', 1e3, '{:.0f}')} "
            f"| {col('pacing_wait_s', 1e-3, '{:.1f}')} | {col('share_waited', 1, '{:.2f}')} |"
        )
    lines += [
        "",
        "The pacer releases a packet when `size / elapsed < beta * D` (Alg. 4 line 10), "
        "`elapsed` since the last release, `D` the rate at which the hosts' packets reached "
        "the BS over the last window. It is a server at the flow's own mean rate: the "
        "packets, which arrive in bursts, queue in it (column `waited`), and a TCP whose "
        "window does not cover that wait besides the path's RTT slows down; `D`, measured "
        "on what comes back from what the pacer released, follows it down. The preset is "
        "the paper's algorithm (no bound on the wait but `alpha_min`); `wait <= mean TFP` "
        "is the reconstruction's earlier cap (ours); `D over the window` the other reading "
        "of D, whose `beta * D` is below the arrival rate. With `D` over the active part, "
        "`beta * D` is the long-run arrival rate: the pacer is loaded at exactly 1 and only "
        "the TCP's window bounds its queue; `beta = 1` loads it at alpha < 1. With MAC "
        "retries that never run out (retries 30) no loss halves the window, and the wait "
        "grows until the 256 KB receive window is what limits.",
    ]
    # The macrobenchmark.
    rows_csv = []
    lines += [
        "",
        "## Macrobenchmark: 6 hosts x 4 flows, 4 channels",
        "",
        "One cell (one radio at the BS and each host): the 4 channels are channel "
        "switches every exp(5 s) (100 ms each) among 4 channels of 24 Mbit/s, each with "
        "PUs 20 % of the time; sensing as the single-client presets. Totals over the 24 "
        "flows.",
        "",
        "| direction | configuration | goodput (Mbit/s) | retransmitted (Mbit/s) | RTOs "
        "| gain over regular | paper |",
        "|---|---|---|---|---|---|---|",
    ]
    for direction in ("down", "up"):
        base = macro[("regular", direction)]
        for name in ("regular", "dsasync"):
            rows = macro[(name, direction)]
            gm, gh = _paired_gain(base, rows) if name != "regular" else (0.0, 0.0)
            gain = "" if name == "regular" else f"{gm:+.1%} ± {gh:.1%}"
            paper = "+102 %" if (name, direction) == ("dsasync", "down") else ""
            lines.append(
                f"| {direction} | {name} "
                f"| {_text([r['goodput_bps'] for r in rows], 1e6, '{:.2f}')} "
                f"| {_text([r['retx_bps'] for r in rows], 1e6, '{:.2f}')} "
                f"| {_text([r['rto_count'] for r in rows], 1, '{:.0f}')} | {gain} | {paper} |"
            )
            rows_csv += [{"direction": direction, "config": name, **r} for r in rows]
    _write_csv(out / "macro.csv", rows_csv)
    macro_gain = _paired_gain(macro[("regular", "down")], macro[("dsasync", "down")])[0]
    checks.append(("macro downlink gain >= +102 %", macro_gain >= 1.02, f"{macro_gain:+.1%}"))
    # The overhead with no DSA.
    rows_csv = []
    lines += [
        "",
        "## Overhead with no DSA (no TFP at all)",
        "",
        "Delay: the mean of the sender's sampled smoothed RTT. With no TFP, alpha = 1 "
        "and the paper's pacer releases at `D`, the rate the packets arrive at over the "
        "last window: the packets, which arrive in bursts, still queue in it (with "
        '`max_wait = "mean_tfp"`, ours, a pacer that has seen no TFP holds nothing and '
        "the uplink is regular's to the bit). On the downlink, DSASync's buffer "
        "passes at most `tx_window` (50) packets "
        "to the AP's MAC and keeps the rest: the CH's 256 KB window, which regular "
        "loses in part at the AP's 100-frame queue, waits in the BS buffer instead — "
        "no loss, a little more goodput, and the window's worth of queueing delay "
        "in the RTT.",
        "",
        "| direction | configuration | goodput (Mbit/s) | change | srtt (ms) | change (ms) "
        "| paper |",
        "|---|---|---|---|---|---|---|",
    ]
    for direction in ("down", "up"):
        base = overhead[("regular", direction)]
        for name in ("regular", "dsasync"):
            rows = overhead[(name, direction)]
            change = delay = paper = ""
            if name != "regular":
                change = "{:+.2%} ± {:.2%}".format(*_paired_gain(base, rows))
                d = [(o["srtt_s"] - b["srtt_s"]) * 1e3 for o, b in zip(rows, base, strict=True)]
                dm, dh = _ci(d)
                delay = f"{dm:+.2f} ± {dh:.2f}"
                paper = "-1.9 %, +1.1 ms"
            lines.append(
                f"| {direction} | {name} "
                f"| {_text([r['goodput_bps'] for r in rows], 1e6, '{:.2f}')} "
                f"| {change} | {_text([r['srtt_s'] for r in rows], 1e-3, '{:.1f}')} | {delay} "
                f"| {paper} |"
            )
            rows_csv += [{"direction": direction, "config": name, **r} for r in rows]
    _write_csv(out / "overhead.csv", rows_csv)
    worst = min(
        _paired_gain(overhead[("regular", d)], overhead[("dsasync", d)])[0] for d in ("down", "up")
    )
    extra_delay = max(
        _ci(
            [
                o["srtt_s"] - b["srtt_s"]
                for o, b in zip(overhead[("dsasync", d)], overhead[("regular", d)], strict=True)
            ]
        )[0]
        for d in ("down", "up")
    )
    checks.append(
        (
            "no DSA: DSASync costs at most the paper's 1.9 % goodput and 1.1 ms delay",
            worst >= PAPER["overhead_goodput"] and extra_delay <= PAPER["overhead_delay_s"],
            f"{worst:+.2%}, {extra_delay * 1e3:+.2f} ms",
        )
    )
    # Jitter.
    _write_csv(out / "jitter.csv", jitter)
    lines += [
        "",
        "## Receiver jitter on the uplink (at the CH)",
        "",
        "RFC 3550 interarrival jitter (mean of J over the data segments; transit = the "
        "segment's departure from the BS on the CH's link minus the sender's TSval) and "
        "the coefficient of variation of the inter-arrival times.",
        "",
        "| configuration | goodput (Mbit/s) | RFC 3550 jitter (ms) | inter-arrival std (ms) "
        "| inter-arrival CV |",
        "|---|---|---|---|---|",
    ]
    for name, _, _, label in more.JITTER_CONFIGS:
        rows = [r for r in jitter if r["config"] == name]
        col = lambda k, sc, fmt, rows=rows: _text([r[k] for r in rows], sc, fmt)  # noqa: E731
        lines.append(
            f"| {label} | {col('goodput_bps', 1e6, '{:.2f}')} "
            f"| {col('jitter_rfc3550_s', 1e-3, '{:.2f}')} "
            f"| {col('interarrival_std_s', 1e-3, '{:.2f}')} "
            f"| {col('interarrival_cv', 1, '{:.2f}')} |"
        )
    smooth = _ci([r["jitter_rfc3550_s"] for r in jitter if r["config"] == "dsasync"])[0]
    plain = _ci([r["jitter_rfc3550_s"] for r in jitter if r["config"] == "dsasync-nosmooth"])[0]
    checks.append(
        (
            "uplink smoothing cuts the CH's jitter (RFC 3550)",
            smooth < plain,
            f"{smooth * 1e3:.2f} ms with, {plain * 1e3:.2f} ms without",
        )
    )
    # 802.15.4.
    rows_csv = []
    lines += [
        "",
        "## DSASync on paper 000's 802.15.4 scenario",
        "",
        "`scenarios/byun2016` (standard family: three MAC retries, PU 50 % with 4 s "
        "means, 10 % frame loss, 600 s, one uplink sensor flow); DSASync learns the "
        "TFPs from the BS's PU detector (pu_start/pu_stop, t_idle 1 s). "
        "Buffer: accepted = released + buffered (a newer copy of a buffered segment "
        "takes its place, counted as replaced).",
        "",
        "| configuration | goodput (kbit/s) | vs NewReno | RTOs | retransmissions "
        "| accepted | released + buffered | replaced | refused |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    balanced = True
    for name, _, _, label in more.BYUN_CONFIGS:
        rows = byun[name]
        gain = (
            ""
            if name == "newreno"
            else "{:+.1%} ± {:.1%}".format(*_paired_gain(byun["newreno"], rows))
        )
        acc = sum(r["accepted"] for r in rows)
        out_ = sum(r["released"] + r["buffered"] for r in rows)
        balanced &= all(r["accepted"] == r["released"] + r["buffered"] for r in rows)
        lines.append(
            f"| {label} | {_text([r['goodput_bps'] for r in rows], 1e3, '{:.2f}')} | {gain} "
            f"| {_text([r['rto_count'] for r in rows], 1, '{:.1f}')} "
            f"| {_text([r['retransmissions'] for r in rows], 1, '{:.0f}')} | {acc} | {out_} "
            f"| {sum(r['replaced'] for r in rows)} "
            f"| {sum(r['refused_full'] for r in rows)} |"
        )
        rows_csv += [{"config": name, **r} for r in rows]
    _write_csv(out / "lrwpan.csv", rows_csv)
    checks.append(
        (
            "802.15.4: DSASync's buffer loses nothing it accepted",
            balanced,
            "balanced" if balanced else "unbalanced",
        )
    )
    return lines, checks


def more_figures(out: Path, macro, jitter, pacer) -> list[Path]:
    """fig8_macro.png (goodput and retransmitted traffic per direction),
    fig5_jitter.png (the CH's RFC 3550 jitter per configuration) and
    pacer.png (goodput, srtt and each packet's wait in the pacer, per
    configuration and direction, PU 20 %)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = [c for c in more.pacer_cells() if c[1] == more.PACER_PU[0][0]]
    fig, axes = plt.subplots(len(more.PACER_DIRS), 3, figsize=(13, 7), squeeze=False)
    panels = (
        ("goodput_bps", 1e6, "goodput (Mbit/s)"),
        ("srtt_s", 1e-3, "mean srtt (ms)"),
        ("pacing_wait_s", 1e-3, "wait in the pacer per packet (ms)"),
    )
    for row, d in zip(axes, more.PACER_DIRS, strict=True):
        mine = [c for c in cells if c[0] == d]
        for ax, (key, scale, ylabel) in zip(row, panels, strict=True):
            stats = [
                _ci([r[key] for r in pacer if (r["direction"], r["pu"], r["config"]) == c[:3]])
                for c in mine
            ]
            ys = [m / scale for m, _ in stats]
            hs = [0.0 if math.isnan(h) else h / scale for _, h in stats]
            ax.bar(range(len(stats)), ys, 0.6, yerr=hs, capsize=3)
            ticks = [c[5].replace(" (", "\n(").replace(", ", ",\n") for c in mine]
            ax.set_xticks(range(len(ticks)), ticks, fontsize=6)
            ax.set_ylabel(f"{d}: {ylabel}")
    fig.suptitle(f"the pacer (Algorithm 4), one host, PU {more.PACER_PU[0][0]}")
    fig.tight_layout()
    pacer_path = out / "pacer.png"
    fig.savefig(pacer_path, dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.5))
    for ax, key, ylabel in zip(
        axes,
        ("goodput_bps", "retx_bps"),
        ("goodput (Mbit/s)", "retransmitted (Mbit/s)"),
        strict=True,
    ):
        for i, name in enumerate(("regular", "dsasync")):
            stats = [_ci([r[key] for r in macro[(name, d)]]) for d in ("down", "up")]
            ys = [m / 1e6 for m, _ in stats]
            hs = [0.0 if math.isnan(h) else h / 1e6 for _, h in stats]
            ax.bar([x + 0.4 * i for x in (0, 1)], ys, 0.4, yerr=hs, capsize=3, label=name)
        ax.set_xticks([0.2, 1.2], ["downlink", "uplink"])
        ax.set_ylabel(ylabel)
    axes[0].legend()
    fig.suptitle("6 hosts x 4 flows, 4 channels (totals)")
    fig.tight_layout()
    macro_path = out / "fig8_macro.png"
    fig.savefig(macro_path, dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    labels, ys, hs = [], [], []
    for name, _, _, label in more.JITTER_CONFIGS:
        m, h = _ci([r["jitter_rfc3550_s"] for r in jitter if r["config"] == name])
        labels.append(label.replace(" (", "\n("))
        ys.append(m * 1e3)
        hs.append(0.0 if math.isnan(h) else h * 1e3)
    ax.bar(range(len(ys)), ys, yerr=hs, capsize=3)
    ax.set_xticks(range(len(ys)), labels, fontsize=7)
    ax.set_ylabel("RFC 3550 jitter at the CH (ms)")
    ax.set_title("uplink")
    fig.tight_layout()
    jitter_path = out / "fig5_jitter.png"
    fig.savefig(jitter_path, dpi=110)
    plt.close(fig)
    return [macro_path, jitter_path, pacer_path]


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
    sensitivity: bool = False,
) -> dict:
    """The whole reproduction; returns what ``table.md`` says, as a dict.
    ``jobs`` runs at once (default: every core); ``sensitivity`` adds
    :mod:`xltcp.reproduce.dsasync_sensitivity`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results = run_all(seeds, out, overrides, progress, jobs)
    after = run_capacity_drop(seeds, out, overrides, progress)
    sweep = run_sweep(seeds, overrides, progress) if sweeps else []
    pacer = more.run_pacer(seeds, out, overrides, progress, jobs)
    macro = more.run_macro(seeds, out, overrides, progress, jobs)
    overhead = more.run_overhead(seeds, out, overrides, progress, jobs)
    jitter = more.run_jitter(seeds, out, overrides, progress, jobs)
    byun = more.run_byun(seeds, out, overrides, progress, jobs)
    sensitivity_rows = sens.run(seeds, overrides, progress, jobs) if sensitivity else []
    if sweep:
        with (out / "sweep_utilisation.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["utilisation", "config", "goodput_bps", "ci95"])
            w.writeheader()
            w.writerows(sweep)
    checks = write_table(results, after, out, seeds, sweep)
    lines, extra = more_sections(out, pacer, macro, overhead, jitter, byun)
    if sensitivity_rows:
        lines += sens.write(out, sensitivity_rows, seeds)
        lines += ["", "![sensitivity](sensitivity.png)"]
    checks = checks + extra
    table = out / "table.md"
    table.write_text(
        table.read_text()
        + "\n".join(lines)
        + "\n"
        + "\n".join(["", "Further targets:", *_checks_lines(extra)])
        + "\n"
    )
    figures(out, seeds, sweep)
    more_figures(out, macro, jitter, pacer)
    if sensitivity_rows:
        sens.figure(out, sensitivity_rows)
    report = {
        "paper": "dsasync",
        "seeds": list(seeds),
        "results": {f"{n}-{d}": rows for (n, d), rows in results.items()},
        "capacity_drop_after_bps": after,
    }
    if sweep:
        report["sweep"] = sweep
    report["pacer"] = pacer
    report["macro"] = {f"{n}-{d}": rows for (n, d), rows in macro.items()}
    report["overhead"] = {f"{n}-{d}": rows for (n, d), rows in overhead.items()}
    report["jitter"] = jitter
    report["lrwpan"] = byun
    if sweeps:
        report["cc"] = cc_table.append(CC_COMPARISONS, seeds, out, overrides, progress, jobs)
    return _write_report(out, report, checks)
