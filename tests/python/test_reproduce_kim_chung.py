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
    # The paper's per-packet model and our time-based one differ only where
    # frames overlap; Eq. 2's efficiency is kbit/s per joule.
    for r in rows:
        assert abs(float(r["mh_energy_time_j"]) / float(r["mh_energy_j"]) - 1) < 0.05
        assert float(r["bs_energy_j"]) > 0
        # (a mean of per-seed ratios, near the ratio of the means)
        want = float(r["goodput_bps"]) / 1e3 / float(r["mh_energy_j"])
        assert abs(float(r["eta_kbps_per_j"]) / want - 1) < 0.05
    table = (out / "table.md").read_text()
    assert "## Energy at 5 % burst loss" in table
    assert "26, 80.8" in table
    summary = json.loads((out / "runs" / "snoop-down" / "seed-1" / "summary.json").read_text())
    energy = summary["scenario"]["wireless"]["energy"]
    assert (energy["model"], energy["on_empty"], energy["idle_w"]) == ("ns2", "off", 0)
    # The idle-draw rows: the same runs with 0.26 W times the MH's idle time.
    assert "| 0.26 W (the meter's default idle draw) | down |" in table
    assert "inside its 20-90 %" in table
    report = json.loads((out / "reproduce.json").read_text())
    assert len(report["checks"]) == 8
    assert report["paper"] == "kim-chung"
    assert (out / "runs" / "c-snoop-up" / "seed-2" / "summary.json").is_file()
    assert "C-Snoop" in result.output


def test_beyond_runs_every_setting_and_writes_its_table(tmp_path):
    from xltcp.reproduce import kim_chung_beyond as beyond

    results = beyond.run([1], tmp_path, ["sim.duration=5s"], None, None)
    # Every setting has plain TCP, the three schemes, and on the 802.15.4
    # hop the composition with CR-aware TCP and paper 000's scheme.
    keys = {k for k, _ in results}
    assert keys == {
        "11b-pu-down",
        "11b-pu-up",
        "11b-pu-burst-down",
        "11b-pu-burst-up",
        "lrwpan-standard",
        "lrwpan-paper",
    }
    assert ("lrwpan-paper", "c-snoop-cr") in results
    assert ("11b-pu-down", "c-snoop-cr") not in results
    assert len(results) == beyond.total_runs(1)
    # Local recovery acts only where a scheme is placed.
    assert results[("11b-pu-burst-down", "tcp")][0]["local_delivered"] == 0
    assert results[("11b-pu-burst-down", "c-snoop")][0]["local_delivered"] > 0
    lines = beyond.write(results, tmp_path)
    assert any("C-Snoop + CR-aware TCP" in line for line in lines)
    with open(tmp_path / "beyond.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(results)
    assert all(float(r["goodput_bps"]) >= 0 for r in rows)
    assert (
        tmp_path / "runs" / "beyond" / "lrwpan-paper-snack" / "seed-1" / "summary.json"
    ).is_file()
    assert beyond.figure(results, tmp_path).is_file()
