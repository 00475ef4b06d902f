"""Isolation smoke test of `anamnesis-store` installed alone (the `isolation` session): a
note written to a fresh store is found again by keyword search.

Runs as a plain script in the isolated venv: stdlib and `anamnesis-store` only.
"""

from __future__ import annotations

import tempfile

from anamnesis.store import MemoryStore

with MemoryStore(tempfile.mkdtemp()) as store:
    note = store.write(type="semantic", title="Isolation smoke", body="installed alone")
    assert [m.id for m in store.search("isolation")] == [note.id]
print("store smoke ok")
