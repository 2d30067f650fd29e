"""Output budgets: estimated before a run starts; refused with exit 2 when too big."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from xltcp import budget
from xltcp.cli import app

from conftest import REPO, needs_core

LOSSY = str(REPO / "scenarios" / "lossy-last-hop.toml")


@pytest.mark.parametrize(
    "text, size", [("1024", 1024), ("4GiB", 4 << 30), ("500MB", 500_000_000), ("1.5KiB", 1536)]
)
def test_sizes(text, size):
    assert budget.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "5 furlongs", "-1GB", "1GBB"])
def test_bad_sizes(text):
    with pytest.raises(ValueError, match="is not a size"):
        budget.parse_size(text)


def _du(path):
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@needs_core
@pytest.mark.parametrize(
    "sets",
    [
        ["sim.duration=20s"],
        ["sim.duration=20s", "sim.sample_interval=10ms"],
        ["sim.duration=20s", "output.pcap=true"],
        ["sim.duration=20s", "output.pcap=true", "wireless.loss.down.p=0"],
        ["sim.duration=20s", "output.pcap=true", "output.pcap_snaplen=40"],
        ["sim.duration=20s", "output.pcap=true", 'output.pcap_point="both"'],
        ["sim.duration=20s", "output.pcap=true", "output.pcap_snaplen=65535"],
    ],
)
def test_estimate_bounds_what_a_run_writes(sets, tmp_path):
    from xltcp import runner

    estimate = budget.estimate_run(runner.validate(LOSSY, sets))
    runner.run_one(LOSSY, 1, tmp_path, sets)
    series = _du(tmp_path / "timeseries")
    pcaps = _du(tmp_path / "pcap") if (tmp_path / "pcap").is_dir() else 0
    # An upper bound, and not a wild one.
    assert series <= estimate.timeseries <= 4 * series
    assert pcaps <= estimate.pcap <= 10 * max(pcaps, 1) or estimate.pcap == pcaps == 0


@needs_core
def test_a_run_that_would_fill_the_disk_is_refused(tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(
        app, ["run", LOSSY, "--set", "sim.duration=1000000000s", "--out", str(out)]
    )
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "a run would write about 1.46 TiB of traces" in text
    assert "over the output limit of 4 GiB" in text and "--max-output" in text
    assert "Traceback" not in result.output
    assert not out.exists()


@needs_core
def test_max_output_changes_the_limit(tmp_path):
    args = ["run", LOSSY, "--set", "sim.duration=60s", "--pcap", "--out", str(tmp_path / "r")]
    refused = CliRunner().invoke(app, [*args, "--max-output", "1MB"])
    assert refused.exit_code == 2
    assert "over the output limit of 977 KiB" in " ".join(refused.output.split())
    allowed = CliRunner().invoke(app, [*args, "--max-output", "1GiB", "--quiet"])
    assert allowed.exit_code == 0, allowed.output
    bad = CliRunner().invoke(app, [*args, "--max-output", "big"])
    assert bad.exit_code == 2 and "'big' is not a size" in bad.output


@needs_core
def test_seeds_add_up(tmp_path):
    # One run fits in 500 kB; ten do not.
    args = ["run", LOSSY, "--set", "sim.duration=60s", "--max-output", "500KB", "--quiet"]
    one = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "one")])
    assert one.exit_code == 0, one.output
    ten = CliRunner().invoke(app, [*args, "--seeds", "1..10", "--out", str(tmp_path / "ten")])
    assert ten.exit_code == 2
    assert "10 runs would write about" in " ".join(ten.output.split())


@needs_core
def test_no_room_on_the_filesystem(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "free_bytes", lambda path: 1000)
    result = CliRunner().invoke(
        app, ["run", LOSSY, "--set", "sim.duration=10s", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert "the filesystem has 1000 B free" in " ".join(result.output.split())
    assert not (tmp_path / "r").exists()


@needs_core
def test_sweep_checks_the_runs_it_will_make(tmp_path):
    out = tmp_path / "c"
    args = ["sweep", LOSSY, "--vary", "wireless.loss.down.p=0,0.01", "--seeds", "1..5",
            "--set", "sim.duration=60s", "--out", str(out), "--max-output", "500KB"]  # fmt: skip
    planned = CliRunner().invoke(app, [*args, "--plan"])
    assert planned.exit_code == 2
    assert "10 runs would write about" in " ".join(planned.output.split())
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "10 runs would write about" in " ".join(result.output.split())
    assert not out.exists()
