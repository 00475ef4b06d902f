"""What a sync commit says it changed: ``2 notes added, 1 edited: Pool size, Deploy
steps, and 1 more`` (the backend writes it after ``anamnesis: ``). The one rule for it;
the sync backend asks it for each local commit (``GitSyncBackend(describe=...)``, made so
by ``anamnesis.ops.Home``).

The message travels with the commit to every machine and stays in the history, so what it
names must be what the notes themselves may carry: each title is read from the file as
committed (masked already: a sync masks what it sends before it commits), and masked again
here, in case the file changed between the two; a note whose frontmatter says it is
machine-local is counted, never named (the synced folder holds none: its notes are
portable, but a hand-copied file may say otherwise). Titles are shown as a listing shows
them (direction controls escaped, one line), each cut to :data:`MAX_TITLE_CHARS`, and the
whole line to about :data:`MAX_LINE_CHARS`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from anamnesis.store.errors import MalformedNote
from anamnesis.store.note import codec, frontmatter
from anamnesis.store.note.invisible import display_safe
from anamnesis.store.secrets.redact import redact_secrets

NOTE_SUFFIX = ".md"
KINDS = ("added", "edited", "deleted")  # the order counts and titles are given in
MAX_TITLE_CHARS = 60
MAX_LINE_CHARS = 180  # with the backend's prefix, a subject line of about 200
# Titles read for one message at most: a commit of thousands of notes reads a few files.
MAX_TITLES_READ = 20
MACHINE_LOCAL = "machine-local"


class CommittedNote(Protocol):
    """A file a commit changes (``anamnesis.sync.CommittedFile`` is one): the store never
    imports the sync package."""

    @property
    def kind(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def content(self) -> Callable[[], bytes]: ...


def describe_commit(files: Sequence[CommittedNote]) -> str | None:
    """One line saying which notes a commit adds, edits and deletes, naming as many as fit;
    None when it changes no note (the backend then says it is a sync)."""
    notes = sorted(
        (f for f in files if f.path.endswith(NOTE_SUFFIX) and f.kind in KINDS),
        key=lambda f: KINDS.index(f.kind),
    )
    if not notes:
        return None
    line = _counts(Counter(f.kind for f in notes))
    named: list[str] = []
    for note in notes[:MAX_TITLES_READ]:
        title = _title(note)
        if title is None:
            continue
        rest = len(notes) - len(named) - 1
        tail = f", and {rest} more" if rest else ""
        if len(line) + len(": ") + len(", ".join([*named, title])) + len(tail) > MAX_LINE_CHARS:
            break
        named.append(title)
    if not named:
        return line
    rest = len(notes) - len(named)
    return f"{line}: {', '.join(named)}" + (f", and {rest} more" if rest else "")


def _counts(counts: Counter[str]) -> str:
    """``2 notes added, 1 edited``: the noun once, with the first count."""
    parts: list[str] = []
    for kind in KINDS:
        if counts[kind]:
            noun = "" if parts else (" note" if counts[kind] == 1 else " notes")
            parts.append(f"{counts[kind]}{noun} {kind}")
    return ", ".join(parts)


def _title(note: CommittedNote) -> str | None:
    """The note's title as the message may name it, or None (machine-local, or no title
    to be read)."""
    try:
        front, _ = codec.split(note.content().decode("utf-8"), note.path)
        meta = frontmatter.load(front)
    except (MalformedNote, frontmatter.FrontmatterError, UnicodeDecodeError, ValueError):
        return None
    raw = meta.get("title")
    if not isinstance(raw, str) or meta.get("scope") == MACHINE_LOCAL:
        return None
    title = " ".join(display_safe(redact_secrets(raw)).split())
    if not title:
        return None
    if len(title) > MAX_TITLE_CHARS:
        title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return title
