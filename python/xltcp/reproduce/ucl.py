"""Paper 003: Sánchez, Lanza, Muñoz, the Universal Convergence Layer.

Runs the presets of ``scenarios/ucl``: a host with an 802.11a (54 Mbit/s)
and an 802.11b (11 Mbit/s) interface, each with its own SNR process (a mean
per location with log-normal shadowing, Table 1 of the paper), receiving one
TCP transfer from the base station. Writes, into OUT:

- ``table.csv`` / ``table.md``: per location L1-L4, the throughput of a
  10 MB transfer (bytes over completion time) over 11a alone, 11b alone and
  the UCL with our rule, mean ± 95 % CI over seeds, beside the paper's; the
  moving run (L1 -> L4 -> L1 in 40 s) for 11a only, 11b only, the UCL with
  the paper's rule and with ours: throughput, the longest stretch with no
  data delivered (100 ms samples) and the retransmission timeout then,
  interface switches; the paper's targets and whether they are met;
- ``fig_moving.png``: throughput against time in the moving run (mean
  over seeds with its 95 % band), the UCL's choice (first seed) shaded;
- the cost of link security (experiment ``security``): one interface at a
  fixed rate and a high SNR (``link-plain.toml``, ``link-secured.toml``),
  a 10 s bulk transfer with the UCL's security off and on, at every 802.11a
  rate (6-54 Mbit/s) and every 802.11b rate (1-11 Mbit/s): goodput, the
  cost in per cent beside the oracle's (the 28 bytes of header and tag a
  frame in the medium-time model), the handshake's time and the frames
  dropped (``security.csv``, a section of ``table.md``,
  ``fig_security.png``); and the moving run with our UCL and its security
  on (``moving-ucl-ours-secured.toml``);
- with ``--sweeps``: ``fig_sensitivity.png``, the moving run against what the
  paper leaves open: 11a's rate control (fixed 54 Mbit/s or ARF) and the
  UCL's rule (threshold, hysteresis, goodput).

The model's SNR is the SNR the error model sees; the paper's is what its
cards reported. They need not be the same scale, so the per-location
throughputs are compared with the paper's as a shape (which interface wins
where), not as numbers to hit.

Each run's results are kept in ``OUT/runs/<case>/seed-<n>/``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import xltcp
from xltcp import runner
from xltcp.reproduce.common import checks_table, ci, pool, text, write_report

#: Location -> (11b mean, 11b deviation, 11a mean, 11a deviation), dB
#: (Table 1; L4 has no 11a measurement: 5 dB, unusable).
LOCATIONS = {
    "L1": (43.94, 2.29, 28.97, 2.06),
    "L2": (37.09, 1.76, 26.75, 1.46),
    "L3": (25.83, 1.14, 16.78, 0.99),
    "L4": (15.4, 1.13, 5.0, 1.0),
}

#: The paper's per-location throughputs (Mbit/s): (11a, 11b) as text.
PAPER_LOCATIONS = {
    "L1": ("~28", "5.1"),
    "L2": ("3.4-13.7", "5.1"),
    "L3": ("1.1-4.0", "5.1"),
    "L4": ("unusable", "1.7-4.3"),
}

#: Location variants: (key, preset stem, label).
LOCATION_VARIANTS = (
    ("11a", "location-11a", "11a only"),
    ("11b", "location-11b", "11b only"),
    ("ucl", "location-ucl", "UCL (ours)"),
)

#: Moving-run variants: (key, preset stem, label, paper's Mbit/s).
MOVING_VARIANTS = (
    ("11a", "moving-11a", "11a only", 12.3),
    ("11b", "moving-11b", "11b only", 5.16),
    ("paper", "moving-ucl-paper", "UCL (paper's rule)", 19.1),
    ("ours", "moving-ucl-ours", "UCL (ours)", None),
    ("ours-sec", "moving-ucl-ours-secured", "UCL (ours), security on", None),
)

#: The rates of the security experiment: (standard, Mbit/s as written).
SECURITY_RATES = (
    *(("11a", r) for r in ("6", "9", "12", "18", "24", "36", "48", "54")),
    *(("11b", r) for r in ("1", "2", "5.5", "11")),
)

#: Sensitivity cases of the moving run: (key, preset stem, label, overrides).
SENSITIVITY = (
    ("11a-arf", "moving-11a", "11a only, ARF", ["wireless.rate_control=arf"]),
    ("paper-arf", "moving-ucl-paper", "UCL paper rule, 11a ARF", ["wireless.0.rate_control=arf"]),
    ("ours-arf", "moving-ucl-ours", "UCL ours, 11a ARF", ["wireless.0.rate_control=arf"]),
    (
        "hysteresis",
        "moving-ucl-ours",
        "UCL hysteresis rule (25 ± 3 dB)",
        [f"agent.{k}.rule=hysteresis" for k in (0, 1)],
    ),
    (
        "margin",
        "moving-ucl-ours",
        "UCL ours, 3 dB fade margin",
        [f"agent.{k}.margin_db=3" for k in (0, 1)],
    ),
    (
        "threshold-ours",
        "moving-ucl-ours",
        "UCL threshold rule + barrier + resend",
        [f"agent.{k}.rule=threshold" for k in (0, 1)],
    ),
)

Progress = Callable[[str], None]


def total_runs(seeds: int, sweeps: bool) -> int:
    """How many runs :func:`reproduce` makes (for a progress bar)."""
    n = (len(LOCATIONS) * len(LOCATION_VARIANTS) + len(MOVING_VARIANTS)) * seeds
    n += 2 * len(SECURITY_RATES) * seeds
    if sweeps:
        n += len(SENSITIVITY) * seeds
    return n


def preset(stem: str) -> Path:
    """The path of a ucl preset."""
    return xltcp.scenarios_dir() / "ucl" / f"{stem}.toml"


def _location_overrides(variant: str, loc: str) -> list[str]:
    b_mean, b_dev, a_mean, a_dev = LOCATIONS[loc]
    if variant == "11a":
        return [f"wireless.snr.mean_db={a_mean}", f"wireless.snr.shadowing_db={a_dev}"]
    if variant == "11b":
        return [f"wireless.snr.mean_db={b_mean}", f"wireless.snr.shadowing_db={b_dev}"]
    return [
        f"wireless.0.snr.mean_db={a_mean}",
        f"wireless.0.snr.shadowing_db={a_dev}",
        f"wireless.1.snr.mean_db={b_mean}",
        f"wireless.1.snr.shadowing_db={b_dev}",
    ]


def _throughput(summary: dict) -> float:
    """Bits per second of the transfer: over its completion time, or over
    the whole run if it did not complete."""
    f = summary["flows"][0]
    t = f.get("completion_s") or summary["duration_s"]
    return 8 * f["bytes_delivered"] / t if t > 0 else 0.0


def _longest_idle(run_dir: Path) -> tuple[float, float]:
    """The longest stretch of 100 ms samples with no goodput, seconds, and
    the sender's RTO at its start (seconds; NaN if none)."""
    path = run_dir / "timeseries" / "ftp.csv"
    if not path.exists():
        return math.nan, math.nan
    rows = list(csv.DictReader(path.open()))
    best, rto, start, run_rto = 0.0, math.nan, None, math.nan
    for i, r in enumerate(rows):
        t = float(r["time_s"])
        idle = float(r["goodput_bps"] or 0) == 0.0 and i > 0
        if idle and start is None:
            start = float(rows[i - 1]["time_s"])
            run_rto = float(rows[i - 1]["rto_s"] or "nan")
        if not idle and start is not None:
            if t - start > best:
                best, rto = t - start, run_rto
            start = None
    if start is not None and float(rows[-1]["time_s"]) - start > best:
        best, rto = float(rows[-1]["time_s"]) - start, run_rto
    # A stretch of k empty samples spans at most (k + 1) intervals; report
    # whole samples without data.
    return best, rto


