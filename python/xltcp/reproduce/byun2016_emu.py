"""Paper 000 on real Linux TCP: ``xltcp reproduce byun2016 --engine emu``.

Every configuration of both preset families runs through the emulator
(Linux ``reno`` across the simulator's own 802.15.4 hop, primary user and
detectors in real time), seed by seed and one run at a time (the emulator
needs the machine's cores to keep time), and in the simulator on the same
scenario, seed and duration. ``emu.md`` and ``emu.csv`` put the two engines
side by side, with a third column: the simulator doing what Linux always
does (:data:`AS_LINUX`): Linux's RTO rule (``tcp.min_rto_mode = "linux"``:
RTO = SRTT + max(4·RTTVAR, min_rto), where RFC 6298 takes max(SRTT +
4·RTTVAR, min_rto)), which decides how long a sender waits after each
primary-user period, its RTT samples from every ACK of data never resent
(``tcp.rtt_sampling = "every_ack"``, which ends a timeout's back-off
sooner), its Proportional Rate Reduction in SACK recovery by its own
rules (``tcp.prr``, ``tcp.prr_variant = "linux"``) and its undo of a
timeout whose ACK echoes an original's timestamp
(``tcp.eifel``, acting only with timestamps, which the presets leave
off), Linux's own F-RTO where a scenario turns F-RTO on
(``tcp.frto_variant = "linux"``; the presets leave it off), its RTT
estimator (``tcp.rtt_estimator = "linux"``: the variance term held at its
largest for a round trip), its slow start by every byte acknowledged
(``tcp.abc_limit = 0``) and its ssthresh from cwnd
(``tcp.ssthresh_from = "cwnd"``). None of them can be switched off in
Linux. With SACK the list adds RACK (which Linux 6.17 and later run
whatever ``net.ipv4.tcp_recovery`` says) and DSACK (Linux's default); the
tail loss probe runs in both engines as the scenario says (off in the
presets). Its hosts also take the stack latency of the emulator's Linux
hosts (:data:`EMULATED_HOSTS`: 20 µs plus up to 60 µs more before a
segment leaves), without which the simulator's answer a segment in the
instant it arrives and, on the 802.15.4 hop, keep each host's backoff
slots at one offset from its peer's.

TCP-LR commands the sender's TCP to retransmit a range, which Linux cannot
be told, so the emulator refuses it. Its two configurations run instead as
the substitute the emulator documents (:data:`TCP_LR_SUBSTITUTE`): the
base station's gap reports as SACK ACKs that Linux's own recovery acts on
(``local_recovery = "bs_reports"``, with SACK on), in both engines, so the
columns compare like with like; the simulator's real TCP-LR (the preset as
shipped) is run beside them for reference, in its own table of ``emu.md``
and as engine ``sim_tcp_lr`` in ``emu.csv``. Any other configuration the
emulator refuses is listed with the emulator's own reason instead of a row.

Runs are shorter than the paper's 600 s by default (``DEFAULT_DURATION``,
a ``--set sim.duration=...`` replaces it) and use seeds 1-3 unless told.
A run already in the results folder (its ``summary.json`` written) is not
run again.

A handful of seeds is a small sample of a family whose runs spread
widely (on the paper family, 10 % frame loss each way and no MAC
retries, one seed's run of NewReno delivers 25 packets in the simulator
and the next 216): ``emu.md`` also gives the simulator as Linux over
seeds 1-:data:`POPULATION` of each configuration (run in memory, no
files), Linux's mean against it with Welch's interval, and where
Linux's mean falls among those runs.

The same seed does not make the same run on Linux (the emulator draws each
frame's loss in the order frames reach the air, and a real TCP's timing
differs by milliseconds from one run to the next), so ``repeats`` runs
each configuration and seed that many times on the emulator (the
simulator, deterministic, once): the emulator's figures of a seed are then
the mean of its runs, ``emu.csv`` keeps every run (engines ``emu_run1``,
``emu_run2``, ...) and ``emu.md`` adds the spread between them.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from xltcp import _core, runner
from xltcp.reproduce import byun2016
from xltcp.stats import mean_ci, welch_ci

#: Seeds when none are given.
DEFAULT_SEEDS: tuple[int, ...] = (1, 2, 3)

#: Emulated seconds per run when the overrides do not set ``sim.duration``.
DEFAULT_DURATION = "60s"

#: Seeds 1..POPULATION of the simulator as Linux, beside the emulator's few.
POPULATION = 100

#: The overrides that give the simulator what Linux always does (the
#: core's list: RTO rule and estimator, every-ACK samples, PRR, Eifel,
#: Linux's F-RTO, unlimited byte counting in slow start, ssthresh from cwnd,
#: SACK recovery when SACK is negotiated).
AS_LINUX: tuple[str, ...] = tuple(_core.AS_LINUX)

#: The stack latency of the emulator's Linux hosts (the core's list:
#: ``[hosts] stack_delay`` and ``stack_jitter``), which the simulator as
#: Linux takes beside :data:`AS_LINUX`: its hosts otherwise answer a
#: segment in the instant it arrives, which on the 802.15.4 hop keeps a
#: host's backoff slots at a fixed offset from its peer's.
EMULATED_HOSTS: tuple[str, ...] = tuple(_core.EMULATED_HOSTS)

#: Everything the simulator as Linux is given.
SIM_AS_LINUX: tuple[str, ...] = (*AS_LINUX, *EMULATED_HOSTS)

#: The engines of a row: (key, column title).
ENGINES: tuple[tuple[str, str], ...] = (
    ("sim", "sim"),
    ("sim_as_linux", "sim as Linux"),
    ("emu", "emu"),
)

#: The configurations the emulator refuses that run as a substitute.
SUBSTITUTED: tuple[str, ...] = ("tcp-lr", "tcp-lr-cr")

#: What runs in both engines instead of TCP-LR: the BS's gap reports as
#: SACK ACKs, acted on by the sender's own SACK recovery (Linux's, and the
#: simulator's RFC 6675 recovery, so that both read the SACK blocks).
TCP_LR_SUBSTITUTE: tuple[str, ...] = (
    'schemes.local_recovery="bs_reports"',
    "tcp.sack=true",
    'tcp.recovery="sack"',
)

#: How the substituted rows are marked.
SUBSTITUTE_MARK = "TCP-LR → BS reports + SACK on Linux"

#: The extra engine of a substituted row: the simulator's real TCP-LR.
SHIPPED = ("sim_tcp_lr", "sim, TCP-LR as shipped")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Config:
    """One configuration of a family, why the emulator refuses it as
    shipped, and the overrides it runs with instead (empty: as shipped)."""

    family: str
    name: str
    label: str
    path: Path
    refusal: str | None
    substitute: tuple[str, ...] = ()
    shipped_refusal: str | None = None

    @property
    def title(self) -> str:
        """The row's title in ``emu.md`` (``label (family)``), marked when
        it runs a substitute."""
        base = f"{self.label} ({self.family})"
        return f"{base}: {SUBSTITUTE_MARK}" if self.substitute else base


def with_duration(overrides: Sequence[str]) -> list[str]:
    """The overrides, with :data:`DEFAULT_DURATION` unless they set one."""
    keys = {o.partition("=")[0].strip() for o in overrides}
    if "sim.duration" in keys:
        return list(overrides)
    return [f'sim.duration="{DEFAULT_DURATION}"', *overrides]


def plan(overrides: Sequence[str] = ()) -> list[Config]:
    """Every configuration of both families, each with the emulator's
    refusal (``None``: it runs); TCP-LR's, which the emulator refuses,
    run as :data:`TCP_LR_SUBSTITUTE` (their refusal is then the
    substitute's, ``None`` when it runs, and ``shipped_refusal`` keeps
    the emulator's reason for TCP-LR itself)."""
    out = []
    for family, _ in byun2016.FAMILIES:
        for name, label in byun2016.CONFIGS:
            path = byun2016.preset(name, family)
            refusal = _core.emu_refusal(str(path), list(overrides))
            if refusal is not None and name in SUBSTITUTED:
                sub = [*overrides, *TCP_LR_SUBSTITUTE]
                out.append(
                    Config(
                        family,
                        name,
                        label,
                        path,
                        _core.emu_refusal(str(path), sub),
                        TCP_LR_SUBSTITUTE,
                        refusal,
                    )
                )
            else:
                out.append(Config(family, name, label, path, refusal))
    return out


def total_runs(seeds: int, overrides: Sequence[str] = (), repeats: int = 1) -> int:
    """Emulator runs :func:`reproduce` makes (each seed's simulator runs
    go with the first)."""
    configs = sum(1 for c in plan(with_duration(overrides)) if c.refusal is None)
    return seeds * configs * repeats


def population_steps(overrides: Sequence[str] = (), population: int = POPULATION) -> int:
    """Progress steps of :func:`sim_population` (one per configuration)."""
    if population <= 0:
        return 0
    return sum(1 for c in plan(with_duration(overrides)) if c.refusal is None)


def emu_folder(out: Path, where: str, run: int) -> Path:
    """Where the emulator's ``run``-th run (from 1) of a configuration and
    seed goes: ``emu/`` for the first, ``emu-run<k>/`` for the others."""
    return out / ("emu" if run == 1 else f"emu-run{run}") / where


def mean_metrics(runs: Sequence[dict]) -> dict:
    """The mean of each metric over the runs where it is known (NaN where
    none is)."""
    out = {}
    for key in runs[0]:
        known = [r[key] for r in runs if not math.isnan(r[key])]
        out[key] = sum(known) / len(known) if known else math.nan
    return out


def _done(folder: Path, hosts: bool = False) -> dict | None:
    """The summary of a run already written in ``folder``, if any and if
    its hosts had a stack latency exactly when ``hosts`` says they should
    (a run of the simulator as Linux from before it had one is run again)."""
    done = folder / "summary.json"
    if not done.is_file():
        return None
    summary = json.loads(done.read_text())
    if ("hosts" in summary.get("scenario", {})) != hosts:
        return None
    return summary


def _metrics(summary: dict) -> dict:
    """A run's metrics; on the emulator, TCP's retransmissions are the
    sender's kernel count (iperf3's report, or its socket read at the end
    when iperf3 gave none), unknown (NaN) when neither was had
    (``emu.retransmissions_from`` says ``unknown``)."""
    m = byun2016._flow_metrics(summary)
    emu = summary.get("emu") or {}
    late = emu.get("lateness") or {}
    m["p99_us"] = float(late.get("p99_us", math.nan))
    if (emu.get("retransmissions_from") or [None])[0] == "unknown":
        m["tcp_rtx"] = m["retransmissions"] = math.nan
    return m


def run(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    repeats: int = 1,
) -> tuple[list[dict], list[Config]]:
    """Both engines on every configuration the emulator runs (TCP-LR's as
    its substitute, beside the simulator's TCP-LR as shipped), the
    emulator ``repeats`` times per seed; the per-seed rows and the refused
    configurations."""
    overrides = with_duration(overrides)
    rows, refused = [], []
    for c in plan(overrides):
        if c.refusal is not None:
            refused.append(c)
            continue
        for seed in seeds:
            name = f"{c.name}-as-bs-reports" if c.substitute else c.name
            where = f"{c.family}-{name}/seed-{seed}"
            sets = [*overrides, *c.substitute]
            sim_dir = out / "sim" / where
            sim = _done(sim_dir) or runner.run_one(c.path, seed, sim_dir, sets)
            lin_dir = out / "sim-as-linux" / where
            lin = _done(lin_dir, hosts=True) or runner.run_one(
                c.path, seed, lin_dir, [*sets, *SIM_AS_LINUX]
            )
            emu_runs = []
            for k in range(1, repeats + 1):
                emu_dir = emu_folder(out, where, k)
                emu = _done(emu_dir)
                if emu is None:
                    emu_dir.mkdir(parents=True, exist_ok=True)
                    text = _core.emu(str(c.path), seed, str(emu_dir), sets, None, None, None)
                    emu = json.loads(text)
                emu_runs.append(_metrics(emu))
                if progress:
                    again = f" run {k}" if repeats > 1 else ""
                    progress(f"{c.family} {c.label} seed {seed}{again}")
            row = {
                "family": c.family,
                "config": c.name,
                "label": c.label,
                "seed": seed,
                "substitute": list(c.substitute),
                "sim": _metrics(sim),
                "sim_as_linux": _metrics(lin),
                "emu": emu_runs[0] if repeats == 1 else mean_metrics(emu_runs),
            }
            if repeats > 1:
                row["emu_runs"] = emu_runs
            if c.substitute:
                ref_dir = out / "sim" / f"{c.family}-{c.name}/seed-{seed}"
                ref = _done(ref_dir) or runner.run_one(c.path, seed, ref_dir, overrides)
                row[SHIPPED[0]] = _metrics(ref)
            rows.append(row)
    return rows, refused


def _key(family: str, config: str) -> str:
    return f"{family} {config}"


def sim_population(
    overrides: Sequence[str] = (),
    seeds: int = POPULATION,
    progress: Progress | None = None,
) -> dict[str, list[float]]:
    """Delivered packets of the simulator as Linux on seeds 1..``seeds`` of
    every configuration the emulator runs (the substitute's overrides
    where it runs one), keyed ``"family config"``; in memory, no files."""
    overrides = with_duration(overrides)
    out = {}
    for c in plan(overrides):
        if c.refusal is not None:
            continue
        sets = [*overrides, *c.substitute, *SIM_AS_LINUX]
        out[_key(c.family, c.name)] = [
            _metrics(runner.run_one(c.path, seed, None, sets))["packets"]
            for seed in range(1, seeds + 1)
        ]
        if progress:
            progress(f"{c.family} {c.label}: the simulator as Linux, seeds 1-{seeds}")
    return out


#: Columns compared: (key, title, format).
COMPARED: tuple[tuple[str, str, str], ...] = (
    ("packets", "delivered packets", "{:.0f}"),
    ("rto_count", "RTOs", "{:.1f}"),
    ("tcp_rtx", "TCP rtx", "{:.0f}"),
)


def _known(values: Sequence[float]) -> list[float]:
    return [v for v in values if not math.isnan(v)]


def _text(values: Sequence[float], fmt: str) -> str:
    """Mean ± 95 % half width of the known values; ``(n of N)`` when some
    are unknown, ``n/a`` when none is known."""
    known = _known(values)
    if not known:
        return "n/a"
    mean, half = mean_ci(known, 0.95)
    text = fmt.format(mean) if math.isnan(half) else f"{fmt.format(mean)} ± {fmt.format(half)}"
    if len(known) < len(values):
        text += f" ({len(known)} of {len(values)})"
    return text


def _gap(emu: Sequence[float], sim: Sequence[float]) -> str:
    """emu / sim - 1 over the seeds where both are known."""
    pairs = [(a, b) for a, b in zip(emu, sim, strict=True) if not (math.isnan(a) or math.isnan(b))]
    if not pairs:
        return ""
    a, b = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    return "" if b == 0 else f"{100 * (a - b) / b:+.0f}%"


def _csv_label(r: dict) -> str:
    """A row's configuration in ``emu.csv``, marked when it ran the
    substitute."""
    return f"{r['label']}: {SUBSTITUTE_MARK}" if r.get("substitute") else r["label"]


def write(
    rows: list[dict],
    refused: list[Config],
    out: Path,
    seeds: Sequence[int],
    population: dict[str, list[float]] | None = None,
) -> None:
    """``emu.csv`` (a row per configuration, seed and engine; a substituted
    configuration's simulator TCP-LR as engine ``sim_tcp_lr``; with
    repeated emulator runs each of them too, engines ``emu_run1``, ...)
    and ``emu.md`` (with ``population``, :func:`sim_population`'s runs,
    its table of them too)."""
    out.mkdir(parents=True, exist_ok=True)
    keys = [k for k, _, _ in COMPARED] + ["efficiency", "lr_rtx", "mac_rtx", "lr_reports", "p99_us"]
    with open(out / "emu.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["family", "config", "seed", "engine", *keys])
        for r in rows:
            engines = [e for e, _ in ENGINES] + ([SHIPPED[0]] if SHIPPED[0] in r else [])
            lines = [(e, r[e]) for e in engines]
            lines += [(f"emu_run{k}", m) for k, m in enumerate(r.get("emu_runs", []), 1)]
            for engine, metrics in lines:
                values = [metrics[k] for k in keys]
                w.writerow(
                    [r["family"], _csv_label(r), r["seed"], engine]
                    + ["" if math.isnan(v) else f"{v:.6g}" for v in values]
                )
    lines = [
        "# Byun 2016 (paper 000) on real Linux TCP: the emulator beside the simulator",
        "",
        f"Seeds {', '.join(map(str, seeds))}; mean ± 95 % confidence half width; "
        "Linux `reno` through the emulator (the simulator's 802.15.4 hop, primary user "
        "and detectors in real time) against the simulator's NewReno on the same "
        "scenario, seed and duration, as shipped and doing what Linux always does "
        f"({', '.join(s.replace('tcp.', '') for s in AS_LINUX)}), its hosts "
        "with the emulated hosts' stack latency "
        f"({', '.join(s.replace('hosts.', '') for s in EMULATED_HOSTS)}). "
        "gap = emulator / simulator - 1, against each.",
        "",
        "| configuration | "
        + " | ".join(" | ".join(f"{e} {t}" for _, e in ENGINES) + " | gaps" for _, t, _ in COMPARED)
        + " | emu lateness p99 (µs) |",
        "|---|" + ("---|" * (len(ENGINES) + 1)) * len(COMPARED) + "---|",
    ]
    for family, _ in byun2016.FAMILIES:
        for name, label in byun2016.CONFIGS:
            mine = [r for r in rows if r["family"] == family and r["config"] == name]
            if not mine:
                continue
            cells = []
            for key, _, fmt in COMPARED:
                values = {e: [r[e][key] for r in mine] for e, _ in ENGINES}
                cells += [_text(values[e], fmt) for e, _ in ENGINES]
                emu = values["emu"]
                gaps = [_gap(emu, values[e]) for e in ("sim", "sim_as_linux")]
                cells.append(", ".join(g for g in gaps if g))
            p99 = [r["emu"]["p99_us"] for r in mine if not math.isnan(r["emu"]["p99_us"])]
            late = _text(p99, "{:.0f}") if p99 else ""
            title = f"{label} ({family})"
            if mine[0].get("substitute"):
                title += f": {SUBSTITUTE_MARK}"
            lines.append(f"| {title} | " + " | ".join(cells) + f" | {late} |")
    lines += _paired_lines(rows)
    lines += _population_lines(rows, population or {})
    lines += _spread_lines(rows, seeds)
    shipped = [r for r in rows if SHIPPED[0] in r]
    if shipped:
        lines += [
            "",
            f"{SUBSTITUTE_MARK}: Linux cannot be told to retransmit a range, so the rows "
            'above marked so run `local_recovery = "bs_reports"` with SACK '
            f"({', '.join(f'`{o}`' for o in TCP_LR_SUBSTITUTE)}) in every column. "
            "The simulator's TCP-LR as shipped, on the same seeds and duration, for "
            "reference, and the reports the base station sent in the substitute's runs:",
            "",
            "| configuration | "
            + " | ".join(f"TCP-LR (sim) {t}" for _, t, _ in COMPARED)
            + " | BS reports sent: sim / emu |",
            "|---|" + "---|" * (len(COMPARED) + 1),
        ]
        for family, _ in byun2016.FAMILIES:
            for name, label in byun2016.CONFIGS:
                mine = [r for r in shipped if r["family"] == family and r["config"] == name]
                if not mine:
                    continue
                cells = [_text([r[SHIPPED[0]][k] for r in mine], fmt) for k, _, fmt in COMPARED]
                cells.append(
                    " / ".join(
                        _text([r[e]["lr_reports"] for r in mine], "{:.1f}") for e in ("sim", "emu")
                    )
                )
                lines.append(f"| {label} ({family}) | " + " | ".join(cells) + " |")
    if refused:
        lines += ["", "Not run on Linux TCP (the emulator's reasons):", ""]
        by_reason: dict[str, list[str]] = {}
        for c in refused:
            by_reason.setdefault(_reason(c.refusal or ""), []).append(f"{c.label} ({c.family})")
        for why, names in by_reason.items():
            lines.append(f"- {', '.join(names)}: {why}")
    (out / "emu.md").write_text("\n".join(lines) + "\n")


def _paired_lines(rows: list[dict]) -> list[str]:
    """``emu.md``'s table of the two engines paired by seed: for each
    configuration, Linux's delivered packets less the simulator-as-Linux's
    on the same seed, the mean of these differences with its 95 % interval
    (Student t over the seeds), that mean against the simulator's, the
    seeds on which Linux delivered more, and whether the interval leaves
    out zero (the engines told apart) or not. Needs two seeds or more."""
    lines = [
        "",
        "Paired by seed, delivered packets: Linux less the simulator as Linux on "
        "the same seed, the mean difference with its 95 % interval, that mean "
        "against the simulator's, and the seeds on which Linux delivered more. "
        "Where the interval holds zero these seeds do not tell the engines apart.",
        "",
        "| configuration | seeds | mean difference (packets) | against sim as Linux "
        "| Linux more on | told apart |",
        "|---|---|---|---|---|---|",
    ]
    any_row = False
    for family, _ in byun2016.FAMILIES:
        for name, label in byun2016.CONFIGS:
            pairs = [
                (r["emu"]["packets"], r["sim_as_linux"]["packets"])
                for r in rows
                if r["family"] == family and r["config"] == name
            ]
            pairs = [(e, s) for e, s in pairs if not (math.isnan(e) or math.isnan(s))]
            if len(pairs) < 2:
                continue
            any_row = True
            mean, half = mean_ci([e - s for e, s in pairs], 0.95)
            base = sum(s for _, s in pairs) / len(pairs)
            against = f"{100 * mean / base:+.0f} %" if base > 0 else ""
            more = sum(1 for e, s in pairs if e > s)
            apart = "yes" if abs(mean) > half else "no"
            lines.append(
                f"| {label} ({family}) | {len(pairs)} | {mean:+.0f} ± {half:.0f} | {against} "
                f"| {more} of {len(pairs)} | {apart} |"
            )
    return lines if any_row else []


def _population_lines(rows: list[dict], population: dict[str, list[float]]) -> list[str]:
    """``emu.md``'s table of the simulator as Linux over many seeds: its
    mean delivered packets with the 95 % interval, its mean over the
    table's seeds alone, Linux's mean, Linux against the many-seed mean
    with Welch's 95 % interval of the difference (told apart when it
    leaves out zero), and the share of the simulator's runs below
    Linux's mean."""
    table = []
    for family, _ in byun2016.FAMILIES:
        for name, label in byun2016.CONFIGS:
            many = population.get(_key(family, name))
            mine = [r for r in rows if r["family"] == family and r["config"] == name]
            linux = _known([r["emu"]["packets"] for r in mine])
            if not many or not linux:
                continue
            few = _known([r["sim_as_linux"]["packets"] for r in mine])
            mean, half = mean_ci(many, 0.95)
            diff, whalf = welch_ci(linux, many, 0.95)
            lin = sum(linux) / len(linux)
            against = f"{100 * diff / mean:+.0f} %" if mean > 0 else ""
            apart = "" if math.isnan(whalf) else ("yes" if abs(diff) > whalf else "no")
            width = "" if math.isnan(whalf) else f" ± {whalf:.0f}"
            spread = "" if math.isnan(half) else f" ± {half:.0f}"
            few_text = f"{sum(few) / len(few):.0f} ({len(few)})" if few else "n/a"
            below = sum(1 for v in many if v < lin) / len(many)
            table.append(
                f"| {label} ({family}) | {mean:.0f}{spread} "
                f"| {few_text} | {lin:.0f} ({len(linux)}) "
                f"| {diff:+.0f}{width} ({against}) | {apart} | {100 * below:.0f} % |"
            )
    if not table:
        return []
    n = max(len(v) for v in population.values())
    return [
        "",
        f"The simulator as Linux over seeds 1-{n} of each configuration, against "
        "Linux's runs: the simulator's mean with its 95 % interval, its mean over "
        "the seeds above alone, Linux's mean, Linux less the simulator's many-seed "
        "mean with Welch's 95 % interval (told apart where it leaves out zero), and "
        "the share of the simulator's runs that delivered less than Linux's mean.",
        "",
        f"| configuration | sim as Linux, seeds 1-{n} | sim as Linux, seeds above (n) "
        "| Linux (n) | Linux less sim, seeds 1-" + f"{n} | told apart | sim runs below Linux |",
        "|---|---|---|---|---|---|---|",
        *table,
    ]


def _spread_lines(rows: list[dict], seeds: Sequence[int]) -> list[str]:
    """With repeated emulator runs, ``emu.md``'s table of them: each run's
    delivered packets per seed, and the spread (max - min over the mean of
    the seed's runs), averaged over the seeds."""
    repeated = [r for r in rows if len(r.get("emu_runs", [])) > 1]
    if not repeated:
        return []
    runs = len(repeated[0]["emu_runs"])
    lines = [
        "",
        f"The emulator ran each configuration and seed {runs} times (the emulator's "
        "figures above are the mean of a seed's runs). Delivered packets of each run, "
        "and the spread: (max - min) / mean of a seed's runs, averaged over the seeds.",
        "",
        "| configuration | " + " | ".join(f"seed {s}" for s in seeds) + " | spread |",
        "|---|" + "---|" * (len(seeds) + 1),
    ]
    for family, _ in byun2016.FAMILIES:
        for name, label in byun2016.CONFIGS:
            mine = {r["seed"]: r for r in repeated if r["family"] == family and r["config"] == name}
            if not mine:
                continue
            cells, spreads = [], []
            for s in seeds:
                got = [m["packets"] for m in mine[s]["emu_runs"]] if s in mine else []
                cells.append(", ".join(f"{p:.0f}" for p in got))
                mean = sum(got) / len(got) if got else 0.0
                if mean > 0:
                    spreads.append((max(got) - min(got)) / mean)
            spread = f"{100 * sum(spreads) / len(spreads):.0f} %" if spreads else ""
            lines.append(f"| {label} ({family}) | " + " | ".join(cells) + f" | {spread} |")
    return lines


def _reason(refusal: str) -> str:
    """The scheme-specific part of the emulator's refusal (its first line
    only says that host agents would have to run inside Linux TCP), on one
    line."""
    lines = [line.strip() for line in refusal.splitlines() if line.strip()]
    return " ".join(lines[1:] if len(lines) > 1 else lines)


def reproduce(
    seeds: Sequence[int],
    out: Path,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    repeats: int = 1,
    population: int = POPULATION,
) -> dict:
    """Run and write; returns what ``emu.md`` says, as a dict (no paper
    target is checked on the emulator: ``checks`` is empty). ``population``
    seeds of the simulator as Linux go beside the emulator's few (0: none)."""
    out = Path(out)
    rows, refused = run(seeds, out, overrides, progress, repeats)
    many = sim_population(overrides, population, progress) if population > 0 else {}
    write(rows, refused, out, seeds, many)
    report = {
        "paper": "byun2016",
        "engine": "emu",
        "seeds": list(seeds),
        "repeats": repeats,
        "overrides": with_duration(overrides),
        "rows": rows,
        "refused": {f"{c.family} {c.name}": c.refusal for c in refused},
        "substituted": {
            f"{c.family} {c.name}": {"overrides": list(c.substitute), "why": c.shipped_refusal}
            for c in plan(with_duration(overrides))
            if c.substitute and c.refusal is None
        },
        "population": many,
        "checks": [],
    }
    (out / "reproduce-emu.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
