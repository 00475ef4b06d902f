"""Note files as the index sees them: where one lives, how it is read, and its stat.

Every read goes through :mod:`.safe_files` (regular files only, never through a link, up
to a size cap). Plain ``os.stat`` on strings is used on the hot read paths, where pathlib
costs about ten times more. The markdown codec is imported on first use: reads that find
their files unchanged (a session hook injecting notes) never need it, nor the YAML behind it.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store.errors import MalformedNote
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.files.safe_files import UnsafeFile, read_regular
from anamnesis.store.note.model import NOTE_TYPES, Memory
from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator

    from anamnesis.store.index.db import NoteRow


class NoteFile(Record):
    """One note file: its path, the tree it is in (its scope) and its path in that tree."""

    __slots__ = ("path", "rel", "scope")

    def __init__(self, path: Path, scope: str, rel: str) -> None:
        self.path = path
        self.scope = scope
        self.rel = rel


class Copy(Record):
    """One file holding a note's id, ranked against another file holding the same id."""

    __slots__ = ("key", "note")

    def __init__(
        self, note: NoteFile, memory_id: str, note_type: str, updated_at: str, mtime_ns: int
    ) -> None:
        self.note = note
        canonical = note.rel == StoreLayout.rel_path(note_type, memory_id)
        self.key = (canonical, updated_at, mtime_ns, note.scope == "portable")

    def beats(self, other: Copy) -> bool:
        """Which copy the index shows, the same whichever was seen first: the one at its
        canonical path, then the newer ``updated_at``, then the newer file, then the synced
        tree, then the smaller path."""
        if self.key != other.key:
            return self.key > other.key
        return str(self.note.path) < str(other.note.path)


def note_files(layout: StoreLayout) -> Iterator[NoteFile]:
    """Every ``.md`` file in the note trees, in a stable order; hidden names skipped."""
    for tree, scope in layout.trees():
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            base = Path(dirpath)
            for name in sorted(filenames):
                if name.endswith(".md") and not name.startswith("."):
                    path = base / name
                    yield NoteFile(path, scope, path.relative_to(tree).as_posix())


def load(note: NoteFile) -> tuple[Memory, os.stat_result] | str:
    """Read and parse one file (no index access): the note and the file's stat, or the
    reason it cannot be used. Raises FileNotFoundError if the file is gone."""
    try:
        text, stat = read_text(note.path)
    except FileNotFoundError:
        raise
    except UnsafeFile as exc:
        return f"not read: {exc.strerror}"
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot read it: {exc}"
    try:  # the tree, not the frontmatter, decides the scope
        return parse(text, str(note.path), note.scope), stat
    except MalformedNote as exc:
        return exc.reason


def salvage(note: NoteFile, memory_id: str) -> Memory:
    """The note in a file about to be deleted. A file that no longer parses still gives its
    id, its type (the folder) and its raw text, so the caller can show what went."""
    try:
        text = note.path.read_bytes().decode("utf-8", "replace")
    except OSError:
        text = ""
    try:
        return parse(text, str(note.path), note.scope)
    except MalformedNote:
        pass
    folder = note.rel.partition("/")[0]
    return Memory(
        id=memory_id,
        type=folder if folder in NOTE_TYPES else "semantic",
        title="(unreadable note)",
        body=text,
        scope=note.scope,
    )


def parse(text: str, path: str, scope: str | None = None) -> Memory:
    from anamnesis.store.note.codec import parse_note  # see the module's docstring

    return parse_note(text, path, scope)


def serialize(mem: Memory) -> str:
    from anamnesis.store.note.codec import serialize_note  # see the module's docstring

    return serialize_note(mem)


def read_text(path: Path) -> tuple[str, os.stat_result]:
    """A note file's text and its stat, taken before reading so a later edit is never
    missed (:mod:`.safe_files` says which files are read at all)."""
    data, stat = read_regular(path)
    return data.decode("utf-8"), stat


def read_bytes(path: Path) -> bytes | None:
    try:
        return read_regular(path)[0]
    except OSError:
        return None


def stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def mtime_or_none(path: Path | str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def stat_key(path: str) -> tuple[int, int] | None:
    """(size, mtime_ns), or None when there is no such file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)


def stat_matches(path: Path | str, row: NoteRow) -> bool:
    """Whether the file is still what its index row was made from."""
    try:
        stat = os.stat(path)
    except OSError:
        return False
    return stat.st_size == row.file_size and stat.st_mtime_ns == row.file_mtime_ns
