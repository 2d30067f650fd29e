"""The scenario reference (``docs/scenario-reference.md``) and the JSON Schema
for editors (``xltcp/scenario.schema.json``), both made from one source: the
catalogue the scenario loader gives of itself (``_core.catalog``: every key
each table reads, what the loader says it expects, the allowed values, the
default), explored from the shipped scenarios, and what each key means
(``KEY_MEANINGS`` below). A key added to the loader shows up in both once a
shipped scenario reaches its table; a test fails when it has no meaning or
when the committed files are stale. The ``[[agent]]`` keys are split by
scheme, each scheme's found by loading the shipped scenarios with that
scheme's entries alone. Regenerate them with::

    python3 -m xltcp.reference
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import tomli_w
import tomllib

import xltcp

#: Where the reference and the schema live, relative to the repository.
REFERENCE = Path("docs") / "scenario-reference.md"
SCHEMA = Path("python") / "xltcp" / "scenario.schema.json"

#: Kinds of value, recognised from the loader's words: (start of its
#: expectation, type, units or form, JSON Schema).
KINDS: list[tuple[str, str, str, dict]] = [
    ("a duration", "duration", "ns, us, ms, s, min, h", {"type": "string"}),
    ("a rate", "rate", "bps, kbps, Mbps, Gbps", {"type": "string"}),
    (
        "a size",
        "size",
        "B, kB, KiB, MB, MiB, ... (or an integer of bytes)",
        {"type": ["string", "integer"]},
    ),
    ("a queue limit", "queue limit", "p (packets), or a size", {"type": "string"}),
    ("a period", "period", "exp(MEAN) or a fixed duration", {"type": "string"}),
    (
        "a probability",
        "probability",
        "0 to 1, or a percentage string",
        {"type": ["number", "string"]},
    ),
    ("true or false", "boolean", "", {"type": "boolean"}),
    (
        "an integer seed",
        "seed",
        "0 to 2^64-1 (a string of digits above 2^63-1)",
        {"type": ["integer", "string"]},
    ),
    ("an integer", "integer", "", {"type": "integer"}),
    ("a number", "number", "", {"type": "number"}),
    ("a finite number", "number", "", {"type": "number"}),
    ("one of", "string", "", {"type": "string"}),
    ("a string", "string", "", {"type": "string"}),
    ("a list", "list", "", {"type": "array"}),
]


def _shipped_files() -> list[Path]:
    folder = xltcp.scenarios_dir()
    files = [xltcp.shipped_scenario(n) for n in xltcp.shipped_names()]
    return [f if f.is_absolute() else folder / f for f in files]


def catalogue(files: list[Path] | None = None) -> list[dict]:
    """Every key the loader reads, explored from ``files`` (default: the
    shipped scenarios, and each scheme placed alone: see ``scheme_probes``)."""
    from xltcp import _core

    if files is None:
        with tempfile.TemporaryDirectory() as tmp:
            probes = [f for fs in scheme_probes(Path(tmp)).values() for f in fs]
            return json.loads(_core.catalog([str(f) for f in _shipped_files() + probes]))
    return json.loads(_core.catalog([str(f) for f in files]))


#: The schemes no shipped scenario places with ``[[agent]]`` (paper 000's
#: presets switch theirs on in ``[schemes]``): a shipped scenario whose hop
#: they run on, and where they sit.
SCHEME_BASES: dict[str, tuple[str, str]] = {
    "cr_aware": ("byun2016/newreno", "hosts"),
    "lr_bs": ("byun2016/newreno", "bs"),
    "lr_sender": ("byun2016/newreno", "hosts"),
}

#: Keys of an ``[[agent]]`` entry that name a file, relative to the scenario.
_AGENT_FILE_KEYS = ("identity", "trusted")


def _agents_of(path: Path) -> tuple[list[dict], Path]:
    """The ``[[agent]]`` entries of a scenario file after ``extends``, and
    the folder the file that wrote them is in."""
    seen = set()
    while path not in seen:
        seen.add(path)
        data = tomllib.loads(path.read_text())
        if "agent" in data:
            return data["agent"], path.parent
        if "extends" not in data:
            break
        path = (path.parent / data["extends"]).resolve()
    return [], path.parent


def scheme_probes(folder: Path) -> dict[str, list[Path]]:
    """For each scheme, scenario files in ``folder`` that place it alone:
    each shipped scenario with that scheme's entries and no others (files
    they name made absolute), the first of them again with bare entries, and
    for ``SCHEME_BASES`` one entry on its base."""
    probes: dict[str, list[Path]] = {}
    first: dict[str, tuple[Path, list[dict]]] = {}

    def write(scheme: str, base: Path, entries: list[dict]) -> None:
        path = folder / f"{scheme}-{len(probes.get(scheme, []))}.toml"
        path.write_text(tomli_w.dumps({"extends": str(base), "agent": entries}))
        probes.setdefault(scheme, []).append(path)

    for file in _shipped_files():
        entries, where = _agents_of(file)
        for scheme in dict.fromkeys(e.get("scheme") for e in entries):
            mine = [dict(e) for e in entries if e.get("scheme") == scheme]
            for e in mine:
                for key in _AGENT_FILE_KEYS:
                    if isinstance(e.get(key), str):
                        e[key] = str((where / e[key]).resolve())
            write(scheme, file, mine)
            first.setdefault(scheme, (file, mine))
    # Each scheme also with bare entries (only `scheme` and `at`) on the first
    # file that places it, so that the keys the presets all set show their
    # defaults too.
    for scheme, (file, entries) in list(first.items()):
        write(scheme, file, [{"scheme": scheme, "at": e.get("at", "hosts")} for e in entries])
    for scheme, (name, at) in SCHEME_BASES.items():
        if scheme not in probes:
            write(scheme, xltcp.shipped_scenario(name), [{"scheme": scheme, "at": at}])
    return probes


def scheme_catalogues() -> dict[str, list[dict]]:
    """Each scheme's ``[[agent]]`` keys, from the files that place it alone."""
    from xltcp import _core

    with tempfile.TemporaryDirectory() as tmp:
        probes = scheme_probes(Path(tmp))
        return {
            scheme: [
                e
                for e in json.loads(_core.catalog([str(f) for f in files]))
                if e["table"] == "agent[]"
            ]
            for scheme, files in probes.items()
        }


