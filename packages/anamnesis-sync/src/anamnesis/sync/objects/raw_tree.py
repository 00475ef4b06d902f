"""Every file of a tree, read from the trees' raw bytes as they are walked.

dulwich parses a tree into a dict of its entries, then sorts them to iterate: a folder of
100,000 notes is a 5 MB object that becomes about 40 MB of Python objects. A tree's bytes
are already its entries in order (``<mode> <name>\\0<20-byte id>``), so a walk that only
reads them once holds the bytes and the entry at hand, nothing more.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from typing import NamedTuple

from dulwich.object_store import BaseObjectStore
from dulwich.objects import ObjectID, RawObjectID, Tree, sha_to_hex

_SHA_LENGTH = 20


class File(NamedTuple):
    path: bytes
    mode: int
    sha: ObjectID


def files(store: BaseObjectStore, tree: ObjectID, prefix: bytes = b"") -> Iterator[File]:
    """Every non-folder entry under ``tree``, its path from the top, in tree order."""
    kind, data = store.get_raw(tree)
    if kind != Tree.type_num:
        raise ValueError(f"{tree.decode()} is not a tree")
    start = 0
    while start < len(data):
        space = data.index(b" ", start)
        nul = data.index(b"\0", space)
        mode = int(data[start:space], 8)
        name = data[space + 1 : nul]
        sha = sha_to_hex(RawObjectID(data[nul + 1 : nul + 1 + _SHA_LENGTH]))
        start = nul + 1 + _SHA_LENGTH
        path = prefix + name
        if stat.S_ISDIR(mode):
            yield from files(store, sha, path + b"/")
        else:
            yield File(path, mode, sha)
