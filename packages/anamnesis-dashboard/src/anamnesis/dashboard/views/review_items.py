"""What the review page shows, from the store, and what a resolve form must still find
before anything is written.

The page lists the store's contradiction candidates (``MemoryStore.contradictions``: pairs
of live notes stating different values about one subject, found without a provider) and
the notes due for review (``MemoryStore.due_for_review``). Each side of a pair carries its
provenance in the store's own words (``source_word``, ``is_unconfirmed``: the one place
that names them) and its text cut around the values the two notes disagree on.

Every form on the page carries a stamp of each note as shown (a digest of all its
fields). A resolve is refused, saying why, when a note changed, left the store, was
superseded, expired or was marked compatible since the page was drawn: the person decided
about what they saw, so nothing is written about a version they did not see.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit

from markupsafe import Markup

from anamnesis.dashboard.markup.snippets import value_snippet
from anamnesis.store import (
    InvalidNote,
    Memory,
    MemoryStore,
    NoteNotFound,
    check_when,
    display_safe,
    is_due,
    is_expired,
    is_unconfirmed,
    is_valid_id,
    source_word,
)

if TYPE_CHECKING:
    from anamnesis.store import Contradiction, Difference

REVIEW_PATH = "/review"
STAMP_CHARS = 20  # 80 bits of SHA-256: a changed note is never mistaken for the one shown
EXCERPT_CHARS = 320  # a side's text: enough to read the sentence each value stands in
# How many of each the page draws (newest pairs first, longest due first): a store that
# holds thousands of candidates is resolved a page at a time, not drawn in one 10 MB page.
PAIRS_SHOWN = 50
DUE_SHOWN = 100


class StaleForm(Exception):
    """A form about notes that are no longer as the page showed them; the message says
    what changed (shown to the person above the page as it is now)."""


class BadForm(ValueError):
    """A form no page of ours sends (a malformed id, a date that is no date)."""


def stamp(note: Memory) -> str:
    """A digest of every field of ``note``: any change to it (a hand edit, a sync, a
    resolve in another tab or by the CLI) changes the stamp."""
    data = json.dumps(note.to_dict(), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:STAMP_CHARS]


@dataclass(frozen=True, slots=True)
class Side:
    """One note of a pair as the page shows it."""

    note: Memory
    source: str  # you / captured / reflected / imported / merged
    unconfirmed: bool  # a model wrote it and no person has kept it
    newer: bool
    excerpt: Markup  # its text, the value it states marked
    stamp: str

    @classmethod
    def of(cls, note: Memory, values: list[str], *, newer: bool) -> Side:
        return cls(
            note, source_word(note), is_unconfirmed(note), newer,
            value_snippet(note.body, values, EXCERPT_CHARS), stamp(note),
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Pair:
    """A contradiction candidate: the older note, the newer, the values that differ."""

    older: Side
    newer: Side
    differs: tuple[Difference, ...]

    @classmethod
    def of(cls, found: Contradiction) -> Pair:
        differs = tuple(found.differs)
        return cls(
            Side.of(found.older, [d.old for d in differs], newer=False),
            Side.of(found.newer, [d.new for d in differs], newer=True),
            differs,
        )

    @property
    def sides(self) -> tuple[Side, Side]:
        return self.older, self.newer

    @property
    def anchor(self) -> str:
        return f"pair-{self.older.note.id}-{self.newer.note.id}"


@dataclass(frozen=True, slots=True)
class DueNote:
    """A note whose ``review_after`` has come."""

    note: Memory
    source: str
    stamp: str


@dataclass(frozen=True, slots=True)
class Review:
    """Everything the page lists, for one project (``""``: all)."""

    pairs: list[Pair]  # the first PAIRS_SHOWN
    due: list[DueNote]  # the first DUE_SHOWN
    projects: list[str]
    project: str
    pair_count: int  # all of them
    due_count: int
    paired: frozenset[str]  # every note in a pair, shown or not
    due_ids: frozenset[str]  # every due note, shown or not

    @property
    def empty(self) -> bool:
        return not self.pair_count and not self.due_count


def review_of(store: MemoryStore, project: str) -> Review:
    """The candidates (newest pairs first, as the store orders them) and the due notes.
    ``contradictions`` compares the live notes with each other: up to a second or two at
    thousands of notes, which is why only this page asks for it (see ``review_pages``)."""
    scope = project or None
    found = store.contradictions(project=scope)
    pairs = [Pair.of(pair) for pair in found[:PAIRS_SHOWN]]
    due_notes = store.due_for_review(project=scope)
    due = [DueNote(n, source_word(n), stamp(n)) for n in due_notes[:DUE_SHOWN]]
    projects = sorted(store.stats().by_project)
    paired = frozenset(note_id for pair in found for note_id in pair.ids)
    due_ids = frozenset(note.id for note in due_notes)
    return Review(
        pairs, due, projects, project, len(found), len(due_notes), paired, due_ids
    )  # fmt: skip


def note_id_of(raw: str) -> str:
    """A form's note id, checked: ids never become anything but a store lookup."""
    note_id = raw.strip().upper()
    if not is_valid_id(note_id):
        raise BadForm("this form names no note: reload the review page")
    return note_id