def _moving_metrics(summary: dict, run_dir: Path) -> dict:
    idle, rto = _longest_idle(run_dir)
    ucl = summary.get("ucl", {})
    bs_log = [s for s in ucl.get("switch_log", []) if s.get("at") == "bs"]
    flow = summary["flows"][0]
    sec = ucl.get("security") or {}
    return {
        "goodput_bps": flow["goodput_bps"],
        "sec_dropped": float(_sec_dropped(sec)),
        "rto_count": float(flow["rto_count"]),
        "longest_idle_s": idle,
        "rto_at_idle_s": rto,
        "switches": float(ucl.get("switches", 0)),
        "resent": float(ucl.get("resent", 0)),
        "bs_switch_log": bs_log,
    }


#: The security's drop counters (``summary.json`` ``ucl.security``).
SEC_DROPS = (
    "tampered",
    "replayed",
    "too_old",
    "stale_key",
    "malformed",
    "not_authenticated",
    "held_overflow",
    "link_down",
    "mismatch",
    "frame_missing",
)


def _sec_dropped(sec: dict) -> int:
    return sum(int(sec.get(k, 0)) for k in SEC_DROPS)


def _security_metrics(summary: dict) -> dict:
    flow = summary["flows"][0]
    sec = (summary.get("ucl") or {}).get("security")
    return {
        "goodput_bps": flow["goodput_bps"],
        "oracle_bps": flow["oracle_bps"],
        "secured": sec is not None,
        "handshakes_done": int(sec["handshakes_done"]) if sec else 0,
        "link_up_s": (sec.get("link_up_s") or math.nan) if sec else math.nan,
        "sealed": int(sec["sealed"]) if sec else 0,
        "dropped": _sec_dropped(sec) if sec else 0,
    }


