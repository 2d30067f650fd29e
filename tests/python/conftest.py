"""Shared fixtures: the repository layout and whether the core can run."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "scenarios" / "demo.toml"


def _core_runs() -> bool:
    try:
        from xltcp import _core
    except ImportError:
        return False
    return all(hasattr(_core, name) for name in ("run", "validate", "ScenarioError"))


CORE_RUNS = _core_runs()

#: Tests that need the compiled core with run/validate and the demo scenario.
needs_core = pytest.mark.skipif(
    not (CORE_RUNS and DEMO.is_file()),
    reason="needs a built xltcp._core (run, validate, ScenarioError) and scenarios/demo.toml",
)


@pytest.fixture
def demo() -> Path:
    return DEMO


@pytest.fixture
def write_toml(tmp_path: Path):
    """Write a small scenario file and return its path."""

    def write(text: str, name: str = "case.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
