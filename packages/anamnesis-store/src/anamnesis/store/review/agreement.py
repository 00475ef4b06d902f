"""When two values of a kind can both be true of one thing (:func:`agree`): the same
value, a value inside the other's range or bound, the same version at another precision,
a path under the other, a command or name inside the other, one quantity in two units,
a rate and its period.
The finder never proposes two values that agree."""

from __future__ import annotations

import math
import re

from anamnesis.store.review.reading.quantities import (
    in_some_unit,
    key_unit,
    parse_version,
    unit_base,
)
from anamnesis.store.review.reading.settings import switch_state

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from anamnesis.store.review.reading.value import Value


def states(a: Value, b: Value) -> bool:
    """Whether a note saying ``a`` states ``b`` as well: they agree, and not only as a
    range or a bound holding a value (``"php": "^8.1"``, "needs Node 18" and
    ``min_replicas: 1`` allow 8.3, Node 20 and 12, yet state 8.1, 18 and 1: beside them,
    ``php:8.1-fpm-alpine`` against ``php:8.3-fpm-alpine`` still differs)."""
    if a.kind == "version" and (a.low or a.high) and not (b.low or b.high):
        return False
    if a.kind == "number" and a.norm != b.norm and (_bounded(a).bound or _bounded(b).bound):
        return False  # "at least 1" allows 12, and states no 12
    return agree(a, b)


def agree(a: Value, b: Value) -> bool:
    """Whether two values of a kind can both be true of one thing: the same value, a
    value inside the other's range, the same version at another precision, a path under
    the other, a command or name inside the other."""
    if a.norm == b.norm:
        return True
    if a.kind == "flag" and switch_state(a.norm) is not None:
        return switch_state(a.norm) == switch_state(b.norm)  # ``true`` and "enabled"
    if a.kind == "version":
        return _versions_agree(a, b)
    if a.kind in ("path", "url"):
        # a folder and a path inside it; a file's name and a path to it
        shorter, longer = sorted((a.norm, b.norm), key=len)
        if longer.startswith(shorter + "/"):
            return True
        return "/" not in shorter and "." in shorter and longer.endswith("/" + shorter)
    if a.kind in ("command", "name"):
        shorter, longer = sorted((a.norm, b.norm), key=len)
        if a.kind == "name" and longer == f"{shorter}s":
            return True  # NodePool, NodePools: one name, one or many of it
        return f" {shorter} " in f" {longer} "
    if a.kind == "number" and _one_size(a, b):
        return True  # "16 KB" and "16384 bytes", a bound or not: one size
    if a.kind == "number" and (a.bound or b.bound):
        return _numbers_agree(_bounded(a), _bounded(b))
    if a.kind == "number":
        return _one_quantity(a, b) or _one_quantity(b, a) or _rate_and_period(a, b)
    return False


def _one_size(a: Value, b: Value) -> bool:
    """Whether two sizes are one size counted in thousands and in 1,024s: "2 GB of RAM"
    and "2048 MB" (a gigabyte read as 1,024 megabytes), "1536 MB" and "1.5 GB", "2 GB" and
    "2 GiB". People write GB for either; their ratio is then a power of 1.024."""
    if not (_sized(a) and _sized(b)):
        return False
    try:
        small, large = sorted((float(a.norm), float(b.norm)))
    except ValueError:
        return False
    return small > 0 and any(
        math.isclose(large / small, 1.024**power, rel_tol=1e-9) for power in (1, 2, 3, 4)
    )


def _sized(value: Value) -> bool:
    """Whether a number is a size: said with its unit ("8 GB"), or a setting's given in
    one (``arc_max=8G``, ``memory=512MiB``) or whose key names one (``MAX_UPLOAD_BYTES``),
    whose slot is its key."""
    if value.slot == "byte":
        return True
    return value.keyed and (
        _SIZE_SHOWN.search(value.shown) is not None or unit_base(key_unit(value.slot)) == "byte"
    )


# A setting's number shown with a unit of size: ``=8G``, ``=512MiB``, ``=2gb``.
_SIZE_SHOWN = re.compile(r"\d\s*(?:[KMGTkmgt]i?[Bb]|[GgTt])[\"']?$")
# A key naming a rate per second: ``controller_frequency``, ``tick_rate_hz``,
# ``NetServerMaxTickRate``, ``frame_rate``.
_RATE_KEY = re.compile(
    r"(?:^|[^a-z])(?:freq(?:uency)?|hz|hertz)(?:$|[^a-z])|tick_?rate|frame_?rate|fps$",
    re.IGNORECASE,
)


def _rate_and_period(a: Value, b: Value) -> bool:
    """Whether one number is a rate per second and the other its period: 20 Hz (or
    ``controller_frequency=20``) and "every 50 ms"."""
    if b.slot == "s":
        a, b = b, a
    if a.slot != "s" or not (b.slot == "hz" or (b.keyed and _RATE_KEY.search(b.slot))):
        return False
    try:
        period, rate = float(a.norm), float(b.norm)
    except ValueError:
        return False
    # a period is often said rounded to the millisecond: 60 ticks a second is "17 ms"
    return rate > 0 and abs(period - 1 / rate) <= max(0.0005, 0.02 / rate)


