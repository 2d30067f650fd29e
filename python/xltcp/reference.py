"""The scenario reference (``docs/scenario-reference.md``) and the JSON Schema
for editors (``xltcp/scenario.schema.json``), both made from one source: the
catalogue the scenario loader gives of itself (``_core.catalog``: every key
each table reads, what the loader says it expects, the allowed values, the
default), explored from the shipped scenarios. A key added to the loader
shows up in both once a shipped scenario reaches its table; a test fails
when the committed files are stale. Regenerate them with::

    python3 -m xltcp.reference
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

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


def catalogue(files: list[Path] | None = None) -> list[dict]:
    """Every key the loader reads, explored from ``files`` (default: the shipped scenarios)."""
    from xltcp import _core

    if files is None:
        folder = xltcp.scenarios_dir()
        files = [xltcp.shipped_scenario(n) for n in xltcp.shipped_names()]
        files = [f if f.is_absolute() else folder / f for f in files]
    return json.loads(_core.catalog([str(f) for f in files]))


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


#: What a table's rows cannot say, printed under its heading.
TABLE_NOTES: dict[str, list[str]] = {
    "agent[]": [
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
        "",
        'DSASync\'s pacer (`scheme = "dsasync"`, Algorithms 3/4) releases a packet',
        "when `size / elapsed < beta * D`. `rate_over` is what `D` is measured over:",
        '`"active"` (default, our reading) the non-TFP part of `window`, so that',
        '`beta * D` is the long-run arrival rate; `"window"` the whole window.',
        '`max_wait`: `"none"` (default, the paper: only `alpha_min` bounds the',
        'shaping) or `"mean_tfp"` (ours): no packet waits longer than the mean TFP',
        "seen so far.",
    ],
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
        "whole results folder: the traces (time series, captures, `signals.jsonl`)",
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


def reference(entries: list[dict]) -> str:
    """``docs/scenario-reference.md``: a section per table, a row per key."""
    tables: dict[str, list[dict]] = {}
    for e in entries:
        if not _is_table(e):
            tables.setdefault(e["table"], []).append(e)
    lines = [
        "# Scenario reference",
        "",
        "Every key of a scenario file, table by table: its type and units, its",
        "default (the value when the key is left out; blank when it is required or",
        "depends on the file, like `name`), the values it allows, and what the",
        "loader says it expects. Generated by `python3 -m xltcp.reference` from the",
        "scenario loader itself, explored from the shipped scenarios and every",
        "variant of their `model` and `kind` keys; do not edit (a test fails when",
        "this file is stale). A table lists the keys of all its variants: which",
        "apply depends on its `model` or `kind` (e.g. `p` for",
        '`model = "iid"`, `mean_loss`, `mean_burst` and `steps` for `"gilbert"`).',
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
        "differences (see the README). Editors check and complete scenario files",
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
        lines += ["| key | type | units / form | default | allowed | the loader expects |"]
        lines += ["|---|---|---|---|---|---|"]
        for e in sorted(tables[table], key=lambda e: e["key"]):
            kind, units, _ = _kind(e["expects"])
            allowed = ", ".join(f"`{a}`" for a in e["allowed"])
            default = _default(e)
            lines.append(
                f"| `{e['key']}` | {kind} | {_cell(units)} | "
                f"{'`' + _cell(default) + '`' if default else ''} | {allowed} | "
                f"{_cell(e['expects'])} |"
            )
        lines.append("")
    return "\n".join(lines)


def schema(entries: list[dict]) -> dict:
    """A JSON Schema (draft-07) of scenario files, for Taplo / Even Better TOML."""
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
                _, _, leaf = _kind(e["expects"])
                leaf = dict(leaf)
                if e["allowed"]:
                    leaf["enum"] = e["allowed"]
                description = f"Expects {e['expects']}."
                if _default(e):
                    description += f" Default: {_default(e)}."
                leaf["description"] = description
                properties[e["key"]] = leaf
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


def render(entries: list[dict] | None = None) -> tuple[str, str]:
    """The reference and the schema's JSON text, as they are committed."""
    entries = catalogue() if entries is None else entries
    return reference(entries), json.dumps(schema(entries), indent=2, ensure_ascii=False) + "\n"


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
