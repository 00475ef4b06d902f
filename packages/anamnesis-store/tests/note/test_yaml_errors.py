"""Broken YAML in a note's frontmatter is reported as the file's line and what to change
there, whichever of PyYAML's parsers read it, never as PyYAML's own report."""

from __future__ import annotations

import pytest
import yaml

from anamnesis.store import MalformedNote, parse_note
from anamnesis.store.note.yaml_errors import yaml_problem

HEAD = "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\n"  # the file's lines 1-3

# (frontmatter after HEAD, the file's line named, words the message must hold)
BROKEN = [
    ("title: hello\nthis line has no colon\n", 5, "no ':' after the key"),
    ("title: a: b\n", 4, "put the value in quotes"),
    ("\ttitle: x\n", 4, "indent with spaces"),
    ("title: T\nnote: 'never closed\nmore: x\n", 5, "does not end with its quote"),
    ("title: 'Don't panic'\nmore: x\n", 4, "write a ' as ''"),
    # YAML reads the open quote on to the next quote, two lines down, and fails there.
    ("title: 'never closed\nproject: p\ncreated_at: '2026-01-01'\n", 4, "does not end"),
    ('title: "say "hi" now"\n', 4, "does not end with its quote"),
    ("title: 'it''s fine' # ok\nthis line has no colon\n", 5, "no ':' after the key"),
    ("title: T\ntags:\n  - a\n - b\n", 7, "not indented like the keys above"),
    ("title: T\ntags: [a, b\nmore: x\n", 5, "never closes with ']'"),
    ("title: T\nnote: {a: 1\n", 5, "never closes with '}'"),
    ("title: @handle\n", 4, "put it in quotes"),
    ("title: T\nnote: *nope\n", 5, "starts an alias"),
    ("title: T\nevil: !!python/object/apply:os.system ['echo']\n", 5, "YAML tag"),
    ("title: T\nnote: a\x00b\n", 5, "control character (U+0000)"),
]
PYYAML_WORDS = ("<unicode string>", "while scanning", "while parsing", "column", "^")


@pytest.mark.parametrize(("front", "line", "words"), BROKEN)
def test_a_note_with_broken_yaml_names_the_file_s_line(front: str, line: int, words: str) -> None:
    with pytest.raises(MalformedNote) as caught:
        parse_note(f"{HEAD}{front}---\nbody\n", "semantic/x.md")
    message = str(caught.value)
    assert f"the frontmatter is not valid YAML: line {line}: " in message
    assert words in message
    assert "\n" not in message
    assert not [word for word in PYYAML_WORDS if word in message], message


def test_a_byte_order_mark_and_windows_line_ends_count_no_extra_line() -> None:
    text = f"\ufeff{HEAD}title: hello\nthis line has no colon\n---\nbody\n".replace("\n", "\r\n")
    with pytest.raises(MalformedNote, match="YAML: line 5: "):
        parse_note(text, "semantic/x.md")


@pytest.mark.parametrize("loader", [yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)])
@pytest.mark.parametrize(("front", "line", "words"), BROKEN)
def test_both_parsers_errors_read_the_same(
    loader: type[yaml.SafeLoader], front: str, line: int, words: str
) -> None:
    # The C parser and the pure-Python one word their errors differently; a machine
    # without libyaml must read the same message.
    text = HEAD.removeprefix("---\n") + front
    with pytest.raises(yaml.YAMLError) as caught:
        yaml.load(text, Loader=loader)  # the safe loaders, both of them
    said = yaml_problem(caught.value, text, first_line=2)
    assert said.startswith(f"line {line}: ") and words in said
