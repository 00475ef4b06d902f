"""Notes get their vectors from a background process: `write`, `sync` and a search that
finds notes without vectors start it, one at a time per store, and `status` and `doctor`
show the notes still waiting and the process at work on them.

Real processes and the real (offline) model: skipped where the vectors extra, a sqlite3
that loads extensions or the model in ../shared is missing. A test that starts the
embedder waits for it to end (its pid gone, the backlog at zero) before the store's folder
is removed; nothing is timed (the deadline only keeps a broken run from hanging).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from anamnesis_testsupport import OFFLINE_MODEL, vectors_unavailable_reason

from anamnesis.ops import embedder_pid, start_background_embedding
from anamnesis.store import MemoryStore, StoreLayout
from anamnesis.sync import sync_lock
from cli_testing import Env, machines

REASON = vectors_unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
# Only so that a broken run fails instead of hanging: no assertion is about time.
DEADLINE_S = 600


@pytest.fixture
def vectors_on(env: Env, monkeypatch: pytest.MonkeyPatch) -> Env:
    """The store's default search (hybrid) and the offline model, in the commands `env`
    runs and in this process (the stores the tests open)."""
    env.use_vectors(OFFLINE_MODEL)
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))
    return env


def seed(home: Path, count: int) -> None:
    """Notes written as a library would: no embedder started, none embedded."""
    with MemoryStore(home) as store:
        for n in range(count):
            store.write(type="semantic", title=f"tmux layout {n}", body=f"restore panes {n}")


def backlog(home: Path) -> int:
    with MemoryStore(home) as store:
        return store.embedding_backlog()


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, ended but not reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_until_embedded(env: Env, pid: int) -> None:
    """Until the embedder ``pid`` has ended; then nothing waits for vectors (as `env`'s
    own settings see the store)."""
    deadline = time.monotonic() + DEADLINE_S
    while alive(pid):
        assert time.monotonic() < deadline, f"embedder {pid} still running"
        time.sleep(0.2)
    vectors = env.run("status", "--json").json()["vectors"]
    assert vectors["available"] and vectors["pending"] == vectors["partial"] == 0


def embedders(home: Path) -> list[int]:
    """The embedder processes of this store running now (their command lines name it)."""
    wanted = ["-m", "anamnesis.ops.background_embedding", str(home)]
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
        except (OSError, ValueError):  # not a process, or one that ended meanwhile
            continue
        if argv[1:4] == wanted and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def pid_in(text: str) -> int:
    return int(text.rpartition("(pid ")[2].partition(")")[0])


@contextmanager
def held_lock(home: Path) -> Iterator[None]:
    """This process as the store's embedder, as far as anyone can tell."""
    with sync_lock(StoreLayout(home).embedding_lock, wait_s=0):
        yield


def run_embedder(env: Env) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "anamnesis.ops.background_embedding", str(env.home)],
        capture_output=True,
        env=env.environment(),
        timeout=DEADLINE_S,
        check=False,
    )


def test_the_embedder_embeds_every_waiting_note_then_leaves(vectors_on: Env) -> None:
    env = vectors_on
    seed(env.home, 12)
    before = env.run("status", "--json").json()["vectors"]
    assert (before["embedded"], before["pending"], before["embedding_pid"]) == (0, 12, None)
    ran = run_embedder(env)
    assert ran.returncode == 0, ran.stderr.decode()
    assert backlog(env.home) == 0
    after = env.run("status").out
    assert "12 embedded" in after and "waiting" not in after
    assert embedder_pid(StoreLayout(env.home)) is None  # it let go of the lock


def test_one_embedder_at_a_time_and_status_and_doctor_name_it(vectors_on: Env) -> None:
    env = vectors_on
    seed(env.home, 3)
    with held_lock(env.home):
        status = env.run("status")
        assert "0 embedded, 3 notes waiting to be embedded; embedding in the background " \
            f"(pid {os.getpid()})" in status.out  # fmt: skip
        doctor = env.run("doctor", "--offline", "--json").json()
        check = next(c for c in doctor["checks"] if c["name"] == "vectors")
        assert check["status"] == "warn"
        assert check["detail"].startswith(
            f"3 notes waiting to be embedded; embedding in the background (pid {os.getpid()}); "
        )
        assert check["fix"] == ""  # under way: nothing to do
        with MemoryStore(env.home) as store:
            found = start_background_embedding(store)  # what `write` and `sync` call
        assert found is not None and (found.pid, found.waiting) == (os.getpid(), 3)
        second = run_embedder(env)  # started all the same: finds the lock held, leaves
        assert second.returncode == 0 and backlog(env.home) == 3
    quiet = env.run("status").out
    assert "3 notes waiting to be embedded; nothing is embedding them now" in quiet
    doctor = env.run("doctor", "--offline", "--json").json()
    check = next(c for c in doctor["checks"] if c["name"] == "vectors")
    assert check["status"] == "warn" and "nothing is embedding them now" in check["detail"]
    assert "`anamnesis reindex` embeds them now" in check["fix"]


