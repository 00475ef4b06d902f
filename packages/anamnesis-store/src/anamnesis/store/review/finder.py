"""Contradiction candidates over one store: every pair of live notes (``review``), the notes
one note just written contradicts (the write-time check), and the notes due for review.

Deterministic and local: neighbours through the full-text index (:mod:`.neighbours`), then
a value diff of each pair (:mod:`.compare`). No provider, no network, no model.

:class:`~anamnesis.store.MemoryStore` makes a finder on first use and hands it the store's
connection, its indexer and its catch-up, as it does its search.
"""

from __future__ import annotations

from anamnesis.store.index import db as ix
from anamnesis.store.index import project_seq
from anamnesis.store.index.note_queries import Filters, listing
from anamnesis.store.note import validity
from anamnesis.store.review.compare import differences
from anamnesis.store.review.neighbours import (
    Neighbourhood,
    may_pair,
    project_state,
    similar_pairs,
    subject_terms,
)
from anamnesis.store.review.pair_memo import PairMemo
from anamnesis.store.review.processes.pair_batch import compare_pairs
from anamnesis.store.review.reading.facts import NoteFacts, read_once
from anamnesis.store.review.records import Contradiction, ordered
from anamnesis.store.review.value_clashes import value_clashes

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from pathlib import Path
    from typing import Final, TypeVar

    from anamnesis.store.index.connection import IndexConnection
    from anamnesis.store.index.indexer import Indexer
    from anamnesis.store.note.model import Memory
    from anamnesis.store.review.records import Difference
    from anamnesis.store.vectors.store_vectors import StoreVectors

    T = TypeVar("T")

# Neighbours compared for a note just written (and a short note in a review), and for
# each long note in a review; a short note's body is at most SHORT_BODY characters.
WRITE_NEIGHBOURS: Final = 4
MOST_NEIGHBOURS: Final = 25
REVIEW_NEIGHBOURS: Final = 2
SHORT_BODY: Final = 1000
# Where vectors run, a short note's ALIKE_MOST nearest notes by meaning are neighbours
# too, when at least ALIKE alike (a short note: a file of at most SHORT_FILE bytes).
ALIKE: Final = 0.6
ALIKE_MOST: Final = 2
SHORT_FILE: Final = 2048


