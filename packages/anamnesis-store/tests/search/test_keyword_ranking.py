"""The default keyword ranking drops a query's stop words; spec 002's exact ranking stays
one setting away (``keyword_ranking: spec``, ``ANAMNESIS_KEYWORD_RANKING``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.search.stop_words import SHORT_QUERY, STOP_WORDS, content_terms


@pytest.fixture
def notes(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "s")
    store.write(type="semantic", title="Rotate the deploy keys", body="vault rotate every 90 days")
    store.write(type="semantic", title="How we name things", body="how it is done here, what for")
    store.write(type="semantic", title="Lunch", body="what is there to eat")
    return store


def titles(store: MemoryStore, query: str) -> list[str]:
    return [note.title for note in store.search(query, mode="keyword")]


def test_stop_words_do_not_pull_in_notes(notes: MemoryStore) -> None:
    # Under the spec every word counts: "how", "what", "is" find the two unrelated notes.
    assert titles(notes, "how do I rotate what is in the keys") == ["Rotate the deploy keys"]


def test_a_query_of_stop_words_alone_is_searched_as_it_is(notes: MemoryStore) -> None:
    assert set(titles(notes, "what is")) == {"How we name things", "Lunch"}


def test_the_spec_ranking_is_one_setting_away(
    notes: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = "how do I rotate what is in the keys"
    monkeypatch.setenv("ANAMNESIS_KEYWORD_RANKING", "spec")
    assert len(titles(notes, query)) == 3
    monkeypatch.delenv("ANAMNESIS_KEYWORD_RANKING")
    assert len(titles(notes, query)) == 1
    (notes.root / "config.json").write_text(json.dumps({"keyword_ranking": "spec"}))
    assert len(titles(notes, query)) == 3  # config.json read again once it changed
    (notes.root / "config.json").write_text(json.dumps({"keyword_ranking": "nonsense"}))
    assert len(titles(notes, query)) == 1  # a wrong value: the default


def test_content_terms_keep_order_repeats_and_case() -> None:
    assert content_terms(["How", "to", "Rotate", "rotate", "the", "KEYS"]) == [
        "Rotate", "rotate", "KEYS",
    ]  # fmt: skip
    assert content_terms(["the", "a"]) == ["the", "a"]
    assert content_terms([]) == []
    assert all(word == word.lower() for word in STOP_WORDS)


def test_a_long_query_keeps_its_stop_words() -> None:
    short = ["the", "deploy", "of", "it"] + ["word"] * (SHORT_QUERY - 4)
    assert content_terms(short) == ["deploy"] + ["word"] * (SHORT_QUERY - 4)
    long = [*short, "and"]
    assert content_terms(long) == long  # a prompt: ranked over every word, as spec 002 does
