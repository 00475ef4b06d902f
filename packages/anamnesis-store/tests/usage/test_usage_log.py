"""The usage log: one real SQLite file beside the note trees, written by several processes
at once, failing open when it is locked, corrupt or unwritable, and bounded."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from anamnesis.store import USAGE_EVENTS, MemoryStore, UsageLog, new_id
from anamnesis.store.usage import usage_log

DAY = 86_400


def ids(count: int) -> list[str]:
    return [new_id() for _ in range(count)]


def log_lines(store: MemoryStore) -> list[str]:
    path = store.layout.logs_dir / usage_log.LOG_NAME
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_each_event_is_counted_by_run_and_by_note(store: MemoryStore) -> None:
    a, b, c = ids(3)
    usage = store.usage
    assert usage.record("injected", [a, b], project="api", agent="claude-code", session="s1")
    assert usage.record("recalled", [], project="api", session="s1")  # a prompt, nothing found
    assert usage.record("recalled", [a], project="api", session="s1")
    assert usage.record("searched", [b, c], project="api", session="m1")
    assert usage.record("fetched", [c], project="api", session="m1")

    counts = usage.counts(30)
    assert counts.problem == ""
    assert counts.runs["injected"].to_dict() == {"runs": 1, "found": 1, "notes": 2, "rate": 1.0}
    assert counts.runs["recalled"].to_dict() == {"runs": 2, "found": 1, "notes": 1, "rate": 0.5}
    assert counts.runs["searched"].notes == 2 and counts.runs["fetched"].runs == 1
    assert counts.notes[a].counts == {"injected": 1, "recalled": 1}
    assert counts.notes[c].counts == {"searched": 1, "fetched": 1}
    assert usage.recall_hit_rate(30) == 0.5
    assert [use.id for use in usage.most_used(30, limit=1)] in ([a], [b], [c])
    assert {use.total for use in usage.most_used(30)} == {2}
    assert usage.used_ids(30) == {a, b, c}
    assert set(counts.runs) == set(USAGE_EVENTS)


def test_a_fetch_after_a_search_of_the_same_session_is_told_apart(store: MemoryStore) -> None:
    found, other = ids(2)
    usage = store.usage
    usage.record("searched", [found], session="m1")
    usage.record("fetched", [found], session="m1")  # afterwards, in the search's session
    usage.record("fetched", [found], session="m2")  # another session: not after its search
    usage.record("fetched", [other], session="m1")  # never returned by a search
    usage.record("fetched", [found])  # no session known: cannot say
    assert usage.counts(30).fetched_after_search == 1


def test_most_used_ranks_by_uses_then_by_the_latest_use(store: MemoryStore) -> None:
    often, lately, once = ids(3)
    now = time.time()
    usage = store.usage
    for day in (5, 4, 3):
        usage.record("injected", [often], now=now - day * DAY)
    usage.record("injected", [lately], now=now - 10 * DAY)
    usage.record("searched", [lately, once], now=now - DAY)
    usage.record("recalled", [once], now=now - 2 * DAY)
    ranked = usage.most_used(30)
    assert [use.id for use in ranked] == [often, lately, once]
    assert ranked[0].total == 3
    assert usage.most_used(30, limit=1)[0].id == often
    assert usage.counts(3.5, now=now).notes.keys() == {often, lately, once}
    assert often not in usage.counts(2.5, now=now).notes  # the window is the last days only


def test_what_is_no_note_id_is_not_recorded_and_an_unknown_event_is_an_error(
    store: MemoryStore,
) -> None:
    (good,) = ids(1)
    assert store.usage.record("searched", [good, "../../etc/passwd", "01abc", good])
    assert store.usage.counts().notes.keys() == {good}
    assert store.usage.counts().runs["searched"].notes == 1
    with pytest.raises(ValueError, match="unknown usage event 'shown'"):
        store.usage.record("shown", [good])


def test_the_file_is_beside_the_trees_and_outlives_the_index(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="Pool size", body="20 connections")
    store.usage.record("injected", [note.id], project="global")
    path = store.layout.usage_path
    assert path.parent == store.root
    assert store.memory_dir not in path.parents and store.local_dir not in path.parents
    assert path != store.db_path

    store.reindex()
    store.close()
    store.db_path.unlink()  # the index is derived: dropped at will
    with MemoryStore(store.root) as reopened:
        assert reopened.search("pool size")  # rebuilt
        assert reopened.usage.counts().notes[note.id].counts == {"injected": 1}


def test_reading_a_log_never_written_makes_no_file(store: MemoryStore) -> None:
    counts = store.usage.counts(30)
    assert counts.notes == {} and counts.runs["recalled"].runs == 0 and counts.problem == ""
    assert store.usage.recall_hit_rate() is None
    assert not store.layout.usage_path.exists()


# A recorder process: for each line "<file> <runs>" on stdin it records that many runs
# into that file (in the store's folder), then answers how many it dropped so far.
RECORDER = """
import sys
from pathlib import Path
from anamnesis.store import UsageLog
folder, logs, ids = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
failed = 0
for line in sys.stdin:
    name, runs = line.split()
    log = UsageLog(folder / name, logs)
    failed += sum(not log.record("injected", ids) for _ in range(int(runs)))
    print(failed, flush=True)
