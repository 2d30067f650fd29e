"""The corpus of hostile input (``tests/hostile/``, see its README): each
case's command line, run on its files, exits as the case says, with the
messages it says, and never with a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from conftest import REPO, needs_core

HOSTILE = REPO / "tests" / "hostile"
CASES = sorted(HOSTILE.glob("*.toml"))

#: Keys a case may have, and those of its [expect] table.
CASE_KEYS = {"about", "args", "isolate", "timeout", "files", "expect"}
EXPECT_KEYS = {"exit", "stderr", "stdout", "absent", "kept", "max_bytes"}


def _junk(n: int) -> bytes:
    """``n`` bytes that are not UTF-8 text, with NULs (the same every time)."""
    head = b"\xff\xfe\x00\x81"
    return (head + bytes((i * 167 + 13) % 256 for i in range(n)))[:n]


def _text(value: str) -> str:
    return value.replace("{repo}", str(REPO))


def _make(path: Path, spec: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(spec, str):
        path.write_text(_text(spec))
    elif not isinstance(spec, dict):
        raise AssertionError(f"{path.name}: a file is a string or a table, got {spec!r}")
    elif spec.get("fifo"):
        os.mkfifo(path)
    elif spec.get("folder"):
        path.mkdir()
    elif "binary" in spec:
        path.write_bytes(_junk(int(spec["binary"])))
    elif "size" in spec:
        with open(path, "wb") as f:
            f.truncate(int(spec["size"]))
    elif "copy" in spec:
        path.write_text((REPO / spec["copy"]).read_text() + _text(spec.get("append", "")))
    else:
        raise AssertionError(f"{path.name}: unknown file table {spec!r}")


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _in_process(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    from xltcp import cli

    monkeypatch.setattr(sys, "argv", ["xltcp", *args])
    code: int = 0
    try:
        cli.main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def _isolated(args: list[str], cwd: Path, timeout: float) -> tuple[int, str, str]:
    env = {**os.environ, "COLUMNS": "300", "TERM": "dumb"}
    env.pop("XLTCP_TRACEBACK", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "xltcp", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"xltcp {' '.join(args)}: still running after {timeout} s (a hang)")
    return done.returncode, done.stdout, done.stderr


def test_the_corpus_is_there_and_documented():
    assert (HOSTILE / "README.md").is_file()
    assert len(CASES) >= 40, [c.name for c in CASES]
    for path in CASES:
        case = tomllib.loads(path.read_text())
        assert set(case) <= CASE_KEYS, (path.name, set(case) - CASE_KEYS)
        assert set(case["expect"]) <= EXPECT_KEYS, (path.name, case["expect"])
        assert isinstance(case["args"], list) and case["args"], path.name
        assert isinstance(case["expect"]["exit"], int), path.name
        assert case.get("about"), f"{path.name}: say what the case is about"


@needs_core
@pytest.mark.parametrize("path", CASES, ids=[c.stem for c in CASES])
def test_hostile_case(path: Path, tmp_path: Path, monkeypatch, capsys):
    case = tomllib.loads(path.read_text())
    for name, spec in case.get("files", {}).items():
        _make(tmp_path / name, spec)
    args = [_text(a) for a in case["args"]]
    expect = case["expect"]
    before = {name: (tmp_path / name).read_bytes() for name in expect.get("kept", [])}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.delenv("XLTCP_TRACEBACK", raising=False)
    if case.get("isolate", False):
        code, out, err = _isolated(args, tmp_path, float(case.get("timeout", 30)))
    else:
        code, out, err = _in_process(args, monkeypatch, capsys)
    said = f"xltcp {' '.join(args)}\nexit {code}\n--- stdout\n{out}\n--- stderr\n{err}"
    assert "Traceback" not in out + err, said
    assert "internal error" not in err or expect["exit"] == 1, said
    assert code == expect["exit"], said
    for text in expect.get("stderr", []):
        assert _text(text) in err, f"{text!r} not in stderr\n{said}"
    for text in expect.get("stdout", []):
        assert _text(text) in out, f"{text!r} not in stdout\n{said}"
    for name in expect.get("absent", []):
        assert not (tmp_path / name).exists(), f"{name} exists\n{said}"
    for name, content in before.items():
        path = tmp_path / name
        assert path.is_file() and path.read_bytes() == content, f"{name} was lost\n{said}"
    if "max_bytes" in expect:
        folder, most = tmp_path / expect["max_bytes"]["path"], expect["max_bytes"]["bytes"]
        assert folder.is_dir(), said
        assert _folder_bytes(folder) <= most, f"{_folder_bytes(folder)} bytes in {folder}"
