"""xltcp report: one self-contained HTML file per results folder."""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from xltcp.cli import app

from conftest import REPO, needs_core

LOSSY = str(REPO / "scenarios" / "lossy-last-hop.toml")
PNG = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.tables = 0
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        if tag == "table":
            self.tables += 1
        for name in ("src", "href"):
            if attrs.get(name, "").startswith(("http:", "https:", "//")) or (
                tag in ("script", "link") and attrs.get(name)
            ):
                self.external.append(attrs[name])


def _check(path: Path, images: int) -> str:
    text = path.read_text()
    page = _Page()
    page.feed(text)
    assert page.external == []
    assert len(page.images) >= images
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG
    assert page.tables >= 1
    return text


def _invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@needs_core
def test_run_report(tmp_path):
    assert _invoke("run", LOSSY, "--set", "sim.duration=5s", "--out", tmp_path, "-q").exit_code == 0
    result = _invoke("report", tmp_path)
    assert result.exit_code == 0, result.output
    text = _check(tmp_path / "report.html", 1)
    assert "lossy-last-hop" in text and "flow bulk" in text


@needs_core
def test_seeds_report(tmp_path):
    args = ["run", LOSSY, "--set", "sim.duration=5s", "--seeds", "1..3", "--out", tmp_path, "-q"]
    assert _invoke(*args).exit_code == 0
    assert _invoke("report", tmp_path, "--out", tmp_path / "r.html").exit_code == 0
    text = _check(tmp_path / "r.html", 1)
    assert "seeds 1..3" in text


def _sweep(out: Path) -> None:
    result = _invoke(
        "sweep", LOSSY, "--set", "sim.duration=5s", "--seeds", "1..3", "--out", out, "-q",
        "--vary", "wireless.loss.down.p=0.001,0.01,0.05", "--vary", "wireless.rate=5Mbps,10Mbps",
    )  # fmt: skip
    assert result.exit_code == 0, result.output


@needs_core
def test_campaign_report(tmp_path):
    _sweep(tmp_path)
    assert _invoke("report", tmp_path).exit_code == 0
    text = _check(tmp_path / "report.html", 2)
    assert "Sweep curves" in text
    assert "6 points x 3 seeds = 18 runs" in text
    # One row per point and flow, with the mean ± CI of the three seeds.
    assert len(re.findall(r"<td>bulk</td><td>3</td>", text)) == 6


@needs_core
def test_reproduction_report(tmp_path):
    args = ["reproduce", "byun2016", "--seeds", "1..2", "--out", tmp_path, "--no-check"]
    result = _invoke(*args, "--set", "sim.duration=20s")
    assert result.exit_code == 0, result.output
    assert _invoke("report", tmp_path).exit_code == 0
    text = _check(tmp_path / "report.html", 2)
    assert re.search(r"Targets: \d+ met, \d+ missed", text)
    assert "TCP-LR+CR" in text


@needs_core
def test_reproduce_all_writes_a_section_per_paper(tmp_path):
    from xltcp.reproduce import PAPERS

    args = ["reproduce", "all", "--seeds", "1..2", "--out", tmp_path, "--no-check"]
    result = _invoke(*args, "--set", "sim.duration=20s")
    assert result.exit_code == 0, result.output
    summary = __import__("json").loads((tmp_path / "reproduce-all.json").read_text())
    assert sorted(summary["papers"]) == sorted(PAPERS)
    checks = [c for p in summary["papers"].values() for c in p["checks"]]
    assert summary["met"] + summary["missed"] == len(checks) > 0
    assert f"targets: {summary['met']} met, {summary['missed']} missed" in result.output
    text = _check(tmp_path / "report.html", 2)
    for name in PAPERS:
        assert re.search(f'<h2 id="s[0-9]+">{name}</h2>', text), name
        assert (tmp_path / name / "table.md").is_file()
    assert f"{summary['met']} targets met, {summary['missed']} missed" in text


def test_not_a_results_folder(tmp_path):
    result = _invoke("report", tmp_path)
    assert result.exit_code == 2
    assert "not a results folder" in result.output
    assert _invoke("report", tmp_path / "nope").exit_code == 2


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _make(kind: str, out: Path) -> None:
    """A results folder of ``kind``: run, seeds, sweep or reproduction."""
    if kind == "sweep":
        _sweep(out)
        return
    if kind == "reproduction":
        args = ["reproduce", "byun2016", "--seeds", "1..2", "--out", out, "--no-check"]
        args += ["--set", "sim.duration=60s"]
    else:
        args = ["run", LOSSY, "--set", "sim.duration=5s", "--out", out, "--force"]
        args += ["--seeds", "1..3"] if kind == "seeds" else []
    result = _invoke(*args, "-q")
    assert result.exit_code == 0, result.output


#: Width of the browser window the reports must fit in.
WIDTH = 1280


@needs_core
@pytest.mark.skipif(_browser() is None, reason="needs headless Chromium (Debian: chromium)")
@pytest.mark.parametrize("kind", ["run", "seeds", "sweep", "reproduction"])
def test_report_opens_in_a_browser_and_fits_1280_px(kind, tmp_path):
    """Chromium loads the page at 1280 px, decodes every plot and scrolls no
    wider than the window; the screenshot goes to $XLTCP_TEST_ARTIFACTS
    (scripts/test.sh: target/test-artifacts) as report-<kind>.png."""
    _make(kind, tmp_path)
    assert _invoke("report", tmp_path).exit_code == 0
    page = (tmp_path / "report.html").read_text()
    probe = tmp_path / "probe.html"
    script = (
        "<script>window.addEventListener('load', () => { const b = document.body;"
        "b.setAttribute('data-plots', [...document.images]"
        ".filter(i => i.complete && i.naturalWidth > 0).length);"
        "b.setAttribute('data-width', document.documentElement.scrollWidth);"
        "b.setAttribute('data-window', window.innerWidth); });</script>"
    )
    probe.write_text(page.replace("</body>", script + "</body>"))
    common = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    common += ["--virtual-time-budget=5000", f"--window-size={WIDTH},2400"]
    dom = subprocess.run(
        [*common, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=180
    )
    found = re.search(r'data-plots="(\d+)"', dom.stdout)
    assert found, dom.stderr[-2000:]
    assert int(found.group(1)) == page.count("<img") >= 1
    width = int(re.search(r'data-width="(\d+)"', dom.stdout).group(1))
    window = int(re.search(r'data-window="(\d+)"', dom.stdout).group(1))
    assert window == WIDTH
    assert width <= WIDTH, f"the {kind} report scrolls sideways: {width} px in {WIDTH}"
    artifacts = Path(os.environ.get("XLTCP_TEST_ARTIFACTS", tmp_path))
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / f"report-{kind}.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", probe.as_uri()],
        capture_output=True, timeout=180, check=True,
    )  # fmt: skip
    assert shot.read_bytes()[:8] == PNG
