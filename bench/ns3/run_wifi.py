#!/usr/bin/env python3
"""Run the ns-3 Wi-Fi reference scenario: TCP goodput against SNR for 802.11b and 802.11a, plus UDP ceilings.

Every replication is one process of bench/ns3/build/wifi_tcp (build it with
bench/ns3/build.sh), at most --parallel at a time. For each standard: the
TCP flow at every SNR of the grid (chosen so the data-frame error rate goes
from 0 to about 50 %, plus one error-free point) and a saturating UDP flow at
an error-free SNR. Writes bench/out/ns3_wifi.json and prints the tables.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from pathlib import Path

from ns3runs import missing_binary, pm, run_all, summarize, write_json

HERE = Path(__file__).resolve().parent
DEFAULT_BINARY = HERE / "build" / "wifi_tcp"
DEFAULT_OUT = HERE.parent / "out" / "ns3_wifi.json"

# SNR grids (dB) per (standard, error model): the 1524-byte TCP data frame's
# PER goes from about 50 % at the first point to 0 at the last but one; the
# last point is error-free. 802.11b uses the DSSS model under both names.
GRIDS = {
    ("11b", "nist"): [6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 8.0, 9.0, 30.0],
    ("11b", "yans"): [6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 8.0, 9.0, 30.0],
    ("11a", "nist"): [12.75, 13.0, 13.25, 13.5, 13.75, 14.0, 14.5, 15.0, 16.0, 30.0],
    ("11a", "yans"): [9.0, 9.25, 9.5, 9.75, 10.0, 10.25, 10.5, 11.0, 12.0, 30.0],
}
UDP_SNR = 40.0

FIELDS = [
    "goodput_bps",
    "retransmissions",
    "rto_count",
    "mac_data_attempts",
    "mac_retries",
    "mac_drops_retry_limit",
    "observed_per",
    "observed_per_without_collisions",
    "collided_attempts",
    "model_per",
    "snr_db_seen",
    "tc_drops",
    "events",
    "wall_seconds",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--standards", nargs="+", default=["11b", "11a"], choices=["11b", "11a"])
    parser.add_argument("--error-model", default="nist", choices=["nist", "yans"])
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--snrs", type=float, nargs="*", help="override the SNR grid (dB)")
    parser.add_argument("--no-udp", action="store_true", help="skip the UDP ceilings")
    parser.add_argument("--parallel", type=int, default=2, help="processes at a time")
    args = parser.parse_args()

    if missing_binary(args.binary):
        return 1

    def cmd(std: str, snr: float, seed: int, udp: bool) -> list[str]:
        return [
            str(args.binary),
            f"--standard={std}",
            f"--errorModel={args.error_model}",
            f"--snr={snr}",
            f"--seed={seed}",
            f"--duration={args.duration}",
            f"--udp={int(udp)}",
        ]

    jobs = []
    for std in args.standards:
        for snr in args.snrs or GRIDS[(std, args.error_model)]:
            for seed in args.seeds:
                jobs.append(({}, cmd(std, snr, seed, False)))
        if not args.no_udp:
            for seed in args.seeds:
                jobs.append(({}, cmd(std, UDP_SNR, seed, True)))

    def log(r: dict) -> None:
        print(
            f"{r['standard']} {r['mode']} snr={r['snr_db']:g} seed={r['seed']}: "
            f"{r['goodput_bps'] / 1e6:.3f} Mbit/s, PER {r['observed_per']:.3f} "
            f"(model {r['model_per']:.3f}), {r['rto_count']} RTOs, {r['wall_seconds']:.1f} s wall",
            file=sys.stderr,
        )

    runs = run_all(jobs, args.parallel, log)
    rows = summarize(runs, ["standard", "mode", "error_model", "snr_db"], FIELDS)
    write_json(
        args.out,
        {
            "scenario": "wifi_tcp",
            "ns3_version": importlib.metadata.version("ns3"),
            "duration_s": args.duration,
            "seeds": args.seeds,
            "error_model": args.error_model,
            "summary": rows,
            "runs": runs,
        },
    )

    print(
        "| standard | flow | SNR dB | n | goodput Mbit/s | TCP retx | RTOs | MAC attempts "
        "| MAC retries | MAC drops | PER observed | PER w/o collisions | PER model |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['standard']} | {r['mode']} | {r['snr_db']:g} | {r['n']} "
            f"| {pm(r, 'goodput_bps', 1e6, 3)} | {r['retransmissions_mean']:.0f} "
            f"| {r['rto_count_mean']:.1f} | {r['mac_data_attempts_mean']:.0f} "
            f"| {r['mac_retries_mean']:.0f} | {r['mac_drops_retry_limit_mean']:.1f} "
            f"| {r['observed_per_mean']:.3f} | {r['observed_per_without_collisions_mean']:.3f} "
            f"| {r['model_per_mean']:.3f} |"
        )
    print(f"\nwrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
