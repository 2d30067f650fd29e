import subprocess
import sys

from typer.testing import CliRunner

import xltcp
from xltcp.cli import app

from conftest import REPO


def test_module_entry_point_prints_help():
    result = subprocess.run(
        [sys.executable, "-m", "xltcp", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    for command in ("run", "validate", "demo", "scenarios"):
        assert command in result.stdout


def test_shipped_scenarios_are_the_repository_ones():
    repo_files = sorted(p.name for p in (REPO / "scenarios").glob("*.toml"))
    shipped = sorted(p.name for p in xltcp.scenarios_dir().glob("*.toml"))
    assert shipped == repo_files
    for name in shipped:
        assert (
            xltcp.shipped_scenario(name[:-5]).read_text() == (REPO / "scenarios" / name).read_text()
        )


def test_scenarios_command_lists_them():
    names = sorted(p.stem for p in (REPO / "scenarios").glob("*.toml"))
    result = CliRunner().invoke(app, ["scenarios"])
    if not names:
        assert result.exit_code == 1
        return
    assert result.exit_code == 0, result.output
    for name in names:
        assert name in result.stdout
