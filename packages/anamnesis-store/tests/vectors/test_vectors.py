"""The vectors extra: real sqlite-vec, the real (offline) embedding model, real stores.

Skipped, with the reason, where the extra, a sqlite3 that loads extensions, or the offline
model in ../shared is missing; `uv run nox` runs them on a Python that has all three.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from anamnesis_testsupport import OFFLINE_MODEL, vectors_unavailable_reason

from anamnesis.store import MemoryStore, NotesNotEmbeddedWarning
from anamnesis.store.vectors.embedding import (
    FastEmbedEmbedder,
    VectorsUnavailableWarning,
)

REASON = vectors_unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed (to prove what is cached)."""

    def __init__(self, inner: FastEmbedEmbedder, model_id: str | None = None) -> None:
        self.inner = inner
        self._model_id = model_id
        self.embedded = 0

    @property
    def model_id(self) -> str:
        return self._model_id or self.inner.model_id

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Sequence[float]:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def model() -> FastEmbedEmbedder:
    return FastEmbedEmbedder(model_path=OFFLINE_MODEL)  # loaded once for the module


@pytest.fixture
def embedder(model: FastEmbedEmbedder) -> CountingEmbedder:
    return CountingEmbedder(model)


@pytest.fixture
def vstore(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MemoryStore]:
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")  # the default mode is under test here
    with MemoryStore(tmp_path / "vstore", embedder=embedder) as store:
        yield store


NOTES = [
    ("procedural", "Restore tmux sessions after a reboot",
     "Install tmux-resurrect and tmux-continuum; prefix + Ctrl-r restores windows and panes."),
    ("semantic", "Postgres SQLSTATE 40P01 in the ledger writer",
     "deadlock_detected: order row locks by account id before updating balances."),
    ("semantic", "Postgres SQLSTATE 40001 in the ledger writer",
     "serialization_failure: retry the whole transaction up to 3 times with jitter."),
    ("procedural", "Rotate the signing key",
     "Run scripts/rotate-keys and update the vault path; tokens signed before stay valid."),
    ("episodic", "Fixed flaky login tests",
     "Parallel browsers shared one cookie jar; each worker now gets its own profile."),
]  # fmt: skip


def fill(store: MemoryStore, project: str = "p") -> dict[str, str]:
    ids = {}
    for note_type, title, body in NOTES:
        ids[title] = store.write(type=note_type, title=title, body=body, project=project).id
    return ids


def test_hybrid_is_the_default_and_finds_a_paraphrase_keywords_miss(vstore: MemoryStore) -> None:
    ids = fill(vstore)
    query = "my shell multiplexer layout is gone every time I power-cycle the machine"
    assert vstore.default_search_mode() == "hybrid"
    keyword = [m.id for m in vstore.search(query, mode="keyword", k=3)]
    hybrid = [m.id for m in vstore.search(query, k=3)]
    assert ids["Restore tmux sessions after a reboot"] not in keyword[:1]
    assert hybrid[0] == ids["Restore tmux sessions after a reboot"]
    vector = [m.id for m in vstore.search(query, mode="vector", k=1)]
    assert vector == hybrid[:1]


def test_an_exact_code_still_wins_in_hybrid(vstore: MemoryStore) -> None:
    ids = fill(vstore)
    for query in ("SQLSTATE 40P01", "40001"):
        keyword = vstore.search(query, mode="keyword", k=1)
        hybrid = vstore.search(query, mode="hybrid", k=1)
        assert [m.id for m in hybrid] == [m.id for m in keyword]
    assert hybrid[0].id == ids["Postgres SQLSTATE 40001 in the ledger writer"]


def test_filters_and_supersession_hold_in_every_mode(vstore: MemoryStore) -> None:
    fill(vstore, project="p")
    others = fill(vstore, project="q")
    old = others["Rotate the signing key"]
    vstore.write(type="procedural", title="Rotate the signing key (new script)",
                 body="scripts/rotate-keys is gone; use `acmectl keys rotate`.", project="q",
                 supersedes=[old])  # fmt: skip
    for mode in ("keyword", "vector", "hybrid"):
        hits = vstore.search("rotate the signing key", mode=mode, project="q", k=10)
        assert hits and all(m.project == "q" for m in hits), mode
        assert old not in {m.id for m in hits}, mode
        typed = vstore.search("rotate the signing key", mode=mode, type="episodic", k=10)
        assert all(m.type == "episodic" for m in typed), mode


def test_writes_never_embed_and_a_search_embeds_what_is_new(
    vstore: MemoryStore, embedder: CountingEmbedder
) -> None:
    ids = fill(vstore)
    assert embedder.embedded == 0  # the write path never runs the model
    vstore.search("anything at all", mode="vector")
    assert embedder.embedded == len(NOTES)
    fresh = vstore.write(type="semantic", title="Coffee machine", body="descale monthly")
    hits = vstore.search("how often should the espresso maker be cleaned", mode="vector", k=1)
    assert [m.id for m in hits] == [fresh.id]
    assert embedder.embedded == len(NOTES) + 1
    assert ids  # all notes were written


