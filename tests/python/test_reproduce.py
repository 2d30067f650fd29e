"""``xltcp reproduce byun2016``: the six presets, the table, the figures and
the sweeps, on short runs."""

import csv
import json

from typer.testing import CliRunner

from xltcp.cli import app
from xltcp.reproduce import byun2016

from conftest import needs_core

pytestmark = needs_core

SHORT = ["sim.duration=20s"]


def test_presets_are_shipped():
    for family, _ in byun2016.FAMILIES:
        for name, _ in byun2016.CONFIGS:
            assert byun2016.preset(name, family).is_file(), (family, name)


def test_reproduce_writes_table_figures_and_checks(tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(
        app,
        ["reproduce", "byun2016", "--seeds", "1..3", "--out", str(out), "--set", SHORT[0]]
        + ["--no-check"],
    )
    assert result.exit_code == 0, result.output
    for family in ("paper", "standard"):
        for name in ("fig3_goodput", "fig4_sequence", "zoom"):
            assert (out / f"{name}_{family}.png").stat().st_size > 0, name
    for name in ("table.csv", "table.md"):
        assert (out / name).stat().st_size > 0, name
    with open(out / "table.csv") as f:
        rows = list(csv.DictReader(f))
    labels = [label for _, label in byun2016.CONFIGS]
    assert [r["config"] for r in rows] == labels * 2
    assert [r["family"] for r in rows] == ["paper"] * 6 + ["standard"] * 6
    assert all(r["seeds"] == "3" for r in rows)
    # Only the CR-aware rows have a twin ratio.
    assert [bool(r["ratio_to_twin_mean"]) for r in rows] == ([False] * 3 + [True] * 3) * 2
    for r in rows:
        # Total retransmissions are TCP's, local recovery's and the MAC's.
        parts = sum(float(r[f"{k}_mean"]) for k in ("tcp_rtx", "lr_rtx", "mac_rtx"))
        assert abs(parts - float(r["total_rtx_mean"])) < 1e-4 * max(1.0, parts)
        assert float(r["normalised_mean"]) > 0
        # The RTO causes add up to the RTO count (means over the same seeds).
        causes = sum(float(r[f"rto_{k}_mean"]) for k, _ in byun2016.RTO_CAUSES)
        assert abs(causes - float(r["rto_count_mean"])) < 1e-4 * max(1.0, causes)
    paper = [r for r in rows if r["family"] == "paper"]
    assert all(float(r["mac_rtx_mean"]) == 0 for r in paper), "no MAC retries in the paper family"
    assert "RTOs by cause (paper)" in (out / "table.md").read_text()
    report = json.loads((out / "reproduce.json").read_text())
    targets = [c["target"] for c in report["checks"]]
    assert targets[0].startswith("paper: ordering")
    assert sum(t.startswith("standard: ") for t in targets) == 8
    text = (out / "table.md").read_text()
    # The paper's own figures beside ours, in both families.
    assert text.count("| NewReno, packets in 600 s | 26 |") == 2
    assert text.count("| PHY-LR, packets in 600 s | 163 |") == 2
    # Three seeds are too few to run more: no step is taken further.
    assert all(not r["more_seeds"] for r in report["families"]["paper"]["ordering"])
    for family, _ in byun2016.FAMILIES:
        for name, _ in byun2016.CONFIGS:
            key = report["families"][family]["runs"][name]["2"]
            summary = json.loads((out / "runs" / key / "summary.json").read_text())
            assert summary["seed"] == 2
            assert summary["scenario"]["name"] == name
            schemes = summary["scenario"].get("schemes", {})
            # Only the CR variants of the paper family hold the MAC: the paper's
            # non-CR TCPs "continue to transmit ... even though the physical
            # channel is blocked".
            held = family == "paper" and name.endswith("-cr")
            assert schemes.get("mac_hold", False) == held, (family, name)
    assert "NewReno+CR (paper)" in result.output
    # Run again: every run is in the store, nothing runs, the same table.
    table = (out / "table.csv").read_text()
    stamps = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    again = CliRunner().invoke(
        app,
        ["reproduce", "byun2016", "--seeds", "1..3", "--out", str(out), "--set", SHORT[0]]
        + ["--no-check"],
    )
    assert again.exit_code == 0, again.output
    assert (out / "table.csv").read_text() == table
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == stamps


def test_ratios_are_paired_per_seed():
    results = {name: [] for name, _ in byun2016.CONFIGS}
    for seed, (plain, cr) in enumerate([(100.0, 300.0), (200.0, 400.0)]):
        for name, _ in byun2016.CONFIGS:
            value = cr if name.endswith("-cr") else plain
            results[name].append({"seed": seed, "packets": value})
    cell = byun2016.ratios(results)["tcp-lr-cr"]
    assert cell.mean == 2.5  # mean of 3.0 and 2.0, not 700 / 300


def test_sweeps_write_one_row_per_value_and_config(tmp_path):
    rows = byun2016.run_sweeps([1], tmp_path, ["sim.duration=10s"])
    values = sum(len(v) for _, _, v, _ in byun2016.SWEEPS)
    assert len(rows) == values * len(byun2016.SWEEP_CONFIGS)
    for sweep, _, _, _ in byun2016.SWEEPS:
        assert (tmp_path / f"sweep_{sweep}.png").stat().st_size > 0
    assert all(0.0 <= r["efficiency_mean"] <= 1.0 for r in rows)


def test_sensitivity_runs_the_six_configurations_per_value_and_family(tmp_path):
    rows = byun2016.run_sensitivity([1], tmp_path, ["sim.duration=10s"])
    values = sum(len(v) for _, _, v, _ in byun2016.SENSITIVITY)
    assert len(rows) == values * len(byun2016.CONFIGS) * 2
    assert {r["family"] for r in rows} == {"paper", "standard"}
    text = (tmp_path / "sensitivity.md").read_text()
    for sweep, _, _, _ in byun2016.SENSITIVITY:
        for family in ("paper", "standard"):
            assert (tmp_path / f"sensitivity_{family}_{sweep}.png").stat().st_size > 0
            assert f"## {family}: {sweep} (" in text
    assert all(0.0 <= r["efficiency_mean"] <= 1.0 for r in rows)
    # Each CR variant's row has its ratio to its twin, paired by seed.
    cr = [r for r in rows if r["config"].endswith("-cr")]
    assert all(r["ratio_to_twin_mean"] is not None for r in cr)


def test_sensitivity_is_for_byun2016_dsasync_and_l2clamp_only(tmp_path):
    args = ["reproduce", "kim-chung", "--sensitivity", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "byun2016, dsasync and l2clamp only" in result.output


def test_unknown_paper_is_a_user_error(tmp_path):
    result = CliRunner().invoke(app, ["reproduce", "nosuch", "--out", str(tmp_path)])
    assert result.exit_code == 2


def _synthetic(packets: dict) -> dict:
    return {
        name: [{"seed": s, "packets": packets[name] + s, "efficiency": 0.5} for s in range(3)]
        for name, _ in byun2016.CONFIGS
    }


def test_checks_read_the_ordering_and_the_short_t_idle_sweep():
    packets = {
        "newreno": 10.0,
        "phy-lr": 11.0,
        "tcp-lr": 20.0,
        "newreno-cr": 40.0,
        "phy-lr-cr": 50.0,
        "tcp-lr-cr": 60.0,
    }
    found = byun2016.checks(_synthetic(packets))
    # ordering, its significance, three ratios, CR above its twin (paired),
    # 70 % of the bound (missed).
    assert [met for _, met, _ in found] == [True, True, True, True, True, True, False]
    packets["phy-lr-cr"] = 70.0  # PHY-LR+CR above TCP-LR+CR breaks the order
    sweep = [
        {
            "sweep": "t_idle",
            "value": 0.1,
            "config": "tcp-lr-cr",
            "efficiency_mean": 0.93,
            "efficiency_ci95": 0.01,
        }
    ]
    found = byun2016.checks(_synthetic(packets), sweep)
    assert found[0][1] is False
    assert found[-1] == (
        "standard: TCP-LR+CR >= 90 % of the bound with t_idle 0.1 s, perfect detection",
        True,
        "0.930 ± 0.010",
    )


class _FakePaper:
    """A paper whose reproduction meets the targets it is told to."""

    def __init__(self, met):
        self.met = met

    def total_runs(self, seeds, sweeps):
        return 0

    def reproduce(self, seeds, out, sweeps, overrides, step, jobs):
        out.mkdir(parents=True, exist_ok=True)
        (out / "table.md").write_text("| config |\n")
        checks = [{"target": f"t{i}", "met": m} for i, m in enumerate(self.met)]
        (out / "reproduce.json").write_text(json.dumps({"checks": checks}))
        return {"checks": checks}


def test_a_missed_target_exits_3_unless_no_check(tmp_path, monkeypatch):
    from xltcp import reproduce

    monkeypatch.setitem(reproduce.PAPERS, "fake", _FakePaper([True, False]))
    args = ["reproduce", "fake", "--seeds", "1", "--out", str(tmp_path / "a"), "-q"]
    missed = CliRunner().invoke(app, args)
    assert missed.exit_code == 3
    assert "1 of 2 targets missed" in missed.stderr
    reported = CliRunner().invoke(app, [*args, "--no-check"])
    assert reported.exit_code == 0
    assert "1 of 2 targets missed" in reported.stderr
    monkeypatch.setitem(reproduce.PAPERS, "fake", _FakePaper([True, True]))
    assert CliRunner().invoke(app, args).exit_code == 0


def test_normalised_target_needs_a_working_no_pu_link():
    packets = {name: 10.0 for name, _ in byun2016.CONFIGS}
    results = _synthetic(packets)
    for row in results["tcp-lr-cr"]:
        row["normalised"] = 0.75
        row["no_pu_efficiency"] = 0.85
    target = [c for c in byun2016.checks(results) if "t_idle allows" in c[0]]
    assert target[0][1] is True  # 0.75 / exp(-1/4) = 0.963
    for row in results["tcp-lr-cr"]:
        row["normalised"] = 1.2
        row["no_pu_efficiency"] = 0.1  # the PU-free run collapsed
    target = [c for c in byun2016.checks(results) if "t_idle allows" in c[0]]
    assert target[0][1] is False


class _Spec:
    def __init__(self, seed):
        self.seed = seed
        self.key = f"k{seed}"


def test_an_undecided_step_runs_again_over_more_seeds(monkeypatch, tmp_path):
    # Ten seeds on which TCP-LR+CR and PHY-LR+CR tie (+5, -5, ...); from
    # seed 11 on TCP-LR+CR is 10 packets ahead. The other steps are clear.
    base = {
        "newreno": 10.0,
        "phy-lr": 11.0,
        "tcp-lr": 20.0,
        "newreno-cr": 40.0,
        "phy-lr-cr": 100.0,
        "tcp-lr-cr": 100.0,
    }

    def packets(name, seed):
        if name == "tcp-lr-cr":
            return 100.0 + (10.0 if seed > 10 else (5.0 if seed % 2 else -5.0))
        return base[name] + seed % 3

    results = {
        name: [{"seed": s, "packets": packets(name, s), "efficiency": 0.5} for s in range(1, 11)]
        for name in base
    }
    names = {label: name for name, label in byun2016.CONFIGS}
    calls = []

    def fake_runs(groups, seeds, out, progress, jobs):
        calls.append((sorted(groups), list(seeds)))
        return {g: [(_Spec(s), {"group": g, "seed": s}) for s in seeds] for g in groups}

    def fake_metrics(summary):
        label = summary["group"].split(" ", 1)[1].rsplit(" (", 1)[0]
        return {"packets": packets(names[label], summary["seed"])}

    monkeypatch.setattr(byun2016, "_runs", fake_runs)
    monkeypatch.setattr(byun2016, "_flow_metrics", fake_metrics)
    rows = byun2016.decide_ordering(results, list(range(1, 11)), tmp_path, family="paper")
    # Only the two configurations of the undecided step ran, over 50 seeds.
    assert calls == [
        (["paper PHY-LR+CR (50 seeds)", "paper TCP-LR+CR (50 seeds)"], list(range(1, 51)))
    ]
    top = rows[0]
    assert (top["better"], top["worse"], top["verdict"]) == ("tcp-lr-cr", "phy-lr-cr", "undecided")
    assert (top["more_seeds"], top["more_verdict"]) == (50, "holds")
    assert all(r["verdict"] == "holds" and r["more_seeds"] is None for r in rows[1:])
    found = byun2016.checks(results, (), "paper", rows)
    assert found[1][1] is True, found[1]
    # Fewer than ten seeds asked for: nothing runs again.
    calls.clear()
    short = {name: rows_[:3] for name, rows_ in results.items()}
    again = byun2016.decide_ordering(short, [1, 2, 3], tmp_path, family="paper")
    assert calls == [] and all(r["more_seeds"] is None for r in again)


def test_a_verdict_reads_the_paired_interval():
    assert byun2016.verdict(byun2016.Cell(5.0, 2.0)) == "holds"
    assert byun2016.verdict(byun2016.Cell(-5.0, 2.0)) == "reversed"
    assert byun2016.verdict(byun2016.Cell(1.0, 2.0)) == "undecided"
    assert byun2016.verdict(byun2016.Cell(1.0, float("nan"))) == "undecided"
