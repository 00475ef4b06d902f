"""Supersede chains: what a note replaces and what replaces it, followed link by link.

A note's ``supersedes`` names the notes it replaces (``memory_supersedes`` in the index).
Those notes may replace others in turn, and a replaced note may be replaced by several;
a chain is walked breadth first in both directions, one query per step, each id once, so
links that loop (two notes each listing the other, after a merge or by hand) end the walk
instead of repeating it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anamnesis.store.errors import NoteNotFound
from anamnesis.store.index import db as ix
from anamnesis.store.note.model import SupersedeChain

if TYPE_CHECKING:
    import sqlite3

# Ids per statement: under SQLite's bound-parameter limit.
_CHUNK = 500


def chain(conn: sqlite3.Connection, memory_id: str) -> SupersedeChain:
    """The supersede chain of the note with this id, read in one transaction; raises
    :class:`NoteNotFound` when no note has the id."""
    with ix.read_transaction(conn):
        if conn.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone() is None:
            raise NoteNotFound(memory_id)
        links: dict[tuple[str, str], None] = {}
        older = _walk(conn, memory_id, links, toward_older=True)
        newer = _walk(conn, memory_id, links, toward_older=False)
        present = _present(conn, older)
    return SupersedeChain(
        memory_id,
        older=tuple(older),
        newer=tuple(newer),
        links=tuple(links),
        missing=tuple(memory for memory in older if memory not in present),
    )


def _walk(
    conn: sqlite3.Connection,
    start: str,
    links: dict[tuple[str, str], None],
    *,
    toward_older: bool,
) -> list[str]:
    """The ids reached from ``start`` following supersedes links one way, nearest first
    (by id within a step), ``start`` excluded; each (newer, older) link walked is added to
    ``links``."""
    # Toward older notes: the rows a note wrote (memory_id -> superseded_id); toward newer
    # ones: the rows naming it (superseded_id <- memory_id).
    near, far = ("memory_id", "superseded_id") if toward_older else ("superseded_id", "memory_id")
    seen = {start}
    reached: list[str] = []
    frontier = [start]
    while frontier:
        step: list[str] = []
        for first in range(0, len(frontier), _CHUNK):
            chunk = frontier[first : first + _CHUNK]
            rows = conn.execute(
                f"SELECT {near}, {far} FROM memory_supersedes"
                f" WHERE {near} IN ({','.join('?' * len(chunk))}) ORDER BY {far}",
                chunk,
            )
            for from_id, to_id in rows:
                links[(from_id, to_id) if toward_older else (to_id, from_id)] = None
                if to_id not in seen:
                    seen.add(to_id)
                    step.append(to_id)
        step.sort()
        reached.extend(step)
        frontier = step
    return reached


def _present(conn: sqlite3.Connection, ids: list[str]) -> set[str]:
    """Which of these ids a note has."""
    found: set[str] = set()
    for first in range(0, len(ids), _CHUNK):
        chunk = ids[first : first + _CHUNK]
        rows = conn.execute(
            f"SELECT id FROM memories WHERE id IN ({','.join('?' * len(chunk))})", chunk
        )
        found.update(memory_id for (memory_id,) in rows)
    return found
