#!/usr/bin/env python3
"""Instruction counts of fixed simulator runs against a recorded baseline.

A speed-regression guard that machine load cannot hide: each case is one run
of the release runner (`cargo build --release --example run`) under
`valgrind --tool=cachegrind --cache-sim=no`, and its measure is the total
number of instructions executed (cachegrind's `I refs`), not wall time. Same
scenario, seed and settings, and a fixed environment, give the same count to
within a few parts per million.

    python3 bench/icount.py                     # counts beside bench/icount-baseline.json
    python3 bench/icount.py --check             # the same; exit 1 when a case grew > 3 %
    python3 bench/icount.py --record --reason "event queue as a 4-ary heap: -12 % on many-flows"
    python3 bench/icount.py --cases wifi-11a-cell --repeat 2
                                                # one case twice: how repeatable a count is
    python3 bench/icount.py --rev f1d27c5       # also each case at an earlier commit, per packet
                                                # (built in a worktree of its own; a case whose
                                                # scenario file that tree lacks is left out)
    python3 bench/icount.py --rev f1d27c5 --rev-our-profile
                                                # the earlier tree built with this tree's
                                                # [profile.release] (LTO, codegen units): the code
                                                # compared, not the build settings

The runner is built where cargo puts it: in `$CARGO_TARGET_DIR` when set,
else in target/. With `--rev`, the earlier tree is checked out under
`<target>/rev/REV` and built in `<target>/rev-build/REV`.

Exit status: 0 when no case grew more than the threshold (3 %) over its
baseline, 1 when one did or a case has no baseline, 2 on bad usage or a
failed run. A count that fell by more than the threshold passes, with a note
that re-recording would tighten the guard.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "bench" / "icount-baseline.json"
#: A case fails when its count exceeds the baseline's by more than this share.
THRESHOLD = 0.03
SEED = 1


@dataclass(frozen=True)
class Case:
    """One fixed run: a shipped scenario, shortened or widened with `--set`."""

    name: str
    scenario: str  # relative to the repository root
    sets: tuple[str, ...]
    what: str


CASES = (
    Case(
        "many-flows-100x2s",
        "scenarios/many-flows.toml",
        ("flow.0.count=100", "sim.duration=2s"),
        "100 bulk flows through one 1 Gbit/s hop, 2 s",
    ),
    Case(
        "wifi-11a-cell",
        "scenarios/wifi-11a.toml",
        ("flow.0.count=10", "wireless.snr_db=30", "sim.duration=10s"),
        "10-station 802.11a cell, 24 Mbit/s, 30 dB, 10 s",
    ),
    Case(
        "byun2016-tcp-lr-cr",
        "scenarios/byun2016/paper/tcp-lr-cr.toml",
        ("sim.duration=600s",),
        "802.15.4 paper-000 preset (CR-aware TCP, MAC hold, TCP local recovery), 600 s",
    ),
    Case(
        "kim-chung-c-snoop-down",
        "scenarios/kim-chung/c-snoop-down.toml",
        ("sim.duration=100s",),
        "C-Snoop agents on an 802.11b hop with Gilbert loss and energy, 100 s",
    ),
)


def target_dir() -> Path:
    """Cargo's target directory: `$CARGO_TARGET_DIR`, else target/ in the repository."""
    return Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")


def build_runner(tree: Path = ROOT, env: dict | None = None) -> Path:
    """Builds the release runner of `tree`; returns its path (wherever CARGO_TARGET_DIR puts it)."""
    cmd = ["cargo", "build", "--quiet", "--release", "--example", "run", "--message-format=json"]
    out = subprocess.run(
        cmd, cwd=tree, env=env, check=True, stdout=subprocess.PIPE, text=True
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "run":
            if msg.get("executable"):
                return Path(msg["executable"])
    raise SystemExit("cargo built no `run` example executable")


def release_profile_env() -> dict[str, str]:
    """This tree's `[profile.release]` as Cargo's `CARGO_PROFILE_RELEASE_*`
    variables, which override the profile of whatever tree is built."""
    import tomllib

    profile = tomllib.loads((ROOT / "Cargo.toml").read_text())["profile"]["release"]
    return {
        "CARGO_PROFILE_RELEASE_" + key.upper().replace("-", "_"): str(value).lower()
        if isinstance(value, bool)
        else str(value)
        for key, value in profile.items()
    }


def build_rev(rev: str, our_profile: bool = False) -> tuple[Path, Path]:
    """Checks out `rev` in a worktree of its own and builds its runner (with
    this tree's release profile if `our_profile`); returns (tree, runner)."""
    target = target_dir().resolve()
    tree = target / "rev" / rev
    if not tree.exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(tree), rev],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    build = target / "rev-build" / (rev + ("-our-profile" if our_profile else ""))
    env = {**os.environ, "CARGO_TARGET_DIR": str(build)}
    if our_profile:
        env.update(release_profile_env())
    return tree, build_runner(tree, env)