class ContradictionFinder:
    """One store's contradiction candidates and due notes."""

    __slots__ = ("_catch_up", "_index", "_indexer", "_memo", "_vectors")

    def __init__(
        self,
        index: IndexConnection,
        indexer: Indexer,
        catch_up: Callable[[], None],
        vectors: Callable[[], StoreVectors | None] = lambda: None,
        memo: Path | None = None,
    ) -> None:
        self._index = index
        self._indexer = indexer
        self._catch_up = catch_up
        # Where a review keeps what it found for each pair (:mod:`.pair_memo`; None: not).
        self._memo = memo
        # The store's vectors when its searches use them and they run here (None: not).
        self._vectors = vectors

    def contradictions(self, project: str | None, limit: int | None) -> list[Contradiction]:
        """:meth:`MemoryStore.contradictions`."""
        vectors = self._vectors()
        model = _model_of(vectors)

        def query(conn: sqlite3.Connection) -> list[Contradiction]:
            found = [
                Contradiction(older, newer, differs)
                for older, newer, differs in self._compared(conn, project, vectors, model)
                if differs
            ]
            found.sort(key=_newest_pair_first)
            return found if limit is None else found[:limit]

        return self._read(query)

    def wider(self, project: str | None) -> list[Contradiction]:
        """:meth:`MemoryStore.wider_candidates`: the pairs a review compares and the rules
        leave out, whose compared clauses hold different values of one kind."""
        vectors = self._vectors()
        model = _model_of(vectors)

        def query(conn: sqlite3.Connection) -> list[Contradiction]:
            facts: dict[str, NoteFacts] = {}
            found = []
            for older, newer, differs in self._compared(conn, project, vectors, model):
                if differs:
                    continue
                clashes = value_clashes(read_once(facts, older), read_once(facts, newer))
                if clashes:
                    found.append(Contradiction(older, newer, clashes))
            found.sort(key=_newest_pair_first)
            return found

        return self._read(query)

    def possible(self, mem: Memory, limit: int) -> list[Contradiction]:
        """:meth:`MemoryStore.possible_contradictions`."""
        if limit <= 0:
            return []
        mine = NoteFacts(mem)
        terms = subject_terms(mem, body=True)

        def query(conn: sqlite3.Connection) -> list[Contradiction]:
            found = []
            # as many neighbours as answers asked for, at least WRITE_NEIGHBOURS
            most = min(max(WRITE_NEIGHBOURS, limit), MOST_NEIGHBOURS)
            for row in Neighbourhood(conn).neighbours(mem, terms, most):
                other = self._settled(conn, row)
                if other is None:
                    continue
                older, newer = ordered(mem, other)
                theirs = NoteFacts(other)
                pair = (mine, theirs) if older is mem else (theirs, mine)
                differs = differences(*pair)
                if differs:
                    found.append(Contradiction(older, newer, differs))
            return found[:limit]

        return self._read(query)

    def due(self, project: str | None, now: str | None) -> list[Memory]:
        """:meth:`MemoryStore.due_for_review`: live notes whose ``review_after`` is reached
        and no person confirmed since, the longest due first."""
        moment = validity.moment(now=now)
        filters = Filters(project, moment=moment)
        where, params = filters.live_sql(*filters.sql(), False, False)
        sql = (
            f"{ix.SELECT_NOTE} WHERE m.due_at IS NOT NULL AND m.due_at < ?"
            f" AND (m.reviewed_at IS NULL OR m.reviewed_at < m.due_at){where}"
            " ORDER BY m.due_at, m.id"
        )

        def query(conn: sqlite3.Connection) -> list[Memory]:
            def fetch() -> list[ix.NoteRow]:
                return [ix.note_row(row) for row in conn.execute(sql, [moment, *params])]

            notes = self._indexer.settled(conn, fetch, True)
            return [note for note in notes if validity.is_due(note, now)]

        return self._read(query)

    # -- internals -------------------------------------------------------------------

    def _compared(
        self,
        conn: sqlite3.Connection,
        project: str | None,
        vectors: StoreVectors | None,
        model: str,
    ) -> list[tuple[Memory, Memory, tuple[Difference, ...]]]:
        """Every pair a review compares (neighbours by title and subject, and by meaning
        where ``vectors`` of ``model`` run), older note first, with how the rules find they
        differ (empty: no sign); what the memo knows is taken from it, the rest compared and
        remembered."""
        notes = self._live(conn, project)
        by_seq = dict(notes)
        by_id = {note.id: note for _seq, note in notes}
        memo = PairMemo(self._memo)
        around = Neighbourhood(conn, every_title=True)
        pairs: dict[tuple[str, str], tuple[Memory, Memory]] = {}
        for name, members in _by_project(notes).items():
            # A project's neighbour pairs depend on its indexed rows and which of them
            # are live, nothing else: kept in the memo under their hash, and looked for
            # again only in a project where something changed. Looking for every note's
            # neighbours was most of a review whose pairs the memo already knew.
            span = project_seq.rowid_range(conn, name)
            state = project_state(conn, span, [seq for seq, _note in members]) if span else ""
            kept = memo.neighbour_pairs(name, state) if span else None
            if kept is None or any(i not in by_id for ids in kept for i in ids):
                kept = _neighbour_pairs(around, members, by_seq)
                if span:
                    memo.remember_neighbour_pairs(name, state, kept)
            for older_id, newer_id in kept:
                pairs.setdefault((older_id, newer_id), (by_id[older_id], by_id[newer_id]))
        if vectors is not None and model:
            # Neighbours by meaning too, where notes have vectors: one thing in other
            # words ("run dbt through make" and "dbt run locally").
            vectors.load_into(conn)
            for name in sorted({note.project for _seq, note in notes}):
                span = project_seq.rowid_range(conn, name)
                if span is None:
                    continue
                alike = similar_pairs(conn, model, span, ALIKE, ALIKE_MOST, SHORT_FILE)
                for first, second in alike:
                    a, b = by_seq.get(first), by_seq.get(second)
                    if a is not None and b is not None and may_pair(a, b):
                        older, newer = ordered(a, b)
                        pairs.setdefault((older.id, newer.id), (older, newer))
        known = [(older, newer, memo.differences(older, newer)) for older, newer in pairs.values()]
        # the pairs the memo does not know, compared together (:mod:`.pair_batch`)
        unknown = [(older, newer) for older, newer, differs in known if differs is None]
        compared = iter(compare_pairs(unknown))
        out = []
        for older, newer, differs in known:
            if differs is None:
                differs = next(compared)
                memo.remember(older, newer, differs)
            out.append((older, newer, differs))
        memo.save(whole=project is None)
        return out

    def _live(self, conn: sqlite3.Connection, project: str | None) -> list[tuple[int, Memory]]:
        """Every live note (not superseded, not expired), or a project's, newest first,
        each with its rowid."""
        sql, params = listing(
            Filters(project),
            exclude_tag=None,
            include_superseded=False,
            include_body=True,
            limit=None,
            offset=0,
        )
        seqs: dict[str, int] = {}

        def fetch() -> list[ix.NoteRow]:
            rows = [ix.note_row(row) for row in conn.execute(sql, params)]
            seqs.update((row.memory.id, row.seq) for row in rows)
            return rows

        notes = self._indexer.settled(conn, fetch, True)
        return [(seqs[note.id], note) for note in notes if note.id in seqs]

    def _settled(self, conn: sqlite3.Connection, row: ix.NoteRow) -> Memory | None:
        notes, _changed = self._indexer.current_all(conn, [row], True)
        return notes[0] if notes else None

    def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        def action() -> T:
            self._catch_up()
            return query(self._index.connection())

        return self._index.run(action)


