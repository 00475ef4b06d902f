"""The tables of `list` and `search`: which columns, and how each may give way on a narrow
terminal (:mod:`anamnesis.cli.display.tables` draws them)."""

from __future__ import annotations

from collections.abc import Sequence

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
TITLE = Column("title", cut=2, comfort=20)


def show_notes(notes: Sequence[Memory]) -> None:
    """`list`'s table."""
    show(
        [ID, TYPE, PROJECT, UPDATED, TITLE],
        [[n.id, n.type, n.project, n.updated_at[:10], n.title] for n in notes],
    )


def show_hits(found: SearchResult, *, include_superseded: bool) -> None:
    """`search`'s table: each hit's score relative to the best; searching the history adds
    a column naming each replaced row's replacements ("-" for a current note; on a
    terminal the first, whole, and how many more)."""
    relative = relative_scores([hit.score for hit in found.hits])
    columns = [ID, SCORE, TYPE, PROJECT, UPDATED, TITLE]
    rows: list[list[str]] = []
    for hit, score in zip(found.hits, relative, strict=True):
        n = hit.note
        rows.append([n.id, f"{score:.2f}", n.type, n.project, n.updated_at[:10], n.title])
        if include_superseded:
            rows[-1].insert(5, ids_cell(hit.superseded_by, none="-"))
    if include_superseded:
        columns.insert(5, SUPERSEDED_BY)
    show(columns, rows)
