"""Results folders that say what made them and never mix two runs.

``xltcp run`` writes into a folder that is new or empty: an explicit
``--out`` that already holds files is refused unless ``--force`` (which
replaces it, but only when it is a folder xltcp wrote: one with a
``manifest.json``, ``summary.json`` or ``aggregate.json``); the default
folder, ``results/<scenario name>``, moves on to ``results/<name>-2``,
``-3``, ... when taken, and the command says which it used.

Every folder gets ``manifest.json``: the command line, the overrides, the
scenario file's path and SHA-256 (and that of the scenario as validated,
which covers the files it extends), the seeds, the xltcp version, the host,
when it started and finished, and whether it completed. It is written when
the run starts (``"status": "running"``) and rewritten at the end
(``"complete"``, ``"interrupted"`` or ``"failed"``), so a folder left by a
killed run says so. ``run.log`` beside it has a line per run started,
finished or failed.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import platform
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Files whose presence marks a folder as written by xltcp (what --force may replace).
MARKERS = ("manifest.json", "summary.json", "aggregate.json")

#: The per-folder log of runs started, finished and failed.
LOG_NAME = "run.log"


class OutDirError(Exception):
    """A results folder that cannot be used as asked (a user error)."""


def is_empty(folder: Path) -> bool:
    """Whether ``folder`` is missing or holds nothing."""
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


def _listing(folder: Path, most: int = 4) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    more = f", ... ({len(names)} entries)" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def prepare(folder: Path, force: bool) -> None:
    """Make sure a run may write into ``folder`` (an explicit ``--out``).

    A missing or empty folder is fine. A folder with files is refused unless
    ``force``; with ``force`` it is removed first, provided xltcp wrote it.
    """
    if is_empty(folder):
        return
    if not folder.is_dir():
        raise OutDirError(f"{folder}: exists and is not a folder; give another --out")
    if not force:
        raise OutDirError(
            f"{folder}: the folder is not empty (it holds {_listing(folder)}); "
            "give --force to replace it, or another --out"
        )
    if not any((folder / name).is_file() for name in MARKERS):
        raise OutDirError(
            f"{folder}: not a results folder written by xltcp (no {', '.join(MARKERS)}); "
            "--force replaces only those: give another --out"
        )
    shutil.rmtree(folder)


def fresh(folder: Path) -> Path:
    """``folder`` if missing or empty, else the first free ``folder-2``, ``-3``, ..."""
    if is_empty(folder):
        return folder
    n = 2
    while not is_empty(folder.with_name(f"{folder.name}-{n}")):
        n += 1
    return folder.with_name(f"{folder.name}-{n}")


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sha256_json(value: Any) -> str:
    """Hex SHA-256 of a JSON value written canonically (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("xltcp")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _core_version() -> str | None:
    try:
        from xltcp import _core
    except ImportError:
        return None
    version = getattr(_core, "version", None)
    return str(version()) if callable(version) else None


class Manifest:
    """``manifest.json`` of a results folder, written at start and at the end."""

    def __init__(
        self,
        folder: Path,
        scenario: Path,
        echo: dict,
        overrides: Sequence[str],
        seeds: Sequence[int] | None,
        argv: Sequence[str] | None = None,
    ) -> None:
        argv = list(sys.argv if argv is None else argv)
        self.folder = Path(folder)
        self.data: dict[str, Any] = {
            "command": " ".join(["xltcp", *argv[1:]]),
            "argv": argv[1:],
            "overrides": list(overrides),
            "scenario": {
                "path": str(scenario),
                "name": echo.get("name"),
                "sha256": sha256_file(scenario),
                "validated_sha256": sha256_json(echo),
            },
            "seeds": None if seeds is None else list(seeds),
            "xltcp_version": _version(),
            "core_version": _core_version(),
            "host": {
                "name": platform.node(),
                "platform": platform.platform(),
                "python": platform.python_version(),
            },
            "started_at": _now(),
            "finished_at": None,
            "status": "running",
        }

    def write(self) -> None:
        """Write (or rewrite) ``manifest.json``."""
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.data, indent=2) + "\n"
        (self.folder / "manifest.json").write_text(text)

    def finish(self, status: str, **extra: Any) -> None:
        """Record the end: ``complete``, ``interrupted`` or ``failed``."""
        self.data.update(status=status, finished_at=_now(), **extra)
        self.write()


def log(folder: Path, line: str) -> None:
    """Append a time-stamped line to ``folder/run.log``."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOG_NAME, "a") as f:
        f.write(f"{_now()} {line}\n")


def summary_line(summary: dict) -> str:
    """What ``run.log`` says of a finished run: seed, events, wall time, goodputs."""
    flows = ", ".join(
        f"{f.get('name')} {float(f.get('goodput_bps') or 0.0):.0f} bit/s"
        for f in summary.get("flows", [])
    )
    parts = [
        f"finished seed {summary.get('seed')}",
        f"{summary.get('events')} events",
        f"wall {float(summary.get('wall_seconds') or 0.0):.3f} s",
    ]
    if summary.get("output"):
        parts.append(f"traces cut at {summary['output'].get('cut_at_s')} s")
    return "; ".join(parts) + (f"; goodput {flows}" if flows else "")
