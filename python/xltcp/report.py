"""``xltcp report DIR``: one self-contained HTML file for a results folder.

The folder may be a run (``summary.json``), a seeds run (``aggregate.json``
and ``runs.csv``), a campaign (``campaign.json`` and its table) or a paper
reproduction (``reproduce.json``). The page holds the scenario, the results
table (mean ± 95 % Student t half width over seeds), the plots as PNG
images embedded in the page (no network needed): goodput, cwnd and sequence
per flow of a run; one curve per swept key with a confidence band for a
campaign; the paper's figures and its targets, met or missed, for a
reproduction.

Every file is read through :mod:`xltcp.files` (a regular file, bounded,
UTF-8, JSON of the right shape); a file that is not as xltcp writes it
raises ``files.FileError`` or :class:`ReportError` naming it, never a
traceback.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from xltcp import campaign, files, table  # noqa: E402
from xltcp.plot import plain_log_axis, series_of, style  # noqa: E402
from xltcp.stats import mean_ci  # noqa: E402

#: Metrics of the tables: (column, title, kind); each kind has its format
#: (:func:`_column`): rates in one unit per column, fractions in percent,
#: counts whole when they are.
METRICS = (
    ("goodput_bps", "goodput", "rate"),
    ("efficiency", "efficiency %", "percent"),
    ("retransmissions", "retransmissions", "count"),
    ("rto_count", "RTOs", "count"),
)

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.5em; overflow-wrap: anywhere; } h2 { font-size: 1.2em; margin-top: 2em; }
div.table { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img.plot { max-width: 100%; display: block; margin: 1em 0; }
pre { background: #f7f7f7; padding: 1em; overflow-x: auto; font-size: 0.85em; }
nav.toc { background: #f7f7f7; padding: 0.5em 1em; font-size: 0.9em; }
nav.toc ul { margin: 0.3em 0; padding-left: 1.2em; }
.met { color: #176b2c; } .missed { color: #a11; }
.md table { font-size: 0.8em; }
"""


class ReportError(ValueError):
    """Not a folder a report can be made of."""


#: What each JSON file of a results folder is, for messages.
_WHAT = {
    "summary.json": "a run's summary, written by xltcp run",
    "aggregate.json": "the aggregate of a --seeds run, written by xltcp run --seeds",
    campaign.PLAN_FILE: "a campaign's plan, written by xltcp sweep",
    "reproduce.json": "a reproduction's report, written by xltcp reproduce",
    "reproduce-all.json": "the report of every reproduction, written by xltcp reproduce all",
}


def _json(path: Path) -> dict:
    """A JSON object of a results folder (``_WHAT`` says which files)."""
    return files.read_json(path, dict, _WHAT.get(path.name, "a JSON object"))


