"""What the CLI prints of a note is display-safe: a direction control in a title, project
or tag is shown as its escape (it would make ``list`` read otherwise than the note is), a
control character never reaches the terminal, and JSON keeps the note's own values."""

from __future__ import annotations

from anamnesis.store import MemoryStore
from cli_testing import Env

TITLE = "Release checklist \u202efdp.exe"
PROJECT = "acme/\u2066api\u2069"
RAW = ("\u202e", "\u2066", "\u2069", "\u200f", "\x1b", "\x9b")


def _seed(env: Env) -> str:
    """A note with direction controls in its title, tag and project. The store writes no
    such project; a note written by hand, or pulled, can have one."""
    with MemoryStore(env.home) as store:
        note = store.write(type="procedural", title=TITLE, project="acme/api", tags=["\u200fops"],
                           body="Run the release checklist\x1b[2J before tagging.")  # fmt: skip
        path = store.file_of(note.id)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("acme/api", PROJECT), encoding="utf-8")
    return note.id


def _assert_display_safe(text: str) -> None:
    assert not [char for char in RAW if char in text], ascii(text)


def test_list_search_and_show_print_direction_controls_escaped(env: Env) -> None:
    memory_id = _seed(env)
    for args in (("list",), ("search", "checklist"), ("show", memory_id)):
        done = env.run_process(*args)
        assert done.code == 0, done.err
        _assert_display_safe(done.out + done.err)
        assert "Release checklist \\u202efdp.exe" in done.out, args
        assert "acme/\\u2066api\\u2069" in done.out, args
    shown = env.run_process("show", memory_id).out
    assert "tags:     \\u200fops" in shown
    assert "checklist\\u001b[2J before" in shown
    assert "\x1b[2J" in env.run_process("show", "--raw", memory_id).out  # the file, as it is


def test_json_output_is_display_safe_and_keeps_the_values(env: Env) -> None:
    memory_id = _seed(env)
    for args in (
        ("list", "--json"),
        ("search", "checklist", "--json"),
        ("show", memory_id, "--json"),
    ):
        done = env.run_process(*args)
        assert done.code == 0, done.err
        _assert_display_safe(done.out)
        parsed = done.json()
        note = parsed[0] if isinstance(parsed, list) else parsed
        assert (note["title"], note["project"], note["tags"]) == (TITLE, PROJECT, ["\u200fops"])
