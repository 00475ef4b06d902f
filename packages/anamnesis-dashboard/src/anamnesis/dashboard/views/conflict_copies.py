"""Notes kept both ways by a keep-both resolve, as a person tells them apart.

The two copies share title, project, created time and often machine: keep-both gives
"ours" (the version on the machine that settled the conflict) a fresh id and that
machine's id, and leaves "theirs" (the remote's version) under the original id; both are
tagged ``conflict`` and name each other in ``conflict_with`` (anamnesis.sync's fork,
ops' ``store_fork``). A ULID starts with the time it was made, so of two copies the one
with the later id is the one made at the resolve: that is what tells them apart here.

A pair is open while both copies are in force (neither superseded nor deleted), as ops'
``open_conflicts`` counts them.
"""

from __future__ import annotations

from dataclasses import dataclass

from anamnesis.ops import open_conflicts
from anamnesis.store import Memory, MemoryStore, NoteNotFound, StoreError, is_valid_id
from anamnesis.sync import CONFLICT_KEY


@dataclass(frozen=True, slots=True)
class Copy:
    """One version of a note kept both ways: what tells it from its other copies."""

    id: str
    title: str
    machine_id: str
    updated_at: str
    made_at_resolve: bool  # the settling machine's version (a fresh id), else the remote's

    @classmethod
    def of(cls, note: Memory, other_ids: list[str]) -> Copy:
        return cls(
            note.id, note.title, note.machine_id, note.updated_at,
            made_at_resolve=any(note.id > other for other in other_ids),
        )  # fmt: skip


def named_copies(note: Memory) -> list[str]:
    """The ids ``note``'s ``conflict_with`` names (one id, or a list after repeated
    conflicts); whatever else a hand edit left there is ignored."""
    raw = note.extra.get(CONFLICT_KEY)
    items = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    ids = [str(item).strip().upper() for item in items]
    return [item for item in dict.fromkeys(ids) if is_valid_id(item) and item != note.id]


def open_copies(store: MemoryStore, note: Memory) -> list[Copy]:
    """The other copies of ``note`` still in force, for the banner on its page: none when
    ``note`` itself is superseded (the conflict was settled by keeping another)."""
    named = named_copies(note)
    if not named or _superseded(store, note.id):
        return []
    out = []
    for other_id in named:
        try:
            other = store.get(other_id)
        except (NoteNotFound, StoreError):
            continue  # deleted: settled
        if not _superseded(store, other_id):
            out.append(Copy.of(other, [note.id]))
    return out


@dataclass(frozen=True, slots=True)
class Banner:
    """What a conflict copy's page says: which version this one is, and the others."""

    this: Copy
    others: list[Copy]


def banner(store: MemoryStore, note: Memory) -> Banner | None:
    """The banner for ``note``'s page while its conflict is open, else None."""
    others = open_copies(store, note)
    if not others:
        return None
    return Banner(Copy.of(note, [other.id for other in others]), others)


def open_pairs(store: MemoryStore) -> list[tuple[Copy, Copy]]:
    """Every open pair once, the remote's copy first, for the status page."""
    found = open_conflicts(store)
    by_id = {note.id: note for note, _others in found}
    pairs: dict[tuple[str, str], tuple[Copy, Copy]] = {}
    for note, others in found:
        for other_id in others:
            key = (min(note.id, other_id), max(note.id, other_id))
            if key not in pairs and other_id in by_id:
                older, newer = by_id[key[0]], by_id[key[1]]
                pairs[key] = (Copy.of(older, [newer.id]), Copy.of(newer, [older.id]))
    return list(pairs.values())


def _superseded(store: MemoryStore, note_id: str) -> bool:
    try:
        return bool(store.supersede_chain(note_id).newer)
    except (NoteNotFound, StoreError):
        return True
