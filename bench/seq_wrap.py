#!/usr/bin/env python3
"""Every scheme carries a bulk flow through 2^31 and 2^32 bytes.

The test suite runs TCP, Snoop and SNACK through 2^32 bytes on fast
point-to-point hops (crates/xltcp-core/tests/seq_wrap.rs); the schemes that
need an 802.11 hop (C-Snoop, DSASync, CLAMP, L2-CLAMP) move 2^32 bytes only
in simulated tens of minutes, too long for a test. This runs each of them
(release build) on its paper preset with the 802.11a hop at 54 Mbit/s and a
1 Gbit/s wired side, long enough to pass 2^32 bytes on every flow, and
prints per flow the bytes delivered, the goodput of the whole run and of
its last tenth (from a second run of the same seed 10% shorter; a flow
that stalls at a wrap shows 0 there), and what the scheme did.

    python3 bench/seq_wrap.py            # all schemes
    python3 bench/seq_wrap.py c_snoop    # one
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "target" / "release" / "examples" / "run"

FAST_11A = [
    "wireless.standard=11a",
    "wireless.rate=54Mbps",
    "wireless.rate_control=fixed",
    "wired.rate=1Gbps",
    "tcp.rcv_buffer=1MiB",
    "tcp.snd_buffer=1MiB",
]

#: scheme -> (preset, seconds, extra overrides): long enough for 2^32 bytes per flow.
CASES = {
    "c_snoop": ("scenarios/kim-chung/c-snoop-down.toml", 4500, []),
    "dsasync": ("scenarios/dsasync/dsasync-down.toml", 6000, []),
    "clamp": ("scenarios/l2clamp/clamp.toml", 9000, []),
    "l2clamp": ("scenarios/l2clamp/l2clamp.toml", 9000, []),
}


def run(preset: str, seconds: float, extra: list[str]) -> dict:
    sets = [*FAST_11A, f"sim.duration={seconds}s", *extra]
    cmd = [str(RUNNER), str(ROOT / preset), "--seed", "1"]
    for s in sets:
        cmd += ["--set", s]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


#: The summary sections that say what a scheme did.
WORK = ("local_retransmissions", "c_snoop", "dsasync", "clamp", "l2clamp")


def main() -> None:
    wanted = sys.argv[1:] or list(CASES)
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True
    )
    header = ("scheme", "flow", "delivered B", "> 2^32", "Mbit/s", "last 10%")
    print("{:8} {:5} {:>14} {:>6} {:>7} {:>8}  scheme's work".format(*header))
    for scheme in wanted:
        preset, seconds, extra = CASES[scheme]
        # The same seed 10% shorter: the same run up to there, so the
        # difference is what the last tenth delivered.
        summary = run(preset, seconds, extra)
        shorter = run(preset, 0.9 * seconds, extra)
        work = {k: v for k, v in summary.items() if k in WORK}
        for f, g in zip(summary["flows"], shorter["flows"], strict=True):
            tail = (f["bytes_delivered"] - g["bytes_delivered"]) * 8 / (0.1 * seconds)
            print(
                f"{scheme:8} {f['name']:5} {f['bytes_delivered']:>14,} "
                f"{'yes' if f['bytes_delivered'] > 2**32 else 'no':>6} "
                f"{f['goodput_bps'] / 1e6:>7.2f} {tail / 1e6:>8.2f}  "
                f"{json.dumps(work)[:120]}"
            )


if __name__ == "__main__":
    main()
