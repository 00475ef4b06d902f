"""Claude Code's own memory (``~/.claude/projects/*/memory/*.md``), mirrored into Anamnesis.

Claude Code keeps that memory on one machine; imported as portable notes it follows the
user. Each file gets an id derived from ``<project slug>/<file stem>`` so a re-import
updates in place; identical contents are imported once; one bad file never stops the rest.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anamnesis.ops.project import resolve_project_key
from anamnesis.store import (
    FrontmatterError,
    Memory,
    MemoryStore,
    NoteNotFound,
    StoreError,
    derived_id,
    every_note,
    load_json,
    load_yaml_frontmatter,
    open_regular,
    read_regular,
)

INDEX_FILE = "memory.md"  # MEMORY.md is Claude Code's index of the other files
TYPES = {
    "feedback": "procedural",
    "user": "semantic",
    "project": "semantic",
    "reference": "semantic",
}
# How much of a session transcript to read looking for its working directory: lines, and
# characters of each (a line is never read whole past this).
_CWD_SCAN_LINES = 40
_CWD_LINE_CHARS = 1 << 20


@dataclass(slots=True)
class ImportReport:
    """Counts of what an import did, and the files it could not use."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)


def claude_home() -> Path:
    """Claude Code's config folder: ``CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    raw = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(raw).expanduser() if raw else Path.home() / ".claude"


def import_native_memory(
    store: MemoryStore,
    *,
    claude_dir: Path,
    machine_id: str,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Import every native memory file; idempotent. A file or folder that cannot be read is
    reported in ``problems`` and the rest is still imported. ``progress(done, total)`` is
    called once the files are counted and after each file, imported or not."""
    report = ImportReport()
    projects = claude_dir / "projects"
    if not projects.is_dir():
        return report
    seen_bodies = _SeenBodies(store)
    folders = _memory_files(projects, report)
    total = sum(len(files) for _slug_dir, files in folders)
    done = 0
    if progress is not None:
        progress(done, total)
    for slug_dir, files in folders:
        project: str | None = None  # looked up once per folder, when a file needs it
        for path in files:
            try:
                if project is None:
                    # Inside the try: a transcript that vanishes or cannot be read while
                    # the folder is scanned is this file's problem, not the whole import's.
                    project = _project_for(slug_dir)
                _import_one(store, path, slug_dir.name, project, machine_id, seen_bodies, report)
            except (OSError, UnicodeDecodeError, StoreError, ValueError) as exc:
                report.problems.append((str(path), str(exc)))
            done += 1
            if progress is not None:
                progress(done, total)
    return report


def _memory_files(projects: Path, report: ImportReport) -> list[tuple[Path, list[Path]]]:
    """Each project folder that has a memory folder, with its memory files (not the index)."""
    out: list[tuple[Path, list[Path]]] = []
    try:
        slugs = sorted(projects.iterdir())
    except OSError as exc:
        report.problems.append((str(projects), exc.strerror or str(exc)))
        return out
    for slug_dir in slugs:
        memory = slug_dir / "memory"
        try:
            if not memory.is_dir():
                continue
            files = sorted(p for p in memory.glob("*.md") if p.name.lower() != INDEX_FILE)
        except OSError as exc:
            report.problems.append((str(memory), exc.strerror or str(exc)))
            continue
        out.append((slug_dir, files))
    return out