def _list_of_dicts(data: dict, key: str, path: Path, required: bool = True) -> list[dict]:
    """``data[key]``, a list of objects (FileError naming ``path`` otherwise)."""
    value = data.get(key, None if required else [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise files.FileError(
            f"{path}: {key}: expected a list of objects (allowed: {_WHAT.get(path.name)})"
        )
    return value


def _csv_frame(path: Path, **options):
    """A CSV table of a results folder as a DataFrame (``files`` rules)."""
    import pandas as pd

    text = files.read_text(path, files.MAX_TABLE_BYTES, "a CSV table written by xltcp")
    try:
        return pd.read_csv(io.StringIO(text), **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as e:
        raise files.FileError(f"{path}: not a CSV table ({e})") from None


def _table_of(folder: Path):
    """A campaign's results table (``files`` rules; ReportError when missing)."""
    parquet = folder / campaign.RESULTS_PARQUET
    if parquet.exists():
        import pandas as pd

        files.check(parquet, files.MAX_TABLE_BYTES)
        try:
            return pd.read_parquet(parquet)
        except Exception as e:  # pyarrow's errors are its own
            raise files.FileError(f"{parquet}: not a Parquet table ({e})") from None
    if (folder / campaign.RESULTS_CSV).exists():
        return _csv_frame(folder / campaign.RESULTS_CSV)
    raise ReportError(
        f"{folder}: no {campaign.RESULTS_PARQUET} or {campaign.RESULTS_CSV} here: the campaign "
        "has not finished (xltcp sweep writes its table once every run is done)"
    )


def _png(fig, tight: bool = False) -> str:
    """The figure as an embedded PNG; ``tight`` takes in what lies outside
    the axes (legends below them)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight" if tight else None)
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode()
    return f'<img class="plot" alt="plot" src="data:image/png;base64,{data}">'


def _png_file(path: Path, alt: str) -> str:
    data = base64.b64encode(files.read_bytes(path, files.MAX_TABLE_BYTES)).decode()
    return f'<img class="plot" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _column(values: Sequence[Any], kind: str, many: bool) -> tuple[str, list[Any]]:
    """A header suffix and the cells of a metric: ``many`` runs per cell give
    mean ± 95 % CI (Student t), else the one value. ``values`` is a list of
    each cell's values."""
    clean = [
        [float(v) for v in cell if v is not None and not math.isnan(float(v))] for cell in values
    ]
    stats = [mean_ci(c) if c else (math.nan, math.nan) for c in clean]
    if kind == "rate":
        scale, unit = table.rate_column([m for m, _ in stats if not math.isnan(m)])
        header = f" {unit}"
    else:
        scale, header = (0.01, "") if kind == "percent" else (1.0, "")
    cells = []
    for cell, (mean, half) in zip(clean, stats, strict=True):
        if not cell:
            cells.append("n/a")
        elif kind == "count" and not many and float(cell[0]).is_integer():
            cells.append(f"{int(cell[0]):,}")
        elif kind == "count":
            cells.append(_pm(f"{mean:,.1f}", None if math.isnan(half) else f"{half:,.1f}"))
        elif kind == "percent":
            cells.append(
                _pm(f"{mean * 100:.1f}", None if math.isnan(half) else f"{half * 100:.1f}")
            )
        else:
            cells.append(table.number_pm(mean, None if math.isnan(half) else half, scale))
    return header, cells


def _pm(mean: str, half: str | None) -> str:
    return mean if half is None else f"{mean} ± {half}"


def _metric_table(lead: Sequence[str], keys: Sequence[Sequence[Any]], groups, many: bool) -> str:
    """A table: the ``lead`` columns (their cells ``keys``), then each metric
    of :data:`METRICS` the groups have, one cell per group."""
    header, columns = list(lead), []
    for metric, title, kind in METRICS:
        if not any(metric in g for g in groups):
            continue
        suffix, cells = _column([list(g.get(metric, [])) for g in groups], kind, many)
        header.append(title + suffix)
        columns.append(cells)
    rows = [[*k, *(c[i] for c in columns)] for i, k in enumerate(keys)]
    return _table(header, rows)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    inner = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="table">{inner}</div>'


def _scenario(echo: dict | None) -> str:
    if not echo:
        return ""
    text = html.escape(json.dumps(echo, indent=2))
    return f"<details><summary>scenario (after overrides)</summary><pre>{text}</pre></details>"


def _flow_plots(run_dir: Path) -> list[str]:
    from xltcp.plot import flow_figure

    parts = []
    if not (run_dir / "timeseries").is_dir():
        return parts
    for path in series_of(run_dir):
        parts.append(f"<h3>flow {html.escape(path.stem)}</h3>")
        parts.append(_png(flow_figure(path, path.stem)))
    return parts


def _run_section(summary: dict, run_dir: Path) -> list[str]:
    flows = _list_of_dicts(summary, "flows", run_dir / "summary.json")
    keys = [[f.get("name", "?"), f.get("direction", "")] for f in flows]
    groups = [{m: [f[m]] for m, _, _ in METRICS if f.get(m) is not None} for f in flows]
    events = summary.get("events")
    events = f"{events:,}" if isinstance(events, int) else "?"
    parts = [
        f"<p>seed {summary.get('seed')}, {table.human_seconds(summary.get('duration_s'))} "
        f"simulated, {events} events</p>",
        _metric_table(["flow", "direction"], keys, groups, many=False),
        _scenario(summary.get("scenario")),
        "<h2>Time series</h2>",
    ]
    return parts + _flow_plots(run_dir)


def _seeds_section(folder: Path) -> list[str]:
    frame = _csv_frame(folder / "runs.csv")
    if "flow" not in frame and "name" in frame:
        frame = frame.rename(columns={"name": "flow"})  # older tables named it so
    if "flow" not in frame:
        raise files.FileError(
            f"{folder / 'runs.csv'}: no flow column (allowed: a table written by xltcp run --seeds)"
        )
    aggregate = _json(folder / "aggregate.json")
    if not isinstance(aggregate.get("seeds", []), list):
        what = _WHAT["aggregate.json"]
        raise files.FileError(
            f"{folder / 'aggregate.json'}: seeds: expected a list (allowed: {what})"
        )
    keys, groups = [], []
    for name, group in frame.groupby("flow", sort=False):
        keys.append([name, len(group)])
        groups.append({m: list(group[m]) for m, _, _ in METRICS if m in group})
    parts = [
        f"<p>seeds {html.escape(table.seed_list(aggregate.get('seeds', [])))}; "
        "mean ± 95 % confidence half width (Student t)</p>",
        _metric_table(["flow", "runs"], keys, groups, many=True),
        _scenario(aggregate.get("scenario")),
    ]
    parts += _seeds_plots(folder)
    return parts


def _seeds_plots(folder: Path) -> list[str]:
    """Each flow's mean ± 95 % CI over the seeds (the figures ``xltcp plot`` draws)."""
    from xltcp import plot

    runs = plot.seed_folders(folder)
    names = sorted({p.stem for run in runs for p in (run / "timeseries").glob("*.csv")})
    flows = {f.get("name") for f in plot._summary(runs[0]).get("flows", [])} if runs else set()
    names = [n for n in names if not flows or n in flows]
    if not names:
        return []
    seeds = [int(p.name.split("-")[1]) for p in runs]
    parts = [f"<h2>Time series, mean ± 95 % CI over {len(seeds)} seeds</h2>"]
    for name in names:
        have = [(r / "timeseries" / f"{name}.csv", s) for r, s in zip(runs, seeds, strict=True)]
        have = [(p, s) for p, s in have if p.is_file()]
        fig = plot.seeds_figure([p for p, _ in have], [s for _, s in have], f"flow {name}")
        parts.append(_png(fig))
    return parts


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _axis_unit(suffix: str, values: Sequence[float]) -> tuple[float, str]:
    """The scale and unit of an axis of a swept key's numeric column (its
    :mod:`xltcp.schema` suffix): rates in the unit of their largest value,
    durations in ms below a second, sizes in kB or MB."""
    top = max((abs(v) for v in values), default=0.0)
    if suffix == "_bps":
        return table.rate_column(values)
    if suffix == "_s":
        return (1e-3, "ms") if top < 1 else (1.0, "s")
    if suffix == "_bytes":
        return (1e6, "MB") if top >= 1e6 else (1e3, "kB") if top >= 1e3 else (1.0, "B")
    return 1.0, "packets"


def _short_names(keys: Sequence[str]) -> dict[str, str]:
    """Each key by its last dotted part (``wireless.rate`` -> ``rate``), or
    by more of it where two keys would read the same."""
    names = {}
    for key in keys:
        parts = key.split(".")
        depth = 1
        while depth < len(parts) and any(
            o != key and o.split(".")[-depth:] == parts[-depth:] for o in keys
        ):
            depth += 1
        names[key] = ".".join(parts[-depth:])
    return names


def _sweep_curves(frame, keys: list[str], metric: str, title: str) -> str:
    """One panel per swept key: the metric against the key's values (on a
    numeric axis with its unit when the values carry one), one line per
    combination of the other keys and flow (only those that vary name the
    line), a band of ±95 % CI clipped at 0; y from 0."""
    from xltcp import schema

    if metric not in frame:
        return ""
    # Bands are clipped to what the quantity can be: 0 up, and 100 % for efficiency.
    if metric == "goodput_bps":
        scale, unit = table.rate_column(list(frame[metric]))
        scale, ylabel, top = 1.0 / scale, f"{title} ({unit})", math.inf
    else:
        scale, ylabel, top = 100.0, title, 100.0
    # At most two panels a row, so that each keeps a readable size on the page.
    cols = min(2, len(keys))
    rows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 5.2 * rows), squeeze=False)
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    for ax, key in zip(axes.flat, keys, strict=False):
        made = schema.numeric_name(key, list(frame[key]))
        xkey, xlabel = key, key
        if made is not None:
            xkey = made[0]
            frame = frame if xkey in frame else frame.assign(**{xkey: made[1]})
            xscale, unit = _axis_unit(xkey[len(key) :], list(frame[xkey]))
            frame = frame.assign(**{xkey: [v / xscale for v in frame[xkey]]})
            xlabel = f"{key} ({unit})"
        values = (
            sorted(dict.fromkeys(frame[xkey]))
            if made or _numeric(frame[xkey])
            else list(dict.fromkeys(frame[xkey]))
        )
        numeric = _numeric(values)
        others = [k for k in [*(k for k in keys if k != key), "flow"] if frame[k].nunique() > 1]
        groups = frame.groupby(others, sort=False) if others else [((), frame)]
        short = _short_names(others)
        for k, (label, group) in enumerate(groups):
            label = label if isinstance(label, tuple) else (label,)
            xs, means, lows, highs = [], [], [], []
            for i, value in enumerate(values):
                cell = group[group[xkey] == value][metric].dropna().astype(float) * scale
                if cell.empty:
                    continue
                mean, half = mean_ci(list(cell))
                half = 0.0 if math.isnan(half) else half
                xs.append(value if numeric else i)
                means.append(mean)
                lows.append(max(0.0, mean - half))
                highs.append(min(top, mean + half))
            name = ", ".join(f"{short[o]}={v}" for o, v in zip(others, label, strict=True))
            st = style(k)
            ax.plot(xs, means, label=name, **st)
            ax.fill_between(xs, lows, highs, alpha=0.15, color=st["color"], lw=0)
        if not numeric:
            ax.set_xticks(range(len(values)), [str(v) for v in values])
        elif len(values) > 2 and min(values) > 0 and max(values) / min(values) >= 100:
            plain_log_axis(ax, values)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if others and len(ax.get_lines()) <= 12:
            ax.legend(
                fontsize="small",
                loc="upper center",
                bbox_to_anchor=(0.5, -0.15),
                frameon=False,
            )
    fig.subplots_adjust(hspace=0.6 + 0.06 * len(keys), wspace=0.3)
    return _png(fig, tight=True)


def _campaign_section(folder: Path, plan: dict) -> list[str]:
    frame = _table_of(folder)
    if frame.empty or "point" not in frame or "flow" not in frame:
        raise ReportError(f"{folder}: the campaign's table has no runs: nothing to report")
    keys = list(plan.get("vary", {}))
    lead, groups = [], []
    for _, group in frame.groupby(["point", "flow"], sort=True):
        first = group.iloc[0]
        lead.append([*(first[k] for k in keys), first["flow"], len(group)])
        groups.append({m: list(group[m]) for m, _, _ in METRICS if m in group})
    sets = ", ".join(plan.get("set", [])) or "none"
    parts = [
        f"<p>scenario {html.escape(Path(plan['scenario']).name)}; fixed overrides: "
        f"{html.escape(sets)}; {len(plan.get('points', []))} points x "
        f"{len(plan.get('seeds', []))} seeds = {len(plan.get('runs', []))} runs; "
        "mean ± 95 % confidence half width (Student t)</p>",
        _metric_table([*keys, "flow", "runs"], lead, groups, many=True),
    ]
    first = plan["runs"][0].get("key") if plan.get("runs") else None
    if isinstance(first, str) and (folder / "runs" / first / "summary.json").is_file():
        summary = _json(folder / "runs" / first / "summary.json")
        parts.append(_scenario(summary.get("scenario")))
    if keys:
        parts.append("<h2>Sweep curves</h2>")
        parts.append(_sweep_curves(frame, keys, "goodput_bps", "goodput"))
        parts.append(_sweep_curves(frame, keys, "efficiency", "efficiency %"))
    return parts


#: Unit suffixes of the reproductions' column names, as a header says them.
_HEADER_UNITS = (
    ("_mbps", " Mbit/s"),
    ("_kbps", " kbit/s"),
    ("_bps", " bit/s"),
    ("_pct", " %"),
    ("_ms", " ms"),
    ("_s", " s"),
    ("_j", " J"),
)


def pretty_header(name: str) -> str:
    """A column name as a header: ``goodput_mbps`` -> ``goodput Mbit/s``,
    ``ci95`` -> ``95 % CI``, underscores as spaces."""
    if name in ("ci95", "ci"):
        return "95 % CI"
    for suffix, unit in _HEADER_UNITS:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)].replace("_", " ") + unit
    return name.replace("_", " ")


