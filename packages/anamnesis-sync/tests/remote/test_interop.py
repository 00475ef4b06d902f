"""Talking to the rest of the world: the git CLI (where installed) and HTTP remotes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from dulwich.client import get_transport_and_path
from dulwich.repo import Repo
from dulwich.server import BackendRepo, DictBackend
from dulwich.web import WSGIRequestHandlerLogger, WSGIServerLogger, make_server, make_wsgi_chain

from sync_testing import GIT, Machine, files, git, write_note

needs_git = pytest.mark.skipif(GIT is None, reason="git binary not installed")


@needs_git
@pytest.mark.needs_git
def test_git_clone_of_the_remote_is_valid_and_holds_the_notes(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/a.md", "note a\n")
    laptop.sync()
    write_note(desktop, "procedural/b.md", "note b\n")
    desktop.sync()
    laptop.sync()
    git("fsck", "--strict", cwd=remote)
    git("clone", "--quiet", str(remote), "clone", cwd=tmp_path)
    clone = tmp_path / "clone"
    git("fsck", "--strict", cwd=clone)
    assert (clone / "semantic" / "a.md").read_text() == "note a\n"
    assert (clone / "procedural" / "b.md").read_text() == "note b\n"
    log = git("log", "--format=%an <%ae>|%s", cwd=clone).splitlines()
    assert all(line.startswith("anamnesis <anamnesis@") for line in log)


@needs_git
@pytest.mark.needs_git
def test_git_status_is_clean_after_a_sync(machine: Machine, tmp_path: Path) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x\n")
    (laptop.repo_dir / "stray.db").write_bytes(b"SQLite format 3\0")
    laptop.sync()
    assert (laptop.repo_dir / ".anamnesis-sync.lock").exists()
    assert git("status", "--porcelain", "--untracked-files=all", cwd=laptop.repo_dir) == ""
    git("fsck", "--strict", cwd=laptop.repo_dir)


@needs_git
@pytest.mark.needs_git
def test_a_commit_made_with_the_git_cli_is_pulled(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "from anamnesis\n")
    laptop.sync()
    git("clone", "--quiet", str(remote), "work", cwd=tmp_path)
    work = tmp_path / "work"
    (work / "semantic" / "by-hand.md").write_text("written with git\n")
    (work / "semantic" / "a.md").unlink()
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "edit by hand", cwd=work)
    git("push", "--quiet", "origin", "HEAD:main", cwd=work)
    result = laptop.sync()
    assert result.pulled == 1
    assert sorted(result.changed) == ["semantic/a.md", "semantic/by-hand.md"]
    assert files(laptop) == {"semantic/by-hand.md": "written with git\n"}


@pytest.fixture
def http_remote(remote: Path) -> Iterator[str]:
    """The bare remote served over smart HTTP by dulwich's own WSGI server."""
    repos: dict[bytes, BackendRepo] = {b"/": Repo(str(remote))}
    backend = DictBackend(repos)
    server = make_server(
        "127.0.0.1", 0, make_wsgi_chain(backend),
        handler_class=WSGIRequestHandlerLogger, server_class=WSGIServerLogger,
    )  # fmt: skip
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        thread.join()


def test_sync_over_http(machine: Machine, http_remote: str) -> None:
    laptop = machine("laptop", remote_url=http_remote)
    desktop = machine("desktop", remote_url=http_remote)
    write_note(laptop, "semantic/a.md", "over http\n")
    assert laptop.sync().pushed
    assert desktop.sync().pulled == 1
    assert files(desktop) == files(laptop)


@pytest.mark.parametrize(
    ("url", "client"),
    [
        ("/srv/memory.git", "LocalGitClient"),
        ("file:///srv/memory.git", "LocalGitClient"),
        ("ssh://me@host.example/srv/memory.git", "SSHGitClient"),
        ("me@host.example:memory.git", "SSHGitClient"),
        ("https://git.example.com/me/memory.git", "Urllib3HttpGitClient"),
    ],
)
def test_every_supported_remote_form_selects_a_transport(url: str, client: str) -> None:
    transport, _path = get_transport_and_path(url)
    assert type(transport).__name__ == client
