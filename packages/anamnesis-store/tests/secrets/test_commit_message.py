"""What a sync commit says it changed (``describe_commit``), from the files it commits."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from anamnesis.store import describe_commit, redact_secrets
from anamnesis.store.secrets.commit_message import (
    MAX_LINE_CHARS,
    MAX_TITLE_CHARS,
    MAX_TITLES_READ,
)

SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape


@dataclass(frozen=True)
class File:
    kind: str
    path: str
    content: Callable[[], bytes]


def note(kind: str, title: str, *, scope: str = "portable", name: str = "") -> File:
    # A JSON string is a YAML double-quoted one: escapes (\n, \u202e) reach the title.
    text = f"---\nid: X\ntype: semantic\ntitle: {json.dumps(title)}\nscope: {scope}\n---\nbody\n"
    return File(kind, f"semantic/{name or title[:8]}.md", lambda: text.encode())


def test_counts_by_kind_then_the_titles_in_that_order() -> None:
    files = [note("edited", "Deploy steps"), note("added", "Pool size"), note("added", "Ports")]
    assert describe_commit(files) == "2 notes added, 1 edited: Pool size, Ports, Deploy steps"
    assert describe_commit([note("deleted", "Old port")]) == "1 note deleted: Old port"


def test_only_notes_are_counted_and_no_note_is_no_description() -> None:
    other = File("added", ".gitignore", lambda: b"*.tmp\n")
    assert describe_commit([other]) is None
    assert describe_commit([]) is None
    assert describe_commit([other, note("added", "Pool size")]) == "1 note added: Pool size"


def test_a_secret_in_a_title_is_masked() -> None:
    described = describe_commit([note("added", f"CI token {SECRET}")])
    assert described is not None and SECRET not in described
    assert described == f"1 note added: {redact_secrets(f'CI token {SECRET}')}"


def test_a_machine_local_note_is_counted_never_named() -> None:
    files = [note("added", "Home wifi password hint", scope="machine-local"), note("added", "Pool")]
    assert describe_commit(files) == "2 notes added: Pool, and 1 more"


def test_an_unreadable_note_is_counted_never_named() -> None:
    broken = File("edited", "semantic/x.md", lambda: b"no frontmatter here\n")
    binary = File("edited", "semantic/y.md", lambda: b"\xff\xfe")
    assert describe_commit([broken, binary]) == "2 notes edited"


def test_the_line_is_bounded_and_says_how_many_more() -> None:
    files = [note("added", f"Session {n} " + "word " * 20, name=f"n{n}") for n in range(50)]
    described = describe_commit(files)
    assert described is not None
    assert len(described) <= MAX_LINE_CHARS
    assert described.startswith("50 notes added: Session 0 word")
    named = described.split(": ", 1)[1].split(", and ")[0].split(", ")
    assert described.endswith(f", and {50 - len(named)} more")
    assert all(len(title) <= MAX_TITLE_CHARS and title.endswith("…") for title in named)


def test_a_commit_of_thousands_of_notes_reads_a_few() -> None:
    read: list[int] = []

    def counted(n: int) -> File:
        def content() -> bytes:
            read.append(n)
            return b"---\nid: X\ntype: semantic\n---\nno title\n"

        return File("added", f"semantic/{n}.md", content)

    assert describe_commit([counted(n) for n in range(3000)]) == "3000 notes added"
    assert len(read) == MAX_TITLES_READ


def test_a_title_is_one_line_with_direction_controls_shown_escaped() -> None:
    described = describe_commit([note("added", "evil\u202etxt.exe\nsecond line")])
    assert described is not None
    assert "\n" not in described and "\u202e" not in described
    assert described == "1 note added: evil\\u202etxt.exe second line"
