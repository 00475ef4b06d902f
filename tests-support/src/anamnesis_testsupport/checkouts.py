"""Folders that look like git clones, for project keys (no git, no dulwich needed)."""

from __future__ import annotations

from pathlib import Path


def checkout(path: Path, origin: str | None) -> Path:
    """A folder that looks like a git clone (only .git/config matters to project keys)."""
    (path / ".git").mkdir(parents=True, exist_ok=True)
    config = "[core]\n\trepositoryformatversion = 0\n"
    if origin:
        config += (
            f'[remote "origin"]\n\turl = {origin}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        )
    (path / ".git" / "config").write_text(config)
    return path
