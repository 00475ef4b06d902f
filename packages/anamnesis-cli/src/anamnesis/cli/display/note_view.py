"""`show` for a person: the banner of a copy kept by keep-both, and the body wrapped to
the terminal (piped, the body is printed exactly as written)."""

from __future__ import annotations

from collections.abc import Mapping

from anamnesis.cli import console
from anamnesis.cli.display import colour, lines, terminal, wrapping
from anamnesis.store import Memory
from anamnesis.sync import CONFLICT_KEY

# `show`'s label column, as wide as its supersede chain's ("replaced by: ").
LABEL = 13


def other_copies(note: Memory) -> list[str]:
    """The ids of the other copies of ``note`` a keep-both resolve kept (its
    ``conflict_with``: one id, or a list once a note was in conflict more than once)."""
    named = note.extra.get(CONFLICT_KEY)
    others = [named] if isinstance(named, str) else named if isinstance(named, list) else []
    return [str(other) for other in others]


def say_conflict(others: list[str], titles: Mapping[str, str]) -> None:
    """The banner: this note is one of the copies keep-both kept, and which note is the
    other (id whole, its title cut to the terminal's width)."""
    if not others:
        return
    label = "conflict:".ljust(LABEL)
    colour.say(
        [
            (label[: len("conflict:")], colour.YELLOW),
            (label[len("conflict:") :] + "a sync conflict kept two copies of this note; "
             f"the other{' copies' if len(others) > 1 else ''}:", colour.PLAIN),
        ]
    )  # fmt: skip
    for other in others:
        lines.say_note(" " * LABEL, other, titles.get(other, ""))
    console.say(f"{'':{LABEL}}(both stay in search until a note supersedes one of them)")


def say_body(body: str) -> None:
    """The body: wrapped to the terminal's width there, exactly as written when piped."""
    text = body.rstrip("\n")
    if not console.stdout_is_terminal():
        console.say(text)
        return
    for line in wrapping.markdown(text, terminal.width()):
        console.say(line)
