"""Search modes through the functions: the keyword-fallback notice, the mode passed and
checked, the vectors report."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anamnesis.mcp import (
    InvalidArgument,
    search_memories,
    write_memory,
)
from anamnesis.mcp.arguments import check_call
from anamnesis.mcp.functions import (
    MAX_REASON_CHARS,
    keyword_fallback_notice,
    vectors_report,
)
from anamnesis.store import SEARCH_MODES, MemoryStore, VectorsUnavailableWarning

NOT_AVAILABLE = {"available": False, "reason": "sqlite-vec is not installed", "fix": "install it"}


def test_the_fallback_notice_is_given_only_when_vectors_were_asked_for_and_unavailable() -> None:
    assert keyword_fallback_notice("keyword", NOT_AVAILABLE) is None  # nothing was missed
    for mode in ("vector", "hybrid"):
        assert keyword_fallback_notice(mode, {"available": True, "pending": 3}) is None
        notice = keyword_fallback_notice(mode, NOT_AVAILABLE)
        assert notice is not None
        assert notice.startswith("searched by keywords only: sqlite-vec is not installed.")
        assert "exact words" in notice  # what the model should do next
    assert keyword_fallback_notice("hybrid", {"available": False}) == keyword_fallback_notice(
        "hybrid", {"available": False, "reason": ""}
    )


@given(reason=st.text(max_size=2_000))
def test_the_fallback_notice_stays_one_short_line(reason: str) -> None:
    notice = keyword_fallback_notice("hybrid", {"available": False, "reason": reason})
    assert notice is not None
    assert notice.startswith("searched by keywords only: ")
    assert "\n" not in notice
    assert len(notice) <= MAX_REASON_CHARS + 300


def test_a_search_that_asked_for_vectors_says_it_ran_on_keywords_each_time(
    store: MemoryStore,
) -> None:
    """Vectors cannot run in these tests (no model): hybrid and vector searches give the
    keyword results and a notice, on every call, though the store warns only once."""
    wanted = write_memory(store, type="semantic", title="Deploy key", body="rotate the deploy key")
    write_memory(store, type="semantic", title="Other", body="nothing to see")
    keyword = search_memories(store, query="deploy key")
    assert (keyword.mode, keyword.notice) == ("keyword", None)  # the default, nothing asked
    assert [hit["id"] for hit in keyword] == [wanted["id"]]
    with pytest.warns(VectorsUnavailableWarning):
        hits = search_memories(store, query="deploy key", mode="hybrid")
    assert hits == keyword and hits.mode == "keyword"
    notice = hits.notice
    assert notice is not None and notice.startswith("searched by keywords only: ")
    reason = store.embedding_status()["reason"]
    assert " ".join(reason.split())[:40] in notice  # the store's own reason, not a guess
    again = search_memories(
        store, **check_call("memory_search", {"query": "deploy key", "mode": "Vector"})
    )
    assert (again, again.mode, again.notice) == (keyword, "keyword", notice)


def test_search_memories_passes_the_mode_and_checks_it(store: MemoryStore) -> None:
    write_memory(store, type="semantic", title="Deploy key", body="rotate the deploy key")
    assert [h["title"] for h in search_memories(store, query="deploy", mode="keyword")] == [
        "Deploy key"
    ]
    with pytest.raises(InvalidArgument) as caught:
        search_memories(store, **check_call("memory_search", {"query": "deploy", "mode": "fuzzy"}))
    assert caught.value.name == "mode"
    for mode in SEARCH_MODES:
        assert mode in str(caught.value)


def test_the_vectors_report_follows_the_configured_mode(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "hybrid")
    report = vectors_report(store)
    # Asked for hybrid, but what runs without vectors is keyword search; the reason says why.
    assert report["available"] is False
    assert report["default_mode"] == "keyword"
    assert report["reason"] == store.embedding_status()["reason"]
