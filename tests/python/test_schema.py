"""One results schema for runs.csv and campaign tables: numeric columns for
swept quantities, constants kept apart, filters on load, an xarray view,
honest timings and one unit per table column."""

import csv
import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

import xltcp
from xltcp import campaign, schema, table
from xltcp.cli import app, sweep_line

from conftest import needs_core


def lossy():
    """The shipped lossy-last-hop scenario, 3 s long."""
    return xltcp.Scenario.load(xltcp.shipped_scenario("lossy-last-hop")).set(sim__duration="3s")


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A 3 x 2 campaign over a duration with units, 2 seeds per point."""
    out = tmp_path_factory.mktemp("swept") / "campaign"
    xltcp.sweep(
        lossy(),
        vary={"tcp.min_rto": "1s,200ms,500ms", "wireless.loss.down.p": [0.01, 0.03]},
        seeds="1..2",
        out=out,
        jobs=1,
    )
    return out


@needs_core
def test_a_swept_quantity_has_a_numeric_column_beside_its_text(swept):
    frame = xltcp.load(swept)
    columns = list(frame.columns)
    assert columns.index("tcp.min_rto_s") == columns.index("tcp.min_rto") + 1
    pairs = set(zip(frame["tcp.min_rto"], frame["tcp.min_rto_s"], strict=True))
    assert pairs == {("1s", 1.0), ("200ms", 0.2), ("500ms", 0.5)}
    assert frame["tcp.min_rto_s"].dtype.kind == "f"
    # Grouped on the numeric column, the points come in the order of their values.
    order = [k for k, _ in frame.groupby("tcp.min_rto_s", sort=True)]
    assert order == [0.2, 0.5, 1.0]
    # A plain number gets no second column.
    assert not any(c.startswith("wireless.loss.down.p_") for c in columns)
    assert frame.attrs["numeric"] == {"tcp.min_rto": "tcp.min_rto_s"}


@needs_core
def test_constant_columns_leave_the_table_for_constants_json(swept):
    frame = xltcp.load(swept)
    constants = json.loads((swept / schema.CONSTANTS_FILE).read_text())
    assert constants == frame.attrs["constants"]
    assert "direction" in constants and "duration_s" in constants
    for column in frame.columns:
        if column not in (*schema.IDENTITY, "tcp.min_rto", "tcp.min_rto_s"):
            assert frame[column].nunique(dropna=False) > 1, column
    assert not set(constants) & set(frame.columns)
    whole = xltcp.load(swept, constants=True)
    assert set(whole.columns) == set(frame.columns) | set(constants)
    assert (whole["duration_s"] == constants["duration_s"]).all()


@needs_core
def test_a_one_run_campaign_keeps_every_column(tmp_path):
    out = tmp_path / "one"
    frame = xltcp.sweep(lossy(), out=out, jobs=1)
    assert "direction" in frame and "goodput_bps" in frame
    assert json.loads((out / schema.CONSTANTS_FILE).read_text()) == {}


@needs_core
def test_load_filters_rows_by_value_list_or_function(swept):
    assert len(xltcp.load(swept)) == 12
    at = xltcp.load(swept, where={"tcp.min_rto": "200ms"})
    assert set(at["tcp.min_rto"]) == {"200ms"} and len(at) == 4
    some = xltcp.load(swept, where={"tcp.min_rto_s": lambda s: s < 1, "seed": [2]})
    assert set(some["tcp.min_rto_s"]) == {0.2, 0.5} and set(some["seed"]) == {2}
    with pytest.raises(KeyError, match="no column 'tcp.rto'"):
        xltcp.load(swept, where={"tcp.rto": 1})


@needs_core
def test_the_xarray_view_is_indexed_by_the_swept_values_seed_and_flow(swept):
    pytest.importorskip("xarray")
    ds = xltcp.to_xarray(xltcp.load(swept))
    assert ds["goodput_bps"].dims == ("tcp.min_rto_s", "wireless.loss.down.p", "seed", "flow")
    assert ds["goodput_bps"].shape == (3, 2, 2, 1)
    assert list(ds["tcp.min_rto_s"].values) == [0.2, 0.5, 1.0]
    frame = xltcp.load(swept)
    row = frame[(frame["tcp.min_rto"] == "500ms") & (frame["seed"] == 2)]
    row = row[row["wireless.loss.down.p"] == 0.03].iloc[0]
    cell = ds["goodput_bps"].sel(
        {"tcp.min_rto_s": 0.5, "wireless.loss.down.p": 0.03, "seed": 2, "flow": "bulk"}
    )
    assert float(cell) == row["goodput_bps"]


@needs_core
def test_runs_csv_has_the_campaign_tables_column_names(swept, tmp_path):
    out = tmp_path / "seeds"
    args = ["run", str(xltcp.shipped_scenario("lossy-last-hop")), "--seeds", "1..2"]
    result = CliRunner().invoke(app, [*args, "--set", "sim.duration=3s", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    header = next(csv.reader((out / "runs.csv").open()))
    assert header[:2] == ["seed", "flow"]
    assert "name" not in header and "wall_seconds" not in header
    campaign_columns = set(xltcp.load(swept, constants=True).columns)
    own = {"point", "run", "tcp.min_rto", "tcp.min_rto_s", "wireless.loss.down.p"}
    assert campaign_columns - own == set(header)


def test_quantities_with_units_in_si():
    assert schema.quantity("200ms") == (0.2, "duration")
    assert schema.quantity("10Mbps") == (10e6, "rate")
    assert schema.quantity("64KiB") == (65536.0, "size")
    assert schema.quantity("100p") == (100.0, "packets")
    assert schema.quantity(0.2) is None and schema.quantity("exp(4s)") is None
    # Mixed kinds, or a value without a unit: no numeric column.
    assert schema.numeric_name("k", ["1s", "10Mbps"]) is None
    assert schema.numeric_name("k", ["1s", "x"]) is None
    assert schema.numeric_name("wireless.queue", ["50p", "100p"]) == (
        "wireless.queue_packets",
        [50.0, 100.0],
    )


def test_the_sweep_line_claims_no_speed_up():
    outcome = campaign.Outcome(None, 9, 0, 1.99, 0.26, 2, "threads")
    text = sweep_line(outcome).plain
    assert "speed-up" not in text and "own time" not in text
    assert text == "9 runs | wall 1.99 s on 2 threads"


@needs_core
def test_the_plan_estimate_learns_from_measured_runs(swept):
    the_plan = campaign.Plan.from_json(campaign.stored_plan(swept))
    walls = [
        json.loads((swept / "runs" / r.key / "summary.json").read_text())["wall_seconds"]
        for r in the_plan.runs
    ]
    seconds, source = campaign.estimate_seconds(the_plan, the_plan.runs, swept / "runs")
    assert source == "from the measured runs of each point in the store"
    assert seconds == pytest.approx(sum(walls))
    _, source = campaign.estimate_seconds(the_plan, the_plan.runs, swept / "absent")
    assert source.startswith("rough: from a 2 s run of each point")


def test_a_rate_column_has_one_unit():
    summary = {
        "seed": 1,
        "scenario": {"name": "mixed"},
        "flows": [
            {"name": "slow", "direction": "up", "goodput_bps": 120e3, "efficiency": 0.1},
            {"name": "fast", "direction": "down", "goodput_bps": 5.2e6, "efficiency": 0.5},
        ],
    }
    console = Console(width=200, record=True)
    console.print(table.run_table(summary))
    text = console.export_text()
    assert "goodput Mbit/s" in text and "kbit/s" not in text
    assert "0.12" in text and "5.20" in text
