"""``xltcp reproduce kim-chung``: the presets, the table and the checks, on
short runs."""

import csv
import json

from typer.testing import CliRunner

from xltcp.cli import app
from xltcp.reproduce import kim_chung

from conftest import needs_core

pytestmark = needs_core


def test_presets_are_shipped():
    for variant, _ in kim_chung.VARIANTS:
        for direction in kim_chung.DIRECTIONS:
            assert kim_chung.preset(variant, direction).is_file(), (variant, direction)


def test_reproduce_writes_table_and_checks(tmp_path):
    out = tmp_path / "r"
    args = ["reproduce", "kim-chung", "--seeds", "1..2", "--out", str(out), "--no-check"]
    result = CliRunner().invoke(app, [*args, "--set", "sim.duration=10s"])
    assert result.exit_code == 0, result.output
    with open(out / "table.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["direction"], r["variant"]) for r in rows] == [
        (d, v) for d in kim_chung.DIRECTIONS for v, _ in kim_chung.VARIANTS
    ]
    # Energy is the mobile host's and positive; efficiency is bits per joule.
    assert all(float(r["mh_energy_j"]) > 0 for r in rows)
    report = json.loads((out / "reproduce.json").read_text())
    assert len(report["checks"]) == 8
    assert report["paper"] == "kim-chung"
    assert (out / "runs" / "c-snoop-up" / "seed-2" / "summary.json").is_file()
    assert "C-Snoop" in result.output
