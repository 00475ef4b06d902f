"""Helpers of the merge and eval-case tests (no tests here): a scripted in-process
provider that records every prompt, and a snapshot of a store's files."""

from __future__ import annotations

import json
from typing import Any

from anamnesis_testsupport.fake_llm import ScriptedProvider as ScriptedProvider

from anamnesis.reflect import LlmSettings
from anamnesis.store import Memory, MemoryStore

# Provider calls in these tests answer at once: a short timeout keeps a mistake short.
SETTINGS = LlmSettings(timeout_s=5.0)


def groups_reply(*groups: dict[str, Any]) -> str:
    """A merge reply, fenced as models like to send it."""
    return "Here you go:\n```json\n" + json.dumps({"groups": list(groups)}) + "\n```"


def keep(kept: Memory, *others: Memory) -> dict[str, Any]:
    return {"ids": [kept.id, *(o.id for o in others)], "action": "keep", "keep": kept.id}


def synthesize(notes: list[Memory], title: str, body: str, tags: list[str]) -> dict[str, Any]:
    return {
        "ids": [note.id for note in notes],
        "action": "synthesize",
        "note": {"title": title, "body": body, "tags": tags},
    }


def snapshot(store: MemoryStore) -> dict[str, tuple[bytes, int]]:
    """Every note file (and anything else but the derived index and the run lock) under
    the store's root, with its bytes and mtime."""
    root = store.root
    return {
        str(path.relative_to(root)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != "reflect.lock" and not path.name.startswith("index.db")
    }


# Two near-duplicate procedures and unrelated notes around them.
WAL = (
    "Use WAL mode for SQLite",
    "Set busy_timeout on every connection; readers then never "
    "block the writer. Checkpoints run when the WAL passes 1000 pages.",
)
WAL_AGAIN = (
    "SQLite: enable WAL mode",
    "Enable WAL mode and set busy_timeout on each "
    "connection, so readers never block writers. Checkpoints run at 1000 pages.",
)
UNRELATED = [
    ("Restore tmux sessions after a reboot",
     "Install tmux-resurrect and tmux-continuum; prefix + Ctrl-r restores windows and panes."),
    ("Postgres deadlocks in the ledger writer",
     "deadlock_detected: order row locks by account id before updating balances."),
    ("Rotate the signing key",
     "Run scripts/rotate-keys and update the vault path; tokens signed before stay valid."),
]  # fmt: skip


def write(store: MemoryStore, title: str, body: str, **fields: Any) -> Memory:
    fields.setdefault("type", "procedural")
    fields.setdefault("project", "app")
    return store.write(title=title, body=body, **fields)


def fill(store: MemoryStore, project: str = "app") -> tuple[Memory, Memory, list[Memory]]:
    """The two WAL notes and the unrelated ones, in ``project``."""
    first = write(store, *WAL, project=project)
    second = write(store, *WAL_AGAIN, project=project)
    others = [write(store, title, body, project=project) for title, body in UNRELATED]
    return first, second, others
