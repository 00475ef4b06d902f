"""The search modes, defined once: their names, the variable and setting that choose the
default, and how a configured choice is read.

``keyword`` is spec 002's BM25 search; ``vector`` ranks by embedding similarity; ``hybrid``
fuses both (:mod:`.fusion`). A search without a mode uses :func:`configured_search_mode`,
else hybrid where the vectors extra can run, else keyword (``MemoryStore.default_search_mode``).
"""

from __future__ import annotations

import os
from pathlib import Path

SEARCH_MODES = ("keyword", "vector", "hybrid")
SEARCH_MODE_ENV = "ANAMNESIS_SEARCH_MODE"
CONFIG_KEY = "search_mode"


def is_search_mode(value: object) -> bool:
    return isinstance(value, str) and value in SEARCH_MODES


def configured_search_mode(home: Path) -> str | None:
    """The search mode the user chose (``ANAMNESIS_SEARCH_MODE`` over config.json's
    ``search_mode``), if it names a mode; None otherwise (a wrong value is ignored:
    `anamnesis doctor` reports it)."""
    raw = os.environ.get(SEARCH_MODE_ENV, "").strip()
    if not raw:
        from anamnesis.store.config import read_config

        raw = str(read_config(home).get(CONFIG_KEY) or "").strip()
    return raw if is_search_mode(raw) else None
