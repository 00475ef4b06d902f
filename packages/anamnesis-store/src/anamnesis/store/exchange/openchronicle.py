"""OpenChronicle's memory files (``~/.openchronicle/memory/*.md``) read as notes; nothing
is written here: :func:`~anamnesis.store.exchange.interchange.plan_import` and ``put_many`` do that.

OpenChronicle keeps one markdown file per entity (``user-profile.md``,
``project-openchronicle.md``, ``event-2026-04-22.md``...): YAML frontmatter, then
append-only entries, each under ``## [timestamp] {id: YYYYMMDD-HHMM-xxxxxx} #tag ...``. A
changed fact is struck through in place (``~~...~~``) and marked ``#superseded-by:NEW_ID``.

Each entry becomes one note:

* type and project from the file's prefix: ``event-`` is episodic, ``project-NAME`` is
  semantic in project ``name``, every other prefix semantic in ``global``; a project map
  (file stem, else prefix, to project key) overrides the project. An unknown prefix is
  read as semantic and reported.
* title ``<file description>: <heading text, else the entry's first sentence>``, one line;
  tags the entry's, then the file's; created and updated from the heading's timestamp (one
  without an offset is in the file's zone, as its frontmatter ``created`` shows, else this
  machine's); ``prov_source: import``; the id ``derived_id("openchronicle:<stem>/<entry
  id>")``, so a re-import finds the same notes.
* a struck-through entry marked ``#superseded-by:ID`` is listed in the ``supersedes`` of
  ID's note (ID is looked for in the same file first, then in the others) and its text is
  kept without the strike marks; an ID that names no entry is reported and the entry
  imported as current.

A file that cannot be read (not UTF-8, a link, not a regular file) and an entry that does
not parse are reported and skipped; the rest is still read. Links are never followed.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from anamnesis.store.errors import InvalidNote
from anamnesis.store.exchange.bounded_json import load_json
from anamnesis.store.exchange.interchange import InterchangeError
from anamnesis.store.files.safe_files import read_regular
from anamnesis.store.note.frontmatter import FrontmatterError, load_yaml_frontmatter
from anamnesis.store.note.ids import derived_id
from anamnesis.store.note.model import GLOBAL_PROJECT, Memory
from anamnesis.store.note.timestamps import in_utc
from anamnesis.store.note.validation import validate_note
from anamnesis.store.record import Record

KNOWN_PREFIXES = ("user", "project", "tool", "topic", "person", "org", "event")
TITLE_LIMIT = 200
EXTRA_KEY = "openchronicle_entry"  # where the note keeps "<file stem>/<entry id>"

_HEADING = re.compile(
    r"##[ \t]+\[(?P<stamp>[^\]]*)\][ \t]*\{[ \t]*id[ \t]*:(?P<id>[^}]*)\}(?P<rest>.*)"
)
_ENTRY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SUPERSEDED_BY = re.compile(r"#superseded-by:[ \t]*(?P<id>[^\s#]*)", re.IGNORECASE)
_TAG = re.compile(r"(?<!\S)#([^\s#]+)")
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


class ChronicleFile(Record):
    """What became of one memory file: its note type and project, how many entries it has,
    the ids of the notes read from it, entries ``skipped`` (where, why), ``notices`` (read
    anyway) and ``error`` (why nothing was read from the file; "" when it was read)."""

    __slots__ = ("name", "type", "project", "entries", "note_ids", "skipped", "notices", "error")

    def __init__(
        self,
        name: str,
        type: str,
        project: str,
        entries: int = 0,
        note_ids: list[str] | None = None,
        skipped: list[tuple[str, str]] | None = None,
        notices: list[str] | None = None,
        error: str = "",
    ) -> None:
        self.name = name
        self.type = type
        self.project = project
        self.entries = entries
        self.note_ids = list(note_ids or [])
        self.skipped = list(skipped or [])
        self.notices = list(notices or [])
        self.error = error


class ChronicleImport(Record):
    """The notes read from an OpenChronicle memory folder, and a report for each file."""

    __slots__ = ("folder", "files", "notes")

    def __init__(self, folder: Path, files: list[ChronicleFile], notes: list[Memory]) -> None:
        self.folder = folder
        self.files = files
        self.notes = notes


class _Entry(Record):
    __slots__ = ("file", "entry_id", "note", "superseded_by")

    def __init__(
        self, file: ChronicleFile, entry_id: str, note: Memory, superseded_by: str
    ) -> None:
        self.file = file
        self.entry_id = entry_id
        self.note = note
        self.superseded_by = superseded_by


def openchronicle_note_id(stem: str, entry_id: str) -> str:
    """The id of the note an entry becomes: the same on every import."""
    return derived_id(f"openchronicle:{stem}/{entry_id}")


def file_kind(stem: str, project_map: dict[str, str] | None = None) -> tuple[str, str, bool]:
    """(note type, project, whether the prefix is one OpenChronicle defines) of a file."""
    prefix, dash, name = stem.partition("-")
    known = bool(dash and name) and prefix in KNOWN_PREFIXES
    note_type = "episodic" if known and prefix == "event" else "semantic"
    project = name.lower() if known and prefix == "project" else GLOBAL_PROJECT
    mapping = project_map or {}
    for key in (stem, f"{prefix}-", prefix) if dash else (stem,):
        if key in mapping:
            return note_type, mapping[key], known
    return note_type, project, known


def load_project_map(path: Path) -> dict[str, str]:
    """A JSON object file mapping file stems or prefixes to project keys, checked; raises
    :class:`InterchangeError` saying what is wrong."""
    path = Path(path).expanduser()
    try:
        data = load_json(read_regular(path, follow=True)[0].decode("utf-8"))
    except OSError as exc:
        raise InterchangeError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # not UTF-8, not JSON, or nested too deep
        raise InterchangeError(f"{path} is not a JSON file: {exc}") from None
    if not isinstance(data, dict):
        raise InterchangeError(f'{path} must be a JSON object like {{"user-": "project-key"}}')
    mapping: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(value, str) or not value.strip() or not value.strip().isprintable():
            raise InterchangeError(f"{path}: the project for {key!r} must be one line of text")
        mapping[key] = value.strip()
    return mapping


def read_openchronicle(
    folder: Path,
    *,
    project_map: dict[str, str] | None = None,
    machine_id: str = "unknown",
    zone: tzinfo | None = None,
) -> ChronicleImport:
    """Read every ``*.md`` file directly in ``folder`` as OpenChronicle memory.

    ``zone``: the time zone of heading timestamps written without an offset (default: the
    offset of each file's frontmatter ``created``/``updated``, else this machine's zone).
    Raises :class:`InterchangeError` when ``folder`` is not a readable folder.
    """
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise InterchangeError(f"{folder} is not a folder (expected OpenChronicle's memory/)")
    try:
        paths = sorted(
            path
            for path in folder.iterdir()
            if path.name.endswith(".md") and not path.name.startswith(".")
        )
    except OSError as exc:
        raise InterchangeError(f"cannot list {folder}: {exc.strerror or exc}") from None
    files: list[ChronicleFile] = []
    entries: list[_Entry] = []
    for path in paths:
        stem = path.name[: -len(".md")]
        note_type, project, known = file_kind(stem, project_map)
        report = ChronicleFile(path.name, note_type, project)
        files.append(report)
        try:
            text = read_regular(path)[0].decode("utf-8")
        except UnicodeDecodeError as exc:
            report.error = f"not UTF-8 text (byte {exc.start}): nothing read from it"
            continue
        except OSError as exc:
            report.error = exc.strerror or str(exc)
            continue
        if not known:
            report.notices.append(
                f"unknown file prefix: read as {note_type} notes of project {project}"
            )
        entries.extend(_parse_file(report, stem, text, machine_id, zone))
    _link_supersedes(entries)
    return ChronicleImport(folder, files, [entry.note for entry in entries])


def _parse_file(
    report: ChronicleFile, stem: str, text: str, machine_id: str, zone: tzinfo | None
) -> list[_Entry]:
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    meta, lines, first = _frontmatter(report, text)
    zone = zone or _zone_of(meta)
    preamble, blocks = _blocks(lines, first)
    heading = next((line[2:].strip() for line in preamble if line.startswith("# ")), "")
    base = _text(meta.get("description")) or heading or stem.replace("-", " ")
    file_tags = _tags(meta.get("tags"))
    out: list[_Entry] = []
    seen: dict[str, int] = {}
    for number, head, body_lines in blocks:
        report.entries += 1
        try:
            entry = _entry(head, body_lines, seen, number)
            entry_id, stamp_text, rest, body, superseded_by = entry
            stamp = _timestamp(stamp_text, zone)
        except ValueError as exc:
            report.skipped.append((f"line {number}", str(exc)))
            continue
        seen[entry_id] = number
        body, struck = _unstrike(body)
        if struck and not superseded_by:
            report.notices.append(
                f"entry {entry_id}: struck through but names no #superseded-by: imported "
                "as current, strike marks dropped"
            )
        words = _TAG.sub(" ", rest)
        tags = [*_tags(_TAG.findall(rest)), *file_tags]
        title = _title(base, " ".join(words.split()) or _first_sentence(body))
        try:
            note = validate_note(
                Memory(
                    id=openchronicle_note_id(stem, entry_id),
                    type=report.type,
                    title=title,
                    body=body,
                    project=report.project,
                    machine_id=machine_id,
                    tags=list(dict.fromkeys(tags)),
                    created_at=stamp,
                    updated_at=stamp,
                    prov_source="import",
                    extra={EXTRA_KEY: f"{stem}/{entry_id}"},
                )
            )
        except InvalidNote as exc:
            report.skipped.append((f"entry {entry_id}", str(exc)))
            continue
        report.note_ids.append(note.id)
        out.append(_Entry(report, entry_id, note, superseded_by))
    return out


def _frontmatter(report: ChronicleFile, text: str) -> tuple[dict[str, Any], list[str], int]:
    """The frontmatter (safe-loaded; unreadable YAML is reported and ignored), the lines
    after it and the line number of the first of them."""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, lines, 1
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            try:
                meta = load_yaml_frontmatter("\n".join(lines[1:index]), first_line=2)
            except FrontmatterError as exc:
                report.notices.append(f"frontmatter ignored: {exc}")
                meta = {}
            return meta, lines[index + 1 :], index + 2
    report.notices.append("the frontmatter is never closed: read as entries")
    return {}, lines, 1


def _blocks(lines: list[str], first: int) -> tuple[list[str], list[tuple[int, str, list[str]]]]:
    """The lines before the first level-2 heading, and each heading with its line number
    and the lines under it (a heading inside a fenced code block is body text)."""
    preamble: list[str] = []
    blocks: list[tuple[int, str, list[str]]] = []
    fenced = False
    for number, line in enumerate(lines, start=first):
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and re.match(r"##(?:\s|$)", line):
            blocks.append((number, line, []))
        elif blocks:
            blocks[-1][2].append(line)
        else:
            preamble.append(line)
    return preamble, blocks


def _entry(
    head: str, body_lines: list[str], seen: dict[str, int], number: int
) -> tuple[str, str, str, str, str]:
    """(entry id, timestamp text, the rest of the heading, body, superseded-by id) of one
    entry; raises ``ValueError`` saying why it cannot be read."""
    match = _HEADING.fullmatch(head.strip())
    if match is None:
        raise ValueError(
            f"not an entry heading: {_clip(head.strip())!r} (expected "
            "'## [timestamp] {id: ...} #tags')"
        )
    entry_id = match["id"].strip()
    if not _ENTRY_ID.fullmatch(entry_id):
        raise ValueError(f"the entry id {entry_id!r} is empty or not one word")
    if entry_id in seen:
        raise ValueError(f"entry {entry_id} again (first on line {seen[entry_id]}): skipped")
    rest = match["rest"]
    body = "\n".join(body_lines).strip()
    found = _SUPERSEDED_BY.search(rest) or _SUPERSEDED_BY.search(body)
    superseded_by = found["id"] if found else ""
    if found is not None and not superseded_by:
        raise ValueError(f"entry {entry_id}: #superseded-by: names no entry")
    rest = _SUPERSEDED_BY.sub(" ", rest)
    body = _SUPERSEDED_BY.sub("", body).strip()
    if not body:
        raise ValueError(f"entry {entry_id} has no text")
    return entry_id, match["stamp"], rest, body, superseded_by


def _timestamp(text: str, zone: tzinfo | None) -> str:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"the timestamp {text.strip()!r} is not ISO-8601") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone) if zone is not None else moment.astimezone()
    return in_utc(moment)  # an InvalidNote (a ValueError) past the year 9999 in UTC


def _zone_of(meta: dict[str, Any]) -> tzinfo | None:
    """The fixed offset of the frontmatter's ``created`` (else ``updated``), if it has one."""
    for key in ("created", "updated"):
        value = meta.get(key)
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip())
            except ValueError:
                continue
        if isinstance(value, datetime) and (offset := value.utcoffset()) is not None:
            return timezone(offset)
    return None


