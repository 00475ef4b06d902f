"""The evidence for ``stop_words.SHORT_QUERY``: keyword recall with a query's stop words
left out only up to N words, for several N, on the three evaluation corpora.

    uv run python -m bench.studies.short_query_grid [N ...]  # default: 0 14-20 24 10000

N = 0 is spec 002's ranking for every query (only a query of stop words alone is the same
either way); N = 10000 leaves stop words out of every query. For each N, keyword Recall@1/3/5/8
and MRR, marked BELOW where it falls under spec 002's ranking at some k. Keyword search
only: no model needed, about a minute. Not in ``bench.suites``: `nox -s bench` does not run it.
"""

from __future__ import annotations

import contextlib
import os
import sys

from anamnesis.store import KEYWORD_RANKING_ENV
from anamnesis.store.exchange.recall_eval import load_cases, recall_at_k, sandbox
from anamnesis.store.search import stop_words
from bench.common.places import DEVMEMORY, NAMESDATES, REALMEM

CORPORA = {
    "devmemory": (DEVMEMORY, False),
    "names-and-dates": (NAMESDATES, False),
    "realmem": (REALMEM, True),  # within each prompt's project
}
KS = (1, 3, 5, 8)


def main() -> None:
    grid = [int(arg) for arg in sys.argv[1:]] or [0, 14, 15, 16, 17, 18, 19, 20, 24, 10000]
    with contextlib.ExitStack() as stack:
        loaded = {}
        for name, (folder, within) in CORPORA.items():
            if not (folder / "notes.jsonl").is_file():
                print(f"{name}: {folder} is missing, skipped", file=sys.stderr)
                continue
            store, ids = stack.enter_context(sandbox(folder / "notes.jsonl"))
            cases = load_cases(folder / "queries.jsonl")
            os.environ[KEYWORD_RANKING_ENV] = "spec"
            spec = recall_at_k(store, cases, KS, mode="keyword", id_map=ids, use_project=within)
            os.environ.pop(KEYWORD_RANKING_ENV)
            loaded[name] = (store, ids, cases, within, spec)
        for short in grid:
            # content_terms reads the module constant at each call: patched in place.
            stop_words.SHORT_QUERY = short
            cells = []
            for name, (store, ids, cases, within, spec) in loaded.items():
                report = recall_at_k(
                    store, cases, KS, mode="keyword", id_map=ids, use_project=within
                )
                below = any(report.recall[k] < spec.recall[k] for k in KS)
                below = below or report.mrr < spec.mrr
                recall = "/".join(f"{report.recall[k]:.3f}" for k in KS)
                cells.append(f"{name} {recall} {report.mrr:.3f}{' BELOW' if below else ''}")
            print(f"N={short}: " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
