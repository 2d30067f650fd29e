"""``xltcp reproduce dsasync``: the presets, the table, the figures and the
checks, on short runs."""

import csv
import json

from typer.testing import CliRunner

from xltcp.cli import app
from xltcp.reproduce import dsasync

from conftest import needs_core

pytestmark = needs_core


def test_presets_are_shipped():
    for stem in ("regular", "dsasync"):
        for variant in ("down", "up", "capacity"):
            assert dsasync.preset(stem, variant).is_file(), (stem, variant)


def test_reproduce_writes_table_figures_and_checks(tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(
        app,
        ["reproduce", "dsasync", "--seeds", "1..2", "--out", str(out), "--set", "sim.duration=6s"]
        + ["--no-check"],
    )
    assert result.exit_code == 0, result.output
    for name in ("table.csv", "table.md", "fig3_goodput_down.png", "fig7_capacity_drop.png"):
        assert (out / name).stat().st_size > 0, name
    with open(out / "table.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["direction"], r["config"]) for r in rows] == [
        (d, name) for d in dsasync.DIRECTIONS for name, _, _, _ in dsasync.CONFIGS
    ]
    report = json.loads((out / "reproduce.json").read_text())
    assert len(report["checks"]) == 4
    assert all(len(v) == 2 for v in report["capacity_drop_after_bps"].values())
    assert (out / "runs" / "dsasync-up" / "seed-2" / "summary.json").is_file()
    assert "DSASync, no smoothing" in result.output
