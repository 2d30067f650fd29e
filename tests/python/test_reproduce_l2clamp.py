"""``xltcp reproduce l2clamp``: the presets, the table, the figures and the
checks, on short runs."""

import csv
import json

from typer.testing import CliRunner

from xltcp.cli import app
from xltcp.reproduce import l2clamp

from conftest import needs_core

pytestmark = needs_core


def test_presets_are_shipped():
    for variant, _ in l2clamp.VARIANTS:
        assert l2clamp.preset(variant).is_file(), variant


def test_jain_index():
    assert l2clamp.jain([1.0, 1.0, 1.0]) == 1.0
    assert abs(l2clamp.jain([1.0, 0.0]) - 0.5) < 1e-12


def test_reproduce_writes_table_figures_and_checks(tmp_path):
    out = tmp_path / "r"
    args = ["reproduce", "l2clamp", "--seeds", "1..2", "--out", str(out), "--no-check"]
    result = CliRunner().invoke(app, [*args, "--set", "sim.duration=20s"])
    assert result.exit_code == 0, result.output
    with open(out / "table.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["variant"] for r in rows] == [v for v, _ in l2clamp.VARIANTS]
    by = {r["variant"]: r for r in rows}
    # The receivers' ACKs stay off the air under L2-CLAMP.
    assert float(by["l2clamp"]["up_frames"]) < 0.1 * float(by["clamp"]["up_frames"])
    assert all(0 < float(r["jain"]) <= 1 for r in rows)
    report = json.loads((out / "reproduce.json").read_text())
    assert report["paper"] == "l2clamp"
    assert len(report["checks"]) == 7
    assert all({"target", "met", "measured"} <= set(c) for c in report["checks"])
    for name in ("fig_throughput_time.png", "fig_queue.png", "fig_cwnd.png"):
        assert (out / name).is_file(), name
    run = out / "runs" / "l2clamp" / "seed-2"
    assert (run / "summary.json").is_file()
    assert not (run / "signals.jsonl").exists()
    assert "L2-CLAMP" in (out / "table.md").read_text()


def test_sweep_overrides_name_the_right_keys():
    assert l2clamp._sets("clamp", "packet_size", 250) == ['tcp.mss="210B"']
    assert l2clamp._sets("newreno", "queue_delay", 0.02) == []
    assert l2clamp._sets("l2clamp", "queue_delay", 0.02) == ['agent.0.target_delay="20ms"']
    assert l2clamp._sets("clamp", "error_rate", 0.1) == [
        "wireless.loss.down.p=0.1",
        "wireless.loss.up.p=0.1",
    ]


def test_the_scheduler_sweep_sets_the_aps_discipline():
    assert l2clamp._sets("newreno", "scheduler", "rr") == ['wireless.scheduler="rr"']
    assert l2clamp._fmt("fifo") == "fifo"
    assert l2clamp._fmt(0.1) == "0.1"
