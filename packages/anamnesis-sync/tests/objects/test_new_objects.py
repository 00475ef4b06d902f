"""What a push or a local fetch sends (new_objects.py): every object the other side lacks,
found from what each new commit changed, never by walking the trees it already has."""

from __future__ import annotations

import random
from pathlib import Path

from dulwich.object_store import MissingObjectFinder
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.repo import Repo

from anamnesis.sync.objects import new_objects
from anamnesis.sync.objects.integrate import apply_changes, flat_tree, patch_tree, tree_of


def _commit(repo: Repo, tree: ObjectID, parents: list[ObjectID]) -> ObjectID:
    commit = Commit()
    commit.tree, commit.parents = tree, parents
    commit.author = commit.committer = b"t <t@example.com>"
    commit.author_time = commit.commit_time = 1_700_000_000 + len(parents)
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"step\n"
    repo.object_store.add_object(commit)
    return commit.id


def _history(repo: Repo, steps: int, seed: int) -> list[ObjectID]:
    """A line of commits adding, editing, deleting and moving notes between folders."""
    rng = random.Random(seed)
    heads: list[ObjectID] = []
    tree = None
    for step in range(steps):
        changes: dict[bytes, tuple[int, ObjectID] | None] = {}
        current = flat_tree(repo, tree)
        for _ in range(rng.randint(1, 6)):
            folder = rng.choice([b"semantic", b"episodic", b"deep/er/still"])
            name = folder + b"/" + str(rng.randrange(12)).encode() + b".md"
            if name in current and rng.random() < 0.3:
                changes[name] = None
            else:
                blob = Blob.from_string(f"{step} {rng.random()}".encode())
                repo.object_store.add_object(blob)
                changes[name] = (0o100644, blob.id)
        tree = patch_tree(repo, tree, changes)
        # patch_tree changes only the folders touched, to the same tree as a rebuild.
        assert flat_tree(repo, tree) == apply_changes(current, changes)
        heads.append(_commit(repo, tree, heads[-1:]))
    return heads


def test_everything_the_other_side_lacks_is_sent(tmp_path: Path) -> None:
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    heads = _history(repo, 40, seed=7)
    for have_at, want_at in [(None, 39), (0, 39), (10, 11), (20, 39), (38, 39)]:
        haves = [] if have_at is None else [heads[have_at]]
        sent = new_objects.missing(repo.object_store, [heads[want_at]], haves)
        needed = {sha for sha, _ in MissingObjectFinder(repo.object_store, haves, [heads[want_at]])}
        assert needed <= set(sent)
        assert len(sent) == len(set(sent))  # never twice in one pack
        # Nothing the other side has in the same place is sent again.
        if have_at is not None:
            assert tree_of(repo, heads[have_at]) not in sent or have_at == want_at


def test_unknown_haves_are_ignored(tmp_path: Path) -> None:
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    heads = _history(repo, 3, seed=1)
    stranger = ObjectID(b"f" * 40)
    sent = new_objects.missing(repo.object_store, [heads[-1]], [stranger, heads[0]])
    assert heads[0] not in sent and heads[-1] in sent
