"""The usage prior's default (``search_modes.DEFAULT_USAGE_PRIOR``): on only if it loses
nothing at any k on devmemory and realmem, with usage as sessions would leave it.

    uv run python -m bench.studies.usage_prior [--weights 0.02,0.05,0.1,0.2] [--keyword-only]

Each set's cases are split in two halves (by position: even, odd). For one half, each case
is a session's look-up: its search (k = 8, the prior off) is recorded as ``searched``, and
the relevant notes among the hits as ``fetched`` (the agent read what answered it), with
one prompt's recall of the top hit when it is relevant (``recalled``). The other half is
then searched with the prior off and at each weight; then the halves swap. Every case is
searched once as the unseen one, so R@k and MRR cover every case as the plain benchmark
does (realmem within each case's project, as `recall_bench` searches it). A row whose
R@k falls below the prior-off row's at any k is a loss.

What the prior counts is the shipped set (``usage_prior.COUNTED``); ``--all-events`` counts
every event (searches' other hits too), for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from unittest import mock

from anamnesis.store import MemoryStore
from anamnesis.store.exchange.recall_eval import EvalCase, load_cases, sandbox
from anamnesis.store.search import usage_prior
from anamnesis.store.search.search_modes import USAGE_PRIOR_ENV
from anamnesis.store.vectors.embedding import MODEL_PATH_ENV, vector_support
from bench.common.places import DEVMEMORY, OFFLINE_MODEL, REALMEM

KS = (1, 3, 5, 8)
DEPTH = max(KS)
SETS = {"devmemory": (DEVMEMORY, False), "realmem": (REALMEM, True)}
WEIGHTS = (0.02, 0.05, 0.1, 0.2)


def prior(weight: float) -> AbstractContextManager[object]:
    """The prior at ``weight`` (0: off) meanwhile, as a user sets it."""
    return mock.patch.dict(os.environ, {USAGE_PRIOR_ENV: str(weight) if weight else "off"})


def relevant_ids(case: EvalCase, ids: dict[str, str]) -> set[str]:
    return {ids.get(item, item) for item in case.relevant}


def search_ids(store: MemoryStore, case: EvalCase, mode: str, within: bool) -> list[str]:
    project = case.project if within else None
    return [hit.id for hit in store.search(case.query, project=project, k=DEPTH, mode=mode)]


def record_history(
    store: MemoryStore, cases: Sequence[EvalCase], ids: dict[str, str], mode: str, within: bool
) -> None:
    """Each case as one session's look-up: searched, the answers fetched, a prompt's recall."""
    usage = store.usage
    with prior(0.0):
        for number, case in enumerate(cases):
            session = f"history-{number}"
            found = search_ids(store, case, mode, within)
            wanted = relevant_ids(case, ids)
            project = case.project or "global"
            usage.record("searched", found, project=project, session=session)
            answers = [note for note in found if note in wanted]
            if answers:
                usage.record("fetched", answers[:1], project=project, session=session)
            top = found[:1] if found and found[0] in wanted else []
            usage.record("recalled", top, project=project, session=session)


def ranks(
    store: MemoryStore, cases: Sequence[EvalCase], ids: dict[str, str], mode: str, within: bool
) -> list[int | None]:
    out: list[int | None] = []
    for case in cases:
        wanted = relevant_ids(case, ids)
        found = search_ids(store, case, mode, within)
        out.append(next((i for i, note in enumerate(found, 1) if note in wanted), None))
    return out


def summary(found: Sequence[int | None]) -> dict[str, float]:
    count = len(found)
    out = {f"R@{k}": sum(1 for r in found if r is not None and r <= k) / count for k in KS}
    out["MRR"] = sum(1 / r for r in found if r is not None) / count
    return out


def study(
    name: str, folder: Path, within: bool, modes: list[str], weights: Sequence[float]
) -> None:
    cases = [case for case in load_cases(folder / "queries.jsonl") if case.approved]
    halves = (cases[0::2], cases[1::2])
    with sandbox(folder / "notes.jsonl") as (store, ids):
        if "hybrid" in modes:
            started = time.perf_counter()
            store.embed_missing()
            print(f"{name}: embedded in {time.perf_counter() - started:.0f}s", file=sys.stderr)
        for mode in modes:
            rows: dict[str, list[int | None]] = {"off": [], **{str(w): [] for w in weights}}
            for unseen, seen in ((halves[0], halves[1]), (halves[1], halves[0])):
                store.usage.path.unlink(missing_ok=True)
                record_history(store, seen, ids, mode, within)
                for label in rows:
                    with prior(0.0 if label == "off" else float(label)):
                        rows[label] += ranks(store, unseen, ids, mode, within)
            base = summary(rows["off"])
            print(f"\n== {name}, {mode}: {len(cases)} cases, prior counts {usage_prior.COUNTED} ==")
            print(f"{'weight':>7} | " + " | ".join(f"{key:<5}" for key in base) + " | loss")
            for label, found in rows.items():
                figures = summary(found)
                lost = [key for key in base if key != "MRR" and figures[key] < base[key] - 1e-9]
                cells = " | ".join(f"{value:.3f}" for value in figures.values())
                print(f"{label:>7} | {cells} | {','.join(lost) or 'none'}")
                print(json.dumps({"study": "usage_prior", "set": name, "mode": mode,
                                  "weight": label, **{k: round(v, 4) for k, v in figures.items()},
                                  "loss_at": lost}))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", default=",".join(str(w) for w in WEIGHTS))
    parser.add_argument("--keyword-only", action="store_true")
    parser.add_argument("--all-events", action="store_true", help="count every event")
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args()
    if not os.environ.get(MODEL_PATH_ENV) and OFFLINE_MODEL.is_dir():
        os.environ[MODEL_PATH_ENV] = str(OFFLINE_MODEL)
    modes = ["keyword"]
    if not args.keyword_only and vector_support().available:
        modes.append("hybrid")
    if args.all_events:
        usage_prior.COUNTED = ("injected", "recalled", "searched", "fetched")
    weights = [float(w) for w in args.weights.split(",") if w]
    for name in args.sets.split(","):
        folder, within = SETS[name]
        if not (folder / "queries.jsonl").is_file():
            print(f"{name}: {folder} not found, skipped", file=sys.stderr)
            continue
        study(name, folder, within, modes, weights)


if __name__ == "__main__":
    main()
