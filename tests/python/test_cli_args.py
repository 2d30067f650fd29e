"""How the command line maps onto a run (the run itself is replaced)."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

import xltcp
from xltcp import cli
from xltcp.cli import info, runs


@pytest.fixture
def calls(monkeypatch):
    seen = []

    def fake_run_scenario(scenario, seed, seeds, out, overrides, quiet, as_json, *rest, **kw):
        seen.append(dict(seed=seed, seeds=seeds, out=out, overrides=overrides, quiet=quiet))
        if rest:
            seen[-1]["max_output"] = rest[0]
        if len(rest) > 1 or "force" in kw:
            seen[-1]["force"] = rest[1] if len(rest) > 1 else kw["force"]
        return out if out is not None else Path("results") / "fake"

    # ``run`` and ``demo`` both call it: replace it where each looks it up.
    monkeypatch.setattr(runs, "run_scenario", fake_run_scenario)
    monkeypatch.setattr(info, "run_scenario", fake_run_scenario)
    return seen


def invoke(*args):
    return CliRunner().invoke(cli.app, [str(a) for a in args])


def test_pcap_is_sugar_for_set(calls, write_toml):
    result = invoke("run", write_toml(""), "--set", "sim.duration=2s", "--pcap")
    assert result.exit_code == 0, result.output
    assert calls == [
        dict(
            seed=None,
            seeds=None,
            out=None,
            overrides=["sim.duration=2s", "output.pcap=true"],
            quiet=False,
            max_output=4 << 30,
            force=False,
        )
    ]


def test_max_output_is_parsed(calls, write_toml):
    result = invoke("run", write_toml(""), "--max-output", "20GiB")
    assert result.exit_code == 0, result.output
    assert calls[0]["max_output"] == 20 << 30


def test_seed_and_out(calls, write_toml):
    result = invoke("run", write_toml(""), "--seed", "9", "--out", "somewhere", "-q")
    assert result.exit_code == 0, result.output
    assert calls[0]["seed"] == 9
    assert calls[0]["out"] == Path("somewhere")
    assert calls[0]["quiet"] is True


def test_force_is_passed_on(calls, write_toml):
    result = invoke("run", write_toml(""), "--out", "somewhere", "--force")
    assert result.exit_code == 0, result.output
    assert calls[0]["force"] is True


def test_seeds_are_parsed(calls, write_toml):
    result = invoke("run", write_toml(""), "--seeds", "2..4")
    assert result.exit_code == 0, result.output
    assert calls[0]["seeds"] == [2, 3, 4]
    assert calls[0]["seed"] is None


def test_demo_runs_the_shipped_scenario(calls, monkeypatch, tmp_path):
    shipped = tmp_path / "demo.toml"
    shipped.write_text("")
    monkeypatch.setattr(xltcp, "shipped_scenario", lambda name: tmp_path / f"{name}.toml")
    result = invoke("demo", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert calls[0]["out"] == tmp_path / "out"
    assert calls[0]["overrides"] == []


def test_demo_without_the_scenario_exit_1(calls, monkeypatch, tmp_path):
    monkeypatch.setattr(xltcp, "shipped_scenario", lambda name: tmp_path / "absent.toml")
    result = invoke("demo")
    assert result.exit_code == 1
    assert "error: the shipped demo scenario is missing" in result.stderr
    assert calls == []


def _commands():
    import typer

    return sorted(typer.main.get_command(cli.app).commands)


@pytest.mark.parametrize("command", ["", *_commands()])
def test_help_is_tidy(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    args = [command, "--help"] if command else ["--help"]
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    text = result.output
    for bad in ("<bool>", "<int range>", "\\[", "``", "\u2500", "\u2502"):
        assert bad not in text, (command, bad)
    for line in text.splitlines():
        assert line == line.rstrip(), (command, line)
    assert "\n\n\n" not in text
