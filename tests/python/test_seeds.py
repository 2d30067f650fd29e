import pytest
from typer.testing import CliRunner

from xltcp.cli import app
from xltcp.runner import MAX_SEED, SeedSpecError, parse_seeds


@pytest.mark.parametrize(
    "text, seeds",
    [
        ("1..3", [1, 2, 3]),
        ("0..0", [0]),
        (" 4 .. 6 ", [4, 5, 6]),
        ("1,2,5", [1, 2, 5]),
        ("5,2", [5, 2]),
        ("7", [7]),
        (str(MAX_SEED), [MAX_SEED]),
    ],
)
def test_good_seed_specs(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize(
    "text, says",
    [
        ("3..1", "the range ends (1) before it starts (3)"),
        ("x", "'x' is not a seed"),
        ("", "empty seed list"),
        ("1..", "'' is not a seed"),
        ("-1", "'-1' is not a seed"),
        ("1.5", "'1.5' is not a seed"),
        ("1,,2", "'' is not a seed"),
        ("1,2,1", "seed 1 is listed twice"),
        (str(MAX_SEED + 1), "is larger than"),
        ("0..100000", "100001 seeds; at most 100000"),
    ],
)
def test_bad_seed_specs(text, says):
    with pytest.raises(SeedSpecError) as error:
        parse_seeds(text)
    assert says in str(error.value)


@pytest.mark.parametrize("text", ["3..1", "x", "1,1"])
def test_cli_bad_seeds_exit_2_with_message(text, write_toml):
    scenario = write_toml("")
    result = CliRunner().invoke(app, ["run", str(scenario), "--seeds", text])
    assert result.exit_code == 2
    assert "Invalid value for '--seeds'" in result.output
    assert "Traceback" not in result.output


def test_cli_seed_and_seeds_together_exit_2(write_toml):
    scenario = write_toml("")
    result = CliRunner().invoke(app, ["run", str(scenario), "--seed", "1", "--seeds", "1..2"])
    assert result.exit_code == 2
    assert "either --seed or --seeds" in result.output


@pytest.mark.parametrize("seed", ["-3", str(MAX_SEED + 1), "x"])
def test_cli_bad_seed_exit_2(seed, write_toml):
    result = CliRunner().invoke(app, ["run", str(write_toml("")), "--seed", seed])
    assert result.exit_code == 2
    assert "Invalid value for '--seed'" in result.output


def test_cli_set_without_equals_exit_2(write_toml):
    result = CliRunner().invoke(app, ["run", str(write_toml("")), "--set", "sim.duration"])
    assert result.exit_code == 2
    assert "expected KEY=VALUE" in result.output


def test_cli_missing_scenario_exit_2(tmp_path):
    result = CliRunner().invoke(app, ["run", str(tmp_path / "absent.toml")])
    assert result.exit_code == 2
    assert "does not exist" in result.output
