"""What a model said about a contradiction candidate: advice, kept on this machine only.

A verdict never changes a note. Whether two notes contradict each other is the person's to
decide (``anamnesis review``: keep one, or both are right); a model's ``contradicts``,
``compatible`` or ``unsure`` only orders the list and is shown beside the pair, so the
person reads the likely conflicts first. A pair the model called compatible is still listed
(last, marked): the model can be wrong, and a pair hidden on its word would be a machine
deciding what the person never sees.

Verdicts live in ``<root>/cache/contradiction-verdicts.json``: machine-local (only the note
trees sync), advice worth a provider call to get again, and gone with the notes they speak
about when ``anamnesis clean`` empties the cache. One entry a pair (its ids sorted), holding
both notes' ``updated_at`` and a digest of the title and body the model read: an entry
counts only while both notes are still as they were, so an edit (through the store, by hand
in an editor, which keeps ``updated_at``, or one a sync brings) makes the pair unchecked
again, and asking again overwrites the entry instead of adding one.

The file is read as it would be from outside: a regular file under a size cap, JSON nested
no deeper than the store's ``load_json`` allows, every entry checked; one that does not fit
is skipped, and a file that cannot be read counts as none (its verdicts can be asked for
again), never as an error in the review it only decorates.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis.store import (
    Contradiction,
    Memory,
    MemoryStore,
    StoreLayout,
    atomic_write_bytes,
    display_safe,
    load_json,
    read_regular,
    utc_now,
)

log = logging.getLogger("anamnesis.reflect")

VERDICTS_NAME = "contradiction-verdicts.json"
FORMAT_VERSION = 1
CONTRADICTS, COMPATIBLE, UNSURE = "contradicts", "compatible", "unsure"
VERDICTS = (CONTRADICTS, COMPATIBLE, UNSURE)
# The review list's order: the pairs a model confirmed first, the unchecked and the unsure
# in between, the ones it dismissed last (still listed).
_RANK = {CONTRADICTS: 0, UNSURE: 1, COMPATIBLE: 2}
_UNCHECKED_RANK = 1
# A reason is one line beside a pair, not an essay: what a model sends past this is cut.
REASON_CHARS = 200
ELLIPSIS = "…"
# Far more pairs than a review lists; past it the entries checked longest ago go first.
MAX_VERDICTS = 5000
MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Verdict:
    """A model's word on one pair: ``verdict`` (contradicts, compatible or unsure), its
    one-line ``reason`` (display-safe, masked, at most :data:`REASON_CHARS`), who said it
    and when."""

    notes: tuple[str, str]
    verdict: str
    reason: str
    provider: str
    model: str
    checked_at: str

    @property
    def dismissed(self) -> bool:
        """The model found no contradiction (the pair stays listed, last)."""
        return self.verdict == COMPATIBLE

    def label(self) -> str:
        """``model: compatible (both ports are for different services)``: the line a
        review shows beside the pair."""
        return f"model: {self.verdict}" + (f" ({self.reason})" if self.reason else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "provider": self.provider,
            "model": self.model,
            "checked_at": self.checked_at,
        }


def verdicts_path(root: Path) -> Path:
    """``<root>/cache/contradiction-verdicts.json``: where a store keeps model verdicts."""
    return StoreLayout(root).cache_dir / VERDICTS_NAME


def pair_key(first: str, second: str) -> str:
    """The file's key of a pair: its ids sorted, so either order finds it."""
    low, high = sorted((first, second))
    return f"{low}+{high}"


def clean_reason(text: str) -> str:
    """A model's reason as it may be shown and kept: one line, secrets masked, direction
    and control characters escaped, cut to :data:`REASON_CHARS`."""
    # the masking rules load only where a reason is written: `review` reads verdicts
    # on every run, and most runs write none
    from anamnesis.store import redact_secrets

    line = display_safe(redact_secrets(" ".join(text.split())))
    if len(line) <= REASON_CHARS:
        return line
    return line[: REASON_CHARS - len(ELLIPSIS)].rstrip() + ELLIPSIS


