"""The review's memo of compared pairs (cache/review-pairs.json): used when both notes and
the finder's rules are as they were, never otherwise; a broken memo is an empty one."""

from __future__ import annotations

import json
from typing import Any

from anamnesis.store import Memory, MemoryStore
from anamnesis.store.review.pair_memo import MEMO_FILE, note_hash, rules_version
from store_testing import write_note


def _pair(store: MemoryStore) -> tuple[Memory, Memory]:
    older = write_note(
        store, title="Metrics port", body="The exporter serves /metrics on port 9100."
    )
    newer = write_note(
        store, title="Metrics port changed", body="The exporter listens on :9300 now."
    )
    return older, newer


def _listed(store: MemoryStore) -> list[tuple[tuple[str, str], list[str]]]:
    return [(pair.ids, [d.new for d in pair.differs]) for pair in store.contradictions()]


def test_a_review_keeps_its_pairs_and_says_the_same_next_time(store: MemoryStore) -> None:
    older, newer = _pair(store)
    first = _listed(store)
    assert first == [((older.id, newer.id), [":9300"])]
    memo = store.layout.cache_dir / MEMO_FILE
    kept = json.loads(memo.read_text())
    assert kept["rules"] == rules_version()
    assert f"{note_hash(older)}:{note_hash(newer)}" in kept["pairs"]
    assert _listed(store) == first


def test_the_memo_answers_for_unchanged_notes_only(store: MemoryStore) -> None:
    older, newer = _pair(store)
    store.contradictions()
    memo = store.layout.cache_dir / MEMO_FILE
    kept = json.loads(memo.read_text())
    key = f"{note_hash(older)}:{note_hash(newer)}"
    kept["pairs"][key] = [["port", "metrics port", "9100", "remembered"]]
    memo.write_text(json.dumps(kept))
    assert _listed(store) == [((older.id, newer.id), ["remembered"])]  # the memo answered
    # an edited note is compared again, whatever the memo says of its old text
    edited = store.update(newer.id, body="The exporter listens on :9400 now.")
    assert _listed(store) == [((older.id, edited.id), [":9400"])]


def test_a_memo_of_other_rules_or_broken_is_not_used(store: MemoryStore) -> None:
    older, newer = _pair(store)
    store.contradictions()
    memo = store.layout.cache_dir / MEMO_FILE
    kept = json.loads(memo.read_text())
    key = f"{note_hash(older)}:{note_hash(newer)}"
    kept["pairs"][key] = [["port", "metrics port", "9100", "remembered"]]
    memo.write_text(json.dumps({**kept, "rules": "other rules"}))
    assert _listed(store) == [((older.id, newer.id), [":9300"])]
    for broken in ("{not json", '{"rules": 1}', json.dumps({**kept, "pairs": {key: [[1]]}})):
        memo.write_text(broken)
        assert _listed(store) == [((older.id, newer.id), [":9300"])]


def test_a_memo_that_cannot_be_written_changes_nothing(store: MemoryStore) -> None:
    older, newer = _pair(store)
    store.layout.cache_dir.mkdir(parents=True, exist_ok=True)
    (store.layout.cache_dir / MEMO_FILE).mkdir()  # a folder where the file would go
    assert _listed(store) == [((older.id, newer.id), [":9300"])]


def _memo(store: MemoryStore) -> dict[str, Any]:
    kept: dict[str, Any] = json.loads((store.layout.cache_dir / MEMO_FILE).read_text())
    return kept


def test_a_projects_neighbours_are_kept_and_used_while_it_is_unchanged(
    store: MemoryStore,
) -> None:
    older, newer = _pair(store)
    first = _listed(store)
    kept = _memo(store)
    assert kept["neighbours"]["p"][1] == [[older.id, newer.id]]
    kept["neighbours"]["p"][1] = []  # the memo says the project has no neighbour pairs
    (store.layout.cache_dir / MEMO_FILE).write_text(json.dumps(kept))
    assert _listed(store) == []  # the memo answered: no neighbours looked for
    write_note(store, title="Release day", body="Releases go out on Tuesdays.")
    assert _listed(store) == first  # a note written into the project: looked for again


def test_an_edited_note_is_looked_up_by_its_new_words(store: MemoryStore) -> None:
    older = write_note(
        store, title="Metrics port", body="The exporter serves /metrics on port 9100."
    )
    other = write_note(store, title="Release day", body="Releases go out on Tuesdays.")
    assert _listed(store) == []
    edited = store.update(
        other.id, title="Metrics port changed", body="The exporter listens on :9300 now."
    )
    assert _listed(store) == [((older.id, edited.id), [":9300"])]


def test_a_pair_marked_compatible_leaves_the_kept_neighbours(store: MemoryStore) -> None:
    older, newer = _pair(store)
    assert _listed(store) == [((older.id, newer.id), [":9300"])]
    store.mark_compatible(older.id, newer.id)
    assert _listed(store) == []
    assert _memo(store)["neighbours"]["p"][1] == []


def test_another_projects_note_leaves_a_projects_neighbours_as_kept(
    store: MemoryStore,
) -> None:
    _pair(store)
    store.contradictions()
    before = _memo(store)["neighbours"]["p"]
    write_note(store, title="Metrics port", body="Port 9200 here.", project="q")
    store.contradictions()
    after = _memo(store)["neighbours"]
    assert after["p"] == before
    assert set(after) == {"p", "q"}
    store.contradictions(project="q")  # a project's review keeps the other projects'
    assert _memo(store)["neighbours"]["p"] == before


def test_malformed_neighbours_in_the_memo_are_looked_for_again(store: MemoryStore) -> None:
    older, newer = _pair(store)
    store.contradictions()
    kept = _memo(store)
    memo = store.layout.cache_dir / MEMO_FILE
    for broken in ("junk", ["state"], [kept["neighbours"]["p"][0], [["one id"]]], None):
        memo.write_text(json.dumps({**kept, "neighbours": {"p": broken}}))
        assert _listed(store) == [((older.id, newer.id), [":9300"])]
    memo.write_text(json.dumps({**kept, "neighbours": "junk"}))
    assert _listed(store) == [((older.id, newer.id), [":9300"])]
