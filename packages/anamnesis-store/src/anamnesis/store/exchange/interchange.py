"""Notes in and out of a store: JSONL and markdown exports, and planning an import.

An export holds every note (superseded and machine-local ones too) with its id, so reading
it back into an empty store gives the same notes: same ids, fields and timestamps.

* JSONL: ``<folder>/notes.jsonl``, one JSON object per note: the fields of
  :meth:`Memory.to_dict` and ``extra``. Frontmatter values JSON cannot hold exactly (dates,
  bytes, sets) travel as ``extra_yaml``: the YAML the note file would hold, safe-loaded back.
* markdown: the note files themselves, laid out as a store lays them out
  (``memory/<type>/<id>.md``, machine-local notes under ``local/<type>/``), so the tree
  still decides the scope and a portable tree never holds a machine-local note.

Exporting only ever writes inside the chosen folder: file names are built from validated
ids and types, and a folder on the way that is a symbolic link is refused. Reading an
export takes regular files only and never follows a link.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anamnesis.store.errors import InvalidNote, MalformedNote, StoreError
from anamnesis.store.exchange.bounded_json import load_json
from anamnesis.store.exchange.note_pages import each_note_once, every_note
from anamnesis.store.files.atomic import atomic_write_chunks
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.files.safe_files import read_regular
from anamnesis.store.note import codec, frontmatter
from anamnesis.store.note.model import NOTE_TYPES, Memory
from anamnesis.store.note.validation import validate_note
from anamnesis.store.record import Record

if TYPE_CHECKING:
    from anamnesis.store.store import MemoryStore

EXPORT_FORMATS = ("jsonl", "markdown")
JSONL_NAME = "notes.jsonl"
# A JSONL export is read whole: far past a note's cap, well short of what memory holds.
MAX_JSONL_BYTES = 1 << 30
_FIELDS = frozenset(Memory.FIELDS) | {"extra_yaml"}
# Notes a write of a JSONL export: the file grows by a few MB at a time.
_LINES_A_WRITE = 1000


class InterchangeError(StoreError):
    """A source to import from, or a folder to export to, that cannot be used."""


class ImportPlan(Record):
    """How notes compare with a store: ``new`` (no note has the id), ``updated`` (the note
    differs) and ``unchanged``; each as the store would write it."""

    __slots__ = ("new", "updated", "unchanged")

    def __init__(
        self,
        new: list[Memory] | None = None,
        updated: list[Memory] | None = None,
        unchanged: list[Memory] | None = None,
    ) -> None:
        self.new = new or []
        self.updated = updated or []
        self.unchanged = unchanged or []

    @property
    def changed(self) -> list[Memory]:
        """What an import writes (in one :meth:`MemoryStore.put_many`)."""
        return [*self.new, *self.updated]

    def status(self, memory_id: str) -> str:
        """``new``, ``updated``, ``unchanged`` or "" for an id the plan does not hold."""
        for name in ("new", "updated", "unchanged"):
            if any(note.id == memory_id for note in getattr(self, name)):
                return name
        return ""


def plan_import(
    store: MemoryStore, notes: Iterable[Memory], *, ignore: Iterable[str] = ()
) -> ImportPlan:
    """Compare ``notes`` (distinct ids, already valid) with the store; nothing is written.

    Fields named in ``ignore`` do not make a note count as updated (an importer that stamps
    this machine's id ignores ``machine_id``, so a re-import elsewhere changes nothing).
    """
    skip = set(ignore)
    incoming = []
    for note in notes:
        try:
            incoming.append(store.as_written(note))
        except InvalidNote as exc:  # over a limit only once masked: name the note
            raise exc.naming(note.id) from None
    ids = {note.id for note in incoming}
    # The store's notes a page at a time, keeping only those the import names: memory
    # follows the import's size, not the store's.
    stored = {note.id: note for note in every_note(store) if note.id in ids}
    plan = ImportPlan()
    for fresh in incoming:
        existing = stored.get(fresh.id)
        if existing is None:
            plan.new.append(fresh)
        elif _comparable(existing, skip) == _comparable(fresh, skip):
            plan.unchanged.append(fresh)
        else:
            plan.updated.append(fresh)
    return plan


def _comparable(note: Memory, skip: set[str]) -> dict[str, Any]:
    data = {**note.to_dict(), "extra": note.extra}
    return {key: value for key, value in data.items() if key not in skip}


# --- export ------------------------------------------------------------------------------


class ExportReport(Record):
    """What an export wrote: how many notes, in which format, and the files (absolute)."""

    __slots__ = ("format", "folder", "notes", "files")

    def __init__(self, format: str, folder: Path, notes: int, files: list[Path]) -> None:
        self.format = format
        self.folder = folder
        self.notes = notes
        self.files = files


def export_store(
    store: MemoryStore, folder: Path, fmt: str, *, force: bool = False
) -> ExportReport:
    """Write every note of the store to ``folder`` (created) as ``jsonl`` or ``markdown``.

    A folder that already holds anything is refused unless ``force``: then the export's
    own files are written over, and nothing else in the folder is touched or removed. A
    folder inside the store is always refused (its notes would be indexed twice).
    """
    if fmt not in EXPORT_FORMATS:
        raise InterchangeError(f"unknown export format {fmt!r}: use {' or '.join(EXPORT_FORMATS)}")
    target = _export_folder(store, Path(folder), force=force)
    # A page of notes at a time (each_note_once): the whole store in one list held 2 GB
    # for a JSONL export of 100,000 notes.
    notes = each_note_once(store)
    if fmt == "jsonl":
        path = target / JSONL_NAME
        count = 0

        def pages() -> Iterator[bytes]:
            nonlocal count
            while page := list(islice(notes, _LINES_A_WRITE)):
                count += len(page)
                yield "".join(jsonl_line(note) + "\n" for note in page).encode("utf-8")

        _write(path, pages())
        return ExportReport(fmt, target, count, [path])
    layout = StoreLayout(target)
    files = []
    made: set[Path] = set()  # folders made (or found) and checked: once each, not per note
    for note in notes:
        path = layout.note_path(note.scope, note.type, note.id)
        if path.parent not in made:
            _make_folder(target, path.parent)
            made.add(path.parent)
        _write(path, (codec.serialize_note(note).encode("utf-8"),))
        files.append(path)
    return ExportReport(fmt, target, len(files), files)


def _write(path: Path, chunks: Iterable[bytes]) -> None:
    _refuse_link(path)
    try:
        atomic_write_chunks(path, chunks)
    except OSError as exc:
        raise InterchangeError(f"cannot write {path}: {exc.strerror or exc}") from None


def _export_folder(store: MemoryStore, folder: Path, *, force: bool) -> Path:
    folder = folder.expanduser().absolute()
    resolved = folder.resolve()
    if resolved == store.root.resolve() or resolved.is_relative_to(store.root.resolve()):
        raise InterchangeError(
            f"{folder} is inside the store at {store.root}: export to a folder outside it"
        )
    if folder.exists() and not folder.is_dir():
        raise InterchangeError(f"{folder} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not force and any(folder.iterdir()):
            raise InterchangeError(
                f"{folder} is not empty: export to an empty or new folder, or add --force to "
                "write the export's files into it (nothing else there is touched)"
            )
    except OSError as exc:
        raise InterchangeError(f"cannot use {folder}: {exc.strerror or exc}") from None
    return resolved


def _make_folder(root: Path, folder: Path) -> None:
    """Create ``folder`` (under ``root``) refusing any part of it that is a link."""
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        _refuse_link(current)
        if not current.exists():
            try:
                current.mkdir()
            except OSError as exc:
                raise InterchangeError(f"cannot create {current}: {exc.strerror or exc}") from None
        elif not current.is_dir():
            raise InterchangeError(f"{current} is in the way of the export: it is not a folder")


def _refuse_link(path: Path) -> None:
    if path.is_symlink():
        raise InterchangeError(
            f"{path} is a symbolic link: the export writes only inside its folder, remove it"
        )


def jsonl_line(note: Memory) -> str:
    """One note as one line of JSON (no newline): every field, ``extra`` included."""
    record = note.to_dict()
    if _json_exact(note.extra):
        record["extra"] = note.extra
    else:
        record["extra_yaml"] = frontmatter.dump(note.extra)
    return json.dumps(record, ensure_ascii=False, allow_nan=False)


def _json_exact(value: object) -> bool:
    """Whether JSON gives ``value`` back as it is (same types, same values)."""
    kind = type(value)
    if kind in (str, int, bool) or value is None:
        return True
    if kind is float:
        assert isinstance(value, float)
        return math.isfinite(value)
    if kind is list:
        assert isinstance(value, list)
        return all(_json_exact(item) for item in value)
    if kind is dict:
        assert isinstance(value, dict)
        return all(type(k) is str and _json_exact(v) for k, v in value.items())
    return False


# --- reading exports back ----------------------------------------------------------------


class ReadNotes(Record):
    """Notes read from an export, with what could not be used: ``skipped`` (where, why;
    not imported) and ``notices`` (where, what; imported anyway)."""

    __slots__ = ("notes", "skipped", "notices")

    def __init__(
        self,
        notes: list[Memory],
        skipped: list[tuple[str, str]],
        notices: list[tuple[str, str]] | None = None,
    ) -> None:
        self.notes = notes
        self.skipped = skipped
        self.notices = notices or []


def read_jsonl(path: Path) -> ReadNotes:
    """The notes of a JSONL export, ids kept: ``path`` is the file, or the folder an export
    wrote it to (its ``notes.jsonl``). A line that is not a valid note is skipped and
    reported (``line N``); the others are still read. Raises :class:`InterchangeError` for
    a file that cannot be read at all."""
    path = Path(path).expanduser()
    if path.is_dir():  # the folder `export` was given: read the file it wrote there
        if not (path / JSONL_NAME).is_file():
            raise InterchangeError(f"{path} is a folder without {JSONL_NAME} (a JSONL export)")
        path = path / JSONL_NAME
    try:
        data = read_regular(path, MAX_JSONL_BYTES, follow=True)[0]
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InterchangeError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InterchangeError(f"cannot read {path}: {exc.strerror or exc}") from None
    notes: list[Memory] = []
    skipped: list[tuple[str, str]] = []
    notices: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            note, unknown = note_from_record(load_json(line))
        except (TypeError, ValueError) as exc:  # JSON's errors (too deep too) and InvalidNote
            skipped.append((where, _one_line(exc)))
            continue
        if note.id in seen:
            skipped.append((where, f"note {note.id} is already on line {seen[note.id]}"))
            continue
        seen[note.id] = number
        if unknown:
            notices.append((where, f"ignored unknown field(s): {', '.join(unknown)}"))
        notes.append(note)
    return ReadNotes(notes, skipped, notices)


def note_from_record(record: object) -> tuple[Memory, list[str]]:
    """A valid note from one JSONL object, and the keys it ignored; raises ``TypeError``
    for what is no note at all, ``ValueError`` (:class:`InvalidNote` for a field that
    breaks the note's rules) for one that is wrong."""
    if not isinstance(record, dict):
        raise TypeError(f"expected a JSON object, got {type(record).__name__}")
    missing = [key for key in ("id", "type", "title", "body") if key not in record]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    fields = {key: value for key, value in record.items() if key in Memory.FIELDS}
    extra = fields.pop("extra", None) or {}
    if not isinstance(extra, dict):
        raise InvalidNote("extra", "must be a JSON object")
    raw_yaml = record.get("extra_yaml")
    if raw_yaml is not None:
        if not isinstance(raw_yaml, str):
            raise InvalidNote("extra_yaml", "must be the text of a YAML mapping")
        try:
            extra = {**extra, **frontmatter.load_yaml_frontmatter(raw_yaml)}
        except frontmatter.FrontmatterError as exc:
            raise InvalidNote("extra_yaml", str(exc)) from None
    # A key an older version kept among the ones it did not know (``prov_agent``, which it
    # read as an unknown key of a newer note's file) is the field now, as the file gives it.
    lifted = [key for key in extra if key in frontmatter.KNOWN_KEYS and key not in fields]
    if lifted:
        extra = dict(extra)
        fields.update({key: extra.pop(key) for key in lifted})
    for key in ("tags", "supersedes", "compatible_with"):
        if isinstance(fields.get(key), str):
            raise InvalidNote(key, "must be a list of text")
    note = validate_note(Memory(**fields, extra=extra))  # a value of the wrong kind: TypeError
    return note, sorted(key for key in record if key not in _FIELDS)


def read_markdown_export(folder: Path) -> ReadNotes:
    """The notes of a markdown export (or any folder laid out as a store's note trees):
    ``memory/<type>/*.md`` as portable notes, ``local/<type>/*.md`` as machine-local ones.
    A file that does not parse, or is not a regular file, is skipped and reported; links
    are never followed. Raises :class:`InterchangeError` when ``folder`` is no folder."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise InterchangeError(f"{folder} is not a folder")
    layout = StoreLayout(folder)
    notes: list[Memory] = []
    skipped: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for tree, scope in layout.trees():
        for note_type in NOTE_TYPES:
            sub = tree / note_type
            if sub.is_symlink() or tree.is_symlink():
                skipped.append((str(sub), "a symbolic link: links are never followed"))
                continue
            if not sub.is_dir():
                continue
            for path in sorted(sub.glob("*.md")):
                try:
                    text = read_regular(path)[0].decode("utf-8")
                    # Parsed as any file is read, then held to what the store writes.
                    note = validate_note(codec.parse_note(text, str(path), scope=scope))
                except UnicodeDecodeError as exc:
                    skipped.append((str(path), f"not UTF-8 text (byte {exc.start})"))
                    continue
                except (OSError, MalformedNote, InvalidNote) as exc:
                    skipped.append((str(path), _one_line(exc)))
                    continue
                if note.id in seen:
                    skipped.append((str(path), f"note {note.id} is already in {seen[note.id]}"))
                    continue
                seen[note.id] = str(path)
                notes.append(note)
    return ReadNotes(notes, skipped)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
