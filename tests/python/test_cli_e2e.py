"""End-to-end tests of the command on the compiled core."""

import csv
import json

import pytest
from typer.testing import CliRunner

import xltcp
from xltcp.cli import app

from conftest import needs_core

pytestmark = needs_core

SUMMARY_KEYS = {
    "xltcp_version",
    "scenario",
    "seed",
    "duration_s",
    "events",
    "packets",
    "wall_seconds",
    "flows",
    "links",
    "accounting",
}
FLOW_KEYS = {
    "name",
    "direction",
    "goodput_bps",
    "bytes_delivered",
    "retransmissions",
    "rto_count",
    "fast_retransmits",
    "oracle_bps",
    "efficiency",
}
SHORT = ["--set", "sim.duration=2s"]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def run_demo(demo, out, *args):
    result = invoke("run", demo, *SHORT, "--out", out, "--quiet", *args)
    assert result.exit_code == 0, result.output
    return json.loads((out / "summary.json").read_text())


def test_unknown_key_exit_2_with_message(write_toml):
    scenario = write_toml('bogus_key = 1\n[[flow]]\nname = "a"\n')
    result = invoke("run", scenario)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert f"{scenario}:1:" in result.stderr
    assert "bogus_key" in result.stderr
    assert "Traceback" not in result.output


def test_bad_unit_exit_2_with_message(write_toml):
    scenario = write_toml('[wireless]\nrate = "10"\n[[flow]]\nname = "a"\n')
    result = invoke("validate", scenario)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "rate" in result.stderr and '"10"' in result.stderr
    assert "Traceback" not in result.output


def test_unknown_override_exit_2(demo):
    result = invoke("validate", demo, "--set", "sim.no_such_key=1")
    assert result.exit_code == 2
    assert "sim.no_such_key" in result.stderr


def test_validate_ok(demo):
    result = invoke("validate", demo)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"{demo}: ok"
    assert "flows:" in result.stdout


def test_run_writes_summary_with_documented_keys(demo, tmp_path):
    summary = run_demo(demo, tmp_path / "out", "--seed", "1")
    assert SUMMARY_KEYS <= summary.keys()
    assert summary["seed"] == 1
    assert summary["duration_s"] == pytest.approx(2.0)
    assert summary["flows"], "the demo has flows"
    for flow in summary["flows"]:
        assert FLOW_KEYS <= flow.keys()
        assert flow["direction"] in ("down", "up")
        assert flow["goodput_bps"] <= flow["oracle_bps"]
    for link in summary["links"]:
        assert {"name", "transmitted", "drops"} <= link.keys()


def test_run_prints_table(demo, tmp_path):
    result = invoke("run", demo, *SHORT, "--out", tmp_path, "--seed", "2")
    assert result.exit_code == 0, result.output
    assert "seed 2" in result.stdout
    assert "bit/s" in result.stdout


def test_same_seed_same_summary_different_seed_differs(demo, tmp_path):
    first = run_demo(demo, tmp_path / "a", "--seed", "7")
    again = run_demo(demo, tmp_path / "b", "--seed", "7")
    other = run_demo(demo, tmp_path / "c", "--seed", "8")
    for s in (first, again, other):
        s.pop("wall_seconds")
    assert first == again
    other["seed"] = 7
    assert first != other


def test_seed_range_writes_aggregate(demo, tmp_path):
    out = tmp_path / "sweep"
    result = invoke("run", demo, *SHORT, "--seeds", "1..3", "--out", out)
    assert result.exit_code == 0, result.output
    assert "3 seeds" in result.stdout
    for seed in (1, 2, 3):
        assert json.loads((out / f"seed-{seed}" / "summary.json").read_text())["seed"] == seed
    agg = json.loads((out / "aggregate.json").read_text())
    assert agg["seeds"] == [1, 2, 3]
    flows = json.loads((out / "seed-1" / "summary.json").read_text())["flows"]
    assert [f["name"] for f in agg["flows"]] == [f["name"] for f in flows]
    for flow in agg["flows"]:
        for metric in ("goodput_bps", "efficiency", "retransmissions", "rto_count"):
            assert {"mean", "ci_half_width", "min", "max"} <= flow[metric].keys()
    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert len(rows) == 3 * len(flows)


