"""Paper 001 (DSASync): what the choices the paper leaves open do to the
comparison (``xltcp reproduce dsasync --sensitivity``).

Downlink, one host, the presets of ``scenarios/dsasync`` with one setting
changed per row: regular, DSASync and DSASync without the uplink smoothing,
over the same seeds (paired: a seed gives every configuration the same TFP
schedule). The settings:

- ``tfp_queue``: what a TFP does to the frames in the MACs (``hold``: they
  wait, the AP holding a frozen host's frame; ``flush``, the preset: the
  testbed driver's retune clears the queue; ``drop``: also the PU periods
  stop the driver, and frames handed to a frozen station are dropped);
- the TCP: Linux's (the preset, the testbed's) or the RFC's (NewReno with
  SACK, no F-RTO);
- the AP's interface queue (frames), the wired one-way delay (the paper's
  hosts sat on one campus LAN), and the TFP statistics (the PU's mean OFF
  period at the same 20 % utilisation; the hosts' sensing period and
  length at the same 5 %).

It writes ``sensitivity.csv``, a section of ``table.md`` and
``sensitivity.png`` (goodput per setting, the preset's point marked, and
regular's retransmitted traffic beside the paper's 3.1 Mbit/s).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path

from xltcp import runner
from xltcp.reproduce.common import ci as _ci
from xltcp.reproduce.common import pool as _pool
from xltcp.reproduce.common import text as _text

#: The RFC TCP: every key the presets set to Linux's behaviour, back to the
#: RFC default (NewReno with SACK blocks, no F-RTO).
RFC_TCP: tuple[str, ...] = (
    'tcp.recovery="newreno"',
    "tcp.frto=false",
    'tcp.min_rto_mode="rfc6298"',
    'tcp.rtt_estimator="rfc6298"',
    'tcp.rtt_sampling="timed"',
    "tcp.prr=false",
    'tcp.prr_variant="rfc6937"',
    "tcp.eifel=false",
    'tcp.frto_variant="rfc5682"',
    "tcp.abc_limit=1",
    'tcp.ssthresh_from="flight_size"',
    "tcp.rack=false",
    'tcp.rack_variant="rfc8985"',
    "tcp.dsack=false",
    "tcp.dsack_undo=false",
    "tcp.quickacks=0",
    "tcp.ack_pushed=false",
    "tcp.delayed_ack_ato=false",
    "tcp.snd_buffer_auto=false",
    "tcp.ack_window_growth=false",
)

#: The three configurations of each row: (name, preset stem, overrides).
CONFIGS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("regular", "regular", ()),
    ("dsasync", "dsasync", ()),
    ("dsasync-nosmooth", "dsasync", ('agent.0.smoothing="off"',)),
)


def _pu(off_s: float) -> tuple[str, ...]:
    """PU periods with mean OFF (busy) `off_s` at 20 % utilisation."""
    return (
        f'wireless.availability.on="exp({4 * off_s:g}s)"',
        f'wireless.availability.off="exp({off_s:g}s)"',
    )


def _sensing(every_ms: int) -> tuple[str, ...]:
    """Host sensing every `every_ms` for 5 % of it."""
    return (
        f'wireless.dsa.node_sensing_every="{every_ms}ms"',
        f'wireless.dsa.node_sensing_for="{every_ms // 20}ms"',
    )


#: (factor, value label, numeric value, overrides, is the preset's).
ROWS: tuple[tuple[str, str, float, tuple[str, ...], bool], ...] = (
    ("tfp_queue", "hold", 0, ('wireless.dsa.tfp_queue="hold"',), False),
    ("tfp_queue", "flush", 1, (), True),
    ("tfp_queue", "drop", 2, ('wireless.dsa.tfp_queue="drop"',), False),
    ("tcp", "Linux", 0, (), True),
    ("tcp", "RFC", 1, RFC_TCP, False),
    ("ap_queue_frames", "10", 10, ('wireless.queue="10p"',), False),
    ("ap_queue_frames", "30", 30, ('wireless.queue="30p"',), False),
    ("ap_queue_frames", "100", 100, (), True),
    ("ap_queue_frames", "300", 300, ('wireless.queue="300p"',), False),
    ("wired_delay_ms", "1", 1, ('wired.delay="1ms"',), False),
    ("wired_delay_ms", "10", 10, (), True),
    ("wired_delay_ms", "25", 25, ('wired.delay="25ms"',), False),
    ("pu_mean_off_ms", "125", 125, _pu(0.125), False),
    ("pu_mean_off_ms", "500", 500, (), True),
    ("pu_mean_off_ms", "2000", 2000, _pu(2.0), False),
    ("node_sensing_every_ms", "200", 200, _sensing(200), False),
    ("node_sensing_every_ms", "500", 500, (), True),
    ("node_sensing_every_ms", "2000", 2000, _sensing(2000), False),
)

#: What each factor is, for the table and the plot.
FACTORS = {
    "tfp_queue": "what a TFP does to queued frames",
    "tcp": "the hosts' TCP",
    "ap_queue_frames": "AP interface queue (frames)",
    "wired_delay_ms": "wired one-way delay (ms)",
    "pu_mean_off_ms": "PU mean busy period (ms), 20 % utilisation",
    "node_sensing_every_ms": "host sensing period (ms), 5 % of it",
}

Progress = Callable[[str], None]


def total_runs(seeds: int) -> int:
    """How many runs :func:`run` makes."""
    return len(ROWS) * len(CONFIGS) * seeds


def _preset(stem: str) -> Path:
    import xltcp

    return xltcp.scenarios_dir() / "dsasync" / f"{stem}-down.toml"


def _metrics(summary: dict) -> dict:
    flow = summary["flows"][0]
    return {
        "goodput_bps": flow["goodput_bps"],
        "retx_bps": flow["retransmissions"] * 1460 * 8 / summary["duration_s"],
        "rto_count": float(flow["rto_count"]),
    }


def run(
    seeds: Sequence[int],
    overrides: Sequence[str],
    progress: Progress | None,
    jobs: int | None = None,
) -> list[dict]:
    """Every row, configuration and seed; one dict per (row, configuration)
    with the per-seed metrics."""
    tasks = {}
    with _pool(jobs, progress) as pool:
        for factor, label, _, sets, _ in ROWS:
            for name, stem, extra in CONFIGS:
                for seed in seeds:
                    args = (_preset(stem), seed, None, [*overrides, *sets, *extra])
                    tag = f"sensitivity {factor}={label} {name} seed {seed}"
                    tasks[(factor, label, name, seed)] = pool.run(tag, runner.run_one, *args)
        results = {key: _metrics(t.result()) for key, t in tasks.items()}
    rows = []
    for factor, label, value, _, preset in ROWS:
        for name, _, _ in CONFIGS:
            per_seed = [results[(factor, label, name, s)] for s in seeds]
            rows.append(
                {
                    "factor": factor,
                    "value": label,
                    "x": value,
                    "preset": preset,
                    "config": name,
                    "runs": per_seed,
                }
            )
    return rows


def ratio_of_means(
    base: list[dict], other: list[dict], key: str = "goodput_bps"
) -> tuple[float, float]:
    """Mean `key` of `other` over that of `base`, minus 1, with a 95 % half
    width by the delta method on the paired per-seed differences (robust
    to a seed whose base is zero, unlike a mean of per-seed ratios)."""
    b = [r[key] for r in base]
    o = [r[key] for r in other]
    mb = sum(b) / len(b)
    if mb <= 0:
        return float("nan"), float("nan")
    # Paired: o - (ratio) * b has mean zero at the ratio of means.
    ratio = (sum(o) / len(o)) / mb
    _, half = _ci([oi - ratio * bi for oi, bi in zip(o, b, strict=True)])
    return ratio - 1, half / mb


def write(out: Path, rows: list[dict], seeds: Sequence[int]) -> list[str]:
    """``sensitivity.csv`` and the lines of the table's section."""
    with (out / "sensitivity.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "factor",
                "value",
                "preset",
                "config",
                "goodput_bps",
                "ci95",
                "retx_bps",
                "rto",
                "gain",
                "gain_ci95",
            ]
        )
        for r in rows:
            g = _ci([x["goodput_bps"] for x in r["runs"]])
            base = next(
                b
                for b in rows
                if (b["factor"], b["value"], b["config"]) == (r["factor"], r["value"], "regular")
            )
            gain = ratio_of_means(base["runs"], r["runs"]) if r["config"] != "regular" else (0, 0)
            w.writerow(
                [
                    r["factor"],
                    r["value"],
                    r["preset"],
                    r["config"],
                    g[0],
                    g[1],
                    _ci([x["retx_bps"] for x in r["runs"]])[0],
                    _ci([x["rto_count"] for x in r["runs"]])[0],
                    gain[0],
                    gain[1],
                ]
            )
    lines = [
        "",
        "## Sensitivity: the choices the paper leaves open (downlink)",
        "",
        f"One setting changed per row from the presets (marked *); seeds {seeds[0]}..{seeds[-1]} "
        f"({len(seeds)}), mean ± 95 % CI. Gain: the configuration's mean goodput over "
        "regular's, minus 1 (95 % CI by the delta method on the paired seeds). The paper: "
        "regular retransmits 3.1 Mbit/s; DSASync +74 %.",
        "",
        "| factor | value | regular (Mbit/s) | regular retransmits (Mbit/s) "
        "| DSASync (Mbit/s) | gain | DSASync, no smoothing (Mbit/s) | gain |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for factor, label, _, _, preset in ROWS:
        cell = {
            r["config"]: r["runs"] for r in rows if (r["factor"], r["value"]) == (factor, label)
        }

        def gain(name: str, cell: dict = cell) -> str:
            return "{:+.1%} ± {:.1%}".format(*ratio_of_means(cell["regular"], cell[name]))

        def g(name: str, cell: dict = cell) -> str:
            return _text([x["goodput_bps"] for x in cell[name]], 1e6, "{:.2f}")

        lines.append(
            f"| {factor} | {label}{' *' if preset else ''} | {g('regular')} "
            f"| {_text([x['retx_bps'] for x in cell['regular']], 1e6, '{:.3f}')} "
            f"| {g('dsasync')} | {gain('dsasync')} | {g('dsasync-nosmooth')} "
            f"| {gain('dsasync-nosmooth')} |"
        )
    return lines


def figure(out: Path, rows: list[dict]) -> Path:
    """``sensitivity.png``: goodput per configuration against each numeric
    factor (the preset's value marked), and regular's retransmitted
    traffic against the AP queue beside the paper's 3.1 Mbit/s."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xltcp.plot import plain_log_axis, sweep_line

    numeric = ["ap_queue_frames", "wired_delay_ms", "pu_mean_off_ms", "node_sensing_every_ms"]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    panels = [*numeric, "tfp_queue", "retx"]
    for ax, factor in zip(axes.flat, panels, strict=True):
        if factor == "retx":
            sel = [r for r in rows if r["factor"] == "ap_queue_frames" and r["config"] == "regular"]
            xs = [r["x"] for r in sel]
            stats = [_ci([x["retx_bps"] for x in r["runs"]]) for r in sel]
            sweep_line(
                ax,
                xs,
                [m / 1e6 for m, _ in stats],
                [h / 1e6 for _, h in stats],
                0,
                "regular, measured",
            )
            ax.axhline(3.1, color="black", ls="--", lw=0.8, label="paper: 3.1 Mbit/s")
            ax.set(
                xscale="log",
                xlabel=FACTORS["ap_queue_frames"],
                ylabel="regular retransmits (Mbit/s)",
                yscale="log",
            )
            plain_log_axis(ax, xs)
            ax.legend(fontsize=7)
            continue
        for i, (name, _, _) in enumerate(CONFIGS):
            sel = [r for r in rows if r["factor"] == factor and r["config"] == name]
            xs = [r["x"] for r in sel]
            stats = [_ci([x["goodput_bps"] for x in r["runs"]]) for r in sel]
            sweep_line(ax, xs, [m / 1e6 for m, _ in stats], [h / 1e6 for _, h in stats], i, name)
            preset = [r["x"] for r in sel if r["preset"]]
        for x in preset:
            ax.axvline(x, color="grey", lw=0.8, ls=":")
        if factor == "tfp_queue":
            ax.set_xticks([0, 1, 2], ["hold", "flush", "drop"])
        else:
            ax.set_xscale("log")
            plain_log_axis(ax, xs)
        ax.set(xlabel=FACTORS[factor], ylabel="downlink goodput (Mbit/s)")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("DSASync, downlink: one setting changed at a time (dotted: the preset)")
    fig.tight_layout()
    path = out / "sensitivity.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
