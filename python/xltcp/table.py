"""Rich rendering of run summaries and aggregates, with human units."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

_RATE_UNITS = ("bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s")


def _three_digits(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _rate_unit(bps: float) -> tuple[float, str]:
    # The largest unit in which the value still prints below 1000.
    value, unit = abs(float(bps)), 0
    while unit < len(_RATE_UNITS) - 1 and float(_three_digits(value)) >= 1000:
        value /= 1000
        unit += 1
    return 1000.0**unit, _RATE_UNITS[unit]


def human_rate(bps: float | None) -> str:
    """A rate in decimal SI units with three significant digits: "8.41 Mbit/s"."""
    if bps is None or math.isnan(bps):
        return "n/a"
    scale, unit = _rate_unit(bps)
    sign = "-" if bps < 0 else ""
    return f"{sign}{_three_digits(abs(bps) / scale)} {unit}"


def rate_pm(mean: float, half: float | None) -> str:
    """A mean rate ± half width in the mean's unit: "7.00 ± 2.01 Mbit/s"."""
    if half is None:
        return human_rate(mean)
    scale, unit = _rate_unit(mean)
    return f"{_three_digits(mean / scale)} ± {_three_digits(half / scale)} {unit}"


def rate_column(values: Sequence[float | None]) -> tuple[float, str]:
    """One unit for a column of rates: the one its largest value prints in
    (``(1e6, "Mbit/s")``), so every cell of the column is in the same unit."""
    finite = [abs(float(v)) for v in values if v is not None and not math.isnan(float(v))]
    return _rate_unit(max(finite, default=0.0))


def number(value: float | None, scale: float = 1.0) -> str:
    """``value / scale`` with three significant digits (two decimals below 10)."""
    if value is None or math.isnan(value):
        return "n/a"
    sign = "-" if value < 0 else ""
    scaled = abs(value) / scale
    return f"{sign}{scaled:.3f}" if 0 < scaled < 1 else f"{sign}{_three_digits(scaled)}"


def number_pm(mean: float, half: float | None, scale: float = 1.0) -> str:
    """``mean ± half`` divided by ``scale``, three significant digits each."""
    if half is None:
        return number(mean, scale)
    shown = number(mean, scale)
    return f"{shown} ± {like(abs(half) / scale, shown)}"


def like(half: float, mean: str) -> str:
    """A half width to as many decimals as its mean was printed with:
    1.14 ± 0.60, not ± 0.602."""
    decimals = len(mean.split(".")[1]) if "." in mean else 0
    return f"{half:,.{decimals}f}"


def human_seconds(seconds: float | None) -> str:
    """A duration: "20 s", "1.5 s", "850 ms", "42 us"."""
    if seconds is None or math.isnan(seconds):
        return "n/a"
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.3g} s" if seconds < 1000 else f"{seconds:.0f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} us"


def percent(fraction: float | None) -> str:
    """A fraction as a percentage with one decimal: 0.8412 -> "84.1 %"."""
    if fraction is None or math.isnan(fraction):
        return "n/a"
    return f"{fraction * 100:.1f} %"


