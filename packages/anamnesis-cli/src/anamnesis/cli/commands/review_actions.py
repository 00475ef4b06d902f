"""What `review` does to notes when a person settles a pair or confirms a due note: keep
one (the other is superseded by it, never deleted), both right (each note remembers the
other in ``compatible_with``, synced, never proposed again), edit (the note in the editor,
then the pair checked again), done (a due note confirmed). The store does each
(``MemoryStore.keep``, ``mark_compatible``, ``mark_reviewed``); here are the checks that
make a mistaken id a clear message, and the words said after.

Each action returns the lines to say; `review`'s subcommands and its interactive mode
(:mod:`.review_session`) both use them.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from anamnesis.cli.commands import review_confirm
from anamnesis.cli.errors import CliError, UsageError, suggest
from anamnesis.store import (
    Contradiction,
    InvalidNote,
    Memory,
    MemoryStore,
    StoreError,
    check_when,
    differences_text,
    due_bound,
    is_expired,
    read_regular,
    utc_now,
)

# `review done --next`: a number of days, a date or timestamp, or never.
_DAYS = re.compile(r"(\d{1,5})d")
NEVER = "never"


def pairs_with(store: MemoryStore, note: Memory) -> list[Contradiction]:
    """The possible contradictions ``note`` is one side of, as `review` lists them."""
    return [pair for pair in store.contradictions(project=note.project) if note.id in pair.ids]


def check_pair(store: MemoryStore, a: Memory, b: Memory) -> None:
    """Two notes a person named as a pair: different notes, of one project, both live, and
    a pair `review` may list. Raises :class:`CliError` saying what is wrong."""
    if a.id == b.id:
        raise UsageError(f"{a.id} is named twice: give the two notes of a pair")
    if a.project != b.project:
        raise CliError(
            f"{a.id} is a note of project {a.project} and {b.id} of {b.project}: only notes "
            "of one project (or two global notes) can contradict each other"
        )
    superseded = store.superseded_ids()
    for note in (a, b):
        if note.id in superseded:
            newer = ", ".join(store.supersede_chain(note.id).latest) or "another note"
            raise CliError(
                f"{note.id} is already superseded (by {newer}): it is no longer compared "
                f"with anything; {suggest('show', note.id)} shows its history"
            )
        if is_expired(note):
            raise CliError(
                f"{note.id} expired on {note.valid_until}: it is no longer compared with anything"
            )
    if not _listed(store, a, b):
        raise CliError(
            f"{a.id} and {b.id} are not a possible contradiction (any more): nothing to "
            f"settle; {suggest('review')} lists the pairs"
        )


def _listed(store: MemoryStore, a: Memory, b: Memory) -> bool:
    """Whether `review` may list the two notes as a pair: the rules find they differ, or
    they are a pair of the wider net a model confirmed (`review --confirm --wide`)."""
    if store.contradiction_between(a.id, b.id) is not None:
        return True
    wider = store.contradiction_between(a.id, b.id, wider=True)
    return wider is not None and review_confirm.confirmed(store, wider)


def keep(store: MemoryStore, kept: Memory, over: Memory) -> list[str]:
    """Keep ``kept``: ``over`` is superseded by it (hidden from recall, never deleted)."""
    if over.id in kept.supersedes:
        return [f"already settled: {kept.id} supersedes {over.id}"]
    check_pair(store, kept, over)
    store.keep(kept.id, over.id)
    return [
        f"kept {kept.id} ({kept.title})",
        f"{over.id} ({over.title}) is superseded by it: hidden from recall, still in the "
        f"history ({suggest('show', over.id)})",
    ]


def both_right(store: MemoryStore, a: Memory, b: Memory) -> list[str]:
    """Both notes are right: each remembers the other, and the pair is never proposed again
    (on any machine, once synced)."""
    if b.id in a.compatible_with and a.id in b.compatible_with:
        return [f"already settled: {a.id} and {b.id} are both right"]
    check_pair(store, a, b)
    store.mark_compatible(a.id, b.id)
    return [
        f"{a.id} and {b.id} are both right: the pair will not be proposed again (on the "
        "other machines either, after their next sync)"
    ]


def editor_command() -> list[str] | None:
    """The person's editor (``$VISUAL``, else ``$EDITOR``) as argv, or None."""
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                raise CliError(f"${variable} is not a command line: {value!r}") from None
    return None


