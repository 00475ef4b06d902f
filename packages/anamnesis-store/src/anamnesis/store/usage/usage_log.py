"""What this machine's sessions used: the notes each SessionStart block showed, each prompt
recalled, each MCP search returned and each note fetched by id, in ``usage.db`` beside the
note trees (:attr:`~anamnesis.store.StoreLayout.usage_path`).

Machine-local and never synced: the file is outside ``memory/`` (the git tree) and
``local/``. It is no part of the index either, which is rebuilt from the notes at will:
what was used cannot be derived from them.

Cheap on a hook's path: one connection and one short transaction per recording (WAL, a
busy timeout, no fsync), about half a millisecond, nothing imported but sqlite3. It fails
open: a file locked past the timeout, unwritable or corrupt never breaks a hook or a
search; the recording is dropped and one line in ``logs/usage.log`` says why. A corrupt
file is moved aside (``usage.db.broken``, never deleted) and the next recording starts a
fresh one.

Bounded: runs older than :data:`KEEP_DAYS` days are dropped, and at most :data:`MAX_RUNS`
runs are kept (the oldest go first), checked every :data:`PRUNE_EVERY`-th recording. A
run is one recording (a session's block, a prompt, a search, a fetch), with one row for
each note it used: a year of heavy use (twenty sessions, a hundred prompts and fifty
searches a day) is about 60,000 runs and a few MB.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from anamnesis.store.note.ids import is_valid_id
from anamnesis.store.record import Record
from anamnesis.store.sqlite_wal import use_wal

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

# What a run records, in the order a session meets them: a SessionStart block, a prompt's
# recall, an MCP search, a note fetched by id (the MCP server's note resource).
INJECTED, RECALLED, SEARCHED, FETCHED = "injected", "recalled", "searched", "fetched"
USAGE_EVENTS = EVENTS = (INJECTED, RECALLED, SEARCHED, FETCHED)

KEEP_DAYS = 365
MAX_RUNS = 200_000
PRUNE_EVERY = 256
# A hook waits on this at most when another process holds the write lock (a recording
# takes a millisecond or two: only a stuck process makes it wait this long).
BUSY_TIMEOUT_S = 1.0
MAX_IDS = 200  # notes in one run: more than any block, recall or search returns
MAX_TEXT = 200  # characters kept of a project, agent or session name
MAX_K_IDS = 1000  # notes asked about at once (a search's candidates: k and a few more)
SCHEMA_VERSION = 1
LOG_NAME = "usage.log"
LOG_MAX_BYTES = 256 * 1024
DAY_S = 86_400

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS runs(
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,          -- unix seconds
    event TEXT NOT NULL,          -- one of EVENTS
    project TEXT NOT NULL,
    agent TEXT NOT NULL,          -- "" when not known
    session TEXT NOT NULL,        -- "" when not known
    notes INTEGER NOT NULL        -- how many notes it used (0: a prompt that found none)
);
CREATE INDEX IF NOT EXISTS runs_at ON runs(at);
CREATE INDEX IF NOT EXISTS runs_session ON runs(session, event) WHERE session != '';
CREATE TABLE IF NOT EXISTS uses(
    run INTEGER NOT NULL,         -- runs.id
    note TEXT NOT NULL,           -- a note id (a ULID)
    after_search INTEGER NOT NULL DEFAULT 0,  -- fetched: a search of its session returned it
    PRIMARY KEY (run, note)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS uses_note ON uses(note);
PRAGMA user_version = {SCHEMA_VERSION};
"""


class RunCount(Record):
    """One event's runs in a window: how many, how many used a note at all (``found``: a
    prompt that recalled something, a search that returned something), and the notes they
    used in all."""

    __slots__ = ("runs", "found", "notes")

    def __init__(self, runs: int = 0, found: int = 0, notes: int = 0) -> None:
        self.runs = runs
        self.found = found
        self.notes = notes

    @property
    def rate(self) -> float | None:
        """``found`` of ``runs`` (None when there was no run)."""
        return self.found / self.runs if self.runs else None

    def to_dict(self) -> dict[str, object]:
        rate = self.rate
        return {
            "runs": self.runs,
            "found": self.found,
            "notes": self.notes,
            "rate": None if rate is None else round(rate, 4),
        }