def pretty_cell(value: Any) -> str:
    """A cell with at most four significant digits (whole numbers as they
    are, with thousands separators); text as it is."""
    text = str(value)
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number) or text.strip().lower() in ("nan", "inf", "-inf"):
        return text
    if number.is_integer() and "." not in text and "e" not in text.lower():
        return f"{int(number):,}"
    magnitude = abs(number)
    if magnitude >= 1000:
        return f"{number:,.0f}"
    if magnitude >= 100:
        return f"{number:.1f}"
    if magnitude >= 10:
        return f"{number:.2f}"
    if magnitude >= 0.001 or number == 0:
        return f"{number:.3f}".rstrip("0").rstrip(".") if magnitude < 1 else f"{number:.3f}"
    return f"{number:.3g}"


def _merged_columns(columns: Sequence[str], rows: Sequence[Sequence[Any]]):
    """Each ``X_mean`` with its ``X_ci95`` (or a column with the ``ci95`` that
    follows it) as one "X" column of "mean ± half" cells."""
    header, plan = [], []
    i = 0
    while i < len(columns):
        name = columns[i]
        nxt = columns[i + 1] if i + 1 < len(columns) else None
        if name.endswith("_mean") and nxt == name[:-5] + "_ci95":
            header.append(pretty_header(name[:-5]))
            plan.append((i, i + 1))
            i += 2
        elif nxt == "ci95":
            header.append(pretty_header(name))
            plan.append((i, i + 1))
            i += 2
        else:
            header.append(pretty_header(name))
            plan.append((i, None))
            i += 1
    out = []
    for row in rows:
        cells = []
        for a, b in plan:
            mean = pretty_cell(row[a])
            half = "" if b is None else str(row[b]).strip()
            cells.append(f"{mean} ± {_half(half, mean)}" if half else mean)
        out.append(cells)
    return header, out


