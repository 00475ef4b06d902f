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

import re

from anamnesis.store.index import db as ix
from anamnesis.store.index import project_seq
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.note.invisible import match_text
from anamnesis.store.note.model import DURABLE_TYPES, NOTE_TYPES
from anamnesis.store.review.text import GENERIC

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from typing import Final

    from anamnesis.store.note.model import Memory

# How the columns weigh (title, body, tags): a shared title word says "same subject" more
# than a shared body word does.
_WEIGHTS: Final = "4.0, 1.0, 1.0"
# The most words a question holds: the title's, then the body's names and code.
MOST_TERMS: Final = 16
_TERM = re.compile(r"[^\W_]+", re.UNICODE)
_CODE = re.compile(r"`([^`\n]{1,300})`")
_NAMED = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][\w-]*[A-Za-z0-9]|\b\w+[_.]\w[\w.]*|\b[A-Z]{2,}\w*")


# The notes' rows, the full-text match first: SQLite then visits only the notes that hold a
# term, never every row of the project.
_SELECT: Final = ix.SELECT_NOTE.replace(
    "FROM memories m", "FROM memories_fts f CROSS JOIN memories m ON m.seq = f.rowid"
)


def pairable_types(mem: Memory) -> tuple[str, ...]:
    """The types of note ``mem`` may pair with: any for a durable note, durable ones for
    an episodic note (a session that changed a fact; two sessions never pair)."""
    return tuple(DURABLE_TYPES) if mem.type not in DURABLE_TYPES else tuple(NOTE_TYPES)


def subject_terms(mem: Memory, *, body: bool) -> list[str]:
    """The words that name a note's subject, as a full-text question's terms: the title's
    content words, then (``body``) the names, identifiers and code words of its body."""
    terms: dict[str, None] = {}

    def add(text: str) -> None:
        for term in _TERM.findall(match_text(text)):
            lower = term.lower()
            if len(lower) > 1 and lower not in GENERIC and not lower.isdigit():
                terms.setdefault(lower)

    add(mem.title)
    if body:
        text = mem.body[:4000]
        for code in _CODE.findall(text):
            add(code)
        for named in _NAMED.findall(_CODE.sub(" ", text)):
            add(named)
    return list(terms)[:MOST_TERMS]


def neighbours(
    conn: sqlite3.Connection,
    mem: Memory,
    terms: list[str],
    most: int,
    *,
    moment: str = "",
) -> list[ix.NoteRow]:
    """Up to ``most`` live notes ``mem`` may pair with that hold its ``terms``, best
    first (then newer first, then by id): never ``mem`` itself, the notes it supersedes,
    nor a note either side marked compatible with the other."""
    if not terms or most <= 0:
        return []
    span = project_seq.rowid_range(conn, mem.project)
    if span is None:
        return []
    where, params = Filters(mem.project, pairable_types(mem), moment=moment).eligible_sql()
    excluded = [mem.id, *mem.supersedes, *mem.compatible_with]
    where += f" AND m.id NOT IN ({','.join('?' * len(excluded))})"
    params.extend(excluded)
    where += " AND m.compatible_json NOT LIKE ?"
    params.append(f'%"{mem.id}"%')
    expression = " OR ".join(f'"{term}"' for term in terms)
    rows = conn.execute(
        f"{_SELECT} WHERE memories_fts MATCH ? AND f.rowid BETWEEN ? AND ?{where}"
        f" ORDER BY bm25(memories_fts, {_WEIGHTS}), m.ranked_at DESC, m.id LIMIT ?",
        [expression, *span, *params, most],
    ).fetchall()
    return [ix.note_row(row) for row in rows]
