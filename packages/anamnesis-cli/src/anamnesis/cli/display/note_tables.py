"""The tables of `list` and `search`: which columns, and how each may give way on a narrow
terminal (:mod:`anamnesis.cli.display.tables` draws them)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from anamnesis.cli.display.lines import ids_cell
from anamnesis.cli.display.tables import Column, show
from anamnesis.store import Memory, SearchResult, relative_scores

# Ids, dates and scores are never cut: an id is copied from the screen. The title takes
# twice the project's share of what is left, and the type goes first (then the date) when
# the terminal is too narrow for both to read.
ID = Column("id")
SCORE = Column("score")
TYPE = Column("type", drop=1)
PROJECT = Column("project", cut=1, comfort=10)
UPDATED = Column("updated", drop=2)
SUPERSEDED_BY = Column("superseded by")
EXPIRED = Column("expired")  # the valid_until a note is past ("-" for one still valid)
TITLE = Column("title", cut=2, comfort=20)


def show_notes(notes: Sequence[Memory], *, expired: Collection[str] = ()) -> None:
    """`list`'s table; when some of its notes are ``expired`` (ids), a column says until
    when each of those held."""
    columns = [ID, TYPE, PROJECT, UPDATED, TITLE]
    rows = [[n.id, n.type, n.project, n.updated_at[:10], n.title] for n in notes]
    if expired:
        columns.insert(4, EXPIRED)
        for row, n in zip(rows, notes, strict=True):
            row.insert(4, _expired_cell(n, expired))
    show(columns, rows)


def show_hits(
    found: SearchResult, *, include_superseded: bool, expired: Collection[str] | None = None
) -> None:
    """`search`'s table: each hit's score relative to the best; searching the history adds
    a column naming each replaced row's replacements ("-" for a current note; on a
    terminal the first, whole, and how many more); searching expired notes too
    (``expired``: the ids of those among the hits) a column of the day each one held until."""
    relative = relative_scores([hit.score for hit in found.hits])
    columns = [ID, SCORE, TYPE, PROJECT, UPDATED, TITLE]
    rows: list[list[str]] = []
    for hit, score in zip(found.hits, relative, strict=True):
        n = hit.note
        rows.append([n.id, f"{score:.2f}", n.type, n.project, n.updated_at[:10], n.title])
        if expired is not None:
            rows[-1].insert(5, _expired_cell(n, expired))
        if include_superseded:
            rows[-1].insert(5, ids_cell(hit.superseded_by, none="-"))
    if expired is not None:
        columns.insert(5, EXPIRED)
    if include_superseded:
        columns.insert(5, SUPERSEDED_BY)
    show(columns, rows)


def _expired_cell(note: Memory, expired: Collection[str]) -> str:
    """The day an expired note held until (a timestamp's day: --json has it whole)."""
    return note.valid_until[:10] if note.id in expired else "-"
