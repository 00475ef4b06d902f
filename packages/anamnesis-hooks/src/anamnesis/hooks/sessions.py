"""What a Claude Code session has already been shown: one small file per session.

SessionStart inject records the notes it injected; prompt-time recall leaves those out and
records what it adds, so no note enters a session's context twice. Files live in
``<home>/cache/sessions/``, are replaced whole (a temp file renamed over the old one), and
files of sessions untouched for :data:`MAX_AGE_S` are removed whenever a new session's
file is first written. It is a cache: losing it costs at most a note shown twice.

A session id becomes a file name only when it is a plain name (letters, digits, ``-`` and
``_``, as Claude Code's UUIDs are); any other id is hashed first, so no id can ever name a
path outside the folder.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from anamnesis.store import StoreLayout, UnsafeFile, read_regular

SESSIONS = "sessions"  # in the layout's cache_dir
MAX_AGE_S = 7 * 24 * 3600
# More than any session is shown; a file that claims more is not ours.
MAX_IDS = 2000
MAX_BYTES = 256 * 1024
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_SUFFIX = ".json"


class SessionStateError(Exception):
    """The session's file exists but cannot be used (unreadable, corrupt)."""


def sessions_dir(home: Path) -> Path:
    return StoreLayout(home).cache_dir / SESSIONS


def state_name(session_id: str) -> str:
    """The file name of a session's state: the id itself when it is a plain name, else a
    hash of it (never a path)."""
    if _PLAIN.fullmatch(session_id):
        return session_id + _SUFFIX
    import hashlib  # only for an id that is not a plain name: not on inject's usual path

    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"h-{digest[:40]}{_SUFFIX}"


def state_path(home: Path, session_id: str) -> Path:
    return sessions_dir(home) / state_name(session_id)


def load_shown(home: Path, session_id: str) -> set[str]:
    """The ids already shown in this session (empty for a session not seen before); raises
    :class:`SessionStateError` for a file that exists but cannot be used."""
    return set(_load(state_path(home, session_id)))


def _load(path: Path) -> list[str]:
    try:
        data, _info = read_regular(path, MAX_BYTES)
    except FileNotFoundError:
        return []
    except (UnsafeFile, OSError) as exc:
        raise SessionStateError(f"cannot read {path}: {exc}") from None
    try:
        value = json.loads(data.decode("utf-8"))
    except ValueError:
        raise SessionStateError(f"{path} is not the JSON this hook writes") from None
    ids = value.get("shown") if isinstance(value, dict) else None
    if not isinstance(ids, list) or not all(isinstance(item, str) for item in ids):
        raise SessionStateError(f"{path} holds no list of shown note ids")
    return ids


def record_shown(home: Path, session_id: str, ids: list[str], *, replace: bool = False) -> None:
    """Add ``ids`` to what this session has been shown (``replace``: they are all it has
    been shown, as after a compaction). A file that cannot be used is started afresh.
    Raises OSError when the file cannot be written."""
    folder = sessions_dir(home)
    path = folder / state_name(session_id)
    known: list[str] = []
    if not replace:
        try:
            known = _load(path)
        except SessionStateError:
            known = []  # the caller logged it when reading; a fresh file mends it
    merged = list(dict.fromkeys([*known, *ids]))[-MAX_IDS:]
    new = not path.exists()
    folder.mkdir(parents=True, exist_ok=True)
    # The id, cut short, is there for a person reading the file; it is never read back.
    text = json.dumps({"session": session_id[:200], "shown": merged}, separators=(",", ":"))
    _replace(path, text.encode("utf-8"))
    if new:
        prune(folder)


def prune(folder: Path, *, now: float | None = None) -> int:
    """Remove the files of sessions untouched for :data:`MAX_AGE_S` (and temp files left by
    a killed write); return how many. Never raises."""
    limit = (time.time() if now is None else now) - MAX_AGE_S
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if entry.stat(follow_symlinks=False).st_mtime < limit:
                Path(entry.path).unlink()
                removed += 1
        except OSError:
            continue
    return removed


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path`` and rename it over ``path``: a reader
    sees the old file or the new one. Not fsynced: a cache, and the hook is waited on."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(3).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
