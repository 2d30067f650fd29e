"""The command starts light: importing it, or asking its version, loads no
numerical or plotting stack (they are imported where a command uses them),
so a run's wall time and peak memory measure the simulator."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import xltcp

#: Packages only some commands need (statistics, plots, reproductions).
HEAVY = ("scipy", "matplotlib", "numpy", "pandas")


def _loaded_after(code: str) -> list[str]:
    """Top-level packages of HEAVY in sys.modules after running `code`."""
    env = dict(os.environ)
    # The xltcp under test, not whatever another path would find first.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(xltcp.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")]
    )
    probe = (
        f"{code}\n"
        "import sys\n"
        "print('heavy:', ' '.join(sorted("
        f"{{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[-1].removeprefix("heavy:").split()


def test_importing_the_cli_loads_no_heavy_package():
    assert _loaded_after("import xltcp.cli") == []


def test_version_loads_no_heavy_package():
    code = (
        "import sys\n"
        "from xltcp.cli import main\n"
        "sys.argv = ['xltcp', '--version']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
    )
    assert _loaded_after(code) == []


def test_the_probe_sees_a_heavy_import():
    # The check above can fail: a module that imports scipy is caught.
    assert "scipy" in _loaded_after("import xltcp.stats as s; s.mean_ci([1.0, 2.0])")


def test_version_alone_skips_the_command_line_machinery():
    code = (
        "import sys\n"
        "from xltcp.entry import main\n"
        "sys.argv = ['xltcp', '--version']\n"
        "main()\n"
        "print('cli:', ' '.join(sorted({'typer', 'click', 'rich'} & set(sys.modules))))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(xltcp.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")]
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    first, last = result.stdout.splitlines()[0], result.stdout.splitlines()[-1]
    assert first.startswith("xltcp "), result.stdout
    assert last.split() == ["cli:"], result.stdout
    # The full command prints the same line.
    from xltcp.entry import version_text

    assert first == version_text()