#: What each key means, by table and key. The table is written without
#: ``[]`` and stands for its variants: ``wireless`` for ``[wireless]`` and
#: each ``[[wireless]]`` entry, ``wireless.loss`` for both directions,
#: ``wireless.snr`` also for a ``[[wireless.station]]`` entry's ``snr``.
#: ``agent.<scheme>.<key>`` says what a key shared by several schemes means
#: for one of them. The wording follows the loader's types
#: (``crates/xltcp-core/src/scenario/model.rs``) and the schemes' module
#: docs; a key the loader reads with no meaning here fails a test.
KEY_MEANINGS: dict[str, str] = {
    "name": "A label for reports and the default results folder (default: the file's stem).",
    # [sim]
    "sim.duration": "Simulated time of a run.",
    "sim.seed": "The seed when the command line gives none; every random process draws "
    "from its own stream derived from (seed, process name).",
    "sim.sample_interval": "Period of the per-flow time series (`timeseries/<flow>.csv`).",
    "sim.threads": "1 or 2: a run on two threads, cut at the wired access links, which "
    "advance in windows of `[wired] delay` (the simulator only; see docs/architecture.md). "
    "Downlink flows give the one-thread results; uplink flows another history, as "
    "likely. It writes `summary.json` only (set `output.timeseries = false`), without "
    "`rto_causes`, and refuses agents, `[hosts]` latencies, wired jitter and pcaps.",
    # [tcp]
    "tcp.profile": 'Which reference TCP follows where implementations differ: `"rfc"` '
    '(the RFCs) or `"ns3"` (ns-3 3.44\'s TcpNewReno/TcpSocketBase).',
    "tcp.cc": 'Congestion control: `"newreno"` (RFC 5681), `"cubic"` (RFC 9438), '
    '`"westwood"` (Westwood+), `"vegas"` or `"bbr"` (BBR v1, which paces its segments; '
    "see docs/tcp.md), in the simulator and (as Linux's module of that name, `reno` for "
    "newreno) in the emulator.",
    "tcp.hystart": "HyStart++ (RFC 9406) in CUBIC's first slow start: leave slow start "
    "when the RTT rises, through a conservative phase (default false; Linux's classic "
    'HyStart with `cubic_variant = "linux"`).',
    "tcp.recovery": 'Loss recovery: `"sack"` (RFC 6675; NewReno when the peer does not '
    'permit SACK) or `"newreno"` (RFC 6582).',
    "tcp.sack": "Offer SACK-permitted (RFC 2018).",
    "tcp.timestamps": "Offer the timestamp option (RFC 7323).",
    "tcp.window_scale": "Offer window scaling (RFC 7323).",
    "tcp.mss": "Bytes of payload per segment (64 to 65495).",
    "tcp.initial_window": "Initial congestion window, in segments (RFC 6928).",
    "tcp.abc_limit": "RFC 3465's L: the most SMSS one ACK adds to cwnd in slow start "
    "(1: RFC 5681; 0: all it acknowledges, up to ssthresh, as Linux).",
    "tcp.limited_transmit": "Limited Transmit (RFC 3042).",
    "tcp.delayed_ack": "The receiver ACKs at least every this many full segments "
    "(1: no delayed ACKs).",
    "tcp.delayed_ack_timeout": "The delayed-ACK timer (below 500 ms, RFC 1122).",
    "tcp.delayed_ack_ato": "The delayed-ACK timer follows the arrivals as Linux's does "
    "(40 ms and up, at most the SRTT and `delayed_ack_timeout`).",
    "tcp.initial_rto": "RTO before the first RTT sample (RFC 6298).",
    "tcp.min_rto": "Lower bound of the RTO (RFC 6298 (2.4)).",
    "tcp.max_rto": "Upper bound of the RTO and its back-off.",
    "tcp.min_rto_mode": 'Where `min_rto` applies: `"rfc6298"` (RTO = max(SRTT + 4 RTTVAR, '
    'min_rto)) or `"linux"` (RTO = SRTT + max(4 RTTVAR, min_rto)).',
    "tcp.rtt_estimator": 'How SRTT and the RTO\'s variance term are kept: `"rfc6298"` or '
    '`"linux"` (the variance term held at its largest for a round trip, at least min_rto).',
    "tcp.rtt_sampling": 'Where RTT samples come from: `"timed"` (one segment timed at a time, '
    'Karn\'s rule) or `"every_ack"` (every ACK of data never resent, as Linux).',
    "tcp.ssthresh_from": 'What a loss halves into ssthresh: `"flight_size"` (RFC 5681) or '
    '`"cwnd"` (as Linux\'s Reno).',
    "tcp.frto": "F-RTO (RFC 5682) after a timeout: detects spurious timeouts and undoes them.",
    "tcp.frto_variant": 'Which F-RTO: `"rfc5682"` (basic without SACK, SACK-enhanced with '
    'it) or `"linux"` (Linux\'s).',
    "tcp.rack": "RACK loss detection (RFC 8985 §6) in SACK recovery.",
    "tcp.rack_variant": 'Whose RACK: `"rfc8985"` or `"linux"` (Linux\'s round trip, its '
    "DSACK rule, and fast recovery at once for a resent segment found lost again).",
    "tcp.tlp": "Tail Loss Probe (RFC 8985 §7), with SACK.",
    "tcp.prr": "Proportional Rate Reduction (RFC 6937) in SACK recovery "
    "(off: RFC 6675's cwnd = ssthresh).",
    "tcp.prr_variant": 'Which PRR rules: `"rfc6937"` (PRR-SSRB, RecoverFS = FlightSize) or '
    '`"linux"` (Linux\'s `tcp_cwnd_reduction`, the rules RFC 9937 kept).',
    "tcp.cubic_variant": 'Whose CUBIC congestion avoidance and ssthresh: `"rfc9438"` (default) or '
    '`"linux"` (Linux\'s `bictcp_update` and `bictcp_recalc_ssthresh` in whole segments: '
    "the Reno estimate restarted with every epoch and never switched to alpha = 1; with "
    "`hystart`, Linux's classic HyStart in place of HyStart++).",
    "tcp.eifel": "Eifel detection of spurious timeouts by timestamps (RFC 3522), undone "
    "as F-RTO undoes them.",
    "tcp.dsack": "The receiver reports duplicate segments (DSACK, RFC 2883), and RACK "
    "widens its reordering window on them.",
    "tcp.dsack_undo": "Undo a SACK recovery or a timeout whose every retransmission came "
    "back as a DSACK, restoring cwnd and ssthresh.",
    "tcp.quickacks": "Quick ACKs after the first data, a wholly duplicate segment or an "
    "idle gap (Linux's quick-ACK mode; 0: off).",
    "tcp.ack_pushed": "The receiver ACKs at once an in-order segment that ends an "
    "application write or is shorter than the largest seen (as Linux).",
    "tcp.ack_window_growth": "The receiver ACKs at once each segment that grows its window "
    "while Linux's receive-buffer autotuning would.",
    "tcp.snd_buffer_auto": "The application keeps at most 2 max(cwnd, 10 segments) "
    "unacknowledged within `snd_buffer`, as Linux sizes a send buffer left alone.",
    "tcp.syn_linear_timeouts": "The first this many timeouts of a connecting SYN keep "
    "the RTO (Linux's `tcp_syn_linear_timeouts`); later ones double it.",
    "tcp.rcv_buffer": "Receive buffer: the largest window the receiver advertises.",
    "tcp.snd_buffer": "Send buffer: the most data the application keeps unacknowledged.",
    # [wired]
    "wired.rate": "Rate of each wired host's access link to the BS, both ways.",
    "wired.delay": "One-way propagation delay of each access link.",
    "wired.queue": 'Drop-tail limit of each access link\'s queue: packets (`"100p"`) or bytes.',
    "wired.jitter": "Each packet's wired delay is `delay` plus a uniform draw in [0, jitter], "
    "never overtaking the packet before it (the spread of real hosts' processing).",
    "wired.frame_overhead": "Link-layer bytes added to each IP packet on the access links "
    '(`"2B"`: the PPP header ns-3\'s point-to-point devices put on every link).',
    # [hosts]
    "hosts.stack_delay": "Constant part of every host's stack latency: each segment its TCP "
    "sends leaves the host this much later.",
    "hosts.stack_jitter": "Spread of the stack latency: a uniform draw in [0, stack_jitter] "
    "added to `stack_delay`.",
    # [[flow]]
    "flow.name": "The flow's name in results (letters, digits, `_`, `-`, `.`; "
    "with `count`, a suffix `.k` is added).",
    "flow.count": "How many identical flows this entry stands for.",
    "flow.stagger": "With `count`, copy k starts at `start + k * stagger`.",
    "flow.direction": 'Data direction: `"down"` (wired host to wireless host) or `"up"`.',
    "flow.app": 'What the sending application does: `"bulk"` (always has data) or '
    '`"file"` (sends `size` bytes, then closes).',
    "flow.size": 'Bytes a `"file"` flow transfers.',
    "flow.start": "When the client opens the connection.",
    "flow.host": "The flow's wireless host; flows naming the same host share one station, "
    "one address and its agents (default: a host of its own).",
    # [output]
    "output.pcap": "Write pcapng captures in `pcap/` (access links, the hop, and for "
    "802.11 every frame on the air).",
    "output.pcap_point": 'Where a link\'s packets are captured: `"sender"` (as their '
    'transmission starts), `"receiver"` (as they arrive) or `"both"`.',
    "output.pcap_snaplen": "Bytes of each IP datagram captured (0: 128; below 80 raised to "
    "80; 65535: whole datagrams).",
    "output.timeseries": "Write the per-flow time series.",
    "output.max_bytes": "The most bytes a run's results folder may take; trace records past "
    "it are counted, not written.",
    # [schemes]
    "schemes.cr_aware": "CR-aware TCP (paper 000) at every wireless host: TCP frozen on the "
    "PHY's `pu_start`, resumed on `pu_stop` (802.15.4 hop).",
    "schemes.local_recovery": 'Local recovery (paper 000) for uplink flows: `"phy"` '
    '(PHY-LR), `"tcp"` (TCP-LR), `"bs_reports"` (the BS\'s gap reports alone) or `"none"`.',
    "schemes.cr_max_freeze": "A freeze with no `pu_stop` ends after this long (a watchdog).",
    "schemes.cr_probe_interval": "After missed detections, the frozen TCP probes the channel "
    "with its oldest segment this often.",
    "schemes.cr_access_failures": "Consecutive MAC channel-access failures that count as a "
    "missed `pu_start`.",
    "schemes.lr_buffer": "Segments kept in PHY-LR's link buffer at the sender.",
    "schemes.mac_hold": "Each wireless host's 802.15.4 MAC is held from its detector's "
    "`pu_start` to `pu_stop` (no CSMA-CA, queue kept), as paper 000's PHY stops.",
    # [pu_detection]
    "pu_detection.t_idle": "Silence after which the detector signals `pu_stop`.",
    "pu_detection.signalling_delay": "Delay from a heard primary-user onset to `pu_start`.",
    "pu_detection.missed_detection": "Probability that a primary user's ON period goes unheard.",
    # [wireless]
    "wireless.name": 'The hop\'s label in link names and the summary (default `"air"`, '
    '`"air<k>"` for entry k of `[[wireless]]`).',
    "wireless.kind": 'The hop\'s model: `"p2p"` (a queue, rate and delay per direction), '
    '`"lrwpan"` (IEEE 802.15.4) or `"wifi"` (IEEE 802.11a/b DCF).',
    "wireless.rate": "Data rate of the hop (802.11: of `standard`; with ARF, the first "
    "rate; 802.15.4: 250 kbit/s).",
    "wireless.delay": "One-way propagation delay (p2p; unused by the shared-medium hops).",
    "wireless.queue": "Drop-tail limit of each direction's queue (p2p), or of each MAC's "
    "transmit queue (802.15.4, 802.11; packets only).",
    "wireless.frame_overhead": "Link-layer bytes added to each IP packet on the hop.",
    "wireless.loss_per": 'What `[wireless.loss.*]` draws for on 802.11: `"frame"` (every '
    'transmission; retries repair it) or `"packet"` (one draw kept by all its retries).',
    "wireless.layout": 'How a TCP segment fills an 802.15.4 frame: `"tcp_ipv4"` (real IPv4 '
    'and TCP headers) or `"paper"` (paper 000\'s compact frame, no IP header).',
    "wireless.max_frame_retries": "802.15.4 macMaxFrameRetries.",
    "wireless.max_csma_backoffs": "802.15.4 macMaxCSMABackoffs.",
    "wireless.min_be": "802.15.4 macMinBE, the least back-off exponent.",
    "wireless.max_be": "802.15.4 macMaxBE, the largest back-off exponent.",
    "wireless.snr_db": "A fixed SNR (dB) of every host's link; on 802.15.4, frames are lost "
    "at the O-QPSK error rate at this SNR instead of `[wireless.loss]`.",
    "wireless.standard": 'The 802.11 PHY: `"11a"` (OFDM) or `"11b"` (DSSS/CCK).',
    "wireless.rate_control": 'Rate control: `"fixed"` or `"arf"` (Automatic Rate Fallback).',
    "wireless.preamble": 'The 802.11b PLCP preamble: `"long"` or `"short"`.',
    "wireless.rts_threshold": "Data frames with a longer PSDU go after RTS/CTS (default: never).",
    "wireless.retry_short": "802.11 dot11ShortRetryLimit.",
    "wireless.retry_long": "802.11 dot11LongRetryLimit.",
    "wireless.error_model": 'OFDM frame-error model from the SNR: `"nist"` or `"yans"` '
    "(ns-3's; 11b has one model).",
    "wireless.snr_report": "Every this long, each host's radio reports its link's SNR as an "
    "`snr` signal (default: never).",
    "wireless.scheduler": 'How the AP serves its downlink: `"fifo"` (one queue), `"rr"` '
    '(a queue per receiver, round robin) or `"pf"` (proportional fair).',
    "wireless.pf_time_constant": "Averaging time constant of the proportional-fair "
    "scheduler's served rates.",
    # [wireless.loss.down] / [wireless.loss.up]
    "wireless.loss.model": 'The frame-loss process of this direction: `"none"`, `"iid"`, '
    '`"gilbert"` (Gilbert-Elliott bursts) or `"list"` (the frames named, e.g. to replay a '
    "trace or pair runs with another tool).",
    "wireless.loss.frames": 'With `"list"`: the frames to lose, by their number among this '
    "direction's frames counted from 1, strictly increasing (e.g. `[3, 17, 120]`).",
    "wireless.loss.file": 'With `"list"`: a file of the frames to lose instead of `frames` '
    "(numbers separated by spaces, commas or lines; `#` starts a comment).",
    "wireless.loss.p": 'With `"iid"`: each frame lost with this probability.',
    "wireless.loss.mean_loss": 'With `"gilbert"`: the mean loss rate.',
    "wireless.loss.mean_burst": 'With `"gilbert"`: the mean burst length, in frames.',
    "wireless.loss.steps": 'Which frames step a Gilbert chain: `"own"` (this direction\'s) '
    'or `"both"` (p2p: also the other direction\'s, as an ns-3 error model shared by a link).',
    # [wireless.availability]
    "wireless.availability.model": "The hop's availability (primary users, blackouts): "
    '`"always"`, `"onoff"` (alternating periods), `"file"` or `"intervals"` (blocked intervals).',
    "wireless.availability.on": 'With `"onoff"`: how long the hop stays available '
    '(`"exp(MEAN)"` or fixed).',
    "wireless.availability.off": 'With `"onoff"`: how long it stays blocked.',
    "wireless.availability.start": 'With `"onoff"`: whether the run starts `"on"` '
    '(available) or `"off"`.',
    "wireless.availability.file": 'With `"file"`: a file of blocked intervals, a '
    '"start end" pair per line (relative to the scenario).',
    "wireless.availability.intervals": 'With `"intervals"`: the blocked intervals, inline.',
    "wireless.availability.blocked": 'What a blockage does to the p2p hop: `"defer"` (the '
    'transmitters sense it and wait) or `"lose"` (they send; frames on the air are destroyed).',
    # [wireless.dsa]
    "wireless.dsa.node_sensing_every": "Each host's own sensing quiet period recurs this "
    "often (phases drawn per host).",
    "wireless.dsa.node_sensing_for": "How long each host's sensing period lasts.",
    "wireless.dsa.cell_sensing_every": "The whole cell's sensing quiet period recurs this often.",
    "wireless.dsa.cell_sensing_for": "How long the cell's sensing period lasts.",
    "wireless.dsa.switch_at": "Channel switches at these times.",
    "wireless.dsa.switch_every": "Channel switches at these intervals.",
    "wireless.dsa.switch_delay": "How long a channel switch freezes the cell.",
    "wireless.dsa.channels": "The data rate of each channel, the first being the hop's "
    "`rate`; each switch moves to the next.",
    "wireless.dsa.tfp_queue": "What a TCP freeze period does to frames waiting in the MACs: "
    '`"hold"` (they wait), `"flush"` (a retune clears the queue, as MadWifi) or `"drop"`.',
    # [wireless.energy]
    "wireless.energy.model": 'How energy is charged: `"time"` (each state\'s power over its '
    'time), `"per_packet"` or `"ns2"` (per frame, as ns-2.35\'s WirelessPhy).',
    "wireless.energy.tx_w": "Transmit power draw, W.",
    "wireless.energy.rx_w": "Receive power draw, W.",
    "wireless.energy.idle_w": "Idle power draw, W.",
    "wireless.energy.sleep_w": "Sleep power draw, W.",
    "wireless.energy.battery_j": "Each station's battery, J (default: none).",
    "wireless.energy.on_empty": 'When the battery runs out: `"report"` (the radio goes on; '
    'the summary says when) or `"off"` (the radio stops).',
    # [wireless.snr]
    "wireless.snr.mean_db": "Mean SNR of the link, dB.",
    "wireless.snr.mean_trace": 'A moving mean: a file of "time snr_db" lines, interpolated '
    "linearly (relative to the scenario).",
    "wireless.snr.shadowing_db": "Standard deviation of log-normal shadowing, dB (0: none).",
    "wireless.snr.shadowing_time": "Correlation time of the shadowing (Gauss-Markov; "
    "default: one draw per station).",
    "wireless.snr.fading": 'Block fading: `"none"`, `"rayleigh"` or `"rician"`.',
    "wireless.snr.k_db": 'Rician K factor, dB (`"rician"` only).',
    "wireless.snr.coherence": "Fading block length.",
    "wireless.snr.trace": 'The SNR itself from a file of "time snr_db" steps.',
    # [[wireless.station]]
    "wireless.station.host": "The wireless host this entry gives its own SNR.",
    "wireless.station.snr_db": "That host's fixed SNR, dB.",
    # [[agent]]: every scheme
    "agent.scheme": "The scheme this entry places.",
    "agent.at": 'Where it runs: `"bs"`, `"hosts"` (every wireless host) or one host\'s name.',
    # cr_aware
    "agent.max_freeze": "A freeze with no `pu_stop` ends after this long (a watchdog).",
    "agent.probe_interval": "After missed detections, the frozen TCP probes the channel "
    "with its oldest segment this often.",
    "agent.access_failures": "Consecutive MAC channel-access failures that count as a "
    "missed `pu_start`.",
    # lr_sender
    "agent.mode": 'Who resends the reported segments: `"phy"` (PHY-LR, the link layer from '
    'its buffer) or `"tcp"` (TCP-LR, the sender\'s TCP).',
    "agent.lr_sender.buffer": "PHY-LR's link buffer, in segments.",
    # dsasync
    "agent.buffer": "B_alloc: DSASync's buffer at the AP.",
    "agent.b_low": "Zero windows are set when the free buffer falls below this.",
    "agent.b_high": "Zero windows are cleared when the free buffer reaches this.",
    "agent.alpha_min": "The least pacing factor: the pacer releases at beta = max(alpha, "
    "alpha_min) times the measured rate D.",
    "agent.window": "ΔT of DSASync's rate and TFP estimates.",
    "agent.efficiency": "e, TCP's share of the PHY rate (Algorithm 5's check after a switch).",
    "agent.smoothing": 'The pacer: `"cell"` (Algorithm 4), `"node"` (Algorithm 3) or `"off"`.',
    "agent.tx_window": "Released packets in the AP's MAC at once (Algorithm 2).",
    "agent.rate_over": "What the pacer's D is measured over (see above).",
    "agent.max_wait": "The longest wait in the pacer (see above).",
    # ucl
    "agent.rule": "How the UCL picks each packet's interface (see above).",
    "agent.threshold": "The paper's rule: the first interface whose reported SNR is at "
    "least this many dB.",
    "agent.hysteresis_db": 'With `"hysteresis"`: the half-width of the band around '
    "`threshold`, dB.",
    "agent.gain": 'With `"goodput"`: how much more goodput (a fraction) a switch needs.',
    "agent.margin_db": 'With `"goodput"`: the measured goodput is looked up this many dB '
    "below the reported SNR.",
    "agent.dwell": "The least time between two switches.",
    "agent.reorder": 'On a switch, `"barrier"` holds packets so that none overtakes one sent '
    'on the old interface; `"none"` does not.',
    "agent.max_hold": "The longest a switch barrier holds packets.",
    "agent.resend": "Resend a data packet the MAC gave up on, on another interface.",
    "agent.security": 'The UCL\'s link security: `"on"` (a Noise XX handshake, then sealed '
    'frames; on both entries) or `"off"`.',
    "agent.keys": 'Where identities come from: `"seed"` (generated from the run\'s seed) or '
    '`"files"` (`identity` and `trusted`).',
    "agent.identity": "The node's private key file (relative to the scenario).",
    "agent.trusted": "The file of the peers' public keys it accepts.",
    "agent.replay_window": "Counters a frame may lie below the highest accepted one.",
    "agent.rekey_frames": "Keys move forward after this many frames (0: never by count).",
    "agent.rekey_bytes": "Keys move forward after this many payload bytes under one key.",
    "agent.rekey_grace": "Frames under a new key during which the retired one still opens "
    "frames in flight.",
    "agent.handshake_timeout": "The first wait for a handshake answer; it doubles at each resend.",
    "agent.handshake_backoff_max": "The longest that wait grows.",
    "agent.handshake_tries": "Messages an attempt sends without an answer before the host "
    "starts a new attempt.",
    "agent.max_held": "Packets held while the handshake runs.",
    "agent.seeded_keys": "The emulator draws the ephemeral keys from the run's seed, not the OS.",
    "agent.tamper_every": "On the air, flip a byte of every Nth frame this node sends (0: never).",
    "agent.adversary": "What an attacker on the air does to this node's frames.",
    "agent.adversary_every": "The attacker acts on every Nth frame.",
    # clamp, l2clamp
    "agent.target_delay": 'The queueing delay the price starts at, when `alpha` is `"measured"`.',
    "agent.alpha": 'The price\'s offset a, in packets (fixed), or "measured": '
    "`target_delay` times the measured service rate (the default, ours).",
    "agent.tau": "Bytes the window grows by per update at zero price.",
    "agent.growth": 'How dw enters the window after slow start: `"segment"` (at each data '
    'packet, as paper 004 writes it) or `"window"` (per window of data; the default).',
    "agent.halving": 'How often a non-positive dw may halve the window: `"every"` or '
    '`"once_per_window"` (the default).',
    "agent.rate_time": "Time constant of the received rate mu*.",
    "agent.min_window": "The least advertised window, in segments.",
    "agent.initial_window": "The advertised window before any data, in segments.",
    "agent.window_updates": "L2-CLAMP: what the receiver does with a standalone window "
    'update: `"pass"` (the default: when its right edge moved by half a window) or '
    '`"drop"` (all).',
}


