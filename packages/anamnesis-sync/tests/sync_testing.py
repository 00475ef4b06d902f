"""Helpers shared by the sync tests: notes folders and remote trees as plain dicts."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, Commit
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import GitSyncBackend
from anamnesis.sync.tree import worktree

Machine = Callable[..., GitSyncBackend]

# Looked up when the tests load, before any test hides git from PATH.
GIT = shutil.which("git")


def write_note(backend: GitSyncBackend, rel: str, text: str) -> Path:
    path = backend.repo_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def files(backend: GitSyncBackend) -> dict[str, str]:
    """Every synced file under the folder, with its text (symlinks are never followed)."""
    root = backend.repo_dir
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if not p.is_symlink()
        and p.is_file()
        and ".git" not in p.relative_to(root).parts
        and not p.name.startswith(".")
    }


MAIN = Ref(b"refs/heads/main")


def remote_files(remote: Path, branch: Ref = MAIN) -> dict[str, bytes]:
    """The files in the remote's branch, read with dulwich."""
    repo = Repo(str(remote))
    try:
        if branch not in repo.refs:
            return {}
        commit = repo[repo.refs[branch]]
        assert isinstance(commit, Commit)
        out: dict[str, bytes] = {}
        for entry in iter_tree_contents(repo.object_store, commit.tree):
            assert entry.path is not None and entry.sha is not None
            blob = repo[entry.sha]
            assert isinstance(blob, Blob)
            out[entry.path.decode()] = blob.as_raw_string()
        return out
    finally:
        repo.close()


def edit_once_before(
    monkeypatch: pytest.MonkeyPatch, name: str, edit: Callable[[], object]
) -> list[int]:
    """Run ``edit`` once, just before the real ``worktree.<name>`` runs: an editor saving
    a note at that instant of a sync. Returns the list of calls, to check it ran."""
    real = getattr(worktree, name)
    calls: list[int] = []

    def wrapped(*args: object, **kwargs: object) -> object:
        if not calls:
            edit()
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(worktree, name, wrapped)
    return calls


def git(*args: str, cwd: Path) -> str:
    assert GIT is not None
    env = {"GIT_AUTHOR_NAME": "cli", "GIT_AUTHOR_EMAIL": "cli@example.com",
           "GIT_COMMITTER_NAME": "cli", "GIT_COMMITTER_EMAIL": "cli@example.com",
           "HOME": str(cwd), "PATH": "/usr/bin:/bin"}  # fmt: skip
    done = subprocess.run(
        [GIT, *args], cwd=cwd, capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
