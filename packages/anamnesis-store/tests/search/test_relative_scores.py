"""A search's scores made readable: relative to the best hit, 0 to 1, in every mode."""

from __future__ import annotations

import pytest

from anamnesis.store import relative_scores


def test_scores_are_relative_to_the_best_hit() -> None:
    keyword = [3.71e-06, 2e-06, 1.855e-06]  # BM25 as the store gives it
    assert relative_scores(keyword) == pytest.approx([1.0, 0.5391, 0.5], abs=1e-4)
    assert relative_scores([13.9, 6.95]) == [1.0, 0.5]  # any scale reads the same
    assert relative_scores([0.8, -0.2]) == [1.0, 0.0]  # never below 0
    assert relative_scores([]) == []


def test_scores_with_no_positive_best_spread_from_worst_to_best() -> None:
    assert relative_scores([-0.1, -0.3, -0.2]) == pytest.approx([1.0, 0.0, 0.5])
    assert relative_scores([0.0, 0.0]) == [1.0, 1.0]
    assert relative_scores([-0.5]) == [1.0]
