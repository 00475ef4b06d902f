"""Keep repositories fast after thousands of syncs: pack loose objects, merge packs.

Every commit leaves a few loose objects and every fetch or push a pack; each object
lookup may search every pack, so 2,000 packs make a no-op sync thirty times slower.

Packs are merged the way ``git repack --geometric=2`` does it: the small ones (each push
or fetch adds one) are rolled into one, and a pack at least twice as large as all the
smaller ones together is left alone. A store of 100,000 notes is not rewritten to add ten,
and the packs left are few (each at least twice the size of all below it). The objects
are copied one at a time as their packed bytes (pack_copy.py): memory holds where each
object is, never the objects (dulwich's own ``repack`` holds every object at once).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dulwich.client import LocalGitClient
from dulwich.object_store import DiskObjectStore
from dulwich.objects import ObjectID
from dulwich.pack import Pack
from dulwich.repo import Repo

from anamnesis.sync.objects.pack_copy import copy_packed
from anamnesis.sync.remote.connect import DEFAULT_TIMEOUT_S, open_client

# Loose objects beyond this are packed.
LOOSE_OBJECT_LIMIT = 500
# Beyond this many packs, the small ones are rolled into one (see the module docstring).
PACK_LIMIT = 8
# A pack stays as it is when it is at least this many times all the smaller ones together.
_GEOMETRIC_FACTOR = 2


def tidy(repo: Repo) -> None:
    """Pack loose objects and consolidate packs once either piles up."""
    store = repo.object_store
    if store.count_loose_objects() > LOOSE_OBJECT_LIMIT:
        store.pack_loose_objects()
    if isinstance(store, DiskObjectStore) and _pack_count(Path(store.path)) > PACK_LIMIT:
        roll_up_packs(store)


def tidy_remote(url: str) -> None:
    """Consolidate the packs pushes leave in a bare repository on this file system (a
    network remote tidies itself: its server runs ``git gc``).

    Only a bare repository, and only while no pack is being received (a ``.keep`` file).
    The merged pack is written before the old ones go, so a concurrent reader finds
    every object; at worst a fetch racing the cleanup fails once, and the next sync
    retries it. Nothing is pruned: objects no ref reaches stay. (An ssh remote is git's
    own: ``git receive-pack`` runs ``git gc --auto`` after a push.)
    """
    client, path = open_client(url, config=None, timeout_s=DEFAULT_TIMEOUT_S)
    if not isinstance(client, LocalGitClient):
        return
    with Repo(path) as target:
        if not target.bare:
            return
        store = target.object_store
        if isinstance(store, DiskObjectStore) and _pack_count(Path(store.path)) > PACK_LIMIT:
            roll_up_packs(store)


def _pack_count(objects: Path) -> int:
    try:
        return sum(path.suffix == ".pack" for path in (objects / "pack").iterdir())
    except OSError:
        return 0


def roll_up_packs(store: DiskObjectStore) -> int:
    """Merge the small packs of ``store`` into one (see the module docstring); return how
    many were merged. Nothing happens while a pack is being received (a ``.keep`` file).
    The store's open packs are closed at the end: use it no further."""
    folder = Path(store.path) / "pack"
    if any(path.suffix == ".keep" for path in folder.iterdir()):
        return 0
    packs = sorted(folder.glob("*.pack"), key=lambda path: path.stat().st_size)
    chosen = packs[: packs_to_merge([path.stat().st_size for path in packs])]
    if len(chosen) < 2:
        return 0
    ids = _object_ids(store, chosen)
    copy_packed(store, ids, store)
    store.close()  # the old packs' files are open (Windows cannot remove them then)
    for path in chosen:
        for sibling in folder.glob(f"{path.stem}.*"):  # .pack, .idx, .rev, .bitmap
            sibling.unlink(missing_ok=True)
    return len(chosen)


def packs_to_merge(sizes: Sequence[int]) -> int:
    """How many of the smallest packs (``sizes`` ascending) to roll into one: up to and
    including the largest pack smaller than twice all the packs below it."""
    merge, below = 0, 0
    for number, size in enumerate(sizes):
        if number and size < _GEOMETRIC_FACTOR * below:
            merge = number + 1
        below += size
    return merge


def _object_ids(store: DiskObjectStore, packs: list[Path]) -> list[ObjectID]:
    """Every object id in these packs, once each, read from their indexes."""
    seen: set[ObjectID] = set()
    out: list[ObjectID] = []
    for path in packs:
        pack = Pack(str(path.with_suffix("")), object_format=store.object_format)
        try:
            for sha in pack:
                if sha not in seen:
                    seen.add(sha)
                    out.append(sha)
        finally:
            pack.close()
    return out
