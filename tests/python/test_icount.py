"""The instruction-count guard (bench/icount.py): its comparison, and the counts themselves."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

SCRIPT = REPO / "bench" / "icount.py"


def _load_icount():
    spec = importlib.util.spec_from_file_location("icount", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["icount"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


icount = _load_icount()
COUNT = 1_000_000_000


def _baseline(share_below: float) -> dict:
    """A baseline whose every case is `share_below` under COUNT."""
    base = round(COUNT * (1 - share_below))
    return {
        "cases": {
            c.name: {"instructions": base, "commit": "abc1234", "reason": "test"}
            for c in icount.CASES
        }
    }


def _fake_measure(runner, case):
    return COUNT, {"packets": 1000, "events": 2000}


def test_a_count_5_percent_over_its_baseline_fails():
    counts = {"many-flows-100x2s": COUNT}
    assert icount.compare(counts, _baseline(0.05)) == ["many-flows-100x2s"]


def test_a_count_1_percent_over_its_baseline_passes():
    counts = {"many-flows-100x2s": COUNT}
    assert icount.compare(counts, _baseline(0.01)) == []


def test_a_case_without_a_baseline_fails():
    assert icount.compare({"many-flows-100x2s": COUNT}, {"cases": {}}) == ["many-flows-100x2s"]


def test_check_exits_1_and_names_the_cases_that_grew(tmp_path, capsys):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(_baseline(0.05)))
    assert icount.main(["--check", "--baseline", str(path)], measure=_fake_measure) == 1
    out = capsys.readouterr().out
    assert all(f"FAIL {c.name}:" in out for c in icount.CASES)

    path.write_text(json.dumps(_baseline(0.01)))
    assert icount.main(["--check", "--baseline", str(path)], measure=_fake_measure) == 0
    assert "FAIL" not in capsys.readouterr().out


def test_record_needs_a_reason_and_keeps_it(tmp_path):
    path = tmp_path / "baseline.json"
    with pytest.raises(SystemExit):
        icount.main(["--record", "--baseline", str(path)], measure=_fake_measure)
    assert not path.exists()
    argv = ["--record", "--reason", "faster heap", "--baseline", str(path)]
    assert icount.main(argv, measure=_fake_measure) == 0
    recorded = json.loads(path.read_text())["cases"]
    assert {c.name for c in icount.CASES} == set(recorded)
    assert all(
        r["instructions"] == COUNT and r["reason"] == "faster heap" for r in recorded.values()
    )
    assert all(r["commit"] for r in recorded.values())


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind (cachegrind)")
@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to build the release runner")
def test_instruction_counts_within_3_percent_of_the_baseline():
    """Fails when a case grew > 3 % and bench/icount-baseline.json was not re-recorded."""
    recorded = json.loads((REPO / "bench" / "icount-baseline.json").read_text()).get("toolchain")
    here = icount.toolchain()
    if recorded and recorded != here:
        # Counts are comparable only under the compiler and valgrind they
        # were recorded with; another toolchain needs its own baseline.
        pytest.skip(
            f"baseline recorded with {recorded}, this is {here}: "
            'bench/icount.py --record --reason "toolchain" records one'
        )
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
