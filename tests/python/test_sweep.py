"""xltcp sweep: values as people write them, plans, campaign files, bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from xltcp.values import ValueSpecError, parse_values, parse_vary

from conftest import REPO, needs_core

LOSSY = str(REPO / "scenarios" / "lossy-last-hop.toml")


@pytest.mark.parametrize(
    "text, values",
    [
        ("0,0.01,0.05", [0, 0.01, 0.05]),
        ("10Mbps,20Mbps", ["10Mbps", "20Mbps"]),
        ('"exp(4s)","exp(8s)"', ["exp(4s)", "exp(8s)"]),
        ("true,false", [True, False]),
        ("1Mbps..4Mbps/4", ["1Mbps", "2Mbps", "3Mbps", "4Mbps"]),
        ("0..0.1/5", [0.0, 0.025, 0.05, 0.075, 0.1]),
        ("0..10/3", [0, 5, 10]),
        ("1..4", [1, 2, 3, 4]),
        ("1ms..1s/log4", ["1ms", "10ms", "100ms", "1000ms"]),
        ("0.001..1/log4", [0.001, 0.01, 0.1, 1.0]),
        ("1..10/log3", [1.0, 3.16228, 10.0]),
        ("1Mbit/s..3Mbit/s/3", ["1Mbit/s", "2Mbit/s", "3Mbit/s"]),
    ],
)
def test_values(text, values):
    assert [v.value for v in parse_values(text)] == values


def test_values_are_toml_overrides():
    assert [v.toml for v in parse_values('1Mbps,"exp(4s)",0.5,true')] == [
        '"1Mbps"',
        '"exp(4s)"',
        "0.5",
        "true",
    ]


@pytest.mark.parametrize(
    "text, says",
    [
        ("", "no values"),
        ("1,,2", "an empty item"),
        ("1,1", "1 is listed twice"),
        ("1..5/0", "at least 2 values"),
        ("1..5/abc", "'abc' after '/' is not a count"),
        ("1ms..10ms", "say how many values with /N"),
        ("1ms..1Mbps/3", "the ends are a duration and a rate"),
        ("1ms..10/3", "give both ends of the range a unit, or neither"),
        ("0..1/log3", "a log range needs both ends above 0"),
        ("1furlong..2furlong/2", "unknown unit 'furlong'"),
        ("5..1", "the range ends (1) before it starts (5)"),
        ("1..2/100000", "at most 10000"),
    ],
)
def test_bad_values(text, says):
    with pytest.raises(ValueSpecError) as error:
        parse_values(text)
    assert says in str(error.value)


def test_vary_names_the_key():
    with pytest.raises(ValueSpecError, match=r"^wireless\.rate: .*say how many values"):
        parse_vary("wireless.rate=1Mbps..2Mbps")
    with pytest.raises(ValueSpecError, match="expected KEY=VALUES"):
        parse_vary("wireless.rate")


def _sweep(*args):
    from xltcp.cli import app

    return CliRunner().invoke(app, ["sweep", *args])


def _no_traceback(result):
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@needs_core
@pytest.mark.parametrize(
    "args, says",
    [
        (["--vary", "wireless.loss.down.p=0,,1"], "wireless.loss.down.p: '0,,1': an empty item"),
        (["--vary", "wireless.rate=1Mbps..2Mbps"], "wireless.rate: '1Mbps..2Mbps': say how many"),
        (["--vary", "wireless.los.down.p=0,0.1"], "wireless.los"),
        (["--vary", "wireless.loss.down.p=0,2"], "at wireless.loss.down.p=2:"),
        (["--vary", "a=1,2", "--vary", "a=3,4"], "a: varied twice"),
        (
            [
                "--vary",
                "wireless.loss.down.p=0,0.1",
                "--vary",
                "tcp.mss=1000B,1200B,1448B",
                "--zip",
            ],
            "--zip needs as many values for every key",
        ),
        (["--seeds", "3..1"], "the range ends (1) before it starts (3)"),
        (["--executor", "mpi"], "'mpi': allowed threads, processes, dask"),
        (["--scheduler", "tcp://head:8786"], "give --scheduler with --executor dask"),
        (["--max-output", "lots"], "'lots' is not a size"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_bad_sweeps_exit_2_with_message(args, says, tmp_path):
    result = _sweep(LOSSY, *args, "--out", str(tmp_path / "c"), "--plan")
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split()), result.output
    _no_traceback(result)
    assert not (tmp_path / "c").exists()


@needs_core
def test_plan_lists_points_runs_and_estimates(tmp_path):
    result = _sweep(
        LOSSY,
        "--vary", "wireless.loss.down.p=0,0.01",
        "--vary", "wireless.rate=5Mbps..10Mbps/3",
        "--seeds", "1..4",
        "--set", "sim.duration=2s",
        "--out", str(tmp_path / "c"),
        "--plan",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "6 points x 4 seeds = 24 runs" in text
    assert "7.5Mbps" in text
    assert "on one core" in text and "of traces" in text
    assert not (tmp_path / "c").exists()


@needs_core
def test_zip_pairs_values(tmp_path):
    result = _sweep(
        LOSSY,
        "--vary", "wireless.loss.down.p=0,0.01,0.05",
        "--vary", "wireless.rate=2Mbps,5Mbps,10Mbps",
        "--zip", "--plan", "--set", "sim.duration=1s",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3 points x 1 seeds = 3 runs" in " ".join(result.output.split())


@needs_core
def test_sweep_writes_a_table_per_run_and_flow(tmp_path):
    import pandas as pd

    out = tmp_path / "c"
    result = _sweep(
        LOSSY,
        "--vary", "wireless.loss.down.p=0,0.05",
        "--vary", "wireless.rate=5Mbps,10Mbps",
        "--seeds", "1..2",
        "--set", "sim.duration=2s",
        "--out", str(out), "--jobs", "2",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "8 runs" in result.output
    frame = pd.read_parquet(out / "results.parquet")
    assert len(frame) == 8
    assert list(frame.columns[:7]) == [
        "point", "wireless.loss.down.p", "wireless.rate", "wireless.rate_bps", "seed", "run",
        "flow",
    ]  # fmt: skip
    assert set(frame["wireless.rate_bps"]) == {5e6, 10e6}
    assert set(frame["wireless.rate"]) == {"5Mbps", "10Mbps"}
    assert {"goodput_bps", "rto_count", "accounting.dropped", "links.bs-air.drops.loss"} <= set(
        frame.columns
    )
    assert "wall_seconds" not in frame.columns
    # Every row is the summary of its own run folder.
    for row in frame.itertuples():
        summary = json.loads((out / "runs" / row.run / "summary.json").read_text())
        assert summary["seed"] == row.seed
        assert summary["flows"][0]["goodput_bps"] == row.goodput_bps
        assert summary["scenario"]["wireless"]["rate"] == row._3
    # More loss, less goodput, at each rate.
    means = frame.groupby(["wireless.rate", "wireless.loss.down.p"])["goodput_bps"].mean()
    for rate in ("5Mbps", "10Mbps"):
        assert means[rate, 0.05] < means[rate, 0.0]
    plan = json.loads((out / "campaign.json").read_text())
    assert len(plan["runs"]) == 8 and plan["seeds"] == [1, 2]
    assert pd.DataFrame(plan["runs"])["key"].tolist() == frame["run"].tolist()


@needs_core
def test_campaign_file_says_the_same(tmp_path):
    import pandas as pd

    campaign = tmp_path / "campaign.toml"
    campaign.write_text(
        f"""
