"""Results folders that say what made them, never mix two runs, and never
lose a file xltcp did not write.

``xltcp run`` writes into a folder that is new or empty: an explicit
``--out`` that already holds files is refused unless ``--force``, which
empties it, but only when xltcp's own marker says xltcp wrote it (a
``manifest.json`` whose ``"schema"`` is :data:`SCHEMA`, with the xltcp
version) and every entry in it is one xltcp writes (:func:`foreign`);
anything else is named and nothing is deleted. ``--out`` may never be the
current folder or one that holds it. ``--resume`` finishes an interrupted
``--seeds`` run made by the same command (:func:`check_resume`). The
default folder, ``results/<scenario name>``, moves on to
``results/<name>-2``, ``-3``, ... when taken, and the command says which it
used.

Every folder gets ``manifest.json``: the command line, the overrides, the
scenario file's path and SHA-256 (and that of the scenario as validated,
which covers the files it extends), the seeds, the xltcp version, the host,
when it started and finished, and whether it completed. A single run's
folder is written whole under a temporary name and renamed when complete
(:func:`temp_path`, :func:`publish`); a ``--seeds`` folder's manifest is
written when the run starts (``"status": "running"``) and rewritten at the
end (``"complete"``, ``"interrupted"`` or ``"failed"``), so a folder left
by a killed run says so. ``run.log`` beside it has a line per run started,
finished or failed.

A temporary folder is named ``.NAME.tmp-<host>-<pid>-<random>``: the next
run into the same parent folder removes those whose process is dead
(:func:`clean_stale`), never one of a live process or of another host.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: xltcp's marker in ``manifest.json``: a folder is xltcp's only if its manifest says so.
SCHEMA = "xltcp.results/1"

#: The per-folder log of runs started, finished and failed.
LOG_NAME = "run.log"

#: Files xltcp writes at the top of a results folder (or of a ``seed-<n>/`` in it).
OWN_FILES = frozenset(
    {
        "manifest.json",
        LOG_NAME,
        "summary.json",
        "signals.jsonl",
        "events.csv",
        "runs.csv",
        "aggregate.json",
        "report.html",
    }
)

#: Folders xltcp writes in a results folder, and the suffixes of the files in them.
OWN_FOLDERS = {
    "timeseries": (".csv",),
    "pcap": (".pcapng",),
    "plots": (".png", ".pdf", ".svg"),
}

_SEED_FOLDER = re.compile(r"seed-[0-9]+")

#: ``.NAME.tmp-<host>-<pid>-<8 hex>``; older versions wrote ``.NAME.tmp-<8 hex>``.
_TEMP = re.compile(r"\.(?P<name>.+)\.tmp-(?P<host>[A-Za-z0-9._-]+)-(?P<pid>[0-9]+)-[0-9a-f]{8}")
_OLD_TEMP = re.compile(r"\..+\.tmp-[0-9a-f]{8}")


class OutDirError(Exception):
    """A results folder that cannot be used as asked (a user error)."""


def is_empty(folder: Path) -> bool:
    """Whether ``folder`` is missing or holds nothing."""
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


def fresh(folder: Path) -> Path:
    """``folder`` if missing or empty, else the first free ``folder-2``, ``-3``, ..."""
    if is_empty(folder):
        return folder
    n = 2
    while not is_empty(folder.with_name(f"{folder.name}-{n}")):
        n += 1
    return folder.with_name(f"{folder.name}-{n}")


def _listing(names: Sequence[str], most: int = 4) -> str:
    names = sorted(names)
    more = f", ... ({len(names)} entries)" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _entries(folder: Path) -> list[str]:
    return [p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()]


# --- Temporary folders ------------------------------------------------------------


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.-]", "_", platform.node()) or "host"


def temp_path(final: Path) -> Path:
    """A new temporary sibling of ``final`` that names this host and process."""
    tag = f"{_host()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    return final.parent / f".{final.name}.tmp-{tag}"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True  # another user's process
    return True


def temp_owner(name: str) -> str | None:
    """Who holds a temporary folder: ``"dead"`` (removable), ``"live"`` (a
    running process of this host), ``"other"`` (another host's), or None when
    ``name`` is not an xltcp temporary folder."""
    match = _TEMP.fullmatch(name)
    if match is None:
        return "dead" if _OLD_TEMP.fullmatch(name) else None
    if match["host"] != _host():
        return "other"
    return "live" if _alive(int(match["pid"])) else "dead"


def clean_stale(parent: Path) -> int:
    """Remove the temporary folders in ``parent`` of runs whose process is
    dead; returns how many. Those of live processes and other hosts stay."""
    removed = 0
    if not parent.is_dir():
        return removed
    for entry in parent.iterdir():
        if entry.is_dir() and not entry.is_symlink() and temp_owner(entry.name) == "dead":
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


def live_temps(folder: Path) -> list[str]:
    """Temporary folders in ``folder`` that an xltcp process may be writing:
    a live one of this host, or one of another host (which cannot be told)."""
    return [
        p.name for p in folder.iterdir() if p.is_dir() and temp_owner(p.name) in ("live", "other")
    ]


def holds_cwd(folder: Path) -> bool:
    """Whether ``folder`` is the current folder or one that holds it."""
    if not folder.exists():
        return False
    here, there = Path.cwd().resolve(), folder.resolve()
    return here == there or there in here.parents


def publish(tmp: Path, final: Path) -> None:
    """Rename the finished ``tmp`` to ``final`` (missing or an empty folder)."""
    try:
        os.rename(tmp, final)
    except OSError:
        # An empty folder that cannot be replaced (a mount point): move into it.
        if not (final.is_dir() and is_empty(final)):
            raise
        for entry in tmp.iterdir():
            shutil.move(str(entry), str(final / entry.name))
        tmp.rmdir()


# --- Whose folder ---------------------------------------------------------------


def read_manifest(folder: Path) -> dict | None:
    """``folder/manifest.json`` when xltcp wrote it (its schema marker), else None."""
    try:
        data = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    return data if isinstance(data.get("xltcp_version"), str) else None


def foreign(folder: Path, prefix: str = "") -> list[str]:
    """Entries of a results folder that xltcp does not write (paths from
    ``folder``): anything but :data:`OWN_FILES`, :data:`OWN_FOLDERS` holding
    their kind of files, ``seed-<n>/`` folders of the same, and temporary
    folders. Symbolic links are never xltcp's."""
    found = []
    for entry in sorted(folder.iterdir()):
        name, path = entry.name, prefix + entry.name
        if entry.is_symlink():
            found.append(path)
        elif entry.is_file() and (name in OWN_FILES or _half_written(name)):
            continue
        elif entry.is_dir() and name in OWN_FOLDERS:
            found += _foreign_in(entry, OWN_FOLDERS[name], path + "/")
        elif entry.is_dir() and not prefix and _SEED_FOLDER.fullmatch(name):
            found += foreign(entry, path + "/")
        elif not (entry.is_dir() and temp_owner(name) is not None):
            found.append(path + ("/" if entry.is_dir() else ""))
    return found


def _half_written(name: str) -> bool:
    # What write_whole leaves when killed midway: .manifest.json.tmp
    return name.startswith(".") and name.endswith(".tmp") and name[1:-4] in OWN_FILES


def _foreign_in(folder: Path, suffixes: Sequence[str], prefix: str) -> list[str]:
    return [
        prefix + p.name
        for p in sorted(folder.iterdir())
        if p.is_symlink() or not p.is_file() or p.suffix not in suffixes
    ]


def _refuse_cwd(folder: Path) -> None:
    if holds_cwd(folder):
        here = folder.resolve() == Path.cwd().resolve()
        what = "the current folder" if here else "a folder that holds the current one"
        raise OutDirError(
            f"{folder}: {what}; xltcp writes a results folder of its own and never "
            "empties this one: give a new folder, e.g. --out results/NAME"
        )


def check_reproduction(folder: Path, papers: Sequence[str] = ()) -> None:
    """Make sure ``xltcp reproduce`` may write into ``folder``.

    A reproduction resumes: it reuses the runs in its folder and rewrites
    its tables, so it writes only into a folder that is new, empty, or one a
    reproduction wrote (``reproduce.json`` or ``runs/`` in it, or, for
    several papers, their folders), never the current folder or one that
    holds it: a file of another program is never overwritten.
    """
    _refuse_cwd(folder)
    if is_empty(folder):
        return
    if not folder.is_dir():
        raise OutDirError(f"{folder}: exists and is not a folder; give another --out")
    if any((folder / name).exists() for name in ("reproduce.json", "runs", *papers)):
        return
    raise OutDirError(
        f"{folder}: not a folder xltcp reproduce wrote (no reproduce.json or runs/; it "
        f"holds {_listing(_entries(folder))}); give another --out"
    )


def prepare(folder: Path, force: bool) -> None:
    """Make sure a run may write into ``folder`` (an explicit ``--out``).

    A missing or empty folder is fine (but never the current one or one that
    holds it). A folder with files is refused unless ``force``; with
    ``force`` its entries are removed, provided xltcp's marker says xltcp
    wrote it, every entry is one xltcp writes and no xltcp process is
    writing into it. Raises OutDirError naming what stands in the way.
    """
    if not _holds_files(folder):
        return
    if not force:
        raise OutDirError(
            f"{folder}: the folder is not empty (it holds {_listing(_entries(folder))}); "
            + _not_empty_hint(read_manifest(folder))
        )
    _ours(folder, "--force replaces")
    others = foreign(folder)
    if others:
        raise OutDirError(
            f"{folder}: holds {_listing(others)}, which xltcp did not write; --force "
            "replaces only folders of xltcp's own files: move them away, or give another --out"
        )
    _refuse_busy(folder)
    for entry in folder.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def check_resume(folder: Path, echo: dict, seeds: Sequence[int]) -> None:
    """Make sure ``--resume`` may finish the ``--seeds`` run in ``folder``:
    xltcp's, made for the same seeds, scenario (as validated) and version.
    A missing or empty folder starts afresh. Raises OutDirError saying what
    differs."""
    if not _holds_files(folder):
        return
    differs = _resume_differences(_ours(folder, "--resume finishes"), echo, seeds)
    if differs:
        raise OutDirError(
            f"{folder}: holds another run ({'; '.join(differs)}); --resume finishes the "
            "same command only: give --force to replace it, or another --out"
        )
    _refuse_busy(folder)


def _holds_files(folder: Path) -> bool:
    # False for a missing or empty folder; refuses the current folder and a file.
    _refuse_cwd(folder)
    if is_empty(folder):
        return False
    if not folder.is_dir():
        raise OutDirError(f"{folder}: exists and is not a folder; give another --out")
    return True


def _ours(folder: Path, doing: str) -> dict:
    manifest = read_manifest(folder)
    if manifest is None:
        raise OutDirError(
            f"{folder}: not a results folder written by xltcp (no manifest.json with "
            f'"schema": "{SCHEMA}"); {doing} only those: give another --out'
        )
    return manifest


def _not_empty_hint(manifest: dict | None) -> str:
    seeds = (manifest or {}).get("seeds")
    several = isinstance(seeds, list) and len(seeds) > 1
    if manifest is not None and manifest.get("status") != "complete" and several:
        return (
            f"it holds a --seeds run that did not finish (status {manifest.get('status')}): "
            "give --resume to finish it, --force to replace it, or another --out"
        )
    return "give --force to replace it, or another --out"


def _refuse_busy(folder: Path) -> None:
    busy = live_temps(folder)
    if busy:
        raise OutDirError(
            f"{folder}: another xltcp process is writing into it ({_listing(busy)}); "
            "wait for it to end, or give another --out"
        )


def _resume_differences(manifest: dict, echo: dict, seeds: Sequence[int]) -> list[str]:
    scenario = manifest.get("scenario") if isinstance(manifest.get("scenario"), dict) else {}
    pairs = [
        ("seeds", manifest.get("seeds"), list(seeds)),
        ("the scenario as validated (SHA-256)", scenario.get("validated_sha256"),
         sha256_json(echo)),
        ("xltcp version", manifest.get("xltcp_version"), _version()),
        ("core version", manifest.get("core_version"), _core_version()),
    ]  # fmt: skip
    return [f"{what}: {there} there, {here} here" for what, there, here in pairs if there != here]


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
            "schema": SCHEMA,
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

    def write(self, folder: Path | None = None) -> None:
        """Write (or rewrite, whole) ``manifest.json`` in its folder, or in
        ``folder`` (the temporary folder of a run not yet renamed)."""
        folder = self.folder if folder is None else Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        write_whole(folder / "manifest.json", json.dumps(self.data, indent=2) + "\n")

    def finish(self, status: str, folder: Path | None = None, **extra: Any) -> None:
        """Record the end: ``complete``, ``interrupted`` or ``failed``."""
        self.data.update(status=status, finished_at=_now(), **extra)
        self.write(folder)


def write_whole(path: Path, text: str) -> None:
    """Write ``path`` under a temporary name and rename it, so that it is
    never left half written."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


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
