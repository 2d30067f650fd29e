"""Values of a swept key, written as people write them.

``--vary KEY=VALUES`` takes one of:

- a list, ``0,0.01,0.05`` or ``10Mbps,20Mbps`` or ``"exp(4s)","exp(8s)"``:
  each item is a TOML value (number, boolean, quoted string) or, when it is
  not one, a bare string such as ``10Mbps``;
- a linear range, ``A..B/N``: N evenly spaced values from A to B inclusive,
  ``0..0.1/5`` or ``1Mbps..10Mbps/10``; for integers without a unit ``A..B``
  alone means every integer from A to B;
- a log range, ``A..B/logN``: N values spaced evenly on a log scale from A to
  B inclusive (A and B > 0), ``1ms..1s/log4`` gives 1ms, 10ms, 100ms, 1000ms.

The ends of a range carry the same kind of unit (durations ns, us, ms, s,
min, h; rates bps, kbps, Mbps, Gbps, Tbps, also bit/s forms; sizes B, kB,
MB, GB, KiB, MiB, GiB) or none; values are written in the unit of A. The
durations of a range are rounded to whole nanoseconds, the core's
resolution (``1ms..2ms/4`` gives 1ms, 1.333333ms, 1.666667ms, 2ms), and
written in seconds where the unit of A cannot say them exactly (minutes,
hours).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import tomli_w
import tomllib

#: Most values one key may take (a guard against typos like /100000).
MAX_VALUES = 10_000

_UNITS: dict[str, tuple[str, float]] = {
    # duration, in seconds
    "ns": ("duration", 1e-9),
    "us": ("duration", 1e-6),
    "µs": ("duration", 1e-6),
    "ms": ("duration", 1e-3),
    "s": ("duration", 1.0),
    "min": ("duration", 60.0),
    "h": ("duration", 3600.0),
    # rate, in bit/s
    "bps": ("rate", 1.0),
    "bit/s": ("rate", 1.0),
    "kbps": ("rate", 1e3),
    "kbit/s": ("rate", 1e3),
    "Mbps": ("rate", 1e6),
    "Mbit/s": ("rate", 1e6),
    "Gbps": ("rate", 1e9),
    "Gbit/s": ("rate", 1e9),
    "Tbps": ("rate", 1e12),
    "Tbit/s": ("rate", 1e12),
    # size, in bytes
    "B": ("size", 1.0),
    "kB": ("size", 1e3),
    "KB": ("size", 1e3),
    "MB": ("size", 1e6),
    "GB": ("size", 1e9),
    "TB": ("size", 1e12),
    "KiB": ("size", 1024.0),
    "MiB": ("size", 1024.0**2),
    "GiB": ("size", 1024.0**3),
    "TiB": ("size", 1024.0**4),
}

#: Nanoseconds in a duration unit.
_NS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9}
_NS["h"] = 60 * _NS["min"]

_QUANTITY = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-zµ/]*)\s*")

ALLOWED = (
    'a list (0,0.01,0.05 or 10Mbps,20Mbps or "exp(4s)","exp(8s)"), '
    "a linear range A..B/N (1Mbps..10Mbps/10, N values) or a log range A..B/logN (1ms..1s/log4)"
)


class ValueSpecError(ValueError):
    """A ``--vary`` value that does not name a list of values."""


@dataclass(frozen=True)
class Value:
    """One value of a swept key: as a column of the results table and as TOML."""

    value: Any
    toml: str


def toml_value(value: Any) -> str:
    """A Python value as the TOML text of an override (``"10Mbps"``, ``0.05``)."""
    text = tomli_w.dumps({"v": value}, multiline_strings=False)
    _, _, rhs = text.partition("=")
    return rhs.strip().replace("\n", " ").replace(",]", "]").replace(", ]", "]")


def _item(text: str) -> Value:
    text = text.strip()
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text
    if isinstance(value, (dict, list)):
        return Value(text, text)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueSpecError(f"{text!r} is not a finite number")
    return Value(value, toml_value(value))


def _split_list(text: str) -> list[str]:
    # Commas outside quotes, brackets and braces separate items.
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _quantity(text: str, whole: str) -> tuple[float, str]:
    match = _QUANTITY.fullmatch(text)
    if not match:
        raise ValueSpecError(
            f"{whole!r}: {text.strip()!r} is not a number with an optional unit; expected {ALLOWED}"
        )
    number, unit = match.group(1), match.group(2)
    if unit and unit not in _UNITS:
        known = ", ".join(_UNITS)
        raise ValueSpecError(f"{whole!r}: unknown unit {unit!r} (units: {known})")
    if not math.isfinite(float(number)):
        raise ValueSpecError(f"{whole!r}: {text.strip()!r} is not a finite number")
    return float(number), unit


def _format(number: float, digits: int) -> str:
    text = f"{number:.{digits}g}"
    if "e" in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{float(text):.{max(0, -int(exponent) + digits)}f}".rstrip("0").rstrip(".")
    return text


def _duration_text(ns: int, unit: str) -> str:
    """``ns`` nanoseconds written exactly: in ``unit`` when a decimal number of
    them says it (not 80 s in minutes), else in seconds."""
    exact = Fraction(ns, _NS[unit])
    denominator = exact.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    if denominator != 1:
        unit, exact = "s", Fraction(ns, 10**9)
    text = format((Decimal(exact.numerator) / Decimal(exact.denominator)).normalize(), "f")
    return text + unit


def _range(text: str, whole: str) -> list[Value]:
    a_text, _, rest = text.partition("..")
    b_text, n_text, log = rest, None, False
    head, slash, tail = rest.rpartition("/")
    if slash and re.fullmatch(r"\s*(log)?\s*\S*\s*", tail) and not tail.strip() == "s":
        b_text, n_text = head, tail.strip()
        if n_text.startswith("log"):
            log, n_text = True, n_text[3:].strip()
    a, a_unit = _quantity(a_text, whole)
    b, b_unit = _quantity(b_text, whole)
    if (a_unit or b_unit) and not (a_unit and b_unit):
        raise ValueSpecError(f"{whole!r}: give both ends of the range a unit, or neither")
    if a_unit and _UNITS[a_unit][0] != _UNITS[b_unit][0]:
        raise ValueSpecError(
            f"{whole!r}: the ends are a {_UNITS[a_unit][0]} and a {_UNITS[b_unit][0]}"
        )
    integers = not a_unit and "." not in a_text + b_text and "e" not in (a_text + b_text).lower()
    if n_text is None:
        if not integers or log:
            raise ValueSpecError(
                f"{whole!r}: say how many values with /N (linear) or /logN (log), e.g. {whole}/5"
            )
        if b < a:
            raise ValueSpecError(f"{whole!r}: the range ends ({b:g}) before it starts ({a:g})")
        count = int(b) - int(a) + 1
        if count > MAX_VALUES:
            raise ValueSpecError(f"{whole!r}: {count} values; at most {MAX_VALUES} for one key")
        return [Value(v, str(v)) for v in range(int(a), int(b) + 1)]
    if not re.fullmatch(r"\s*\d+\s*", n_text):
        raise ValueSpecError(
            f"{whole!r}: {n_text!r} after '/' is not a count; "
            "expected /N or /logN, e.g. /5 or /log4"
        )
    n = int(n_text)
    if n < 2:
        raise ValueSpecError(f"{whole!r}: a range needs at least 2 values, got {n}")
    if n > MAX_VALUES:
        raise ValueSpecError(f"{whole!r}: {n} values; at most {MAX_VALUES} for one key")
    scale = _UNITS[a_unit][1] if a_unit else 1.0
    lo, hi = a * scale, b * (_UNITS[b_unit][1] if b_unit else 1.0)
    if log:
        if lo <= 0 or hi <= 0:
            raise ValueSpecError(f"{whole!r}: a log range needs both ends above 0")
        points = [
            math.exp(math.log(lo) + i * (math.log(hi) - math.log(lo)) / (n - 1)) for i in range(n)
        ]
        digits = 6
    else:
        points = [lo + i * (hi - lo) / (n - 1) for i in range(n)]
        digits = 12
    points[0], points[-1] = lo, hi
    numbers = [float(_format(point / scale, digits)) for point in points]
    nanoseconds = a_unit and _UNITS[a_unit][0] == "duration"
    if nanoseconds:
        # Whole nanoseconds: of the rounded values of a log range, of the
        # exact points of a linear one.
        seconds = [number * scale for number in numbers] if log else points
        texts = [_duration_text(round(s * 1e9), a_unit) for s in seconds]
        values = [Value(text, toml_value(text)) for text in texts]
    elif a_unit:
        texts = [_format(number, digits) + a_unit for number in numbers]
        values = [Value(text, toml_value(text)) for text in texts]
    elif integers and not log and all(number.is_integer() for number in numbers):
        values = [Value(int(number), str(int(number))) for number in numbers]
    else:
        values = [Value(number, toml_value(number)) for number in numbers]
    if len({v.toml for v in values}) != len(values):
        finest = " (durations are whole nanoseconds)" if nanoseconds else ""
        raise ValueSpecError(
            f"{whole!r}: {n} values would repeat at this precision{finest}; use fewer"
        )
    return values


def parse_values(text: str) -> list[Value]:
    """The values named by a list, a linear range or a log range (module doc)."""
    whole = text
    text = text.strip()
    if not text:
        raise ValueSpecError(f"no values; expected {ALLOWED}")
    if ".." in text and "," not in text and not text.startswith(('"', "'")):
        return _range(text, whole)
    items = _split_list(text)
    if any(not item.strip() for item in items):
        raise ValueSpecError(f"{whole!r}: an empty item in the list; expected {ALLOWED}")
    values = [_item(item) for item in items]
    if len(values) > MAX_VALUES:
        raise ValueSpecError(f"{whole!r}: {len(values)} values; at most {MAX_VALUES} for one key")
    seen: set[str] = set()
    for v in values:
        if v.toml in seen:
            raise ValueSpecError(f"{whole!r}: {v.toml} is listed twice")
        seen.add(v.toml)
    return values


def parse_vary(text: str) -> tuple[str, list[Value]]:
    """``KEY=VALUES`` split and parsed; raises ValueSpecError naming the key."""
    key, sep, rest = text.partition("=")
    key = key.strip()
    if not sep or not key or any(not part.strip() for part in key.split(".")):
        raise ValueSpecError(
            f"{text!r}: expected KEY=VALUES, e.g. wireless.loss.down.p=0,0.01,0.05"
        )
    try:
        return key, parse_values(rest)
    except ValueSpecError as e:
        raise ValueSpecError(f"{key}: {e}") from None


def values_from_toml(key: str, raw: Any) -> list[Value]:
    """The values of ``[sweep.vary]`` KEY: a string in the ``--vary`` syntax or a TOML array."""
    if isinstance(raw, str):
        try:
            return parse_values(raw)
        except ValueSpecError as e:
            raise ValueSpecError(f"{key}: {e}") from None
    if isinstance(raw, list) and len(raw) > MAX_VALUES:
        raise ValueSpecError(f"{key}: {len(raw)} values; at most {MAX_VALUES} for one key")
    if isinstance(raw, list) and raw:
        values = [Value(v, toml_value(v)) for v in raw]
        if len({v.toml for v in values}) != len(values):
            raise ValueSpecError(f"{key}: a value is listed twice")
        return values
    raise ValueSpecError(f"{key}: expected a non-empty array or a string: {ALLOWED}")