"""


def record_at_once(store: MemoryStore, notes: list[str], processes: int, rounds: list[str]) -> None:
    """``processes`` recorders, told each round (a line of :data:`RECORDER`) at the same
    moment and waited for by all before the next; asserts none dropped a run."""
    command = [sys.executable, "-c", RECORDER, str(store.root), str(store.layout.logs_dir)]
    workers = [
        subprocess.Popen(
            [*command, *notes], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(processes)
    ]
    failed = [0] * processes
    try:
        for line in rounds:
            for worker in workers:
                assert worker.stdin is not None
                worker.stdin.write(f"{line}\n")
                worker.stdin.flush()
            failed = [int(worker.stdout.readline()) for worker in workers if worker.stdout]
    finally:
        for worker in workers:
            if worker.stdin:
                worker.stdin.close()
            worker.wait(timeout=60)
    assert failed == [0] * processes, log_lines(store)


def test_two_processes_recording_at_once_lose_nothing(store: MemoryStore) -> None:
    notes = ids(4)
    record_at_once(store, notes, 2, [f"{store.layout.usage_path.name} 150"])
    counts = store.usage.counts()
    assert counts.runs["injected"].runs == 300
    assert all(counts.notes[note].counts == {"injected": 300} for note in notes)


def test_processes_making_a_new_file_at_once_lose_nothing(store: MemoryStore) -> None:
    # The first recording into a file makes it and puts it in WAL mode, which SQLite
    # refuses at once, whatever the busy timeout, to a second process doing the same at
    # that moment (sqlite_wal.py). About one round in a hundred meets that race.
    notes = ids(2)
    record_at_once(store, notes, 3, [f"usage-{n}.db 1" for n in range(150)])
    for n in range(150):
        log = UsageLog(store.root / f"usage-{n}.db", store.layout.logs_dir)
        assert log.counts().runs["injected"].runs == 3, n


def test_a_locked_file_drops_the_recording_and_says_so(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    (note,) = ids(1)
    assert store.usage.record("injected", [note])
    monkeypatch.setattr(usage_log, "BUSY_TIMEOUT_S", 0.05)
    holder = sqlite3.connect(store.layout.usage_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process mid-write, and stuck
        assert store.usage.record("recalled", [note]) is False
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert any("record recalled: OperationalError: database is locked" in line
               for line in log_lines(store))  # fmt: skip
    assert store.usage.counts().runs["recalled"].runs == 0
    assert store.usage.record("recalled", [note])  # the lock gone, it records again


@pytest.mark.parametrize(
    "garbage", [b"not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000]
)
def test_a_corrupt_file_is_moved_aside_and_a_fresh_one_started(
    store: MemoryStore, garbage: bytes
) -> None:
    path = store.layout.usage_path
    path.write_bytes(garbage)
    (note,) = ids(1)
    assert store.usage.record("searched", [note])  # this run is kept, in a fresh file
    assert store.usage.counts().notes[note].counts == {"searched": 1}
    broken = path.with_name("usage.db.broken")
    assert broken.read_bytes() == garbage  # kept for a person, never deleted
    assert any("moved to usage.db.broken" in line for line in log_lines(store))


def test_a_corrupt_file_read_gives_empty_counts_saying_why(store: MemoryStore) -> None:
    store.layout.usage_path.write_bytes(b"garbage" * 1000)
    counts = store.usage.counts(30)
    assert counts.notes == {}
    assert counts.problem.startswith("the usage log could not be read: usage.db is damaged")
    assert "moved to usage.db.broken" in counts.problem
    assert store.layout.usage_path.with_name("usage.db.broken").exists()
    assert not store.layout.usage_path.exists()  # a read makes no file: the next record does


def test_an_unwritable_home_drops_the_recording(
    tmp_path: Path, make_unwritable: Callable[[Path], None]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    log = UsageLog(home / "usage.db", tmp_path / "logs")
    make_unwritable(home)
    assert log.record("injected", ids(2)) is False
    assert "record injected" in (tmp_path / "logs" / "usage.log").read_text()


def test_a_file_of_a_newer_version_is_left_alone(store: MemoryStore) -> None:
    (note,) = ids(1)
    store.usage.record("injected", [note])
    with sqlite3.connect(store.layout.usage_path) as conn:
        conn.execute(f"PRAGMA user_version = {usage_log.SCHEMA_VERSION + 1}")
    assert store.usage.record("injected", [note]) is False
    assert any("newer version" in line for line in log_lines(store))
    assert not store.layout.usage_path.with_name("usage.db.broken").exists()


def test_old_runs_are_pruned_and_the_runs_kept_are_capped(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, recent = ids(2)
    now = time.time()
    usage = store.usage
    usage.record("injected", [old], now=now - (usage_log.KEEP_DAYS + 1) * DAY)
    usage.record("injected", [recent], now=now - (usage_log.KEEP_DAYS - 1) * DAY)
    assert usage.prune(now=now)
    assert usage.counts().notes.keys() == {recent}
    with sqlite3.connect(store.layout.usage_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM uses").fetchone()[0] == 1

    monkeypatch.setattr(usage_log, "MAX_RUNS", 5)
    monkeypatch.setattr(usage_log, "PRUNE_EVERY", 4)  # recording prunes on its own
    for _ in range(12):
        usage.record("recalled", [recent], now=now)
    with sqlite3.connect(store.layout.usage_path) as conn:
        runs = conn.execute("SELECT COUNT(*), MAX(id) FROM runs").fetchone()
        orphans = conn.execute(
            "SELECT COUNT(*) FROM uses WHERE run NOT IN (SELECT id FROM runs)"
        ).fetchone()[0]
    assert runs[0] <= 5 + 4 and runs[1] == 14  # at most the cap, plus what came since
    assert orphans == 0


def test_the_uses_of_some_notes_by_some_events_in_a_window(store: MemoryStore) -> None:
    a, b, c = ids(3)
    now = time.time()
    usage = store.usage
    usage.record("fetched", [a, b], now=now - DAY)
    usage.record("recalled", [a], now=now - 2 * DAY)
    usage.record("injected", [a, b, c], now=now)
    usage.record("fetched", [c], now=now - 100 * DAY)  # before the window
    counted = ("recalled", "fetched")
    assert usage.uses_of([a, b, c, "nonsense"], days=90, events=counted) == {a: 2, b: 1}
    assert usage.uses_of([a, b, c], days=90) == {a: 3, b: 2, c: 1}
    assert usage.uses_of([c], days=200, events=counted) == {c: 1}
    assert usage.uses_of([], days=90) == {}