def _half(half: str, mean: str) -> str:
    """A table.csv half width printed like its mean (text kept as it is)."""
    try:
        return table.like(float(half), mean)
    except ValueError:
        return half


def _markdown(text: str) -> str:
    """Markdown (tables included) as HTML, raw HTML in it escaped."""
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    # Its headings sit two levels below the page's sections (h1 -> h3, ...).
    for level in (4, 3, 2, 1):
        rendered = rendered.replace(f"<h{level}>", f"<h{level + 2}>")
        rendered = rendered.replace(f"</h{level}>", f"</h{level + 2}>")
    return rendered


def _reproduction_section(folder: Path) -> list[str]:
    report = _json(folder / "reproduce.json")
    parts = []
    if (folder / "table.csv").is_file():
        frame = _csv_frame(folder / "table.csv", keep_default_na=False)
        header, rows = _merged_columns(list(frame.columns), frame.values.tolist())
        parts.append(
            "<details><summary>table.csv: every configuration and column</summary>"
            f"{_table(header, rows)}</details>"
        )
    checks = _list_of_dicts(report, "checks", folder / "reproduce.json", required=False)
    met = sum(1 for c in checks if c["met"])
    parts.append(f"<h2>Targets: {met} met, {len(checks) - met} missed</h2>")
    rows = [["met" if c["met"] else "missed", c["target"], c["measured"]] for c in checks]
    head = "<tr><th>result</th><th>paper's target</th><th>ours</th></tr>"
    body = "".join(
        f'<tr><td class="{r[0]}">{r[0]}</td><td>{html.escape(r[1])}</td>'
        f"<td>{html.escape(r[2])}</td></tr>"
        for r in rows
    )
    parts.append(f'<div class="table"><table>{head}{body}</table></div>')
    if (folder / "table.md").is_file():
        rendered = _markdown(files.read_text(folder / "table.md"))
        parts.append(f'<h2>Tables</h2><div class="md table">{rendered}</div>')
    figures = _figures(folder)
    if figures:
        parts.append("<h2>Figures</h2>")
        for path in figures:
            parts.append(f"<h3>{html.escape(path.name)}</h3>")
            parts.append(_png_file(path, path.stem))
    return parts


