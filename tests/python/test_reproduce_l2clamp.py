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
    assert len(report["checks"]) == 9
    assert all({"target", "met", "measured"} <= set(c) for c in report["checks"])
    for name in ("fig_throughput_time.png", "fig_queue.png", "fig_cwnd.png"):
        assert (out / name).is_file(), name
    run = out / "runs" / "l2clamp" / "seed-2"
    assert (run / "summary.json").is_file()
    assert not (run / "signals.jsonl").exists()
    text = (out / "table.md").read_text()
    assert "L2-CLAMP" in text
    # Each variant also ran under round robin, and the table pairs them.
    assert (out / "runs" / "newreno-rr" / "seed-1" / "summary.json").is_file()
    assert "PF against round robin" in text
    gain, half = l2clamp.pf_gain(report["results"], "newreno")
    assert gain == gain and half == half  # not NaN


def test_sensitivity_pairs_every_row_under_pf_and_round_robin(tmp_path):
    from xltcp.reproduce import l2clamp_sensitivity as sens

    rows = sens.run([1, 2], ["sim.duration=10s"], None, jobs=2)
    assert len(rows) == len(sens.ROWS) * len(sens.VARIANTS) * len(sens.SCHEDULERS)
    assert all(len(v) == 2 for v in rows.values())
    lines = sens.write(tmp_path, rows, [1, 2])
    assert len([x for x in lines if x.startswith("| ")]) == len(sens.ROWS) + 1
    assert (tmp_path / "sensitivity.csv").is_file()
    assert sens.figure(tmp_path, rows).stat().st_size > 0
    # The controller rows change CLAMP's runs, never NewReno's.
    base = rows[("presets", "as shipped", "newreno", "pf")]
    other = rows[("growth", "per window", "newreno", "pf")]
    assert base == other
    assert (
        rows[("growth", "per window", "clamp", "pf")]
        != rows[("presets", "as shipped", "clamp", "pf")]
    )


def test_sweep_overrides_name_the_right_keys():
    assert l2clamp._sets("clamp", "packet_size", 250) == ['tcp.mss="210B"']
    assert l2clamp._sets("newreno", "queue_delay", 0.02) == []
    # The queue delay sets the fixed alpha: 20 ms at 50 packets/s.
    assert l2clamp._sets("l2clamp", "queue_delay", 0.02) == ["agent.0.alpha=1"]
    assert l2clamp._sets("clamp", "error_rate", 0.1) == [
        "wireless.loss.down.p=0.1",
        "wireless.loss.up.p=0.1",
    ]


def test_the_scheduler_sweep_sets_the_aps_discipline():
    assert l2clamp._sets("newreno", "scheduler", "rr") == ['wireless.scheduler="rr"']
    assert l2clamp._fmt("fifo") == "fifo"
    assert l2clamp._fmt(0.1) == "0.1"
