"""Helpers of the store's own tests."""

from __future__ import annotations

from anamnesis.store import Memory, MemoryStore


def write_note(store: MemoryStore, **overrides: object) -> Memory:
    """A note written with plain defaults, any field overridden."""
    fields: dict[str, object] = {"type": "semantic", "title": "T", "body": "B", "project": "p"}
    fields.update(overrides)
    return store.write(**fields)  # type: ignore[arg-type]


def ids(notes: list[Memory]) -> set[str]:
    return {note.id for note in notes}
