"""The scenario reference and the JSON Schema: made from the loader, never
stale, accepting every shipped scenario and refusing broken ones."""

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
def schema():
    return json.loads((REPO / reference.SCHEMA).read_text())


def test_committed_reference_and_schema_are_current(entries):
    text, schema_text = reference.render(entries)
    stale = "stale: regenerate with `python3 -m xltcp.reference`"
    assert (REPO / reference.REFERENCE).read_text() == text, stale
    assert (REPO / reference.SCHEMA).read_text() == schema_text, stale


def test_the_catalogue_reaches_every_variant(entries):
    keys = {(e["table"], e["key"]) for e in entries}
    for want in [
        ("sim", "duration"),
        ("wireless.loss.down", "p"),
        ("wireless.loss.down", "mean_burst"),
        ("wireless.availability", "on"),
        ("wireless.availability", "intervals"),
        ("flow[]", "size"),
        ("tcp", "recovery"),
    ]:
        assert want in keys, want
    by_key = {(e["table"], e["key"]): e for e in entries}
    assert by_key[("wireless.loss.down", "model")]["allowed"] == ["none", "iid", "gilbert"]
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
