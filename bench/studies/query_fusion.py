"""The evidence for query-aware fusion (``query_kind.py``'s thresholds and
``fusion.LEXICAL_WEIGHT``, with the weight a look-up gives each keyword hit's share of the
query's information), and issue 44's before/after tables, in one run.

    uv run python -m bench.studies.query_fusion [--root DIR] [--no-realmem] [--no-grid]

For every corpus (devmemory; names-and-dates; realmem, searched within each query's
project; realmem-turns, ``bench.common.corpora.make_turns``) one store is loaded and
embedded (``--root DIR`` keeps them for the next run: embedding realmem takes minutes), then:

1. **Tables**, real searches (``recall_at_k``): keyword, vector, hybrid as commit 7be1448
   fused it (every query weighed as a paraphrase: ``fusion.LEXICAL_WEIGHT`` set to
   ``PARAPHRASE_WEIGHT`` meanwhile, which is that commit's formula) and hybrid now.
   Under them, scored from the grid's inputs through the store's own ``classify`` and
   ``fuse``: "hybrid bdf9199", the first query-aware rule (the best hit's share of the
   query's *words*, anchors required), and "hybrid f07ff0e", main's rule before this one
   (the best hit's share of the query's information at least 0.45, keyword hits weighed by
   relative BM25 alone).
2. **Grid**: every query's fusion inputs are read once (the keyword ranking, the nearest
   vectors, each candidate's BM25, cosine and coverage, the words the best keyword hit
   holds, the words' document frequencies), then each rule of the grid is fused through
   the store's own ``classify`` and ``fuse``: how a look-up's keyword hit counts its own
   share of the query's information beside its relative BM25 (``shape``: ``product``, the
   store's weighted geometric mean, or ``sum``, a weighted arithmetic mean; ``held``: the
   information's weight, 0 = relative BM25 alone, f07ff0e's), the best hit's share of the
   query's information a look-up needs (coverage, also the share that is evidence by
   itself), the lexical weight; the longest lexical query stays 10 words.
   ``BELOW`` marks a corpus where hybrid falls under keyword search at some k, ``UNDER``
   devmemory or realmem under 7be1448's hybrid R@8 or MRR.
3. **Leave one corpus out**: for each corpus, the rule the grid would pick on the others
   (passing the guarantee there, then the highest mean MRR), measured on the one left out.

Needs the vectors extra and the offline model (``ANAMNESIS_EMBED_MODEL_PATH``, default
../shared/models/...). Not in ``bench.suites``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from anamnesis.store import MemoryStore
from anamnesis.store.exchange.recall_eval import (
    EvalCase,
    load_cases,
    load_notes,
    recall_at_k,
    sandbox,
)
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.search import fusion, hybrid
from anamnesis.store.search.query_kind import KindRule, classify, idf_shares
from anamnesis.store.vectors import vector_index
from bench.common.corpora import make_turns
from bench.common.places import DEVMEMORY, NAMESDATES, OFFLINE_MODEL, REALMEM

KS = (1, 3, 5, 8)
WITHIN_PROJECT = {"realmem"}
# Today's hybrid (7be1448) that hybrid must stay at or above (R@8, MRR).
KEEP_TODAY = ("devmemory", "realmem")
Metrics = tuple[float, float, float, float, float]  # R@1, R@3, R@5, R@8, MRR
# bdf9199's rule (the first query-aware fusion): the best hit's share of the query's words.
BY_WORDS = KindRule(min_coverage=0.5, rare_share=0.01, longest=10)
# f07ff0e's rule (main before this study's last change): the best hit's share of the
# query's information, keyword hits weighed by relative BM25 alone.
BY_INFORMATION = KindRule(min_coverage=0.45, informative=0.45, longest=10)
RELATIVE_BM25_ONLY = fusion.Weight(0.7, 1)


def corpora(no_realmem: bool) -> dict[str, Path]:
    found = {"devmemory": DEVMEMORY, "names-and-dates": NAMESDATES}
    if not no_realmem:
        found["realmem"] = REALMEM
    turns = make_turns.build_cached()
    if turns is not None:
        found[make_turns.NAME] = turns
    return {name: folder for name, folder in found.items() if (folder / "notes.jsonl").is_file()}


@contextlib.contextmanager
def corpus_store(
    name: str, folder: Path, root: Path | None
) -> Iterator[tuple[Any, dict[str, str]]]:
    """The corpus in a store, embedded: a sandbox, or ``root/name`` kept between runs."""
    if root is None:
        with sandbox(folder / "notes.jsonl") as (store, ids):
            store.embed_missing()
            yield store, ids
        return
    where = root / name
    saved = root / f"{name}.ids.json"
    with MemoryStore(where) as store:
        if saved.is_file():
            ids = json.loads(saved.read_text())
        else:
            ids = load_notes(store, folder / "notes.jsonl", namespace="notes")
            saved.write_text(json.dumps(ids))
        store.embed_missing()
        yield store, ids


@contextlib.contextmanager
def fused_as_before() -> Iterator[None]:
    """Hybrid as 7be1448 fused it: every query weighed as a paraphrase."""
    kept = fusion.LEXICAL_WEIGHT
    fusion.LEXICAL_WEIGHT = fusion.PARAPHRASE_WEIGHT
    try:
        yield
    finally:
        fusion.LEXICAL_WEIGHT = kept


def metrics_of(report: Any) -> Metrics:
    r = report.recall
    return (r[1], r[3], r[5], r[8], report.mrr)


def tables(
    store: Any, cases: list[EvalCase], ids: dict[str, str], within: bool
) -> dict[str, Metrics]:
    def run(mode: str) -> Metrics:
        return metrics_of(recall_at_k(store, cases, KS, mode=mode, id_map=ids, use_project=within))

    out = {"keyword": run("keyword"), "vector": run("vector")}
    with fused_as_before():
        out["hybrid 7be1448"] = run("hybrid")
    out["hybrid now"] = run("hybrid")
    return out


def inputs(
    store: Any, cases: list[EvalCase], ids: dict[str, str], within: bool
) -> list[dict[str, Any]]:
    """Every case's fusion inputs, read once (the store's own rankings and counts)."""
    search = store._search
    vectors = store._vectors()
    superseders = store.superseders()
    rows = []
    for case in cases:
        accepted = {ids.get(i, i) for i in case.relevant}
        todo = list(accepted)
        while todo:
            for newer in superseders.get(todo.pop(), ()):
                if newer not in accepted:
                    accepted.add(newer)
                    todo.append(newer)
        words, tokens = search._settings.terms(case.query)
        vector, model = vectors.query_vector(case.query, 0)

        def read(case: EvalCase = case, tokens: list[str] = tokens, words: list[str] = words,
                 vector: bytes = vector, model: str = model) -> dict[str, Any]:  # fmt: skip
            conn = store._index.connection()
            vectors.load_into(conn)
            ranker = search.ranker(conn)
            filters = Filters.checked(case.project if within else None, None, None, None, False)
            depth = hybrid.candidates_depth(KS[-1])
            keyword = ranker.ranked_ids(tokens, filters, depth) if tokens else []
            nearest = vector_index.nearest(conn, vector, model, filters, depth)
            every = list(dict.fromkeys([m for m, _ in keyword] + [m for m, _ in nearest]))
            shared = len(words) > len(tokens) and bool(ranker.ranked_ids(words, filters, 1))
            bm25 = hybrid._bm25_of(conn, tokens, every) if every and tokens else {}
            # which query words each candidate holds: one FTS5 look-up per word, for all
            held_by = hybrid.words_held_by(conn, tokens, every) if every and tokens else {}
            return {
                "keyword": keyword,
                "cos": vector_index.similarities(conn, vector, model, every) if every else {},
                "bm25": bm25,
                "cov": hybrid._coverage_of(tokens, held_by) if held_by else {},
                "shared": shared,
                "total": ranker.note_count(),
                "df": {t: ranker.notes_holding(t) for t in dict.fromkeys(tokens)},
                "held": sorted(held_by[keyword[0][0]]) if keyword else [],
                "held_by": {m: sorted(held_by[m]) for m in bm25},
            }

        row = store._index.run(read)
        row.update(query=case.query, tokens=tokens, accepted=accepted)
        rows.append(row)
    return rows


@contextlib.contextmanager
def evidence_shape(shape: str) -> Iterator[None]:
    """A look-up's keyword evidence as ``shape`` combines relative BM25 and the hit's share
    of the query's information: ``product`` is the store's (``fusion.keyword_evidence``, a
    weighted geometric mean); ``sum`` a weighted arithmetic mean, meanwhile."""
    kept = fusion.keyword_evidence

    def arithmetic(relative: float, held_information: float, weight: fusion.Weight) -> float:
        i = weight.information
        return relative if i <= 0 or relative <= 0 else (1 - i) * relative + i * held_information

    if shape == "sum":
        fusion.keyword_evidence = arithmetic
    try:
        yield
    finally:
        fusion.keyword_evidence = kept


def fused(
    row: dict[str, Any], rule: KindRule | None, weight: fusion.Weight, by_idf: bool = True
) -> list[str]:
    """The top 8 of one case under ``rule`` (None: every query a paraphrase); ``by_idf``:
    the best hit's share of the query's information weighed by IDF (False: by words, as
    bdf9199 weighed it, and no evidence by itself). A look-up (``rule`` says lexical) is
    fused with ``weight``, each keyword hit's share of the query's information counted as
    ``weight.information`` says."""
    keyword = [tuple(pair) for pair in row["keyword"]]
    chosen = fusion.PARAPHRASE_WEIGHT
    df = row["df"]
    if rule is not None and keyword:
        kind = classify(
            row["query"], row["tokens"], lambda t: df.get(t, 0), row["total"], keyword,
            row["cov"].get(keyword[0][0], 0.0), rule, set(row["held"]) if by_idf else None,
        )  # fmt: skip
        chosen = weight if kind.lexical else fusion.PARAPHRASE_WEIGHT
    floor = fusion.vector_floor(bool(keyword) or row["shared"])
    bm25 = row["bm25"]
    cosine = {m: c for m, c in row["cos"].items() if c >= floor or m in bm25}
    information: dict[str, float] = {}
    if chosen.information > 0:
        held_by = {m: set(words) for m, words in row["held_by"].items()}
        information = idf_shares(row["tokens"], held_by, lambda t: df.get(t, 0), row["total"])
    return fusion.fuse(keyword, bm25, cosine, KS[-1], row["cov"], chosen, information)


def score(rows: list[dict[str, Any]], rank: Callable[[dict[str, Any]], list[str]]) -> Metrics:
    found = [0, 0, 0, 0]
    reciprocal = 0.0
    for row in rows:
        got = rank(row)
        place = next((i for i, m in enumerate(got, 1) if m in row["accepted"]), None)
        if place is not None:
            reciprocal += 1 / place
            for i, k in enumerate(KS):
                found[i] += place <= k
    n = len(rows) or 1
    return (found[0] / n, found[1] / n, found[2] / n, found[3] / n, reciprocal / n)


def grid() -> Iterator[tuple[dict[str, Any], KindRule, fusion.Weight]]:
    """The evidence's shape, the weight of a hit's share of the query's information
    (``held``; 0: relative BM25 alone), the best hit's share of the query's information a
    look-up needs (coverage = informative), the lexical weight."""
    for shape, held, coverage, w in itertools.product(
        ("product", "sum"), (0.0, 0.5, 0.6, 0.7, 0.8, 1.0), (0.3, 0.35, 0.4, 0.45, 0.5),
        (0.6, 0.7, 0.8),
    ):  # fmt: skip
        if shape == "sum" and held == 0:
            continue  # the same rule as the product's
        params = {"shape": shape, "held": held, "min_coverage": coverage, "weight": w}
        rule = KindRule(min_coverage=coverage, informative=coverage, longest=10)
        yield params, rule, fusion.Weight(w, 1, held)


def cells(m: Metrics) -> str:
    return "/".join(f"{x:.3f}" for x in m[:4]) + f" {m[4]:.3f}"


def verdict(name: str, m: Metrics, base: dict[str, dict[str, Metrics]]) -> str:
    marks = []
    if any(m[i] < base[name]["keyword"][i] - 1e-9 for i in range(5)):
        marks.append("BELOW")
    if name in KEEP_TODAY:
        before = base[name]["before"]
        if m[3] < before[3] - 1e-9 or m[4] < before[4] - 1e-9:
            marks.append("UNDER")
    return " ".join(marks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, help="keep each corpus's store here")
    parser.add_argument("--no-realmem", action="store_true", help="skip realmem (slow)")
    parser.add_argument("--no-grid", action="store_true", help="the tables only")
    args = parser.parse_args()
    os.environ.setdefault("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))
    if args.root:
        args.root.mkdir(parents=True, exist_ok=True)
    collected: dict[str, list[dict[str, Any]]] = {}
    base: dict[str, dict[str, Metrics]] = {}
    for name, folder in corpora(args.no_realmem).items():
        within = name in WITHIN_PROJECT
        with corpus_store(name, folder, args.root) as (store, ids):
            cases = [case for case in load_cases(folder / "queries.jsonl") if case.approved]
            table = tables(store, cases, ids, within)
            print(f"\n== {name}: {len(cases)} queries ==")
            for mode, m in table.items():
                print(f"{mode:>15} | {cells(m)}")
                print(json.dumps({"study": "query_fusion", "corpus": name, "mode": mode,
                                  "metrics": [round(x, 4) for x in m]}))  # fmt: skip
            sys.stdout.flush()
            if not args.no_grid:
                collected[name] = inputs(store, cases, ids, within)
                before = score(
                    collected[name], lambda row: fused(row, None, fusion.PARAPHRASE_WEIGHT)
                )
                base[name] = {"keyword": table["keyword"], "before": before}
                words = score(
                    collected[name], lambda row: fused(row, BY_WORDS, RELATIVE_BM25_ONLY, False)
                )
                print(f"hybrid bdf9199 | {cells(words)}  (grid inputs: the first rule, by words)")
                main_rule = score(
                    collected[name], lambda row: fused(row, BY_INFORMATION, RELATIVE_BM25_ONLY)
                )
                print(f"hybrid f07ff0e | {cells(main_rule)}  (grid inputs: main's rule before)")
                for mode, m in (("hybrid bdf9199", words), ("hybrid f07ff0e", main_rule)):
                    print(json.dumps({"study": "query_fusion", "corpus": name, "mode": mode,
                                      "metrics": [round(x, 4) for x in m]}))  # fmt: skip
    if args.no_grid:
        return
    print("\n== grid (R@1/3/5/8 MRR; BELOW: under keyword at some k; UNDER: under 7be1448) ==")
    results = []
    for params, rule, weight in grid():

        def ranked(row: dict[str, Any], r: KindRule = rule, w: fusion.Weight = weight) -> list[str]:
            return fused(row, r, w)

        with evidence_shape(params["shape"]):
            got = {name: score(rows, ranked) for name, rows in collected.items()}
        results.append((params, got))
        line = " | ".join(f"{n} {cells(m)} {verdict(n, m, base)}".strip() for n, m in got.items())
        print(json.dumps(params), line, flush=True)
    print("\n== leave one corpus out: the rule chosen on the others, on the one left out ==")
    for held in collected:
        others = [n for n in collected if n != held]
        passing = [
            (params, got) for params, got in results
            if not any(verdict(n, got[n], base) for n in others)
        ]  # fmt: skip
        pool = passing or results
        params, got = max(pool, key=lambda pg: sum(pg[1][n][4] for n in others) / len(others))
        status = "passing" if passing else "none pass"
        print(
            f"{held}: chosen on {', '.join(others)} ({status}): {json.dumps(params)}"
            f" -> {held} {cells(got[held])} {verdict(held, got[held], base)}"
        )


if __name__ == "__main__":
    main()
