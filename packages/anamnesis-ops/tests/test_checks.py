"""Doctor's checks of a home: the table, each check fail-safe, and what each one finds."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from anamnesis_testsupport.repos import bare_remote

from anamnesis.ops import (
    FAIL,
    OK,
    WARN,
    Check,
    Home,
    home_check_table,
    home_checks,
    open_conflicts,
    run_check_table,
    run_sync,
)
from anamnesis.store import MemoryStore

NAMES = ["store", "index", "clock", "remote", "sync"]


def test_a_home_is_checked_in_doctors_order(tmp_path: Path) -> None:
    home = Home(tmp_path / "home", machine_id="laptop", remote=None)
    with home.open_store() as store:
        store.write(type="semantic", title="t", body="b")
    checks = home_checks(home, offline=True)
    assert [check.name for check in checks] == NAMES
    by_name = {check.name: check for check in checks}
    assert (
        by_name["store"].status == OK
        and "1 portable and 0 machine-local" in by_name["store"].detail
    )
    assert by_name["index"] == Check("index", OK, "1 notes indexed")
    assert by_name["remote"] == Check("remote", OK, "none (not contacted)")
    assert by_name["sync"].status == WARN  # never synced: `anamnesis sync` makes the repo
    assert list(home_check_table(offline=False)) == NAMES


def test_a_missing_store_is_a_finding_with_its_fix(tmp_path: Path) -> None:
    checks = {c.name: c for c in home_checks(Home(tmp_path / "nowhere"), offline=True)}
    assert checks["store"].status == FAIL and checks["store"].fix == "run `anamnesis init`"
    assert checks["index"].status == FAIL and checks["sync"].status == WARN


def test_a_check_that_raises_is_a_fail_finding_under_its_table_name(tmp_path: Path) -> None:
    def broken(home: Home) -> Check:
        raise OSError("the disk went away")

    home = Home(tmp_path / "home", machine_id="laptop", remote=None)
    checks = run_check_table(home, [("broken", broken), ("clock", home_check_table(
        offline=True)["clock"])])  # fmt: skip
    assert checks[0] == Check("broken", FAIL, "the check itself failed: the disk went away")
    assert checks[1].name == "clock"  # the rest still ran


@contextmanager
def edited_on_both(tmp_path: Path, **here: str) -> Iterator[tuple[Home, MemoryStore, str, bool]]:
    """laptop's home and store once desktop changed a note's body and laptop changed the
    note too (``here``), then synced; the note's id, and whether that sync conflicted."""
    remote = bare_remote(tmp_path / "remote.git")
    laptop = Home(tmp_path / "laptop", machine_id="laptop", remote=str(remote))
    desktop = Home(tmp_path / "desktop", machine_id="desktop", remote=str(remote))
    with laptop.open_store() as mine, desktop.open_store() as theirs:
        note = mine.write(type="semantic", title="Deploy", body="on Tuesdays")
        run_sync(laptop, mine)
        run_sync(desktop, theirs)
        theirs.update(note.id, body="on Wednesdays")
        run_sync(desktop, theirs)
        mine.update(note.id, **here)
        yield laptop, mine, note.id, run_sync(laptop, mine).result.conflicted


def test_notes_kept_both_ways_are_named_until_one_is_chosen(tmp_path: Path) -> None:
    with edited_on_both(tmp_path, body="on Thursdays") as (laptop, mine, note_id, conflicted):
        assert conflicted
        sync = {c.name: c for c in home_checks(laptop, offline=True)}["sync"]
        assert sync.status == FAIL and "unresolved conflicts" in sync.detail
        run_sync(laptop, mine, resolve="keep-both")
        pairs = open_conflicts(mine)
    assert sorted(other for _note, others in pairs for other in others) == sorted(
        note.id for note, _others in pairs
    )  # each names the other
    sync = {c.name: c for c in home_checks(laptop, offline=True)}["sync"]
    assert sync.status == WARN and note_id in sync.detail and "kept both ways" in sync.detail


def test_a_version_past_its_valid_until_is_still_named_until_one_is_chosen(
    tmp_path: Path,
) -> None:
    # Here the note no longer holds at all; there it was edited: both kept, both named.
    with edited_on_both(tmp_path, valid_until="2020-01-31") as (laptop, mine, _id, conflicted):
        assert conflicted
        run_sync(laptop, mine, resolve="keep-both")
        pairs = open_conflicts(mine)
        expired = [n.id for n in mine.list(tag="conflict") if n.valid_until]
    assert len(pairs) == 2 and len(expired) == 1
    assert expired[0] in {note.id for note, _others in pairs}


@pytest.fixture
def silent_remote() -> Iterator[str]:
    """An HTTP remote that accepts connections and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:  # closed: the test is over
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/memory.git"
    server.close()
    for connection in held:
        connection.close()


def test_doctor_gives_up_on_a_silent_remote_within_its_own_bound(
    tmp_path: Path, silent_remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anamnesis.ops.checks import sync_checks

    home = Home(tmp_path / "home", machine_id="laptop", remote=silent_remote)
    home.open_store().close()
    monkeypatch.setattr(sync_checks, "REMOTE_TIMEOUT_S", 1.0)
    started = time.monotonic()
    checks = {c.name: c for c in home_checks(home, offline=False)}
    # Without the doctor's bound, the transport's own 30 s default would apply.
    assert time.monotonic() - started < 10
    assert checks["remote"].status == FAIL
    assert "127.0.0.1" in checks["remote"].detail
