"""The evidence for the relevance floor of vector evidence (``fusion.VECTOR_FLOOR``).

    python -m bench.studies.relevance_floor [--floors 0,0.1,...] [--realmem]

Without a floor, vector and hybrid search always return k notes: every text lies at some
angle to every other, so a query about nothing "finds" the nearest notes. The floor keeps
a note that shares no word with the query out of the results unless its cosine similarity
reaches it. This script measures, with the offline model (../shared/models):

* for each candidate floor, hybrid and vector Recall@8 and MRR on devmemory and
  names-and-dates (and realmem, within each query's project, with ``--realmem``);
* the highest cosine similarity that nonsense queries (random letters) and off-topic
  queries (everyday questions a coding memory has no answer to) reach on each corpus, over
  the notes that share no word with them: what a floor must stay above.

Each row sets ``fusion.VECTOR_FLOOR`` (the floor for a query that shares a word with some
note) and ``fusion.UNSHARED_FLOOR`` (for one that shares none): a what-if, in this process
only. The first row, both at 0, is search without any floor.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import sys
from pathlib import Path

from anamnesis.store import MemoryStore
from anamnesis.store.exchange.recall_eval import load_cases, recall_at_k, sandbox
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.search import fusion
from anamnesis.store.search.query import match_expression, query_tokens
from anamnesis.store.vectors import vector_index
from anamnesis.store.vectors.embedding import MODEL_PATH_ENV, as_blob, vector_support
from bench.common.places import EVALUATION_SETS, OFFLINE_MODEL, REALMEM

DEFAULT_FLOORS = (0.1, 0.15, 0.2, 0.22, 0.25, 0.28, 0.3, 0.35, 0.4)
OFF_TOPIC = (
    "banana bread recipe with walnuts",
    "who painted the mona lisa",
    "best hiking trails in patagonia",
    "how tall is mount everest",
    "knitting a scarf for beginners",
    "football world cup winners list",
    "symptoms of a cold versus the flu",
    "cheap flights to lisbon in april",
    "how to grow tomatoes on a balcony",
    "famous poems about the ocean",
    "train my puppy to stop barking",
    "ancient roman emperors timeline",
    "what wine goes with salmon",
    "learn to play the ukulele chords",
    "birthday party ideas for kids",
    "the plot of pride and prejudice",
    "how do volcanoes erupt",
    "yoga poses for lower back pain",
    "origami crane folding steps",
    "history of the olympic games",
    "how to knit mittens",
    "recommended novels about dragons",
    "when does the farmers market open",
    "how to descale an espresso machine",
    "tips for a first marathon",
    "best beaches in thailand",
    "how to fold a fitted sheet",
    "difference between a crocodile and an alligator",
    "make sourdough starter at home",
    "why is the sky blue",
    "how many moons does jupiter have",
    "planting tulip bulbs in autumn",
    "what do cats dream about",
    "classical music for studying",
    "how to remove a red wine stain",
    "the rules of cricket explained",
    "wedding speech ideas for a best man",
    "how to care for a bonsai tree",
    "vegetarian lasagna with spinach",
    "the tallest waterfall in the world",
)


def nonsense_queries(count: int = 40, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(
            "".join(rng.choices(string.ascii_lowercase, k=rng.randint(5, 9)))
            for _ in range(rng.randint(1, 4))
        )
        for _ in range(count)
    ]


def highest_unshared_cosine(store: MemoryStore, queries: list[str]) -> list[float]:
    """For each query, the highest cosine of a note sharing none of its words."""
    embedder = store._vectors().embedder()
    conn = store._connection()
    store._vectors().load_into(conn)
    out = []
    for query in queries:
        vector = as_blob(embedder.embed_query(query))
        nearest = vector_index.nearest(conn, vector, embedder.model_id, Filters(), 200)
        tokens = query_tokens(query)
        sharing = {
            memory_id
            for (memory_id,) in conn.execute(
                "SELECT m.id FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid"
                " WHERE memories_fts MATCH ?",
                (match_expression(tokens),),
            )
        }
        out.append(max((c for m, c in nearest if m not in sharing), default=0.0))
    return out


CHOSEN = (fusion.VECTOR_FLOOR, fusion.UNSHARED_FLOOR)


def answered(store: MemoryStore, queries: list[str]) -> dict[str, int]:
    """How many of the queries return anything, per mode, with the chosen floors."""
    fusion.VECTOR_FLOOR, fusion.UNSHARED_FLOOR = CHOSEN
    return {
        mode: sum(1 for query in queries if store.search(query, mode=mode))
        for mode in ("keyword", "vector", "hybrid")
    }


def measure(
    name: str, folder: Path, floors: list[tuple[float, float]], *, use_project: bool = False
) -> dict[str, object]:
    cases = load_cases(folder / "queries.jsonl")
    rows = []
    with sandbox(folder / "notes.jsonl") as (store, ids):
        store.embed_missing()
        for floor, unshared in floors:
            fusion.VECTOR_FLOOR, fusion.UNSHARED_FLOOR = floor, unshared
            row: dict[str, object] = {"floor": floor, "unshared": unshared}
            for mode in ("hybrid", "vector"):
                report = recall_at_k(
                    store, cases, (1, 8), mode=mode, id_map=ids, use_project=use_project
                )
                row[mode] = {"R@1": report.recall[1], "R@8": report.recall[8], "MRR": report.mrr}
            rows.append(row)
            print(json.dumps({"bench": "relevance-floor", "corpus": name, **row}))
        ceilings = {
            "nonsense": highest_unshared_cosine(store, nonsense_queries()),
            "off-topic": highest_unshared_cosine(store, list(OFF_TOPIC)),
        }
        results = {
            "nonsense": answered(store, nonsense_queries()),
            "off-topic": answered(store, list(OFF_TOPIC)),
        }
    summary = {kind: _spread(values) for kind, values in ceilings.items()}
    print(json.dumps({"bench": "unrelated-cosine", "corpus": name, **summary}))
    print(json.dumps({"bench": "unrelated-answered", "corpus": name, **results}))
    return {"rows": rows, "unrelated": summary, "answered": results}


def _spread(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": round(ordered[len(ordered) // 2], 3),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "max": round(ordered[-1], 3),
    }


def print_table(name: str, result: dict[str, object]) -> None:
    print(f"\n== {name} ==")
    print(f"{'floor':>6} {'unshared':>8} | hybrid R@1 / R@8 / MRR | vector R@1 / R@8 / MRR")
    for row in result["rows"]:  # type: ignore[attr-defined]
        cells = []
        for mode in ("hybrid", "vector"):
            r = row[mode]
            cells.append(f"{r['R@1']:.3f} / {r['R@8']:.3f} / {r['MRR']:.3f}")
        print(f"{row['floor']:>6.2f} {row['unshared']:>8.2f} | {cells[0]:>22} | {cells[1]:>22}")
    for kind, spread in result["unrelated"].items():  # type: ignore[attr-defined]
        print(
            f"highest cosine of a note sharing no word, {kind} queries: "
            f"median {spread['median']:.3f}, p95 {spread['p95']:.3f}, max {spread['max']:.3f}"
        )
    floors = f"floors {CHOSEN[0]} / {CHOSEN[1]}"
    for kind, counts in result["answered"].items():  # type: ignore[attr-defined]
        shown = ", ".join(f"{mode} {count}" for mode, count in counts.items())
        print(f"{kind} queries with any result at the chosen {floors}: {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--floors", default=",".join(str(f) for f in DEFAULT_FLOORS))
    parser.add_argument("--realmem", action="store_true", help="also realmem (slow: long notes)")
    args = parser.parse_args()
    if not os.environ.get(MODEL_PATH_ENV) and OFFLINE_MODEL.is_dir():
        os.environ[MODEL_PATH_ENV] = str(OFFLINE_MODEL)
    support = vector_support()
    if not support.available:
        sys.exit(f"vectors unavailable here ({support.reason}): nothing to measure")
    unshared = fusion.UNSHARED_FLOOR
    floors = [(0.0, 0.0)] + [
        (float(value), max(float(value), unshared)) for value in args.floors.split(",")
    ]
    corpora = dict(EVALUATION_SETS)
    if args.realmem:
        corpora["realmem (within project)"] = REALMEM
    for name, folder in corpora.items():
        if not (folder / "notes.jsonl").is_file():
            print(f"{name}: {folder} not found, skipped", file=sys.stderr)
            continue
        print_table(name, measure(name, folder, floors, use_project=name.startswith("realmem")))


if __name__ == "__main__":
    main()
