"""What a report page says and how: numbers per quantity, headers people
read, Markdown rendered, every figure embedded, contents, overrides in
the title."""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from xltcp import report  # noqa: E402
from xltcp.cli import app  # noqa: E402

from conftest import REPO, needs_core  # noqa: E402

LOSSY = str(REPO / "scenarios" / "lossy-last-hop.toml")


def test_headers_and_cells_read_as_people_write_them():
    assert report.pretty_header("goodput_mbps") == "goodput Mbit/s"
    assert report.pretty_header("retx_bps") == "retx bit/s"
    assert report.pretty_header("no_pu_efficiency") == "no pu efficiency"
    assert report.pretty_header("ci95") == "95 % CI"
    assert report.pretty_cell("1499.48") == "1,499"
    assert report.pretty_cell("21.1431") == "21.14"
    assert report.pretty_cell("0.126") == "0.126"
    assert report.pretty_cell("232") == "232"
    assert report.pretty_cell("12345") == "12,345"
    assert report.pretty_cell("CR-aware") == "CR-aware"


def test_mean_and_ci_columns_merge_into_one():
    header, rows = report._merged_columns(
        ["config", "goodput_mean", "goodput_ci95", "gain", "ci95"],
        [["a", "1.23456", "0.0123", "12.5", ""]],
    )
    assert header == ["config", "goodput", "gain"]
    assert rows == [["a", "1.235 ± 0.012", "12.50"]]


def _png(path: Path) -> None:
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    fig.savefig(path)
    plt.close(fig)


def test_a_reproduction_page_renders_markdown_and_embeds_every_figure(tmp_path):
    (tmp_path / "reproduce.json").write_text(
        json.dumps(
            {"paper": "demo paper", "checks": [{"met": True, "target": "t", "measured": "m"}]}
        )
    )
    (tmp_path / "table.csv").write_text("config,goodput_mean,goodput_ci95\nx,1.5,0.25\n")
    (tmp_path / "table.md").write_text("# Table\n\n| a | b |\n|---|---|\n| 1 | <b>2</b> |\n")
    for name in ("zoom_pu.png", "fig7.png", "sweep_rate.png", "other.png"):
        _png(tmp_path / name)
    page = report.build(tmp_path).read_text()
    assert "<pre>" not in page and "| a | b |" not in page
    assert "<td>1</td>" in page and "&lt;b&gt;2&lt;/b&gt;" in page  # raw HTML escaped
    assert page.count("<img") == 4
    order = [page.index(name) for name in ("fig7.png", "sweep_rate.png", "zoom_pu.png")]
    assert order == sorted(order)
    assert '<nav class="toc">' in page and 'href="#s1"' in page
    assert "<th>goodput</th>" in page and "1.500 ± 0.250" in page


@needs_core
def test_a_run_page_names_its_overrides_and_formats_each_quantity(tmp_path):
    out = tmp_path / "run"
    args = ["run", LOSSY, "--set", "sim.duration=60s", "--set", "wireless.loss.down.p=0.05"]
    result = CliRunner().invoke(app, [*args, "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    page = report.build(out).read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["duration_s"] == 60.0
    assert "--set sim.duration=60s wireless.loss.down.p=0.05" in page.split("</h1>")[0]
    assert "60 s simulated" in page
    flow = summary["flows"][0]
    cells = page.split("<tbody>")[1].split("</tbody>")[0]
    assert f"<td>{flow['rto_count']:,}</td>" in cells  # a count, not 7.0
    assert f"{flow['efficiency'] * 100:.1f}" in cells  # a percentage, as the CLI prints
    assert "<th>efficiency %</th>" in page
    assert re.search(r"<th>goodput [kMG]?bit/s</th>", page)


@needs_core
def test_a_seeds_page_shows_the_mean_and_ci_figures(tmp_path):
    out = tmp_path / "seeds"
    args = ["run", LOSSY, "--set", "sim.duration=5s", "--seeds", "1..3", "--out", str(out), "-q"]
    assert CliRunner().invoke(app, args).exit_code == 0
    page = report.build(out).read_text()
    assert "mean ± 95 % CI over 3 seeds" in page
    assert "Time series, seed 1" not in page
    assert page.count("<img") == 1  # one flow, one figure