def edit(store: MemoryStore, note: Memory) -> list[str]:
    """Open ``note``'s file in the editor; then index it again, mark it confirmed by a
    person, and say which of its pairs still stand."""
    path = store.file_of(note.id)
    editor = editor_command()
    if editor is None:
        return [
            f"no editor: set $EDITOR, or edit {path} by hand; {suggest('review')} then "
            "checks it again"
        ]
    before = pairs_with(store, note)
    old_text = _read(path)
    try:
        ran = subprocess.run([*editor, str(path)], check=False)
    except OSError as exc:
        raise CliError(f"could not start the editor {editor[0]!r}: {exc}") from None
    if ran.returncode != 0:
        raise CliError(f"the editor exited with status {ran.returncode}; nothing was checked")
    if _read(path) == old_text:
        return [f"{note.id} is unchanged; " + _still(before, note.id, [])]
    report = store.reindex_paths([path])
    if report.skipped:
        reason = "; ".join(skip.reason for skip in report.skipped)
        again = suggest("review", "edit", note.id)
        raise CliError(f"{path} no longer reads as a note ({reason}); fix it: {again}")
    try:
        edited = store.update(note.id, reviewed_at=utc_now())  # a person's edit confirms it
    except (InvalidNote, StoreError) as exc:
        raise CliError(f"{path}: {exc}") from None
    after = pairs_with(store, edited) if note.id not in store.superseded_ids() else []
    return [f"edited {edited.id} ({edited.title})", _still(before, note.id, after)]


def _read(path: Path) -> bytes:
    """The note file's bytes (a regular file only), or none when it cannot be read."""
    try:
        return read_regular(path)[0]
    except OSError:  # UnsafeFile is one
        return b""


def _other(pair: Contradiction, note_id: str) -> Memory:
    return pair.older if pair.newer.id == note_id else pair.newer


def _still(before: list[Contradiction], note_id: str, after: list[Contradiction]) -> str:
    """Which pairs of the note stand after the edit, and which it settled."""
    now = {_other(pair, note_id).id: pair for pair in after}
    was = {_other(pair, note_id).id for pair in before}
    said = []
    for other_id in sorted(was - now.keys()):
        said.append(f"no longer contradicts {other_id}")
    for other_id, pair in now.items():
        verb = "still contradicts" if other_id in was else "now contradicts"
        said.append(f"{verb} {other_id} ({differences_text(d.to_dict() for d in pair.differs)})")
    return "; ".join(said) if said else "it contradicts no other note"


def next_review(text: str | None, today: datetime | None = None) -> str | None:
    """`done --next`'s value as ``review_after``: ``90d`` is that many days from today,
    ``never`` clears it (""), a date or timestamp is itself; None (not given) keeps it."""
    if text is None:
        return None
    value = text.strip().lower()
    if value == NEVER:
        return ""
    days = _DAYS.fullmatch(value)
    if days:
        start = today or datetime.now(UTC)
        try:
            return (start + timedelta(days=int(days.group(1)))).date().isoformat()
        except OverflowError:
            raise UsageError(f"--next {text}: too far ahead") from None
    try:
        return check_when(text, "--next")
    except InvalidNote:
        raise UsageError(
            f"--next must be a number of days (90d), a date (2027-01-31), a timestamp or "
            f"never, got {text!r}"
        ) from None


def done(store: MemoryStore, note: Memory, review_after: str | None) -> list[str]:
    """A person confirmed ``note``: it is no longer due; ``review_after`` moved as asked."""
    confirmed = store.mark_reviewed(note.id, review_after=review_after)
    bound = due_bound(confirmed.review_after)
    if bound and bound > confirmed.reviewed_at:
        when = f"asked again from {confirmed.review_after}"
    else:  # none, or a date passed already: confirmed after it, so never due again
        when = "not asked again (--next 90d would ask again in 90 days)"
    return [f"confirmed {confirmed.id} ({confirmed.title}): {when}"]