def run_security(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None,
) -> dict:
    """The security experiment: (standard, rate, on) -> metrics per seed."""
    tasks = {}
    with pool(jobs) as p:
        for std, rate in SECURITY_RATES:
            sets = [f"wireless.standard={std}", f"wireless.rate={rate}Mbps"]
            for on, stem in ((False, "link-plain"), (True, "link-secured")):
                for seed in seeds:
                    if progress:
                        progress(
                            f"security {'on' if on else 'off'} {std} {rate} Mbit/s seed {seed}"
                        )
                    tag = f"security-{std}-{rate}-{'on' if on else 'off'}"
                    run_dir = out / "runs" / tag / f"seed-{seed}"
                    tasks[(std, rate, on, seed)] = p.submit(
                        runner.run_one, preset(stem), seed, run_dir, [*sets, *overrides]
                    )
    found: dict = {}
    for (std, rate, on, _), task in tasks.items():
        found.setdefault((std, rate, on), []).append(_security_metrics(task.result()))
    return found


def security_rows(security: dict) -> list[dict]:
    """One row per rate: goodput off and on, the measured and the oracle's
    cost (per cent), the handshake's time, the drops."""
    rows = []
    for std, rate in SECURITY_RATES:
        off, on = security[(std, rate, False)], security[(std, rate, True)]
        g_off = [r["goodput_bps"] for r in off]
        g_on = [r["goodput_bps"] for r in on]
        m_off, m_on = ci(g_off)[0], ci(g_on)[0]
        o_off, o_on = ci([r["oracle_bps"] for r in off])[0], ci([r["oracle_bps"] for r in on])[0]
        # Paired by seed: the cost of each seed, then its mean and CI.
        costs = [100 * (a - b) / a for a, b in zip(g_off, g_on, strict=True) if a > 0]
        rows.append(
            {
                "standard": std,
                "rate_mbps": float(rate),
                "off_bps": m_off,
                "on_bps": m_on,
                "off": g_off,
                "on": g_on,
                "cost_pct": ci(costs)[0] if costs else math.nan,
                "cost_ci": ci(costs)[1] if costs else math.nan,
                "oracle_cost_pct": 100 * (o_off - o_on) / o_off if o_off > 0 else math.nan,
                "handshake_ms": 1e3 * max(r["link_up_s"] for r in on),
                "handshakes_done": min(r["handshakes_done"] for r in on),
                "dropped": sum(r["dropped"] for r in on),
            }
        )
    return rows


