"""Plots of a run's time series: one PNG per flow.

Each figure has three panels sharing the time axis: goodput (per sample
interval), cwnd and ssthresh, and the highest sequence number acknowledged
with the bytes sent beyond it (highest sent minus highest acknowledged, on
an axis of its own: on the sequence axis the two lines lie on each other),
with the intervals in which the wireless hop was blocked shaded.

Timeouts, fast retransmits and the hop's blockages come from the run's
``events.csv`` (the simulator writes each at the simulated instant it
happened). A folder without one (the emulator's: Linux's TCP reports no
such events) falls back on the sampled ``congestion_state`` and
``hop_blocked`` columns, which miss what starts and ends between two
samples; the legend then says "sampled".

A folder of several seeds (``xltcp run --seeds``: ``seed-<n>/timeseries/``)
is drawn per flow as the mean over seeds at each sample time with its 95%
Student t confidence band (:func:`seeds_figure`), goodput and cwnd, the
seeds themselves as thin lines behind.

The files are read through :mod:`xltcp.files`: a time series that is not a
regular file, is larger than ``files.MAX_TABLE_BYTES``, is not CSV text or
has no samples, a ``summary.json`` that is not a JSON object, and a folder
with no time series raise ``files.FileError`` naming the file.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import matplotlib

from xltcp import files

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: What a time series must be, for messages.
_SERIES = "a time series written by xltcp run: a header line and a row per sample"


def _rows(path: Path) -> list[dict[str, str]]:
    rows = files.read_csv(path, files.MAX_TABLE_BYTES)
    if not rows:
        raise files.FileError(f"{path}: no samples (allowed: {_SERIES})")
    return rows


def _read(path: Path) -> dict[str, list[float]]:
    cols: dict[str, list[float]] = {}
    for row in _rows(path):
        for key, value in row.items():
            if not isinstance(value, str):
                continue  # a row longer or shorter than the header
            try:
                x = float(value) if value != "" else float("nan")
            except ValueError:
                continue  # text columns (congestion state)
            cols.setdefault(key, []).append(x)
    if "time_s" not in cols:
        raise files.FileError(f"{path}: no time_s column (allowed: {_SERIES})")
    return cols


def _blocked_spans(t: list[float], blocked: list[float]) -> list[tuple[float, float]]:
    spans, start = [], None
    for ti, b in zip(t, blocked, strict=False):
        if b and start is None:
            start = ti
        elif not b and start is not None:
            spans.append((start, ti))
            start = None
    if start is not None and t:
        spans.append((start, t[-1]))
    return spans


#: What ``events.csv`` must be, for messages.
_EVENTS = "a run's events, written by xltcp run: time_s,flow,event,... per line"


def read_events(run_dir: Path) -> list[dict] | None:
    """The lines of ``run_dir/events.csv`` as {"time_s": float, "flow": str,
    "event": str, "cwnd_bytes": float}, in time order; None when the folder
    has none (the emulator's, or one written before xltcp wrote events)."""
    path = Path(run_dir) / "events.csv"
    if not path.is_file():
        return None
    found = []
    for row in files.read_csv(path, files.MAX_TABLE_BYTES):
        try:
            at = float(row.get("time_s") or "")
        except ValueError as e:
            raise files.FileError(
                f"{path}: time_s {row.get('time_s')!r} (allowed: {_EVENTS})"
            ) from e
        found.append(
            {
                "time_s": at,
                "flow": str(row.get("flow") or ""),
                "event": str(row.get("event") or ""),
                "cwnd_bytes": _number(row.get("cwnd_bytes")),
            }
        )
    return found


def _number(text) -> float:
    """A CSV cell as a number; NaN when empty or not one."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


#: Names of the markers on the window panel, and the ``events.csv`` event
#: each is drawn from.
MARKERS = {"RTO": "rto", "fast recovery": "fast_retransmit"}


def flow_markers(events: list[dict], flow: str) -> dict[str, list[tuple[float, float]]]:
    """Flow ``flow``'s timeouts and entries into fast recovery in
    ``events`` (:func:`read_events`): (time, cwnd after it) per marker name."""
    return {
        name: [
            (e["time_s"], e["cwnd_bytes"])
            for e in events
            if e["flow"] == flow and e["event"] == kind
        ]
        for name, kind in MARKERS.items()
    }


def event_spans(events: list[dict], end: float) -> list[tuple[float, float]]:
    """The intervals in which the wireless hop was blocked, from the
    ``hop_blocked`` / ``hop_unblocked`` lines of ``events``; one still open
    at the end runs to ``end``."""
    spans, start = [], None
    for e in events:
        if e["event"] == "hop_blocked" and start is None:
            start = e["time_s"]
        elif e["event"] == "hop_unblocked" and start is not None:
            spans.append((start, e["time_s"]))
            start = None
    if start is not None:
        spans.append((start, max(end, start)))
    return spans


def _run_end(run_dir: Path, t: list[float]) -> float:
    """The run's simulated duration (its summary's), else the last sample."""
    d = _summary(run_dir).get("duration_s")
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        return float(d)
    return t[-1] if t else 0.0


def blocked_spans(csv_path: Path, c: dict[str, list[float]] | None = None):
    """The blocked intervals of the run whose time series is ``csv_path``
    (``<run>/timeseries/<flow>.csv``) and whether they are exact: from the
    run's ``events.csv`` when it has one, else from the sampled
    ``hop_blocked`` column (to the sample interval)."""
    c = c if c is not None else _read(csv_path)
    t = c.get("time_s", [])
    run_dir = Path(csv_path).parent.parent
    events = read_events(run_dir)
    if events is not None:
        return event_spans(events, _run_end(run_dir, t)), True
    return _blocked_spans(t, c.get("hop_blocked", [])), False


def common_spans(per_run: list[list[tuple[float, float]]]) -> list[tuple[float, float]] | None:
    """The blocked intervals when every run has the same ones (to a
    nanosecond), else None: shading a mean over runs with one run's
    blockages would show them where the others had none."""
    if not per_run:
        return []
    first = per_run[0]
    for spans in per_run[1:]:
        if len(spans) != len(first) or any(
            abs(a - c) > 1e-9 or abs(b - d) > 1e-9
            for (a, b), (c, d) in zip(spans, first, strict=True)
        ):
            return None
    return first


def moving_average(values: list[float], n: int) -> list[float]:
    """The mean of each value and the ``n - 1`` before it (fewer at the
    start); NaNs are skipped."""
    out: list[float] = []
    for i in range(len(values)):
        window = [v for v in values[max(0, i - n + 1) : i + 1] if not math.isnan(v)]
        out.append(sum(window) / len(window) if window else float("nan"))
    return out


#: Formats ``xltcp plot --format`` writes.
FORMATS = ("png", "pdf", "svg")

_RATE_UNITS = ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1.0, "bit/s"))
_BYTE_UNITS = ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B"))


def scale(values: list[float], units) -> tuple[float, str]:
    """The largest unit in which the largest value is at least 1."""
    top = max((abs(v) for v in values if not math.isnan(v)), default=0.0)
    for factor, name in units:
        if top >= factor:
            return factor, name
    return units[-1]


def _events(t: list[float], states: list[str]) -> dict[str, list[float]]:
    """Times the sender entered RTO recovery ("loss") or fast recovery."""
    found: dict[str, list[float]] = {"RTO": [], "fast recovery": []}
    previous = "open"
    for ti, state in zip(t, states, strict=False):
        if state != previous:
            if state == "loss":
                found["RTO"].append(ti)
            elif state == "recovery":
                found["fast recovery"].append(ti)
        previous = state
    return found


def _states(csv_path: Path) -> list[str]:
    return [str(row.get("congestion_state") or "") for row in _rows(csv_path)]


def plot_flow(
    csv_path: Path, out_path: Path, title: str, marks: dict[str, float] | None = None
) -> Path:
    """Draws one flow's time series into ``out_path`` (its suffix names the format)."""
    return save_figure(flow_figure(csv_path, title, marks), out_path)


