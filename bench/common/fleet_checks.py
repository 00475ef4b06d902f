"""What `bench.scale.fleet` checks: each machine right after its final sync (its notes folder, read
once while still in the page cache, against the remote's tip by git blob id), then the
remote itself once every machine is done.

Read-only: nothing here writes to a machine or to the remote. The remote is read with
dulwich (as the sync reads it) and, when a ``git`` binary is on the PATH, with
``git fsck --full --strict`` too.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

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
SHOWN = 3  # paths named in a finding; the rest are counted


def note_ids(paths: Iterable[str]) -> set[str]:
    """The ids of the notes among ``paths`` (relative, posix): each ``.md`` file's stem."""
    return {PurePosixPath(p).stem for p in paths if p.endswith(".md")}


def blob_id(data: bytes) -> str:
    """Git's id of ``data`` as a blob: what a tree entry names for a file of these bytes."""
    header = b"blob %d\x00" % len(data)
    return hashlib.sha1(header + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class Folder:
    """A machine's notes folder as read once: every shared file's git blob id (by its
    relative posix path) and the notes among them that carry a conflict marker."""

    files: dict[str, str]
    conflicts: list[str]


def scan_folder(memory: Path) -> Folder:
    """Read every shared file of ``memory`` once: outside its ``.git``, the sync's lock
    (each machine's own, never synced) left out."""
    files: dict[str, str] = {}
    conflicts: list[str] = []
    for top, dirs, names in os.walk(memory):
        here = Path(top)
        if here == memory:
            dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = here / name
            if name == SYNC_LOCK_FILE or not path.is_file():
                continue
            relative = path.relative_to(memory).as_posix()
            data = path.read_bytes()
            files[relative] = blob_id(data)
            if name.endswith(".md") and CONFLICT_LINE in data:
                conflicts.append(relative)
    return Folder(files, sorted(conflicts))


@dataclass(frozen=True, slots=True)
class Tip:
    """The remote main's tip: its commit and every file of its tree (path -> blob id)."""

    commit: str
    files: dict[str, str]


def remote_head(remote: Path) -> str:
    with Repo(str(remote)) as repo:
        return repo.refs[MAIN].decode()


def remote_tip(remote: Path, known: Tip | None = None) -> Tip:
    """The tip of the remote's main branch; ``known`` when main still points at it. Reads
    the trees only: a tree entry already names its file's blob id."""
    with Repo(str(remote)) as repo:
        head = repo.refs[MAIN]
        if known is not None and known.commit == head.decode():
            return known
        commit = repo[head]
        assert isinstance(commit, Commit)
        files = {
            entry.path.decode(): entry.sha.decode()
            for entry in iter_tree_contents(repo.object_store, commit.tree)
            if entry.path is not None and entry.sha is not None
        }
        return Tip(head.decode(), files)


def _named(kind: str, paths: list[str]) -> list[str]:
    if not paths:
        return []
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return [f"{len(paths)} {kind}: {', '.join(paths[:SHOWN])}{more}"]


def tree_differences(files: dict[str, str], tip: Tip) -> list[str]:
    """How a folder differs from the tip, file by file ([] when byte-identical)."""
    missing = sorted(tip.files.keys() - files.keys())
    extra = sorted(files.keys() - tip.files.keys())
    changed = sorted(p for p in files.keys() & tip.files.keys() if files[p] != tip.files[p])
    return [
        *_named("missing here", missing),
        *_named("not on the remote", extra),
        *_named("with other bytes", changed),
    ]


def id_differences(found: set[str], expected: set[str], where: str) -> list[str]:
    """How a set of note ids differs from the expected one ([] when equal)."""
    return [
        *_named(f"expected, not {where}", sorted(expected - found)),
        *_named(f"{where}, not expected", sorted(found - expected)),
    ]


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
    """`git fsck --full --strict`'s complaints ("" when clean; dangling objects are not
    complaints), or None without git."""
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
    # A push that lost a race wrote its objects before the branch refused to move: git
    # reports them as dangling (exit 0), as it does after its own lost races, and its gc
    # drops them in time. Anything else is a complaint.
    lines = (done.stdout + done.stderr).strip().splitlines()
    complaints = "\n".join(line for line in lines if not line.startswith("dangling "))
    return (complaints or f"exit status {done.returncode}") if done.returncode else complaints
