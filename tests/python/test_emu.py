"""The ``xltcp emu`` command: errors without the machine, one short run with it."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from xltcp.cli import app


def _core_has_emu() -> bool:
    try:
        from xltcp import _core
    except ImportError:
        return False
    return all(hasattr(_core, n) for n in ("emu", "EmuUnavailable", "ScenarioError"))


needs_emu_core = pytest.mark.skipif(
    not _core_has_emu(), reason="needs a built xltcp._core with emu (maturin develop)"
)


def _machine_reason() -> str | None:
    if os.geteuid() != 0:
        return "the emulator needs root"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    if shutil.which("ip") is None or shutil.which("iperf3") is None:
        return "needs iproute2 (ip netns) and iperf3"
    return None


needs_machine = pytest.mark.skipif(
    _machine_reason() is not None, reason=f"emulator unavailable: {_machine_reason()}"
)

SCENARIO = """
name = "emu-short"
[sim]
duration = "2s"
[wired]
rate = "100Mbps"
delay = "5ms"
[wireless]
rate = "10Mbps"
delay = "5ms"
[[flow]]
"""


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@needs_emu_core
def test_bad_scenario_exit_2_with_message(write_toml, tmp_path):
    scenario = write_toml('bogus_key = 1\n[[flow]]\nname = "a"\n')
    result = invoke("emu", scenario, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "bogus_key" in result.stderr
    assert "Traceback" not in result.output


@needs_emu_core
def test_bad_override_exit_2(write_toml, tmp_path):
    scenario = write_toml(SCENARIO)
    result = invoke("emu", scenario, "--set", "wireless.rate=fast", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "wireless.rate" in result.stderr


@needs_emu_core
@pytest.mark.parametrize("arg", ["foo=1", "net.ipv4.tcp_recovery", "kernel.pid_max=9"])
def test_a_sysctl_outside_the_namespace_or_without_value_exit_2(write_toml, tmp_path, arg):
    result = invoke("emu", write_toml(SCENARIO), "--sysctl", arg, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "--sysctl" in result.stderr and "net." in result.stderr
    assert "Traceback" not in result.output


@needs_emu_core
@needs_machine
def test_a_sysctl_the_kernel_refuses_exit_2_and_leaves_nothing(write_toml, tmp_path):
    arg = "net.ipv4.tcp_no_such_setting=1"
    result = invoke("emu", write_toml(SCENARIO), "--sysctl", arg, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "tcp_no_such_setting" in result.stderr and "refused" in result.stderr
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"xltcp-{os.getpid()}-" not in listing


@needs_emu_core
@pytest.mark.skipif(os.geteuid() == 0, reason="checks the refusal of a non-root user")
def test_not_root_exit_2(write_toml, tmp_path):
    result = invoke("emu", write_toml(SCENARIO), "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "root" in result.stderr


@needs_emu_core
@needs_machine
def test_short_run_writes_the_run_summary_shape(write_toml, tmp_path):
    out = tmp_path / "out"
    sysctl = "net.ipv4.tcp_dsack=0"
    result = invoke(
        "emu", write_toml(SCENARIO), "--out", out, "--quiet", "--pcap", "--sysctl", sysctl
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["emu"]["sysctls"] == [sysctl]
    assert summary["engine"] == "emu"
    for key in ("flows", "directions", "links", "accounting", "hop", "emu"):
        assert key in summary
    flow = summary["flows"][0]
    assert flow["bytes_delivered"] > 500_000
    assert 0 < flow["efficiency"] <= 1.05
    acc = summary["accounting"]
    assert acc["injected"] == acc["delivered"] + acc["dropped"] + acc["in_flight"]
    late = summary["emu"]["lateness"]
    assert late["count"] > 0 and late["median_us"] <= late["p99_us"]
    assert (out / "pcap" / "wireless.pcapng").read_bytes()[:4] == b"\x0a\x0d\x0d\x0a"
    # Nothing of the run is left behind.
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"xltcp-{os.getpid()}-" not in listing


@needs_emu_core
@needs_machine
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_run_and_tears_down(write_toml, tmp_path, signame):
    import signal
    import sys
    import time

    scenario = write_toml(SCENARIO.replace('"2s"', '"30s"'))
    cmd = [sys.executable, "-m", "xltcp", "emu", str(scenario), "--out", str(tmp_path), "-q"]
    proc = subprocess.Popen(
        cmd,
        stderr=subprocess.PIPE,
        text=True,
        # A shell may start children with SIGINT ignored; restore Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    mine = f"xltcp-{proc.pid}-"
    for _ in range(100):
        listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        if listing.count(mine) == 2:
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the run did not set up its namespaces")
    time.sleep(0.5)
    proc.send_signal(getattr(signal, signame))
    assert proc.wait(timeout=20) == 130
    assert "interrupted" in proc.stderr.read()
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert mine not in listing


@needs_emu_core
def test_reproduce_engine_emu_is_for_byun2016_only(tmp_path):
    result = invoke("reproduce", "dsasync", "--engine", "emu", "--out", tmp_path / "o")
    assert result.exit_code == 2
    assert "byun2016 only" in result.output
    result = invoke("reproduce", "byun2016", "--engine", "ns3", "--out", tmp_path / "o")
    assert result.exit_code == 2
    assert "sim or emu" in result.output
    result = invoke("reproduce", "byun2016", "--engine", "emu", "--sweeps", "-o", tmp_path / "o")
    assert result.exit_code == 2
    result = invoke("reproduce", "byun2016", "--repeat", "2", "-o", tmp_path / "o")
    assert result.exit_code == 2
    assert "--engine emu only" in result.output
    result = invoke("reproduce", "byun2016", "--engine", "emu", "--repeat", "0")
    assert result.exit_code == 2


@needs_emu_core
def test_reproduce_emu_plans_every_configuration_with_the_emulators_refusals():
    from xltcp.reproduce import byun2016, byun2016_emu

    configs = byun2016_emu.plan(byun2016_emu.with_duration([]))
    assert len(configs) == len(byun2016.CONFIGS) * len(byun2016.FAMILIES)
    runs = {(c.family, c.name) for c in configs if c.refusal is None}
    # The BS-side and CR-aware configurations run on Linux TCP.
    assert {("paper", "newreno"), ("standard", "newreno-cr")} <= runs
    for c in configs:
        if c.refusal is not None:
            assert c.refusal.strip(), c
    assert byun2016_emu.with_duration(['sim.duration="5s"']) == ['sim.duration="5s"']
    # TCP-LR, which the emulator refuses, runs as its stated substitute
    # (the BS's reports as SACK ACKs), keeping the emulator's reason.
    for c in configs:
        if c.name in ("tcp-lr", "tcp-lr-cr"):
            assert c.refusal is None, c
            assert c.substitute == byun2016_emu.TCP_LR_SUBSTITUTE, c
            assert 'local_recovery = "tcp"' in (c.shipped_refusal or ""), c
            assert c.title.endswith(byun2016_emu.SUBSTITUTE_MARK), c
        else:
            assert c.substitute == () and c.shipped_refusal is None, c


def _fake_metrics(packets: float) -> dict:
    return {
        "packets": packets,
        "rto_count": 2.0,
        "tcp_rtx": 10.0,
        "efficiency": 0.5,
        "lr_rtx": 0.0,
        "mac_rtx": 3.0,
        "lr_reports": 4.0,
        "p99_us": 120.0,
    }


def _fake_row(seed: int, **engines: dict) -> dict:
    """A row of paper-family NewReno with the given engines' metrics."""
    row = {"family": "paper", "config": "newreno", "label": "NewReno", "seed": seed}
    return {**row, "substitute": [], **engines}


