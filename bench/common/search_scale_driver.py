"""Runs under the store under test (ours, or a baseline checkout's on PYTHONPATH) and
times keyword searches on a large store, one at a time as the bench asks for them, so the
bench can alternate two checkouts search by search (both then meet the same load from
whatever else runs on the machine).

Prints a JSON line when the store is open (how long opening took: building the index
when it was not there), then reads searches from stdin, a line each (``project<TAB>query``,
an empty project for the whole store), and answers each with a JSON line: its seconds and
the ids found (so two checkouts' answers can be compared). At the end of stdin it prints
the index's size on disk.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main() -> None:
    root = Path(sys.argv[1])
    from anamnesis.store import MemoryStore

    started = time.perf_counter()
    store = MemoryStore(root)
    store.count()  # opening builds the index when it is missing or of another version
    store.search("warm up", mode="keyword")  # one-off statement preparation
    _say({"open_s": time.perf_counter() - started})
    for line in sys.stdin:
        project, query = line.rstrip("\n").split("\t", 1)
        started = time.perf_counter()
        hits = store.search(query, k=8, project=project or None, mode="keyword")
        _say({"seconds": time.perf_counter() - started, "ids": [hit.id for hit in hits]})
    store.close()
    _say({"index_bytes": sum(p.stat().st_size for p in root.glob("index.db*"))})


def _say(data: object) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
