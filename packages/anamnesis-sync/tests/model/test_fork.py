"""keep-both without the store: the local side of a note becomes a new note."""

from __future__ import annotations

import re

from anamnesis.sync import fork_note, new_ulid

NOTE = (
    "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: T\nproject: p\n"
    "machine_id: laptop\nscope: portable\nprov_source: human\nconfidence: 1.0\n"
    "{extra}created_at: '2026-01-01T00:00:00+00:00'\nupdated_at: '2026-01-01T00:00:00+00:00'\n"
    "tags:{tags}\n---\nbody line\n---\nmore body\n"
)


def test_new_ulids_are_valid_and_increase() -> None:
    first, second = new_ulid(), new_ulid()
    assert re.fullmatch(r"[0-7][0-9A-HJKMNP-TV-Z]{25}", first)
    assert first[:10] <= second[:10]  # time prefix never goes back


OLD = "01J9Z8YPM7Q3X2V4WT6B5N0KGD"


def test_fork_gives_ours_a_new_id_and_links_both_sides_neither_superseding() -> None:
    ours = NOTE.format(extra="", tags="\n- deploy")
    theirs = NOTE.format(extra="", tags="\n- deploy").replace("more body", "their body")
    forked = fork_note(f"semantic/{OLD}.md", ours.encode(), theirs.encode(), machine_id="m")
    out = forked.ours.decode()
    new_id = out.split("id: ", 1)[1].split("\n", 1)[0]
    assert re.fullmatch(r"[0-7][0-9A-HJKMNP-TV-Z]{25}", new_id) and new_id != OLD
    assert forked.path == f"semantic/{new_id}.md"
    assert "supersedes" not in out  # both stay visible: neither replaces the other
    assert f"tags:\n- deploy\n- conflict\nconflict_with: {OLD}\n---\n" in out
    assert out.endswith("body line\n---\nmore body\n")  # the body is untouched
    kept = forked.theirs.decode()
    assert kept.startswith(f"---\nid: {OLD}\n")  # the remote version keeps its id
    assert "supersedes" not in kept
    assert f"tags:\n- deploy\n- conflict\nconflict_with: {new_id}\n---\n" in kept
    assert kept.endswith("body line\n---\ntheir body\n")


def test_fork_keeps_earlier_links_and_handles_empty_tags() -> None:
    earlier = "01J9Z8YPM7Q3X2V4WT6B5N0KG1"
    text = NOTE.format(extra=f"supersedes: {earlier}\nconflict_with: {earlier}\n", tags=" []")
    forked = fork_note("semantic/x.md", text.encode(), text.encode(), machine_id="m")
    out, kept = forked.ours.decode(), forked.theirs.decode()
    new_id = out.split("id: ", 1)[1].split("\n", 1)[0]
    assert f"supersedes: {earlier}\n" in out  # what it superseded before, it still does
    assert f"conflict_with:\n- {earlier}\n- {OLD}\n" in out
    assert f"conflict_with:\n- {earlier}\n- {new_id}\n" in kept
    assert "tags:\n- conflict\n" in out and "tags:\n- conflict\n" in kept


def test_a_file_that_is_not_a_note_is_kept_beside_the_original() -> None:
    forked = fork_note("docs/README.txt", b"plain text", b"other", machine_id="my laptop")
    assert tuple(forked) == ("docs/README.conflict-my-laptop.txt", b"plain text", b"other")


def test_a_remote_side_that_is_not_a_note_is_left_as_it_is() -> None:
    ours = NOTE.format(extra="", tags=" []")
    forked = fork_note(f"semantic/{OLD}.md", ours.encode(), b"not a note", machine_id="m")
    assert forked.theirs == b"not a note"
    assert f"conflict_with: {OLD}\n" in forked.ours.decode()
