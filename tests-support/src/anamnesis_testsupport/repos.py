"""Git repositories a test or a benchmark stands on, made with dulwich (no git binary):
the machines' shared bare remote, and a project's working copy whose ``origin`` names the
project (what the hooks key a project's notes by)."""

from __future__ import annotations

from pathlib import Path

from dulwich.repo import Repo


def bare_remote(path: Path) -> Path:
    """An empty bare repository on ``main`` at ``path`` (made here)."""
    path.mkdir(parents=True)
    Repo.init_bare(str(path), default_branch=b"main").close()
    return path


def project_checkout(path: Path, origin: str) -> Path:
    """A git working copy at ``path`` (made here) whose ``origin`` is ``origin``."""
    path.mkdir(parents=True)
    repo = Repo.init(str(path), default_branch=b"main")
    try:
        config = repo.get_config()
        config.set((b"remote", b"origin"), b"url", origin.encode())
        config.set((b"remote", b"origin"), b"fetch", b"+refs/heads/*:refs/remotes/origin/*")
        config.write_to_path()
    finally:
        repo.close()
    return path
