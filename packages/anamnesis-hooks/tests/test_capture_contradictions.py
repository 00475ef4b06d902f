"""A captured session's note that may contradict a live note: capture has no one to reply
to, so the worker that files it says so in the hooks' log (never on stdout), and
`anamnesis review` lists the pair like any other."""

from __future__ import annotations

import json
from pathlib import Path

from anamnesis.hooks.capture_queue import file_queued
from anamnesis.store import MemoryStore

PROJECT = "github.com/acme/web"
ENTRY = {
    "session_id": "s1", "started_at": "2026-03-01T10:00:00Z", "source": "session-end",
    "project": PROJECT, "title": "Dev server port",
    "body": "The dev server listens on port 5173.", "model": "",
    "captured_at": "2026-03-01T11:00:00+00:00", "transcript": "/w/s1.jsonl", "truncated": False,
    "agent": "claude-code",
}  # fmt: skip


def queue(home: Path, name: str, **changes: str) -> None:
    folder = home / "queue" / "captures"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}-1-aaaaaa.json").write_text(json.dumps({**ENTRY, **changes}))


def hooks_log(home: Path) -> str:
    path = home / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


def test_the_worker_logs_the_notes_a_captured_session_may_contradict(
    isolated_home: Path,
) -> None:
    with MemoryStore(isolated_home) as store:
        durable = store.write(type="semantic", title="Dev server port", project=PROJECT,
                              body="The dev server listens on port 3000.")  # fmt: skip
        queue(isolated_home, "00000000000000000001")
        assert file_queued(store, machine_id="laptop", tried=set())
        (episode,) = store.list(type="episodic")
        pairs = [set(pair.ids) for pair in store.contradictions(project=PROJECT)]
    assert pairs == [{durable.id, episode.id}]  # review lists it too
    log = hooks_log(isolated_home)
    (line,) = [line for line in log.splitlines() if "may contradict" in line]
    assert f" capture: {episode.id} may contradict {durable.id} (Dev server port): " in line
    assert (
        "3000 -> 5173" in line or "5173 -> 3000" in line
    ) and "`anamnesis review` lists it" in line


def test_an_unchanged_capture_and_a_note_without_a_pair_log_nothing_of_it(
    isolated_home: Path,
) -> None:
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title="Backups", project=PROJECT, body="Nightly at 02:00.")
        queue(isolated_home, "00000000000000000001")
        assert file_queued(store, machine_id="laptop", tried=set())
        queue(isolated_home, "00000000000000000002")  # the same capture again: unchanged
        assert file_queued(store, machine_id="laptop", tried=set())
    log = hooks_log(isolated_home)
    assert "unchanged" in log and "may contradict" not in log
