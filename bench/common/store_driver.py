"""Runs inside the venv under test (ours or the published release's) and times the store.

Only API both releases share is used, so one script measures both the same way. Prints one
JSON object of raw per-call timings (seconds) on stdout.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--search-rounds", type=int, default=3)
    parser.add_argument("--list-rounds", type=int, default=5)
    parser.add_argument("--reindex-rounds", type=int, default=3)
    parser.add_argument(
        "--materialize",
        action="store_true",
        help="write the corpus as files directly (ours only), skip timed writes",
    )
    args = parser.parse_args()

    from anamnesis.store import MemoryStore

    notes = [json.loads(line) for line in Path(args.corpus).read_text().splitlines() if line]
    queries = [q for q in Path(args.queries).read_text().splitlines() if q]
    out: dict[str, Any] = {}
    if args.materialize:
        out["materialize_s"] = [materialize_notes(Path(args.root), notes)]
        store = MemoryStore(args.root)
    else:
        store = MemoryStore(args.root)
        writes = []
        for note in notes:
            started = time.perf_counter()
            store.write(
                type=note["type"],
                title=note["title"],
                body=note["body"],
                project=note["project"],
                tags=note["tags"],
                machine_id="bench",
            )
            writes.append(time.perf_counter() - started)
        out["write_s"] = writes
    out["reindex_s"] = _times(store.reindex, args.reindex_rounds)
    store.search(queries[0])  # first query pays one-off statement preparation
    searches = []
    for _ in range(args.search_rounds):
        for query in queries:
            started = time.perf_counter()
            store.search(query, k=8)
            searches.append(time.perf_counter() - started)
    out["search_s"] = searches
    out["list_s"] = _times(store.list, args.list_rounds)
    out["count"] = len(store.list())
    store.close()
    db = Path(args.root) / "index.db"
    out["index_bytes"] = sum(p.stat().st_size for p in db.parent.glob("index.db*"))
    print(json.dumps(out))


def _times(action: Any, rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return samples


def materialize_notes(root: Path, notes: list[dict[str, Any]]) -> float:
    """Write notes straight to disk with our codec (for the 100,000-note run)."""
    from anamnesis.store import Memory, new_id, serialize_note

    started = time.perf_counter()
    for note in notes:
        memory = Memory(
            id=new_id(),
            type=note["type"],
            title=note["title"],
            body=note["body"],
            project=note["project"],
            tags=note["tags"],
            machine_id="bench",
            created_at="2026-01-01T00:00:00+00:00",
            updated_at="2026-01-01T00:00:00+00:00",
        )
        path = root / "memory" / memory.type / f"{memory.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialize_note(memory), encoding="utf-8")
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