def test_cached_vectors_survive_reindex_and_only_changed_text_is_embedded(
    vstore: MemoryStore, embedder: CountingEmbedder
) -> None:
    ids = fill(vstore)
    assert vstore.embed_missing() == len(NOTES)
    report = vstore.reindex()  # rebuilds every table; vectors come back from the cache
    assert report.indexed == len(NOTES)
    assert embedder.embedded == len(NOTES)
    assert vstore.embedding_status()["pending"] == 0
    vstore.update(ids["Fixed flaky login tests"], body="Each worker gets its own profile now.")
    vstore.update(ids["Rotate the signing key"], tags=["security"])  # text unchanged
    assert vstore.embed_missing() == 1
    assert embedder.embedded == len(NOTES) + 1


def test_a_new_model_embeds_everything_again(
    tmp_path: Path, model: FastEmbedEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    first = CountingEmbedder(model, model_id="model-a")
    with MemoryStore(tmp_path / "s", embedder=first) as store:
        fill(store)
        assert store.embed_missing() == len(NOTES)
    second = CountingEmbedder(model, model_id="model-b")
    with MemoryStore(tmp_path / "s", embedder=second) as store:
        status = store.embedding_status()
        assert (status["model"], status["pending"]) == ("model-b", len(NOTES))
        assert store.embed_missing() == len(NOTES)
        assert store.embedding_status()["embedded"] == len(NOTES)


def test_a_broken_model_falls_back_to_keywords_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not an onnx model")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(broken))
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    with MemoryStore(tmp_path / "s") as store:
        ids = fill(store)
        assert store.default_search_mode() == "hybrid"  # nothing has failed yet
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first = store.search("SQLSTATE 40P01", k=1)
            second = store.search("signing key", mode="hybrid", k=1)
        assert [m.id for m in first] == [ids["Postgres SQLSTATE 40P01 in the ledger writer"]]
        assert [m.id for m in second] == [ids["Rotate the signing key"]]
        vector_warnings = [w for w in caught if w.category is VectorsUnavailableWarning]
        assert len(vector_warnings) == 1
        assert "cannot load the embedding model" in str(vector_warnings[0].message)
        assert store.default_search_mode() == "keyword"
        assert store.embedding_status()["available"] is False


def test_a_chosen_search_mode_is_the_default(vstore: MemoryStore, tmp_path: Path) -> None:
    import json

    fill(vstore)
    (vstore.root / "config.json").write_text(json.dumps({"search_mode": "keyword"}))
    assert vstore.default_search_mode() == "keyword"
    (vstore.root / "config.json").write_text(json.dumps({"search_mode": "nonsense"}))
    assert vstore.default_search_mode() == "hybrid"


def test_bad_modes_are_refused(vstore: MemoryStore) -> None:
    from anamnesis.store import InvalidQuery

    with pytest.raises(InvalidQuery, match="mode must be one of keyword, vector, hybrid"):
        vstore.search("x", mode="semantic")


def test_a_store_that_embeds_elsewhere_does_not_embed_on_search(
    vstore: MemoryStore, embedder: CountingEmbedder
) -> None:
    vstore.search_embed_limit = 0  # what the MCP server sets: its own thread embeds
    note = vstore.write(type="semantic", title="Coffee machine", body="descale monthly")
    query = "how often should the espresso maker be cleaned"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert vstore.search(query, mode="vector") == []
    assert embedder.embedded == 0
    (waiting,) = [w.message for w in caught if "1 note has no embedding yet" in str(w.message)]
    assert isinstance(waiting, NotesNotEmbeddedWarning) and waiting.missing == 1  # the count
    assert vstore.embed_missing() == 1  # the background pass
    assert [m.id for m in vstore.search(query, mode="vector")] == [note.id]


def test_status_and_availability_without_loading_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))
    with MemoryStore(tmp_path / "s") as store:
        store.write(type="semantic", title="t", body="b")
        assert store.vectors_available()
        status = store.embedding_status()
        assert (status["available"], status["pending"], status["embedded"]) == (True, 1, 0)
        assert status["default_mode"] == "keyword"  # ANAMNESIS_SEARCH_MODE pins it here
        embedder = store._vectors().embedder()
        assert isinstance(embedder, FastEmbedEmbedder) and embedder._model is None


def test_a_reindex_without_embedding_keeps_the_cached_vectors(
    vstore: MemoryStore, embedder: CountingEmbedder
) -> None:
    fill(vstore)
    vstore.embed_missing()
    vstore.reindex(embed=False)
    assert vstore.embedding_status()["pending"] == 0
    assert embedder.embedded == len(NOTES)


class BrokenEmbedder:
    """An embedder whose model crashes the way a library can (not our own error type)."""

    model_id = "broken"

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        raise RuntimeError("onnxruntime: out of memory")

    def embed_query(self, text: str) -> Sequence[float]:
        raise RuntimeError("onnxruntime: out of memory")


def test_an_embedder_that_crashes_gives_keyword_results_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    with MemoryStore(tmp_path / "s", embedder=BrokenEmbedder()) as store:
        ids = fill(store)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            hits = store.search("SQLSTATE 40P01", k=1)
            assert store.reindex().indexed == len(NOTES)  # the embed pass fails quietly
        assert [m.id for m in hits] == [ids["Postgres SQLSTATE 40P01 in the ledger writer"]]
        messages = [str(w.message) for w in caught if w.category is VectorsUnavailableWarning]
        assert len(messages) == 1 and "RuntimeError: onnxruntime: out of memory" in messages[0]
        assert store.default_search_mode() == "keyword"
