"""The session hooks and dates: a note whose timestamp has no UTC form is left out and the
rest is shown; a note dated in the future (its machine's clock runs ahead) is as new as
when this store got it, never the newest for ever."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from anamnesis.ops import select_inject
from anamnesis.store import Memory, MemoryStore
from hooks_testing import checkout, run_hook

P = "github.com/acme/api"
FUTURE = "2999-01-01T00:00:00+00:00"
HOUR = 3600


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    return MemoryStore(isolated_home)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return checkout(tmp_path / "clone", "https://github.com/acme/api")


def session_start(work: Path) -> str:
    done = run_hook("inject", stdin={"hook_event_name": "SessionStart", "source": "startup",
                                     "session_id": "s1", "cwd": str(work)})  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stderr
    return done.stdout


def titles(output: str) -> list[str]:
    return re.findall(r"^## \[\w+\] (.*)$", output, flags=re.MULTILINE)


def from_fast_machine(store: MemoryStore, title: str, body: str = "b", **fields: object) -> Memory:
    """A note dated 2999 by a machine whose clock runs ahead, pulled here an hour ago."""
    fields = {"type": "semantic", **fields}
    note = store.write(title=title, body=body, project=P, machine_id="fast",
                       **fields)  # type: ignore[arg-type]  # fmt: skip
    note = store.put(note.replace(created_at=FUTURE, updated_at=FUTURE))
    then = time.time_ns() - HOUR * 1_000_000_000
    os.utime(store.path_of(note), ns=(then, then))
    return note


def test_session_start_leaves_out_a_poisoned_note_and_shows_the_rest(
    store: MemoryStore, work: Path
) -> None:
    store.write(type="procedural", title="Deploy", body="run make deploy", project=P)
    poisoned = store.memory_dir / "semantic" / "01JPQRST0000000000000000AB.md"
    poisoned.parent.mkdir(parents=True, exist_ok=True)
    poisoned.write_text(
        f"---\nid: 01JPQRST0000000000000000AB\ntype: semantic\ntitle: Poisoned\nproject: {P}\n"
        "updated_at: '9999-12-31T23:59:59-01:00'\n---\nfrom the year 10000\n"
    )
    store.close()
    assert titles(session_start(work)) == ["Deploy"]


def test_a_note_dated_ahead_does_not_stay_first_in_the_block(
    store: MemoryStore, work: Path
) -> None:
    from_fast_machine(store, "Dated 2999")
    store.write(type="semantic", title="Written since", body="b", project=P)
    assert [note.title for note in select_inject(store, project=P, k=1).project_notes] == [
        "Written since"
    ]
    store.close()
    assert titles(session_start(work)) == ["Written since", "Dated 2999"]


def test_when_the_block_is_full_a_note_dated_ahead_is_left_out_as_the_older_one(
    store: MemoryStore,
) -> None:
    long_body = "word " * 400
    # An episode: the block's own newest-first order, not the listing's, decides its place.
    from_fast_machine(store, "Dated 2999", body=long_body, type="episodic")
    for number in range(5):
        store.write(type="semantic", title=f"Written since {number}", body=long_body, project=P)
    selection = select_inject(store, project=P, budget=2000)
    shown = [note.title for note in selection.project_notes]
    assert 0 < len(shown) < 6 and selection.left_out == 6 - len(shown)
    assert "Dated 2999" not in shown


def test_prompt_recall_breaks_a_tie_for_the_note_really_newer(
    store: MemoryStore, work: Path
) -> None:
    body = "The postgres connection pool is exhausted when the workers start."
    from_fast_machine(store, "Pool 9", body=body)  # titles of one length: an exact tie
    for number in range(3):
        store.write(type="semantic", title=f"Pool {number}", body=body, project=P)
    store.close()
    ask = "why is the postgres connection pool exhausted when the workers start?"
    done = run_hook("prompt", stdin={"hook_event_name": "UserPromptSubmit", "session_id": "s",
                                     "cwd": str(work), "prompt": ask})  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = titles(done.stdout)
    assert len(shown) == 3 and "Pool 9" not in shown, shown