def meaning_key(table: str, key: str, scheme: str | None = None) -> list[str]:
    """The ``KEY_MEANINGS`` keys that may give ``table.key``'s meaning, first first."""
    t = table.replace("[]", "")
    t = re.sub(r"^flow\.tcp$", "tcp", t)
    t = re.sub(r"^wireless\.station\.snr$", "wireless.snr", t)
    t = re.sub(r"^wireless\.loss\.(down|up)$", "wireless.loss", t)
    plain = f"{t}.{key}" if t else key
    return [f"{t}.{scheme}.{key}", plain] if scheme else [plain]


def meaning(table: str, key: str, scheme: str | None = None) -> str:
    """What ``table.key`` means ("" when ``KEY_MEANINGS`` does not say)."""
    for k in meaning_key(table, key, scheme):
        if k in KEY_MEANINGS:
            return KEY_MEANINGS[k]
    return ""


def _kind(expects: str) -> tuple[str, str, dict]:
    for start, name, units, schema in KINDS:
        if expects.startswith(start):
            schema = dict(schema)
            m = re.match(r"an integer in (-?\d+)\.\.=(-?\d+)", expects)
            if m:
                schema.update(minimum=int(m.group(1)), maximum=int(m.group(2)))
            return name, units, schema
    return "value", "", {}


