"""``python -m xltcp``: the same as the ``xltcp`` command."""

from xltcp.cli import main

main()
