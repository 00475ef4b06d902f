"""Git repositories a test or a benchmark stands on, made and read back with dulwich (no
git binary): the machines' shared bare remote, a project's working copy whose ``origin``
names the project (what the hooks key a project's notes by), and what a repository holds
(the files at a branch's tip, its commit messages, every object in it), read the way a
host or a stranger cloning the remote would see it.

Each reader opens the repository, reads, and closes it again, so a test can call it
between two syncs; what they return is plain data (paths, bytes, text), never an open
dulwich object.
"""

from __future__ import annotations

from pathlib import Path

from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

MAIN = Ref(b"refs/heads/main")  # the branch every store syncs on


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


def tip(repository: Path, branch: Ref = MAIN) -> ObjectID | None:
    """The commit at the tip of ``branch``, or None when nothing was ever pushed there."""
    with Repo(str(repository)) as repo:
        refs = repo.refs.as_dict()
        return refs.get(branch)


def tip_files(
    repository: Path, branch: Ref = MAIN, *, none_pushed_ok: bool = False
) -> dict[str, bytes]:
    """Every file at the tip of ``branch``, path (``semantic/<id>.md``) -> content, the
    subfolders walked. A branch with no commit raises KeyError, so a test that expects
    files cannot pass on a remote nothing reached; ``none_pushed_ok`` makes it ``{}``."""
    with Repo(str(repository)) as repo:
        if none_pushed_ok and branch not in repo.refs:
            return {}
        commit = repo[repo.refs[branch]]
        assert isinstance(commit, Commit)
        return _files_of(repo, commit.tree)


def tip_paths(repository: Path, branch: Ref = MAIN) -> set[str]:
    """The paths of the files at the tip of ``branch`` (KeyError when it has no commit)."""
    return set(tip_files(repository, branch))


def tip_texts(repository: Path, branch: Ref = MAIN) -> dict[str, str]:
    """The files at the tip of ``branch`` as text (UTF-8, as notes are written): path ->
    text (KeyError when it has no commit)."""
    return {path: data.decode() for path, data in tip_files(repository, branch).items()}


def commit_messages(repository: Path) -> list[str]:
    """The messages of the commits reachable from HEAD (a bare remote's HEAD is ``main``),
    newest first (KeyError before the first commit)."""
    with Repo(str(repository)) as repo:
        return [entry.commit.message.decode() for entry in repo.get_walker()]


def every_object(repository: Path) -> list[tuple[str, bytes]]:
    """(kind, bytes) of every object the repository holds, loose or packed, reachable or
    not, each as git stores it uncompressed: all a host of the remote can read. The kind is
    git's: ``blob``, ``tree``, ``commit`` or ``tag``."""
    with Repo(str(repository)) as repo:
        store = repo.object_store
        return [((obj := store[sha]).type_name.decode(), obj.as_raw_string()) for sha in store]


def every_blob(repository: Path) -> list[bytes]:
    """The content of every blob the repository holds, whatever commit or tree it is in
    (history and unreachable objects included)."""
    return [data for kind, data in every_object(repository) if kind == "blob"]


def paths_ever_committed(repository: Path) -> set[str]:
    """Every file path named by the tree of any commit the repository holds, reachable or
    not: what the remote's history would show of a file even after it was deleted."""
    with Repo(str(repository)) as repo:
        store = repo.object_store
        paths: set[str] = set()
        for sha in store:
            obj = store[sha]
            if isinstance(obj, Commit):
                paths.update(_files_of(repo, obj.tree))
        return paths


def _files_of(repo: Repo, tree: ObjectID) -> dict[str, bytes]:
    """The files under ``tree``, subtrees walked: path -> blob content."""
    assert isinstance(repo[tree], Tree)
    files: dict[str, bytes] = {}
    for entry in iter_tree_contents(repo.object_store, tree):
        assert entry.path is not None
        assert entry.sha is not None
        blob = repo[entry.sha]
        assert isinstance(blob, Blob)  # a submodule's commit is never read as a file
        files[entry.path.decode()] = blob.as_raw_string()
    return files