def _is_table(entry: dict) -> bool:
    return entry["expects"] == "a table" or entry["expects"].startswith("[[")


def _default(entry: dict) -> str:
    value = entry.get("default")
    if value is None or isinstance(value, (dict, list)) and _is_table(entry):
        return ""
    return json.dumps(value, ensure_ascii=False)


def _heading(table: str) -> str:
    if not table:
        return "Top level"
    parts = table.split(".")
    if parts[-1].endswith("[]"):
        return f"[[{table[:-2]}]]"
    return f"[{table}]"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


#: What each scheme is, where it runs and what it needs, printed above
#: its table of keys.
SCHEMES: dict[str, list[str]] = {
    "cr_aware": [
        "CR-aware TCP (paper 000), at wireless hosts: TCP freezes its RTO and cwnd",
        "on the PHY's `pu_start` and resumes on `pu_stop`, with a watchdog and a",
        "channel-access-failure detector for lost or missed signals. Needs",
        '`[wireless] kind = "lrwpan"`. `[schemes] cr_aware = true` places it too.',
    ],
    "lr_bs": [
        "Local recovery's gap monitor (paper 000), at the base station: reports",
        "the holes of every uplink flow with up to 3 SACK blocks, forged as real",
        'TCP segments. Needs `kind = "lrwpan"`. No keys of its own.',
    ],
    "lr_sender": [
        "Local recovery at each uplink flow's sender (paper 000): PHY-LR or TCP-LR",
        'resends what the BS reports. At wireless hosts; needs `kind = "lrwpan"`.',
    ],
    "dsasync": [
        "DSASync (paper 001), at the base station: buffers downlink packets",
        "during TCP freeze periods (TFPs) and releases them after, rewrites",
        "windows, and paces what it forwards (Algorithms 1-5). Needs",
        '`kind = "wifi"` (its TFP and capacity signals) or `"lrwpan"` (its PU',
        "detector).",
        "",
        'DSASync\'s pacer (`scheme = "dsasync"`, Algorithms 3/4) releases a packet',
        "when `size / elapsed < beta * D`. `rate_over` is what `D` is measured over:",
        '`"active"` (default, our reading) the non-TFP part of `window`, so that',
        '`beta * D` is the long-run arrival rate; `"window"` the whole window.',
        '`max_wait`: `"none"` (default, the paper: only `alpha_min` bounds the',
        'shaping) or `"mean_tfp"` (ours): no packet waits longer than the mean TFP',
        "seen so far.",
    ],
    "snoop": [
        "Snoop (with ns-2's rules), at the base station: caches downlink data and",
        "retransmits it locally on duplicate ACKs. Any hop. No keys of its own.",
    ],
    "c_snoop": [
        "C-Snoop (paper 002): a cache driven by the MAC's delivery reports, at",
        '`"bs"` for downlink data and at hosts for their uplink data. Needs',
        '`kind = "wifi"` or `"lrwpan"`. No keys of its own.',
    ],
    "snack": [
        "SNACK, a documented reconstruction: SNACK-S at the base station, SNACK-TCP",
        "at hosts, repairing several holes per report. Needs `[tcp] sack = true`.",
        "No keys of its own.",
    ],
    "ucl": [
        "The Universal Convergence Layer (paper 003): one entry at the base",
        "station and one at the hosts; picks each packet's interface among",
        'several `[[wireless]]` hops, and with `security = "on"` seals every',
        "frame (then one hop will do).",
        "",
        'The UCL (`scheme = "ucl"`) picks each packet\'s interface by `rule`:',
        '`"threshold"` (the paper\'s: the first interface whose reported SNR is at',
        'least `threshold` dB, else the last), `"hysteresis"` (the same with a band of',
        '`hysteresis_db` either side) or `"goodput"` (ours, the default: the largest',
        "goodput as the host measures it from its MAC's delivery reports, per",
        "interface and per 1 dB bin of its reported SNR, looked up `margin_db` below",
        "the SNR; an interface not yet measured counts at its configured rate; a",
        "switch needs `gain` more; it reads no error model). `dwell`: the least time",
        "between two switches.",
        'The UCL\'s link security (`scheme = "ucl"`, `security = "on"` on the BS\'s',
        "entry and the hosts') takes `keys`, `identity`, `trusted` and these keys.",
        "`replay_window`: counters a frame may lie below the highest accepted one",
        "(1 to 65536, default 8192: the UCL's own reordering across interfaces never",
        "makes a genuine frame too old). `rekey_grace`: frames under a new key during",
        "which the retired one still opens frames in flight (default 8192, the",
        "window's size). `handshake_timeout` (100 ms) is the first wait for a",
        "handshake answer; it doubles at each resend up to `handshake_backoff_max`",
        "(5 s, at least `handshake_timeout`); after `handshake_tries` (8) messages",
        "without an answer, or an untrusted peer key, the host starts a new attempt",
        "with fresh ephemeral keys. `seeded_keys = true`: the emulator draws the",
        "ephemeral keys from the run's seed, not the OS (the simulator always does).",
        "On the air, each entry sets what its own node's frames suffer (the BS's",
        "entry the BS's frames, the hosts' entry each host's): `tamper_every = N`",
        "flips a byte of every Nth frame, handshake messages (refused and sent again)",
        'included; `adversary = "replay" | "inject" | "reflect" | "drop_handshake"`',
        "acts on every `adversary_every`th frame (default 10; data frames, or",
        "handshake messages for `drop_handshake`): copies are dropped as `replayed`,",
        "forgeries and reflections as `tampered`, removed handshake messages are",
        "sent again.",
    ],
    "clamp": [
        "CLAMP, a reconstruction: at the receivers (wireless hosts), its AP half",
        "at the base station with it. The AP prices each receiver's queue,",
        "`p(q) = max((q - alpha) / mu_c, 0)`, and a window controller at the",
        'receiver sets its advertised window. Needs `kind = "wifi"`.',
    ],
    "l2clamp": [
        "L2-CLAMP (paper 004): CLAMP's controller at the base station, which also",
        "makes each downlink segment's TCP ACK when the MAC reports it delivered,",
        "so that the receivers' ACKs stay off the air. At the receivers, its BS",
        'half with it; needs `kind = "wifi"`.',
    ],
}


