"""The ``xltcp`` command's entry point: ``xltcp --version`` answers here,
without importing the command-line machinery (typer, click, rich), so
that asking the version costs little more than starting Python; every
other command goes on to :func:`xltcp.cli.main`."""

from __future__ import annotations

import sys


def version_text() -> str:
    """``xltcp <version>`` of the installed package."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"xltcp {version('xltcp')}"
    except PackageNotFoundError:
        return "xltcp (not installed)"


def main() -> None:
    """Entry point of the ``xltcp`` command."""
    if sys.argv[1:] == ["--version"]:
        print(version_text())
        return
    from xltcp.cli import main as cli_main

    cli_main()
