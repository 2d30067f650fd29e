"""The README's "Using it" section, run as a new user would: every command
shown there, in a fresh folder holding a copy of scenarios/, must exit 0.

To keep it fast the test appends its own ``--set sim.duration=2s`` to the
commands that run a scenario (run, sweep, demo); everything else is run as
written. ``my-scenario.toml`` stands for the reader's own file: the test
writes one (a copy of the demo) first.
"""

from __future__ import annotations

import re
import shlex
import shutil

from typer.testing import CliRunner

from xltcp.cli import app

from conftest import REPO, needs_core

pytestmark = needs_core

#: The test's own override on commands that run a scenario.
SHORT = ["--set", "sim.duration=2s"]


def using_it_commands() -> list[list[str]]:
    """The ``xltcp ...`` lines of the first code block under "## Using it"."""
    text = (REPO / "README.md").read_text()
    section = text.split("\n## Using it\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "no sh block in the README's Using it section"
    commands = []
    for line in block.group(1).splitlines():
        words = shlex.split(line, comments=True)
        if words:
            assert words[0] == "xltcp", line
            commands.append(words[1:])
    return commands


def test_the_section_is_found_and_shows_the_main_commands():
    shown = {c[0] for c in using_it_commands()}
    assert {"run", "validate", "plot", "sweep", "report", "scenarios"} <= shown


def test_every_using_it_example_runs(tmp_path, monkeypatch):
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    shutil.copy(REPO / "scenarios" / "demo.toml", tmp_path / "my-scenario.toml")
    monkeypatch.chdir(tmp_path)
    for command in using_it_commands():
        args = command + (SHORT if command[0] in ("run", "sweep", "demo") else [])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, f"xltcp {shlex.join(command)}\n{result.output}"


def test_the_readme_is_short_and_links_to_pages_that_exist():
    # A README a newcomer reads in five minutes; the detail is in docs/.
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert text.startswith("# xltcp\n\n```sh\nscripts/main.sh ")
    links = re.findall(r"\]\((docs/[^)#\s]+)", text)
    assert links
    for link in links:
        assert (REPO / link).is_file(), link


def test_every_xltcp_command_of_the_readme_is_run():
    # Every ``xltcp`` line of the README's sh blocks is one the test above runs.
    text = (REPO / "README.md").read_text()
    shown = {shlex.join(["xltcp", *c]) for c in using_it_commands()}
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "xltcp":
                assert shlex.join(words) in shown, line


def python_api_example() -> str:
    """The first Python block of docs/campaigns.md's "The Python API"."""
    text = (REPO / "docs" / "campaigns.md").read_text()
    section = text.split("\n## The Python API\n", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block, "no python block in docs/campaigns.md's Python API section"
    return block.group(1)


def test_the_python_example_after_the_cli_sweep_leaves_both_campaigns(tmp_path, monkeypatch):
    """The README's sweep, then the documented Python example, as a reader
    would run them one after the other in one folder: each campaign keeps
    its own folder and table, and the CLI's resumes untouched."""
    import pandas as pd

    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    sweep = next(c for c in using_it_commands() if c[0] == "sweep")
    result = CliRunner().invoke(app, sweep + SHORT)
    assert result.exit_code == 0, result.output
    cli_dir = tmp_path / "results" / "lossy-last-hop-sweep"
    before = (cli_dir / "results.parquet").read_bytes()
    exec(compile(python_api_example(), "docs/campaigns.md", "exec"), {})
    py_dir = tmp_path / "results" / "lossy-sweep-py"
    assert (cli_dir / "results.parquet").read_bytes() == before
    assert len(pd.read_parquet(py_dir / "results.parquet")) == 15
    again = CliRunner().invoke(app, sweep + SHORT)
    assert again.exit_code == 0, again.output
    assert "0 runs (30 already done)" in again.output
    assert (cli_dir / "results.parquet").read_bytes() == before
