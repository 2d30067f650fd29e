"""Executors: a thread pool, a process pool and a Dask cluster give the same bytes."""

from __future__ import annotations

import pytest

from conftest import REPO, needs_core

LOSSY = REPO / "scenarios" / "lossy-last-hop.toml"


def _plan():
    from xltcp import campaign
    from xltcp.values import parse_vary

    return campaign.plan(
        LOSSY,
        [parse_vary("wireless.loss.down.p=0.01,0.05"), parse_vary("wireless.rate=5Mbps,10Mbps")],
        [1, 2, 3],
        base=['sim.duration="3s"'],
    )


def _run(tmp_path, name, executor, jobs, scheduler=None):
    from xltcp import campaign

    outcome = campaign.run_campaign(_plan(), tmp_path / name, executor, jobs, scheduler)
    assert outcome.ran == 12 and outcome.skipped == 0
    return outcome.table_path.read_bytes()


@needs_core
def test_local_executors_write_the_same_bytes(tmp_path):
    one = _run(tmp_path, "one", "threads", 1)
    assert _run(tmp_path, "threads", "threads", 4) == one
    assert _run(tmp_path, "processes", "processes", 2) == one


@needs_core
def test_dask_local_cluster_writes_the_same_bytes(tmp_path):
    distributed = pytest.importorskip("distributed")
    one = _run(tmp_path, "one", "threads", 1)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as client:
            assert _run(tmp_path, "dask", "dask", None, cluster.scheduler_address) == one
            # The work went to the two worker processes, not this one.
            workers = client.run(lambda: __import__("os").getpid())
            assert len(workers) == 2
            assert __import__("os").getpid() not in workers.values()
            logs = client.run(
                lambda dask_worker: len(dask_worker.data) + len(dask_worker.state.log)
            )
            assert all(count > 0 for count in logs.values())


def test_a_run_that_fails_midway_leaves_no_folder(tmp_path, monkeypatch):
    from xltcp import campaign, runner

    def half_written(path, seed, out_dir, overrides, progress=None, atomic=True):
        (out_dir / "timeseries").mkdir(parents=True)
        (out_dir / "timeseries" / "bulk.csv").write_text("time_s\n0.0\n")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner, "run_one", half_written)
    spec = campaign.RunSpec("0" * 16, 0, 1, str(LOSSY), ())
    with pytest.raises(OSError):
        campaign.execute(spec, str(tmp_path))
    assert list(tmp_path.iterdir()) == []


@needs_core
def test_dask_without_a_scheduler_starts_a_local_cluster_and_writes_the_same_bytes(
    tmp_path, monkeypatch
):
    """``xltcp sweep --executor dask`` with no --scheduler: a local cluster of
    worker processes, one per core (at most one per run), closed at the end."""
    distributed = pytest.importorskip("dask.distributed")
    from typer.testing import CliRunner

    from xltcp import campaign
    from xltcp.cli import app

    made = []

    class Spy(distributed.LocalCluster):
        def __init__(self, **kwargs):
            made.append(kwargs)
            super().__init__(**kwargs)

        def close(self, *args, **kwargs):
            made.append("closed")
            return super().close(*args, **kwargs)

    monkeypatch.setattr(distributed, "LocalCluster", Spy)
    monkeypatch.setattr("distributed.LocalCluster", Spy)
    args = ["sweep", str(LOSSY), "--vary", "wireless.loss.down.p=0.01,0.05", "--seeds", "1"]
    args += ["--set", "sim.duration=2s", "--quiet"]
    embedded = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "one"), "-j", "1"])
    assert embedded.exit_code == 0, embedded.output
    local = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "dask"), "--executor", "dask"])
    assert local.exit_code == 0, local.output
    assert made[0]["n_workers"] == min(campaign.cores(), 2)
    assert made[0]["processes"] is True and made[0]["threads_per_worker"] == 1
    assert "closed" in made[1:]
    one = campaign.read_table(tmp_path / "one")
    assert len(one) == 2
    names = [p.name for p in (tmp_path / "one").glob("results.*")]
    assert names
    for name in names:
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