def flow_figure(csv_path: Path, title: str, marks: dict[str, float] | None = None):
    """One flow's goodput, cwnd and sequence panels as a matplotlib figure.

    Units scale to the values (bit/s to Gbit/s, B to GB); RTOs and entries
    into fast recovery are marked on the window panel at the cwnd after
    them, and ``marks`` (e.g. {"start": 1.0, "completed": 5.4}) as vertical
    lines on every panel. Markers and blocked intervals are at the exact
    times of the run's ``events.csv``; without one, at the samples where
    ``congestion_state`` and ``hop_blocked`` changed (said in the legend
    and title).
    """
    c = _read(csv_path)
    t = c.get("time_s", [])
    fig, (ax_g, ax_w, ax_s) = plt.subplots(3, 1, sharex=True, figsize=(9, 7.5))
    goodput = c.get("goodput_bps", [])
    g_scale, g_unit = scale(goodput, _RATE_UNITS)
    ax_g.plot(t, [g / g_scale for g in goodput], lw=1)
    ax_g.set_ylabel(f"goodput ({g_unit})")
    cwnd, ss = c.get("cwnd_bytes", []), c.get("ssthresh_bytes", [])
    w_scale, w_unit = scale(cwnd + ss, _BYTE_UNITS)
    ax_w.plot(t, [w / w_scale for w in cwnd], lw=1, label="cwnd")
    # An empty cell (no threshold before the first loss) reads as NaN: a gap.
    ax_w.plot(t, [s / w_scale for s in ss], lw=1, ls="--", label="ssthresh")
    ax_w.set_ylabel(f"cwnd, ssthresh ({w_unit})")
    events = read_events(Path(csv_path).parent.parent)
    if events is not None:
        found, how = flow_markers(events, Path(csv_path).stem), ""
    else:
        found, how = _sampled_markers(t, cwnd, _states(csv_path)), " (sampled)"
    for (name, points), (marker, color) in zip(
        found.items(), (("v", "C3"), ("o", "C2")), strict=True
    ):
        if points:
            xs = [x for x, _ in points]
            ys = [(0.0 if math.isnan(y) else y) / w_scale for _, y in points]
            ax_w.plot(xs, ys, ls="", marker=marker, color=color, ms=4, label=name + how)
    ax_w.legend(loc="upper right", fontsize="small")
    sent, acked = c.get("snd_max_rel", []), c.get("snd_una_rel", [])
    s_scale, s_unit = scale(acked, _BYTE_UNITS)
    ax_s.plot(t, [x / s_scale for x in acked], lw=1.2, color="C0", label="highest acked")
    ax_s.set_ylabel(f"highest acked ({s_unit})", color="C0")
    ax_s.set_xlabel("time (s)")
    # Sent and acked differ by at most a window: a second axis draws the
    # difference at its own scale.
    ax_o = ax_s.twinx()
    ahead = [a - b for a, b in zip(sent, acked, strict=False)]
    o_scale, o_unit = scale(ahead, _BYTE_UNITS)
    ax_o.plot(
        t[: len(ahead)],
        [x / o_scale for x in ahead],
        lw=0.9,
        ls="--",
        color="C1",
        label="highest sent - highest acked",
    )
    ax_o.set_ylabel(f"sent beyond acked ({o_unit})", color="C1")
    ax_o.set_ylim(bottom=0)
    lines = ax_s.get_lines() + ax_o.get_lines()
    ax_s.legend(lines, [ln.get_label() for ln in lines], loc="upper left", fontsize="small")
    spans, exact = blocked_spans(csv_path, c)
    for a, b in spans:
        for ax in (ax_g, ax_w, ax_s):
            ax.axvspan(a, b, color="0.85", lw=0)
    for name, at in (marks or {}).items():
        for ax in (ax_g, ax_w, ax_s):
            ax.axvline(at, color="0.3", lw=0.8, ls=":")
        ax_g.annotate(
            name,
            (at, 1.0),
            xycoords=("data", "axes fraction"),
            fontsize="small",
            ha="left",
            va="top",
        )
    if spans:
        grey = "grey: wireless hop blocked" + ("" if exact else ", sampled")
        title = f"{title}  ({grey})"
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def _sampled_markers(
    t: list[float], cwnd: list[float], states: list[str]
) -> dict[str, list[tuple[float, float]]]:
    """:data:`MARKERS` from the sampled congestion states (:func:`_events`):
    the first sample in each state, with its cwnd."""
    by_time = dict(zip(t, cwnd, strict=False))
    return {
        name: [(x, by_time.get(x, 0.0)) for x in times]
        for name, times in _events(t, states).items()
    }


