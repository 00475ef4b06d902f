"""An embedding pass (issue 29): every waiting note's first passage before any note's
later ones, heads kept across rebuilds and replaced by the whole set, passage 0 never
embedded twice, and the model run at the lowest CPU priority when in the background.

Needs sqlite-vec; a small deterministic bag-of-words embedder stands in for the model.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from anamnesis_testsupport.embedders import BagOfWordsEmbedder

from anamnesis.store import MemoryStore
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.priority import LOW_PRIORITY
from anamnesis.store.vectors import vector_index
from anamnesis.store.vectors.embedding import VectorsUnavailableWarning, as_blob, sqlite_vec_problem
from anamnesis.store.vectors.passages import passages
from anamnesis.store.vectors.vector_index import HEAD
from store_testing import long_body, passage_rows

SQLITE_VEC = sqlite_vec_problem()
pytestmark = pytest.mark.skipif(SQLITE_VEC is not None, reason=SQLITE_VEC or "")


class RecordingEmbedder(BagOfWordsEmbedder):
    """Also records each call's texts, and the CPU priority of the thread it ran on."""

    def __init__(self) -> None:
        super().__init__(32)
        self.calls: list[list[str]] = []
        self.priorities: list[int] = []

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        self.calls.append(list(texts))
        self.priorities.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return super().embed_documents(texts)


@pytest.fixture
def embedder() -> RecordingEmbedder:
    return RecordingEmbedder()


@pytest.fixture
def store(tmp_path: Path, embedder: RecordingEmbedder) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "s", embedder=embedder) as opened:
        yield opened


def write_long_notes(store: MemoryStore, count: int) -> list[tuple[str, list[str]]]:
    """(id, passages) of ``count`` new long notes, oldest first."""
    out = []
    for i in range(count):
        body = long_body(f"topic{i}")
        note = store.write(type="episodic", title=f"Long {i}", body=body)
        out.append((note.id, passages(f"Long {i}", body)))
    return out


def test_every_note_gets_its_first_passage_before_any_note_gets_its_others(
    store: MemoryStore, embedder: RecordingEmbedder
) -> None:
    notes = write_long_notes(store, 12)
    short = store.write(type="semantic", title="Short", body="a few words")
    assert store.embed_missing(batch_size=4) == 13

    order = [text for call in embedder.calls for text in call]
    firsts = {texts[0] for _id, texts in notes} | {"Short\na few words"}
    assert set(order[: len(firsts)]) == firsts  # every start first
    later = [text for _id, texts in notes for text in texts[1:]]
    assert sorted(order[len(firsts) :]) == sorted(later)  # then the rest, passage 0 not again
    for memory_id, texts in notes:
        assert passage_rows(store, memory_id) == list(range(len(texts)))  # heads replaced
    assert passage_rows(store, short.id) == [0]
    assert store.embedding_status()["pending"] == 0


def test_a_search_s_bounded_wait_gives_notes_their_start_and_a_later_pass_the_rest(
    store: MemoryStore, embedder: RecordingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "hybrid")  # a reindex then reuses vectors
    notes = write_long_notes(store, 6)
    store.search_embed_limit = 4  # passages: the starts of the four newest notes
    with pytest.warns(VectorsUnavailableWarning, match="no embedding yet"):
        store.search("topic1", mode="vector")
    newest, oldest = notes[2:], notes[:2]
    assert [passage_rows(store, memory_id) for memory_id, _t in newest] == [[HEAD]] * 4
    assert [passage_rows(store, memory_id) for memory_id, _t in oldest] == [[], []]
    status = store.embedding_status()
    assert (status["embedded"], status["pending"], status["partial"]) == (4, 2, 4)
    # A note with its start only is found by it.
    query = as_blob(embedder.embed_query(notes[5][1][0]))
    nearest = vector_index.nearest(store._connection(), query, embedder.model_id, Filters(), 1)
    assert [memory_id for memory_id, _similarity in nearest] == [notes[5][0]]

    store.reindex(embed=False)  # a rebuild keeps the heads (from the cache), embeds nothing
    assert [passage_rows(store, memory_id) for memory_id, _t in newest] == [[HEAD]] * 4
    embedded = len(embedder.embedded)
    assert store.embed_missing() == 6  # two new notes, four finished
    for memory_id, texts in notes:
        assert passage_rows(store, memory_id) == list(range(len(texts)))
    # Each note's start was embedded once, in all: 6 starts and every other passage.
    assert len(embedder.embedded) == sum(len(texts) for _id, texts in notes)
    assert len(embedder.embedded) - embedded == sum(len(t) for _i, t in notes) - 4


def test_a_note_rewritten_while_it_has_its_start_only_gets_its_new_text(
    store: MemoryStore,
) -> None:
    [(memory_id, _texts)] = write_long_notes(store, 1)
    store.search_embed_limit = 1
    store.search("topic0", mode="vector")  # no warning: the note has a vector, its start's
    assert passage_rows(store, memory_id) == [HEAD]
    new_body = long_body("other", 900)
    store.update(memory_id, body=new_body)
    assert passage_rows(store, memory_id) == []
    assert store.embed_missing() == 1
    assert passage_rows(store, memory_id) == list(range(len(passages("Long 0", new_body))))
    conn = store._connection()
    heads = conn.execute("SELECT count(*) FROM passage_cache WHERE passage = ?", (HEAD,))
    assert heads.fetchone()[0] == 0  # the old text's head was pruned, the new one replaced


def test_notes_with_the_same_text_all_get_the_whole_set(store: MemoryStore) -> None:
    body = long_body("twin")
    first = store.write(type="episodic", title="Twin", body=body)
    second = store.write(type="episodic", title="Twin", body=body, project="elsewhere")
    store.embed_missing()
    expected = list(range(len(passages("Twin", body))))
    assert passage_rows(store, first.id) == expected
    assert passage_rows(store, second.id) == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_background_embedding_runs_the_model_at_the_lowest_priority_and_nothing_else(
    store: MemoryStore, embedder: RecordingEmbedder
) -> None:
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    write_long_notes(store, 3)
    store.embed_missing(background=True)
    assert embedder.priorities and set(embedder.priorities) == {LOW_PRIORITY}
    # The caller's thread keeps its priority: a search on it later runs at full speed.
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own

    store.write(type="episodic", title="Another", body=long_body("another"))
    embedder.priorities.clear()
    store.embed_missing()  # in the foreground (reindex, a search's wait): full priority
    assert embedder.priorities and set(embedder.priorities) == {own}
