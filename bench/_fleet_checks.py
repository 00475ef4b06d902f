"""What `fleet.py` checks once every machine has synced: the same notes everywhere, byte for
byte, in every index, and a sound remote.

Read-only: nothing here writes to a machine or to the remote. The remote is read with
dulwich (as the sync reads it) and, when a ``git`` binary is on the PATH, with
``git fsck --full --strict`` too.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from dulwich import porcelain
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import CONFLICT_KEY, SYNC_LOCK_FILE

MAIN = Ref(b"refs/heads/main")
# keep-both writes this key into both versions of a conflicted note: a file holding it
# is a conflict that surfaced as a note.
CONFLICT_LINE = b"\n" + CONFLICT_KEY.encode() + b":"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def folder_tree(memory: Path) -> dict[str, str]:
    """Every shared file of a machine's notes folder: relative path -> sha256 of its bytes."""
    tree: dict[str, str] = {}
    for path in memory.rglob("*"):
        relative = path.relative_to(memory)
        # The sync's lock is each machine's own and never synced.
        if relative.parts[0] == ".git" or path.name == SYNC_LOCK_FILE or not path.is_file():
            continue
        tree[relative.as_posix()] = digest(path.read_bytes())
    return tree


def conflict_notes(memory: Path) -> list[str]:
    """Notes that carry keep-both's conflict marker (there should be none)."""
    return sorted(
        path.relative_to(memory).as_posix()
        for path in memory.rglob("*.md")
        if ".git" not in path.relative_to(memory).parts and CONFLICT_LINE in path.read_bytes()
    )


def remote_tree(remote: Path) -> dict[str, str]:
    """The files at the tip of the remote's main branch: path -> sha256 of their bytes."""
    with Repo(str(remote)) as repo:
        commit = repo[repo.refs[MAIN]]
        assert isinstance(commit, Commit)
        return {
            entry.path.decode(): digest(repo[entry.sha].as_raw_string())
            for entry in iter_tree_contents(repo.object_store, commit.tree)
            if entry.path is not None and entry.sha is not None
        }


def remote_packs(remote: Path) -> dict[str, float]:
    """How the remote's objects are stored: packs, their size, loose objects."""
    objects = remote / "objects"
    packs = sorted((objects / "pack").glob("*.pack"))
    loose = sum(1 for d in objects.glob("[0-9a-f][0-9a-f]") for _ in d.iterdir())
    return {
        "packs": len(packs),
        "pack_mb": round(sum(p.stat().st_size for p in packs) / 1e6, 2),
        "loose": loose,
    }


def dulwich_fsck(remote: Path) -> list[str]:
    """Problems dulwich finds: each object's own check (`porcelain.fsck`), each pack's
    checksums, and every object reachable from main present (fsck's connectivity)."""
    problems = [f"{sha.decode()}: {error}" for sha, error in porcelain.fsck(str(remote))]
    with Repo(str(remote)) as repo:
        for pack in repo.object_store.packs:
            try:
                pack.check()
            except Exception as error:  # any failure of the check is a finding to report
                problems.append(f"{pack.name().decode()}: {error}")
        problems.extend(_unreachable_gaps(repo))
    return problems


def _unreachable_gaps(repo: Repo) -> list[str]:
    """Objects that main's history names but the store lacks."""
    missing: list[str] = []
    seen: set[ObjectID] = set()
    pending: list[ObjectID] = [repo.refs[MAIN]]
    while pending:
        sha = pending.pop()
        if sha in seen:
            continue
        seen.add(sha)
        if sha not in repo.object_store:
            missing.append(f"{sha.decode()}: named in main's history, not in the store")
            continue
        obj = repo.object_store[sha]
        if isinstance(obj, Commit):
            pending.extend([obj.tree, *obj.parents])
        elif isinstance(obj, Tree):
            pending.extend(entry.sha for entry in obj.items())
    return missing


def git_fsck(remote: Path) -> str | None:
    """`git fsck --full --strict`'s complaints ("" when clean), or None without git."""
    git = shutil.which("git")
    if git is None:
        return None
    done = subprocess.run(
        [git, "fsck", "--full", "--strict", "--no-progress"],
        cwd=remote,
        capture_output=True,
        text=True,
        check=False,
    )
    complaints = (done.stdout + done.stderr).strip()
    return complaints if done.returncode != 0 or complaints else ""