class NoteUse(Record):
    """How often one note was used in a window, by event, and when last (unix seconds)."""

    __slots__ = ("id", "counts", "last_used")

    def __init__(self, id: str, counts: dict[str, int], last_used: int) -> None:
        self.id = id
        self.counts = counts
        self.last_used = last_used

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class UsageCounts(Record):
    """What the log holds for a window starting at ``since`` (unix seconds): the runs of
    each event, each note's uses, how many fetches followed a search of the same session;
    ``problem``: why the log could not be read ("" when it could; the counts are then
    empty)."""

    __slots__ = ("since", "runs", "notes", "fetched_after_search", "problem")

    def __init__(
        self,
        since: int,
        runs: dict[str, RunCount] | None = None,
        notes: dict[str, NoteUse] | None = None,
        fetched_after_search: int = 0,
        problem: str = "",
    ) -> None:
        self.since = since
        self.runs = runs if runs is not None else {event: RunCount() for event in EVENTS}
        self.notes = notes if notes is not None else {}
        self.fetched_after_search = fetched_after_search
        self.problem = problem

    def most_used(self, limit: int | None = None) -> list[NoteUse]:
        """The notes used most (every event counts one), the most recently used first
        among equals, then by id."""
        ranked = sorted(self.notes.values(), key=lambda use: (-use.total, -use.last_used, use.id))
        return ranked if limit is None else ranked[:limit]