def _figures(folder: Path) -> list[Path]:
    """Every PNG the folder holds: the paper's figures (``fig*``) first, then
    sweeps, zooms and any other, each group by name."""
    order = ("fig", "sweep_", "zoom_")
    found = sorted(folder.glob("*.png"))

    def rank(path: Path) -> tuple[int, str]:
        group = next((i for i, p in enumerate(order) if path.name.startswith(p)), len(order))
        return group, path.name

    return sorted(found, key=rank)


def _all_section(folder: Path) -> list[str]:
    summary = _json(folder / "reproduce-all.json")
    rows = []
    for name, paper in summary["papers"].items():
        met = sum(1 for c in paper["checks"] if c["met"])
        rows.append([name, met, len(paper["checks"]) - met])
    parts = [
        f"<p>seeds {', '.join(map(str, summary.get('seeds', [])))}; "
        f"{summary['met']} targets met, {summary['missed']} missed</p>",
        _table(["paper", "targets met", "targets missed"], rows),
    ]
    for name in summary["papers"]:
        parts.append(f"<h2>{html.escape(name)}</h2>")
        # The paper's own headings one level down, so the contents list the papers.
        for part in _reproduction_section(folder / name):
            part = part.replace("<h3>", "<h4>").replace("</h3>", "</h4>")
            parts.append(part.replace("<h2>", "<h3>").replace("</h2>", "</h3>"))
    return parts


