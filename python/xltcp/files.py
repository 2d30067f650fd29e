"""Reading the files a command is given, bounded and checked.

Every file xltcp reads on the Python side (campaign files, the scenario
file it peeks into, the results files ``report`` and ``plot`` read:
``summary.json``, ``aggregate.json``, ``campaign.json``, ``runs.csv``,
time series, tables) goes through here: it must be a regular file (not a
folder, a FIFO, a device such as ``/dev/zero``) no larger than its bound,
checked before a byte is read, and hold what it should (UTF-8 text, JSON
of the right shape, TOML). Anything else raises :class:`FileError`, whose
message names the file, what it is and what is allowed; the command line
reports it with exit status 2. The scenario files themselves are read by
the core, which applies the same rules (``xltcp_core::scenario::files``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

#: Largest text file read whole: scenario and campaign files (TOML), and
#: the JSON files of a results folder. The core's bound on scenario files.
MAX_TEXT_BYTES = 16 << 20

#: Largest table read: ``runs.csv``, a campaign's ``results.csv`` or
#: ``results.parquet``, a flow's time series.
MAX_TABLE_BYTES = 256 << 20


class FileError(ValueError):
    """A file that is not what it should be: the message names it and what is allowed."""


def human(n: int) -> str:
    """``16 MiB``: a bound as the messages write it."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check(path: str | Path, limit: int = MAX_TEXT_BYTES) -> int:
    """The size of ``path``, a regular file of at most ``limit`` bytes
    (symbolic links followed); FileError otherwise. A missing file raises
    FileNotFoundError, so that callers may treat it as absent."""
    path = Path(path)
    info = os.stat(path)
    allowed = f"a regular file of at most {human(limit)}"
    if not stat.S_ISREG(info.st_mode):
        kind = _kind(info.st_mode)
        what = kind if kind.startswith("not ") else f"{kind}, not a regular file"
        raise FileError(f"{path}: {what} (allowed: {allowed})")
    if info.st_size > limit:
        raise FileError(f"{path}: {info.st_size} bytes, larger than the bound (allowed: {allowed})")
    return info.st_size


def read_bytes(path: str | Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of ``path`` (:func:`check`), read up to the bound."""
    check(path, limit)
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise FileError(
            f"{path}: grew past the bound while read (allowed: a regular file of at most "
            f"{human(limit)})"
        )
    return data


def read_text(path: str | Path, limit: int = MAX_TEXT_BYTES, what: str = "text") -> str:
    """The text of ``path`` (:func:`check`), in UTF-8."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileError(
            f"{path}: not UTF-8 text (byte {e.start} is not) (allowed: {what})"
        ) from None


def _type_name(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def read_json(
    path: str | Path, kind: type = dict, what: str = "", limit: int = MAX_TEXT_BYTES
) -> Any:
    """The JSON value in ``path``, which must be a ``kind`` (an object by
    default); ``what`` says what the file is for the message
    (e.g. "a run's summary, written by xltcp run")."""
    allowed = what or f"JSON {_type_name(kind())}"
    text = read_text(path, limit, f"{allowed}, UTF-8 JSON")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise FileError(
            f"{path}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno} "
            f"(allowed: {allowed})"
        ) from None
    except RecursionError:
        raise FileError(f"{path}: JSON nested too deeply (allowed: {allowed})") from None
    if not isinstance(value, kind):
        raise FileError(
            f"{path}: JSON {_type_name(value)}, expected {_type_name(kind())} (allowed: {allowed})"
        )
    return value


def read_toml(path: str | Path, limit: int = MAX_TEXT_BYTES) -> dict:
    """The TOML document in ``path``."""
    import tomllib

    text = read_text(path, limit, "a TOML file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FileError(f"{path}: TOML syntax: {e}") from None
    except RecursionError:
        raise FileError(
            f"{path}: TOML nested too deeply (allowed: tables and arrays a few levels deep)"
        ) from None


def read_csv(path: str | Path, limit: int = MAX_TABLE_BYTES) -> list[dict[str, str]]:
    """The rows of a CSV file with a header line, as dicts."""
    text = read_text(path, limit, "a CSV table")
    try:
        return list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as e:
        raise FileError(f"{path}: not a CSV table ({e})") from None
