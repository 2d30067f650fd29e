#!/usr/bin/env python3
"""xltcp's 802.11 frame error rate against ns-3's, rate by rate.

Evaluates xltcp's error model (``xltcp._core.wifi_per``) on the SNR grid of
bench/ns3/results/ns3_fer.json (ns-3 3.44's ErrorRateModel::GetChunkSuccessRate
for one PSDU of ``psdu_bytes``, without the PHY header) for every curve there:
802.11a NIST and YANS at 6..54 Mbit/s, 802.11b (DSSS/CCK) at 1..11 Mbit/s.
xltcp's side is the payload chunk alone too (``header=False``; for 11a it
includes the 16 SERVICE and 6 tail bits, which ns-3's chunk leaves out).

Prints, per curve, the largest absolute FER difference on the grid (and
where), and the SNR at FER = 0.5 of both (xltcp's by root finding, ns-3's
as recorded). Writes a plot: one panel per standard and model, xltcp solid,
ns-3 dashed.

    python3 bench/wifi_fer.py                          # -> bench/results/wifi_fer.png
    python3 bench/wifi_fer.py --out /tmp/fer.pdf
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from xltcp import _core

ROOT = Path(__file__).resolve().parent.parent
NS3_JSON = ROOT / "bench" / "ns3" / "results" / "ns3_fer.json"
STANDARD = {"802.11a": "11a", "802.11b": "11b"}


def our_fer(curve: dict, snr_db: float, psdu: int) -> float:
    model = "nist" if curve["model"] == "dsss" else curve["model"]
    return _core.wifi_per(STANDARD[curve["standard"]], curve["rate_mbps"], snr_db, psdu,
                          model=model, header=False)


def snr_at(curve: dict, psdu: int, fer: float, lo: float, hi: float) -> float | None:
    """The SNR (dB) at which xltcp's FER falls through `fer` (None if not in [lo, hi])."""
    f = lambda s: our_fer(curve, s, psdu) - fer  # noqa: E731
    if f(lo) < 0 or f(hi) > 0:
        return None
    return brentq(f, lo, hi, xtol=1e-4)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-json", type=Path, default=NS3_JSON)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "wifi_fer.png",
                    help="plot file (default bench/results/wifi_fer.png)")
    args = ap.parse_args()
    ns3 = json.loads(args.ns3_json.read_text())
    psdu = int(ns3["psdu_bytes"])
    grid = np.asarray(ns3["snr_db"], dtype=float)
    lo, hi = float(grid[0]), float(grid[-1])

    print(f"FER of a {psdu}-byte PSDU (payload chunk), SNR {lo:g}..{hi:g} dB step {grid[1] - grid[0]:g}; "
          f"ns-3 {ns3['ns3_version']}")
    print(f"{'standard':<9}{'model':<6}{'Mbit/s':>7}{'max |dFER|':>12}{'at dB':>7}"
          f"{'FER=0.5 xltcp':>15}{'ns-3':>8}{'diff dB':>9}")
    rows = []
    for c in ns3["curves"]:
        ours = np.array([our_fer(c, s, psdu) for s in grid])
        theirs = np.asarray(c["fer"], dtype=float)
        diff = np.abs(ours - theirs)
        k = int(np.argmax(diff))
        x = snr_at(c, psdu, 0.5, lo, hi)
        y = c.get("snr_db_fer_0.5")
        dd = f"{x - y:+9.2f}" if x is not None and y is not None else f"{'-':>9}"
        xs = f"{x:15.2f}" if x is not None else f"{'-':>15}"
        ys = f"{y:8.2f}" if y is not None else f"{'-':>8}"
        print(f"{STANDARD[c['standard']]:<9}{c['model']:<6}{c['rate_mbps']:>7g}{diff[k]:>12.4f}{grid[k]:>7g}{xs}{ys}{dd}")
        rows.append((c, ours, theirs))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted({(c["standard"], c["model"]) for c, _, _ in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), sharey=True)
    for ax, (std, model) in zip(np.atleast_1d(axes), panels):
        sel = [r for r in rows if (r[0]["standard"], r[0]["model"]) == (std, model)]
        lo_p = min(grid[np.argmax(t < 0.999)] for _, _, t in sel) - 2
        hi_p = max(max(grid[np.argmax(o < 1e-3)], grid[np.argmax(t < 1e-3)]) for _, o, t in sel) + 2
        fine = np.arange(lo_p, hi_p + 1e-9, 0.05)
        for i, (c, _, theirs) in enumerate(sel):
            color = f"C{i}"
            ax.plot(fine, [our_fer(c, s, psdu) for s in fine], color=color, label=f"{c['rate_mbps']:g} Mbit/s")
            ax.plot(grid, theirs, color=color, linestyle="--", marker=".", markersize=3)
        ax.set_xlim(lo_p, hi_p)
        ax.set_title(f"{std} ({'DSSS/CCK' if model == 'dsss' else model.upper()})")
        ax.set_xlabel("SNR (dB)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, title="xltcp solid, ns-3 dashed", title_fontsize=7)
    np.atleast_1d(axes)[0].set_ylabel(f"FER ({psdu}-byte PSDU)")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=120)
    print(f"plot: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