def live_note(store: MemoryStore, note_id: str) -> Memory:
    """The note, if it is still in the store and live; :class:`StaleForm` saying what
    became of it otherwise (resolved elsewhere: superseded; expired; gone)."""
    try:
        note = store.get(note_id)
    except NoteNotFound:
        raise StaleForm(
            f"Note {note_id} is no longer in the store (deleted, or removed by a sync): "
            "nothing was changed."
        ) from None
    newer = store.supersede_chain(note_id).newer
    if newer:
        by = _quoted_id(store, newer[-1])
        raise StaleForm(
            f"{_quoted(note)} is already superseded by {by}: there is nothing left to resolve."
        )
    if is_expired(note):
        raise StaleForm(
            f"{_quoted(note)} expired ({note.valid_until}): it is no longer recalled, nothing "
            "to resolve."
        )
    return note


def unchanged(note: Memory, seen: str) -> Memory:
    """``note``, if it is as the page showed it (its stamp is ``seen``)."""
    if stamp(note) != seen:
        raise StaleForm(
            f"{_quoted(note)} changed since the page was shown: nothing was changed. Here it "
            "is as it is now."
        )
    return note


def pair_as_shown(
    store: MemoryStore, first: tuple[str, str], second: tuple[str, str]
) -> tuple[Memory, Memory]:
    """Both notes of a pair (each ``(id, stamp as shown)``), live, not yet said to be both
    right, and unchanged; :class:`StaleForm` otherwise (what was resolved meanwhile is
    said before what merely changed: a resolve changes the stamps too)."""
    one, other = live_note(store, first[0]), live_note(store, second[0])
    if one.id == other.id:
        raise BadForm("a pair is two different notes")
    if other.id in one.compatible_with or one.id in other.compatible_with:
        raise StaleForm(
            f"{_quoted(one)} and {_quoted(other)} were already marked both right: the pair is "
            "not proposed again."
        )
    return unchanged(one, first[1]), unchanged(other, second[1])


def due_as_shown(store: MemoryStore, note_id: str, seen: str) -> Memory:
    """The due note, live, still due and unchanged; :class:`StaleForm` otherwise."""
    note = live_note(store, note_id)
    if not is_due(note):
        raise StaleForm(
            f"{_quoted(note)} is not due for review any more (confirmed or given a later "
            "date meanwhile): nothing was changed."
        )
    return unchanged(note, seen)


def next_review(raw: str, today: date | None = None) -> str | None:
    """The "next review" field: None when left empty (the store's default), else a date
    or timestamp after today (one already past would leave the note due at once)."""
    text = raw.strip()
    if not text:
        return None
    try:
        when = check_when(text, "next review")
    except InvalidNote as exc:
        raise BadForm(str(exc)) from None
    if when[:10] <= (today or datetime.now(UTC).date()).isoformat():
        raise BadForm(f"the next review ({when[:10]}) must be after today, or left empty")
    return when


def tomorrow(today: date | None = None) -> str:
    """The earliest next review the form offers."""
    return ((today or datetime.now(UTC).date()) + timedelta(days=1)).isoformat()


def review_address(project: str = "", **flash: str) -> str:
    """The review page's address: the project filter and what the last action did."""
    kept = [("project", project), *flash.items()]
    query = urlencode([(key, value) for key, value in kept if value])
    return f"{REVIEW_PATH}?{query}" if query else REVIEW_PATH


def review_return(back: str) -> str | None:
    """The project of a review page's address (``""``: all) that an edit should return to
    after its save, or None when ``back`` is not one: only our own review page is ever a
    place a form sends the browser (no open redirect)."""
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or parts.path != REVIEW_PATH or parts.fragment:
        return None
    params = parse_qsl(parts.query)
    if any(key != "project" for key, _ in params):
        return None
    return params[-1][1] if params else ""


def _quoted(note: Memory) -> str:
    return f"“{display_safe(note.title)}”"


def _quoted_id(store: MemoryStore, note_id: str) -> str:
    try:
        return _quoted(store.get(note_id))
    except NoteNotFound:
        return note_id
