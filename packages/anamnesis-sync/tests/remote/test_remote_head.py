"""A bare remote made by a plain `git init --bare` has HEAD on `master`, a branch that
never exists: a clone of it would check out nothing. The first push points it at ours."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from sync_testing import GIT, Machine, git, write_note

needs_git = pytest.mark.skipif(GIT is None, reason="git binary not installed")


def bare_on_master(path: Path) -> Path:
    path.mkdir()
    Repo.init_bare(str(path), default_branch=b"master").close()
    return path


def head_of(path: Path) -> bytes | None:
    with Repo(str(path)) as repo:
        return repo.refs.read_ref(Ref(b"HEAD"))


@pytest.mark.parametrize("form", ["path", "file-url"])
def test_an_unborn_remote_head_is_pointed_at_our_branch(
    machine: Machine, tmp_path: Path, form: str
) -> None:
    bare = bare_on_master(tmp_path / "plain.git")
    assert head_of(bare) == b"ref: refs/heads/master"
    url = str(bare) if form == "path" else bare.as_uri()
    laptop = machine("laptop", remote_url=url)
    write_note(laptop, "semantic/a.md", "a\n")
    assert laptop.sync().pushed
    assert head_of(bare) == b"ref: refs/heads/main"
    with Repo(str(bare)) as repo:  # HEAD now resolves to the notes
        assert repo.head() == repo.refs[Ref(b"refs/heads/main")]


def test_a_remote_head_on_a_branch_that_exists_is_left_alone(
    machine: Machine, tmp_path: Path
) -> None:
    bare = bare_on_master(tmp_path / "used.git")
    with Repo(str(bare)) as repo:  # someone else's master, with a commit
        blob = Blob.from_string(b"theirs\n")
        tree = Tree()
        tree.add(b"README", 0o100644, blob.id)
        commit = Commit()
        commit.tree = tree.id
        commit.author = commit.committer = b"someone <someone@example.com>"
        commit.author_time = commit.commit_time = int(time.time())
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"theirs\n"
        for obj in (blob, tree, commit):
            repo.object_store.add_object(obj)
        repo.refs[Ref(b"refs/heads/master")] = commit.id
    laptop = machine("laptop", remote_url=bare)
    write_note(laptop, "semantic/a.md", "a\n")
    assert laptop.sync().pushed
    assert head_of(bare) == b"ref: refs/heads/master"


@needs_git
@pytest.mark.needs_git
def test_a_git_clone_of_a_remote_made_by_git_init_bare_checks_out_the_notes(
    machine: Machine, tmp_path: Path
) -> None:
    # An old git's default, whatever this machine's init.defaultBranch says.
    git("init", "--quiet", "--bare", "--initial-branch=master", "made-by-git.git", cwd=tmp_path)
    bare = tmp_path / "made-by-git.git"
    laptop = machine("laptop", remote_url=bare)
    write_note(laptop, "semantic/a.md", "note a\n")
    assert laptop.sync().pushed
    git("clone", "--quiet", str(bare), "clone", cwd=tmp_path)
    assert (tmp_path / "clone" / "semantic" / "a.md").read_text() == "note a\n"
