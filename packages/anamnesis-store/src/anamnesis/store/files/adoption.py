"""Adopting hand-written notes: a markdown file without an id becomes a proper note.

People drop notes into the folders by hand, and the smallest note anyone would write is

    ---
    title: Use WAL mode
    ---
    Set busy_timeout on every connection.

in ``memory/procedural/``. Such a file has no id, so it cannot be indexed as it is. A full
reindex adopts it: the note gets an id (the file's name when that is a free ULID, else a
new one; the type from its folder when the frontmatter names none; the title from the
first line when it has none; timestamps from the file), and the file is rewritten
atomically, in place, in the store's exact format. Everything the author wrote is kept:
the body byte for byte, and any frontmatter keys of their own. A file without
frontmatter is not adopted: it may be a note that lost its header (or a stray README),
and guessing would hide that. A file that has an id, or is broken in another way, is not
touched.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from anamnesis.store.errors import MalformedNote
from anamnesis.store.files.atomic import atomic_write_bytes
from anamnesis.store.files.safe_files import read_regular
from anamnesis.store.note import codec, frontmatter
from anamnesis.store.note.ids import is_valid_id, new_id
from anamnesis.store.note.model import NOTE_TYPES, Memory
from anamnesis.store.note.timestamps import utc_from_ns, utc_now

# Longest title taken from a note's first line; a longer first line is a paragraph.
MAX_DERIVED_TITLE = 120


def adopt(
    path: Path, rel: str, scope: str, machine_id: str, taken: Callable[[str], bool]
) -> Memory | None:
    """Give the file at ``path`` (``rel`` inside its tree) an id and rewrite it in the
    exact format; return the note, or None when the file is not a note without an id
    (it has one, it is unreadable, or no type or title can be found for it).

    The rewrite happens only if the file is still what was read: an editor saving at the
    same moment wins, and the next reindex looks again. ``taken`` says whether an id is
    already some note's.
    """
    try:
        raw, before = read_regular(path)  # never through a link, never a FIFO or device
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    named = path.stem if is_valid_id(path.stem) and not taken(path.stem) else None
    note = adopted_note(text, rel, scope, machine_id, before.st_mtime_ns, named)
    if note is None:
        return None
    try:
        if read_regular(path)[0] != raw:
            return None
        atomic_write_bytes(path, codec.serialize_note(note), mode=before.st_mode & 0o777)
    except OSError:
        return None
    return note


def adopted_note(
    text: str,
    rel: str,
    scope: str,
    machine_id: str,
    mtime_ns: int,
    memory_id: str | None = None,
) -> Memory | None:
    """The note a hand-written file without an id stands for, with ``memory_id`` (None: a
    new one); None when the file has an id, or is not a note this can make sense of."""
    try:
        front, body = codec.split(text, rel)
        meta = frontmatter.load(front)
    except (MalformedNote, frontmatter.FrontmatterError):
        return None  # no frontmatter at all, or frontmatter that does not parse
    if meta.get("id"):
        return None
    folder = rel.split("/", 1)[0]
    note_type = meta.get("type") or (folder if folder in NOTE_TYPES else None)
    title = meta.get("title") or _first_line(body)
    if not note_type or not title:
        return None
    stamp = utc_from_ns(mtime_ns) or utc_now()  # a file time past the year 9999: now
    meta = {
        **meta,
        "id": memory_id or new_id(),
        "type": note_type,
        "title": title,
        "machine_id": meta.get("machine_id") or machine_id,
        "created_at": meta.get("created_at") or stamp,
        "updated_at": meta.get("updated_at") or meta.get("created_at") or stamp,
    }
    try:
        # Through the codec's own reader, so an adopted note obeys every rule a written
        # one does (a bad type or timestamp leaves the file alone, reported as before).
        dumped = frontmatter.dump(meta)
        return codec.parse_note(f"{codec.DELIMITER}{dumped}{codec.DELIMITER}{body}\n", rel, scope)
    except (MalformedNote, frontmatter.FrontmatterError, ValueError, TypeError):
        return None  # e.g. a value YAML cannot write back: leave the file for a person


def _first_line(body: str) -> str:
    for line in body.splitlines():
        words = line.strip().lstrip("#").strip()
        if words:
            return words if len(words) <= MAX_DERIVED_TITLE else ""
    return ""