def _import_one(
    store: MemoryStore,
    path: Path,
    slug: str,
    project: str,
    machine_id: str,
    seen_bodies: _SeenBodies,
    report: ImportReport,
) -> None:
    # Never through a link (it could point anywhere: its content would reach a synced
    # note), never a FIFO or device, never a huge file.
    text = read_regular(path)[0].decode("utf-8")
    meta, body = _split(text)
    name = _text_value(meta.get("name"))
    description = _text_value(meta.get("description"))
    body = body.strip() or description
    title = (
        name or description or _first_line(body) or path.stem.replace("-", " ").replace("_", " ")
    )
    if not body:
        raise ValueError("the memory file is empty")
    note_id = derived_id(f"claude-native:{slug}/{path.stem}")
    stamp = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")
    kind = _text_value(meta.get("type")).lower()
    fresh = Memory(
        id=note_id,
        type=TYPES.get(kind, "semantic"),
        title=" ".join(title.split())[:200],
        body=body,
        project=project,
        machine_id=machine_id,
        tags=["imported", "claude-memory", *([kind] if kind else [])],
        created_at=stamp,
        updated_at=stamp,
        prov_source="import",
    )
    # Compared with what is stored, so as the store writes it: secrets masked.
    fresh = store.as_written(fresh)
    try:
        existing: Memory | None = store.get(note_id)
    except NoteNotFound:
        existing = None
    digest = _digest(fresh.body)
    if existing is None and digest in seen_bodies:
        report.duplicates += 1  # the same memory saved in two projects, or already a note
        return
    if existing is not None:
        same = all(
            getattr(existing, k) == getattr(fresh, k)
            for k in ("title", "body", "project", "type", "tags")
        )
        if same:
            report.unchanged += 1
            return
        fresh.created_at = existing.created_at or stamp
        store.put(fresh)
        report.updated += 1
    else:
        store.put(fresh)
        report.created += 1
    seen_bodies.add(digest)


class _SeenBodies:
    """The digests of every note body in the store, read only when a memory file that is
    not imported yet asks: a sync imports mostly files already imported, and reading every
    note of a 100,000-note store took 9 of a no-op sync's 11 seconds."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self._digests: set[str] | None = None

    def __contains__(self, digest: str) -> bool:
        return digest in self._loaded()

    def add(self, digest: str) -> None:
        if self._digests is not None:  # once loaded, kept up to date; else read later
            self._digests.add(digest)

    def _loaded(self) -> set[str]:
        if self._digests is None:
            # A page at a time: the whole store's notes with their bodies, listed at once,
            # held 550 MB at 100,000 notes.
            notes = every_note(self._store)
            self._digests = {_digest(m.body) for m in notes if m.body.strip()}
        return self._digests


def _split(text: str) -> tuple[dict[str, Any], str]:
    """Frontmatter (leniently: broken YAML means no frontmatter) and body."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            front = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            try:
                loaded = load_yaml_frontmatter(front)
            except FrontmatterError:
                return {}, body
            return loaded, body
    return {}, text


def _project_for(slug_dir: Path) -> str:
    """The project of a Claude Code project folder, from the cwd its transcripts record."""
    transcripts = sorted(slug_dir.glob("*.jsonl"), key=_mtime, reverse=True)
    for transcript in transcripts[:5]:
        cwd = _recorded_cwd(transcript)
        if cwd:
            return (
                resolve_project_key(cwd)
                if Path(cwd).exists()
                else (Path(cwd).name.lower() or "global")
            )
    tail = slug_dir.name.rstrip("-").rsplit("-", 1)[-1]
    return tail.lower() or "global"


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # removed since the folder was listed: sorts last, then fails to open
        return 0.0


def _recorded_cwd(transcript: Path) -> str | None:
    try:
        raw = io.FileIO(open_regular(transcript, follow=True), "rb", closefd=True)
        with io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors="replace") as handle:
            for _ in range(_CWD_SCAN_LINES):
                line = handle.readline(_CWD_LINE_CHARS)
                if not line:
                    break
                try:
                    record = load_json(line)
                except ValueError:  # not JSON, or nested too deep
                    continue
                cwd = record.get("cwd") if isinstance(record, dict) else None
                if isinstance(cwd, str) and cwd:
                    return cwd
    except OSError:
        return None
    return None


def _text_value(value: object) -> str:
    if value is None:
        return ""
    return value.strip() if isinstance(value, str) else str(value).strip()


def _first_line(text: str) -> str:
    for line in text.splitlines():
        cleaned = line.strip().lstrip("#").strip()
        if cleaned:
            return cleaned
    return ""


def _digest(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()