def test_reproduce_emu_marks_the_substituted_rows_and_keeps_the_simulators_tcp_lr(tmp_path):
    from xltcp.reproduce import byun2016_emu

    rows = []
    for seed in (1, 2):
        rows.append(_fake_row(seed, **{e: _fake_metrics(100.0) for e, _ in byun2016_emu.ENGINES}))
        rows.append(
            {
                "family": "paper",
                "config": "tcp-lr",
                "label": "TCP-LR",
                "seed": seed,
                "substitute": list(byun2016_emu.TCP_LR_SUBSTITUTE),
                **{e: _fake_metrics(200.0) for e, _ in byun2016_emu.ENGINES},
                "sim_tcp_lr": _fake_metrics(300.0 + seed),
            }
        )
    byun2016_emu.write(rows, [], tmp_path, (1, 2))
    md = (tmp_path / "emu.md").read_text()
    mark = byun2016_emu.SUBSTITUTE_MARK
    assert f"| TCP-LR (paper): {mark} |" in md
    assert "| NewReno (paper) |" in md
    assert f"NewReno (paper): {mark}" not in md
    # The simulator's real TCP-LR, for reference: mean of 301 and 302.
    assert "| TCP-LR (paper) | 302 ± " in md
    assert "| 4.0 ± 0.0 / 4.0 ± 0.0 |" in md
    lines = (tmp_path / "emu.csv").read_text().splitlines()
    engines = [line.split(",")[3] for line in lines[1:]]
    assert engines.count("sim_tcp_lr") == 2
    assert len(lines) == 1 + 3 * len(rows) + 2
    assert all(mark in line for line in lines[1:] if line.split(",")[3] == "sim_tcp_lr")


