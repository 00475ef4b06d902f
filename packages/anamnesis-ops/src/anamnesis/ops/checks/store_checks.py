"""The store's checks: the folder (there, writable), the index (opens, undamaged, every
note file read) and the notes' dates (none ahead of this machine's clock)."""

from __future__ import annotations

import sqlite3
import tempfile
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anamnesis.ops.checks.verdict import FAIL, OK, WARN, Check
from anamnesis.store import IndexRebuiltWarning, Memory, StoreError

if TYPE_CHECKING:
    from anamnesis.ops.home import Home


def store_check(home: Home) -> Check:
    root, layout = home.root, home.layout
    if not root.is_dir():
        return Check("store", FAIL, f"no store at {root}", "run `anamnesis init`")
    try:
        with tempfile.NamedTemporaryFile(dir=root, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check(
            "store", FAIL, f"{root} is not writable: {exc.strerror or exc}",
            "fix the folder's permissions or free some disk space",
        )  # fmt: skip
    notes = sum(1 for _ in layout.memory_dir.rglob("*.md")) if layout.memory_dir.is_dir() else 0
    local = sum(1 for _ in layout.local_dir.rglob("*.md")) if layout.local_dir.is_dir() else 0
    return Check("store", OK, f"{root}: {notes} portable and {local} machine-local note files")


def index_check(home: Home) -> Check:
    root = home.root
    if not root.is_dir():
        return Check("index", FAIL, "no store yet", "run `anamnesis init`")
    rebuilt = ""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IndexRebuiltWarning)
            with home.open_store() as store:
                total = store.count()
                problems = store.problems()
                db_path = store.db_path
                swept = store.sweep_leftovers()  # temp files of killed writes: no live owner
        rebuilt = next((str(w.message) for w in caught if w.category is IndexRebuiltWarning), "")
    except StoreError as exc:
        # The store moves an index it cannot use aside and rebuilds it by itself: when even
        # that failed, a reindex would fail the same way. The folder is what needs fixing.
        return Check(
            "index", FAIL, str(exc),
            f"make {root} and {home.layout.db_path} writable by you (or delete index.db); "
            "the notes are safe: the index is rebuilt from them",
        )  # fmt: skip
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
    conn.close()
    if verdict != "ok":
        return Check(
            "index", FAIL, f"SQLite reports damage: {verdict}",
            f"delete {db_path} and run `anamnesis reindex` (the markdown is the truth)",
        )  # fmt: skip
    if problems:
        shown = "; ".join(f"{p.path}: {p.reason}" for p in problems[:3])
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        return Check(
            "index", WARN, f"{len(problems)} note file(s) cannot be read: {shown}{more}",
            "fix or delete those files; they are indexed again as soon as they parse",
        )  # fmt: skip
    detail = f"{total} notes indexed"
    if swept:
        detail += f"; {swept_summary([f.size for f in swept])}"
    if rebuilt:
        return Check("index", WARN, f"{detail}; it was rebuilt: {rebuilt}")
    return Check("index", OK, detail)


def swept_summary(sizes: Sequence[int]) -> str:
    """How status, reindex and doctor say what a sweep of killed writes' temp files removed
    (``sizes``: each file's bytes)."""
    return f"removed {len(sizes)} temp file(s) left by interrupted writes ({sum(sizes):,} bytes)"


def clock_check(home: Home) -> Check:
    if not home.layout.memory_dir.is_dir():
        return Check("clock", OK, "no notes yet")
    with home.open_store() as store:
        ahead = store.dated_ahead()  # read from a small index: fast at any store size
    if not ahead:
        return Check("clock", OK, "no note is dated in the future")
    by_machine: dict[str, list[Memory]] = {}
    for note in ahead:
        by_machine.setdefault(note.machine_id, []).append(note)
    named = "; ".join(f"{machine}: {_some(notes)}" for machine, notes in by_machine.items())
    return Check(
        "clock", WARN,
        f"{len(ahead)} note(s) dated in the future by this machine's clock: {named} (each "
        "ranks as when this store got it, never above newer notes)",
        f"set the clock right on {', '.join(by_machine)} (turn on network time), or on this"
        " machine if its own clock runs behind; a note stays flagged until its date has"
        " passed or its updated_at is corrected",
    )  # fmt: skip


def _some(notes: list[Memory]) -> str:
    shown = ", ".join(f"{n.id} ({max(n.updated_at, n.created_at)[:10]})" for n in notes[:3])
    return shown + (f" and {len(notes) - 3} more" if len(notes) > 3 else "")
