"""Exit statuses in one table (``xltcp --help`` and the README), and
``xltcp scenarios``: a line each, descriptions with ``--long``."""

from __future__ import annotations

import ast
import re

from typer.testing import CliRunner

import xltcp
from xltcp import cli
from xltcp.cli import EXIT_STATUSES, app

from conftest import REPO


def _words(text: str) -> str:
    return " ".join(text.split())


def test_help_epilog_lists_every_exit_status():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    text = _words(result.stdout)
    assert "Exit status:" in text
    for code, meaning in EXIT_STATUSES:
        assert f"{code} {_words(meaning)}" in text


def test_readme_exit_status_table_is_the_command_s():
    text = (REPO / "README.md").read_text()
    section = text.split("\n### Exit status\n", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", section, re.M)
    assert [(int(code), meaning) for code, meaning in rows] == list(EXIT_STATUSES)


def _statuses_in(source: str) -> set[int]:
    """The exit statuses a module's code names: ``_error(..., N)``,
    ``typer.Exit(N)``, ``sys.exit(N)`` and the ``return N`` of ``last_resort``."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in ("_error", "Exit", "exit"):
                continue
            arg = node.args[-1]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, int):
                found.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id == "TARGETS_MISSED":
                found.add(cli.TARGETS_MISSED)
        elif isinstance(node, ast.FunctionDef) and node.name == "last_resort":
            for inner in ast.walk(node):
                if isinstance(inner, ast.Return) and isinstance(inner.value, ast.Constant):
                    found.add(inner.value.value)
    return found


def test_every_status_the_code_uses_is_in_the_table():
    used = set()
    for path in (REPO / "python" / "xltcp").rglob("*.py"):
        if path.name != "reference.py":  # a build script's own main, not the command's
            used |= _statuses_in(path.read_text())
    assert {1, 2, 3, 130} <= used
    assert used <= {code for code, _ in EXIT_STATUSES}


def test_first_sentence_fits_the_width():
    text = "Kumar and Shin (paper 001), Fig. 7: one cell. Then more."
    assert cli.first_sentence(text, 80) == "Kumar and Shin (paper 001), Fig. 7: one cell."
    cut = cli.first_sentence(text, 30)
    assert cut == "Kumar and Shin (paper 001)..." and len(cut) <= 30
    assert cli.first_sentence("No full stop here", 80) == "No full stop here"


def test_scenarios_prints_a_line_each_by_default():
    names = xltcp.shipped_names()
    result = CliRunner().invoke(app, ["scenarios"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == len(names) + 1
    for name, line in zip(names, lines, strict=False):
        assert line.split()[0] == name
        assert len(line) <= max(cli.out_console.width, len(name) + 32)
    demo = lines[names.index("demo")]
    assert "A small, quick showcase" in demo and "│" not in demo
    assert f"{len(names)} scenarios in" in lines[-1] and "--long" in lines[-1]


def test_scenarios_long_prints_each_description():
    short = CliRunner().invoke(app, ["scenarios"])
    long = CliRunner().invoke(app, ["scenarios", "--long"])
    assert long.exit_code == 0, long.output
    assert len(long.stdout.splitlines()) > 3 * len(short.stdout.splitlines())
    # The demo's description goes on past its first sentence.
    assert "exp(4s)" in long.stdout and "exp(4s)" not in short.stdout
    for name in xltcp.shipped_names():
        assert name in long.stdout
