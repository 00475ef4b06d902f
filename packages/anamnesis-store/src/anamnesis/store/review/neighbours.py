"""The notes a note may contradict, found through the full-text index: its neighbours by
title and subject.

A note is asked about the words that name its subject (its title's, then the names,
identifiers and code of its body), BM25 over title, body and tags with the title weighed
most, among the live notes of its project (or the global ones) it may pair with:
durable notes against durable ones, an episodic note against durable ones, never two
episodic notes; never a pair a person marked compatible. FTS5 scores only the project's
rowids (:mod:`.project_seq`), so the question costs the same in a store of one project
or of many.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import re
from functools import lru_cache

from anamnesis.store.index import db as ix
from anamnesis.store.index import project_seq
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.note.invisible import match_text
from anamnesis.store.note.model import DURABLE_TYPES, NOTE_TYPES
from anamnesis.store.review.reading.text import CODE_SPAN, GENERIC

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from typing import Final

    from anamnesis.store.note.model import Memory

# The most words a question asks about: the title's, then the body's names and code.
MOST_TERMS: Final = 10
MOST_BODY_TERMS: Final = 4
# BM25's constants (FTS5's and spec 002's), a title word's weight, and the least a word
# in most notes weighs.
_K1: Final = 1.2
_B: Final = 0.75
_TITLE: Final = 2.0
_IDF_FLOOR: Final = 0.05
# A project this small has every word asked about, however common.
_SMALL: Final = 20
# How many notes past the ones asked for have their titles read (a title word counts twice).
_RESCORED: Final = 40
_TERM = re.compile(r"[^\W_]+", re.UNICODE)
_NAMED = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][\w-]*[A-Za-z0-9]|\b\w+[_.]\w[\w.]*|\b[A-Z]{2,}\w*")


def pairable_types(mem: Memory) -> tuple[str, ...]:
    """The types of note ``mem`` may pair with: any for a durable note, durable ones for
    an episodic note (a session that changed a fact; two sessions never pair)."""
    return tuple(DURABLE_TYPES) if mem.type not in DURABLE_TYPES else tuple(NOTE_TYPES)


def may_pair(a: Memory, b: Memory) -> bool:
    """Whether two notes are ever proposed as a pair: two notes of one project (or both
    global), not both episodic, neither superseding the other, neither named compatible
    by the other."""
    return (
        a.id != b.id
        and a.project == b.project
        and (a.type in DURABLE_TYPES or b.type in DURABLE_TYPES)
        and b.id not in a.supersedes
        and a.id not in b.supersedes
        and b.id not in a.compatible_with
        and a.id not in b.compatible_with
    )


def subject_terms(mem: Memory, *, body: bool) -> list[str]:
    """The words that name a note's subject, as a full-text question's terms: the title's
    content words, then (``body``) a few names, identifiers and code words of its body
    (:data:`MOST_BODY_TERMS`)."""
    terms: dict[str, None] = {}

    def add(text: str, most: int) -> None:
        for term in _TERM.findall(match_text(text)):
            lower = term.lower()
            if len(terms) >= most:
                return
            if len(lower) > 1 and lower not in GENERIC and not lower.isdigit():
                terms.setdefault(lower)

    add(mem.title, MOST_TERMS)
    if body:
        most = min(MOST_TERMS, len(terms) + MOST_BODY_TERMS)
        text = mem.body[:4000]
        for code in CODE_SPAN.findall(text):
            add(code, most)
        for named in _NAMED.findall(CODE_SPAN.sub(" ", text)):
            add(named, most)
    return list(terms)


@lru_cache(maxsize=16384)
def _title_terms(title: str) -> frozenset[str]:
    """A title's words, as a question's terms are. Kept per title: each write-time check
    reads the titles of its best notes, mostly the same few dozen notes of a project."""
    return frozenset(term.lower() for term in _TERM.findall(match_text(title)))


class Neighbourhood:
    """The full-text questions of one finder run on one connection, and what they learn on
    the way: each project's notes (rowid, title words, size) and which of them hold each
    word, looked up once a run however many notes ask.

    A question is scored here, not by FTS5's bm25, which reads every matching note's
    positions (milliseconds for a word in half the project): BM25 over presence, each
    word weighing its inverse note frequency, twice in a title, a short note ahead of a
    long one (a note's file size stands for its length); newer first on a tie.
    """

    __slots__ = (
        "_conn", "_every_title", "_gains", "_notes", "_ranked", "_title_words", "_titles_text",
        "moment",
    )  # fmt: skip

    def __init__(
        self, conn: sqlite3.Connection, moment: str = "", *, every_title: bool = False
    ) -> None:
        self._conn = conn
        # A review asks about every note: each project's titles read in one statement.
        # A write-time check asks once: only its best notes' titles are read.
        self._every_title = every_title
        # project -> its notes: rowid -> length factor; None: no notes
        self._notes: dict[str, dict[int, float] | None] = {}
        self._title_words: dict[int, frozenset[str]] = {}
        self._titles_text: dict[int, str] = {}
        # (project, term) -> what it adds to the score of each note holding it, by rowid
        self._gains: dict[tuple[str, str], dict[int, float]] = {}
        # (project, terms, most) -> the ranking asked for: notes of one subject ask the
        # same question (a third of a 2,000-note store's questions are repeats), and the
        # answer depends on nothing else in one run
        self._ranked: dict[tuple[str, tuple[str, ...], int], list[int]] = {}
        self.moment = moment

    def neighbours(self, mem: Memory, terms: list[str], most: int) -> list[ix.NoteRow]:
        """Up to ``most`` live notes ``mem`` may pair with that hold its ``terms``, best
        first: never ``mem`` itself, the notes it supersedes, nor a note either side marked
        compatible with the other."""
        if most <= 0:
            return []
        return self._eligible(mem, self.ranked(mem, terms, most * 3 + 8), most)

    def ranked(self, mem: Memory, terms: list[str], most: int) -> list[int]:
        """The rowids of up to ``most`` notes of ``mem``'s project holding its ``terms``,
        best first (whatever they are: the caller filters)."""
        notes = self._project(mem.project)
        if not terms or not notes:
            return []
        terms = list(dict.fromkeys(terms[:MOST_TERMS]))
        key = (mem.project, tuple(terms), most)
        kept = self._ranked.get(key)
        if kept is None:
            kept = self._ranked[key] = self._rank(mem.project, notes, terms, most)
        return list(kept)

    def _rank(
        self, project: str, notes: dict[int, float], terms: list[str], most: int
    ) -> list[int]:
        """:meth:`ranked`'s answer, worked out."""
        self._look_up(project, terms)
        # A word in most of a project's notes weighs next to nothing, and costs the most:
        # left out, unless the project is small enough for every word to count.
        common = len(notes) / 2 if len(notes) >= _SMALL else len(notes)
        telling = [
            (term, gains) for term in terms if len(gains := self._gains[(project, term)]) <= common
        ]
        # Each note's score is its gains added up in the terms' order (a float sum: the
        # same order gives the same ranking, ties and all). The first term's gains are
        # the scores so far as they are (0.0 + gain is gain).
        scores: dict[int, float] = dict(telling[0][1]) if telling else {}
        get = scores.get
        for _term, gains in telling[1:]:
            for seq, gain in gains.items():
                scores[seq] = get(seq, 0.0) + gain
        # A word in a note's title counts twice: looked at for the best notes only (their
        # titles read), which is where it can change the order; each of them asks each
        # term for its gain rather than every term's notes being walked again.
        best = [
            -negative
            for _score, negative in heapq.nsmallest(
                most + _RESCORED, [(-score, -seq) for seq, score in scores.items()]
            )
        ]
        titles = self._titles(best)
        for seq, words in titles.items():
            for term, gains in telling:
                if term in words and (held := gains.get(seq)) is not None:
                    scores[seq] += held * (_TITLE - 1)
        return sorted(best, key=lambda seq: (-scores[seq], -seq))[:most]

    def look_up(self, project: str, terms: list[str]) -> None:
        """Look up together the terms a run is about to ask about in ``project`` (a
        review: every note's): a few statements of many terms each, rather than one or
        two a note (at 4,600 notes, most of a review's neighbour search was statements'
        own cost). What any question then finds is the same."""
        if self._project(project):
            self._look_up(project, list(dict.fromkeys(terms)))

    def _eligible(self, mem: Memory, ranked: list[int], most: int) -> list[ix.NoteRow]:
        """The rows of the first ``most`` of these rowids that ``mem`` may pair with, in
        the given order (the filter on the small columns first, then those rows whole)."""
        if not ranked:
            return []
        where, params = Filters(mem.project, pairable_types(mem), moment=self.moment).eligible_sql()
        excluded = [mem.id, *mem.supersedes, *mem.compatible_with]
        where += f" AND m.id NOT IN ({','.join('?' * len(excluded))})"
        params.extend(excluded)
        where += " AND m.compatible_json NOT LIKE ?"
        params.append(f'%"{mem.id}"%')
        allowed = {
            seq
            for (seq,) in self._conn.execute(
                f"SELECT m.seq FROM memories m WHERE m.seq IN ({','.join('?' * len(ranked))})"
                f"{where}",
                [*ranked, *params],
            )
        }
        chosen = [seq for seq in ranked if seq in allowed][:most]
        if not chosen:
            return []
        rows = self._conn.execute(
            f"{ix.SELECT_NOTE} WHERE m.seq IN ({','.join('?' * len(chosen))})", chosen
        ).fetchall()
        by_seq = {row[0]: ix.note_row(row) for row in rows}
        return [by_seq[seq] for seq in chosen if seq in by_seq]

    def _project(self, project: str) -> dict[int, float] | None:
        """The project's notes: rowid -> BM25's length factor (a short note's word counts
        more than a long one's; the file's size stands for the note's length). Their
        titles are read in the same statement, for :meth:`_titles`: one statement a
        project rather than one a question."""
        if project not in self._notes:
            span = project_seq.rowid_range(self._conn, project)
            rows = []
            if span is not None:
                title = "title" if self._every_title else "NULL"
                rows = self._conn.execute(
                    f"SELECT seq, file_size, {title} FROM memories WHERE seq BETWEEN ? AND ?",
                    span,
                ).fetchall()
            if not rows:
                self._notes[project] = None
            else:
                average = sum(size for _seq, size, _title in rows) / len(rows)
                self._notes[project] = {
                    seq: (_K1 + 1) / (1 + _K1 * (1 - _B + _B * size / average))
                    for seq, size, _title in rows
                }
                if self._every_title:
                    self._titles_text.update((seq, title) for seq, _size, title in rows)
        return self._notes[project]

    def _titles(self, seqs: list[int]) -> dict[int, frozenset[str]]:
        """The words of these notes' titles, as a question's terms are, by rowid."""
        if not self._every_title:
            missing = [seq for seq in seqs if seq not in self._title_words]
            if missing:
                marks = ",".join("?" * len(missing))
                self._titles_text.update(
                    self._conn.execute(
                        f"SELECT seq, title FROM memories WHERE seq IN ({marks})", missing
                    )
                )
        out: dict[int, frozenset[str]] = {}
        for seq in seqs:
            words = self._title_words.get(seq)
            if words is None:
                title = self._titles_text.get(seq)
                if title is None:
                    continue
                words = self._title_words[seq] = _title_terms(title)
            out[seq] = words
        return out

    def _look_up(self, project: str, terms: list[str]) -> None:
        """What each term not looked up yet adds to each note of the project holding it
        (:meth:`ranked`; its title aside): which notes hold it, one statement for a batch
        of terms."""
        new = [term for term in terms if (project, term) not in self._gains]
        span = project_seq.rowid_range(self._conn, project) if new else None
        notes = self._notes.get(project)
        if span is None or not notes:
            return
        for start in range(0, len(new), 40):
            batch = new[start : start + 40]
            sql = " UNION ALL ".join(
                f"SELECT {i}, rowid FROM memories_fts WHERE memories_fts MATCH ?"
                " AND rowid BETWEEN ? AND ?"
                for i in range(len(batch))
            )
            params: list[object] = []
            for term in batch:
                params.extend((f'"{term}"', *span))
            found: list[list[int]] = [[] for _ in batch]
            for i, seq in self._conn.execute(sql, params).fetchall():
                found[i].append(seq)
            total = len(notes)
            for term, seqs in zip(batch, found, strict=True):
                count = len(seqs)
                weight = max(math.log(1 + (total - count + 0.5) / (count + 0.5)), _IDF_FLOOR)
                self._gains[(project, term)] = {seq: weight * notes.get(seq, 1.0) for seq in seqs}


def project_state(conn: sqlite3.Connection, span: tuple[int, int], live: list[int]) -> str:
    """A hash of all a project's neighbours by title and subject depend on: every column
    of every indexed note in its rowid range (``span``; superseded and expired ones too,
    which count in each word's note frequency), what full-text search sees being made of
    those columns, and which of them are live (``live``, their rowids). Equal hashes,
    equal neighbours: what lets a review reuse the last one's (:mod:`.pair_memo`)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(sorted(live)).encode())
    rows = conn.execute("SELECT * FROM memories WHERE seq BETWEEN ? AND ? ORDER BY seq", span)
    for row in rows:
        # Every column, whatever the schema adds: the deflated body's bytes as they are
        # (their repr costs thrice the time), the rest by repr (1 and '1' told apart).
        rest = []
        for value in row:
            if isinstance(value, bytes):
                digest.update(len(value).to_bytes(8, "little"))
                digest.update(value)
            else:
                rest.append(value)
        digest.update(repr(rest).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def similar_pairs(
    conn: sqlite3.Connection,
    model: str,
    span: tuple[int, int],
    floor: float,
    most: int,
    short: int,
) -> list[tuple[int, int]]:
    """Pairs of a project's notes whose embeddings (their start's, for ``model``) are at
    least ``floor`` alike: for each short note (its file at most ``short`` bytes: a fact,
    not a session's story), its ``most`` nearest notes. Each pair once, the lower rowid
    first. One join of the narrow passage table within the project's rowids (sqlite-vec
    loaded into ``conn``), the short notes against all: nothing where no note has a
    vector, and no cost growing with the square of a store of long notes."""
    from anamnesis.store.vectors.vector_index import HEAD  # only where vectors run

    # A note's start is passage 0, or HEAD while its later passages wait: one of the two.
    start = f"IN (0, {HEAD})"
    rows = conn.execute(
        "SELECT a.seq, b.seq, 1.0 - vec_distance_cosine(a.vector, b.vector) AS alike"
        " FROM note_passages a JOIN memories m ON m.seq = a.seq AND m.file_size <= ?"
        f" JOIN note_passages b ON b.model = a.model AND b.passage {start}"
        " AND b.seq != a.seq AND b.seq BETWEEN ? AND ?"
        f" WHERE a.model = ? AND a.passage {start} AND a.seq BETWEEN ? AND ?"
        " AND alike >= ? ORDER BY a.seq, alike DESC, b.seq",
        [short, *span, model, *span, floor],
    ).fetchall()
    taken: dict[int, int] = {}
    out: dict[tuple[int, int], None] = {}
    for first, second, _alike in rows:
        if taken.get(first, 0) < most:
            taken[first] = taken.get(first, 0) + 1
            out.setdefault((min(first, second), max(first, second)))
    return list(out)
