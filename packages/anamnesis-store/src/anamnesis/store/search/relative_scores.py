"""One readable score for every search mode: each hit's score relative to the best hit.

Raw scores differ by mode in scale and sign (keyword: BM25 as FTS5 computes it, often
around 1e-06; vector: cosine similarity, -1 to 1; hybrid: the fused 0-1 score), and they
compare within one search only. Relative to the best hit they read the same everywhere:
1.00 for the best, less for the rest, never below 0. The CLI's table and the dashboard's
search page show it (two decimals); ``--json`` keeps the raw ``score`` beside
``relative_score``.
"""

from __future__ import annotations

from collections.abc import Sequence


def relative_scores(scores: Sequence[float]) -> list[float]:
    """Each score from 0 to 1 relative to the best.

    With a positive best score: its share of the best (a note half as relevant reads 0.50),
    never below 0. When no score is positive (cosine similarities of a query unlike every
    note), the share would mean nothing: the scores are spread from the worst (0) to the
    best (1) instead, and equal scores are all 1.
    """
    if not scores:
        return []
    best = max(scores)
    if best > 0:
        return [max(0.0, score) / best for score in scores]
    worst = min(scores)
    if best == worst:
        return [1.0 for _ in scores]
    return [(score - worst) / (best - worst) for score in scores]
