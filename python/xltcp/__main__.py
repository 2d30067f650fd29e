"""``python -m xltcp``: the same as the ``xltcp`` command."""

from xltcp.entry import main

main()
