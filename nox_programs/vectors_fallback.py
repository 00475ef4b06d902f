"""`anamnesis-store[vectors]` on a Python whose sqlite3 cannot load extensions (the
`vectors_fallback` session): the extra is installed, yet vector support reports why it is
unavailable, every search mode falls back to keyword search with exactly one
VectorsUnavailableWarning, the embedding status says how to fix it, and reindex works.

Runs as a plain script in that venv: stdlib and `anamnesis-store[vectors]` only.
"""

from __future__ import annotations

import tempfile
import warnings

import fastembed  # noqa: F401  (the extra really is installed)
import sqlite_vec  # noqa: F401

from anamnesis.store import (
    MemoryStore,
    VectorsUnavailableWarning,
    sqlite_can_load_extensions,
    vector_support,
)

assert not sqlite_can_load_extensions()
support = vector_support()
assert not support.available and "cannot load extensions" in support.reason, support
with MemoryStore(tempfile.mkdtemp()) as store:
    note = store.write(type="semantic", title="Fallback smoke", body="keyword search works")
    assert store.default_search_mode() == "keyword"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for mode in ("hybrid", "vector", None):
            assert [m.id for m in store.search("fallback", mode=mode)] == [note.id]
    messages = [str(w.message) for w in caught if w.category is VectorsUnavailableWarning]
    assert len(messages) == 1 and "cannot load extensions" in messages[0], messages
    status = store.embedding_status()
    assert status["available"] is False and status["fix"], status
    assert store.reindex().indexed == 1
print("vectors fallback ok:", messages[0])
