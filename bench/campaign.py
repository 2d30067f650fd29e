"""Campaign executors side by side: one sweep on one job, on every core
(threads and processes) and on a 2-worker Dask LocalCluster; prints each
wall time, the speed-up over one job, and whether the results tables are the
same bytes.

    python3 bench/campaign.py                 # 3 keys x 3 values x seeds 1..10, 300 s runs
    python3 bench/campaign.py --duration 60s --seeds 1..3
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import tempfile
import time
from pathlib import Path

from xltcp import campaign, runner
from xltcp.values import parse_vary

REPO = Path(__file__).resolve().parents[1]
VARY = (
    "wireless.loss.down.p=0.001,0.01,0.05",
    "wireless.rate=5Mbps..20Mbps/3",
    "tcp.min_rto=200ms..1s/log3",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=str(REPO / "scenarios" / "lossy-last-hop.toml"))
    parser.add_argument("--duration", default="300s")
    parser.add_argument("--seeds", default="1..10")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=1, help="Time each executor N times, keep the best"
    )
    args = parser.parse_args()
    plan = campaign.plan(
        args.scenario,
        [parse_vary(v) for v in VARY],
        runner.parse_seeds(args.seeds),
        base=[f'sim.duration="{args.duration}"'],
    )
    cores = campaign.cores()
    print(
        f"{len(plan.points)} points x {len(plan.seeds)} seeds = {len(plan.runs)} runs of "
        f"{args.duration}, {cores} cores"
    )
    setups = [("threads", 1, "1 job"), ("threads", cores, f"{cores} threads")]
    setups.append(("processes", cores, f"{cores} processes"))
    if not args.skip_dask:
        setups.append(("dask", 2, "Dask LocalCluster, 2 worker processes"))
    best: dict[str, float] = {}
    digests: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for executor, jobs, label in setups:
                out = Path(tmp) / f"{executor}-{jobs}"
                scheduler = None
                cluster = None
                if executor == "dask":
                    from distributed import LocalCluster

                    cluster = LocalCluster(
                        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                    )
                    scheduler = cluster.scheduler_address
                try:
                    started = time.perf_counter()
                    outcome = campaign.run_campaign(plan, out, executor, jobs, scheduler)
                    wall = time.perf_counter() - started
                finally:
                    if cluster is not None:
                        cluster.close()
                digest = hashlib.sha256(outcome.table_path.read_bytes()).hexdigest()[:16]
                best[label] = min(best.get(label, wall), wall)
                if digests.setdefault(label, digest) != digest:
                    digests[label] = "differs between repeats"
                shutil.rmtree(out)
    rows = [(label, best[label], digests[label]) for _, _, label in setups]
    base = rows[0][1]
    print("| executor | wall | speed-up | table SHA-256 |")
    print("|---|---|---|---|")
    for label, wall, digest in rows:
        print(f"| {label} | {wall:.1f} s | x{base / wall:.2f} | {digest} |")
    same = len({digest for _, _, digest in rows}) == 1
    print("tables identical:" if same else "TABLES DIFFER:", ", ".join(r[0] for r in rows))


if __name__ == "__main__":
    main()
