"""The files a new commit changes against its first parent, for its message
(:class:`~anamnesis.sync.model.backend.CommittedFile`): only the folders that differ are
read (their ids say which), and a file's content only when the message asks for it."""

from __future__ import annotations

import os
from collections.abc import Callable

from dulwich.diff_tree import CHANGE_ADD, CHANGE_DELETE, tree_changes
from dulwich.objects import ObjectID
from dulwich.repo import Repo

from anamnesis.sync.model.backend import CommittedFile
from anamnesis.sync.objects.repository import read_blob
from anamnesis.sync.objects.tree_reader import reader


def committed_files(repo: Repo, old: ObjectID | None, new: ObjectID) -> list[CommittedFile]:
    """What turns tree ``old`` (None: no parent) into ``new``, one entry a file."""
    out: list[CommittedFile] = []
    for change in tree_changes(reader(repo.object_store).as_store(), old, new):
        deleted = change.type == CHANGE_DELETE
        entry = change.old if deleted else change.new
        if entry is None or entry.path is None or entry.sha is None:
            continue
        path = os.fsdecode(entry.path)
        content = _reading(repo, entry.sha)
        if deleted:
            out.append(CommittedFile("deleted", path, content))
        elif change.type == CHANGE_ADD:
            out.append(CommittedFile("added", path, content))
        else:
            out.append(CommittedFile("edited", path, content))
    return out


def _reading(repo: Repo, sha: ObjectID) -> Callable[[], bytes]:
    return lambda: read_blob(repo, sha)