class UsageLog:
    """The usage file of one store. Each call opens its own connection, so one log serves
    threads and processes alike."""

    __slots__ = ("logs_dir", "path")

    def __init__(self, path: Path, logs_dir: Path) -> None:
        self.path = path
        self.logs_dir = logs_dir

    def __repr__(self) -> str:
        return f"UsageLog({str(self.path)!r})"

    # -- recording -------------------------------------------------------------------

    def record(
        self,
        event: str,
        ids: Iterable[str],
        *,
        project: str = "",
        agent: str = "",
        session: str = "",
        now: float | None = None,
    ) -> bool:
        """Record one run of ``event`` that used the notes ``ids`` (none: a prompt that
        recalled nothing, a search that found nothing; it counts too). ``agent`` and
        ``session`` when known. A fetch records whether a search of the same session
        returned the note before. Never raises for the file: False (and a line in
        ``logs/usage.log``) when the run could not be recorded."""
        if event not in EVENTS:
            raise ValueError(f"unknown usage event {event!r}; one of {', '.join(EVENTS)}")
        notes = [note for note in dict.fromkeys(ids) if is_valid_id(note)][:MAX_IDS]
        at = int(time.time() if now is None else now)
        row = (at, event, project[:MAX_TEXT], agent[:MAX_TEXT], session[:MAX_TEXT], len(notes))
        return not self._attempt(f"record {event}", lambda conn: _insert(conn, row, notes))

    def prune(self, *, now: float | None = None) -> bool:
        """Drop runs older than :data:`KEEP_DAYS` days and all but the newest
        :data:`MAX_RUNS` (recording does this every :data:`PRUNE_EVERY` runs)."""
        at = int(time.time() if now is None else now)
        return not self._attempt("prune", lambda conn: _prune(conn, at))

    # -- reading ---------------------------------------------------------------------

    def counts(self, days: float | None = None, *, now: float | None = None) -> UsageCounts:
        """What the last ``days`` days used (None: everything kept). An absent file is an
        empty log; one that cannot be read gives empty counts saying why (``problem``)."""
        at = time.time() if now is None else now
        since = 0 if days is None else int(at - days * DAY_S)
        if not self.path.exists():
            return UsageCounts(since)
        found: list[UsageCounts] = []
        problem = self._attempt("read", lambda conn: found.append(_read(conn, since)), write=False)
        if problem:
            return UsageCounts(since, problem=f"the usage log could not be read: {problem}")
        return found[0] if found else UsageCounts(since)  # a file with no table yet

    def most_used(self, days: float | None = 30, limit: int = 10) -> list[NoteUse]:
        """The ``limit`` notes used most in the last ``days`` days."""
        return self.counts(days).most_used(limit)

    def used_ids(self, days: float | None = 30) -> set[str]:
        """The ids of the notes used at all in the last ``days`` days."""
        return set(self.counts(days).notes)

    def recall_hit_rate(self, days: float | None = 30) -> float | None:
        """The share of prompts whose recall found a note in the last ``days`` days (None:
        no prompt was recalled for)."""
        return self.counts(days).runs[RECALLED].rate

    def uses_of(
        self,
        ids: Iterable[str],
        *,
        days: float,
        events: Iterable[str] = EVENTS,
        now: float | None = None,
    ) -> dict[str, int]:
        """How often each of these notes was used by ``events`` in the last ``days`` days
        (notes never used left out): what search's usage prior reads for its candidates,
        without reading the whole log. An absent or unreadable log: {}."""
        wanted = [note for note in dict.fromkeys(ids) if is_valid_id(note)][:MAX_K_IDS]
        if not wanted or not self.path.exists():
            return {}
        since = int((time.time() if now is None else now) - days * DAY_S)
        kinds = [event for event in EVENTS if event in set(events)]
        found: dict[str, int] = {}

        def read(conn: sqlite3.Connection) -> None:
            rows = conn.execute(
                f"SELECT uses.note, COUNT(*) FROM uses JOIN runs ON runs.id = uses.run"
                f" WHERE uses.note IN ({', '.join('?' * len(wanted))}) AND runs.at >= ?"
                f" AND runs.event IN ({', '.join('?' * len(kinds))}) GROUP BY uses.note",
                [*wanted, since, *kinds],
            )
            found.update(rows)

        return found if not self._attempt("read uses", read, write=False) else {}

    # -- the file --------------------------------------------------------------------

    def _attempt(
        self, what: str, work: Callable[[sqlite3.Connection], None], *, write: bool = True
    ) -> str:
        """Run ``work`` in one transaction: "" when it ran, else what went wrong (logged).
        A corrupt file is moved aside; a recording then tries once more, in a fresh one."""
        for attempt in (1, 2):
            try:
                self._run(work, write=write)
                return ""
            except sqlite3.DatabaseError as exc:
                if type(exc) is not sqlite3.DatabaseError or attempt == 2:  # locked, unwritable
                    problem = f"{type(exc).__name__}: {exc}"
                    self._log(f"{what}: {problem}")
                    return problem
                # Not a database, or a malformed one: keep it for a person, start afresh.
                problem = f"{self.path.name} is damaged ({exc}): {self._move_aside()}"
                self._log(f"{what}: {problem}")
                if not write:
                    return problem
            except OSError as exc:  # the folder is gone or refuses writes
                self._log(f"{what}: {exc}")
                return str(exc)
        return "unreachable"  # pragma: no cover - the loop returns

    def _run(self, work: Callable[[sqlite3.Connection], None], *, write: bool) -> None:
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            use_wal(conn, BUSY_TIMEOUT_S)  # a change only when the file is made
            # No fsync: with one, the checkpoint as the last connection closes cost each
            # recording 2 ms more (2.4 against 0.5). A log, not notes: a power cut may lose
            # its last runs, or damage the file, which is then moved aside.
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                if _ready(conn, write=write):
                    work(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()

    def _move_aside(self) -> str:
        """Move the corrupt file (and its WAL) to ``usage.db.broken``; what happened."""
        try:
            for suffix in ("", "-wal", "-shm"):
                source = Path(f"{self.path}{suffix}")
                if source.exists():
                    source.replace(Path(f"{self.path}.broken{suffix}"))
        except OSError as exc:
            return f"it could not be moved aside ({exc})"
        return f"it was moved to {self.path.name}.broken and a new one started"

    def _log(self, message: str) -> None:
        """One line in ``logs/usage.log`` (one older file kept); never raises."""
        try:
            self.logs_dir.mkdir(parents=True, exist_ok=True)
            path = self.logs_dir / LOG_NAME
            try:
                if os.stat(path).st_size > LOG_MAX_BYTES:
                    path.replace(self.logs_dir / f"{LOG_NAME}.1")
            except FileNotFoundError:
                pass
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"{stamp} {message}\n")
        except OSError:
            pass  # a log that cannot be written: the recording was a bonus anyway