def _count(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _flow_table(title: str, rate_unit: str) -> Table:
    # Units in the headers, one per column; the flow's name never wraps.
    table = Table(title=title, title_justify="left")
    table.add_column("flow", no_wrap=True)
    table.add_column("dir")
    table.add_column(f"goodput {rate_unit}", justify="right")
    table.add_column("efficiency %", justify="right")
    table.add_column("retx", justify="right")
    table.add_column("RTOs", justify="right")
    return table


def _percent_cell(fraction: float | None) -> str:
    return "n/a" if fraction is None or math.isnan(fraction) else f"{fraction * 100:.1f}"


def _is_file(flow: dict) -> bool:
    app = flow.get("app")
    return isinstance(app, dict) and app.get("kind") == "file"


def _file_flows(summary: dict) -> set[str]:
    """Names of the scenario's file-transfer flows (from the echo)."""
    echo = summary.get("scenario", {})
    flows = echo.get("flows", echo.get("flow", [])) if isinstance(echo, dict) else []
    names = set()
    for flow in flows if isinstance(flows, list) else []:
        if isinstance(flow, dict) and (flow.get("app") == "file" or _is_file(flow)):
            names.add(str(flow.get("name")))
    return names


def run_table(summary: dict) -> Table:
    """One row per flow of a single run.

    A file transfer's goodput is over its own transfer time (start to
    completion), its efficiency against what the links allowed meanwhile,
    and a "completed" column says when it finished.
    """
    files = _file_flows(summary)

    def goodput_of(flow: dict) -> float | None:
        is_file = str(flow.get("name")) in files
        goodput = flow.get("active_goodput_bps") if is_file else flow.get("goodput_bps")
        return goodput if goodput is not None else flow.get("goodput_bps")

    rates = [goodput_of(f) for f in summary.get("flows", [])]
    rates += [d.get("goodput_bps") for d in summary.get("directions", [])]
    scale, unit = rate_column(rates)
    table = _flow_table(f"{_scenario_name(summary)}, seed {summary.get('seed')}", unit)
    if files:
        table.add_column("completed", justify="right")
        table.caption = "file flows: goodput over the transfer, from start to completion"
        table.caption_justify = "left"
    for flow in summary.get("flows", []):
        is_file = str(flow.get("name")) in files
        row = [
            str(flow.get("name")),
            str(flow.get("direction")),
            number(goodput_of(flow), scale),
            _percent_cell(flow.get("efficiency")),
            _count(flow.get("retransmissions")),
            _count(flow.get("rto_count")),
        ]
        if files:
            done = flow.get("completion_s")
            row.append(
                "" if not is_file else human_seconds(done) if done is not None else "not done"
            )
        table.add_row(*row)
    # With several flows in a direction, each flow's efficiency is against
    # what it could have had alone; the direction's row is against the hop.
    for d in summary.get("directions", []):
        if d.get("flows", 0) > 1:
            table.add_row(
                f"all {d.get('flows')} {d.get('direction')}",
                str(d.get("direction")),
                number(d.get("goodput_bps"), scale),
                _percent_cell(d.get("efficiency")),
                "",
                "",
                *([""] if files else []),
                style="bold",
            )
    return table


def run_line(summary: dict) -> Text:
    """The run's seed, simulated duration, events and simulation speed."""
    events = summary.get("events")
    wall = summary.get("wall_seconds")
    parts = [
        f"seed {summary.get('seed')}",
        f"simulated {human_seconds(summary.get('duration_s'))}",
        f"{_count(events)} events",
        f"wall {human_seconds(wall)}",
    ]
    if events is not None and wall:
        parts.append(f"{events / wall:,.0f} events/s")
    return Text(" | ".join(parts))


def human_energy(joules: float | None) -> str:
    """Joules with three significant digits: "26.1 J", "850 mJ"."""
    if joules is None or math.isnan(joules):
        return "n/a"
    if joules >= 1 or joules == 0:
        return f"{_three_digits(joules)} J"
    return f"{_three_digits(joules * 1e3)} mJ"


def energy_line(summary: dict) -> Text | None:
    """Each radio's joules and the bits delivered per joule (802.11 hops)."""
    wifi = summary.get("wifi")
    if not isinstance(wifi, dict) or not wifi.get("stations"):
        return None
    parts = []
    for st in wifi["stations"]:
        name = "AP" if st.get("station") == 0 else f"host {st.get('station', 0) - 1}"
        text = f"{name} {human_energy(st.get('energy_j'))}"
        if st.get("battery_depleted_at_s") is not None:
            text += f" (battery empty at {human_seconds(st['battery_depleted_at_s'])})"
        parts.append(text)
    total = sum(st.get("energy_j", 0.0) for st in wifi["stations"])
    bpj = wifi.get("bits_per_joule")
    per_joule = "n/a" if bpj is None else human_rate(bpj).replace("/s", "/J")
    return Text(f"energy: {', '.join(parts)}; total {human_energy(total)}, {per_joule}")


def output_warning(summary: dict) -> Text | None:
    """Says where the traces stopped at the output budget, if they did."""
    cut = summary.get("output")
    if not isinstance(cut, dict):
        return None
    events = cut.get("events_not_logged", 0)
    if events and not cut.get("records_not_written") and not cut.get("signals_not_logged"):
        return Text(
            f"events.csv stops at {human_seconds(cut.get('cut_at_s'))}: its line limit "
            f"reached, {_count(events)} events not written (the time series are whole)",
            style="yellow",
        )
    return Text(
        f"traces stop at {human_seconds(cut.get('cut_at_s'))}: [output] max_bytes = "
        f"{cut.get('max_bytes'):,} B reached, {_count(cut.get('records_not_written'))} "
        f"records, {_count(cut.get('signals_not_logged'))} signals and "
        f"{_count(events)} events not written "
        "(raise max_bytes, set a pcap_snaplen, or turn pcap off)",
        style="yellow",
    )


def percent_pm(mean: float, half: float | None) -> str:
    """A mean fraction ± half width as percentages: "73.7 ± 21.1 %"."""
    if half is None:
        return percent(mean)
    return f"{mean * 100:.1f} ± {half * 100:.1f} %"


def count_pm(mean: float, half: float | None) -> str:
    """A mean count ± half width, one decimal: "22.8 ± 34.8"."""
    return f"{mean:,.1f}" if half is None else f"{mean:,.1f} ± {half:,.1f}"


def _mean_pm(stats: dict | None, fmt) -> str:
    if not stats:
        return "n/a"
    return fmt(stats["mean"], stats.get("ci_half_width"))


def aggregate_table(agg: dict) -> Table:
    """One row per flow: mean ± confidence half width over seeds."""
    confidence = agg.get("confidence", 0.95)
    title = (
        f"{_scenario_name(agg)}, {len(agg.get('seeds', []))} seeds, "
        f"mean ± {confidence * 100:.0f}% CI"
    )
    flows = agg.get("flows", [])
    scale, unit = rate_column([(f.get("goodput_bps") or {}).get("mean") for f in flows])
    table = _flow_table(title, unit)
    for flow in flows:
        table.add_row(
            str(flow.get("name")),
            str(flow.get("direction")),
            _mean_pm(flow.get("goodput_bps"), lambda m, h: number_pm(m, h, scale)),
            _mean_pm(flow.get("efficiency"), lambda m, h: number_pm(m, h, 0.01)),
            _mean_pm(flow.get("retransmissions"), count_pm),
            _mean_pm(flow.get("rto_count"), count_pm),
        )
    return table


def aggregate_line(agg: dict) -> Text:
    """Seeds, simulated duration per run, total events and wall time."""
    seeds = agg.get("seeds", [])
    wall = agg.get("wall_seconds")
    parts = [
        f"seeds {seed_list(seeds)}",
        f"simulated {human_seconds(agg.get('duration_s'))} each",
        f"{_count(agg.get('events'))} events",
        f"wall {human_seconds(wall)}",
    ]
    return Text(" | ".join(parts))


def seed_list(seeds: Sequence[int]) -> str:
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ",".join(str(s) for s in seeds)


def _scenario_name(result: dict) -> str:
    scenario = result.get("scenario")
    if isinstance(scenario, dict) and scenario.get("name"):
        return str(scenario["name"])
    return "scenario"
