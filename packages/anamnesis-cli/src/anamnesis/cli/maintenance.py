"""Store-wide repairs: re-keying projects and removing duplicate notes.

Both compute a plan first (the dry run shows it) and apply it only when asked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from anamnesis.cli.errors import CliError
from anamnesis.store import MalformedNote, Memory, MemoryStore, NoteNotFound, every_note


def read_project_map(path: Path) -> dict[str, str]:
    """A JSON object mapping old project keys to new ones, checked."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CliError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise CliError(f'{path} must be a JSON object like {{"old-project": "new-project"}}')
    mapping: dict[str, str] = {}
    for old, new in data.items():
        if not isinstance(new, str) or not new.strip() or "\n" in new:
            raise CliError(f"{path}: the new key for {old!r} must be one non-empty line of text")
        if new.strip() != old:
            mapping[old] = new.strip()
    return mapping


@dataclass(slots=True)
class MigratePlan:
    moves: dict[str, list[str]] = field(default_factory=dict)  # old project -> note ids
    mapping: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(len(ids) for ids in self.moves.values())


def plan_migrate(store: MemoryStore, mapping: Mapping[str, str]) -> MigratePlan:
    plan = MigratePlan(mapping=dict(mapping))
    for note in store.list(include_body=False):
        if note.project in mapping:
            plan.moves.setdefault(note.project, []).append(note.id)
    return plan


def apply_migrate(store: MemoryStore, plan: MigratePlan) -> int:
    """Re-key the notes; their timestamps stay (a re-key is not an edit of the content)."""
    moved = 0
    for old, ids in plan.moves.items():
        for memory_id in ids:
            note = store.get(memory_id)
            if note.project == old:  # skip notes changed since the plan was made
                store.put(note.replace(project=plan.mapping[old]))
                moved += 1
    return moved


@dataclass(slots=True)
class DuplicateGroup:
    keep: Memory
    drop: list[Memory]


def duplicate_key(note: Memory) -> tuple[str, str, str, str]:
    """Notes are duplicates only when project, type, scope and body are all the same.

    The same text in two projects is two notes: each shows up in its own project's
    sessions, and removing one would take it away from that project. A different type
    changes how a note is recalled (procedural notes are injected first), so a procedural
    and a semantic note with one body are not interchangeable either. And a machine-local
    note never merges with a portable one: its tags and links would travel to the remote
    inside the synced keeper, and dropping it instead would lose them.
    """
    return note.project, note.type, note.scope, note.body


def find_duplicates(store: MemoryStore, *, page: int | None = None) -> list[DuplicateGroup]:
    """Groups of notes with the same ``duplicate_key``. The keeper is the note still in
    force (a superseded copy is hidden from search), then the oldest: the original, with
    the provenance of when the thing was first learned.

    The notes are read a page at a time and only a digest of each key is kept, so memory
    stays flat in the size of the store (every note with its body in one list held 640 MB
    at 100,000 notes); the few notes that share a digest are then read again, whole.
    """
    superseded = set(store.superseders())
    first: dict[int, str] = {}  # key digest -> the first note found with it
    repeated: dict[int, list[str]] = {}  # key digest -> every note with it, once repeated
    for note in every_note(store, page=page):
        if not note.body.strip():
            continue
        digest = _key_digest(note)
        seen = first.setdefault(digest, note.id)
        if seen != note.id:
            repeated.setdefault(digest, [seen]).append(note.id)
    groups = []
    for ids in repeated.values():
        for notes in _by_key(_current(store, ids)):
            notes.sort(key=lambda n: (n.id in superseded, n.created_at, n.id))
            groups.append(DuplicateGroup(keep=notes[0], drop=notes[1:]))
    groups.sort(key=lambda g: (g.keep.created_at, g.keep.id))
    return groups


def _key_digest(note: Memory) -> int:
    # Python's hash of the key: two keys sharing one are told apart by _by_key.
    return hash(duplicate_key(note))


def _current(store: MemoryStore, ids: list[str]) -> list[Memory]:
    """The notes with these ids as they are now: one deleted or broken meanwhile is left
    out, as a listing leaves it out."""
    notes = []
    for memory_id in ids:
        try:
            notes.append(store.get(memory_id))
        except (NoteNotFound, MalformedNote):
            continue
    return notes


def _by_key(notes: list[Memory]) -> list[list[Memory]]:
    """The notes grouped by their full key (a note edited since it was digested, or a
    digest shared by two keys, falls out of the group), groups of two or more only."""
    by_key: dict[tuple[str, str, str, str], list[Memory]] = {}
    for note in notes:
        if note.body.strip():
            by_key.setdefault(duplicate_key(note), []).append(note)
    return [group for group in by_key.values() if len(group) > 1]


def apply_dedup(
    store: MemoryStore, groups: list[DuplicateGroup], *, page: int | None = None
) -> int:
    """Delete the duplicates without losing what they carried: the keeper takes on their
    tags and what they superseded, and notes that superseded a dropped note now supersede
    its keeper."""
    replaced = {dropped.id: group.keep.id for group in groups for dropped in group.drop}
    for group in groups:
        merged = _merged_keeper(group)
        if merged is not None:
            store.put(merged)  # timestamps kept: a merge is not an edit of the content
    removed = 0
    for group in groups:
        for dropped in group.drop:
            store.delete(dropped.id)
            removed += 1
    # Listed without bodies (a page at a time); a note to change is read whole first.
    for listed in every_note(store, include_body=False, page=page):
        if any(sid in replaced for sid in listed.supersedes):
            note = store.get(listed.id)
            targets = [replaced.get(sid, sid) for sid in note.supersedes]
            targets = [t for t in dict.fromkeys(targets) if t != note.id]
            store.put(note.replace(supersedes=targets))
    return removed


def _merged_keeper(group: DuplicateGroup) -> Memory | None:
    """The keeper with the dropped notes' tags and supersedes added; None if unchanged."""
    keep = group.keep
    dropped_ids = {d.id for d in group.drop}
    tags = list(dict.fromkeys([*keep.tags, *(t for d in group.drop for t in d.tags)]))
    supersedes = list(
        dict.fromkeys(
            sid
            for sid in [*keep.supersedes, *(s for d in group.drop for s in d.supersedes)]
            if sid != keep.id and sid not in dropped_ids
        )
    )
    if tags == keep.tags and supersedes == keep.supersedes:
        return None
    return keep.replace(tags=tags, supersedes=supersedes)