def _ready(conn: sqlite3.Connection, *, write: bool) -> bool:
    """Whether the file has this version's tables (made here by a writer, in its
    transaction); a file of a newer version is refused, never changed."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise sqlite3.OperationalError(
            f"usage.db is of a newer version ({version}) than this copy reads ({SCHEMA_VERSION})"
        )
    if version == 0 and write:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        return True
    return bool(version)


def _insert(conn: sqlite3.Connection, row: tuple[object, ...], notes: list[str]) -> None:
    cursor = conn.execute(
        "INSERT INTO runs(at, event, project, agent, session, notes) VALUES (?, ?, ?, ?, ?, ?)",
        row,
    )
    run = cursor.lastrowid
    assert run is not None
    event, session = row[1], row[4]
    uses = [
        (run, note, _searched_before(conn, session, note) if event == FETCHED else 0)
        for note in notes
    ]
    conn.executemany("INSERT INTO uses(run, note, after_search) VALUES (?, ?, ?)", uses)
    if run % PRUNE_EVERY == 0:
        _prune(conn, int(row[0]))  # type: ignore[call-overload]


def _searched_before(conn: sqlite3.Connection, session: object, note: str) -> int:
    """1 when a search of ``session`` returned ``note`` (a fetch "afterwards"), else 0."""
    if not session:
        return 0
    found = conn.execute(
        "SELECT 1 FROM runs JOIN uses ON uses.run = runs.id"
        " WHERE runs.session = ? AND runs.event = ? AND uses.note = ? LIMIT 1",
        (session, SEARCHED, note),
    ).fetchone()
    return 1 if found else 0


def _prune(conn: sqlite3.Connection, now: int) -> None:
    cutoff = now - KEEP_DAYS * DAY_S
    conn.execute("DELETE FROM uses WHERE run IN (SELECT id FROM runs WHERE at < ?)", (cutoff,))
    conn.execute("DELETE FROM runs WHERE at < ?", (cutoff,))
    last = conn.execute("SELECT MAX(id) FROM runs").fetchone()[0]
    if last is not None and last > MAX_RUNS:
        floor = last - MAX_RUNS
        conn.execute("DELETE FROM uses WHERE run <= ?", (floor,))
        conn.execute("DELETE FROM runs WHERE id <= ?", (floor,))


def _read(conn: sqlite3.Connection, since: int) -> UsageCounts:
    runs = {event: RunCount() for event in EVENTS}
    for event, count, found, notes in conn.execute(
        "SELECT event, COUNT(*), SUM(notes > 0), SUM(notes) FROM runs WHERE at >= ? GROUP BY event",
        (since,),
    ):
        if event in runs:
            runs[event] = RunCount(count, found or 0, notes or 0)
    uses: dict[str, NoteUse] = {}
    for note, event, count, last in conn.execute(
        "SELECT uses.note, runs.event, COUNT(*), MAX(runs.at) FROM uses"
        " JOIN runs ON runs.id = uses.run WHERE runs.at >= ? GROUP BY uses.note, runs.event",
        (since,),
    ):
        use = uses.setdefault(note, NoteUse(note, {}, 0))
        use.counts[event] = count
        use.last_used = max(use.last_used, last)
    followed = conn.execute(
        "SELECT COUNT(*) FROM uses JOIN runs ON runs.id = uses.run"
        " WHERE runs.at >= ? AND runs.event = ? AND uses.after_search = 1",
        (since, FETCHED),
    ).fetchone()[0]
    return UsageCounts(since, runs, uses, followed)
