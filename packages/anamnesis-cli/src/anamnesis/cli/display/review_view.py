"""`review` for a person: each possible contradiction as a short block (what differs, then
each side: id whole, title cut, and where it came from), the notes due for review as a
table. Piped, every line is whole (the rules of :mod:`.lines` and :mod:`.tables`).

A pair reads as::

    1. github.com/acme/web: dev server port: 3000 -> 5173
       older  01JQ8N3YV6K7M8Z2W4X5R9T0AB  Dev server runs on port 3000
              you · laptop · 2026-01-03 14:02
       newer  01JQ9P0C2D3E4F5G6H7J8K9M1N  Vite dev server port
              captured · claude-code · desktop · 2026-03-01 09:10 · unconfirmed
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anamnesis.cli import console
from anamnesis.cli.display import lines
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.errors import suggest
from anamnesis.store import (
    Contradiction,
    Memory,
    differences_text,
    is_unconfirmed,
    reply_line,
    source_word,
)

# A side's label column: "older  " / "newer  " after the pair's number.
INDENT = "   "
LABEL = 7
# Between two words of a side's provenance.
DOT = " \u00b7 "

DUE_COLUMNS = [
    Column("id"),
    Column("due"),
    Column("reviewed"),
    Column("project", cut=1, comfort=10, drop=1),
    Column("title", cut=2, comfort=20),
]


def say_pair(number: int, pair: Contradiction, remark: str = "") -> None:
    """One pair: its number, project and differences, then the older and newer side, and
    ``remark`` under them (a model's verdict: ``model: compatible (reason)``)."""
    differs = differences_text(difference.to_dict() for difference in pair.differs)
    lines.say_wrapped(f"{number}. ", f"{pair.newer.project}: {differs}", len(INDENT))
    for label, side in (("older", pair.older), ("newer", pair.newer)):
        lines.say_note(f"{INDENT}{label:<{LABEL}}", side.id, side.title)
        lines.say_wrapped(" " * (len(INDENT) + LABEL), DOT.join(provenance(side)))
    if remark:
        lines.say_wrapped(INDENT, remark, len(INDENT) + 2)


def provenance(mem: Memory) -> list[str]:
    """Where a note came from, in words: its source (you, captured, reflected, imported,
    merged), the agent that wrote it, the machine, when, and "unconfirmed" for a model's
    words no person has kept."""
    words = [source_word(mem)]
    if mem.prov_agent:
        words.append(mem.prov_agent)
    words.append(mem.machine_id)
    words.append(moment(mem.created_at))
    if mem.updated_at[:16] != mem.created_at[:16]:
        words.append(f"edited {moment(mem.updated_at)}")
    if is_unconfirmed(mem):
        words.append("unconfirmed")
    return words


def moment(stamp: str) -> str:
    """A timestamp to the minute, as a person reads it (UTC, as the notes hold it)."""
    return stamp[:16].replace("T", " ")


def say_pairs(
    pairs: Sequence[Contradiction],
    total: int,
    remarks: Mapping[tuple[str, str], str] | None = None,
    footnote: str = "",
) -> None:
    """Every pair shown, numbered, with how many there are in all, each pair's remark (by
    its ids) under it, and ``footnote`` after the last pair."""
    count = f"{total} possible contradiction{'' if total == 1 else 's'}"
    shown = f" (the newest {len(pairs)}; --limit 0 shows all)" if total > len(pairs) else ""
    console.say(count + shown)
    for number, pair in enumerate(pairs, 1):
        console.say()
        say_pair(number, pair, (remarks or {}).get(pair.ids, ""))
    console.say()
    if footnote:
        lines.say_wrapped("", footnote, 2)
    lines.say_wrapped(
        "",
        "Settle a pair: `anamnesis review keep ID --over OTHER_ID` (the other is superseded "
        "by it, never deleted), `anamnesis review both ID OTHER_ID` (both are right: never "
        "asked again, on any machine), or `anamnesis review edit ID`.",
    )


def warn_contradicted(note_id: str, contradicted: Sequence[dict[str, Any]]) -> None:
    """After `write`: the live notes the new one may contradict (a write's reply, the
    store's ``contradictions_reply``), on stderr, and how to settle it."""
    for entry in contradicted:
        console.warn(f"the new note may contradict {reply_line(entry)}")
    if len(contradicted) == 1:
        old = contradicted[0]["id"]
        console.warn(
            f"if it replaces that note, {suggest('review', 'keep', note_id, '--over', old)} "
            "supersedes it (next time, write with --supersedes ID); if both are right, "
            f"{suggest('review', 'both', note_id, old)}"
        )
    elif contradicted:
        console.warn(
            f"if it replaces them, {suggest('review', 'keep', note_id, '--over', 'ID')} "
            f"supersedes each (next time, write with --supersedes ID); {suggest('review')} "
            "lists every pair"
        )


def warn_batch_contradicted(where: str, contradicted: Sequence[dict[str, Any]]) -> None:
    """After a reflection or merge: each new note that may contradict a live one (the
    store's ``batch_contradictions``), on stderr, and where to settle them."""
    for entry in contradicted:
        console.warn(f"{where}the new note {entry['note']} may contradict {reply_line(entry)}")
    if contradicted:
        console.warn(f"{suggest('review')} lists every possible contradiction, to settle")


def say_due_note(note: Memory) -> None:
    """One due note, as `review -i` asks about it: id, title, since when, provenance."""
    lines.say_note(f"{'due':<{LABEL}}", note.id, note.title)
    reviewed = f"last reviewed {note.reviewed_at[:10]}" if note.reviewed_at else "never reviewed"
    words = [f"{note.project}", f"due since {note.review_after}", reviewed, *provenance(note)]
    lines.say_wrapped(" " * LABEL, DOT.join(words))


def say_due(notes: Sequence[Memory], total: int) -> None:
    """The notes due for review, as a table, and how to confirm one."""
    count = f"{total} note{'' if total == 1 else 's'} due for review"
    shown = f" (the first {len(notes)}; --limit 0 shows all)" if total > len(notes) else ""
    console.say(count + shown)
    show(
        DUE_COLUMNS,
        [[n.id, n.review_after, n.reviewed_at[:10] or "never", n.project, n.title] for n in notes],
    )
    console.say()
    lines.say_wrapped(
        "",
        "Still right? `anamnesis review done ID` (--next 90d asks again in 90 days, --next "
        "never not again); wrong or stale: `anamnesis review edit ID`.",
    )