def test_json_output(demo, tmp_path):
    result = invoke("run", demo, *SHORT, "--out", tmp_path, "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["seed"] == 3


def test_unwritable_out_exit_1(demo, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = invoke("run", demo, *SHORT, "--out", blocker / "sub")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.output


def test_python_api_run(demo, tmp_path):
    summary = xltcp.run(demo, seed=5, set={"sim.duration": "2s"}).summary
    assert summary["seed"] == 5
    assert not any(tmp_path.iterdir())
    written = xltcp.run(demo, seed=5, out=tmp_path, set=["sim.duration=2s"]).summary
    assert (tmp_path / "summary.json").is_file()
    summary.pop("wall_seconds")
    written.pop("wall_seconds")
    assert summary == written


def test_demo_command(tmp_path):
    result = invoke("demo", "--out", tmp_path, "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "demo, seed 1" in result.stdout
    assert json.loads((tmp_path / "summary.json").read_text())["seed"] == 1


def test_run_takes_bbr(tmp_path):
    demo = xltcp.shipped_scenario("demo")
    result = invoke("run", demo, *SHORT, "--set", 'tcp.cc="bbr"', "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "summary.json").read_text())["flows"][0]["goodput_bps"] > 0


def test_timeseries_leave_an_unset_ssthresh_empty(demo, tmp_path):
    run_demo(demo, tmp_path / "r")
    for path in (tmp_path / "r" / "timeseries").glob("*.csv"):
        rows = list(csv.DictReader(path.open()))
        # No loss before the first sample: no threshold yet, an empty cell.
        assert rows[0]["ssthresh_bytes"] == "", path
        assert all(r["ssthresh_bytes"] == "" or int(r["ssthresh_bytes"]) < 2**32 for r in rows)


def test_validate_makes_the_checks_run_makes(tmp_path):
    demo = xltcp.shipped_scenario("demo")
    # Every congestion control the loader knows runs in both engines.
    assert invoke("validate", demo, "--set", 'tcp.cc="bbr"').exit_code == 0
    assert invoke("validate", demo, "--set", 'tcp.cc="bbr"', "--emu").exit_code == 0
    result = invoke("validate", demo, "--set", 'tcp.cc="htcp"')
    assert result.exit_code == 2
    assert "unknown congestion control" in result.stderr


def test_two_flow_tables_are_one_error_naming_the_fix(write_toml):
    scenario = write_toml('[flow]\nname = "a"\nstart = "0s"\n[flow]\nname = "b"\nstart = "1s"\n')
    result = invoke("validate", scenario)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert (
        f"{scenario}:4:2: flow: TOML syntax: duplicate table [flow] (first on line 1)" in lines[0]
    )
    assert "[[flow]]" in lines[0]


def test_two_threads_write_the_summary_and_validate_names_what_they_refuse(demo, tmp_path):
    result = invoke("validate", demo, "--set", "sim.threads=2")
    assert result.exit_code == 2
    assert "sim.threads = 2" in result.stderr
    assert "output.timeseries = false" in result.stderr
    assert "Traceback" not in result.output
    two = ["--set", "sim.threads=2", "--set", "output.timeseries=false"]
    summary = run_demo(demo, tmp_path / "two", "--seed", "3", *two)
    assert summary["scenario"]["sim"]["threads"] == 2
    assert all("rto_causes" not in f for f in summary["flows"])
    a = summary["accounting"]
    assert a["injected"] == a["delivered"] + a["dropped"] + a["in_flight"]
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == [
        "manifest.json",
        "run.log",
        "summary.json",
    ]
    again = run_demo(demo, tmp_path / "again", "--seed", "3", *two)
    summary.pop("wall_seconds"), again.pop("wall_seconds")
    assert summary == again
