"""Unreachable and refusing remotes, and unsafe input from a remote."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo
from hypothesis import given
from hypothesis import strategies as st

from anamnesis.sync import GitSyncBackend, SyncError, check_remote, redact_url
from anamnesis.sync.remote.transport import list_remote_branches
from anamnesis.sync.remote.urls import explain_transport_error
from anamnesis.sync.tree.worktree import safe_path
from sync_testing import Machine, remote_files, write_note


def test_an_unreachable_remote_keeps_the_local_commit(machine: Machine, tmp_path: Path) -> None:
    lonely = machine("laptop", remote_url=tmp_path / "no" / "such" / "remote.git")
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert not result.pushed and not result.conflicted
    assert "cannot fetch from remote" in result.detail
    assert "next sync" in result.detail
    assert result.committed and lonely.state().head == result.head
    assert not lonely.state().dirty
    assert result.remote_error.startswith("cannot fetch from remote")
    assert result.remote_error in result.detail


def test_an_ssh_remote_that_does_not_answer_is_a_detail_not_a_traceback(machine: Machine) -> None:
    lonely = machine("laptop", remote_url="ssh://nobody@127.0.0.1:1/srv/memory.git")
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert not result.pushed
    assert "cannot fetch from remote ssh://nobody@127.0.0.1:1/srv/memory.git" in result.detail


def test_a_refusing_remote_keeps_the_local_commit(
    machine: Machine, remote: Path, make_remote_read_only: Callable[[Path], None]
) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    make_remote_read_only(remote)
    result = laptop.sync()
    assert not result.pushed
    assert "cannot push to remote" in result.detail and "refused" in result.detail
    assert result.committed
    assert "cannot push to remote" in result.remote_error


def test_check_remote_says_whether_a_remote_answers(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    assert check_remote(str(remote)) is None  # an empty bare repository answers
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    assert laptop.sync().remote_error == ""
    assert list_remote_branches(str(remote)) == ["main"]
    missing = check_remote(str(tmp_path / "nowhere.git"))
    assert missing is not None and "nowhere.git" in missing
    refused = check_remote("ssh://nobody@127.0.0.1:1/srv/memory.git")
    assert refused is not None and refused.startswith("cannot reach remote")
    assert "hunter2" not in (check_remote("https://me:hunter2@127.0.0.1:1/m.git") or "")


@pytest.mark.parametrize(
    ("url", "secret"),
    [
        ("https://me:hunter2@127.0.0.1:1/memory.git", "hunter2"),
        ("https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@127.0.0.1:1/m.git", "ghp_16C7e42F"),
        ("https://oauth2:glpat-abcdefghij123@127.0.0.1:1/m.git", "glpat-abcdefghij123"),
    ],
)
def test_passwords_and_tokens_never_show_in_details(
    machine: Machine, url: str, secret: str
) -> None:
    lonely = machine("laptop", remote_url=url)
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert result.remote_error
    assert secret not in result.detail
    assert secret not in (lonely.state().remote or "")
    assert secret not in (check_remote(url, timeout_s=2) or "")


def test_redact_url_keeps_plain_user_names_only() -> None:
    assert redact_url("https://me:hunter2@host:1/m.git") == "https://me:***@host:1/m.git"
    assert redact_url("https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@host/m.git") == (
        "https://***@host/m.git"
    )
    assert redact_url("https://ghp_short@host/m.git") == "https://***@host/m.git"
    assert redact_url("git@github.com:me/memory.git") == "git@github.com:me/memory.git"
    assert redact_url("ssh://alice.smith@host/srv/m.git") == "ssh://alice.smith@host/srv/m.git"
    assert redact_url("a3f9c2e1b7d4e6f8a0b2c4d6@host:m.git") == "***@host:m.git"
    assert redact_url("/srv/notes@2024/m.git") == "/srv/notes@2024/m.git"


@given(
    user=st.from_regex(r"[A-Za-z][A-Za-z0-9._-]{0,30}", fullmatch=True),
    secret=st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=8),
)
def test_no_password_or_token_survives_redaction(user: str, secret: str) -> None:
    long_user = secret.ljust(21, "0")  # longer than any plain user name
    for url, hidden in (
        (f"https://{user}:{secret}@host.example/m.git", f":{secret}@"),
        (f"https://ghp_{secret}@host.example/m.git", secret),
        (f"https://{long_user}@host.example/m.git", long_user),
        (f"{long_user}@host.example:m.git", long_user),
    ):
        shown = redact_url(url)
        assert hidden not in shown
        assert "***@host.example" in shown


@pytest.fixture
def http_status_server() -> Iterator[str]:
    """An HTTP server answering every request with the status named in its path."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            code = int(self.path.split("/")[1])
            self.send_response(code)
            if code == 401:
                self.send_header("WWW-Authenticate", 'Basic realm="memory"')
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def test_a_401_says_credentials_are_needed(machine: Machine, http_status_server: str) -> None:
    lonely = machine("laptop", remote_url=f"{http_status_server}/401/m.git")
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert "credentials" in result.remote_error and "TOKEN" in result.remote_error


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP server that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/memory.git"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def test_an_http_server_that_never_answers_is_given_up_on_in_time(
    tmp_path: Path, silent_server: str
) -> None:
    lonely = GitSyncBackend(
        tmp_path / "laptop", remote=silent_server, machine_id="laptop", timeout_s=1
    )
    write_note(lonely, "semantic/a.md", "x")
    started = time.monotonic()
    result = lonely.sync()
    assert time.monotonic() - started < 6
    assert not result.pushed and result.committed
    assert "timed out" in result.remote_error and "did not answer" in result.remote_error
    started = time.monotonic()
    assert "timed out" in (check_remote(silent_server, timeout_s=1) or "")
    assert time.monotonic() - started < 6


