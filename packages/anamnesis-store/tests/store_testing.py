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


def passage_rows(store: MemoryStore, memory_id: str) -> list[int]:
    """The passage numbers a note has vectors for, in order (-1: its start only)."""
    conn = store._connection()
    return [
        number
        for (number,) in conn.execute(
            "SELECT p.passage FROM note_passages p JOIN memories m ON m.seq = p.seq"
            " WHERE m.id = ? ORDER BY p.passage",
            (memory_id,),
        )
    ]


def long_body(topic: str, count: int = 700) -> str:
    """A session note's body of ``count`` words about ``topic``: several passages."""
    return f"Session {topic} | 2025-12-20\n\n" + " ".join(f"{topic}{i % 97}" for i in range(count))
