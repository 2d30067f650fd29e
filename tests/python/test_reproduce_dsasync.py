"""``xltcp reproduce dsasync``: the presets, the table, the figures and the
checks, on short runs."""

import csv
import json

from typer.testing import CliRunner

from xltcp import runner
from xltcp.cli import app
from xltcp.reproduce import dsasync
from xltcp.reproduce import dsasync_more as more

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
    names = ("table.csv", "table.md", "fig3_goodput_down.png", "fig7_capacity_drop.png")
    names += ("pacer.csv", "macro.csv", "overhead.csv", "jitter.csv", "lrwpan.csv")
    for name in names + ("fig5_jitter.png", "fig8_macro.png", "pacer.png"):
        assert (out / name).stat().st_size > 0, name
    with open(out / "table.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["direction"], r["config"]) for r in rows] == [
        (d, name) for d in dsasync.DIRECTIONS for name, _, _, _ in dsasync.CONFIGS
    ]
    report = json.loads((out / "reproduce.json").read_text())
    assert len(report["checks"]) == 9
    table = (out / "table.md").read_text()
    for section in ("The pacer (Algorithm 4)", "Macrobenchmark", "no DSA", "jitter", "802.15.4"):
        assert section in table, section
    assert all(len(v) == 2 for v in report["capacity_drop_after_bps"].values())
    assert (out / "runs" / "dsasync-up" / "seed-2" / "summary.json").is_file()
    assert "DSASync, no smoothing" in result.output


def test_presets_of_the_further_experiments_are_shipped():
    for stem in ("regular", "dsasync"):
        for variant in ("macro", "nodsa"):
            assert dsasync.preset(stem, variant).is_file(), (stem, variant)
    for name in ("newreno", "newreno-cr"):
        assert dsasync.preset("byun2016", name).is_file(), name


def test_pacer_rows_show_the_wait_only_with_smoothing(tmp_path):
    rows = more.run_pacer([1], tmp_path, ["sim.duration=3s"], None, jobs=2)
    assert len(rows) == len(more.pacer_cells())
    assert {r["direction"] for r in rows} == set(more.PACER_DIRS)
    for r in rows:
        smoothing = "nosmooth" not in r["config"] and r["config"] != "regular"
        assert (r["share_waited"] > 0) == smoothing, r
        assert (r["pacing_wait_s"] > 0) == smoothing, r
        assert r["srtt_s"] > 0 and r["cwnd_bytes"] > 0


def test_macro_runs_24_flows_per_direction_and_config(tmp_path):
    results = more.run_macro([1], tmp_path, ["sim.duration=2s"], None, jobs=2)
    assert set(results) == {(n, d) for n in ("regular", "dsasync") for d in ("down", "up")}
    for rows in results.values():
        assert rows[0]["flows"] == 24 and rows[0]["goodput_bps"] > 0


def test_with_no_tfp_only_the_mean_tfp_cap_leaves_the_uplink_alone(tmp_path):
    results = more.run_overhead([1], tmp_path, ["sim.duration=3s"], None, jobs=2)
    assert all(r[0]["srtt_s"] > 0 for r in results.values())
    sets = ["sim.duration=3s", 'flow.0.direction="up"']
    regular = runner.run_one(more._preset("regular-nodsa"), 1, tmp_path / "r", sets)
    capped = [*sets, 'agent.0.max_wait="mean_tfp"']
    capped = runner.run_one(more._preset("dsasync-nodsa"), 1, tmp_path / "c", capped)
    paper = runner.run_one(more._preset("dsasync-nodsa"), 1, tmp_path / "p", sets)
    # With the cap (ours) a pacer that has seen no TFP holds nothing; the
    # paper's pacer paces at beta * D = D and its queue holds packets.
    assert regular["flows"][0]["goodput_bps"] == capped["flows"][0]["goodput_bps"]
    assert capped["dsasync"]["paced_waited"] == 0
    assert paper["dsasync"]["paced_waited"] > 0


def test_jitter_of_a_steady_stream_is_zero_and_of_an_irregular_one_is_not():
    steady = [(0.010 + 0.001 * k, k) for k in range(100)]
    j, std, cv = more.jitter(steady)
    assert j < 1e-12 and std < 1e-12 and cv < 1e-9
    # Every other segment 5 ms late: |D| = 5 ms each time, J -> 5 ms.
    bumpy = [(0.010 + 0.001 * k + 0.005 * (k % 2), k) for k in range(400)]
    j, std, _ = more.jitter(bumpy)
    assert 0.004 < j < 0.005 and std > 0.004


def test_jitter_runs_read_and_drop_their_captures(tmp_path):
    rows = more.run_jitter([1], tmp_path, ["sim.duration=3s"], None, jobs=2)
    assert len(rows) == len(more.JITTER_CONFIGS)
    for r in rows:
        assert 0 < r["jitter_rfc3550_s"] < 1, r
        assert not (tmp_path / "runs" / f"jitter-{r['config']}" / "seed-1" / "pcap").exists()


def test_dsasync_composes_with_the_cr_aware_sender_on_802_15_4(tmp_path):
    results = more.run_byun([1], tmp_path, ["sim.duration=60s"], None, jobs=2)
    assert set(results) == {name for name, _, _, _ in more.BYUN_CONFIGS}
    for name, rows in results.items():
        r = rows[0]
        assert r["accepted"] == r["released"] + r["buffered"], (name, r)
        assert (r["accepted"] > 0) == ("dsasync" in name), (name, r)
        assert r["goodput_bps"] > 0