@needs_emu_core
@needs_machine
def test_reproduce_byun2016_on_the_emulator(tmp_path):
    out = tmp_path / "emu"
    result = invoke(
        "reproduce", "byun2016", "--engine", "emu", "--seeds", "1",
        "--set", 'sim.duration="4s"', "--out", out, "--quiet",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((out / "reproduce-emu.json").read_text())
    ran = {(r["family"], r["config"]) for r in report["rows"]}
    assert ("standard", "newreno-cr") in ran
    for r in report["rows"]:
        assert r["sim"]["packets"] > 0, r
        # On the paper family's hop (no MAC retries, 10 % loss each way)
        # iperf3's control exchange can outlast the 4 s, and its data
        # connection then delivers nothing by the end: only the standard
        # family must have delivered data on Linux.
        if r["family"] == "standard":
            assert r["emu"]["packets"] > 0, r
    text = (out / "emu.md").read_text()
    assert "NewReno+CR (standard)" in text
    # TCP-LR's two configurations of each family ran as the substitute,
    # each beside the simulator's real TCP-LR.
    substituted = [r for r in report["rows"] if r["substitute"]]
    assert {(r["family"], r["config"]) for r in substituted} == {
        (f, c) for f in ("paper", "standard") for c in ("tcp-lr", "tcp-lr-cr")
    }
    assert all("sim_tcp_lr" in r for r in substituted)
    assert "TCP-LR (standard): TCP-LR → BS reports + SACK on Linux" in text
    rows = (out / "emu.csv").read_text().splitlines()
    assert len(rows) == 1 + 3 * len(report["rows"]) + len(substituted)
    # A second run finds every run done and changes nothing.
    before = (out / "emu.csv").read_text()
    assert invoke(
        "reproduce", "byun2016", "--engine", "emu", "--seeds", "1",
        "--set", 'sim.duration="4s"', "--out", out, "--quiet",
    ).exit_code == 0  # fmt: skip
    assert (out / "emu.csv").read_text() == before


def test_reproduce_emu_with_repeated_runs_keeps_each_and_reports_their_spread(tmp_path):
    import math

    from xltcp.reproduce import byun2016_emu

    rows = []
    for seed, packets in ((1, (100.0, 300.0)), (2, (200.0, 200.0))):
        runs = [_fake_metrics(p) for p in packets]
        runs[1]["tcp_rtx"] = math.nan
        rows.append(
            _fake_row(
                seed,
                sim=_fake_metrics(100.0),
                sim_as_linux=_fake_metrics(100.0),
                emu=byun2016_emu.mean_metrics(runs),
                emu_runs=runs,
            )
        )
    # The mean of the known values only.
    assert rows[0]["emu"]["packets"] == 200.0
    assert rows[0]["emu"]["tcp_rtx"] == 10.0
    byun2016_emu.write(rows, [], tmp_path, (1, 2))
    md = (tmp_path / "emu.md").read_text()
    # Seed 1 spreads (300 - 100) / 200 = 100 %, seed 2 not at all: 50 %.
    assert "| NewReno (paper) | 100, 300 | 200, 200 | 50 % |" in md
    lines = (tmp_path / "emu.csv").read_text().splitlines()
    engines = [line.split(",")[3] for line in lines[1:]]
    assert engines.count("emu_run1") == 2 and engines.count("emu_run2") == 2
    assert engines.count("emu") == 2
    assert byun2016_emu.emu_folder(tmp_path, "w", 1) == tmp_path / "emu" / "w"
    assert byun2016_emu.emu_folder(tmp_path, "w", 3) == tmp_path / "emu-run3" / "w"


def test_reproduce_emu_leaves_out_retransmissions_no_one_counted(monkeypatch):
    import math

    from xltcp.reproduce import byun2016, byun2016_emu

    monkeypatch.setattr(
        byun2016, "_flow_metrics", lambda s: {"tcp_rtx": 0.0, "retransmissions": 0.0}
    )
    # The sender's iperf3 was killed before its final report and its socket
    # could not be read: its count is unknown.
    unknown = {"retransmissions_from": ["unknown"], "lateness": {"p99_us": 9}}
    killed = byun2016_emu._metrics({"emu": unknown})
    assert math.isnan(killed["tcp_rtx"]) and math.isnan(killed["retransmissions"])
    for source in ("iperf3", "socket"):
        reported = byun2016_emu._metrics({"emu": {"retransmissions_from": [source]}})
        assert reported["tcp_rtx"] == 0.0
    assert byun2016_emu._metrics({})["tcp_rtx"] == 0.0  # the simulator's
    assert byun2016_emu._text([10.0, math.nan, 20.0], "{:.0f}").endswith("(2 of 3)")
    assert byun2016_emu._text([math.nan], "{:.0f}") == "n/a"
    # The gap compares the seeds both engines know.
    assert byun2016_emu._gap([math.nan, 30.0], [10.0, 20.0]) == "+50%"


def test_reproduce_emu_pairs_the_engines_by_seed(tmp_path):
    from xltcp.reproduce import byun2016_emu

    rows = []
    for seed, emu in ((1, 120.0), (2, 140.0), (3, 130.0)):
        rows.append(
            _fake_row(
                seed,
                sim=_fake_metrics(90.0),
                sim_as_linux=_fake_metrics(100.0),
                emu=_fake_metrics(emu),
            )
        )
    for seed, emu in ((1, 150.0), (2, 50.0)):
        same = _fake_metrics(100.0)
        row = _fake_row(seed, sim=same, sim_as_linux=same, emu=_fake_metrics(emu))
        rows.append({**row, "config": "phy-lr", "label": "PHY-LR"})
    byun2016_emu.write(rows, [], tmp_path, (1, 2, 3))
    md = (tmp_path / "emu.md").read_text()
    # Differences 20, 40, 30: mean 30, s = 10, t(0.975, 2) = 4.303, half
    # width 4.303 * 10 / sqrt(3) = 24.8; Linux more on every seed.
    assert "| NewReno (paper) | 3 | +30 ± 25 | +30 % | 3 of 3 | yes |" in md
    # Differences +50 and -50: the interval holds zero.
    assert "| PHY-LR (paper) | 2 | +0 ± 635 | +0 % | 1 of 2 | no |" in md


def test_reproduce_emu_pairs_nothing_with_one_seed(tmp_path):
    from xltcp.reproduce import byun2016_emu

    rows = [_fake_row(1, **{e: _fake_metrics(100.0) for e, _ in byun2016_emu.ENGINES})]
    byun2016_emu.write(rows, [], tmp_path, (1,))
    assert "Paired by seed" not in (tmp_path / "emu.md").read_text()


def test_reproduce_emu_sets_linux_against_the_simulators_many_seeds(tmp_path):
    from xltcp.reproduce import byun2016_emu

    rows = [
        _fake_row(
            seed,
            sim=_fake_metrics(90.0),
            sim_as_linux=_fake_metrics(95.0 + seed),
            emu=_fake_metrics(emu),
        )
        for seed, emu in ((1, 120.0), (2, 140.0), (3, 130.0))
    ]
    many = {"paper newreno": [80.0, 90.0, 100.0, 110.0, 120.0] * 2}
    byun2016_emu.write(rows, [], tmp_path, (1, 2, 3), many)
    md = (tmp_path / "emu.md").read_text()
    # The simulator's ten runs: mean 100, s = 14.9, t(0.975, 9) = 2.262,
    # half width 10.7. Linux less it: 30; Welch: s² / n = 33.3 and 22.2,
    # 5.06 degrees of freedom, t = 2.563, half width 19.1. Every one of the
    # simulator's runs delivered less than Linux's mean of 130.
    assert (
        "| NewReno (paper) | 100 ± 11 | 97 (3) | 130 (3) | +30 ± 19 (+30 %) | yes | 100 % |" in md
    )
    # One run of the simulator and Linux's runs unknown in the other
    # engine's column: no interval, no failure.
    lone = [
        _fake_row(
            1, sim=_fake_metrics(1.0), sim_as_linux=_fake_metrics(math.nan), emu=_fake_metrics(5.0)
        )
    ]
    byun2016_emu.write(lone, [], tmp_path, (1,), {"paper newreno": [4.0]})
    assert (
        "| NewReno (paper) | 4 | n/a | 5 (1) | +1 (+25 %) |  | 100 % |"
        in (tmp_path / "emu.md").read_text()
    )
    # Without the many seeds, no such table.
    byun2016_emu.write(rows, [], tmp_path, (1, 2, 3))
    assert "over seeds 1-" not in (tmp_path / "emu.md").read_text()


def test_welch_interval_matches_the_textbook():
    from xltcp.stats import welch_ci

    diff, half = welch_ci([120.0, 140.0, 130.0], [80.0, 90.0, 100.0, 110.0, 120.0] * 2)
    assert diff == 30.0 and abs(half - 19.096) < 1e-3
    assert math.isnan(welch_ci([1.0], [1.0, 2.0])[1])
    assert math.isnan(welch_ci([1.0, 1.0], [2.0, 2.0])[1])


def test_the_simulator_as_linux_takes_the_emulated_hosts_and_reruns_runs_without(tmp_path):
    from xltcp.reproduce import byun2016_emu

    assert set(byun2016_emu.EMULATED_HOSTS) <= set(byun2016_emu.SIM_AS_LINUX)
    assert set(byun2016_emu.AS_LINUX) <= set(byun2016_emu.SIM_AS_LINUX)
    assert any(s.startswith("hosts.stack_delay=") for s in byun2016_emu.EMULATED_HOSTS)
    old = {"scenario": {"name": "x"}, "flows": []}
    new = {"scenario": {"name": "x", "hosts": {"stack_delay": "20us"}}, "flows": []}
    for name, summary in (("old", old), ("new", new)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(json.dumps(summary))
    # A run of the simulator as Linux from before it had the hosts' latency
    # is run again; one with it is reused; the other engines' runs have none.
    assert byun2016_emu._done(tmp_path / "old", hosts=True) is None
    assert byun2016_emu._done(tmp_path / "new", hosts=True) == new
    assert byun2016_emu._done(tmp_path / "old") == old
    assert byun2016_emu._done(tmp_path / "missing") is None