def verdicts_for(
    store: MemoryStore, pairs: Iterable[Contradiction]
) -> dict[tuple[str, str], Verdict]:
    """The current verdict of each pair that has one, by ``(older.id, newer.id)``: given
    while both notes were as they are now (an edit since makes a pair unchecked)."""
    return _verdicts_in(_read(verdicts_path(store.root)), pairs)


def review_verdicts(
    store: MemoryStore, pairs: Sequence[Contradiction], project: str | None = None
) -> tuple[list[Contradiction], dict[tuple[str, str], Verdict]]:
    """What a review shows of the kept verdicts, the file read once (a review reads it on
    every run, and its size grows with ``--wide``): the wider net's pairs a model confirmed
    beyond ``pairs`` (:func:`confirmed_wider`), and the current verdict of each pair of
    both (:func:`verdicts_for`)."""
    entries = _read(verdicts_path(store.root))
    confirmed = _confirmed_in(store, entries, pairs, project)
    return confirmed, _verdicts_in(entries, [*confirmed, *pairs])


def _verdicts_in(
    entries: Mapping[str, Mapping[str, Any]], pairs: Iterable[Contradiction]
) -> dict[tuple[str, str], Verdict]:
    found: dict[tuple[str, str], Verdict] = {}
    for pair in pairs:
        ids = pair.ids
        entry = entries.get(pair_key(*ids))
        if entry is not None and _current(entry, pair.older, pair.newer):
            found[ids] = _verdict(ids, entry)
    return found


def confirmed_wider(
    store: MemoryStore, listed: Iterable[Contradiction], project: str | None = None
) -> list[Contradiction]:
    """The pairs of the store's wider net (``MemoryStore.wider_candidates``) a model
    confirmed (``contradicts``) that ``listed`` (the store's own candidates) does not hold,
    of ``project`` when given: each still two live notes that clash, its verdict still
    current; newest first. They are listed only on that word (``review --confirm --wide``
    asked it), so a verdict that no longer holds lists nothing."""
    return _confirmed_in(store, _read(verdicts_path(store.root)), listed, project)


def _confirmed_in(
    store: MemoryStore,
    entries: Mapping[str, Mapping[str, Any]],
    listed: Iterable[Contradiction],
    project: str | None,
) -> list[Contradiction]:
    from anamnesis.store import InvalidNote, MalformedNote, NoteNotFound

    shown = {pair_key(*pair.ids) for pair in listed}
    found = []
    for key, entry in entries.items():
        if entry["verdict"] != CONTRADICTS or key in shown:
            continue
        try:
            pair = store.contradiction_between(*entry["notes"], wider=True)
        except (NoteNotFound, MalformedNote, InvalidNote):  # deleted, broken, a hand-made id
            continue
        if pair is None or (project is not None and pair.older.project != project):
            continue
        if _current(entry, pair.older, pair.newer):
            found.append(pair)
    found.sort(key=lambda pair: (pair.newer.created_at, pair.older.created_at), reverse=True)
    return found


def by_verdict(
    pairs: Sequence[Contradiction], verdicts: Mapping[tuple[str, str], Verdict]
) -> list[Contradiction]:
    """``pairs`` in review order: those a model confirmed first, then the unchecked and
    the unsure, those it called compatible last; the given order kept within each."""

    def rank(pair: Contradiction) -> int:
        verdict = verdicts.get(pair.ids)
        return _UNCHECKED_RANK if verdict is None else _RANK[verdict.verdict]

    return sorted(pairs, key=rank)