def instructions(runner: Path, case: Case, root: Path = ROOT) -> tuple[int, dict]:
    """Runs one case under cachegrind in `root`; returns its count and the runner's summary."""
    with tempfile.TemporaryDirectory(prefix="icount-") as tmp:
        out_file = Path(tmp) / "cachegrind.out"
        cmd = [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            f"--cachegrind-out-file={out_file}",
            str(runner),
            case.scenario,
            "--seed",
            str(SEED),
        ]
        for s in case.sets:
            cmd += ["--set", s]
        # A fixed, small environment: the process's start-up work (and so its
        # count) otherwise depends on the caller's variables.
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-2000:])
            raise SystemExit(f"{case.name}: the run failed with status {proc.returncode}")
        m = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
        if not m:
            raise SystemExit(f"{case.name}: no `I refs` line in valgrind's output")
        return int(m.group(1).replace(",", "")), json.loads(proc.stdout)


def compare(counts: dict[str, int], baseline: dict, threshold: float = THRESHOLD) -> list[str]:
    """The cases that fail: grown more than `threshold` over the baseline, or without one."""
    failed = []
    for name, count in counts.items():
        base = baseline.get("cases", {}).get(name)
        if base is None or count > base["instructions"] * (1 + threshold):
            failed.append(name)
    return failed


def toolchain() -> dict:
    """rustc's and valgrind's versions: counts move slightly when either changes."""

    def version(cmd: list[str]) -> str:
        if not shutil.which(cmd[0]):
            return "missing"
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout.strip()

    return {
        "rustc": version(["rustc", "--version"]),
        "valgrind": version(["valgrind", "--version"]),
    }


def git_commit() -> str:
    """HEAD's short hash, with `+changes` when tracked files other than the baseline differ."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    changed = [c for c in changed if not c.endswith(BASELINE.name)]
    return f"{head}+changes" if changed else head


def load_baseline(path: Path) -> dict:
    if not path.is_file():
        return {"cases": {}}
    return json.loads(path.read_text())


def report(
    counts: dict[str, int], runs: dict[str, dict], baseline: dict, threshold: float
) -> list[str]:
    """Prints each case beside its baseline; returns the failed cases."""
    failed = compare(counts, baseline, threshold)
    print(
        f"{'case':<24} {'instructions':>15} {'baseline':>15} {'ratio':>7} {'packets':>8} "
        f"{'instr/pkt':>10}  recorded at"
    )
    for name, count in counts.items():
        base = baseline.get("cases", {}).get(name)
        packets = runs[name].get("packets") or 0
        per_packet = f"{count / packets:>10.0f}" if packets else f"{'-':>10}"
        if base is None:
            print(f"{name:<24} {count:>15,} {'none':>15} {'-':>7} {packets:>8} {per_packet}  -")
            continue
        ratio = count / base["instructions"]
        mark = (
            "  GREW" if name in failed else ("  fell: re-record?" if ratio < 1 - threshold else "")
        )
        print(
            f"{name:<24} {count:>15,} {base['instructions']:>15,} {ratio:>7.4f} {packets:>8} "
            f"{per_packet}  {base['commit']}{mark}"
        )
    here = toolchain()
    if baseline.get("toolchain") and baseline["toolchain"] != here:
        print(
            f"note: baseline recorded with {baseline['toolchain']}, this is {here}: "
            "counts differ slightly between compiler versions; re-record after a toolchain change"
        )
    for name in failed:
        if name in baseline.get("cases", {}):
            print(
                f"FAIL {name}: {counts[name]:,} instructions, more than {threshold:.0%} over "
                f"the baseline's {baseline['cases'][name]['instructions']:,}; make it faster, "
                "or re-record with --record --reason '...' in the same change"
            )
        else:
            print(f"FAIL {name}: no baseline; record one with --record --reason '...'")
    return failed


def record(counts: dict[str, int], runs: dict[str, dict], path: Path, reason: str) -> None:
    """Rewrites the baseline with these counts (cases not measured keep their entries)."""
    baseline = load_baseline(path)
    commit = git_commit()
    cases = baseline.setdefault("cases", {})
    for name, count in counts.items():
        case = next(c for c in CASES if c.name == name)
        cases[name] = {
            "instructions": count,
            "commit": commit,
            "reason": reason,
            "packets": runs[name].get("packets"),
            "events": runs[name].get("events"),
            "what": case.what,
        }
    baseline["seed"] = SEED
    baseline["threshold"] = THRESHOLD
    baseline["toolchain"] = toolchain()
    path.write_text(json.dumps(baseline, indent=2) + "\n")
    print(f"recorded {', '.join(counts)} at {commit} in {path}")


def against_rev(
    rev: str,
    cases: list[Case],
    counts: dict[str, int],
    runs: dict[str, dict],
    measure,
    our_profile: bool = False,
) -> None:
    """Runs the cases at `rev` and prints instructions per packet beside this tree's."""
    tree, runner = build_rev(rev, our_profile)
    how = "built with this tree's release profile" if our_profile else "built as it ships"
    print(f"\nagainst {rev} ({how}):")
    print(
        f"{'case':<24} {'instructions':>15} {'at ' + rev[:10]:>15} {'packets':>8} "
        f"{'packets':>8} {'instr/pkt':>10} {'instr/pkt':>10} {'per-pkt ratio':>13}"
    )
    for case in cases:
        if not (tree / case.scenario).is_file():
            print(f"{case.name:<24} not run at {rev}: it has no {case.scenario}")
            continue
        try:
            theirs, run = measure(runner, case, tree)
        except SystemExit as e:
            print(f"{case.name:<24} failed at {rev} ({e}): its scenario keys may differ")
            continue
        ours, p_ours, p_theirs = (
            counts[case.name],
            runs[case.name].get("packets") or 0,
            run.get("packets") or 0,
        )
        if not (p_ours and p_theirs):
            print(f"{case.name:<24} {ours:>15,} {theirs:>15,}  (no packets)")
            continue
        a, b = ours / p_ours, theirs / p_theirs
        print(
            f"{case.name:<24} {ours:>15,} {theirs:>15,} {p_ours:>8} {p_theirs:>8} "
            f"{a:>10.0f} {b:>10.0f} {a / b:>13.3f}"
        )


