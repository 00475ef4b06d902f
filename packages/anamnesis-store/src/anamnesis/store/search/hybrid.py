"""Vector and hybrid ranking over one connection (sqlite-vec loaded into it).

Keyword ranking is :mod:`anamnesis.store.search.query` (spec 002); nearest neighbours are
:mod:`anamnesis.store.vectors.vector_index` (a note's cosine is its best passage's: a long note is
embedded as several, :mod:`anamnesis.store.vectors.passages`); :mod:`anamnesis.store.search.fusion`
merges the two. Both
candidate lists are taken deeper than ``k`` and every candidate gets both scores, so a note
just outside one list is not treated as having no evidence there (scoring the vector
candidates' BM25 too raises devmemory Recall@8 from 0.870 to 0.895).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from anamnesis.store.index.note_queries import Filters
from anamnesis.store.note.model import RankReason
from anamnesis.store.search import fusion
from anamnesis.store.search.fusion import Weight, fuse, fused_score
from anamnesis.store.search.query import Ranker, match_expression
from anamnesis.store.search.query_kind import QueryKind, classify, idf_shares
from anamnesis.store.vectors import vector_index

# How deep each list is read before fusing. On devmemory and names-and-dates, 24 and 40
# give the same results; reading fewer costs less.
_MIN_DEPTH = 24
_DEPTH_FACTOR = 3


def candidates_depth(k: int) -> int:
    return max(_MIN_DEPTH, _DEPTH_FACTOR * k)


def vector_ranking(
    conn: sqlite3.Connection,
    ranker: Ranker,
    tokens: Sequence[str],
    query_vector: bytes,
    model: str,
    filters: Filters,
    k: int,
    *,
    stop_words_shared: bool = False,
    text: str = "",
    why: dict[str, RankReason] | None = None,
) -> list[tuple[str, float]]:
    """(id, cosine similarity) of the ``k`` eligible notes nearest the query, best first,
    leaving out notes below the relevance floor (:func:`.fusion.vector_floor`).
    ``stop_words_shared``: the query's left-out stop words are in the store (it is
    language, not a random string, whatever its other words); ``why``: filled with each
    hit's :class:`RankReason` (``text``, the query, is hybrid search's only)."""
    shares_a_word = stop_words_shared or (
        bool(tokens) and bool(ranker.ranked_ids(tokens, filters, 1))
    )
    floor = fusion.vector_floor(shares_a_word)
    nearest = vector_index.nearest(conn, query_vector, model, filters, k)
    ranked = [(memory_id, cosine) for memory_id, cosine in nearest if cosine >= floor]
    if why is not None:
        for place, (memory_id, cosine) in enumerate(ranked, 1):
            why[memory_id] = RankReason(None, (), 0.0, 1.0, None, None, None, cosine, place)
    return ranked


def hybrid_ranking(
    conn: sqlite3.Connection,
    ranker: Ranker,
    tokens: Sequence[str],
    query_vector: bytes,
    model: str,
    filters: Filters,
    k: int,
    *,
    stop_words_shared: bool = False,
    text: str = "",
    why: dict[str, RankReason] | None = None,
) -> list[tuple[str, float]]:
    """(id, fused score) of the best ``k`` eligible notes by keyword and vector evidence,
    weighed by the kind of query ``text`` is (:mod:`.query_kind`, :func:`.fusion.weight_for`);
    ``why``: filled with each hit's :class:`RankReason`.

    A note that shares no word with the query is a candidate only when its cosine
    similarity reaches the relevance floor (:func:`.fusion.vector_floor`): a query about
    nothing in the store finds nothing. The answer is the one that scoring
    every candidate fully would give; the work that cannot change it is skipped (each skip
    is explained where it happens).
    """
    depth = candidates_depth(k)
    keyword = ranker.ranked_ids(tokens, filters, depth) if tokens else []
    floor = fusion.vector_floor(bool(keyword) or stop_words_shared)
    nearest = vector_index.nearest(conn, query_vector, model, filters, depth)
    bm25 = dict(keyword)
    cosine = dict(nearest)
    without_cosine = [memory_id for memory_id in bm25 if memory_id not in cosine]
    if without_cosine:
        cosine.update(vector_index.similarities(conn, query_vector, model, without_cosine))
    # Which of the query's words each keyword hit holds: the best hit's share of them
    # weighs the keyword evidence and, weighed by IDF, decides the query's kind; every
    # hit's share of the information weighs its own evidence in a look-up; the near-best
    # hits' coverage says which are exact matches, never pushed out.
    held = words_held_by(conn, tokens, list(bm25)) if keyword and tokens else {}
    coverage = _coverage_of(tokens, held)
    best = keyword[0] if keyword else None
    total = ranker.note_count()
    kind = classify(
        text, tokens, ranker.notes_holding, total, keyword,
        coverage.get(best[0], 0.0) if best else 0.0,
        best_holds=held[best[0]] if best else frozenset(),
    )  # fmt: skip
    weight = fusion.weight_for(kind)
    information: dict[str, float] = {}
    if weight.information > 0:
        information = idf_shares(tokens, held, ranker.notes_holding, total)
    without_bm25 = [memory_id for memory_id in cosine if memory_id not in bm25]
    if without_bm25 and len(keyword) == depth:
        # A note missing from a full keyword list has a BM25 no better than the last
        # hit's: fetch it only for notes that could then reach the top k (counting each
        # as holding all of the query's information: the most it could). From a list cut
        # short, a missing note shares no word with the query: nothing to fetch.
        known = _above_floor(cosine, bm25, floor)
        provisional = fuse(keyword, bm25, known, k, coverage, weight, information)
        threshold = min(
            fused_score(keyword, known, coverage, m, bm25, weight, information) for m in provisional
        )
        last = dict.fromkeys(without_bm25, keyword[-1][1])
        reachable = [
            memory_id
            for memory_id in without_bm25
            if fused_score(keyword, cosine, coverage, memory_id, last, weight, information)
            >= threshold
        ]
        if reachable and tokens:
            found = _bm25_of(conn, tokens, reachable)
            bm25.update(found)
            if weight.information > 0 and found:
                more = words_held_by(conn, tokens, list(found))
                information.update(idf_shares(tokens, more, ranker.notes_holding, total))
    cosine = _above_floor(cosine, bm25, floor)
    top = fuse(keyword, bm25, cosine, k, coverage, weight, information)
    if why is not None:
        why.update(
            _reasons(top, kind, weight, keyword, bm25, cosine, coverage, nearest, information)
        )
    return [(m, fused_score(keyword, cosine, coverage, m, bm25, weight, information)) for m in top]


def _reasons(
    top: Sequence[str],
    kind: QueryKind,
    weight: Weight,
    keyword: Sequence[tuple[str, float]],
    bm25: dict[str, float],
    cosine: dict[str, float],
    coverage: dict[str, float],
    nearest: Sequence[tuple[str, float]],
    information: dict[str, float],
) -> dict[str, RankReason]:
    """Why each of ``top`` ranked where it did: the evidence :func:`.fusion.fused_score`
    weighed, and the weights (the keyword one as the best hit's coverage made it; the
    information one, and each hit's share of the query's information, for a look-up)."""
    best = keyword[0][1] if keyword else 0.0
    keyword_weight = fusion.keyword_share(keyword, coverage, weight)
    keyword_place = {memory_id: place for place, (memory_id, _) in enumerate(keyword, 1)}
    vector_place = {memory_id: place for place, (memory_id, _) in enumerate(nearest, 1)}
    exact = set(fusion.exact_hits(keyword, bm25, coverage))
    anchors = tuple((a.text, a.why, a.notes) for a in kind.anchors)
    out: dict[str, RankReason] = {}
    for memory_id in top:
        score = bm25.get(memory_id)
        relative = None if score is None else fusion.relative_bm25(score, best)
        held = information.get(memory_id) if weight.information > 0 else None
        evidence = fusion.keyword_evidence(relative or 0.0, 1.0 if held is None else held, weight)
        out[memory_id] = RankReason(
            kind.kind,
            anchors,
            round(keyword_weight, 6),
            round(1 - weight.keyword, 6),
            None if score is None else -score,
            relative,
            keyword_place.get(memory_id),
            cosine.get(memory_id),
            vector_place.get(memory_id),
            memory_id in exact,
            round(kind.information, 6),
            None if held is None else round(held, 6),
            weight.information,
            round(evidence, 6),
        )
    return out


def _above_floor(
    cosine: dict[str, float], bm25: dict[str, float], floor: float
) -> dict[str, float]:
    """The candidates' cosines, less the notes that are candidates by vector evidence alone
    and fall below the relevance floor (a keyword hit keeps its cosine, however low: a
    shared word already makes it a candidate)."""
    return {m: c for m, c in cosine.items() if c >= floor or m in bm25}


def _coverage_of(tokens: Sequence[str], held: dict[str, frozenset[str]]) -> dict[str, float]:
    """Each note's share of the query's distinct words, from the words it holds."""
    words = len({token.casefold() for token in tokens}) or 1
    return {memory_id: len(found) / words for memory_id, found in held.items()}


def words_held_by(
    conn: sqlite3.Connection, tokens: Sequence[str], ids: Sequence[str]
) -> dict[str, frozenset[str]]:
    """For each note, which of the query's distinct words (case-folded) it holds, as FTS5
    matches them (stemmed): one look-up per word, over all the notes at once."""
    found: dict[str, set[str]] = {memory_id: set() for memory_id in ids}
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    for word in dict.fromkeys(token.casefold() for token in tokens):
        rows = conn.execute(
            "SELECT m.id FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND m.id IN ({marks})",
            [match_expression([word]), *ids],
        )
        for (memory_id,) in rows:
            found[memory_id].add(word)
    return {memory_id: frozenset(words) for memory_id, words in found.items()}


def _bm25_of(
    conn: sqlite3.Connection, tokens: Sequence[str], ids: Sequence[str]
) -> dict[str, float]:
    """The BM25 of these notes for the query (absent: the note shares no query word)."""
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT m.id, bm25(memories_fts) FROM memories_fts JOIN memories m"
        " ON m.seq = memories_fts.rowid"
        f" WHERE memories_fts MATCH ? AND m.id IN ({marks})",
        [match_expression(tokens), *ids],
    )
    return {memory_id: float(score) for memory_id, score in rows}