#: What a table's rows cannot say, printed under its heading.
TABLE_NOTES: dict[str, list[str]] = {
    "output": [
        "With `pcap = true` a run writes pcapng files in `pcap/`: `wired-<flow>.pcapng`",
        "(the flow's access link) and `wireless.pcapng` (the hop), both directions of",
        "a link in one file, each direction and capture point an interface named after",
        'it; an 802.11 hop adds `air.pcapng`. `pcap_point = "sender"` (default) records',
        "a packet as its transmission starts (interface `<link>.tx`): a frame later",
        'lost on the air is in the capture. `"receiver"` records it as it arrives at',
        'the far end (`<link>.rx`): only what got through. `"both"` writes both. Every drop adds',
        "a record of the dropped packet, at the time of the drop, whose packet comment",
        "gives the reason (`xltcp drop: queue full`, `... lost on the air`, ...).",
        "`pcap_snaplen = 0` means 128 bytes (the IPv4 and TCP headers with every",
        "option, and the start of the payload); values below 80 are raised to 80,",
        "65535 keeps whole datagrams. `max_bytes` (default 1 GiB) bounds a run's",
        "whole results folder: the traces (time series, `events.csv`, captures,",
        "`signals.jsonl`)",
        "get what is left after a reserve for `summary.json` and the other files",
        "(some 32 KiB, twice the scenario's echo and 4 KiB per flow and agent);",
        "records past it are counted in `summary.json`, not written.",
    ],
    "hosts": [
        "The hosts' stack latency, for every host (wired and wireless): each segment",
        "an endpoint's TCP sends leaves its host `stack_delay` plus a uniform draw in",
        "[0, `stack_jitter`] later, never before the endpoint's segment before it;",
        'the host\'s agents see it as it leaves. Both default to `"0s"` (a host',
        'answers in the instant a segment arrives) and take at most `"1s"`. Real',
        "hosts take tens of microseconds; `xltcp_core::scenario::EMULATED_HOSTS`",
        '(`stack_delay = "20us"`, `stack_jitter = "60us"`) is what the emulator\'s',
        "Linux hosts take, which the emulator itself refuses (its hosts take their own).",
    ],
}