def _summary(run_dir: Path) -> dict:
    """The run's ``summary.json`` ({} when there is none)."""
    path = run_dir / "summary.json"
    try:
        return files.read_json(path, dict, "a run's summary, written by xltcp run")
    except FileNotFoundError:
        return {}


def _dicts(value) -> list[dict]:
    """The objects of a JSON array (none when it is not one)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def series_of(folder: Path) -> list[Path]:
    """The time series (``timeseries/*.csv``) of a run's folder, sorted;
    FileError when there is none."""
    found = sorted(p for p in (folder / "timeseries").glob("*.csv"))
    if not found:
        raise files.FileError(
            f"{folder / 'timeseries'}: no time series (*.csv) here (allowed: a folder written "
            "by xltcp run, a CSV file per flow)"
        )
    return found


def overlay_figure(series: list[Path], title: str):
    """The goodput of every flow of a run on one axis."""
    runs = [(p.stem, _read(p)) for p in series]
    everything = [g for _, c in runs for g in c.get("goodput_bps", [])]
    g_scale, g_unit = scale(everything, _RATE_UNITS)
    fig, ax = plt.subplots(figsize=(9, 4))
    styles = ["-", "--", "-.", ":"]
    for i, (name, c) in enumerate(runs):
        ax.plot(
            c.get("time_s", []),
            [g / g_scale for g in c.get("goodput_bps", [])],
            lw=1,
            ls=styles[i // 10 % len(styles)],
            label=name,
        )
    ax.set_ylabel(f"goodput ({g_unit})")
    ax.set_xlabel("time (s)")
    if len(runs) <= 12:
        ax.legend(loc="upper right", fontsize="small")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def plot_run(run_dir: Path, fmt: str = "png") -> list[Path]:
    """Plots every flow of a results folder into ``run_dir/plots/``, and with
    several flows ``all-flows.<fmt>`` (every flow's goodput on one axis).

    Titles name the scenario, the seed and the flow; a flow's start and a
    file transfer's completion are marked.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: allowed {', '.join(FORMATS)}")
    summary = _summary(run_dir)
    echo = summary.get("scenario", {}) if isinstance(summary.get("scenario"), dict) else {}
    label = f"{echo.get('name', run_dir.name)}, seed {summary.get('seed', '?')}"
    specs = {str(f.get("name")): f for f in _dicts(echo.get("flow", echo.get("flows", [])))}
    results = {str(f.get("name")): f for f in _dicts(summary.get("flows", []))}
    series = series_of(run_dir)
    written = []
    for p in series:
        marks = {}
        start = _seconds(specs.get(p.stem, {}).get("start"))
        if start:
            marks["start"] = start
        done = results.get(p.stem, {}).get("completion_s")
        if isinstance(done, (int, float)) and not isinstance(done, bool):
            marks["completed"] = (start or 0.0) + float(done)
        out = run_dir / "plots" / f"{p.stem}.{fmt}"
        written.append(plot_flow(p, out, f"{label}: flow {p.stem}", marks))
    if len(series) > 1:
        fig = overlay_figure(series, f"{label}: every flow's goodput")
        out = run_dir / "plots" / f"all-flows.{fmt}"
        fig.savefig(out, dpi=110)
        plt.close(fig)
        written.append(out)
    return written


def _seconds(text) -> float | None:
    """Seconds of an echoed duration like "1.5s", "200ms" (None if absent)."""
    if not isinstance(text, str):
        return None
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s|min|h)", text.strip())
    if not m:
        return None
    factor = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
    return float(m.group(1)) * factor[m.group(2)]


def seed_folders(folder: Path) -> list[Path]:
    """The ``seed-<n>`` folders of a seeds run that have time series, by seed."""
    found = [
        p
        for p in folder.glob("seed-*")
        if re.fullmatch(r"seed-[0-9]+", p.name) and (p / "timeseries").is_dir()
    ]
    return sorted(found, key=lambda p: int(p.name.split("-")[1]))


def _mean_band(columns: list[list[float]], confidence: float = 0.95):
    """Per sample index: mean and CI half width over the runs that have it."""
    from xltcp.stats import mean_ci

    length = max((len(c) for c in columns), default=0)
    means, halves = [], []
    for i in range(length):
        values = [c[i] for c in columns if i < len(c) and not math.isnan(c[i])]
        if not values:
            means.append(float("nan"))
            halves.append(float("nan"))
            continue
        mean, half = mean_ci(values, confidence)
        means.append(mean)
        halves.append(0.0 if math.isnan(half) else half)
    return means, halves


#: Line styles that stay apart by colour, marker and dash alike (so also in
#: grey print and for colour-blind readers): the ``i``-th series of a figure
#: takes ``STYLES[i % len(STYLES)]``.
STYLES: tuple[dict, ...] = (
    {"color": "C0", "marker": "o", "ls": "-"},
    {"color": "C3", "marker": "s", "ls": "--"},
    {"color": "C2", "marker": "^", "ls": "-."},
    {"color": "C1", "marker": "D", "ls": ":"},
    {"color": "C4", "marker": "v", "ls": (0, (5, 1, 1, 1, 1, 1))},
    {"color": "C5", "marker": "P", "ls": (0, (8, 2))},
)


def style(i: int) -> dict:
    """The ``i``-th of :data:`STYLES` (colour, marker, line style)."""
    return dict(STYLES[i % len(STYLES)])


def mean_band(runs: list[list[float]], confidence: float = 0.95, floor: float | None = None):
    """Per sample index over ``runs`` (one list per seed): the mean, and the
    lower and upper ends of its Student t confidence interval (the mean
    itself where one run has the sample). With ``floor`` (0 for a quantity
    that cannot be negative: goodput, a window, a count) the lower end is
    clipped there: the t interval is symmetric and reaches below zero when
    a few seeds spread widely around a small mean, which no seed can."""
    mean, half = _mean_band(runs, confidence)
    lo = [m - h for m, h in zip(mean, half, strict=True)]
    if floor is not None:
        lo = [x if math.isnan(x) else max(x, floor) for x in lo]
    hi = [m + h for m, h in zip(mean, half, strict=True)]
    return mean, lo, hi


#: Opacity of a confidence band's fill; its edges are drawn stronger, so
#: that overlapping bands stay apart.
BAND_ALPHA = 0.12
BAND_EDGE_ALPHA = 0.55


def _band(ax, t, lo, hi, color, **kw):
    """A confidence band: a light fill with thin edges of the same colour."""
    from matplotlib.colors import to_rgba

    return ax.fill_between(
        t,
        lo,
        hi,
        facecolor=to_rgba(color, BAND_ALPHA),
        edgecolor=to_rgba(color, BAND_EDGE_ALPHA),
        lw=0.6,
        **kw,
    )


def band_line(
    ax, t: list[float], runs: list[list[float]], i: int, label: str, where=None, floor=0.0
):
    """Draws the mean of ``runs`` (one series per seed, sampled at ``t``)
    in style ``i``, markers spaced along it, over its 95 % confidence band
    (clipped at ``floor``, 0 by default: every quantity xltcp draws so is
    nonnegative; None for a signed one); ``where`` (e.g. "post") draws
    steps. The label says how many seeds."""
    mean, lo, hi = mean_band(runs, floor=floor)
    n = min(len(t), len(mean))
    st = style(i)
    color = st["color"]
    step = {"step": where} if where else {}
    _band(ax, t[:n], lo[:n], hi[:n], color, **step)
    seeds = f"mean of {len(runs)} seeds" if len(runs) > 1 else "1 seed"
    kw = {"drawstyle": f"steps-{where}"} if where else {}
    ax.plot(
        t[:n],
        mean[:n],
        lw=1.2,
        markersize=4,
        markevery=max(1, n // 12),
        label=f"{label} ({seeds})",
        **st,
        **kw,
    )


def sweep_line(ax, xs, means, halves, i: int, label: str) -> None:
    """A sweep's means with 95 % error bars in style ``i`` (NaN halves, from
    one seed, draw no bar)."""
    err = [0.0 if h is None or math.isnan(h) else h for h in halves]
    ax.errorbar(xs, means, yerr=err, capsize=3, markersize=5, lw=1.2, label=label, **style(i))


def plain_log_axis(ax, values, axis: str = "x") -> None:
    """A log axis whose ticks are ``values`` written plainly ("2", "0.25"),
    with no minor tick labels (matplotlib's default writes "2x10^0")."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    target.set_major_locator(FixedLocator(sorted(values)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


#: The window goodput is averaged over in a seeds figure, seconds.
GOODPUT_WINDOW_S = 1.0


def seeds_figure(csv_paths: list[Path], seeds: list[int], title: str):
    """Goodput and cwnd of one flow over seeds: mean, 95% CI band, each seed.

    Goodput is each seed's moving average over :data:`GOODPUT_WINDOW_S`
    (said in the axis label): a sample interval's deliveries come in bursts
    (a window's worth after a recovery), and the raw samples' peaks stretch
    the axis far above the mean. Both quantities are nonnegative, so their
    bands are clipped at 0 (:func:`mean_band`). The wireless hop's blocked
    intervals are shaded only when they are the same in every seed shown
    (the simulator's seeds draw their own schedules); otherwise none is,
    and the title says so.
    """
    runs = [_read(p) for p in csv_paths]
    longest = max(runs, key=lambda c: len(c.get("time_s", [])))
    t = longest.get("time_s", [])
    interval = t[1] - t[0] if len(t) > 1 and t[1] > t[0] else 0.1
    window = max(1, round(GOODPUT_WINDOW_S / interval))
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    smoothed = [moving_average(c.get("goodput_bps", []), window) for c in runs]
    panels = (
        (smoothed, _RATE_UNITS, f"goodput, {window * interval:g} s moving average"),
        ([c.get("cwnd_bytes", []) for c in runs], _BYTE_UNITS, "cwnd"),
    )
    for ax, (columns, units, name) in zip(axes, panels, strict=True):
        factor, unit = scale([x for c in columns for x in c], units)
        series = [[x / factor for x in c] for c in columns]
        for one in series:
            ax.plot(t[: len(one)], one, lw=0.5, color="0.7")
        mean, lo, hi = mean_band(series, floor=0.0)
        n = min(len(t), len(mean))
        ax.plot(t[:n], mean[:n], lw=1.4, color="C0", label=f"mean of {len(runs)} seeds")
        _band(ax, t[:n], lo[:n], hi[:n], "C0", label="95% CI (clipped at 0)")
        ax.set_ylabel(f"{name} ({unit})")
        ax.set_ylim(bottom=0)
    spans = common_spans([blocked_spans(p, c)[0] for p, c in zip(csv_paths, runs, strict=True)])
    note = ""
    if spans:
        for ax in axes:
            for a, b in spans:
                ax.axvspan(a, b, color="0.88", lw=0, zorder=0)
        note = "\n(grey: wireless hop blocked, the same in every seed)"
    elif spans is None:
        note = "\n(the seeds' blockages differ: not shaded)"
    axes[0].legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"{title}, seeds {_seed_span(seeds)}{note}")
    fig.tight_layout()
    return fig


def _seed_span(seeds: list[int]) -> str:
    if seeds and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}" if len(seeds) > 1 else str(seeds[0])
    return ",".join(str(s) for s in seeds)


def plot_seeds(folder: Path, fmt: str = "png") -> list[Path]:
    """Plots every flow of a seeds run, over its seeds, into ``folder/plots/``."""
    runs = seed_folders(folder)
    seeds = [int(p.name.split("-")[1]) for p in runs]
    names = sorted({p.stem for run in runs for p in (run / "timeseries").glob("*.csv")})
    if not names:
        raise files.FileError(
            f"{folder}: no time series (*.csv) in its seed-<n>/timeseries/ folders "
            "(allowed: a folder written by xltcp run --seeds)"
        )
    echo = _summary(runs[0]).get("scenario") if runs else None
    scenario = echo.get("name") if isinstance(echo, dict) and echo.get("name") else folder.name
    written = []
    for name in names:
        paths = [r / "timeseries" / f"{name}.csv" for r in runs]
        have = [(p, s) for p, s in zip(paths, seeds, strict=True) if p.is_file()]
        title = f"{scenario}: flow {name}"
        fig = seeds_figure([p for p, _ in have], [s for _, s in have], title)
        written.append(save_figure(fig, folder / "plots" / f"{name}.{fmt}"))
    return written


def save_figure(fig, path: Path) -> Path:
    """Writes ``fig`` to ``path`` (its folder made; the suffix names the
    format) and closes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_label(run_dir: Path) -> str:
    """How a run is named on a comparison: its engine and folder."""
    engine = _summary(run_dir).get("engine", "sim")
    name = "Linux via the emulator" if engine == "emu" else "simulator"
    return f"{name} ({run_dir.name})"


def compare_figure(paths: list[Path], labels: list[str], title: str):
    """One flow of several runs drawn together, in four panels sharing time:
    goodput, cwnd (ssthresh dashed), SRTT and RTO (dashed), and the highest
    sequence acknowledged; each run's timeouts are marked on its window, at
    their times in its ``events.csv``, or for a run without one (the
    emulator's) at the samples where it entered RTO recovery (said in the
    title)."""
    runs = [_read(p) for p in paths]
    fig, (ax_g, ax_w, ax_r, ax_s) = plt.subplots(4, 1, sharex=True, figsize=(9, 9.5))
    sampled: list[str] = []
    every = {
        col: [x for c in runs for x in c.get(col, [])]
        for col in ("goodput_bps", "cwnd_bytes", "ssthresh_bytes", "snd_una_rel")
    }
    g_scale, g_unit = scale(every["goodput_bps"], _RATE_UNITS)
    w_scale, w_unit = scale(every["cwnd_bytes"] + every["ssthresh_bytes"], _BYTE_UNITS)
    s_scale, s_unit = scale(every["snd_una_rel"], _BYTE_UNITS)
    for i, (path, c, label) in enumerate(zip(paths, runs, labels, strict=True)):
        color = style(i)["color"]
        t = c.get("time_s", [])
        ax_g.plot(
            t, [g / g_scale for g in c.get("goodput_bps", [])], lw=1, color=color, label=label
        )
        cwnd = c.get("cwnd_bytes", [])
        ax_w.plot(t, [w / w_scale for w in cwnd], lw=1, color=color)
        ax_w.plot(t, [w / w_scale for w in c.get("ssthresh_bytes", [])], lw=1, ls="--", color=color)
        events = read_events(Path(path).parent.parent)
        if events is not None:
            rtos = flow_markers(events, Path(path).stem)["RTO"]
        else:
            rtos = _sampled_markers(t, cwnd, _states(path))["RTO"]
            sampled.append(label)
        ax_w.plot(
            [x for x, _ in rtos],
            [(0.0 if math.isnan(y) else y) / w_scale for _, y in rtos],
            ls="",
            marker="v",
            color=color,
            ms=5,
        )
        ax_r.plot(t, c.get("srtt_s", []), lw=1, color=color)
        ax_r.plot(t, c.get("rto_s", []), lw=1, ls="--", color=color)
        ax_s.plot(t, [x / s_scale for x in c.get("snd_una_rel", [])], lw=1, color=color)
        for a, b in blocked_spans(path, c)[0] if i == 0 else []:
            for ax in (ax_g, ax_w, ax_r, ax_s):
                ax.axvspan(a, b, color="0.88", lw=0)
    ax_g.set_ylabel(f"goodput ({g_unit})")
    ax_g.legend(loc="upper right", fontsize="small")
    ax_w.set_ylabel(f"cwnd, ssthresh ({w_unit})")
    ax_r.set_ylabel("SRTT, RTO (s)")
    ax_r.set_yscale("log")
    ax_s.set_ylabel(f"acknowledged ({s_unit})")
    ax_s.set_xlabel("time (s)")
    where = (
        f"; {', '.join(sampled)}: timeouts at the samples after them (no events.csv)"
        if sampled
        else ""
    )
    fig.suptitle(
        f"{title}\n(dashed: ssthresh, RTO; triangles: timeouts; grey: hop blocked in the first"
        f"{where})"
    )
    fig.tight_layout()
    return fig


def compare_runs(run_dir: Path, other: Path, fmt: str = "png") -> list[Path]:
    """Each flow both folders have a time series of, the two runs drawn
    together (:func:`compare_figure`), into
    ``run_dir/plots/<flow>-against-<other folder>.<fmt>``."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: allowed {', '.join(FORMATS)}")
    ours = {p.stem: p for p in (run_dir / "timeseries").glob("*.csv")}
    theirs = {p.stem: p for p in (other / "timeseries").glob("*.csv")}
    summary = _summary(run_dir)
    echo = summary.get("scenario") if isinstance(summary.get("scenario"), dict) else {}
    scenario = echo.get("name", run_dir.name)
    labels = [run_label(run_dir), run_label(other)]
    written = []
    for name in sorted(ours.keys() & theirs.keys()):
        title = f"{scenario}, seed {summary.get('seed', '?')}: flow {name}"
        fig = compare_figure([ours[name], theirs[name]], labels, title)
        written.append(save_figure(fig, run_dir / "plots" / f"{name}-against-{other.name}.{fmt}"))
    return written