def main(argv: list[str] | None = None, measure=instructions) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--check", action="store_true", help="compare with the baseline (the default)"
    )
    mode.add_argument(
        "--record", action="store_true", help="rewrite the baseline with these counts"
    )
    ap.add_argument("--reason", help="why the baseline changes (required with --record)")
    ap.add_argument("--cases", nargs="+", choices=[c.name for c in CASES], help="only these cases")
    ap.add_argument(
        "--repeat", type=int, default=1, help="runs per case; prints the spread (default 1)"
    )
    ap.add_argument("--runner", type=Path, help="this runner instead of building one")
    ap.add_argument(
        "--rev",
        help="also run the cases at this git revision and print instructions per packet beside it",
    )
    ap.add_argument(
        "--rev-our-profile",
        action="store_true",
        help="build --rev with this tree's [profile.release] instead of its own",
    )
    ap.add_argument(
        "--baseline",
        type=Path,
        default=BASELINE,
        help="baseline file (default bench/icount-baseline.json)",
    )
    ap.add_argument(
        "--threshold", type=float, default=THRESHOLD, help="allowed growth (default 0.03)"
    )
    args = ap.parse_args(argv)
    if args.record and not args.reason:
        ap.error("--record needs --reason: say why the counts change")
    if args.record and args.rev:
        ap.error("--rev compares; it does not record")
    if measure is instructions and not shutil.which("valgrind"):
        ap.error("valgrind is not installed")
    runner = args.runner or (build_runner() if measure is instructions else Path("run"))
    cases = [c for c in CASES if not args.cases or c.name in args.cases]

    counts, runs = {}, {}
    for case in cases:
        taken = [measure(runner, case) for _ in range(max(1, args.repeat))]
        counts[case.name], runs[case.name] = min(taken, key=lambda t: t[0])
        if args.repeat > 1:
            lo, hi = min(t[0] for t in taken), max(t[0] for t in taken)
            print(
                f"{case.name}: {args.repeat} runs, {lo:,} to {hi:,} "
                f"(a spread of {hi - lo:,}, {(hi - lo) / lo:.1e} of the count)"
            )

    if args.record:
        record(counts, runs, args.baseline, args.reason)
        return 0
    failed = report(counts, runs, load_baseline(args.baseline), args.threshold)
    if args.rev:
        against_rev(args.rev, cases, counts, runs, measure, args.rev_our_profile)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
