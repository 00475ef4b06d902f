"""The percentile the benchmarks report, one definition for all of them."""

from __future__ import annotations

from collections.abc import Sequence


def p95(values: Sequence[float]) -> float:
    """The value 95 % of the way up (nearest rank, no interpolation)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
