import math

import pytest
from rich.console import Console

from xltcp import table


@pytest.mark.parametrize(
    "bps, text",
    [
        (8.41e6, "8.41 Mbit/s"),
        (8_414_999.0, "8.41 Mbit/s"),
        (0, "0.00 bit/s"),
        (950, "950 bit/s"),
        (12_345, "12.3 kbit/s"),
        (999_600, "1.00 Mbit/s"),
        (1e9, "1.00 Gbit/s"),
        (123.4e6, "123 Mbit/s"),
        (None, "n/a"),
        (math.nan, "n/a"),
    ],
)
def test_human_rate(bps, text):
    assert table.human_rate(bps) == text


def test_rate_pm_uses_the_unit_of_the_mean():
    assert table.rate_pm(7.0e6, 2.01e6) == "7.00 ± 2.01 Mbit/s"
    assert table.rate_pm(7.0e6, 40e3) == "7.00 ± 0.04 Mbit/s"
    assert table.rate_pm(7.0e6, None) == "7.00 Mbit/s"


def test_percent_and_counts():
    assert table.percent(0.8412) == "84.1 %"
    assert table.percent_pm(0.737, 0.211) == "73.7 ± 21.1 %"
    assert table.count_pm(22.75, 34.8) == "22.8 ± 34.8"
    assert table.count_pm(1.0, None) == "1.0"


@pytest.mark.parametrize(
    "seconds, text", [(20.0, "20 s"), (1.5, "1.5 s"), (0.123, "123 ms"), (42e-6, "42 us")]
)
def test_human_seconds(seconds, text):
    assert table.human_seconds(seconds) == text


SUMMARY = {
    "scenario": {"name": "demo"},
    "seed": 4,
    "duration_s": 20.0,
    "events": 2_000_000,
    "wall_seconds": 0.5,
    "flows": [
        {
            "name": "bulk0",
            "direction": "down",
            "goodput_bps": 8.41e6,
            "efficiency": 0.8412,
            "retransmissions": 17,
            "rto_count": 2,
        }
    ],
}


def render(renderable) -> str:
    console = Console(width=120, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def test_run_table_shows_each_flow():
    text = render(table.run_table(SUMMARY))
    assert "demo, seed 4" in text
    assert "goodput Mbit/s" in text and "efficiency %" in text  # units in the headers
    row = next(line for line in text.splitlines() if "bulk0" in line)
    for cell in ("down", "8.41", "84.1", "17", "2"):
        assert cell in row
    assert "Mbit/s" not in row and "%" not in row


def test_run_line():
    assert str(table.run_line(SUMMARY)) == (
        "seed 4 | simulated 20 s | 2,000,000 events | wall 500 ms | 4,000,000 events/s"
    )


def test_aggregate_table_shows_mean_and_half_width():
    agg = {
        "scenario": {"name": "demo"},
        "seeds": [1, 2, 3],
        "confidence": 0.95,
        "flows": [
            {
                "name": "bulk0",
                "direction": "down",
                "goodput_bps": {"mean": 7e6, "ci_half_width": 2.01e6},
                "efficiency": {"mean": 0.737, "ci_half_width": 0.211},
                "retransmissions": {"mean": 22.75, "ci_half_width": 34.8},
                "rto_count": {"mean": 1.0, "ci_half_width": None},
            }
        ],
    }
    text = render(table.aggregate_table(agg))
    assert "demo, 3 seeds, mean ± 95% CI" in text
    row = next(line for line in text.splitlines() if "bulk0" in line)
    assert "goodput Mbit/s" in text and "efficiency %" in text
    for cell in ("7.00 ± 2.01", "73.7 ± 21.1", "22.8 ± 34.8", "1.0"):
        assert cell in row


def test_run_table_adds_a_direction_row_when_flows_share_the_hop():
    two = dict(SUMMARY)
    two["flows"] = [dict(SUMMARY["flows"][0], name=n, efficiency=0.45) for n in ("a", "b")]
    two["directions"] = [
        {"direction": "down", "flows": 2, "goodput_bps": 9.0e6, "efficiency": 0.92}
    ]
    text = render(table.run_table(two))
    row = next(line for line in text.splitlines() if "all 2 down" in line)
    assert "9.00" in row and "92.0" in row
    # A lone flow in its direction gets no extra row.
    one = dict(SUMMARY, directions=[{"direction": "down", "flows": 1, "efficiency": 0.8}])
    assert "all 1" not in render(table.run_table(one))


def test_energy_line_lists_each_radio_and_bits_per_joule():
    summary = {
        "wifi": {
            "stations": [
                {"station": 0, "energy_j": 12.25, "battery_depleted_at_s": None},
                {"station": 1, "energy_j": 0.5, "battery_depleted_at_s": 61.5},
            ],
            "bits_per_joule": 2.41e6,
        }
    }
    line = table.energy_line(summary).plain
    assert line == (
        "energy: AP 12.2 J, host 0 500 mJ (battery empty at 61.5 s); total 12.8 J, 2.41 Mbit/J"
    )
    assert table.energy_line({"flows": []}) is None


def test_output_warning_says_where_traces_stop():
    assert table.output_warning({}) is None
    cut = {
        "max_bytes": 200000,
        "cut_at_s": 1.25,
        "records_not_written": 5123,
        "signals_not_logged": 0,
    }
    text = table.output_warning({"output": cut}).plain
    assert text.startswith(
        "traces stop at 1.25 s: [output] max_bytes = 200,000 B reached, 5,123 records"
    )