[sweep]
scenario = "{LOSSY}"
seeds = "1..2"
out = "camp"
set = {{ sim.duration = "2s" }}

[sweep.vary]
"wireless.loss.down.p" = [0, 0.05]
wireless.rate = "5Mbps,10Mbps"
"""
    )
    result = _sweep(str(campaign), "--jobs", "1")
    assert result.exit_code == 0, result.output
    by_file = pd.read_parquet(tmp_path / "camp" / "results.parquet")
    result = _sweep(
        LOSSY,
        "--vary", "wireless.loss.down.p=0,0.05",
        "--vary", "wireless.rate=5Mbps,10Mbps",
        "--seeds", "1..2", "--set", "sim.duration=2s", "--out", str(tmp_path / "cli"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    by_cli = pd.read_parquet(tmp_path / "cli" / "results.parquet")
    pd.testing.assert_frame_equal(by_file, by_cli)


@needs_core
@pytest.mark.parametrize(
    "body, says",
    [
        ('scenario = "nope.toml"', "sweep.scenario: no file 'nope.toml'"),
        ('scenario = "{lossy}"\nvary = 3', "sweep.vary: expected a table"),
        ('scenario = "{lossy}"\nseeds = "x"', "sweep.seeds: 'x': 'x' is not a seed"),
        ('scenario = "{lossy}"\nparallel = 3', "sweep.parallel: unknown key"),
        ('scenario = "{lossy}"\n[sweep.vary]\n"tcp.mss" = "1..2/x"', "sweep.vary.tcp.mss:"),
    ],
)
def test_bad_campaign_files(body, says, tmp_path):
    campaign = tmp_path / "campaign.toml"
    campaign.write_text("[sweep]\n" + body.format(lossy=LOSSY) + "\n")
    result = _sweep(str(campaign), "--plan")
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split()), result.output
    _no_traceback(result)
