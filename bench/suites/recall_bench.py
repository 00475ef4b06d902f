"""Recall and latency of every search mode, on two kinds of corpus, in one run.

    uv run nox -s bench                       # or, inside the dev venv:
    python -m bench.suites.recall_bench [--quick]

Recall@{1,3,5,8} and MRR for keyword, vector and hybrid search on
* devmemory (../shared/eval/devmemory): paraphrase look-ups, where vectors shine;
* names-and-dates (bench/common/corpora/namesdates): exact error codes, config keys, people,
  tickets and dates, where keyword search should decide;
* realmem (../shared/eval/realmem): 631 long conversational sessions and 717 later prompts,
  searched within each prompt's project (as a prompt in that project searches): the shape
  of episodic notes. `--no-realmem` skips it (embedding its long notes takes minutes).
Then latency at 2,000 notes of ~4 KB with embeddings cached: keyword and hybrid search
medians (the query's own embedding included) and write speed with and without vectors.

Targets: devmemory hybrid R@8 >= 0.87 and MRR >= 0.68, hybrid not below keyword at any k;
names-and-dates hybrid within 1 point of keyword; keyword <= 1.5 ms, hybrid <= 15 ms.
Vector modes need the vectors extra, a Python whose sqlite3 loads extensions, and a model:
ANAMNESIS_EMBED_MODEL_PATH (default: ../shared/models/all-MiniLM-L6-v2-onnx-int8).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from anamnesis.store import KEYWORD_RANKING_ENV, MemoryStore
from anamnesis.store.exchange.recall_eval import RecallReport, load_cases, recall_at_k, sandbox
from anamnesis.store.vectors.embedding import MODEL_PATH_ENV, default_embedder, vector_support
from bench.common import corpus
from bench.common.corpora import make_turns
from bench.common.places import EVALUATION_SETS, OFFLINE_MODEL, REALMEM

# Corpora searched within each query's project (the case's `project`), not the whole store.
WITHIN_PROJECT = {"realmem"}
KS = (1, 3, 5, 8)


def modes() -> list[str]:
    support = vector_support()
    if not support.available:
        print(f"vectors unavailable ({support.reason}): keyword only", file=sys.stderr)
        return ["keyword"]
    return ["keyword", "vector", "hybrid"]


@contextlib.contextmanager
def spec_keywords() -> Iterator[None]:
    """Keywords ranked as spec 002 ranks them (every word of the query) meanwhile."""
    before = os.environ.get(KEYWORD_RANKING_ENV)
    os.environ[KEYWORD_RANKING_ENV] = "spec"
    try:
        yield
    finally:
        if before is None:
            del os.environ[KEYWORD_RANKING_ENV]
        else:
            os.environ[KEYWORD_RANKING_ENV] = before


def recall(name: str, folder: Path, wanted: list[str]) -> dict[str, RecallReport]:
    reports: dict[str, RecallReport] = {}
    with sandbox(folder / "notes.jsonl") as (store, ids):
        cases = load_cases(folder / "queries.jsonl")
        if len(wanted) > 1:
            started = time.perf_counter()
            embedded = store.embed_missing()
            elapsed = time.perf_counter() - started
            count = store.embedding_status()["passages"]
            print(
                f"{name}: embedded {embedded} notes ({count} passages) in {elapsed:.1f}s:"
                f" {embedded / elapsed:.1f} notes/s, {count / elapsed:.1f} passages/s"
            )
        within = name in WITHIN_PROJECT
        with spec_keywords():  # spec 002's exact ranking, the baseline every mode must beat
            reports["spec"] = recall_at_k(
                store, cases, KS, mode="keyword", id_map=ids, use_project=within
            )
        for mode in wanted:
            reports[mode] = recall_at_k(store, cases, KS, mode=mode, id_map=ids, use_project=within)
    return reports


def print_recall(name: str, reports: dict[str, RecallReport]) -> None:
    print(f"\n== {name}: {next(iter(reports.values())).cases} queries ==")
    print(f"{'mode':>8} | " + " | ".join(f"R@{k:<3}" for k in KS) + " | MRR")
    for mode, report in reports.items():
        cells = " | ".join(f"{report.recall[k]:.3f}" for k in KS)
        print(f"{mode:>8} | {cells} | {report.mrr:.3f}")
        print(json.dumps({"bench": "recall", "corpus": name, **report.to_dict()}))


def latency(count: int, rounds: int, wanted: list[str]) -> None:
    notes = list(corpus.generate(count))
    queries = corpus.queries()
    print(f"\n== latency: {count} notes of ~4 KB, {len(queries)} distinct queries ==")
    results: dict[str, float] = {}
    with_vectors = len(wanted) > 1
    with contextlib.ExitStack() as stack:
        plain_root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="anamnesis-")))
        plain = stack.enter_context(MemoryStore(plain_root))
        stores = {"without vectors": plain}
        if with_vectors:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="anamnesis-")))
            stores["with vectors"] = stack.enter_context(
                MemoryStore(root, embedder=default_embedder(root))
            )
        # Each note goes to both stores in turn (alternating which goes first), so both
        # meet the disk in the same state. Filled one after the other, the second store
        # paid for the first one's writeback (2.6 against 3.4 ms/note in one run).
        took: dict[str, list[float]] = {label: [] for label in stores}
        for index, note in enumerate(notes):
            order = list(stores.items())
            for label, store in order if index % 2 else reversed(order):
                started = time.perf_counter()
                store.write(
                    type=note.type, title=note.title, body=note.body,
                    project=note.project, tags=note.tags,
                )  # fmt: skip
                took[label].append(time.perf_counter() - started)
        for label, samples in took.items():
            results[f"write {label}"] = statistics.median(samples) * 1000
            print(
                f"write ({label}): median {statistics.median(samples) * 1000:.2f} ms/note,"
                f" mean {statistics.fmean(samples) * 1000:.2f}"
            )
        results["keyword"] = _median_search(plain, queries, "keyword", rounds)
        if with_vectors:
            store = stores["with vectors"]
            started = time.perf_counter()
            embedded = store.embed_missing()
            elapsed = time.perf_counter() - started
            print(f"embedded {embedded} notes in {elapsed:.1f}s ({embedded / elapsed:.0f}/s)")
            for mode in ("keyword", "vector", "hybrid"):
                results[f"{mode} (vectors on)"] = _median_search(store, queries, mode, rounds)
    for name, value in results.items():
        if not name.startswith("write"):
            print(f"{name:>22}: {value:6.2f} ms median")
    print(json.dumps({"bench": "search-latency", "notes": count, "median_ms": results}))


def _median_search(store: MemoryStore, queries: list[str], mode: str, rounds: int) -> float:
    for query in queries[:5]:  # warm caches (and the model) before timing
        store.search(query, mode=mode)
    samples = []
    for _ in range(rounds):
        for query in queries:
            started = time.perf_counter()
            store.search(query, mode=mode)
            samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="500 notes, one round")
    parser.add_argument("--no-realmem", action="store_true", help="skip realmem (slow)")
    parser.add_argument("--recall-only", action="store_true", help="skip the latency part")
    parser.add_argument("--keyword-only", action="store_true", help="no vector modes")
    names = [*EVALUATION_SETS, make_turns.NAME]
    parser.add_argument("--corpus", action="append", choices=names, help="only this (repeatable)")
    args = parser.parse_args()
    if not os.environ.get(MODEL_PATH_ENV) and OFFLINE_MODEL.is_dir():
        os.environ[MODEL_PATH_ENV] = str(OFFLINE_MODEL)
    wanted = ["keyword"] if args.keyword_only else modes()
    for name in args.corpus or names:
        if name.startswith("realmem") and args.no_realmem and not args.corpus:
            continue
        # realmem-turns is derived from realmem on demand, into a cache keyed by its hash.
        folder = EVALUATION_SETS.get(name) or make_turns.build_cached() or REALMEM
        if not (folder / "notes.jsonl").is_file():
            print(f"{name}: {folder} not found, skipped", file=sys.stderr)
            continue
        print_recall(name, recall(name, folder, wanted))
    if not args.recall_only:
        latency(500 if args.quick else 2000, 1 if args.quick else 3, wanted)


if __name__ == "__main__":
    main()
