"""A model that cannot be downloaded is remembered (model_download.py): within the retry
time nobody tries again, and a search costs a keyword search.

The clock is the memo's own (injected), or the memo's timestamp is written; the host is a
port of 127.0.0.1 that refuses connections, or one that listens and counts them.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.offline import ENDPOINT_ENV, refused_endpoint

from anamnesis.store import (
    RETRY_AFTER_S,
    FastEmbedEmbedder,
    MemoryStore,
    VectorsUnavailable,
    vector_support,
)
from anamnesis.store.vectors.model_download import DownloadMemo, download_host

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with refused_endpoint() as url:
        monkeypatch.setenv(ENDPOINT_ENV, url)
        yield url


def test_the_memo_holds_for_the_retry_time_for_its_model_only(tmp_path: Path) -> None:
    clock = Clock(1_000_000.0)
    memo = DownloadMemo(tmp_path / "cache" / "model-download.json", clock)
    assert memo.in_force(MODEL) is None  # nothing remembered
    remembered = memo.remember(MODEL, "no network")
    assert (remembered.checked_at, remembered.retry_at) == (1_000_000.0, 1_000_000 + RETRY_AFTER_S)
    clock.now += RETRY_AFTER_S - 1
    assert memo.in_force(MODEL) == remembered
    assert memo.in_force("another/model") is None  # another model is tried
    clock.now += 1
    assert memo.in_force(MODEL) is None  # the retry time has come
    clock.now = 999_000.0
    assert memo.in_force(MODEL) is None  # the clock was turned back: no waiting on it
    clock.now = 1_000_001.0
    memo.forget()
    assert memo.in_force(MODEL) is None
    memo.path.write_text("{not json")
    assert memo.in_force(MODEL) is None  # unreadable: as if nothing was remembered


@pytest.mark.parametrize(
    "content",
    ["[" * 3000, '["a list"]', '{"model": "m"}', '{"model": 1, "reason": [], "checked_at": "x"}'],
)
def test_a_memo_file_that_is_not_one_is_as_if_nothing_was_remembered(
    tmp_path: Path, content: str
) -> None:
    memo = DownloadMemo(tmp_path / "model-download.json", Clock(1_000_000.0))
    memo.path.write_text(content)  # hand-edited, cut short, or nested past the parser
    assert memo.in_force(MODEL) is None


def test_the_download_host_is_the_hub_or_hf_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENDPOINT_ENV, raising=False)
    assert download_host() == ("huggingface.co", 443)
    monkeypatch.setenv(ENDPOINT_ENV, "http://127.0.0.1:9")
    assert download_host() == ("127.0.0.1", 9)
    monkeypatch.setenv(ENDPOINT_ENV, "https://mirror.example/hf/")
    assert download_host() == ("mirror.example", 443)


def test_an_unreachable_host_is_tried_once_per_retry_time(
    tmp_path: Path, offline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(time.time())
    memo = DownloadMemo(tmp_path / "memo.json", clock)
    embedder = FastEmbedEmbedder(MODEL, cache_dir=tmp_path / "models", memo=memo)
    with pytest.raises(VectorsUnavailable, match=r"127\.0\.0\.1:\d+ cannot be reached"):
        embedder.embed_query("x")
    assert json.loads(memo.path.read_text())["checked_at"] == clock.now
    assert embedder.download_blocked() is not None

    with socket.create_server(("127.0.0.1", 0)) as listening:  # counts who connects
        listening.setblocking(False)
        monkeypatch.setenv(ENDPOINT_ENV, f"http://127.0.0.1:{listening.getsockname()[1]}")
        clock.now += RETRY_AFTER_S - 1
        with pytest.raises(VectorsUnavailable, match="searches try again after"):
            embedder.embed_query("x")
        with pytest.raises(BlockingIOError):
            listening.accept()  # nobody tried to connect

    monkeypatch.setenv(ENDPOINT_ENV, offline)
    clock.now += 1  # the retry time: tried, and remembered anew
    with pytest.raises(VectorsUnavailable, match="cannot be reached"):
        embedder.embed_query("x")
    assert json.loads(memo.path.read_text())["checked_at"] == clock.now


@pytest.mark.skipif(not vector_support().available, reason="the vectors extra cannot run here")
def test_a_store_whose_model_is_remembered_unreachable_searches_by_keywords(
    tmp_path: Path, offline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")  # the store's default: hybrid
    monkeypatch.delenv("ANAMNESIS_EMBED_MODEL_PATH")  # no local model: it would download
    with MemoryStore(tmp_path / "store") as store:
        note = store.write(type="semantic", title="tmux layout", body="restore the panes")
        found_at = time.time() - 10  # a search found the host unreachable 10 s ago
        memo = DownloadMemo(store.layout.model_download_state, Clock(found_at))
        memo.remember(MODEL, "the model is not downloaded yet and nothing answers")

        assert store.default_search_mode() == "hybrid"  # the default stays what it is
        assert not store.vectors_available() and store.embedding_backlog() == 0
        with pytest.warns(UserWarning, match="nothing answers"):
            result = store.search_scored("tmux")
        assert [hit.note.id for hit in result.hits] == [note.id]
        assert (result.mode, result.asked) == ("keyword", "hybrid")
        assert "nothing answers" in result.fallback
        status = store.embedding_status()
        assert (status["available"], status["pending"]) == (False, 1)
        assert status["model_unreachable"]["reason"].endswith("nothing answers")
    assert json.loads(memo.path.read_text())["checked_at"] == found_at  # not tried again
