"""Whatever goes wrong, a hook exits 0, prints nothing harmful, and says why in the log."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from anamnesis_testsupport import TRANSCRIPTS

from anamnesis.hooks.failopen import LOG_BACKUPS, LOG_MAX_BYTES, log
from anamnesis.store import MemoryStore, write_config
from hooks_testing import captures_filed, hook_command, run_hook, transcript, user

needs_fixtures = pytest.mark.skipif(not TRANSCRIPTS.is_dir(), reason="../shared fixtures absent")


def logged(home: Path) -> str:
    path = home / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


def assert_quiet_success(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("hook", ["inject", "capture", "sync"])
def test_no_store_yet(hook: str, isolated_home: Path, tmp_path: Path) -> None:
    done = run_hook(
        hook, stdin={"cwd": str(tmp_path), "transcript_path": str(tmp_path / "none.jsonl")}
    )
    assert_quiet_success(done)
    if hook == "sync":
        assert "no remote configured" in done.stdout
    else:
        assert done.stdout == ""  # nothing injected into the session


def test_a_corrupt_index_is_rebuilt_and_inject_still_works(
    isolated_home: Path, tmp_path: Path
) -> None:
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title="Survives corruption", body="b", project="global")
    for suffix in ("-wal", "-shm"):
        Path(f"{isolated_home / 'index.db'}{suffix}").unlink(missing_ok=True)
    (isolated_home / "index.db").write_bytes(b"garbage" * 500)
    done = run_hook("inject", stdin={"cwd": str(tmp_path)})
    assert_quiet_success(done)
    assert "Survives corruption" in done.stdout


def test_an_unreadable_transcript_is_logged(isolated_home: Path, tmp_path: Path) -> None:
    done = run_hook(
        "capture", "--no-sync", stdin={"transcript_path": str(tmp_path / "missing.jsonl")}
    )
    assert_quiet_success(done)
    assert "cannot read transcript" in logged(isolated_home)


def test_invalid_stdin_is_treated_as_empty(isolated_home: Path) -> None:
    done = run_hook("capture", "--no-sync", stdin="{this is not json")
    assert_quiet_success(done)
    assert "no transcript_path" in logged(isolated_home)


def test_a_bad_command_line_never_blocks_claude_code(isolated_home: Path) -> None:
    bad: list[tuple[str, ...]] = [
        ("inject", "--format", "xml"), ("capture", "--bogus"), ("nonsense",), (),
        ("inject", "--budget", "500"), ("inject", "--budget", "20000"), ("inject", "--k", "x"),
    ]  # fmt: skip
    for args in bad:
        done = run_hook(*args)
        assert (done.returncode, done.stdout) == (0, ""), args
        assert done.stderr  # the mistake is visible to whoever runs it by hand
        assert "Traceback" not in done.stderr
    assert "--budget must be from 2000 to 10000, got 500" in logged(isolated_home)
    assert logged(isolated_home).count("\n") >= len(bad)


def test_a_remote_that_is_down_is_logged(isolated_home: Path, tmp_path: Path) -> None:
    write_config({"machine_id": "laptop", "remote": str(tmp_path / "gone.git")}, isolated_home)
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title="t", body="b")
    done = run_hook("sync", "--quiet")
    assert_quiet_success(done)
    assert "cannot fetch from remote" in logged(isolated_home)


@needs_fixtures
def test_a_full_disk_or_read_only_store_is_logged(
    isolated_home: Path, tmp_path: Path, make_unwritable: Callable[[Path], None]
) -> None:
    MemoryStore(isolated_home).close()
    (isolated_home / "memory" / "episodic").mkdir()
    make_unwritable(isolated_home / "memory" / "episodic")
    done = run_hook("capture", "--no-sync", stdin={
        "session_id": "s", "cwd": str(tmp_path),
        "transcript_path": str(TRANSCRIPTS / "DRMacIver__hello-world-script.jsonl"),
    })  # fmt: skip
    assert_quiet_success(done)
    deadline = time.monotonic() + 60  # the background worker files the capture, and fails
    while "cannot write" not in logged(isolated_home):
        assert time.monotonic() < deadline, logged(isolated_home)
        time.sleep(0.05)
    assert "kept for the next sync or capture" in logged(isolated_home)


def test_even_an_unwritable_log_does_not_break_the_hook(
    isolated_home: Path, tmp_path: Path, make_unwritable: Callable[[Path], None]
) -> None:
    isolated_home.mkdir(parents=True)
    make_unwritable(isolated_home)
    done = run_hook(
        "capture", "--no-sync", stdin={"transcript_path": str(tmp_path / "missing.jsonl")}
    )
    assert done.returncode == 0
    assert "anamnesis capture" in done.stderr  # the last resort: one line on stderr


def test_stdin_left_open_does_not_hang_the_hook(isolated_home: Path, tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", [user("real work: fix the parser please")])
    process = subprocess.Popen(
        [*hook_command(), "capture", "--no-sync"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=dict(os.environ),
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(f'{{"transcript_path": "{path}", "session_id": "open"}}'.encode())
    process.stdin.flush()  # ... and never closed, as Claude Code has been seen to do
    started = time.monotonic()
    try:
        assert process.wait(timeout=30) == 0
    finally:
        process.stdin.close()
    assert time.monotonic() - started < 10
    captures_filed()
    with MemoryStore(isolated_home) as store:
        assert [m.prov_session for m in store.list()] == ["open"]


def test_the_log_rotates(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for _ in range(3):
        (home / "logs").mkdir(parents=True, exist_ok=True)
        with (home / "logs" / "hooks.log").open("a") as handle:
            handle.write("x" * LOG_MAX_BYTES)
        log(home, "test", "after a big log")
    names = sorted(p.name for p in (home / "logs").iterdir())
    assert (
        names == ["hooks.log", *(f"hooks.log.{i}" for i in range(1, LOG_BACKUPS + 1))][: len(names)]
    )
    assert (home / "logs" / "hooks.log").stat().st_size < LOG_MAX_BYTES
    assert "after a big log" in (home / "logs" / "hooks.log").read_text()
