"""The usage prior (``usage_prior``, off by default): when set, among a search's own
candidates a note this machine's sessions fetched or had recalled lately moves up a little;
a note that shares nothing with the query is never lifted, and a log that cannot be read
is no prior."""

from __future__ import annotations

import json

import pytest

from anamnesis.store import MemoryStore, store_config_keys
from anamnesis.store.search.search_modes import (
    DEFAULT_USAGE_PRIOR,
    USAGE_PRIOR_ENV,
    configured_usage_prior,
)


@pytest.fixture
def twins(store: MemoryStore) -> tuple[str, str, str]:
    """Two notes the query matches alike (the second written later: first on a tie), and
    one about something else."""
    first = store.write(type="semantic", title="Redis cache eviction", body="allkeys-lru policy")
    second = store.write(type="semantic", title="Redis cache eviction", body="allkeys-lru policy")
    other = store.write(type="semantic", title="Postgres pool", body="20 connections")
    return first.id, second.id, other.id


def ranked(store: MemoryStore, query: str = "redis eviction policy") -> list[str]:
    return [hit.id for hit in store.search(query, k=2, mode="keyword")]


def test_off_by_default_usage_changes_no_order(
    store: MemoryStore, twins: tuple[str, str, str]
) -> None:
    first, second, _other = twins
    before = ranked(store)
    assert before == [second, first]  # the newer one first on a tie
    for _ in range(5):
        store.usage.record("fetched", [first])
    assert DEFAULT_USAGE_PRIOR == 0.0
    assert ranked(store) == before


def test_a_note_fetched_lately_wins_a_near_tie(
    store: MemoryStore, twins: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, other = twins
    monkeypatch.setenv(USAGE_PRIOR_ENV, "0.05")
    assert ranked(store) == [second, first]  # no use recorded: the ranking's order
    store.usage.record("fetched", [first], session="m1")
    store.usage.record("recalled", [first], session="s1")
    hits = store.search_scored("redis eviction policy", k=2, mode="keyword").hits
    assert [hit.note.id for hit in hits] == [first, second]
    assert hits[0].score > hits[1].score  # its score says so too
    as_of = store.search("redis eviction policy", k=2, mode="keyword", as_of="2999-01-01")
    assert [hit.id for hit in as_of] == [second, first]  # the memory as it stood: no prior
    for _ in range(50):  # however often used, it is never lifted into a search it misses
        store.usage.record("fetched", [other])
    assert other not in ranked(store)
    assert other not in ranked(store, "allkeys-lru")


def test_only_what_was_asked_for_counts(
    store: MemoryStore, twins: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, _other = twins
    monkeypatch.setenv(USAGE_PRIOR_ENV, "0.05")
    for _ in range(5):  # shown at session starts, returned by searches: not a choice
        store.usage.record("injected", [first])
        store.usage.record("searched", [first])
    assert ranked(store) == [second, first]


def test_a_log_that_cannot_be_read_is_no_prior(
    store: MemoryStore, twins: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, _other = twins
    monkeypatch.setenv(USAGE_PRIOR_ENV, "0.05")
    store.layout.usage_path.write_bytes(b"not a database" * 100)
    assert ranked(store) == [second, first]


def test_the_setting_reads_off_or_a_weight(store: MemoryStore) -> None:
    (key,) = [k for k in store_config_keys() if k.key == "usage_prior"]
    assert key.default == "off"
    assert key.checked("0.05") == "0.05" and key.checked(" OFF ") == "off"
    assert key.checked("0") == "off"
    for bad in ("2", "-0.1", "lots", "nan"):
        with pytest.raises(ValueError, match="must be off or a number from 0 to 1"):
            key.checked(bad)
    config = store.layout.config_path
    config.write_text(json.dumps({"usage_prior": "0.1"}))
    assert configured_usage_prior(store.root) == 0.1
    config.write_text(json.dumps({"usage_prior": "much"}))  # ignored; doctor names it
    assert configured_usage_prior(store.root) == DEFAULT_USAGE_PRIOR
