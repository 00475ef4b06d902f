"""Helpers shared by the sync tests: notes folders and remote trees as plain dicts."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from anamnesis_testsupport.repos import MAIN as MAIN
from anamnesis_testsupport.repos import tip_files
from dulwich.refs import Ref

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


def remote_files(remote: Path, branch: Ref = MAIN) -> dict[str, bytes]:
    """The files at the tip of the remote's branch, path -> content ({} before a push)."""
    return tip_files(remote, branch, none_pushed_ok=True)


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
