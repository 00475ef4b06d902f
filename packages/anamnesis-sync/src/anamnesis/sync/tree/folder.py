"""The notes folder as a git repository: opened, or created on a first sync, its HEAD on
our branch while nothing is committed, and the never-synced files listed in
``.git/info/exclude`` so that `git status` agrees with sync."""

from __future__ import annotations

from pathlib import Path

from dulwich.errors import NotGitRepository
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.objects.repository import best_effort, read_ref
from anamnesis.sync.tree import worktree


def open_repo(repo_dir: Path, branch: str, branch_ref: Ref) -> Repo:
    """The repository in ``repo_dir``, created if needed, its HEAD on ``branch_ref`` while
    nothing is committed, and the never-synced files listed in ``.git/info/exclude``."""
    repo_dir.mkdir(parents=True, exist_ok=True)
    try:
        repo = Repo(str(repo_dir))
    except NotGitRepository:
        repo = Repo.init(str(repo_dir), default_branch=branch.encode())
    if read_ref(repo, branch_ref) is None:  # nothing committed yet: HEAD must name our branch
        repo.refs.set_symbolic_ref(Ref(b"HEAD"), branch_ref)
    _exclude_scratch_files(repo)
    return repo


def _exclude_scratch_files(repo: Repo) -> None:
    """List the never-synced files in .git/info/exclude, so `git status` agrees with sync."""
    path = Path(repo.controldir()) / "info" / "exclude"
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    except OSError:
        return  # unreadable: only `git status` is affected, never the sync
    missing = [line for line in worktree.EXCLUDE_PATTERNS if line not in current.splitlines()]
    if not missing:
        return
    header = "# anamnesis: machine-local files in the notes folder, never synced"
    lines = ([] if header in current else [header]) + missing
    lead = "" if not current or current.endswith("\n") else "\n"
    best_effort(_append, path, lead + "\n".join(lines) + "\n")


def _append(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