# What a number is shown with when it is given with no unit: ``retention=28``, ``ttl 30``.
_BARE_NUMBER = re.compile(r"(?:^|[\s=:(])\d+(?:\.\d+)?\)?$")


def one_quantity(setting: Value, said: Value) -> bool:
    """Whether a number said in prose is a setting's number said again: the same value,
    the setting's bare number in one of the said quantity's units (``timeout=600000``
    and "ten minutes"), or one size counted in thousands and in 1,024s
    (``MAX_UPLOAD_BYTES=104857600`` "(100 MB)")."""
    return setting.norm == said.norm or _one_quantity(said, setting) or _one_size(setting, said)


def _one_quantity(measured: Value, bare: Value) -> bool:
    """Whether ``bare``, a setting's number shown with no unit, is ``measured`` (a
    duration or a size) in one of its units: ``backup_retention_period=28`` and "4 weeks"
    (28 days)."""
    if measured.slot not in ("s", "byte") or not bare.keyed or key_unit(bare.slot):
        return False  # a key that names its unit (``timeout_ms``) was scaled by it
    if not _BARE_NUMBER.search(bare.shown):
        return False
    try:
        return in_some_unit(float(bare.norm), float(measured.norm), measured.slot)
    except ValueError:
        return False


# A key that names a maximum or a minimum: ``max_replicas``, ``maxConnections``
# (``maxconnections`` once folded), ``shiny.maxRequestSize``, ``min.insync.replicas``,
# ``pool.max`` (not ``max_age``, a lifetime).
_MAX_KEY = re.compile(r"(?:^|[_.-])max(?!_?age)")
_MIN_KEY = re.compile(r"^min(?:imum)?(?=[_.-]|[a-z]{4})")


def _bounded(value: Value) -> Value:
    """A setting's number with the bound its key names (``max_replicas=4`` is at most
    4), else as it is."""
    if value.bound or not value.keyed:
        return value
    if _MAX_KEY.search(value.slot):
        return value.replace(bound="<=")
    if _MIN_KEY.search(value.slot):
        return value.replace(bound=">=")
    return value


def floor_and_ceiling_of(a: Value, b: Value) -> bool:
    """Whether one number is a minimum and the other a maximum (said so, or by their
    keys): they agree, as two things (a floor and a ceiling), never as one value."""
    bounds = {_bounded(a).bound, _bounded(b).bound}
    return bounds == {"<=", ">="}


def _numbers_agree(a: Value, b: Value) -> bool:
    """A minimum and a maximum both hold ("at least 12", "capped at 128"); a number
    agrees with a bound it keeps; two minimums (or maximums) that differ do not."""
    if a.bound and b.bound:
        return a.bound != b.bound
    bound, number = (a, b) if a.bound else (b, a)
    try:
        limit, value = float(bound.norm), float(number.norm)
    except ValueError:
        return False
    return value >= limit if bound.bound == ">=" else value <= limit


def _versions_agree(a: Value, b: Value) -> bool:
    if a.low is not None or a.high is not None:
        if b.low is not None or b.high is not None:
            # the same floor: one is narrower; or one is a whole major series ("5.x")
            # holding the other ("~> 5.40"): a raised floor (">= 3.11" after ">= 3.9")
            # still differs
            return (a.low is not None and a.low == b.low) or _in_series(a, b) or _in_series(b, a)
        return _inside(b, a)
    if b.low is not None or b.high is not None:
        return _inside(a, b)
    left, right = parse_version(a.norm), parse_version(b.norm)
    if left is None or right is None:
        return False
    if _suffix(a.norm) != _suffix(b.norm) and _suffix(a.norm) and _suffix(b.norm):
        return False
    size = min(len(left), len(right))
    return left[:size] == right[:size]


def _in_series(series: Value, other: Value) -> bool:
    """Whether ``series`` is one major version's whole series (``5.x``, ``^5``: at least 5,
    below 6) and ``other`` a range inside it (``~> 5.40``)."""
    low, high = series.low, series.high
    if low is None or high is None or len(low) != 1 or high != (low[0] + 1,):
        return False
    return (
        other.low is not None
        and other.low[:1] == low
        and other.high is not None
        and other.high <= high
    )


def _suffix(norm: str) -> str:
    return norm.split("-", 1)[1] if "-" in norm else ""


def _inside(value: Value, bounds: Value) -> bool:
    version = parse_version(value.norm)
    if version is None:
        return False
    if bounds.low is not None and version[: len(bounds.low)] < bounds.low:
        return False
    return bounds.high is None or version[: len(bounds.high)] < bounds.high
