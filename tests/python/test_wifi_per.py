"""xltcp._core.wifi_per: the 802.11 hop's frame error rate."""

from __future__ import annotations

import math

import pytest

try:
    from xltcp._core import wifi_per
except ImportError:  # an older build of the core
    wifi_per = None

pytestmark = pytest.mark.skipif(wifi_per is None, reason="needs xltcp._core.wifi_per")

A_RATES = (6, 9, 12, 18, 24, 36, 48, 54)
B_RATES = (1, 2, 5.5, 11)


def dbpsk_fer(snr_db: float, bits: int) -> float:
    """1 Mbit/s DBPSK: BER = exp(-Eb/N0)/2 with Eb/N0 = 22 snr."""
    ber = 0.5 * math.exp(-22 * 10 ** (snr_db / 10))
    return 1 - (1 - ber) ** bits


def dqpsk_fer(snr_db: float, bits: int) -> float:
    """2 Mbit/s DQPSK (Ferrari & Corazza) with x = 11 snr."""
    x = 11 * 10 ** (snr_db / 10)
    k = (math.sqrt(2) + 1) / math.sqrt(8 * math.pi * math.sqrt(2))
    ber = min(0.5, k / math.sqrt(x) * math.exp(-(2 - math.sqrt(2)) * x))
    return 1 - (1 - ber) ** bits


@pytest.mark.parametrize("snr_db", [-6.0, -5.0, -4.0, -3.0])
def test_dbpsk_matches_the_closed_form(snr_db):
    assert wifi_per("11b", 1, snr_db, 1536, header=False) == pytest.approx(
        dbpsk_fer(snr_db, 8 * 1536), rel=1e-9
    )
    # The long PLCP header is 48 more bits at 1 Mbit/s.
    assert wifi_per("11b", 1, snr_db, 1536) == pytest.approx(
        dbpsk_fer(snr_db, 8 * 1536 + 48), rel=1e-9
    )


@pytest.mark.parametrize("snr_db", [0.0, 1.0, 2.0])
def test_dqpsk_matches_the_closed_form(snr_db):
    assert wifi_per("11b", 2, snr_db, 1000, header=False) == pytest.approx(
        dqpsk_fer(snr_db, 8000), rel=1e-9
    )


@pytest.mark.parametrize(("standard", "rates"), [("11a", A_RATES), ("11b", B_RATES)])
@pytest.mark.parametrize("model", ["nist", "yans"])
def test_limits_and_monotone(standard, rates, model):
    for rate in rates:
        assert wifi_per(standard, rate, -10, 1536, model=model) == pytest.approx(1.0, abs=1e-12)
        assert wifi_per(standard, rate, 40, 1536, model=model) == pytest.approx(0.0, abs=1e-12)
        fers = [wifi_per(standard, rate, s / 4, 1536, model=model) for s in range(-40, 161)]
        assert all(0.0 <= f <= 1.0 for f in fers)
        assert all(b <= a + 1e-12 for a, b in zip(fers, fers[1:], strict=False)), rate
        # Longer frames fail more often; the header only adds.
        assert wifi_per(standard, rate, 8, 100, model=model) <= wifi_per(
            standard, rate, 8, 1536, model=model
        )
        assert wifi_per(standard, rate, 8, 1536, model=model, header=False) <= wifi_per(
            standard, rate, 8, 1536, model=model
        )


def test_faster_rates_need_more_snr():
    half = {r: wifi_per("11a", r, 13, 1536) for r in A_RATES}
    assert half[6] < 1e-6 and half[54] > 0.999999
    assert wifi_per("11a", 24, 13, 1536, model="yans") < half[24]  # YANS is the optimistic model


@pytest.mark.parametrize(
    ("args", "kwargs", "needle"),
    [
        (("11g", 6, 10, 1500), {}, "standard"),
        (("11a", 11, 10, 1500), {}, "not a data rate of 802.11a"),
        (("11b", 6, 10, 1500), {}, "not a data rate of 802.11b"),
        (("11a", 6, 10, 1500), {"model": "ricean"}, "error model"),
        (("11b", 11, 10, 1500), {"preamble": "medium"}, "preamble"),
        (("11a", 6, 10, 1500), {"preamble": "short"}, "short preamble"),
        (("11a", 6, 10, 0), {}, "psdu_bytes"),
        (("11a", 6, 10, 4096), {}, "psdu_bytes"),
        (("11a", 6, 10, -1), {}, "psdu_bytes"),
        (("11a", 6, float("nan"), 1500), {}, "snr_db"),
    ],
)
def test_bad_arguments_raise_value_error(args, kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        wifi_per(*args, **kwargs)
