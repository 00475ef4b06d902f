"""Runs under the store under test (ours, or a baseline checkout's on PYTHONPATH) and
times keyword search on a large store: the whole store, and each query within one
project. Prints one JSON object: raw per-search seconds, each search's ids (so two
checkouts' answers can be compared), how long opening took (building the index when it
was not there) and the index's size on disk."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--queries", required=True, type=Path)
    parser.add_argument("--projects", required=True, type=Path, help="project names, a line each")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--k", type=int, default=8)
    args = parser.parse_args()

    from anamnesis.store import MemoryStore

    queries = [q for q in args.queries.read_text().splitlines() if q]
    projects = [p for p in args.projects.read_text().splitlines() if p]
    out: dict[str, Any] = {"whole_s": [], "within_s": [], "whole_ids": [], "within_ids": []}
    started = time.perf_counter()
    store = MemoryStore(args.root)
    store.count()  # opening builds the index when it is missing or of another version
    out["open_s"] = time.perf_counter() - started
    store.search(queries[0], mode="keyword")  # one-off statement preparation
    for round_number in range(args.rounds):
        for number, query in enumerate(queries):
            project = projects[number % len(projects)]
            for key, scope in (("whole", None), ("within", project)):
                started = time.perf_counter()
                hits = store.search(query, k=args.k, project=scope, mode="keyword")
                out[f"{key}_s"].append(time.perf_counter() - started)
                if round_number == 0:
                    out[f"{key}_ids"].append([hit.id for hit in hits])
    store.close()
    out["index_bytes"] = sum(p.stat().st_size for p in args.root.glob("index.db*"))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
