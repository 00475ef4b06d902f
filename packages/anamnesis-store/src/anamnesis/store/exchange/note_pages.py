"""Every note of a listing, a page at a time: memory flat in the size of the store.

:meth:`MemoryStore.list` returns its notes in one list, which for a whole store of
100,000 notes held half a gigabyte. :func:`every_note` asks for the same listing a page
at a time, each page starting after the last note of the one before (``list(after=...)``:
one seek down the recency index, however deep the page), and hands the notes on as it
goes. Each page is one consistent snapshot, as one ``list`` call is; a note written
between pages is in the listing when its place comes after the page being read.

A note edited between pages moves ahead of the page being read, so a listing can miss it.
:func:`each_note_once`, for exports, does not: it fetches those at the end. A note dated in
the future that is edited or deleted between pages makes the next page start from now
(where it ranked is gone with it), so a few notes may come twice; :func:`each_note_once`
hands each on once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anamnesis.store.errors import MalformedNote, NoteNotFound

if TYPE_CHECKING:
    from collections.abc import Iterator

    from anamnesis.store.note.model import Memory
    from anamnesis.store.store import MemoryStore

# Notes a page: big enough that a statement's set-up is lost in the rows (about 2 ms at
# 100,000 notes), small enough that a page of notes with bodies stays a few MB.
PAGE = 1000


def every_note(
    store: MemoryStore, *, limit: int | None = None, page: int | None = None, **filters: Any
) -> Iterator[Memory]:
    """The notes ``store.list(limit=limit, **filters)`` returns, in its order, fetched
    ``page`` at a time (None: :data:`PAGE`)."""
    page = page or PAGE
    after: Memory | None = None
    left = limit
    while left is None or left > 0:
        size = page if left is None else min(page, left)
        notes = store.list(**filters, limit=size, after=after)
        yield from notes
        if len(notes) < size:
            return
        after = notes[-1]
        if left is not None:
            left -= len(notes)


def each_note_once(store: MemoryStore, *, page: int | None = None) -> Iterator[Memory]:
    """Every note of the store exactly once (superseded and machine-local ones too), each as
    it was at some moment of the walk, a page at a time.

    :func:`every_note` pages by recency, so a note edited during the walk moves ahead of the
    page being read and would be missed: the ids handed on are kept (about 100 bytes a
    note, not the note), and a last pass without bodies finds any note not handed on,
    which is then read whole. A note deleted during the walk may still be in it.
    """
    handed: set[str] = set()
    for note in every_note(store, page=page):
        if note.id not in handed:  # a page after a note dated ahead may repeat a few
            handed.add(note.id)
            yield note
    for listed in every_note(store, page=page, include_body=False):
        if listed.id not in handed:
            handed.add(listed.id)
            try:
                yield store.get(listed.id)
            except (NoteNotFound, MalformedNote):
                # Deleted or broken since it was listed: as a listing skips it. Anything
                # else (a busy or broken index) goes on, never a note silently left out.
                continue