def run_all(
    seeds: Sequence[int],
    out: Path,
    sweeps: bool,
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None,
) -> tuple[dict, dict]:
    """Every location and moving case: metrics per seed."""
    loc_tasks, mov_tasks = {}, {}
    with pool(jobs) as p:
        for loc in LOCATIONS:
            for key, stem, label in LOCATION_VARIANTS:
                for seed in seeds:
                    if progress:
                        progress(f"{loc} {label} seed {seed}")
                    run_dir = out / "runs" / f"{loc}-{key}" / f"seed-{seed}"
                    sets = [*_location_overrides(key, loc), *overrides]
                    loc_tasks[(loc, key, seed)] = p.submit(
                        runner.run_one, preset(stem), seed, run_dir, sets
                    )
        cases = [(k, s, lab, []) for k, s, lab, _ in MOVING_VARIANTS]
        if sweeps:
            cases += list(SENSITIVITY)
        for key, stem, label, sets in cases:
            for seed in seeds:
                if progress:
                    progress(f"moving {label} seed {seed}")
                run_dir = out / "runs" / f"moving-{key}" / f"seed-{seed}"
                task = p.submit(runner.run_one, preset(stem), seed, run_dir, [*sets, *overrides])
                mov_tasks[(key, seed)] = (task, run_dir)
    locations: dict = {}
    for (loc, key, _), task in loc_tasks.items():
        locations.setdefault((loc, key), []).append(_throughput(task.result()))
    moving: dict = {}
    for (key, _), (task, run_dir) in mov_tasks.items():
        moving.setdefault(key, []).append(_moving_metrics(task.result(), run_dir))
    return locations, moving


def _mean(rows: list[dict], metric: str) -> float:
    return ci([r[metric] for r in rows])[0]


def checks(moving: dict, sec_rows: Sequence[dict] = ()) -> list[tuple[str, bool, str]]:
    """The paper's targets against the measurements."""
    a = _mean(moving["11a"], "goodput_bps")
    b = _mean(moving["11b"], "goodput_bps")
    out = []
    for key, label in (("paper", "paper's rule"), ("ours", "our rule")):
        u = _mean(moving[key], "goodput_bps")
        out.append(
            (f"moving: UCL ({label}) >= 1.5x 11a only", u >= 1.5 * a, f"{u / a:.2f}x" if a else "")
        )
        out.append(
            (f"moving: UCL ({label}) >= 3.5x 11b only", u >= 3.5 * b, f"{u / b:.2f}x" if b else "")
        )
    idle = max(r["longest_idle_s"] for r in moving["ours"])
    rtos = [r["rto_at_idle_s"] for r in moving["ours"] if not math.isnan(r["rto_at_idle_s"])]
    rto = min(rtos) if rtos else math.nan
    out.append(
        (
            "moving: with our rule no TCP idle period longer than one RTO",
            not math.isnan(idle) and (idle == 0 or (not math.isnan(rto) and idle <= rto)),
            f"longest {idle:.1f} s (RTO then {rto:.2f} s)",
        )
    )
    if "ours-sec" in moving:
        u = _mean(moving["ours-sec"], "goodput_bps")
        drops = sum(r["sec_dropped"] for r in moving["ours-sec"])
        out.append(
            (
                "moving: UCL (ours) with security on >= 1.5x 11a only",
                u >= 1.5 * a,
                f"{u / a:.2f}x ({u / 1e6:.2f} Mbit/s, {drops:.0f} frames dropped by the security)"
                if a
                else "",
            )
        )
    if sec_rows:
        ok = all(r["handshakes_done"] == 2 and r["dropped"] == 0 for r in sec_rows)
        worst = max(sec_rows, key=lambda r: r["cost_pct"])
        out.append(
            (
                "security: every secured link handshook and dropped no frame (no attacker)",
                ok,
                f"{sum(r['dropped'] for r in sec_rows)} dropped",
            )
        )
        out.append(
            (
                "security: goodput cost measured at every 11a and 11b rate",
                all(not math.isnan(r["cost_pct"]) for r in sec_rows),
                f"{min(r['cost_pct'] for r in sec_rows):.1f}-{worst['cost_pct']:.1f} % "
                f"(worst {worst['standard']} {worst['rate_mbps']:g} Mbit/s)",
            )
        )
    return out