def test_the_offline_detail_claims_only_what_happened(machine: Machine, tmp_path: Path) -> None:
    lonely = machine("laptop", remote_url=tmp_path / "no" / "such" / "remote.git")
    write_note(lonely, "semantic/a.md", "x")
    assert "local changes are committed" in lonely.sync().detail
    again = lonely.sync()
    assert not again.committed
    assert "local changes are committed" not in again.detail
    assert "not yet pushed" in again.detail  # the earlier commit still waits


def test_an_origin_without_a_fetch_line_is_repaired(machine: Machine, remote: Path) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    laptop.sync()
    config = laptop.repo_dir / ".git" / "config"
    config.write_text(
        "".join(line for line in config.read_text().splitlines(True) if "fetch =" not in line)
    )
    write_note(laptop, "semantic/b.md", "y")
    assert laptop.sync().pushed
    assert "fetch = +refs/heads/*:refs/remotes/origin/*" in config.read_text()
    assert set(remote_files(remote)) == {"semantic/a.md", "semantic/b.md"}


@pytest.mark.parametrize(
    "path",
    [
        b"../../etc/passwd",
        b"a/../../b",
        b".git/config",
        b".GIT/config",
        b"notes/.Git/hooks/post-checkout",
        b".git./config",  # Windows drops the trailing dot
        b".git /config",  # and trailing spaces
        b"GIT~1/config",  # the 8.3 short name of .git
        ".g\u200cit/config".encode(),  # HFS+ ignores zero-width characters
        b".git::$INDEX_ALLOCATION/config",  # an NTFS stream of .git
        b"a\\..\\b",
        b"a/\0/b",
        b"/etc/passwd",
        b"a//b",
        b".",
    ],
)
def test_unsafe_tree_paths_are_refused(path: bytes) -> None:
    with pytest.raises(SyncError, match="unsafe path"):
        safe_path(Path("/tmp/x"), path)


_SAFE_PART = st.text(
    st.characters(codec="utf-8", exclude_characters="/\\\0:", exclude_categories=["Cs", "Cf"]),
    min_size=1,
    max_size=12,
).filter(lambda part: part.rstrip(". ").casefold() not in ("", ".git", "git~1"))


@given(st.lists(_SAFE_PART, min_size=1, max_size=4))
def test_ordinary_tree_paths_stay_inside_the_folder(parts: list[str]) -> None:
    root = Path("/tmp/notes")
    target = safe_path(root, "/".join(parts).encode())
    assert target.parts[: len(root.parts)] == root.parts
    assert len(target.parts) == len(root.parts) + len(parts)


@pytest.mark.parametrize("name", [b"..", b".GIT", b"Git~1"])
def test_a_remote_tree_with_an_escaping_path_is_refused(
    machine: Machine, remote: Path, name: bytes
) -> None:
    repo = Repo(str(remote))
    blob = Blob.from_string(b"pwned")
    inner = Tree()
    inner.add(b"passwd", 0o100644, blob.id)
    evil = Tree()
    evil.add(name, 0o040000, inner.id)
    commit = Commit()
    commit.tree = evil.id
    commit.author = commit.committer = b"x <x@x>"
    commit.author_time = commit.commit_time = 0
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"evil\n"
    for obj in (blob, inner, evil, commit):
        repo.object_store.add_object(obj)
    repo.refs[Ref(b"refs/heads/main")] = commit.id
    repo.close()
    victim = machine("victim")
    with pytest.raises(SyncError, match="unsafe path"):
        victim.sync()
    assert not (victim.repo_dir.parent / "passwd").exists()
    assert not (victim.repo_dir / ".git" / "passwd").exists()


@pytest.fixture
def make_remote_read_only(make_unwritable: Callable[[Path], None]) -> Callable[[Path], None]:
    def lock(remote: Path) -> None:
        for sub in (remote, remote / "objects", remote / "refs", remote / "refs" / "heads"):
            make_unwritable(sub)

    return lock


def test_the_suite_really_runs_without_git() -> None:
    assert shutil.which("git") is None


def test_sync_error_for_a_broken_remote_path_is_readable(machine: Machine, tmp_path: Path) -> None:
    not_a_repo = tmp_path / "plain-folder"
    not_a_repo.mkdir()
    lonely = machine("laptop", remote_url=not_a_repo)
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert "not a git repository" in result.detail


def test_each_kind_of_transport_failure_gets_a_hint_that_fits() -> None:
    url = "https://me:hunter2@git.example/m.git"
    tls = explain_transport_error(
        url, OSError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    )
    assert "TLS certificate" in tls
    silent = explain_transport_error(
        url, TimeoutError("timed out: the remote sent nothing for 1 s")
    )
    assert "did not answer" in silent
    on_a_port_like_a_status = explain_transport_error(
        "http://127.0.0.1:40157/m.git",
        OSError("HTTPConnectionPool(host='127.0.0.1', port=40157): Read timed out."),
    )
    assert "did not answer" in on_a_port_like_a_status
    assert "credentials" not in on_a_port_like_a_status
    refused = explain_transport_error(url, OSError("unexpected http resp 403 for /m.git"))
    assert "refused the credentials" in refused
    echoed = explain_transport_error(url, OSError(f"cannot open {url}"), "push to")
    assert "hunter2" not in echoed and echoed.startswith("cannot push to remote https://me:***@")
