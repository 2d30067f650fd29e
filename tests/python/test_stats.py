import math

import pytest

from xltcp.stats import mean_ci


def test_five_values_known_interval():
    mean, half = mean_ci([1, 2, 3, 4, 5])
    assert mean == 3.0
    # t(0.975, 4) = 2.7764451051977987; sample variance 2.5.
    assert half == pytest.approx(2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5), rel=1e-9)
    assert half == pytest.approx(1.9632432, rel=1e-6)


def test_higher_confidence_widens_the_interval():
    _, half95 = mean_ci([1, 2, 3, 4, 5], 0.95)
    _, half99 = mean_ci([1, 2, 3, 4, 5], 0.99)
    # t(0.995, 4) = 4.604094871349993
    assert half99 == pytest.approx(4.604094871349993 * math.sqrt(0.5), rel=1e-9)
    assert half99 > half95


def test_two_values():
    mean, half = mean_ci([10.0, 12.0])
    assert mean == 11.0
    # t(0.975, 1) = 12.706204736174698; s = sqrt(2)
    assert half == pytest.approx(12.706204736174698 * math.sqrt(2) / math.sqrt(2), rel=1e-9)


def test_equal_values_have_zero_width():
    assert mean_ci([4.0, 4.0, 4.0]) == (4.0, 0.0)


def test_one_value_has_undefined_width():
    mean, half = mean_ci([7.5])
    assert mean == 7.5
    assert math.isnan(half)


@pytest.mark.parametrize(
    "values, confidence", [([], 0.95), ([1, 2], 0.0), ([1, 2], 1.0), ([1, 2], 95)]
)
def test_bad_input_is_refused(values, confidence):
    with pytest.raises(ValueError):
        mean_ci(values, confidence)
