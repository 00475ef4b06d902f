"""Dates no command may trip on: a note whose timestamp has no UTC form is a broken note on
every machine (reported by status and doctor, skipped by everything else, carried by sync),
and a note dated in the future is named by the doctor with the machine that wrote it."""

from __future__ import annotations

import json
from pathlib import Path

from cli_testing import Env, Result, bare_remote

POISON_ID = "01JPQRST0000000000000000AB"
# In the year 10000 once converted to UTC: Python's datetime cannot hold it.
FAR = "9999-12-31T23:59:59-01:00"


def poison(home: Path, stamp: str = FAR) -> Path:
    path = home / "memory" / "semantic" / f"{POISON_ID}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nid: {POISON_ID}\ntype: semantic\ntitle: poisoned hello\n"
        f"updated_at: '{stamp}'\n---\nhello from a clock past the year 9999\n"
    )
    return path


def assert_clean(result: Result) -> None:
    text = f"{result.out}{result.err}"
    assert "unexpected error" not in text and "Traceback" not in text, text


def test_a_poisoned_note_fails_no_command(env: Env, tmp_path: Path) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    good = env.run("write", "--title", "good hello", "hello world", "--json").json()["id"]
    path = poison(env.home)
    found = env.run_process("search", "hello", "--json")
    assert found.code == 0, found.err
    assert [hit["id"] for hit in found.json()] == [good]
    listed = env.run_process("list", "--json")
    assert [note["id"] for note in listed.json()] == [good]
    status = env.run_process("status", "--json")
    assert status.code == 0, status.err
    (problem,) = status.json()["problems"]
    assert problem["path"] == str(path) and problem["reason"].startswith("updated_at:")
    reindexed = env.run_process("reindex")
    assert reindexed.code == 0 and str(path) in reindexed.err, reindexed.err
    doctor = env.run_process("doctor", "--offline", "--json")
    assert_clean(doctor)
    checks = {check["name"]: check for check in doctor.json()["checks"]}
    assert not [c for c in checks.values() if "the check itself failed" in c["detail"]], checks
    assert checks["index"]["status"] == "warn" and str(path) in checks["index"]["detail"]
    assert checks["sync"]["status"] == "ok"
    block = env.run_process("inject", "--cwd", str(tmp_path), stdin="{}")
    assert block.code == 0 and "good hello" in block.out and "poisoned" not in block.out
    for result in (found, listed, status, reindexed, block):
        assert_clean(result)


def test_an_import_names_the_poisoned_record_and_imports_the_rest(env: Env, tmp_path: Path) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    records = [
        {"id": POISON_ID, "type": "semantic", "title": "poisoned", "body": "b",
         "updated_at": FAR},
        {"id": "01JPQRST0000000000000000AC", "type": "semantic", "title": "fine", "body": "b",
         "updated_at": "2026-01-02T03:04:05+00:00"},
    ]  # fmt: skip
    source = tmp_path / "notes.jsonl"
    source.write_text("".join(json.dumps(record) + "\n" for record in records))
    done = env.run_process("import", "jsonl", str(source), "--apply")
    assert done.code == 0, done.err
    assert_clean(done)
    assert "line 1" in done.out + done.err and "updated_at" in done.out + done.err
    titles = [note["title"] for note in env.run_process("list", "--json").json()]
    assert titles == ["fine"]


def test_a_sync_pulls_a_poisoned_note_completes_and_reports_it(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    laptop, desktop = Env.make(tmp_path, "laptop"), Env.make(tmp_path, "desktop")
    for machine in (laptop, desktop):
        assert machine.run("init", "--yes", "--remote", str(remote)).code == 0
    good = laptop.run("write", "--title", "good hello", "hello world", "--json").json()["id"]
    path = poison(laptop.home)
    pushed = laptop.run_process("sync", "--json")
    assert pushed.code == 0, pushed.err
    assert pushed.json()["pushed"] is True
    pulled = desktop.run_process("sync", "--json")
    assert pulled.code == 0, pulled.err
    assert_clean(pulled)
    mirrored = desktop.home / path.relative_to(laptop.home)
    assert mirrored.read_bytes() == path.read_bytes()  # carried as it is, never dropped
    problems = desktop.run_process("status", "--json").json()["problems"]
    assert [(p["path"], p["reason"].split(":")[0]) for p in problems] == [
        (str(mirrored), "updated_at")
    ]
    hits = desktop.run_process("search", "hello", "--json").json()
    assert [hit["id"] for hit in hits] == [good]
    again = desktop.run_process("sync", "--json")  # the next sync is as clean
    assert again.code == 0, again.err


def test_doctor_names_the_notes_dated_in_the_future_and_their_machine(
    env: Env, tmp_path: Path
) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    env.run("write", "--title", "on time", "written now")
    records = [
        {"id": "01JPQRST0000000000000000AC", "type": "semantic", "title": "ahead",
         "body": "b", "machine_id": "fast-laptop", "updated_at": "2999-01-01T00:00:00+00:00"},
        # A minute ahead is ordinary skew, not worth a warning.
        {"id": "01JPQRST0000000000000000AD", "type": "semantic", "title": "a minute ahead",
         "body": "b", "machine_id": "desktop", "updated_at": _in_a_minute()},
    ]  # fmt: skip
    source = tmp_path / "notes.jsonl"
    source.write_text("".join(json.dumps(record) + "\n" for record in records))
    assert env.run("import", "jsonl", str(source), "--apply").code == 0
    doctor = env.run_process("doctor", "--offline", "--json")
    (clock,) = [check for check in doctor.json()["checks"] if check["name"] == "clock"]
    assert clock["status"] == "warn", clock
    assert "01JPQRST0000000000000000AC (2999-01-01)" in clock["detail"]
    assert "fast-laptop" in clock["detail"] and "fast-laptop" in clock["fix"]
    assert "desktop" not in clock["detail"] + clock["fix"]
    human = env.run_process("doctor", "--offline")
    assert "[warn] clock" in human.out and "fix: set the clock right on fast-laptop" in human.out


def test_doctor_passes_a_store_whose_dates_are_sane(env: Env) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    env.run("write", "--title", "on time", "written now")
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    assert checks["clock"]["status"] == "ok"


def _in_a_minute() -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) + timedelta(minutes=1)).isoformat(timespec="seconds")
