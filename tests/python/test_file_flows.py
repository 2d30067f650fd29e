"""File transfers in the table and summary.json: goodput over the transfer,
completion time."""

import json

from rich.console import Console
from typer.testing import CliRunner

from xltcp import table
from xltcp.cli import app

from conftest import needs_core

SCENARIO = """
[sim]
duration = "20s"
[wired]
rate = "100Mbps"
delay = "10ms"
[wireless]
rate = "2Mbps"
delay = "5ms"
[[flow]]
name = "file"
app = "file"
size = "500KB"
start = "1s"
"""


def _render(summary):
    console = Console(width=120, record=True)
    console.print(table.run_table(summary))
    return console.export_text()


def test_the_table_shows_a_file_flow_rate_over_its_transfer_and_its_completion():
    summary = {
        "seed": 1,
        "scenario": {"name": "s", "flows": [{"name": "f", "app": "file"}, {"name": "b"}]},
        "flows": [
            {
                "name": "f",
                "direction": "down",
                "goodput_bps": 200e3,
                "active_goodput_bps": 738e3,
                "efficiency": 0.5,
                "completion_s": 5.42,
            },
            {"name": "b", "direction": "down", "goodput_bps": 1e6, "efficiency": 0.9},
        ],
    }
    text = _render(summary)
    # One unit for the column (the largest value's): the file's rate over its transfer.
    assert "goodput Mbit/s" in text and "0.738" in text and "0.200" not in text
    assert "completed" in text and "5.42 s" in text
    summary["flows"][0]["completion_s"] = None
    assert "not done" in _render(summary)


def test_a_bulk_only_table_has_no_completion_column():
    summary = {
        "seed": 1,
        "scenario": {"name": "s", "flows": [{"name": "b", "app": "bulk"}]},
        "flows": [{"name": "b", "direction": "down", "goodput_bps": 1e6}],
    }
    assert "completed" not in _render(summary)


@needs_core
def test_summary_json_has_the_active_time_and_rate(write_toml, tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(app, ["run", str(write_toml(SCENARIO)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    flow = json.loads((out / "summary.json").read_text())["flows"][0]
    assert flow["active_s"] == flow["completion_s"]
    assert flow["active_goodput_bps"] == flow["bytes_delivered"] * 8 / flow["completion_s"]
    assert flow["efficiency"] < 1.0
    assert "completed" in result.stdout