def pair_between(first: Memory, second: Memory, *, wider: bool) -> Contradiction | None:
    """:meth:`MemoryStore.contradiction_between` of two live notes."""
    if not may_pair(first, second):
        return None
    older, newer = ordered(first, second)
    facts = NoteFacts(older), NoteFacts(newer)
    differs = differences(*facts) or (value_clashes(*facts) if wider else ())
    return Contradiction(older, newer, differs) if differs else None


def _by_project(notes: list[tuple[int, Memory]]) -> dict[str, list[tuple[int, Memory]]]:
    """The notes of each project (newest first, as given)."""
    out: dict[str, list[tuple[int, Memory]]] = {}
    for seq, note in notes:
        out.setdefault(note.project, []).append((seq, note))
    return out


def _neighbour_pairs(
    around: Neighbourhood, members: list[tuple[int, Memory]], by_seq: dict[int, Memory]
) -> list[tuple[str, str]]:
    """The ids of the pairs of one project's live notes (``members``) found by title and
    subject, older note first, each once, in the order found."""
    pairs: dict[tuple[str, str], None] = {}
    # A short note (a fact) is asked about as a note just written is; a long one (a
    # session's story) by its title, with fewer neighbours: comparing long notes is what
    # a review spends its time on.
    shorts = [(note, len(note.body) <= SHORT_BODY) for _seq, note in members]
    asked = [(note, subject_terms(note, body=short), short) for note, short in shorts]
    # every note's terms looked up at once, in a few statements (what each finds is the same)
    if asked:
        around.look_up(asked[0][0].project, [term for _note, terms, _ in asked for term in terms])
    for note, terms, short in asked:
        most = WRITE_NEIGHBOURS if short else REVIEW_NEIGHBOURS
        taken = 0
        for seq in around.ranked(note, terms, most * 3 + 8):
            other = by_seq.get(seq)  # None: superseded, expired, another project
            if other is None or not may_pair(note, other):
                continue
            older, newer = ordered(note, other)
            pairs.setdefault((older.id, newer.id))
            taken += 1
            if taken == most:
                break
    return list(pairs)


def _model_of(vectors: StoreVectors | None) -> str:
    """The model whose vectors the notes have ("" when vectors do not run here)."""
    if vectors is None:
        return ""
    from anamnesis.store.vectors.embedding import VectorsUnavailable  # only where they run

    try:
        return vectors.embedder().model_id
    except VectorsUnavailable:
        return ""


def _newest_pair_first(pair: Contradiction) -> tuple[str, str, str, str]:
    """Sort key: the pair whose newer note is newest first, then by the older note, then
    by ids (descending throughout, through inverted text)."""
    return (
        _inverted(pair.newer.created_at),
        _inverted(pair.older.created_at),
        _inverted(pair.newer.id),
        _inverted(pair.older.id),
    )


def _inverted(text: str) -> str:
    return "".join(chr(0x10FFFF - ord(char)) for char in text)
