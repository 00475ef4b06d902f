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


def test_fork_gives_a_new_id_supersedes_the_old_and_tags_conflict() -> None:
    text = NOTE.format(extra="", tags="\n- deploy")
    path, data = fork_note(
        "semantic/01J9Z8YPM7Q3X2V4WT6B5N0KGD.md", text.encode(), b"", machine_id="m"
    )
    out = data.decode()
    new_id = out.split("id: ", 1)[1].split("\n", 1)[0]
    assert path == f"semantic/{new_id}.md"
    assert "supersedes:\n- 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ncreated_at:" in out
    assert "tags:\n- deploy\n- conflict\n---\n" in out
    assert out.endswith("body line\n---\nmore body\n")  # the body is untouched


def test_fork_keeps_earlier_supersedes_and_handles_empty_tags() -> None:
    text = NOTE.format(extra="supersedes: 01J9Z8YPM7Q3X2V4WT6B5N0KG1\n", tags=" []")
    _path, data = fork_note("semantic/x.md", text.encode(), b"", machine_id="m")
    out = data.decode()
    assert "supersedes:\n- 01J9Z8YPM7Q3X2V4WT6B5N0KG1\n- 01J9Z8YPM7Q3X2V4WT6B5N0KGD\n" in out
    assert "tags:\n- conflict\n" in out


def test_a_file_that_is_not_a_note_is_kept_beside_the_original() -> None:
    path, data = fork_note("docs/README.txt", b"plain text", b"other", machine_id="my laptop")
    assert (path, data) == ("docs/README.conflict-my-laptop.txt", b"plain text")
