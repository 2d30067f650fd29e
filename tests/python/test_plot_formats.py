"""xltcp plot: formats, titles with scenario and seed, scaled units, markers, overlay."""

import json

import pytest
from typer.testing import CliRunner

from xltcp import plot
from xltcp.cli import app

from conftest import needs_core

pytestmark = needs_core

MAGIC = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "r"
    demo = plot.Path(__file__).resolve().parents[2] / "scenarios" / "demo.toml"
    args = ["run", str(demo), "--set", "sim.duration=3s", "--seed", "2", "--out", str(out), "-q"]
    assert CliRunner().invoke(app, args).exit_code == 0
    return out


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg"])
def test_every_format_is_written(run_dir, fmt):
    result = CliRunner().invoke(app, ["plot", str(run_dir), "--format", fmt])
    assert result.exit_code == 0, result.output
    flows = json.loads((run_dir / "summary.json").read_text())["flows"]
    for name in [f["name"] for f in flows] + ["all-flows"]:
        assert (run_dir / "plots" / f"{name}.{fmt}").read_bytes().startswith(MAGIC[fmt]), name


def test_an_unknown_format_is_a_user_error(run_dir):
    result = CliRunner().invoke(app, ["plot", str(run_dir), "--format", "gif"])
    assert result.exit_code == 2
    assert "allowed png, pdf, svg" in result.output


def test_titles_name_scenario_seed_and_flow(run_dir, monkeypatch):
    titles = []
    real = plot.flow_figure

    def spy(path, title, marks=None):
        titles.append(title)
        return real(path, title, marks)

    monkeypatch.setattr(plot, "flow_figure", spy)
    plot.plot_run(run_dir)
    assert titles and all(t.startswith("demo, seed 2: flow ") for t in titles)


def test_units_scale_to_the_values():
    assert plot.scale([0.0, 15.4e3], plot._RATE_UNITS) == (1e3, "kbit/s")
    assert plot.scale([8.2e6], plot._RATE_UNITS) == (1e6, "Mbit/s")
    assert plot.scale([900.0, float("nan")], plot._BYTE_UNITS) == (1.0, "B")
    assert plot.scale([64e3], plot._BYTE_UNITS) == (1e3, "kB")


def test_rto_and_fast_recovery_entries_are_found():
    t = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    states = ["open", "recovery", "recovery", "open", "loss", "loss"]
    assert plot._events(t, states) == {"RTO": [0.4], "fast recovery": [0.1]}
