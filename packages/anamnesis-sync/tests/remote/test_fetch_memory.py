"""Fetching many commits from a remote on this file system holds one object at a time, not
all of them (bench/scale/fleet.py: a machine pulling 49 machines' commits of a 10,000-note store
peaked at 300 MB, about 5 MB per commit, each commit's whole tree held parsed until the
last one was read)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.repo import Repo

from anamnesis.sync.remote.transport import fetch_branch
from sync_testing import MAIN

NOTES = 2_000  # entries in each commit's tree
COMMITS = 30  # each adds one note: 30 trees of ~2,000 entries to fetch


def _remote_with_history(path: Path) -> ObjectID:
    """A bare repository whose main has COMMITS commits over a tree of NOTES files."""
    path.mkdir()
    with Repo.init_bare(str(path), default_branch=b"main") as repo:
        blobs = [Blob.from_string(f"note {n}\n".encode()) for n in range(NOTES + COMMITS)]
        tree = Tree()
        for n, blob in enumerate(blobs[:NOTES]):
            tree.add(f"{n:026d}.md".encode(), 0o100644, blob.id)
        objects: list[Blob | Tree | Commit] = list(blobs)
        parent: list[ObjectID] = []
        for k in range(COMMITS):
            blob = blobs[NOTES + k]
            tree.add(f"{NOTES + k:026d}.md".encode(), 0o100644, blob.id)
            snapshot = Tree.from_string(tree.as_raw_string())
            commit = Commit()
            commit.tree, commit.parents = snapshot.id, parent
            commit.author = commit.committer = b"t <t@example.com>"
            commit.author_time = commit.commit_time = 1_700_000_000 + k
            commit.author_timezone = commit.commit_timezone = 0
            commit.message = b"note\n"
            objects += [snapshot, commit]
            parent = [commit.id]
        repo.object_store.add_objects([(obj, None) for obj in objects])
        repo.refs[MAIN] = parent[0]
        return parent[0]


def test_a_local_fetch_of_many_commits_holds_one_object_at_a_time(tmp_path: Path) -> None:
    head = _remote_with_history(tmp_path / "remote.git")
    (tmp_path / "here").mkdir()
    with Repo.init(str(tmp_path / "here"), default_branch=b"main") as repo:
        tracemalloc.start()
        try:
            fetched = fetch_branch(repo, str(tmp_path / "remote.git"), MAIN)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert fetched == head
        commit = repo.object_store[head]
        assert isinstance(commit, Commit)
        tree = repo.object_store[commit.tree]
        assert isinstance(tree, Tree) and len(tree) == NOTES + COMMITS
    # Every tree held at once (the old way) peaks near 30 x 0.8 MB; one at a time, the
    # sets of ids the walk keeps and one parsed tree stay well under this.
    assert peak < 8_000_000, f"fetch peaked at {peak / 1e6:.1f} MB"
