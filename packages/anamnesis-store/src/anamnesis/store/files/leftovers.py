"""Temp files left by writes that were killed, found and swept.

Every write goes through a temp file beside its target (``.<name>.<8 hex>.tmp``, see
:mod:`.atomic`), renamed over the target once it is on disk. A process killed between the
two (Claude Code kills a hook at its timeout) leaves the temp file behind; nothing else
would ever remove it. A writer holds its temp file for milliseconds, at most for as long as
it waits on the index lock; one older than :data:`SAFE_AGE_S` belongs to no live writer.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from anamnesis.store.note.model import LeftoverFile

if TYPE_CHECKING:
    from anamnesis.store.files.layout import StoreLayout

# Ten minutes: far beyond any write (the index's busy timeout is seconds), so a sweep never
# takes a file from a writer that is still going.
SAFE_AGE_S = 600.0
_TEMP_NAME = re.compile(r"\..+\.[0-9a-f]{8}\.tmp")


def find(
    trees: Iterable[Path], shallow: Iterable[Path] = (), *, now: float | None = None
) -> Iterator[LeftoverFile]:
    """Every temp file of ours in these trees (and directly in the ``shallow`` folders);
    links are not followed, git's own folder is not entered."""
    clock = time.time() if now is None else now
    places: list[tuple[str, list[str]]] = []
    for tree in trees:
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            places.append((dirpath, filenames))
    for folder in shallow:
        try:
            places.append((str(folder), [e.name for e in os.scandir(folder) if e.is_file()]))
        except OSError:
            continue
    for dirpath, filenames in places:
        for name in filenames:
            if _TEMP_NAME.fullmatch(name) is None:
                continue
            path = Path(dirpath) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            yield LeftoverFile(str(path), info.st_size, max(0.0, clock - info.st_mtime))


def sweep(
    trees: Iterable[Path], shallow: Iterable[Path] = (), *, min_age_s: float = SAFE_AGE_S
) -> list[LeftoverFile]:
    """Remove the temp files older than ``min_age_s``; return what was removed."""
    swept = []
    for leftover in list(find(trees, shallow)):
        if leftover.age_s < min_age_s:
            continue
        try:
            Path(leftover.path).unlink()
        except FileNotFoundError:
            continue  # another sweep got there first
        except OSError:
            continue  # not ours to remove after all (permissions): it stays reported
        swept.append(leftover)
    return swept


def find_in_store(layout: StoreLayout) -> list[LeftoverFile]:
    """:func:`find` over a store: its note trees, and the files directly in its root."""
    return list(find([tree for tree, _scope in layout.trees()], [layout.root]))


def sweep_store(layout: StoreLayout, *, min_age_s: float | None = None) -> list[LeftoverFile]:
    """:func:`sweep` over a store (``min_age_s`` None: :data:`SAFE_AGE_S`)."""
    age = SAFE_AGE_S if min_age_s is None else min_age_s
    return sweep([tree for tree, _scope in layout.trees()], [layout.root], min_age_s=age)
