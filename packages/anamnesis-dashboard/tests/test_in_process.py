"""The dashboard syncs and checks by calls in its own process, never by running a program:
two machines sync through its Sync button with no `anamnesis` on PATH and the CLI not even
importable, a sync's errors are said as the CLI says them, and no dashboard module has a
way to start a process."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport.dashboard_server import csrf_of, start_dashboard

import anamnesis.dashboard
from anamnesis.dashboard.pages import sync_action
from anamnesis.ops import Home
from anamnesis.store import IndexUnavailable, MemoryStore
from anamnesis.sync import DiskFull, SyncBusy

# Put first on sys.path through PYTHONPATH: the dashboard's process (and any it started)
# cannot import the CLI.
NO_CLI = """
import importlib.abc, sys

class NoCli(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "anamnesis.cli" or name.startswith("anamnesis.cli."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoCli())
"""


@pytest.fixture
def without_cli(tmp_path: Path) -> dict[str, str]:
    """An environment with no `anamnesis` on PATH (an empty PATH) and the CLI unimportable."""
    site, empty = tmp_path / "no-cli", tmp_path / "empty-bin"
    site.mkdir()
    empty.mkdir()
    (site / "sitecustomize.py").write_text(NO_CLI)
    return {"PATH": str(empty), "PYTHONPATH": str(site)}


@contextmanager
def page_of(home: Path, env: dict[str, str]) -> Iterator[httpx.Client]:
    """The dashboard over ``home`` with ``env``, and a client that opened its link."""
    running = start_dashboard(home, env=env)
    try:
        with httpx.Client(
            base_url=running.base, headers={"Origin": running.origin}, timeout=120
        ) as client:
            assert client.get(running.link, follow_redirects=True).status_code == 200
            yield client
    finally:
        running.stop()


def press_sync(client: httpx.Client) -> str:
    """Press Sync as the page's htmx does; the result it shows, which must be a success."""
    answer = client.post(
        "/sync", data={"csrf": csrf_of(client.get("/").text)}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 200, answer.text
    assert 'class="sync-result ok"' in answer.text, answer.text
    return answer.text


def test_the_sync_button_syncs_two_machines_in_process(
    store: MemoryStore, remote: Path, tmp_path: Path, without_cli: dict[str, str]
) -> None:
    first = store.write(type="semantic", title="Deploy window", body="Tuesdays", project="p")
    desktop_root = tmp_path / "desktop"
    MemoryStore(desktop_root).close()  # set up, never synced: its first sync pulls
    laptop_env = {**without_cli, "ANAMNESIS_GIT_REMOTE": str(remote)}
    desktop_env = {**laptop_env, "ANAMNESIS_MACHINE_ID": "desktop"}
    with page_of(store.root, laptop_env) as laptop, page_of(desktop_root, desktop_env) as desktop:
        press_sync(laptop)
        shown = press_sync(desktop)
        assert "reindexed 1" in shown  # pulled, and searchable in the desktop's index
        assert "Deploy window" in desktop.get("/").text
        assert "Deploy window" in desktop.get("/search", params={"q": "Tuesdays"}).text
        with MemoryStore(desktop_root) as theirs:
            second = theirs.write(type="semantic", title="Release train", body="Fridays")
        press_sync(desktop)
        press_sync(laptop)
        assert "Release train" in laptop.get("/").text
    assert {note.id for note in store.list()} == {first.id, second.id}


@pytest.mark.parametrize(
    "raised",
    [
        SyncBusy("another sync of this store is running; try again when it is done"),
        DiskFull("the disk is full: pulled 3 of 5 files; free 2 MB and sync again"),
        IndexUnavailable("the index is locked by another program"),
    ],
)
def test_a_sync_that_cannot_run_says_why(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, raised: Exception
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise raised

    monkeypatch.setattr(sync_action, "run_sync", refuse)
    synced = sync_action.sync_once(Home(store.root))
    assert (synced.ok, synced.data, synced.error) == (False, None, str(raised))


def test_an_unreachable_remote_is_the_reports_remote_error(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.write(type="semantic", title="to share", body="x")
    monkeypatch.setenv("ANAMNESIS_GIT_REMOTE", str(tmp_path / "no-such-remote.git"))
    synced = sync_action.sync_once(Home(store.root))
    assert not synced.ok and synced.data is not None
    assert synced.error == synced.data["remote_error"] and "no-such-remote" in synced.error


# Every way Python has to start a program: a module that imports none of them and calls
# none of these names cannot run the CLI (or anything else) as a process.
PROCESS_MODULES = {"subprocess", "multiprocessing", "pty", "concurrent.futures.process"}
PROCESS_CALLS = {
    "create_subprocess_exec", "create_subprocess_shell", "system", "popen", "posix_spawn",
    "posix_spawnp", "fork", "forkpty", "startfile", "execv", "execve", "execl", "execle",
    "execlp", "execlpe", "execvp", "execvpe", "spawnv", "spawnve", "spawnl", "spawnle",
    "spawnlp", "spawnlpe", "spawnvp", "spawnvpe",
}  # fmt: skip


def _process_uses(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in PROCESS_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module in PROCESS_MODULES or node.module.split(".")[0] in PROCESS_MODULES:
                found.append(node.module)
            found += [a.name for a in node.names if a.name in PROCESS_CALLS]
        elif isinstance(node, ast.Attribute) and node.attr in PROCESS_CALLS:
            found.append(node.attr)
        elif isinstance(node, ast.Constant) and "anamnesis.cli" in str(node.value):
            found.append(repr(node.value))
    return found


def test_no_dashboard_module_starts_a_process() -> None:
    package = Path(anamnesis.dashboard.__file__).parent
    modules = sorted(package.rglob("*.py"))
    assert len(modules) > 10  # the scan saw the package
    uses = {
        str(path.relative_to(package)): found
        for path in modules
        if (found := _process_uses(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert uses == {}


def test_the_scan_sees_each_way_in() -> None:
    probe = """
import subprocess
from asyncio import create_subprocess_exec
import asyncio, os
asyncio.create_subprocess_exec("x")
os.execv("x", [])
ARGV = ["python", "-m", "anamnesis.cli", "sync"]
"""
    assert sorted(_process_uses(ast.parse(probe))) == [
        "'anamnesis.cli'", "create_subprocess_exec", "create_subprocess_exec", "execv",
        "subprocess",
    ]  # fmt: skip
