#!/usr/bin/env python3
"""xltcp against ns-3 on one TCP flow over an 802.11b or 802.11a hop.

For every (standard, error model, SNR) of bench/ns3/run_wifi.py's TCP runs
(bench/ns3/results/ns3_wifi.json: 11b at 11 Mbit/s and 11a at 24 Mbit/s,
NIST; ns3_wifi_yans_11a.json: 11a, YANS) runs xltcp on the same scenario
and seeds and prints both side by side.

The scenario is scenarios/wifi-11a.toml with the settings of
bench/ns3/wifi_tcp.cc: CH -(100 Mbit/s, 10 ms, 100 p)- AP ~ STA, one bulk
TCP flow CH -> STA for 30 s, NewReno without SACK or timestamps, MSS 1448,
IW 10, delayed ACK 2 / 200 ms, min RTO 1 s (tcp.profile = "ns3" unless
--profile says otherwise), a fixed rate (ACKs at the standard's control
response rate: 2 Mbit/s for 11b, 24 Mbit/s for 11a), long preamble, no
RTS/CTS, 7 attempts per frame, a 100-frame MAC queue, the same SNR and
error model.

Two xltcp columns: at the same SNR, and at the SNR where xltcp's error
model gives the data frame (1524-byte PSDU with its PHY header) the PER
that ns-3's model gives it (ns-3's `model_per`; found by root finding on
xltcp's own model; "unreachable" where xltcp's model takes no such value).
The second takes the error model out of the
comparison and compares the MAC and TCP; it equals the first wherever
the two models agree (802.11a).

Per row: goodput (mean ± 95% CI over seeds), xltcp / ns-3, whether that is
within 10%, the observed PER of the data frames (1 - received / attempts)
and its share from collisions with the station's TCP ACKs, MAC retries,
MAC drops at the retry limit and TCP timeouts (means over seeds).

    python3 bench/wifi.py
    python3 bench/wifi.py --seeds 1 2 3 4 5 6 7 8 9 10
    python3 bench/wifi.py --standards 11a --json-out bench/out/xltcp_wifi.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from scipy.optimize import brentq

from xltcp import _core

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blockage import ROOT, RUNNER, ci95  # noqa: E402

SCENARIO = ROOT / "scenarios" / "wifi-11a.toml"
NS3_RESULTS = ROOT / "bench" / "ns3" / "results"
RATE_MBPS = {"11b": 11, "11a": 24}
DATA_PSDU = 1524  # 1448 + 40 (TCP/IP) + 8 (LLC/SNAP) + 24 (MAC header) + 4 (FCS)


def run_xltcp(standard: str, model: str, snr_db: float, seed: int, duration: float, profile: str) -> dict:
    sets = [
        f"sim.duration={duration:g}s",
        f"tcp.profile={profile}",
        "tcp.sack=false",
        "tcp.timestamps=false",
        "tcp.mss=1448B",
        "tcp.initial_window=10",
        "tcp.delayed_ack=2",
        "tcp.delayed_ack_timeout=200ms",
        "tcp.min_rto=1s",
        "wired.rate=100Mbps",
        "wired.delay=10ms",
        "wired.queue=100p",
        f"wireless.standard={standard}",
        f"wireless.rate={RATE_MBPS[standard]}Mbps",
        "wireless.rate_control=fixed",
        "wireless.preamble=long",
        "wireless.retry_short=7",
        f"wireless.error_model={model}",
        f"wireless.snr_db={snr_db!r}",
        "wireless.queue=100p",
        "output.timeseries=false",
    ]
    args = [str(RUNNER), str(SCENARIO), "--seed", str(seed)]
    for s in sets:
        args += ["--set", s]
    d = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    f = d["flows"][0]
    down = d["wifi"]["down"]
    attempts = down["frames_sent"]
    # Attempts the station did not receive: bit errors, collisions (with its
    # own TCP ACK frames) and frames sent while it was itself transmitting.
    failed = down["lost"] + down["collided"] + down["deaf"]
    clean = attempts - down["collided"] - down["deaf"]
    return {
        "goodput_bps": f["goodput_bps"],
        "retransmissions": f["retransmissions"],
        "rto_count": f["rto_count"],
        "mac_data_attempts": attempts,
        "mac_retries": down["retransmissions"],
        "mac_drops_retry_limit": down["drop_retry_limit"],
        "observed_per": failed / attempts if attempts else 0.0,
        "collided_share": (down["collided"] + down["deaf"]) / attempts if attempts else 0.0,
        "observed_per_without_collisions": down["lost"] / clean if clean else 0.0,
        "uplink_mac_retries": d["wifi"]["up"]["retransmissions"],
    }


def matched_snr(standard: str, model: str, target_per: float, near: float) -> float | None:
    """The SNR at which xltcp's PER of the data frame equals `target_per`
    (within 0.005); None if its model takes no such value (xltcp's 11 Mbit/s
    CCK fit jumps from about 0.24 to 0 at 10 dB)."""
    f = lambda s: _core.wifi_per(standard, RATE_MBPS[standard], s, DATA_PSDU, model=model) - target_per  # noqa: E731
    if abs(f(near)) < 0.005:
        return near
    lo, hi = near - 10.0, near + 10.0
    if f(lo) < 0 or f(hi) > 0:
        return None
    s = brentq(f, lo, hi, xtol=1e-6)
    # At a jump of the curve the root lies within xtol on either side of it.
    return next((x for x in (s, s + 2e-6) if abs(f(x)) < 0.005), None)


def mean(xs):
    return statistics.mean(xs) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-json", type=Path, nargs="+",
                    default=[NS3_RESULTS / "ns3_wifi.json", NS3_RESULTS / "ns3_wifi_yans_11a.json"])
    ap.add_argument("--standards", nargs="+", default=["11b", "11a"])
    ap.add_argument("--seeds", type=int, nargs="+", help="xltcp seeds (default: the ns-3 runs' seeds)")
    ap.add_argument("--profile", default="ns3", help='tcp.profile of the xltcp runs (default "ns3")')
    ap.add_argument("--no-matched", action="store_true", help="skip the PER-matched xltcp runs")
    ap.add_argument("--json-out", type=Path, help="write every run (both tools) here")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run"], cwd=ROOT, check=True)

    records = []
    for path in args.ns3_json:
        records += [r for r in json.loads(path.read_text())["runs"] if r["mode"] == "tcp"]
    groups: dict[tuple, list] = {}
    for r in records:
        if r["standard"] in args.standards:
            groups.setdefault((r["standard"], r["error_model"], r["snr_db"]), []).append(r)

    out = []
    head = (f"{'std':<4}{'model':<6}{'SNR':>6} | {'ns-3 Mbit/s':>15} {'xltcp Mbit/s':>15} {'ratio':>6} {'<=10%':>5}"
            f" | {'PER ns-3':>8} {'xltcp':>6} {'coll ns-3':>9} {'xltcp':>6} | {'retries ns-3':>12} {'xltcp':>6}"
            f" | {'drops ns-3':>10} {'xltcp':>6} | {'RTOs ns-3':>9} {'xltcp':>6}"
            f" || {'SNR same PER':>12} {'xltcp Mbit/s':>15} {'ratio':>6} {'<=10%':>5}")
    print(head)
    print("-" * len(head))
    order = {s: i for i, s in enumerate(args.standards)}
    for (std, model, snr), ns in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][1], kv[0][2])):
        seeds = args.seeds or sorted(r["seed"] for r in ns)
        duration = ns[0]["duration_s"]
        xs = [run_xltcp(std, model, snr, s, duration, args.profile) for s in seeds]
        target = mean([r["model_per"] for r in ns])
        snr_m = matched_snr(std, model, target, snr)
        if args.no_matched or snr_m is None:
            xm = []
        elif snr_m == snr:
            xm = xs
        else:
            xm = [run_xltcp(std, model, snr_m, s, duration, args.profile) for s in seeds]

        g_ns = [r["goodput_bps"] / 1e6 for r in ns]
        g_x = [x["goodput_bps"] / 1e6 for x in xs]
        ratio = mean(g_x) / mean(g_ns) if mean(g_ns) > 0 else float("nan")
        ok = "yes" if abs(ratio - 1) <= 0.10 else "NO"
        coll_ns = mean([r["collided_attempts"] / r["mac_data_attempts"] for r in ns if r["mac_data_attempts"]])
        line = (f"{std:<4}{model:<6}{snr:>6g} | {mean(g_ns):>7.3f} ± {ci95(g_ns):<5.3f} {mean(g_x):>7.3f} ± {ci95(g_x):<5.3f}"
                f" {ratio:>6.3f} {ok:>5}"
                f" | {mean([r['observed_per'] for r in ns]):>8.3f} {mean([x['observed_per'] for x in xs]):>6.3f}"
                f" {coll_ns:>9.3f} {mean([x['collided_share'] for x in xs]):>6.3f}"
                f" | {mean([r['mac_retries'] for r in ns]):>12.0f} {mean([x['mac_retries'] for x in xs]):>6.0f}"
                f" | {mean([r['mac_drops_retry_limit'] for r in ns]):>10.1f} {mean([x['mac_drops_retry_limit'] for x in xs]):>6.1f}"
                f" | {mean([r['rto_count'] for r in ns]):>9.1f} {mean([x['rto_count'] for x in xs]):>6.1f}")
        row = {"standard": std, "error_model": model, "snr_db": snr, "seeds": seeds, "ns3": ns, "xltcp": xs,
               "ratio": ratio, "matched_snr_db": snr_m, "ns3_model_per": target}
        if xm:
            g_m = [x["goodput_bps"] / 1e6 for x in xm]
            ratio_m = mean(g_m) / mean(g_ns) if mean(g_ns) > 0 else float("nan")
            ok_m = "yes" if abs(ratio_m - 1) <= 0.10 else "NO"
            line += f" || {snr_m:>12.3f} {mean(g_m):>7.3f} ± {ci95(g_m):<5.3f} {ratio_m:>6.3f} {ok_m:>5}"
            row.update(xltcp_matched=xm, ratio_matched=ratio_m)
        elif snr_m is None:
            line += f" || {'unreachable':>12}"
        print(line, flush=True)
        out.append(row)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps({"profile": args.profile, "rows": out}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