def test_write_starts_the_embedder_and_the_note_is_found_by_meaning(vectors_on: Env) -> None:
    env = vectors_on
    seed(env.home, 10)
    wrote = env.run_process("write", "--title", "Terminal sessions", "tmux resurrect plugin")
    assert wrote.code == 0 and wrote.err == "", wrote.err
    (pid,) = embedders(env.home)  # the write's process has ended: its embedder has not
    wait_until_embedded(env, pid)
    status = env.run("status", "--json").json()["vectors"]
    assert (status["embedded"], status["pending"]) == (11, 0)


def test_a_search_embeds_a_few_and_leaves_the_rest_to_the_background(vectors_on: Env) -> None:
    env = vectors_on
    seed(env.home, 12)
    found = env.run("search", "tmux layout", "--mode", "hybrid", "--json")
    assert found.code == 0, found.err
    assert {hit["mode"] for hit in found.json()} == {"hybrid"}
    # The newest 8 were embedded by the search; the other 4 by a process of their own.
    waiting = [line for line in found.err_lines if "no embedding yet" in line]
    assert len(waiting) == 1, found.err
    assert waiting[0].startswith("anamnesis: 4 notes have no embedding yet")
    assert "embedding in the background (pid " in waiting[0]
    wait_until_embedded(env, pid_in(waiting[0]))


def test_a_new_machine_sync_embeds_the_pulled_notes_in_the_background(tmp_path: Path) -> None:
    laptop, desktop, _remote = machines(tmp_path)
    seed(laptop.home, 5)
    assert laptop.run("sync").code == 0
    desktop.use_vectors(OFFLINE_MODEL)
    pulled = desktop.run("sync")
    assert pulled.code == 0, pulled.err
    (line,) = [line for line in pulled.out.splitlines() if line.startswith("embedding ")]
    assert line.startswith("embedding 5 note(s) for search by meaning, in the background (pid ")
    wait_until_embedded(desktop, pid_in(line))
    assert desktop.run("status", "--json").json()["vectors"]["embedded"] == 5


def test_init_on_a_new_machine_embeds_what_its_first_sync_pulled(tmp_path: Path) -> None:
    laptop, _desktop, remote = machines(tmp_path)
    seed(laptop.home, 4)
    assert laptop.run("sync").code == 0
    server = Env.make(tmp_path, "server")
    server.use_vectors(OFFLINE_MODEL)
    done = server.run("init", "--yes", "--remote", str(remote))
    assert done.code == 0, done.err
    (line,) = [line for line in done.out.splitlines() if line.startswith("embedding ")]
    assert line.startswith("embedding 4 note(s) for search by meaning, in the background (pid ")
    wait_until_embedded(server, pid_in(line))


def test_keyword_search_by_choice_starts_nothing(env: Env) -> None:
    seed(env.home, 3)  # env searches by keywords (ANAMNESIS_SEARCH_MODE=keyword)
    env.variables["ANAMNESIS_EMBED_MODEL_PATH"] = str(OFFLINE_MODEL)
    assert env.run("write", "--title", "t", "b").code == 0
    with MemoryStore(env.home) as store:
        assert start_background_embedding(store) is None
    assert not StoreLayout(env.home).embedding_lock.exists()  # nobody ever took it
    assert "0 embedded, 4 not embedded (`anamnesis reindex` embeds them)" in env.run("status").out


@pytest.mark.parametrize("source", ["jsonl", "markdown", "openchronicle", "claude"])
def test_an_import_applied_embeds_what_it_brought_in_the_background(
    vectors_on: Env, tmp_path: Path, source: str
) -> None:
    env = vectors_on
    folder = tmp_path / "incoming"
    if source == "claude":  # Claude Code's own memory: `import claude` takes no folder
        folder = env.claude / "projects" / "-work-api" / "memory"
        folder.mkdir(parents=True)
        for n in range(3):
            (folder / f"rule-{n}.md").write_text(f"Always run the migrations first ({n}).\n")
    elif source == "openchronicle":
        folder.mkdir()
        for n in range(3):
            (folder / f"project-api-{n}.md").write_text(
                f"## [2026-04-22T11:00:00Z] {{id: 20260422-1100-bbbbb{n}}}\nThe API uses PG.\n"
            )
    else:  # another store's export
        other = Env.make(tmp_path, "other")
        other.create_store()
        seed(other.home, 3)
        assert other.run("export", str(folder), "--format", source).code == 0
    given = [] if source == "claude" else [str(folder)]
    if given:  # a dry run (`import claude` has none) starts nothing
        dry = env.run("import", source, *given)
        assert dry.code == 0 and "embedding" not in dry.out and embedders(env.home) == []
    applied = env.run("import", source, *given, *(["--apply"] if given else []))
    assert applied.code == 0, applied.err
    (line,) = [line for line in applied.out.splitlines() if line.startswith("embedding ")]
    assert line.startswith("embedding 3 note(s) for search by meaning, in the background (pid ")
    wait_until_embedded(env, pid_in(line))
    assert env.run("status", "--json").json()["vectors"]["embedded"] == 3
