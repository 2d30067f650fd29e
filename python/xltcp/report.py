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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from xltcp import campaign, files  # noqa: E402
from xltcp.plot import plain_log_axis, series_of, style  # noqa: E402
from xltcp.stats import mean_ci  # noqa: E402

#: Metrics of the tables: (column, title, scale, format).
METRICS = (
    ("goodput_bps", "goodput (Mbit/s)", 1e-6, "{:.3f}"),
    ("efficiency", "efficiency", 1.0, "{:.3f}"),
    ("retransmissions", "retransmissions", 1.0, "{:.1f}"),
    ("rto_count", "RTOs", 1.0, "{:.1f}"),
)

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img.plot { max-width: 100%; display: block; margin: 1em 0; }
pre { background: #f7f7f7; padding: 1em; overflow-x: auto; font-size: 0.85em; }
.met { color: #176b2c; } .missed { color: #a11; }
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


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode()
    return f'<img class="plot" alt="plot" src="data:image/png;base64,{data}">'


def _png_file(path: Path, alt: str) -> str:
    data = base64.b64encode(files.read_bytes(path, files.MAX_TABLE_BYTES)).decode()
    return f'<img class="plot" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _cell(values: Sequence[float], scale: float, fmt: str) -> str:
    values = [float(v) * scale for v in values if v is not None and not math.isnan(float(v))]
    if not values:
        return "n/a"
    mean, half = mean_ci(values)
    if math.isnan(half):
        return fmt.format(mean)
    return f"{fmt.format(mean)} ± {fmt.format(half)}"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


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
    rows = [
        [f.get("name", "?"), f.get("direction", "")]
        + [_cell([f.get(m)], s, fmt) if f.get(m) is not None else "n/a" for m, _, s, fmt in METRICS]
        for f in flows
    ]
    events = summary.get("events")
    events = f"{events:,}" if isinstance(events, int) else "?"
    parts = [
        f"<p>seed {summary.get('seed')}, {summary.get('duration_s')} s simulated, "
        f"{events} events</p>",
        _table(["flow", "direction", *(t for _, t, _, _ in METRICS)], rows),
        _scenario(summary.get("scenario")),
        "<h2>Time series</h2>",
    ]
    return parts + _flow_plots(run_dir)


def _seeds_section(folder: Path) -> list[str]:
    frame = _csv_frame(folder / "runs.csv")
    if "name" not in frame:
        raise files.FileError(
            f"{folder / 'runs.csv'}: no name column (allowed: a table written by xltcp run --seeds)"
        )
    aggregate = _json(folder / "aggregate.json")
    if not isinstance(aggregate.get("seeds", []), list):
        what = _WHAT["aggregate.json"]
        raise files.FileError(
            f"{folder / 'aggregate.json'}: seeds: expected a list (allowed: {what})"
        )
    rows = []
    for name, group in frame.groupby("name", sort=False):
        rows.append(
            [name, len(group)] + [_cell(group[m], s, fmt) for m, _, s, fmt in METRICS if m in group]
        )
    titles = [t for m, t, _, _ in METRICS if m in frame]
    parts = [
        f"<p>seeds {', '.join(map(str, aggregate.get('seeds', [])))}; "
        "mean ± 95 % confidence half width (Student t)</p>",
        _table(["flow", "runs", *titles], rows),
        _scenario(aggregate.get("scenario")),
    ]
    first = (aggregate.get("seeds") or [None])[0]
    if first is not None and (folder / f"seed-{first}" / "timeseries").is_dir():
        parts.append(f"<h2>Time series, seed {first}</h2>")
        parts += _flow_plots(folder / f"seed-{first}")
    return parts


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _sweep_curves(frame, keys: list[str], metric: str, title: str, scale: float) -> str:
    """One panel per swept key: the metric against the key's values, one line
    per combination of the other keys and flow, a band of ±95 % CI."""
    fig, axes = plt.subplots(1, len(keys), figsize=(5.5 * len(keys), 4), squeeze=False)
    for ax, key in zip(axes[0], keys, strict=True):
        values = list(dict.fromkeys(frame[key]))
        numeric = _numeric(values)
        others = [k for k in keys if k != key] + ["flow"]
        for k, (label, group) in enumerate(frame.groupby(others, sort=False)):
            label = label if isinstance(label, tuple) else (label,)
            xs, means, lows, highs = [], [], [], []
            for i, value in enumerate(values):
                cell = group[group[key] == value][metric].dropna().astype(float) * scale
                if cell.empty:
                    continue
                mean, half = mean_ci(list(cell))
                half = 0.0 if math.isnan(half) else half
                xs.append(value if numeric else i)
                means.append(mean)
                lows.append(mean - half)
                highs.append(mean + half)
            name = ", ".join(f"{k}={v}" for k, v in zip(others, label, strict=True))
            st = style(k)
            ax.plot(xs, means, label=name, **st)
            ax.fill_between(xs, lows, highs, alpha=0.2, color=st["color"], lw=0)
        if not numeric:
            ax.set_xticks(range(len(values)), [str(v) for v in values])
        elif len(values) > 2 and min(values) > 0 and max(values) / min(values) >= 100:
            plain_log_axis(ax, values)
        ax.set_xlabel(key)
        ax.set_ylabel(title)
        ax.grid(alpha=0.3)
        if len(ax.get_lines()) <= 8:
            ax.legend(fontsize="x-small")
    fig.tight_layout()
    return _png(fig)


def _campaign_section(folder: Path, plan: dict) -> list[str]:
    frame = _table_of(folder)
    if frame.empty or "point" not in frame or "flow" not in frame:
        raise ReportError(f"{folder}: the campaign's table has no runs: nothing to report")
    keys = list(plan.get("vary", {}))
    rows = []
    for _, group in frame.groupby(["point", "flow"], sort=True):
        first = group.iloc[0]
        rows.append(
            [*(first[k] for k in keys), first["flow"], len(group)]
            + [_cell(group[m], s, fmt) for m, _, s, fmt in METRICS if m in group]
        )
    titles = [t for m, t, _, _ in METRICS if m in frame]
    sets = ", ".join(plan.get("set", [])) or "none"
    parts = [
        f"<p>scenario {html.escape(Path(plan['scenario']).name)}; fixed overrides: "
        f"{html.escape(sets)}; {len(plan.get('points', []))} points x "
        f"{len(plan.get('seeds', []))} seeds = {len(plan.get('runs', []))} runs; "
        "mean ± 95 % confidence half width (Student t)</p>",
        _table([*keys, "flow", "runs", *titles], rows),
    ]
    first = plan["runs"][0].get("key") if plan.get("runs") else None
    if isinstance(first, str) and (folder / "runs" / first / "summary.json").is_file():
        summary = _json(folder / "runs" / first / "summary.json")
        parts.append(_scenario(summary.get("scenario")))
    if keys:
        parts.append("<h2>Sweep curves</h2>")
        for metric, title, scale, _ in METRICS[:2]:
            parts.append(_sweep_curves(frame, keys, metric, title, scale))
    return parts


def _reproduction_section(folder: Path) -> list[str]:
    report = _json(folder / "reproduce.json")
    parts = []
    if (folder / "table.csv").is_file():
        table = _csv_frame(folder / "table.csv", keep_default_na=False)
        parts.append(_table(list(table.columns), table.values.tolist()))
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
    parts.append(f"<table>{head}{body}</table>")
    if (folder / "table.md").is_file():
        text = html.escape(files.read_text(folder / "table.md"))
        parts.append(f"<details><summary>table.md</summary><pre>{text}</pre></details>")
    figures = sorted(folder.glob("fig*.png")) + sorted(folder.glob("sweep_*.png"))
    if figures:
        parts.append("<h2>Figures</h2>")
        parts += [_png_file(path, path.stem) for path in figures]
    return parts


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
        parts += _reproduction_section(folder / name)
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
    title = html.escape(f"xltcp report: {name or folder.name}")
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{title}</h1>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    path = Path(out) if out is not None else folder / "report.html"
    path.write_text(page)
    return path
