"""The ``--sweeps`` row of every reproduction: each paper's scheme against its
baseline under other congestion controls (xltcp.reproduce.cc_table)."""

from __future__ import annotations

import csv

import pytest

from xltcp.reproduce import PAPERS, cc_table


def test_every_paper_compares_its_scheme_under_other_congestion_controls():
    for name, module in PAPERS.items():
        comps = module.CC_COMPARISONS
        assert comps, name
        for comp in comps:
            for _, path in (comp.baseline, *comp.schemes):
                assert path.exists(), (name, path)
        # The runs are counted in the progress bar's total with --sweeps only.
        extra = cc_table.total_runs(comps, 3)
        assert module.total_runs(3, True) - module.total_runs(3, False) >= extra > 0


def test_the_simulated_controls_are_those_the_core_accepts():
    ccs = cc_table.simulated()
    assert "newreno" in ccs and "cubic" in ccs
    assert cc_table.simulated(("newreno", "no-such-cc")) == ["newreno"]


def test_rows_table_and_csv(tmp_path):
    from xltcp.reproduce import l2clamp

    (tmp_path / "table.md").write_text("# L2-CLAMP\n")
    rows = cc_table.append(l2clamp.CC_COMPARISONS, [1, 2], tmp_path, ["sim.duration=20s"], jobs=2)
    ccs = cc_table.simulated()
    assert [(r["scheme"], r["cc"]) for r in rows] == [
        (s, cc) for s in ("CLAMP", "L2-CLAMP") for cc in ccs
    ]
    for r in rows:
        assert r["seeds"] == 2
        assert r["baseline_goodput_bps"] > 0 and r["scheme_goodput_bps"] > 0
        gain = r["scheme_goodput_bps"] / r["baseline_goodput_bps"] - 1
        assert r["gain"] == pytest.approx(gain)
    # The control takes effect: NewReno's baseline differs from CUBIC's.
    by = {(r["scheme"], r["cc"]): r for r in rows}
    assert by[("CLAMP", "newreno")]["baseline_goodput_bps"] != pytest.approx(
        by[("CLAMP", "cubic")]["baseline_goodput_bps"], rel=1e-9
    )
    with (tmp_path / "cc.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == len(rows)
    table = (tmp_path / "table.md").read_text()
    assert table.startswith("# L2-CLAMP\n")
    assert "## Under other congestion controls" in table
    assert table.count("| L2-CLAMP | NewReno |") == len(ccs)