def record_verdicts(
    store: MemoryStore,
    answers: Iterable[tuple[Contradiction, str, str]],
    *,
    provider: str,
    model: str,
) -> list[Verdict]:
    """Keep each ``(pair, verdict, reason)`` as the pair's current verdict, with both
    notes' ``updated_at``; return the verdicts kept. The file is read again and rewritten
    atomically under its lock, so two runs never lose each other's verdicts."""
    now = utc_now()
    kept: list[Verdict] = []
    new: dict[str, dict[str, Any]] = {}
    for pair, verdict, reason in answers:
        if verdict not in VERDICTS:
            raise ValueError(f"a verdict is one of {', '.join(VERDICTS)}, not {verdict!r}")
        older, newer = pair.older, pair.newer
        entry = {
            "notes": [older.id, newer.id],
            "updated_at": {older.id: older.updated_at, newer.id: newer.updated_at},
            "digest": {older.id: text_digest(older), newer.id: text_digest(newer)},
            "verdict": verdict,
            "reason": clean_reason(reason),
            "provider": provider,
            "model": model,
            "checked_at": now,
        }
        new[pair_key(*pair.ids)] = entry
        kept.append(_verdict(pair.ids, entry))
    if not new:
        return kept
    path = verdicts_path(store.root)
    with _lock(path):
        entries = _read(path)
        entries.update(new)
        newest = sorted(entries.items(), key=lambda item: str(item[1]["checked_at"]))
        data = {"version": FORMAT_VERSION, "verdicts": dict(newest[-MAX_VERDICTS:])}
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        atomic_write_bytes(path, text, mode=0o600)
    return kept


def text_digest(note: Memory) -> str:
    """A digest of what a model reads of a note (title and body): a hand edit keeps
    ``updated_at``, and an edit within the second it was written does too."""
    return hashlib.sha256(f"{note.title}\0{note.body}".encode()).hexdigest()[:32]


def _current(entry: Mapping[str, Any], older: Memory, newer: Memory) -> bool:
    seen: Mapping[str, str] = entry["updated_at"]
    read: Mapping[str, str] = entry["digest"]
    return all(
        seen.get(note.id) == note.updated_at and read.get(note.id) == text_digest(note)
        for note in (older, newer)
    )


def _verdict(ids: tuple[str, str], entry: Mapping[str, Any]) -> Verdict:
    return Verdict(
        ids,
        entry["verdict"],
        entry["reason"],
        entry["provider"],
        entry["model"],
        entry["checked_at"],
    )


def _read(path: Path) -> dict[str, dict[str, Any]]:
    """The file's well-formed entries by key; none when it is missing or unreadable."""
    try:
        raw, _info = read_regular(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return {}
    except OSError as exc:  # UnsafeFile too: a link, a FIFO, a file over the cap
        log.warning("model verdicts not read (%s): %s", path, exc)
        return {}
    try:
        data = load_json(raw.decode("utf-8"))
    except ValueError as exc:  # not UTF-8, not JSON, or nested too deep (JsonTooDeep)
        log.warning("model verdicts not read (%s): %s", path, exc)
        return {}
    stored = data.get("verdicts") if isinstance(data, dict) else None
    if not isinstance(stored, dict):
        return {}
    return {key: entry for key, entry in stored.items() if _well_formed(key, entry)}


def _well_formed(key: str, entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    notes, seen, read = entry.get("notes"), entry.get("updated_at"), entry.get("digest")
    texts = ("reason", "provider", "model", "checked_at")
    return (
        isinstance(notes, list)
        and len(notes) == 2
        and all(isinstance(note, str) for note in notes)
        and pair_key(notes[0], notes[1]) == key
        and isinstance(seen, dict)
        and all(isinstance(seen.get(note), str) for note in notes)
        and isinstance(read, dict)
        and all(isinstance(read.get(note), str) for note in notes)
        and entry.get("verdict") in VERDICTS
        and all(isinstance(entry.get(name), str) for name in texts)
        and entry["reason"] == clean_reason(entry["reason"])  # as kept: never a raw reply
    )


@contextmanager
def _lock(path: Path) -> Iterator[None]:
    """The verdict file's own lock: held for a read-modify-write, never during a call."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
