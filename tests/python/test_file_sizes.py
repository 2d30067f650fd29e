"""Source files stay small enough to hold in one's head: none over 900
lines, outside tests and generated files. A file that grows past it is
split along its seams (one module per command, per hop kind, per section
of the scenario file, ...), not given an exception here."""

import subprocess

from conftest import REPO

#: Most lines a source file may have.
MOST = 900

#: Source files by their suffix.
SOURCES = (".rs", ".py", ".c", ".cc", ".h", ".sh")


def is_test(path: str) -> bool:
    """Tests: under a tests/ folder, or a test module by its name."""
    parts = path.split("/")
    name = parts[-1]
    return (
        "tests" in parts[:-1]
        or name in ("tests.rs", "conftest.py")
        or name.startswith(("tests_", "test_"))
        or name.endswith(("_tests.rs", "_test.py"))
    )


def test_no_source_file_is_over_900_lines():
    listed = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    long = {}
    for path in listed:
        if not path.endswith(SOURCES) or is_test(path):
            continue
        file = REPO / path
        if file.is_symlink() or not file.is_file():
            continue
        lines = file.read_text(errors="replace").count("\n")
        if lines > MOST:
            long[path] = lines
    assert long == {}, f"over {MOST} lines: {long}"
