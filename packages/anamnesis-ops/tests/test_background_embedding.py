"""One embedder per store: the turn (a lock holding its pid), who holds it, and what a
store that searches by keywords starts (nothing). The embedding itself, with the real
model and real processes, is tested through the CLI (cli/tests/test_background_embedding.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anamnesis.ops import (
    EmbeddingBusy,
    embed_backlog,
    embedder_pid,
    embedding_turn,
    start_background_embedding,
)
from anamnesis.store import MemoryStore, StoreLayout


def test_the_turn_is_one_holder_at_a_time_and_names_its_pid(tmp_path: Path) -> None:
    layout = StoreLayout(tmp_path / "store")
    assert embedder_pid(layout) is None  # never taken: not even a lock file
    with embedding_turn(layout):
        assert embedder_pid(layout) == os.getpid()
        with pytest.raises(EmbeddingBusy), embedding_turn(layout):
            pass  # a second embedder does not start beside the first
    assert embedder_pid(layout) is None
    with embedding_turn(layout):  # free again
        pass


def test_a_store_that_searches_by_keywords_embeds_nothing(tmp_path: Path) -> None:
    # isolated_home sets ANAMNESIS_SEARCH_MODE=keyword: no vectors wanted here.
    with MemoryStore(tmp_path / "store") as store:
        store.write(type="semantic", title="t", body="b")
        assert start_background_embedding(store) is None
    assert embed_backlog(tmp_path / "store") == 0
    assert embedder_pid(StoreLayout(tmp_path / "store")) is None
