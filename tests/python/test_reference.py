"""The scenario reference and the JSON Schema: made from the loader, never
stale, a meaning for every key and a table per scheme of ``[[agent]]`` keys,
accepting every shipped scenario and refusing broken ones."""

import json

import jsonschema
import pytest
import tomllib

from xltcp import reference

from conftest import REPO, needs_core

pytestmark = needs_core


@pytest.fixture(scope="module")
def entries():
    return reference.catalogue()


@pytest.fixture(scope="module")
def schemes():
    return reference.scheme_catalogues()


@pytest.fixture(scope="module")
def schema():
    return json.loads((REPO / reference.SCHEMA).read_text())


def test_committed_reference_and_schema_are_current(entries, schemes):
    text, schema_text = reference.render(entries, schemes)
    stale = "stale: regenerate with `python3 -m xltcp.reference`"
    assert (REPO / reference.REFERENCE).read_text() == text, stale
    assert (REPO / reference.SCHEMA).read_text() == schema_text, stale


def test_the_catalogue_reaches_every_variant(entries):
    keys = {(e["table"], e["key"]) for e in entries}
    for want in [
        ("sim", "duration"),
        ("wireless.loss.down", "p"),
        ("wireless.loss.down", "mean_burst"),
        ("wireless.loss.down", "frames"),
        ("wireless.loss.down", "file"),
        ("wireless.availability", "on"),
        ("wireless.availability", "intervals"),
        ("flow[]", "size"),
        ("tcp", "recovery"),
    ]:
        assert want in keys, want
    by_key = {(e["table"], e["key"]): e for e in entries}
    assert by_key[("wireless.loss.down", "model")]["allowed"] == ["none", "iid", "gilbert", "list"]
    assert by_key[("sim", "sample_interval")]["default"] == "100ms"
    assert by_key[("tcp", "initial_window")]["expects"].startswith("an integer in 1..=")


def test_a_new_key_of_the_loader_needs_no_other_change(tmp_path, entries):
    # The catalogue is explored, not listed: from a file that reaches only
    # [sim], it finds [sim]'s keys and nothing of [tcp]'s.
    path = tmp_path / "only-sim.toml"
    path.write_text('[sim]\nduration = "1s"\n')
    small = {(e["table"], e["key"]) for e in reference.catalogue([path])}
    assert ("sim", "seed") in small
    assert len(small) < len(entries)


def test_the_schema_accepts_every_shipped_scenario(schema):
    files = sorted((REPO / "scenarios").rglob("*.toml"))
    assert files
    for path in files:
        jsonschema.validate(tomllib.loads(path.read_text()), schema)


@pytest.mark.parametrize(
    "text, complaint",
    [
        ('[sim]\nduraton = "1s"\n', "Additional properties"),
        ("[sim]\nduration = 5\n", "is not of type"),
        ('[wireless.loss.down]\nmodel = "gilbertt"\n', "is not one of"),
        ('[flow]\nname = "a"\n', "is not of type 'array'"),
        ("[tcp]\ninitial_window = 0\n", "less than the minimum"),
        ("[tcp]\nsack = 1\n", "is not of type 'boolean'"),
    ],
)
def test_the_schema_refuses_broken_files(schema, text, complaint):
    with pytest.raises(jsonschema.ValidationError, match=complaint):
        jsonschema.validate(tomllib.loads(text), schema)


def test_every_key_has_a_meaning(entries, schemes):
    # A key the loader gains needs a line in reference.KEY_MEANINGS.
    missing = [
        f"{e['table']}.{e['key']}"
        for e in entries
        if not reference._is_table(e) and not reference.meaning(e["table"], e["key"])
    ]
    missing += [
        f"{scheme}: {e['key']}"
        for scheme, found in schemes.items()
        for e in found
        if not reference.meaning(e["table"], e["key"], scheme)
    ]
    assert not missing, "no meaning in reference.KEY_MEANINGS for " + ", ".join(missing)
    # ... and a meaning no key uses any more is removed.
    used = {k for e in entries for k in reference.meaning_key(e["table"], e["key"])}
    used |= {
        k
        for scheme, found in schemes.items()
        for e in found
        for k in reference.meaning_key(e["table"], e["key"], scheme)
    }
    assert set(reference.KEY_MEANINGS) <= used, set(reference.KEY_MEANINGS) - used


def test_agent_keys_are_split_by_scheme(entries, schemes):
    listed = next(e["allowed"] for e in entries if (e["table"], e["key"]) == ("agent[]", "scheme"))
    assert set(schemes) == set(listed)
    keys = {s: {e["key"] for e in found} - {"scheme", "at"} for s, found in schemes.items()}
    assert keys["cr_aware"] == {"max_freeze", "probe_interval", "access_failures"}
    assert keys["lr_sender"] == {"mode", "buffer"}
    assert {"buffer", "b_low", "b_high", "smoothing", "rate_over", "max_wait"} <= keys["dsasync"]
    assert {"rule", "threshold", "dwell", "security", "replay_window"} <= keys["ucl"]
    assert {"alpha", "growth", "halving", "window_updates"} <= keys["l2clamp"]
    assert keys["snoop"] == keys["c_snoop"] == keys["snack"] == keys["lr_bs"] == set()
    assert not keys["dsasync"] & keys["ucl"]
    # Every [[agent]] key of the whole catalogue belongs to some scheme.
    agent_keys = {e["key"] for e in entries if e["table"] == "agent[]"} - {"scheme", "at"}
    assert agent_keys <= set().union(*keys.values())
    # The reference has a section per scheme, in the loader's order, each
    # table with its meaning column.
    text = (REPO / reference.REFERENCE).read_text()
    agent = text.split("## `[[agent]]`", 1)[1].split("\n## ", 1)[0]
    headings = [line for line in agent.splitlines() if line.startswith("### ")]
    assert headings == [f'### `scheme = "{s}"`' for s in listed]
    assert "| `max_freeze` | A freeze with no `pu_stop` ends" in agent
    assert "| `buffer` | PHY-LR's link buffer, in segments. |" in agent
    assert "| `buffer` | B_alloc: DSASync's buffer at the AP. |" in agent


def test_the_schema_takes_a_key_as_each_scheme_reads_it(schema):
    agent = schema["properties"]["agent"]["items"]["properties"]
    jsonschema.validate({"agent": [{"scheme": "lr_sender", "buffer": 64}]}, schema)
    jsonschema.validate({"agent": [{"scheme": "dsasync", "buffer": "500MB"}]}, schema)
    assert "PHY-LR's link buffer" in json.dumps(agent["buffer"])
    assert agent["max_freeze"]["description"].startswith("A freeze with no `pu_stop`")
