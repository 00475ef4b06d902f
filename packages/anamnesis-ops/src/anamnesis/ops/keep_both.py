"""keep-both through the store's own codec: both versions of a conflicting note stay
visible as valid notes.

Our side becomes a new note (a fresh id; it carries this machine's id: whoever wrote the
original, the version kept here is the one this machine had); the remote's keeps its id.
Neither supersedes the other: both are tagged ``conflict`` and name each other in
``conflict_with`` (an extra key the store keeps) until the user supersedes one or merges
them (:func:`open_conflicts` lists the pairs still open). A file the codec cannot read
falls back to sync's own text fork.
"""

from __future__ import annotations

from anamnesis.store import (
    MalformedNote,
    Memory,
    MemoryStore,
    StoreError,
    new_id,
    parse_note,
    serialize_note,
    validate_note,
)
from anamnesis.sync import CONFLICT_KEY, CONFLICT_TAG, Fork, Forked, fork_note


def store_fork(machine_id: str) -> Fork:
    """The keep-both fork the sync cycle hands to a resolve, for this machine."""

    def fork(path: str, ours: bytes, theirs: bytes) -> Forked:
        try:
            note = parse_note(ours.decode("utf-8"), path)
        except (MalformedNote, UnicodeDecodeError, StoreError):
            return fork_note(path, ours, theirs, machine_id=machine_id)
        try:
            other = parse_note(theirs.decode("utf-8"), path)
        except (MalformedNote, UnicodeDecodeError, StoreError):
            other = None  # not a note there: left as it is, ours still names its id
        try:
            fresh = validate_note(
                _marked(note, other.id if other is not None else note.id).replace(
                    id=new_id(), machine_id=machine_id
                )
            )
            kept = theirs
            if other is not None:
                kept = serialize_note(validate_note(_marked(other, fresh.id))).encode("utf-8")
        except StoreError:  # a value the codec will not write back: edit the text instead
            return fork_note(path, ours, theirs, machine_id=machine_id)
        directory = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        return Forked(f"{directory}{fresh.id}.md", serialize_note(fresh).encode("utf-8"), kept)

    return fork


def _marked(note: Memory, other_id: str) -> Memory:
    """``note`` tagged ``conflict`` and naming ``other_id`` among its conflicting versions."""
    links = note.extra.get(CONFLICT_KEY)
    known: list[str] = [] if links is None else [links] if isinstance(links, str) else list(links)
    if other_id not in known:
        known.append(other_id)
    tags = note.tags if CONFLICT_TAG in note.tags else [*note.tags, CONFLICT_TAG]
    extra = {**note.extra, CONFLICT_KEY: known[0] if len(known) == 1 else known}
    return note.replace(tags=tags, extra=extra)


def open_conflicts(store: MemoryStore) -> list[tuple[Memory, list[str]]]:
    """Notes kept both ways by a keep-both resolve whose other version is still in force
    too: each with the ids of those other versions. A pair leaves this list once the user
    supersedes one of the two (or deletes one). A version past its valid_until still
    counts: one machine expiring a note while another edited it is a conflict to settle."""
    listed = store.list(
        tag=CONFLICT_TAG, include_superseded=False, include_expired=True, include_body=False
    )
    current = {note.id: note for note in listed}
    out = []
    for note in current.values():
        named = note.extra.get(CONFLICT_KEY)
        others = [named] if isinstance(named, str) else named if isinstance(named, list) else []
        alive = [str(other) for other in others if other in current]
        if alive:
            out.append((note, alive))
    return out