def write_table(
    locations: dict,
    moving: dict,
    out: Path,
    seeds: Sequence[int],
    sec_rows: Sequence[dict] = (),
) -> list:
    """table.csv, table.md (and security.csv); returns the checks."""
    lines = [
        "# Universal Convergence Layer (Sánchez, Lanza, Muñoz): reproduction",
        "",
        f"Seeds {seeds[0]}..{seeds[-1]} ({len(seeds)}), mean ± 95 % CI. 11a at a fixed "
        "54 Mbit/s, 11b at 11 Mbit/s; shadowing with Table 1's deviations and a 500 ms "
        "correlation time (ours).",
        "",
        "## Per location: 10 MB transfer (Mbit/s)",
        "",
        "| location | 11a only | 11b only | UCL (ours) | paper 11a | paper 11b |",
        "|---|---|---|---|---|---|",
    ]
    with (out / "table.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "variant", "throughput_bps", "ci95"])
        for loc in LOCATIONS:
            cells = []
            for key, _, _ in LOCATION_VARIANTS:
                vals = locations[(loc, key)]
                cells.append(text(vals, 1e6, "{:.2f}"))
                m, h = ci(vals)
                w.writerow([loc, key, m, "" if math.isnan(h) else h])
            pa, pb = PAPER_LOCATIONS[loc]
            lines.append(f"| {loc} | {' | '.join(cells)} | {pa} | {pb} |")
        lines += [
            "",
            "## Moving run L1 -> L4 -> L1, 40 s",
            "",
            "| variant | throughput (Mbit/s) | paper | RTOs | longest idle (s) | switches "
            "| resent |",
            "|---|---|---|---|---|---|---|",
        ]
        labels = {k: (lab, paper) for k, _, lab, paper in MOVING_VARIANTS}
        labels.update({k: (lab, None) for k, _, lab, _ in SENSITIVITY})
        for key, rows in moving.items():
            label, paper = labels[key]
            g = [r["goodput_bps"] for r in rows]
            m, h = ci(g)
            w.writerow(["moving", key, m, "" if math.isnan(h) else h])
            lines.append(
                f"| {label} | {text(g, 1e6, '{:.2f}')} | {'' if paper is None else paper} | "
                f"{_mean(rows, 'rto_count'):.1f} | "
                f"{max(r['longest_idle_s'] for r in rows):.1f} | "
                f"{_mean(rows, 'switches'):.0f} | {_mean(rows, 'resent'):.0f} |"
            )
    if sec_rows:
        lines += security_table(sec_rows, out)
    found = checks(moving, sec_rows)
    lines += checks_table(found)
    (out / "table.md").write_text("\n".join(lines) + "\n")
    return found


def security_table(rows: Sequence[dict], out: Path) -> list[str]:
    """security.csv; the Markdown lines of the security section."""
    lines = [
        "",
        "## Link security's cost: one interface, fixed rate, SNR 45 dB, 10 s bulk (Mbit/s)",
        "",
        "Security on: Noise XX handshake over the air at the start, every frame sealed "
        "(ChaCha20-Poly1305, 28 bytes of header and tag). Cost: paired by seed, "
        "(off - on) / off; the oracle's: the same for the medium-time bound.",
        "",
        "| interface | rate | off | on | cost (%) | oracle's cost (%) | handshake (ms) | dropped |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with (out / "security.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "standard",
                "rate_mbps",
                "off_bps",
                "on_bps",
                "cost_pct",
                "cost_ci95",
                "oracle_cost_pct",
                "handshake_ms",
                "dropped",
            ]
        )
        for r in rows:
            h = "" if math.isnan(r["cost_ci"]) else f" ± {r['cost_ci']:.2f}"
            lines.append(
                f"| {r['standard']} | {r['rate_mbps']:g} | {text(r['off'], 1e6, '{:.3f}')} | "
                f"{text(r['on'], 1e6, '{:.3f}')} | {r['cost_pct']:.2f}{h} | "
                f"{r['oracle_cost_pct']:.2f} | {r['handshake_ms']:.2f} | {r['dropped']} |"
            )
            w.writerow(
                [
                    r["standard"],
                    r["rate_mbps"],
                    r["off_bps"],
                    r["on_bps"],
                    r["cost_pct"],
                    "" if math.isnan(r["cost_ci"]) else r["cost_ci"],
                    r["oracle_cost_pct"],
                    r["handshake_ms"],
                    r["dropped"],
                ]
            )
    return lines


