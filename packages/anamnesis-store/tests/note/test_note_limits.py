"""One set of limits for every note the store writes (:class:`NoteLimits`): a field over
its limit is refused naming the field, the limit and its size, with nothing written; and a
note the store accepts is a note a fresh reindex reads back, whole."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from anamnesis.store import (
    InvalidNote,
    Memory,
    MemoryStore,
    NoteLimits,
    derived_id,
    read_openchronicle,
    read_regular,
)

ANY_TEXT = st.characters(exclude_categories=["Cs"])  # what UTF-8 can hold


def note_files(store: MemoryStore) -> list[Path]:
    return sorted(store.root.rglob("*.md"))


def fresh_reindex(root: Path) -> MemoryStore:
    """The store at ``root`` with its index thrown away and rebuilt from the files alone."""
    for leftover in root.glob("index.db*"):
        leftover.unlink()
    store = MemoryStore(root)
    report = store.reindex()
    assert report.skipped == (), report.skipped
    return store


# Each case: the field named in the error, and a note's fields with that one just over.
OVER: dict[str, tuple[str, dict[str, Any]]] = {
    "title": ("title", {"title": "t" * 501}),
    "body": ("body", {"body": "b" * 1_000_001}),
    "body in UTF-8 bytes": ("body", {"body": "é" * 500_001}),
    "project": ("project", {"project": "p" * 301}),
    "machine_id": ("machine_id", {"machine_id": "m" * 129}),
    "prov_model": ("prov_model", {"prov_model": "x" * 201}),
    "prov_session": ("prov_session", {"prov_session": "x" * 201}),
    "tag count": ("tags", {"tags": [f"t{n}" for n in range(51)]}),
    "tag length": ("tags", {"tags": ["x" * 101]}),
    "supersedes": ("supersedes", {"supersedes": [derived_id(str(n)) for n in range(1001)]}),
    "extra": ("extra", {"extra": {"log": "x" * 70_000}}),
    "extra nested": ("extra", {"extra": {"runs": [["x" * 1000] * 10] * 7}}),
}


@pytest.mark.parametrize("case", OVER)
def test_a_field_over_its_limit_is_refused_naming_it_and_nothing_is_written(
    store: MemoryStore, case: str
) -> None:
    field, changes = OVER[case]
    fields: dict[str, Any] = {"type": "semantic", "title": "t", "body": "b", **changes}
    with pytest.raises(InvalidNote) as caught:
        store.write(**fields)
    assert caught.value.field == field
    message = str(caught.value)
    assert "over the limit of" in message, message
    # The size it has, with the thousands separated as in the limit.
    assert any(char.isdigit() for char in message.split("over the limit")[0]), message
    assert note_files(store) == []
    # A batch names the note that broke it, and writes none of it.
    good = Memory(id=derived_id("good"), type="semantic", title="fine", body="fine")
    bad = Memory(id=derived_id("bad"), **fields)
    with pytest.raises(InvalidNote, match=f"note {bad.id}"):
        store.put_many([good, bad])
    assert note_files(store) == []


def test_the_limits_are_on_the_note_as_stored_with_its_secrets_masked(store: MemoryStore) -> None:
    # 999,990 bytes as typed; each "abc" masked as "[REDACTED]" takes it to 1.7 MB.
    body = "token=abc\n" * 99_999
    with pytest.raises(InvalidNote, match="once its secrets are masked") as caught:
        store.write(type="semantic", title="tokens", body=body)
    assert caught.value.field == "body"
    assert note_files(store) == []
    # Masked to 986,000 bytes, just within: what as_written gives is accepted as it is
    # (the limits hold for the stored text, so they never refuse a note read back).
    near = store.as_written(
        Memory(id=derived_id("n"), type="semantic", title="t", body="token=abc\n" * 58_000)
    )
    assert len(near.body.encode()) == 986_000
    assert store.put(near).body == near.body


def test_a_note_at_every_limit_is_written_and_read_back_whole(tmp_path: Path) -> None:
    # The characters YAML writes longest (escaped, in double quotes) in every text field.
    worst = "\x01"
    note = Memory(
        id=derived_id("limits"),
        type="semantic",
        title=worst * NoteLimits.TITLE_CHARS,
        body="é" * (NoteLimits.BODY_BYTES // 2),
        project="p" * NoteLimits.PROJECT_CHARS,
        machine_id="m" * NoteLimits.MACHINE_ID_CHARS,
        tags=[f"{n:03d}" + worst * (NoteLimits.TAG_CHARS - 3) for n in range(NoteLimits.TAGS)],
        prov_model=worst * NoteLimits.PROVENANCE_CHARS,
        prov_session=worst * NoteLimits.PROVENANCE_CHARS,
        supersedes=[derived_id(str(n)) for n in range(NoteLimits.SUPERSEDES)],
        extra={"log": worst * (NoteLimits.EXTRA_CHARS - 10)},
        created_at="2026-01-01T00:00:00+00:00",
        updated_at="2026-01-01T00:00:00+00:00",
    )
    with MemoryStore(tmp_path / "store") as store:
        written = store.put(note)
        (path,) = note_files(store)
    assert path.stat().st_size <= NoteLimits.FILE_BYTES
    read_regular(path)  # within the reading cap
    with fresh_reindex(tmp_path / "store") as again:
        assert again.get(note.id) == written


def test_the_file_size_is_checked_whatever_the_field_limits_allow(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The field limits keep a file far under the reading cap; were they ever raised past
    # it, the file itself is still measured before anything is written.
    monkeypatch.setattr(NoteLimits, "BODY_BYTES", 10 * NoteLimits.FILE_BYTES)
    with pytest.raises(InvalidNote, match="bytes a note file may have") as caught:
        store.write(type="semantic", title="huge", body="x" * (NoteLimits.FILE_BYTES + 1))
    assert caught.value.field == "note"
    assert note_files(store) == []


# Text of any size the limits care about: a short run repeated up to ~1.5 million times.
def sized(max_repeat: int) -> st.SearchStrategy[str]:
    return st.builds(
        lambda unit, times: unit * times,
        st.text(ANY_TEXT, min_size=1, max_size=4),
        st.integers(min_value=1, max_value=max_repeat),
    )


@st.composite
def candidate_notes(draw: st.DrawFn) -> Memory:
    return Memory(
        id=derived_id(draw(st.text(max_size=8))),
        type=draw(st.sampled_from(["procedural", "semantic", "episodic"])),
        title=draw(sized(700)),
        body=draw(st.one_of(st.text(ANY_TEXT), sized(1_500_000))),
        project=draw(st.sampled_from(["global", "github.com/a/b", "p" * 300])),
        tags=draw(st.lists(sized(30), max_size=60)),
        prov_model=draw(st.text(ANY_TEXT, max_size=220)),
        supersedes=[derived_id(str(n)) for n in range(draw(st.integers(0, 1100)))],
        extra=draw(st.dictionaries(st.sampled_from(["a", "b"]), sized(40_000), max_size=2)),
        created_at="2026-01-01T00:00:00+00:00",
        updated_at="2026-01-01T00:00:00+00:00",
    )


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(candidate_notes())
@example(Memory(id=derived_id("5MB"), type="semantic", title="big", body="x" * 5_000_000))
@example(Memory(id=derived_id("title"), type="semantic", title="t" * 1_000_000, body="b"))
def test_what_put_accepts_a_fresh_reindex_reads_back(note: Memory) -> None:
    root = Path(tempfile.mkdtemp(prefix="limits-"))
    try:
        with MemoryStore(root) as store:
            try:
                accepted = store.put(note)
            except InvalidNote:  # refused (over a limit, or a blank title): nothing written
                assert note_files(store) == []
                return
        with fresh_reindex(root) as again:
            assert again.get(note.id) == accepted
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_an_openchronicle_entry_over_a_limit_is_skipped_by_name_and_the_rest_read(
    tmp_path: Path,
) -> None:
    # A 2 MB entry (its file still under the 4 MiB a file is read up to) is over the body
    # limit: skipped and named as any bad entry is, its neighbours imported.
    (tmp_path / "topic-t.md").write_text(
        "---\ndescription: d\n---\n# Heading\n\n"
        "## [2026-04-22T10:00:00Z] {id: e1}\nFirst.\n\n"
        f"## [2026-04-22T10:00:00Z] {{id: e2}}\n{'y' * 2_000_000}\n\n"
        "## [2026-04-22T10:00:00Z] {id: e3}\nLast.\n\n"
    )
    found = read_openchronicle(tmp_path)
    assert [note.body for note in found.notes] == ["First.", "Last."]
    ((where, why),) = found.files[0].skipped
    assert where == "entry e2" and why.startswith("body: is 2,000,000 bytes, over the limit")
