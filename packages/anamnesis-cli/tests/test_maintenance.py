"""dedup as a property over a real store: one note per (project, type, scope, body), nothing
lost, and nothing machine-local moved into a synced note."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anamnesis.cli import maintenance
from anamnesis.cli.maintenance import apply_dedup, duplicate_key, find_duplicates
from anamnesis.store import MemoryStore

NOTES = st.lists(
    st.tuples(
        st.sampled_from(["projA", "projB"]),
        st.sampled_from(["semantic", "procedural"]),
        st.sampled_from(["run make first", "the port is 8080"]),
        st.sampled_from(["portable", "machine-local"]),
        st.sampled_from(["", "ci", "deploy"]),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NOTES)
def test_dedup_leaves_one_note_per_key_and_keeps_every_tag(
    notes: list[tuple[str, str, str, str, str]],
) -> None:
    with tempfile.TemporaryDirectory() as folder, MemoryStore(Path(folder)) as store:
        for project, note_type, body, scope, tag in notes:
            store.write(type=note_type, title="t", body=body, project=project, scope=scope,
                        tags=[tag] if tag else [])  # fmt: skip
        before = store.list()
        tags_by_key: dict[tuple[str, str, str, str], set[str]] = {}
        for note in before:
            tags_by_key.setdefault(duplicate_key(note), set()).update(note.tags)
        # Pages of 3 notes: duplicates are found across pages, not only within one.
        groups = find_duplicates(store, page=3)
        for group in groups:
            assert {duplicate_key(n) for n in [group.keep, *group.drop]} == {
                duplicate_key(group.keep)
            }
        removed = apply_dedup(store, groups, page=3)
        after = store.list()
        assert removed == len(before) - len(after)
        keys = [duplicate_key(n) for n in after]
        assert sorted(keys) == sorted(set(keys)) == sorted(tags_by_key)
        for note in after:
            assert set(note.tags) == tags_by_key[duplicate_key(note)]
        portable_tags = {tag for n in before if n.scope == "portable" for tag in n.tags}
        for note in after:  # no machine-local tag ever reaches a synced note
            if note.scope == "portable":
                assert set(note.tags) <= portable_tags
        assert find_duplicates(store) == []


def test_notes_whose_keys_share_a_digest_are_still_told_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(maintenance, "_key_digest", lambda note: 0)  # every key collides
    with MemoryStore(tmp_path) as store:
        first = store.write(type="semantic", title="a", body="run make first", project="p")
        again = store.write(type="semantic", title="b", body="run make first", project="p")
        store.write(type="semantic", title="c", body="the port is 8080", project="p")
        store.write(type="semantic", title="d", body="run make first", project="q")
        groups = find_duplicates(store, page=2)
        assert [(g.keep.id, [d.id for d in g.drop]) for g in groups] == [(first.id, [again.id])]