def security_figure(rows: Sequence[dict], out: Path) -> Path:
    """fig_security.png: goodput off and on per rate, and the cost."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
    labels = [f"{r['standard']}\n{r['rate_mbps']:g}" for r in rows]
    x = range(len(rows))
    ax.bar([i - 0.2 for i in x], [r["off_bps"] / 1e6 for r in rows], 0.4, label="off")
    ax.bar([i + 0.2 for i in x], [r["on_bps"] / 1e6 for r in rows], 0.4, label="on")
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set(ylabel="goodput (Mbit/s)", title="TCP goodput, security off / on")
    ax.legend(fontsize=8)
    halves = [0.0 if math.isnan(r["cost_ci"]) else r["cost_ci"] for r in rows]
    bx.bar(list(x), [r["cost_pct"] for r in rows], yerr=halves, capsize=2, label="measured")
    bx.plot(
        [i + 0.25 for i in x],
        [r["oracle_cost_pct"] for r in rows],
        "rD",
        markersize=5,
        label="oracle",
    )
    bx.set_xticks(list(x), labels, fontsize=7)
    bx.set(ylabel="goodput cost (%)", title="cost of security per rate")
    bx.legend(fontsize=8)
    fig.tight_layout()
    path = out / "fig_security.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def figures(moving: dict, out: Path, seeds: Sequence[int], sweeps: bool) -> list[Path]:
    """The moving run against time; the sensitivity bars with --sweeps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import band_line

    paths = []
    fig, ax = plt.subplots(figsize=(9, 3.8))
    for i, (key, _, label, _) in enumerate(MOVING_VARIANTS):
        runs, t = [], []
        for seed in seeds:
            path = out / "runs" / f"moving-{key}" / f"seed-{seed}" / "timeseries" / "ftp.csv"
            if not path.exists():
                continue
            with path.open(newline="") as f:
                rows = list(csv.DictReader(f))
            ts = [float(r["time_s"]) for r in rows]
            t = max(t, ts, key=len)
            runs.append([float(r["goodput_bps"] or 0) / 1e6 for r in rows])
        if runs:
            band_line(ax, t, runs, i, label)
    log = moving["ours"][0]["bs_switch_log"]
    start = None
    for s in [*log, {"t": 40.0, "iface": 0}]:
        if s["iface"] == 1 and start is None:
            start = s["t"]
        elif s["iface"] == 0 and start is not None:
            ax.axvspan(start, s["t"], color="0.85", zorder=0)
            start = None
    ax.set(
        xlabel="time (s)",
        ylabel="throughput (Mbit/s)",
        title=(
            f"moving run L1 -> L4 -> L1, mean of seeds {seeds[0]}..{seeds[-1]}, band: 95 % CI "
            f"(shaded: UCL (ours) on 11b, seed {seeds[0]})"
        ),
    )
    ax.legend(loc="upper center", ncol=5, fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig_moving.png", dpi=110)
    plt.close(fig)
    paths.append(out / "fig_moving.png")
    if sweeps:
        keys = [k for k in moving]
        labels = {k: lab for k, _, lab, _ in MOVING_VARIANTS}
        labels.update({k: lab for k, _, lab, _ in SENSITIVITY})
        fig, ax = plt.subplots(figsize=(9, 4))
        means, halves = [], []
        for k in keys:
            m, h = ci([r["goodput_bps"] for r in moving[k]])
            means.append(m / 1e6)
            halves.append(0.0 if math.isnan(h) else h / 1e6)
        ax.barh(range(len(keys)), means, xerr=halves, color="C0", capsize=3)
        ax.set_yticks(range(len(keys)), [labels[k] for k in keys], fontsize=8)
        ax.set(xlabel="throughput (Mbit/s)", title="moving run: what the paper leaves open")
        fig.tight_layout()
        fig.savefig(out / "fig_sensitivity.png", dpi=110)
        plt.close(fig)
        paths.append(out / "fig_sensitivity.png")
    return paths


def reproduce(
    seeds: Sequence[int],
    out: Path,
    sweeps: bool = False,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    jobs: int | None = None,
) -> dict:
    """The whole reproduction; returns what ``table.md`` says, as a dict."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    locations, moving = run_all(seeds, out, sweeps, overrides, progress, jobs)
    security = run_security(seeds, out, overrides, progress, jobs)
    sec_rows = security_rows(security)
    found = write_table(locations, moving, out, seeds, sec_rows)
    figures(moving, out, seeds, sweeps)
    security_figure(sec_rows, out)
    report = {
        "paper": "ucl",
        "seeds": list(seeds),
        "locations": {f"{loc}-{k}": v for (loc, k), v in locations.items()},
        "moving": {
            k: [{m: v for m, v in r.items() if m != "bs_switch_log"} for r in rows]
            for k, rows in moving.items()
        },
        "security": [{k: v for k, v in r.items() if k not in ("off", "on")} for r in sec_rows],
    }
    return write_report(out, report, found)