def kind(folder: Path) -> str:
    """What the folder holds: run, seeds, campaign, reproduction or all reproductions."""
    if (folder / "reproduce-all.json").is_file():
        return "all"
    if (folder / "reproduce.json").is_file():
        return "reproduction"
    if (folder / campaign.PLAN_FILE).is_file():
        return "campaign"
    if (folder / "aggregate.json").is_file() and (folder / "runs.csv").is_file():
        return "seeds"
    if (folder / "summary.json").is_file():
        return "run"
    raise ReportError(
        f"{folder}: not a results folder (allowed: a folder written by xltcp run, "
        "xltcp run --seeds, xltcp sweep or xltcp reproduce)"
    )


def _name(value: Any, fallback: str) -> str:
    """``value["name"]`` of a scenario echo, else ``fallback``."""
    name = value.get("name") if isinstance(value, dict) else None
    return str(name) if name else fallback


def _sections(folder: Path, what: str) -> tuple[str, list[str]]:
    """The report's title and body of a folder of kind ``what``."""
    if what == "run":
        summary = _json(folder / "summary.json")
        return _name(summary.get("scenario"), folder.name), _run_section(summary, folder)
    if what == "seeds":
        aggregate = _json(folder / "aggregate.json")
        return _name(aggregate.get("scenario"), folder.name), _seeds_section(folder)
    if what == "campaign":
        plan = _json(folder / campaign.PLAN_FILE)
        scenario = plan.get("scenario")
        if not isinstance(scenario, str) or not isinstance(plan.get("vary", {}), dict):
            raise files.FileError(
                f"{folder / campaign.PLAN_FILE}: no scenario or vary table "
                f"(allowed: {_WHAT[campaign.PLAN_FILE]})"
            )
        _list_of_dicts(plan, "runs", folder / campaign.PLAN_FILE, required=False)
        return f"sweep of {Path(scenario).stem}", _campaign_section(folder, plan)
    if what == "all":
        return "every paper's reproduction", _all_section(folder)
    paper = _json(folder / "reproduce.json").get("paper", folder.name)
    return f"reproduction of {paper}", _reproduction_section(folder)


