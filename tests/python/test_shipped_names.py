"""Shipped scenarios by name, and described in full by ``xltcp scenarios``."""

from rich.console import Console
from typer.testing import CliRunner

import xltcp
from xltcp import cli
from xltcp.cli import info

from conftest import REPO, needs_core


def invoke(*args):
    return CliRunner().invoke(cli.app, [str(a) for a in args])


def test_every_shipped_file_has_a_name_that_resolves():
    files = sorted((REPO / "scenarios").rglob("*.toml"))
    names = xltcp.shipped_names()
    assert len(names) == len(files)
    assert names[0] == "demo" or "/" not in names[0]
    for name in names:
        assert cli.resolve_scenario(__import__("pathlib").Path(name)).is_file(), name


@needs_core
def test_run_and_validate_take_a_shipped_name(tmp_path):
    result = invoke("run", "lossy-last-hop", "--set", "sim.duration=1s", "--out", tmp_path / "r")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r" / "summary.json").is_file()
    assert invoke("validate", "byun2016/tcp-lr").exit_code == 0


def test_an_unknown_name_lists_the_shipped_ones():
    result = invoke("validate", "no-such-scenario")
    assert result.exit_code == 2
    assert (
        "not the name of a shipped scenario" in result.output and "lossy-last-hop" in result.output
    )


def test_scenarios_long_prints_whole_descriptions(monkeypatch):
    console = Console(width=3000, record=True, highlight=False)
    monkeypatch.setattr(info, "out_console", console)
    result = invoke("scenarios", "--long")
    assert result.exit_code == 0, result.output
    text = " ".join(console.export_text().split())
    for name in xltcp.shipped_names():
        assert name in text
        # The last words of the file's opening comment are there: nothing is cut.
        tail = " ".join(cli.description(xltcp.shipped_scenario(name)).split()[-6:])
        assert tail in text, (name, tail)
