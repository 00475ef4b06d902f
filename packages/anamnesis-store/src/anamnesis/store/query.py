"""Keyword recall (spec 002): quoted query tokens OR-joined, ranked by FTS5 BM25.

Every ``\\w+`` run of the query becomes a double-quoted FTS5 phrase, so operators and
punctuation in user text (``state-of-the-art``, ``16:9``, ``"``) can never break the
query; the phrases are OR-joined so a note sharing some words is still found; BM25 ranks,
the more recently updated note wins a tie; superseded notes never come back.

Two things make this fast without changing a single result:

* FTS5's bm25 clamps the IDF of a term found in at least half of all notes to 1e-6, so
  such a phrase moves any note's score by less than 2.2e-6. Those phrases are left out of
  the query when others remain; they are used only when too few notes match the rest,
  and whenever two neighbouring results are closer than their total possible effect, the
  full query decides.
* Ranking runs on the full-text table alone (``ORDER BY bm25 LIMIT n``); the note rows are
  fetched for the few best hits only, where filters, supersession and the recency
  tie-break are applied, widening ``n`` until the answer is certain.
* In a large store a query's common words match most notes, and BM25 must score every one
  of them. A note's score is a sum over the query's phrases, so the most a common word can
  add to any note is known (its best single-word score, remembered until the index
  changes). Ranking on the query's rarer words alone gives candidates; the candidates get
  their exact full score; a note that is not a candidate scores at most the last
  candidate's rare-word score plus what the common words can add. Once k eligible
  candidates beat that, they are the answer, exactly as the full query would rank them.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from itertools import pairwise

from anamnesis.store.record import Record

_TOKEN = re.compile(r"\w+")

# FTS5's bm25 parameters (fts5_aux.c): k1 = 1.2, and the IDF floor for very common terms.
_K1 = 1.2
_IDF_FLOOR = 1e-6
# A clamped phrase adds at most floor * (k1 + 1) to a note's score; allow for rounding.
_CLAMPED_EFFECT = _IDF_FLOOR * (_K1 + 1) * 1.001
# Rank this many beyond k on the first try: enough for filters and ties most of the time.
_FIRST_MARGIN = 24
# Past this many ranked candidates, let SQLite filter while ranking instead.
_MAX_WIDENED = 400
# Pruning pays off from this many notes (below it the plain query takes a millisecond or
# two); a word in at least this share of the notes counts as common.
PRUNE_FROM_NOTES = 5000
COMMON_SHARE = 0.02
# Candidates ranked by rare words before pruning gives up and the full query runs.
_MAX_CANDIDATES = 6400
# Scores summed in another order differ in the last bits: certainty needs this margin.
_FLOAT_SLACK = 1e-9


def query_tokens(query: str) -> list[str]:
    """The word tokens of a free-text query, in order (repeats kept, as the spec does)."""
    return _TOKEN.findall(query)


def match_expression(tokens: Sequence[str]) -> str:
    """An FTS5 MATCH expression: every token a quoted phrase, joined by OR."""
    return " OR ".join(f'"{token}"' for token in tokens)


class Filters(Record):
    """Exact-match filters shared by search and list. None means "any"."""

    __slots__ = ("project", "scope", "tag", "types")

    def __init__(
        self,
        project: str | None = None,
        types: tuple[str, ...] | None = None,
        scope: str | None = None,
        tag: str | None = None,
    ) -> None:
        self.project = project
        self.types = types
        self.scope = scope
        self.tag = tag

    def sql(self, alias: str = "m") -> tuple[str, list[object]]:
        """``AND ...`` clauses and their parameters (values are always bound, never inlined)."""
        clauses: list[str] = []
        params: list[object] = []
        if self.project is not None:
            clauses.append(f"{alias}.project = ?")
            params.append(self.project)
        if self.types is not None:
            clauses.append(f"{alias}.type IN ({','.join('?' * len(self.types))})")
            params.extend(self.types)
        if self.scope is not None:
            clauses.append(f"{alias}.scope = ?")
            params.append(self.scope)
        if self.tag is not None:
            clauses.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {alias}.id AND t.tag = ?)"
            )
            params.append(self.tag)
        return "".join(f" AND {clause}" for clause in clauses), params


NOT_SUPERSEDED = "m.id NOT IN (SELECT superseded_id FROM memory_supersedes)"

# (score, updated_at, id) of one hit; lower score is better (FTS5 bm25 is negative).
Hit = tuple[float, str, str]


class Ranker:
    """Ranks notes for a query on one connection; remembers which terms are clamped.

    The memory is dropped whenever the index changes (this connection's own writes or
    another connection's commits), so it never outlives the counts it came from.
    """

    __slots__ = (
        "_best",
        "_freq",
        "_rows",
        "_version",
        "common_share",
        "conn",
        "prune_from",
        "pruned_answers",
    )

    def __init__(
        self,
        conn: sqlite3.Connection,
        prune_from: int = PRUNE_FROM_NOTES,
        common_share: float = COMMON_SHARE,
    ) -> None:
        self.conn = conn
        self.prune_from = prune_from
        self.common_share = common_share
        self.pruned_answers = 0  # queries pruning settled (for diagnosis and tests)
        self._freq: dict[tuple[str, int], int] = {}
        self._best: dict[str, float] = {}
        self._rows = -1
        self._version = (-1, -1)

    def ranked_ids(
        self, tokens: Sequence[str], filters: Filters, k: int
    ) -> list[tuple[str, float]]:
        """The ids (and BM25 scores) of the best ``k`` notes for the tokens, best first."""
        if not tokens:
            return []
        self._forget_if_changed()
        total = self._total()
        if total >= self.prune_from:
            pruned = self._top_pruned(tokens, filters, k, total)
            if pruned is not None:
                self.pruned_answers += 1
                return [(memory_id, score) for score, _updated, memory_id in pruned]
        clamped = {token for token in tokens if self._is_clamped(token, total)}
        informative = [token for token in tokens if token not in clamped]
        if clamped and informative:
            hits = self._top(informative, filters, k + 1)
            if len(hits) > k and _well_separated(hits, len(tokens) - len(informative)):
                return [(memory_id, score) for score, _updated, memory_id in hits[:k]]
            hits = self._top(list(tokens), filters, k)
        else:
            hits = self._top(list(tokens), filters, k)
        return [(memory_id, score) for score, _updated, memory_id in hits[:k]]

    # -- ranking ---------------------------------------------------------------------

    def _top(self, tokens: Sequence[str], filters: Filters, want: int) -> list[Hit]:
        """The best ``want`` eligible hits in spec order (score, newer first, then id)."""
        expression = match_expression(tokens)
        limit = want + _FIRST_MARGIN
        while limit <= _MAX_WIDENED:
            ranked = self.conn.execute(
                "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
                " ORDER BY bm25(memories_fts) LIMIT ?",
                (expression, limit),
            ).fetchall()
            hits = self._eligible(ranked, filters)
            exhausted = len(ranked) < limit
            if exhausted:
                return hits[:want]
            # Certain once `want` eligible hits score strictly better than the last ranked
            # row: anything beyond the limit scores no better than that row.
            if len(hits) >= want and hits[want - 1][0] < ranked[-1][1]:
                return hits[:want]
            limit *= 4
        return self._top_filtered_in_sql(expression, filters, want)

    def _top_pruned(
        self, tokens: Sequence[str], filters: Filters, k: int, total: int
    ) -> list[Hit] | None:
        """The best ``k`` eligible hits of the full query, found by ranking its rarer words
        and bounding what its common words can add (see the module docstring); None when
        the query has no such split or pruning cannot settle it (the caller then runs
        the full query)."""
        threshold = max(2, int(total * self.common_share))
        common = {token for token in set(tokens) if self._doc_freq(token, threshold) >= threshold}
        rare = [token for token in tokens if token not in common]
        if not common or not rare:
            return None
        # Repeated words are repeated phrases in the OR query: each adds its score.
        bound = sum(self._best_score(token) for token in tokens if token in common)
        full, partial = match_expression(tokens), match_expression(rare)
        limit = k + _FIRST_MARGIN
        while limit <= _MAX_CANDIDATES:
            ranked = self.conn.execute(
                "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
                " ORDER BY bm25(memories_fts) LIMIT ?",
                (partial, limit),
            ).fetchall()
            exhausted = len(ranked) < limit
            hits = self._eligible(self._scores(full, [rowid for rowid, _ in ranked]), filters)
            # The best a note outside the candidates can score (FTS5 scores are negative).
            ceiling = (0.0 if exhausted else -ranked[-1][1]) + bound
            if len(hits) >= k and -hits[k - 1][0] > ceiling * (1 + _FLOAT_SLACK) + _FLOAT_SLACK:
                return hits[:k]
            if exhausted:
                return None  # notes with only common words could still make the top k
            limit *= 4
        return None

    def _scores(self, expression: str, rowids: list[int]) -> list[tuple[int, float]]:
        """The full query's BM25 for these notes (all of them match it)."""
        out: list[tuple[int, float]] = []
        for start in range(0, len(rowids), 900):  # under old SQLite's 999-parameter limit
            chunk = rowids[start : start + 900]
            marks = ",".join("?" * len(chunk))
            out.extend(
                self.conn.execute(
                    "SELECT rowid, bm25(memories_fts) FROM memories_fts"
                    f" WHERE memories_fts MATCH ? AND rowid IN ({marks})",
                    [expression, *chunk],
                ).fetchall()
            )
        return out

    def _best_score(self, token: str) -> float:
        """The most one occurrence of the word can add to any note's score (positive)."""
        best = self._best.get(token)
        if best is None:
            row = self.conn.execute(
                "SELECT bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
                " ORDER BY bm25(memories_fts) LIMIT 1",  # bm25() cannot go inside min()
                (match_expression([token]),),
            ).fetchone()
            best = self._best[token] = -float(row[0]) if row else 0.0
        return best

    def _eligible(self, ranked: list[tuple[int, float]], filters: Filters) -> list[Hit]:
        if not ranked:
            return []
        score_of = dict(ranked)
        where, params = filters.sql()
        marks = ",".join("?" * len(ranked))
        rows = self.conn.execute(
            f"SELECT m.seq, m.updated_at, m.id FROM memories m WHERE m.seq IN ({marks})"
            f"{where} AND {NOT_SUPERSEDED}",
            [seq for seq, _score in ranked] + params,
        ).fetchall()
        hits = [(score_of[seq], updated, memory_id) for seq, updated, memory_id in rows]
        return _in_spec_order(hits)

    def _top_filtered_in_sql(self, expression: str, filters: Filters, want: int) -> list[Hit]:
        where, params = filters.sql()
        rows = self.conn.execute(
            "SELECT bm25(memories_fts) AS score, m.updated_at, m.id FROM memories_fts f"
            " JOIN memories m ON m.seq = f.rowid"
            f" WHERE memories_fts MATCH ?{where} AND {NOT_SUPERSEDED}"
            " ORDER BY score, m.updated_at DESC, m.id DESC LIMIT ?",
            [expression, *params, want],
        ).fetchall()
        return [(score, updated, memory_id) for score, updated, memory_id in rows]

    # -- term statistics -------------------------------------------------------------

    def _total(self) -> int:
        if self._rows < 0:
            self._rows = self.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        return self._rows

    def _doc_freq(self, token: str, cap: int) -> int:
        """How many notes contain the phrase, counting no further than ``cap``."""
        known = self._freq.get((token, cap))
        if known is None:
            known = self.conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM memories_fts"
                " WHERE memories_fts MATCH ? LIMIT ?)",
                (f'"{token}"', cap),
            ).fetchone()[0]
            self._freq[token, cap] = known
        return known

    def _is_clamped(self, token: str, total: int) -> bool:
        """FTS5 sets the IDF of a phrase in at least half of all notes to 1e-6."""
        return total > 0 and self._doc_freq(token, (total + 1) // 2) * 2 >= total

    def _forget_if_changed(self) -> None:
        version = (
            self.conn.execute("PRAGMA data_version").fetchone()[0],
            self.conn.total_changes,
        )
        if version != self._version:
            self._freq.clear()
            self._best.clear()
            self._rows = -1
            self._version = version


def _in_spec_order(hits: list[Hit]) -> list[Hit]:
    """bm25 ascending, then updated_at descending, then id descending (two stable sorts)."""
    hits.sort(key=lambda hit: (hit[1], hit[2]), reverse=True)
    hits.sort(key=lambda hit: hit[0])
    return hits


def _well_separated(hits: list[Hit], clamped_phrases: int) -> bool:
    """True when leaving the clamped phrases out cannot have changed the best ``len - 1``
    of these hits: every gap between neighbours exceeds what those phrases could add,
    and the last kept hit beats any note that matches only clamped phrases."""
    bound = _CLAMPED_EFFECT * clamped_phrases
    gaps_ok = all(b[0] - a[0] > bound for a, b in pairwise(hits))
    return gaps_ok and hits[-2][0] < -bound


def ranked_ids(
    conn: sqlite3.Connection, tokens: Sequence[str], filters: Filters, k: int
) -> list[tuple[str, float]]:
    """One-off ranking without a cached :class:`Ranker` (tests, tools)."""
    return Ranker(conn).ranked_ids(tokens, filters, k)
