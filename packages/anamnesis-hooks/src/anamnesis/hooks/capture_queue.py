"""Captures waiting to be filed: what the capture hook hands to the background worker.

The SessionEnd hook must return quickly whatever the machine is doing: Claude Code kills a
hook past its timeout, and twenty sessions ending together queue on the store's write lock
and on the CPU. So the hook only reads and summarizes the transcript (the session's own
work) and writes the result here, one file per capture, flushed to disk before it returns:
from then on the session's note is safe, whatever becomes of the processes that follow.
The background worker (:mod:`.worker`) files the captures into the store in the order they
were made and removes each file once its note is written. A worker that dies leaves the
rest for the next one: the next capture's, the next session start's (its sync hook), or
`anamnesis sync`. Filing a capture twice changes nothing (:func:`.capture.file_capture`).

The files live in ``<home>/queue/captures/``, never synced, readable by the user only:
they hold the summary before the store masks its secrets. One the store refuses is moved
to ``<home>/queue/refused/`` and logged, never retried for ever.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from anamnesis.hooks.failopen import log
from anamnesis.store import InvalidNote, StoreLayout, atomic_write_bytes

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from anamnesis.hooks.capture import CaptureResult
    from anamnesis.hooks.pending import PendingCapture
    from anamnesis.store import Memory, MemoryStore

# Everything asked of the background worker lives in ``<home>/queue/`` (the layout's
# queue_dir), never synced: the captures, and a sync's request. Both are asked for here, so
# that a capture hook loads neither the worker nor what it needs.
CAPTURES = "captures"
REFUSED = "refused"
SUFFIX = ".json"
SYNC_REQUEST = "sync-requested"
# A queued capture holds a summary of a few KB, and never more than a note's body
# (NoteLimits.BODY_BYTES, 1,000,000 bytes: the hook cuts it to that), which JSON writes in
# at most 6 bytes a byte (a control character's escape); anything bigger was not written by
# the hook.
MAX_ENTRY_BYTES = 8 * 1024 * 1024
_TEXT_FIELDS = ("session_id", "started_at", "source", "project", "title", "body", "model",
                "captured_at", "transcript")  # fmt: skip
# Text fields added since the first queue format, each with the value an entry queued by an
# older version (without it) gets: such an entry is still filed after an update.
_LATER_TEXT_FIELDS = {"agent": "claude-code"}


class BadEntry(Exception):
    """A file in the queue that is not a capture this hook wrote."""


def captures_dir(home: Path) -> Path:
    return StoreLayout(home).queue_dir / CAPTURES


def request_sync(home: Path) -> None:
    """Ask the worker for a sync (it runs one after this request, whoever holds the lock)."""
    folder = StoreLayout(home).queue_dir
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    (folder / SYNC_REQUEST).touch()


def take_sync_request(home: Path) -> bool:
    """Whether a sync was asked for; the request is consumed (only the worker calls this)."""
    try:
        (StoreLayout(home).queue_dir / SYNC_REQUEST).unlink()
    except FileNotFoundError:
        return False
    return True


def enqueue(home: Path, pending: PendingCapture) -> Path:
    """Write a capture to the queue, flushed to disk, under a name that sorts in the order
    captures are made; return its path."""
    folder = captures_dir(home)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    names = (*_TEXT_FIELDS, *_LATER_TEXT_FIELDS, "truncated")
    fields = {name: getattr(pending, name) for name in names}
    path = folder / f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}{SUFFIX}"
    atomic_write_bytes(path, json.dumps(fields, ensure_ascii=False), mode=0o600)
    return path


def queued_captures(home: Path) -> list[Path]:
    """The captures waiting, oldest first (a temp file of a write in progress is not one)."""
    try:
        paths = sorted(captures_dir(home).iterdir())
    except OSError:
        return []
    return [path for path in paths if path.suffix == SUFFIX and not path.name.startswith(".")]


def refused_captures(home: Path) -> list[Path]:
    """The captures the store refused, moved aside (each logged with the reason)."""
    try:
        return sorted((StoreLayout(home).queue_dir / REFUSED).glob(f"*{SUFFIX}"))
    except OSError:
        return []


def read_entry(path: Path) -> PendingCapture:
    """The capture in a queue file; raises :class:`BadEntry` for anything else and
    OSError when it cannot be read."""
    # Reading the queue is the worker's (the capture hook only writes to it), and the CLI's
    # doctor and a sync that files nothing only list it: neither loads the store's JSON
    # reader or the capture's record.
    from anamnesis.hooks.pending import PendingCapture
    from anamnesis.store import UnsafeFile, load_json, read_regular

    try:
        data, _info = read_regular(path, MAX_ENTRY_BYTES)
    except UnsafeFile as exc:
        raise BadEntry(str(exc)) from None
    try:  # a file someone else put here may nest deep enough to crash json: refused too
        fields = load_json(data.decode("utf-8"))
    except ValueError:
        raise BadEntry("not the JSON the capture hook writes") from None
    if not isinstance(fields, dict):
        raise BadEntry("not the JSON the capture hook writes")
    texts = {name: fields.get(name) for name in _TEXT_FIELDS}
    texts.update({name: fields.get(name, old) for name, old in _LATER_TEXT_FIELDS.items()})
    wrong = [name for name, value in texts.items() if not isinstance(value, str)]
    if wrong or not isinstance(fields.get("truncated", False), bool):
        raise BadEntry(f"missing or wrong fields: {', '.join(wrong) or 'truncated'}")
    return PendingCapture(**texts, truncated=fields.get("truncated", False))  # type: ignore[arg-type]


def file_queued(store: MemoryStore, *, machine_id: str, tried: set[str]) -> bool:
    """File every queued capture not in ``tried`` (names, added to as they are tried),
    oldest first, logging each as the capture hook always has. Returns False when the
    store could not be written (the rest stay queued for the next try)."""
    # The store's writer (its index, sqlite): the worker's, never the capture hook's.
    from anamnesis.hooks.capture import file_capture

    home = store.root
    for path in queued_captures(home):
        if path.name in tried:
            continue
        tried.add(path.name)
        try:
            pending = read_entry(path)
            result = file_capture(store, pending, machine_id=machine_id)
        except FileNotFoundError:
            continue  # removed meanwhile (by hand): nothing to file
        except (BadEntry, InvalidNote) as exc:  # never accepted, however often tried
            log(home, "capture", f"the queued capture {path} was refused ({exc}); {_refuse(path)}")
            continue
        except Exception as exc:  # the store or the disk: this and the rest stay queued
            log(home, "capture", f"could not file the queued capture {path} ({exc}); kept for"
                " the next sync or capture")  # fmt: skip
            tried.update(waiting.name for waiting in queued_captures(home))  # not again in this run
            return False
        _report(home, pending, result)
        if result.note is not None and not result.unchanged:
            _log_contradictions(store, result.note)
        path.unlink(missing_ok=True)
    return True


def _log_contradictions(store: MemoryStore, note: Memory) -> None:
    """The live notes a captured session's note may contradict, in the log (a capture has
    no one to reply to; `anamnesis review` lists them too). Never a reason to fail."""
    # filing's: see read_entry
    from anamnesis.store import contradictions_reply, display_safe, reply_line

    try:
        for entry in contradictions_reply(store, note):  # a title shown as text, not acted on
            said = display_safe(reply_line(entry))
            log(store.root, "capture", f"{note.id} may contradict {said}; `anamnesis review`"
                " lists it")  # fmt: skip
    except Exception as exc:  # advice about a note already filed: logged, never raised
        log(store.root, "capture", f"could not check {note.id} for contradictions: {exc}")


def _refuse(path: Path) -> str:
    target = path.parent.parent / REFUSED / path.name  # <home>/queue/refused/
    try:
        target.parent.mkdir(exist_ok=True, mode=0o700)
        path.replace(target)
    except OSError as exc:
        return f"and could not be moved aside: {exc}"
    return f"moved to {target}"


def _report(home: Path, pending: PendingCapture, result: CaptureResult) -> None:
    """What filing a capture did, in the log; an LLM summary of a new note, when set."""
    transcript = pending.transcript
    if result.truncated:
        from anamnesis.hooks.transcript import MAX_TRANSCRIPT_BYTES  # filing's: see read_entry

        log(home, "capture", f"{transcript} is over the {MAX_TRANSCRIPT_BYTES:,}-byte reading"
            " cap: the note was made from its start")  # fmt: skip
    if result.kept_edits and result.note is not None:
        edited = ", ".join(result.kept_edits)
        log(home, "capture", f"left hand-edited {edited} as it is; wrote {result.note.id} instead")
    if result.note is None:
        log(home, "capture", f"skipped {transcript}: {result.skipped}")
        return
    what = "unchanged" if result.unchanged else "captured"
    log(home, "capture", f"{what} {result.note.id} ({result.note.project}) from {transcript}")
    if not result.unchanged:
        from anamnesis.hooks.background import start_session_summary  # filing's: read_entry

        start_session_summary(home, result.note.id)  # only when llm.summarize_sessions is on
