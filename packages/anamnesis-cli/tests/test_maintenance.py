"""dedup as a property over a real store: one note per (project, type, scope, body), nothing
lost, and nothing machine-local moved into a synced note."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
        groups = find_duplicates(store)
        for group in groups:
            assert {duplicate_key(n) for n in [group.keep, *group.drop]} == {
                duplicate_key(group.keep)
            }
        removed = apply_dedup(store, groups)
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
