"""Keep repositories fast after thousands of syncs: pack loose objects, merge packs.

Every commit leaves a few loose objects and every fetch or push a pack; each object
lookup may search every pack, so 2,000 packs make a no-op sync thirty times slower.
"""

from __future__ import annotations

from pathlib import Path

from dulwich.client import LocalGitClient
from dulwich.repo import Repo

from anamnesis.sync.connect import DEFAULT_TIMEOUT_S, open_client

# Loose objects beyond this are packed.
LOOSE_OBJECT_LIMIT = 500
# Packs beyond this are consolidated into one.
PACK_LIMIT = 32


def tidy(repo: Repo) -> None:
    """Pack loose objects and consolidate packs once either piles up."""
    store = repo.object_store
    if _pack_count(Path(store.path)) > PACK_LIMIT:
        store.repack()  # takes the loose objects along
    elif store.count_loose_objects() > LOOSE_OBJECT_LIMIT:
        store.pack_loose_objects()


def tidy_remote(url: str) -> None:
    """Consolidate the packs pushes leave in a bare repository on this file system (a
    network remote tidies itself: its server runs ``git gc``).

    Only a bare repository, and only while no pack is being received (a ``.keep`` file).
    The consolidated pack is written before the old ones go, so a concurrent reader
    finds every object; at worst a fetch racing the cleanup fails once, and the next
    sync retries it. Nothing is pruned: objects no ref reaches stay.
    """
    client, path = open_client(url, config=None, timeout_s=DEFAULT_TIMEOUT_S)
    if not isinstance(client, LocalGitClient):
        return
    with Repo(path) as target:
        if not target.bare:
            return
        objects = Path(target.object_store.path)
        if _pack_count(objects) <= PACK_LIMIT:
            return
        if any(path.suffix == ".keep" for path in (objects / "pack").iterdir()):
            return
        target.object_store.repack()


def _pack_count(objects: Path) -> int:
    try:
        return sum(path.suffix == ".pack" for path in (objects / "pack").iterdir())
    except OSError:
        return 0
