"""Candidate groups: near-duplicates are found, unrelated notes and other projects or
types are not, the fast similarity join agrees with brute force, and vectors add links."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from anamnesis.reflect.merge_candidates import (
    LEXICAL_THRESHOLD,
    document_frequencies,
    find_candidates,
    jaccard,
    lexical_links,
    rarest_terms,
    similarity_words,
)
from anamnesis.store import MemoryStore, sqlite_vec_problem
from test_merge_support import UNRELATED, WAL, WAL_AGAIN, fill, write


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "store")


def test_near_duplicates_make_one_group_and_unrelated_notes_none(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    groups, _why = find_candidates(store, store.list(), use_vectors=False)
    assert [(g.project, g.type, g.ids) for g in groups] == [
        ("app", "procedural", (first.id, second.id))
    ]
    assert groups[0].similarity >= LEXICAL_THRESHOLD
    assert groups[0].to_dict()["titles"] == [WAL[0], WAL_AGAIN[0]]


def test_other_projects_types_and_episodes_are_never_grouped(store: MemoryStore) -> None:
    write(store, *WAL, project="app")
    write(store, *WAL_AGAIN, project="other")
    write(store, *WAL_AGAIN, project="app", type="semantic")
    write(store, *WAL_AGAIN, project="app", type="episodic")
    groups, _why = find_candidates(store, store.list(), use_vectors=False)
    assert groups == []


def test_groups_come_in_a_stable_order(store: MemoryStore) -> None:
    fill(store, "b-project")
    fill(store, "a-project")
    notes = store.list()
    groups, _why = find_candidates(store, notes, use_vectors=False)
    again, _why = find_candidates(store, list(reversed(notes)), use_vectors=False)
    assert [g.project for g in groups] == ["a-project", "b-project"]
    assert [g.ids for g in groups] == [g.ids for g in again]
    assert all(list(g.ids) == sorted(g.ids) for g in groups)


def test_similarity_words_fold_plurals_and_drop_common_words(store: MemoryStore) -> None:
    note = write(store, "The writers", "and the writer uses a class; a db is OK")
    assert similarity_words(note) == {"writer", "class"}
    assert "the" not in similarity_words(note) and "db" not in similarity_words(note)


def test_the_similarity_join_finds_exactly_the_pairs_brute_force_finds() -> None:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(40)]
    for _round in range(30):
        sets = [frozenset(rng.sample(vocabulary, rng.randint(1, 12))) for _ in range(25)]
        for threshold in (0.3, 0.5, 0.8):
            expected = {
                (a, b): jaccard(sets[a], sets[b])
                for a in range(len(sets))
                for b in range(a + 1, len(sets))
                if jaccard(sets[a], sets[b]) >= threshold
            }
            assert lexical_links(sets, threshold) == expected


def test_rarest_terms_are_the_words_fewest_notes_hold(store: MemoryStore) -> None:
    fill(store)
    odd = write(store, "Rotate the signing key again", "zebra quokka signing rotate vault")
    terms = rarest_terms(f"{odd.title}\n{odd.body}", document_frequencies(store.list()))
    # Held by this note alone, then (a tie at two notes) the first alphabetically; "the"
    # and "again" say nothing of the subject.
    assert terms == ["quokka", "zebra", "key"]


# -- vectors: a real store with sqlite-vec and a tiny embedder of its own --------------


class TopicEmbedder:
    """One dimension per topic: texts on one topic point the same way whatever their
    words, which is what a sentence model does for paraphrases."""

    TOPICS = (("sqlite", "database", "db"), ("tmux", "terminal"), ("deploy", "release"))

    @property
    def model_id(self) -> str:
        return "topics-v1"

    def _embed(self, text: str) -> list[float]:
        lowered = text.lower()
        vector = [float(any(w in lowered for w in topic)) for topic in self.TOPICS] + [0.1]
        norm = math.sqrt(sum(x * x for x in vector))
        return [x / norm for x in vector]

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> Sequence[float]:
        return self._embed(text)


@pytest.mark.skipif(sqlite_vec_problem() is not None, reason=str(sqlite_vec_problem()))
def test_vectors_link_paraphrases_that_share_few_words(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "vstore", embedder=TopicEmbedder()) as store:
        one = write(store, "Database busy errors", "Give every connection a busy timeout.")
        two = write(store, "SQLite lock contention", "Readers wait: configure a wait period.")
        write(store, *UNRELATED[0])
        assert jaccard(similarity_words(one), similarity_words(two)) < LEXICAL_THRESHOLD
        lexical, _why = find_candidates(store, store.list(), use_vectors=False)
        assert lexical == []
        groups, why = find_candidates(store, store.list(), use_vectors=True)
        assert why == ""
        assert [g.ids for g in groups] == [(one.id, two.id)]
        assert groups[0].similarity > 0.85
