"""`xltcp plot` draws each flow of a results folder."""

from typer.testing import CliRunner

from xltcp.cli import app

from conftest import needs_core

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@needs_core
def test_plot_writes_one_png_per_flow(tmp_path):
    runner = CliRunner()
    demo = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--out", str(demo), "-q"])
    assert result.exit_code == 0, result.output
    pngs = sorted((demo / "plots").glob("*.png"))
    flows = sorted((demo / "timeseries").glob("*.csv"))
    overlay = ["all-flows"] if len(flows) > 1 else []
    assert sorted(p.stem for p in pngs) == sorted([f.stem for f in flows] + overlay) and pngs
    for p in pngs:
        assert p.read_bytes()[:8] == PNG_MAGIC
    again = runner.invoke(app, ["plot", str(demo)])
    assert again.exit_code == 0, again.output


def test_plot_refuses_a_folder_without_timeseries(tmp_path):
    result = CliRunner().invoke(app, ["plot", str(tmp_path)])
    assert result.exit_code == 2
    assert "no timeseries/ or seed-<n>/timeseries/ folder" in result.output