def _rows(entries: list[dict], scheme: str | None = None) -> list[str]:
    """A table of keys: a row per key, its meaning first."""
    lines = ["| key | meaning | type | units / form | default | allowed | the loader expects |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for e in sorted(entries, key=lambda e: e["key"]):
        kind, units, _ = _kind(e["expects"])
        allowed = ", ".join(f"`{a}`" for a in e["allowed"])
        default = _default(e)
        lines.append(
            f"| `{e['key']}` | {_cell(meaning(e['table'], e['key'], scheme))} | {kind} | "
            f"{_cell(units)} | {'`' + _cell(default) + '`' if default else ''} | "
            f"{allowed} | {_cell(e['expects'])} |"
        )
    return lines


#: The keys every ``[[agent]]`` entry takes, whatever its scheme.
AGENT_COMMON = ("scheme", "at")


def scheme_order(entries: list[dict], schemes: dict[str, list[dict]]) -> list[str]:
    """The schemes in the order the loader lists them for ``scheme``."""
    listed = next(
        (e["allowed"] for e in entries if (e["table"], e["key"]) == ("agent[]", "scheme")), []
    )
    return [s for s in listed if s in schemes] + sorted(set(schemes) - set(listed))


def _agent_section(entries: list[dict], schemes: dict[str, list[dict]]) -> list[str]:
    """``[[agent]]``: the keys of every entry, then a table per scheme."""
    common = [e for e in entries if e["key"] in AGENT_COMMON]
    lines = [
        "Every entry takes `scheme` and `at`; the other keys belong to its scheme,",
        "one table per scheme below (each found by loading the shipped scenarios",
        "with that scheme's entries alone). Entries on one node compose in the",
        "order written.",
        "",
        *_rows(common),
        "",
    ]
    for scheme in scheme_order(entries, schemes):
        own = [e for e in schemes[scheme] if e["key"] not in AGENT_COMMON]
        lines += [f'### `scheme = "{scheme}"`', "", *SCHEMES.get(scheme, []), ""]
        lines += [*_rows(own, scheme), ""] if own else []
    mine = {e["key"] for es in schemes.values() for e in es} | set(AGENT_COMMON)
    stray = [e for e in entries if e["key"] not in mine]
    if stray:
        lines += ["### Keys no scheme's entry reached", "", *_rows(stray), ""]
    return lines


def reference(entries: list[dict], schemes: dict[str, list[dict]] | None = None) -> str:
    """``docs/scenario-reference.md``: a section per table, a row per key, and
    the ``[[agent]]`` keys in a table per scheme."""
    schemes = scheme_catalogues() if schemes is None else schemes
    tables: dict[str, list[dict]] = {}
    for e in entries:
        if not _is_table(e):
            tables.setdefault(e["table"], []).append(e)
    lines = [
        "# Scenario reference",
        "",
        "Every key of a scenario file, table by table: what it means, its type and",
        "units, its default (the value when the key is left out; blank when it is",
        "required or depends on the file, like `name`), the values it allows, and",
        "what the loader says it expects. Generated by `python3 -m xltcp.reference`",
        "from the scenario loader itself, explored from the shipped scenarios and",
        "every variant of their `model` and `kind` keys, with the meanings kept",
        "beside the generator (`python/xltcp/reference.py`); do not edit (a test",
        "fails when this file is stale). A table lists the keys of all its variants: which",
        "apply depends on its `model` or `kind` (e.g. `p` for",
        '`model = "iid"`, `mean_loss`, `mean_burst` and `steps` for `"gilbert"`,',
        '`frames` or `file` for `"list"`).',
        'A Gilbert chain takes one step per frame of its direction (`steps = "own"`,',
        "the default) or, on the `p2p` hop, also one per frame of the other",
        'direction (`steps = "both"`: one chain for the hop, as an ns-3 error model',
        "shared by both devices of a link; the other direction's frames keep their",
        "own loss process).",
        "`[wireless]` may instead be written as several `[[wireless]]` entries",
        "(hosts with several interfaces, one hop each), each taking the keys of",
        "`[wireless]` and its sub-tables.",
        "",
        '`extends = "base.toml"` at the top level makes the file a base plus',
        "differences (see [scenario files](scenarios.md)). Editors check and",
        "complete scenario files",
        "with the JSON Schema `python/xltcp/scenario.schema.json` (shipped in the",
        "package as `xltcp/scenario.schema.json`): with Taplo or VS Code's Even",
        "Better TOML, `.taplo.toml` at the repository's top associates it with",
        "`scenarios/**/*.toml`; for a file elsewhere, start it with a",
        "`#:schema PATH/scenario.schema.json` line.",
        "",
    ]
    for table in sorted(tables, key=lambda t: (t != "", t)):
        lines += [f"## `{_heading(table)}`", ""]
        if table in TABLE_NOTES:
            lines += [*TABLE_NOTES[table], ""]
        if table == "agent[]":
            lines += _agent_section(tables[table], schemes)
        else:
            lines += [*_rows(tables[table]), ""]
    return "\n".join(lines)


def _leaf(e: dict, scheme: str | None = None) -> dict:
    """The schema of one key's value, with its meaning as the description."""
    _, _, leaf = _kind(e["expects"])
    leaf = dict(leaf)
    if e["allowed"]:
        leaf["enum"] = e["allowed"]
    description = f"Expects {e['expects']}."
    if _default(e):
        description += f" Default: {_default(e)}."
    said = meaning(e["table"], e["key"], scheme)
    leaf["description"] = f"{said} {description}" if said else description
    return leaf


def _agent_properties(schemes: dict[str, list[dict]]) -> dict[str, Any]:
    """An ``[[agent]]`` key's schema: one scheme's, or any of several
    schemes' when they read it differently (``buffer``: bytes for
    ``dsasync``, packets for ``lr_sender``)."""
    leaves: dict[str, dict[str, dict]] = {}
    for scheme, es in schemes.items():
        for e in es:
            leaves.setdefault(e["key"], {})[scheme] = _leaf(e, scheme)
    properties: dict[str, Any] = {}
    for key, by_scheme in sorted(leaves.items()):
        distinct = []
        for leaf in by_scheme.values():
            plain = {k: v for k, v in leaf.items() if k != "description"}
            if all({k: v for k, v in d.items() if k != "description"} != plain for d in distinct):
                distinct.append(leaf)
        if len(distinct) == 1:
            properties[key] = distinct[0]
        else:
            names = ", ".join(f'"{s}"' for s in by_scheme)
            properties[key] = {"anyOf": distinct, "description": f"A key of {names}."}
    return properties


def schema(entries: list[dict], schemes: dict[str, list[dict]] | None = None) -> dict:
    """A JSON Schema (draft-07) of scenario files, for Taplo / Even Better TOML."""
    schemes = scheme_catalogues() if schemes is None else schemes
    by_table: dict[str, list[dict]] = {}
    for e in entries:
        by_table.setdefault(e["table"], []).append(e)

    def table_schema(path: str) -> dict:
        properties: dict[str, Any] = {}
        for e in sorted(by_table.get(path, []), key=lambda e: e["key"]):
            child = f"{path}.{e['key']}" if path else e["key"]
            if e["expects"] == "a table":
                properties[e["key"]] = (
                    table_schema(child) if child in by_table else {"type": "object"}
                )
            elif e["expects"].startswith("[["):
                item = f"{child}[]"
                items = table_schema(item) if item in by_table else {"type": "object"}
                properties[e["key"]] = {"type": "array", "items": items}
            else:
                properties[e["key"]] = _leaf(e)
        if path == "agent[]":
            properties.update(_agent_properties(schemes))
        return {"type": "object", "properties": properties, "additionalProperties": False}

    root = table_schema("")
    # Several hops: [[wireless]] entries, each with the keys of [wireless].
    hop = root["properties"].get("wireless")
    if hop is not None:
        root["properties"]["wireless"] = {
            "anyOf": [hop, {"type": "array", "items": hop, "minItems": 1}],
            "description": "One hop ([wireless]) or several ([[wireless]] entries, "
            "each with the same keys and a name).",
        }
    root["properties"]["extends"] = {
        "type": "string",
        "description": "A scenario file this one is laid over (a path relative to this file).",
    }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://xltcp.invalid/scenario.schema.json",
        "title": "xltcp scenario",
        "description": "A scenario file of xltcp (generated from the loader; see "
        "docs/scenario-reference.md).",
        **root,
    }


def render(
    entries: list[dict] | None = None, schemes: dict[str, list[dict]] | None = None
) -> tuple[str, str]:
    """The reference and the schema's JSON text, as they are committed."""
    entries = catalogue() if entries is None else entries
    schemes = scheme_catalogues() if schemes is None else schemes
    text = reference(entries, schemes)
    return text, json.dumps(schema(entries, schemes), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """Write both files under the repository at ``argv[0]`` (default: the current folder)."""
    root = Path(argv[0]) if argv else Path(".")
    text, schema_text = render()
    (root / REFERENCE).write_text(text)
    (root / SCHEMA).write_text(schema_text)
    print(f"wrote {root / REFERENCE} and {root / SCHEMA}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
