"""Keyword recall (spec 002): quoted query tokens OR-joined, ranked by FTS5 BM25.

Every ``\\w+`` run of the query becomes a double-quoted FTS5 phrase, so operators and
punctuation in user text (``state-of-the-art``, ``16:9``, ``"``) can never break the
query; the phrases are OR-joined so a note sharing some words is still found; BM25 ranks,
the more recently updated note wins a tie (by ``ranked_at``: a date in the future counts
as when the note reached this store); superseded notes never come back unless the
search asks for them (``Filters.include_superseded``), and then they rank like any other.

Three things make this fast without changing a single result:

* FTS5's bm25 clamps the IDF of a term found in at least half of all notes to 1e-6, so
  such a phrase moves any note's score by less than 2.2e-6. Those phrases are left out of
  the query when others remain. Neighbouring results closer than their total possible
  effect get the full query's own scores (:mod:`.exact_bm25`: recomputed, or asked of
  FTS5 for all of them at once, whichever costs less); the full query decides when too
  few notes match the rest, or the notes tied at the k-th place do not end among the
  first ``4 * (k + 24)``.
* Ranking runs on the full-text table alone (``ORDER BY bm25 LIMIT n``); the note rows are
  fetched for the few best hits only, where filters, supersession and the recency
  tie-break are applied, widening ``n`` until the answer is certain.
* When the query's words would make FTS5 score much of the store, the notes holding the
  rarer words are scored first and the rest bounded (:mod:`.rare_first`). Words no note
  holds are left out (they add exactly 0.0 to every score).
* A search within a project ranks among its notes' rowids only (:mod:`.project_seq`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from itertools import pairwise

from anamnesis.store.index import project_seq
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.note.invisible import match_text
from anamnesis.store.search import exact_bm25, rare_first
from anamnesis.store.search.exact_bm25 import IDF_FLOOR, K1
from anamnesis.store.search.rare_first import ExactScores, Hit, Span, in_spec_order

_TOKEN = re.compile(r"\w+")

# A clamped phrase adds at most floor * (k1 + 1) to a note's score; allow for rounding.
_CLAMPED_EFFECT = IDF_FLOOR * (K1 + 1) * 1.001
# Rank this many beyond k on the first try: enough for filters and ties most of the time.
_FIRST_MARGIN = 24
# Past this many ranked candidates, let SQLite filter while ranking instead.
_MAX_WIDENED = 400
# Phrases counted in one statement (SQLite allows 500 SELECTs in a compound one).
_COUNTS_PER_STATEMENT = 100


def query_tokens(query: str) -> list[str]:
    """The word tokens of a free-text query, in order (repeats kept, as the spec does),
    read as the index reads a note (:func:`.invisible.match_text`)."""
    return _TOKEN.findall(match_text(query))


def match_expression(tokens: Sequence[str]) -> str:
    """An FTS5 MATCH expression: every token a quoted phrase, joined by OR."""
    return " OR ".join(f'"{token}"' for token in tokens)


class Ranker:
    """Ranks notes for a query on one connection; remembers which terms are clamped.

    The memory is dropped whenever the index changes (this connection's own writes or
    another connection's commits), so it never outlives the counts it came from.
    """

    __slots__ = ("_freq", "_rows", "_version", "conn", "rare_first_outcomes")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        # How often ranking by rare words first [failed to prove, proved] the answer.
        self.rare_first_outcomes = [0, 0]
        self._freq: dict[str, int] = {}
        self._rows = -1
        self._version = (-1, -1)

    def ranked_ids(
        self, tokens: Sequence[str], filters: Filters, k: int
    ) -> list[tuple[str, float]]:
        """The ids (and BM25 scores) of the best ``k`` notes for the tokens, best first.

        The ids are exactly the spec query's. A score may differ from its in the last bit,
        where FTS5 summed the same phrases in another order (:mod:`.rare_first`), or by
        less than 2.2e-6 for each left-out phrase found in half of all notes or more.
        """
        if not tokens:
            return []
        span: Span = None
        if filters.project is not None:
            # Rank among the project's rowids only: FTS5 then scores none of the others.
            span = project_seq.rowid_range(self.conn, filters.project)
            if span is None:
                return []  # no note of that project was ever indexed
        self._forget_if_changed()
        total = self._total()
        self._count(tokens, total)
        # A phrase no note holds adds exactly 0.0 to every score: left out, it neither
        # costs a look-up nor leads a rare-first plan (as the rarest word) to find nothing.
        tokens = [token for token in tokens if self._freq[token] > 0]
        if not tokens:
            return []
        clamped = {token for token in tokens if self._is_clamped(token, total)}
        informative = [token for token in tokens if token not in clamped]
        seen = exact_bm25.Occurrences()  # ties settled twice are mostly the same notes
        if clamped and informative:
            # The k + 1 best settle most queries; notes tied at the k-th place widen the
            # ranking until the tie ends. A crowd of equal notes that does not end by
            # _MAX_WIDENED is left to the full query, which costs little more than ranking
            # the other words again. (A second, wider try after the first cost more than it
            # saved: 1.21 against 0.96 ms mean on a store of equally long notes.)
            hits, complete = self._ranked(
                informative, filters, k + 1, seen, span=span, in_sql=False
            )
            clamped_phrases = len(tokens) - len(informative)
            exact = self._exact_scores(tokens, seen)
            settled = _settled_without_clamped(hits, k, clamped_phrases, exact, complete)
            if settled is not None:
                return [(memory_id, score) for score, _ranked, memory_id in settled]
        hits = self._ranked(list(tokens), filters, k, seen, span=span)[0]
        return [(memory_id, score) for score, _ranked, memory_id in hits[:k]]

    # -- ranking ---------------------------------------------------------------------

    def _ranked(
        self,
        tokens: Sequence[str],
        filters: Filters,
        want: int,
        seen: exact_bm25.Occurrences,
        *,
        span: Span = None,
        in_sql: bool = True,
    ) -> tuple[list[Hit], bool]:
        """The best ``want`` eligible hits in spec order (score, newer first, then id),
        and any further hits found and proven on the way (ties past the ``want``-th may
        be ordered up to the last bit of their scores); and whether the hits are every
        eligible note holding a word. ``seen``: this search's counted phrase occurrences,
        for settling ties; ``span``: the rowids every eligible note is among. Without
        ``in_sql``, hits ranked past _MAX_WIDENED are not looked for: fewer than ``want``
        come back."""
        total = self._total()
        plan = rare_first.plan_query(
            tokens, lambda token: self._doc_freq(token, total), total, want, match_expression
        )
        if plan is not None:
            hits = rare_first.top_by_rare_first(
                self.conn,
                plan,
                want,
                lambda ranked: self._eligible(ranked, filters),
                self._exact_scores(tokens, seen),
                span,
            )
            self.rare_first_outcomes[hits is not None] += 1
            if hits is not None:
                return hits, False
        expression = match_expression(tokens)
        limit = want + _FIRST_MARGIN
        proven: list[Hit] = []
        while limit <= _MAX_WIDENED:
            ranked = rare_first.ranked_rows(self.conn, expression, limit, span)
            hits = self._eligible(ranked, filters)
            if len(ranked) < limit:
                return hits, True  # every note holding a query word
            # Certain once `want` eligible hits score strictly better than the last ranked
            # row: anything beyond the limit scores no better than that row.
            proven = rare_first.proven_prefix(hits, ranked[-1][1])
            if len(proven) >= want:
                return proven, False
            limit *= 4
        if not in_sql:
            return proven, False
        hits = self._top_filtered_in_sql(expression, filters, want, span)
        return hits, len(hits) < want

    def _exact_scores(self, tokens: Sequence[str], seen: exact_bm25.Occurrences) -> ExactScores:
        """The full query's scores for given note ids: recomputed (:mod:`.exact_bm25`)
        where that costs less than asking FTS5, else asked of FTS5 in one statement."""

        def exact(ids: list[str]) -> dict[str, float]:
            marks = ",".join("?" * len(ids))
            seq_of: dict[str, int] = dict(
                self.conn.execute(
                    f"SELECT id, seq FROM memories WHERE id IN ({marks})", ids
                ).fetchall()
            )
            rowids = list(seq_of.values())
            total = self._total()
            expression = match_expression(tokens)
            postings = sum(self._doc_freq_bound(token, total) for token in tokens)
            computed = exact_bm25.scores(
                self.conn,
                tokens,
                expression,
                lambda token: self._doc_freq(token, total),
                total,
                rowids,
                seen,
                exact_bm25.fts5_cost_us(len(tokens), postings),
            )
            if computed is None:
                computed = exact_bm25.fts5_scores(self.conn, expression, rowids)
            return {
                memory_id: computed[seq] for memory_id, seq in seq_of.items() if seq in computed
            }

        return exact

    def _eligible(self, ranked: list[tuple[int, float]], filters: Filters) -> list[Hit]:
        if not ranked:
            return []
        score_of = dict(ranked)
        where, params = filters.eligible_sql()
        marks = ",".join("?" * len(ranked))
        rows = self.conn.execute(
            f"SELECT m.seq, m.ranked_at, m.id FROM memories m WHERE m.seq IN ({marks}){where}",
            [seq for seq, _score in ranked] + params,
        ).fetchall()
        hits = [(score_of[seq], ranked, memory_id) for seq, ranked, memory_id in rows]
        return in_spec_order(hits)

    def _top_filtered_in_sql(
        self, expression: str, filters: Filters, want: int, span: Span
    ) -> list[Hit]:
        where, params = filters.eligible_sql()
        if span is not None:
            where += " AND f.rowid BETWEEN ? AND ?"
            params.extend(span)
        rows = self.conn.execute(
            "SELECT bm25(memories_fts) AS score, m.ranked_at, m.id FROM memories_fts f"
            " JOIN memories m ON m.seq = f.rowid"
            f" WHERE memories_fts MATCH ?{where}"
            " ORDER BY score, m.ranked_at DESC, m.id DESC LIMIT ?",
            [expression, *params, want],
        ).fetchall()
        return [(score, ranked, memory_id) for score, ranked, memory_id in rows]

    # -- term statistics -------------------------------------------------------------

    def notes_holding(self, token: str) -> int:
        """How many notes hold the word, as of the last ranking: exactly below half of all
        notes, at least half above (:meth:`_doc_freq`)."""
        return self._doc_freq(token, self._total())

    def note_count(self) -> int:
        """How many notes the index holds, as of the last ranking."""
        return self._total()

    def _total(self) -> int:
        if self._rows < 0:
            self._rows = self.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        return self._rows

    def _doc_freq(self, token: str, total: int) -> int:
        """How many notes contain the phrase, exactly below half of all notes; at or above
        half the count stops at ``ceil(total / 2)`` (enough to know FTS5 clamps it)."""
        known = self._freq.get(token)
        if known is None:
            self._count([token], total)
            known = self._freq[token]
        return known

    def _count(self, tokens: Sequence[str], total: int) -> None:
        """Counts (:meth:`_doc_freq`) the phrases not counted yet, a batch a statement:
        one round trip instead of one each."""
        new = list(dict.fromkeys(token for token in tokens if token not in self._freq))
        for start in range(0, len(new), _COUNTS_PER_STATEMENT):
            batch = new[start : start + _COUNTS_PER_STATEMENT]
            sql = " UNION ALL ".join(
                f"SELECT {i}, count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts"
                " MATCH ? LIMIT ?)"
                for i in range(len(batch))
            )
            params = [value for token in batch for value in (f'"{token}"', (total + 1) // 2)]
            for i, count in self.conn.execute(sql, params).fetchall():
                self._freq[batch[i]] = count

    def _doc_freq_bound(self, token: str, total: int) -> int:
        """At most how many notes hold the phrase: :meth:`_doc_freq`, or all of them when
        it stopped counting at half."""
        known = self._doc_freq(token, total)
        return total if known * 2 >= total else known

    def _is_clamped(self, token: str, total: int) -> bool:
        """FTS5 sets the IDF of a phrase in at least half of all notes to 1e-6."""
        return total > 0 and self._doc_freq(token, total) * 2 >= total

    def _forget_if_changed(self) -> None:
        version = (
            self.conn.execute("PRAGMA data_version").fetchone()[0],
            self.conn.total_changes,
        )
        if version != self._version:
            self._freq.clear()
            self._rows = -1
            self._version = version


def _settled_without_clamped(
    hits: list[Hit], k: int, clamped_phrases: int, exact: ExactScores, complete: bool = False
) -> list[Hit] | None:
    """The best ``k`` notes, in the order the full query gives, from the best notes
    ranked without the clamped phrases (more than ``k`` of them; ``complete``: every
    eligible note holding one of the other words), or None when those phrases could bring
    in a note from beyond the hits.

    Each clamped phrase moves a note's score by less than ``bound``. So a hit scoring
    worse than the k-th by more than that cannot reach the top ``k``, nor can any note
    after it, nor (when the k-th beats the bound) a note holding only clamped phrases;
    and only neighbours closer than the bound can swap places, so they alone are scored
    again by the full query.
    """
    if len(hits) <= k:
        return None
    bound = _CLAMPED_EFFECT * clamped_phrases
    reach = hits[k - 1][0] + bound
    contenders = [hit for hit in hits if hit[0] <= reach]
    if (len(contenders) == len(hits) and not complete) or not hits[k - 1][0] < -bound:
        return None
    close: set[int] = set()
    for i, (a, b) in enumerate(pairwise(contenders)):
        if b[0] - a[0] <= bound:
            close.update((i, i + 1))
    if not close:
        return contenders[:k]
    return rare_first.rescored(contenders, close, exact)[:k]


def ranked_ids(
    conn: sqlite3.Connection, tokens: Sequence[str], filters: Filters, k: int
) -> list[tuple[str, float]]:
    """One-off ranking without a cached :class:`Ranker` (tests, tools)."""
    return Ranker(conn).ranked_ids(tokens, filters, k)