def _overrides(folder: Path, what: str) -> list[str]:
    """The ``--set`` overrides the folder's results were made with: the
    manifest's (a run, seeds, a reproduction) or the campaign plan's."""
    name = campaign.PLAN_FILE if what == "campaign" else "manifest.json"
    if not (folder / name).is_file():
        return []
    try:
        data = files.read_json(folder / name, dict, "a JSON object")
    except files.FileError:
        return []
    found = data.get("set" if what == "campaign" else "overrides", [])
    return [str(s) for s in found] if isinstance(found, list) else []


_H2 = re.compile(r"<h2>(.*?)</h2>")


def _with_contents(body: list[str]) -> list[str]:
    """``body`` with an anchor on each ``<h2>`` and, when there are several,
    a table of contents linking them before the first."""
    entries: list[tuple[str, str]] = []

    def anchor(match: re.Match) -> str:
        ident = f"s{len(entries) + 1}"
        entries.append((ident, match.group(1)))
        return f'<h2 id="{ident}">{match.group(1)}</h2>'

    body = [_H2.sub(anchor, part) for part in body]
    if len(entries) < 2:
        return body
    items = "".join(f'<li><a href="#{i}">{text}</a></li>' for i, text in entries)
    return [f'<nav class="toc"><strong>Contents</strong><ul>{items}</ul></nav>', *body]


def build(folder: str | Path, out: str | Path | None = None) -> Path:
    """Write the report of ``folder`` to ``out`` (default ``folder/report.html``)."""
    folder = Path(folder)
    what = kind(folder)
    try:
        name, body = _sections(folder, what)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
        if isinstance(e, (files.FileError, ReportError)):
            raise
        # A file whose shape the checks above did not foresee.
        raise ReportError(
            f"{folder}: a file of this {what} folder is not as xltcp writes it "
            f"({type(e).__name__}: {e})"
        ) from None
    overrides = _overrides(folder, what)
    title = f"xltcp report: {name or folder.name}"
    if overrides:
        title += f" (--set {' '.join(overrides)})"
    title = html.escape(title)
    body = _with_contents(body)
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{_STYLE}</style></head><body><h1>{title}</h1>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    path = Path(out) if out is not None else folder / "report.html"
    path.write_text(page)
    return path