def _unstrike(body: str) -> tuple[str, bool]:
    """The body without ``~~`` strike marks when all of it is struck, and whether it was."""
    if body.startswith("~~") and body.endswith("~~") and "~~" not in body[2:-2]:
        inner = body[2:-2].strip()
        return (inner, True) if inner else (body, False)
    lines = [line.strip() for line in body.split("\n") if line.strip()]
    if all(line.startswith("~~") and line.endswith("~~") and len(line) > 4 for line in lines):
        return "\n".join(line[2:-2].strip() for line in lines), True
    return body, False


def _link_supersedes(entries: list[_Entry]) -> None:
    """Each ``#superseded-by`` turned into the replacing note's ``supersedes``."""
    by_file: dict[tuple[int, str], _Entry] = {}
    by_id: dict[str, list[_Entry]] = {}
    for entry in entries:
        by_file[(id(entry.file), entry.entry_id)] = entry
        by_id.setdefault(entry.entry_id, []).append(entry)
    for entry in entries:
        wanted = entry.superseded_by
        if not wanted:
            continue
        others = by_id.get(wanted, [])
        target = by_file.get((id(entry.file), wanted)) or (others[0] if len(others) == 1 else None)
        if target is entry:
            problem = "names the entry itself"
        elif target is None:
            problem = "is in several files" if others else "names no entry that was read"
        else:
            if entry.note.id not in target.note.supersedes:
                target.note.supersedes.append(entry.note.id)
            continue
        entry.file.notices.append(
            f"entry {entry.entry_id}: #superseded-by:{wanted} {problem}: imported as current"
        )


def _tags(value: object) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return []
    tags = (" ".join(_text(item).split()).lstrip("#") for item in value)
    return [tag for tag in tags if tag]


def _text(value: object) -> str:
    if value is None:
        return ""
    return " ".join(str(value).split())


def _first_sentence(body: str) -> str:
    line = next((ln.strip().lstrip("#-*> ").strip() for ln in body.split("\n") if ln.strip()), "")
    return _SENTENCE_END.split(line, maxsplit=1)[0]


def _title(base: str, entry: str) -> str:
    title = " ".join(f"{base}: {entry}".split()) if entry else base
    return _clip(title, TITLE_LIMIT)


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
