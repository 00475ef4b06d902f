"""`review -i`: the pairs one at a time, then the due notes, each settled by one answer.

Answers are read a line at a time from stdin, a terminal or not (a script can pipe them);
the end of stdin is "quit". A pair one of whose notes an earlier answer superseded is
passed over: there is nothing left to settle.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from anamnesis.cli import console
from anamnesis.cli.commands import review_actions
from anamnesis.cli.display import lines, review_view
from anamnesis.cli.errors import CliError
from anamnesis.store import Contradiction, Memory, MemoryStore, NoteNotFound

PAIR_CHOICES = "[1] keep older  [2] keep newer  [b] both right  [e] edit  [s] skip  [q] quit"
EDIT_CHOICES = "edit which: [1] older  [2] newer"
DUE_CHOICES = "[d] done, still right  [e] edit  [s] skip  [q] quit"
# Answers asked again before a question is taken as skipped (a script answering nonsense).
ASKS = 3


class Quit(Exception):
    """The person answered q, or stdin ended."""


def run(
    store: MemoryStore,
    pairs: Sequence[Contradiction],
    due: Sequence[Memory],
    remarks: Mapping[tuple[str, str], str] | None = None,
) -> None:
    """Each pair (with its remark: a model's verdict), then each due note, settled by one
    answer each."""
    if not pairs and not due:
        console.say("no possible contradictions, and no notes due for review")
        return
    settled = 0
    try:
        for number, pair in enumerate(pairs, 1):
            if _settled_meanwhile(store, pair):
                continue
            console.say()
            review_view.say_pair(number, pair, (remarks or {}).get(pair.ids, ""))
            settled += _settle(store, pair)
        for note in due:
            console.say()
            review_view.say_due_note(note)
            settled += _confirm(store, note)
    except Quit:
        pass
    console.say()
    console.say(f"settled {settled}; `anamnesis review` lists what is left")


def _ask(choices: str, answers: str) -> str:
    """One answer among the characters of ``answers``, or "s" after :data:`ASKS` others."""
    for _ in range(ASKS):
        sys.stdout.write(f"{choices} > ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:  # the end of stdin
            console.say()
            raise Quit
        answer = line.strip().lower()[:1]
        if answer == "q":
            raise Quit
        if answer and answer in answers:
            return answer
        console.say(f"answer {', '.join(answers[:-1])} or {answers[-1]} (q quits)")
    return "s"


def _say(said: list[str]) -> int:
    for line in said:
        lines.say_wrapped("  ", line)
    return 1


def _settle(store: MemoryStore, pair: Contradiction) -> int:
    """1 when the person settled the pair, 0 when they skipped it (or it failed)."""
    answer = _ask(PAIR_CHOICES, "12bes")
    try:
        if answer == "1":
            return _say(review_actions.keep(store, pair.older, pair.newer))
        if answer == "2":
            return _say(review_actions.keep(store, pair.newer, pair.older))
        if answer == "b":
            return _say(review_actions.both_right(store, pair.older, pair.newer))
        if answer == "e":
            which = _ask(EDIT_CHOICES, "12")
            note = {"1": pair.older, "2": pair.newer}.get(which)
            return _say(review_actions.edit(store, note)) if note is not None else 0
    except CliError as exc:  # this pair only: say why, and go on to the next
        lines.say_wrapped("  ", exc.message)
    return 0


def _confirm(store: MemoryStore, note: Memory) -> int:
    answer = _ask(DUE_CHOICES, "des")
    try:
        if answer == "d":
            return _say(review_actions.done(store, note, None))
        if answer == "e":
            return _say(review_actions.edit(store, note))
    except CliError as exc:
        lines.say_wrapped("  ", exc.message)
    return 0


def _settled_meanwhile(store: MemoryStore, pair: Contradiction) -> bool:
    """Whether an earlier answer left one of the pair's notes superseded (or gone)."""
    superseded = store.superseded_ids()
    for note in (pair.older, pair.newer):
        if note.id in superseded:
            return True
        try:
            store.get(note.id)
        except NoteNotFound:
            return True
    return False
