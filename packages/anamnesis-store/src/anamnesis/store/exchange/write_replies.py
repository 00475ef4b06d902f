"""What a writer is told about the note it just wrote: the live notes it may contradict.

Every writer says it the same way, whoever wrote the note: the CLI's `write` (its
``--json`` and a warning), the MCP server's ``memory_write`` (its result), capture (the
hooks' log) and reflect (its report). Each entry names the other note and what differs:
``{"id", "title", "differs": [{"kind", "subject", "old", "new"}, ...]}``, ``old`` being
the older note's value (the other note's: the one just written is the newer).

The check is advice about a note already written: a store that cannot answer it (busy,
its index being rebuilt) never turns a write that succeeded into a failure. The answer
is then empty, and the reason is logged.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from anamnesis.store.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from anamnesis.store.note.model import Memory
    from anamnesis.store.review.records import Contradiction
    from anamnesis.store.store import MemoryStore

# How many notes a reply names at most: the nearest few are what a writer can act on;
# `anamnesis review` lists them all.
REPLY_LIMIT = 5


def contradictions_reply(
    store: MemoryStore, written: Memory, *, limit: int = REPLY_LIMIT
) -> list[dict[str, Any]]:
    """The live notes ``written`` (a note just written) may contradict, nearest first, as a
    write's reply holds them; [] when none, or when the store could not tell (logged)."""
    try:
        found = store.possible_contradictions(written, limit=limit)
    except StoreError as exc:
        logging.getLogger("anamnesis.store").warning(
            "could not check %s for contradictions: %s", written.id, exc
        )
        return []
    return [reply_entry(pair, written.id) for pair in found]


def batch_contradictions(store: MemoryStore, written: Iterable[Memory]) -> list[dict[str, Any]]:
    """:func:`contradictions_reply` for each note of a batch written with no agent to tell
    (a reflection, a merge: their reports list these), each entry naming its new note as
    ``note``: ``{"note", "id", "title", "differs"}``."""
    return [
        {"note": note.id, **entry}
        for note in written
        for entry in contradictions_reply(store, note)
    ]


def reply_entry(pair: Contradiction, written_id: str) -> dict[str, Any]:
    """One contradiction as a write's reply names it: the other note than ``written_id``."""
    other = pair.older if pair.newer.id == written_id else pair.newer
    return {
        "id": other.id,
        "title": other.title,
        "differs": [difference.to_dict() for difference in pair.differs],
    }


def difference_text(difference: dict[str, Any]) -> str:
    """One difference in words, the older note's side first: ``dev server port: 3000 ->
    5173``; a side of several words (a negation's, a replacement's) in quotes."""
    subject = difference.get("subject") or difference.get("kind") or "value"
    return f"{subject}: {_side(difference.get('old'))} -> {_side(difference.get('new'))}"


def _side(value: object) -> str:
    text = " ".join(str(value or "").split())
    if not text:
        return "(not said)"
    return f'"{text}"' if " " in text else text


def differences_text(differs: Iterable[dict[str, Any]]) -> str:
    """Every difference of a pair on one line, ``; `` between them."""
    return "; ".join(difference_text(difference) for difference in differs)


def reply_line(entry: dict[str, Any]) -> str:
    """A reply's entry on one line (a log's, a warning's): ``ID (title): what differs``."""
    return f"{entry['id']} ({entry['title']}): {differences_text(entry['differs'])}"
