"""``xltcp emu``: a scenario on real Linux TCP through the emulator."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.text import Text

from xltcp import runner, table

if TYPE_CHECKING:
    pass

from xltcp.cli.common import (
    JSON_OPT,
    OUT_OPT,
    QUIET_OPT,
    SCENARIO_ARG,
    SEED_OPT,
    SET_OPT,
    ProgressView,
    UserError,
    _error,
    _interrupt,
    default_out_dir,
    err_console,
    out_console,
    user_errors,
)

# --- The emulator -------------------------------------------------------------


def emu(
    scenario: Path = SCENARIO_ARG,
    seed: Optional[int] = SEED_OPT,
    out: Optional[Path] = OUT_OPT,
    set_: Optional[List[str]] = SET_OPT,
    cc: Optional[str] = typer.Option(
        None,
        "--cc",
        metavar="NAME",
        help="Linux congestion control for every flow, e.g. cubic "
        "[default: the scenario's; newreno runs as Linux reno].",
    ),
    signals: Optional[Path] = typer.Option(
        None,
        "--signals",
        metavar="SOCKET",
        help="Publish the radio's signals (and accept injected ones) as "
        "line-delimited JSON on this Unix-domain socket; see docs/emulator.md.",
    ),
    pcap: bool = typer.Option(
        False,
        "--pcap",
        help="Write the base station's pcapng captures (same as --set output.pcap=true).",
    ),
    sysctl: Optional[List[str]] = typer.Option(
        None,
        "--sysctl",
        metavar="NAME=VALUE",
        help="Set a network-namespace sysctl on both hosts after the ones the "
        "scenario's tcp keys give, e.g. net.ipv4.tcp_ecn=1 for ECN "
        "(repeatable; names under net.).",
    ),
    quiet: bool = QUIET_OPT,
    json_: bool = JSON_OPT,
) -> None:
    """Run a scenario on real Linux TCP through the emulated hop (needs root).

    Writes the same summary.json as xltcp run (goodput: the application
    data delivered in order by the scenario's end), each flow's time series
    of Linux's TCP state at its sender (timeseries/<flow>.csv, the
    simulator's columns), the applications' reports and, with --pcap, the
    base station's pcapng captures. Exit 2 when the machine cannot host the
    emulator (not root, no /dev/net/tun, no ip netns, no iperf3).
    """
    overrides = list(set_ or []) + (["output.pcap=true"] if pcap else [])
    with user_errors():
        from xltcp import _core

        if not hasattr(_core, "emu"):
            raise _error("the xltcp core extension lacks emu: rebuild it (maturin develop)", 1)
        echo = runner.validate(scenario, overrides, engine="emu")
        out_dir = out if out is not None else default_out_dir(echo, scenario)
        out_dir.mkdir(parents=True, exist_ok=True)
        view = ProgressView(err_console, 1, not quiet)
        # SIGTERM stops the run like Ctrl-C, so the teardown runs.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            view.run_started(0, seed)
            socket = None if signals is None else str(signals)
            text = _core.emu(
                str(scenario),
                seed,
                str(out_dir),
                overrides,
                view.progress,
                cc,
                socket,
                list(sysctl or []),
            )
        except _core.EmuUnavailable as e:
            raise UserError(str(e)) from None
        finally:
            signal.signal(signal.SIGTERM, previous)
            view.close()
        result = json.loads(text)
    if json_:
        print(json.dumps(result, indent=2))
    elif not quiet:
        out_console.print(table.run_table(result))
        out_console.print(emu_line(result))
        out_console.print(Text(f"results in {out_dir}"))
    if not json_:
        for warning in result.get("emu", {}).get("warnings", []):
            line = Text("warning: ", style="bold yellow") + Text(str(warning))
            err_console.print(line, soft_wrap=True)


def emu_line(summary: dict) -> Text:
    """Dispatch lateness, data-path CPU and wall time of an emulator run."""
    details = summary.get("emu", {})
    late = details.get("lateness", {})
    parts = [
        f"seed {summary.get('seed')}",
        f"emulated {table.human_seconds(summary.get('duration_s'))}",
        f"lateness median {late.get('median_us', 0):.1f} us, p99 {late.get('p99_us', 0):.1f} us",
        f"delivery delay p99 {details.get('delivery_delay', {}).get('p99_us', 0):.0f} us",
        # Dispatch and writer threads together: it may exceed one core.
        f"data path {100 * details.get('cpu_share', 0):.0f}% of a core (2 threads)",
        f"wall {table.human_seconds(summary.get('wall_seconds'))}",
    ]
    return Text(" | ".join(parts))
