"""The evidence for hybrid search's fusion constants: one grid over the keyword weight and
the exponent of the best keyword hit's coverage, on the same keyword and vector rankings.

    uv run python -m bench.studies.fusion_grid [W:E ...]     # default: 0.3-0.5 x 0.5-2.0

For each setting, hybrid Recall@1/3/5/8 and MRR on devmemory, names-and-dates and
realmem-turns (built from ../shared's realmem when it is there), marked
BELOW where hybrid falls under keyword search at some k. Needs the vectors extra and the
offline model (ANAMNESIS_EMBED_MODEL_PATH, default ../shared/models/...-onnx-int8). Not in
``bench.suites``: `nox -s bench` does not run it. About 4 minutes, and
realmem-turns' embedding (minutes).
"""

from __future__ import annotations

import contextlib
import os
import sys

from anamnesis.store.exchange.recall_eval import load_cases, recall_at_k, sandbox
from anamnesis.store.search import fusion
from bench.common.corpora import make_turns
from bench.common.places import DEVMEMORY, NAMESDATES, OFFLINE_MODEL

CORPORA = {"devmemory": DEVMEMORY, "names-and-dates": NAMESDATES}
KS = (1, 3, 5, 8)


def main() -> None:
    os.environ.setdefault("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))
    grid = [(w, e) for w in (0.3, 0.35, 0.4, 0.45, 0.5) for e in (0.5, 1.0, 1.5, 2.0)]
    if len(sys.argv) > 1:
        grid = [(float(arg.split(":")[0]), float(arg.split(":")[1])) for arg in sys.argv[1:]]
    corpora = dict(CORPORA)
    turns = make_turns.build_cached()  # derived from ../shared's realmem; None without it
    if turns is not None:
        corpora[make_turns.NAME] = turns
    with contextlib.ExitStack() as stack:
        loaded = {}
        for name, folder in corpora.items():
            store, ids = stack.enter_context(sandbox(folder / "notes.jsonl"))
            store.embed_missing()
            cases = load_cases(folder / "queries.jsonl")
            keyword = recall_at_k(store, cases, KS, mode="keyword", id_map=ids)
            loaded[name] = (store, ids, cases, keyword)
        for weight, exponent in grid:
            # weight_for reads these module constants at each search: patched in place (the
            # paraphrase weight, and the lexical one with it: this grid is query-unaware).
            fusion.PARAPHRASE_WEIGHT = fusion.LEXICAL_WEIGHT = fusion.Weight(weight, exponent)
            cells = []
            for name, (store, ids, cases, keyword) in loaded.items():
                report = recall_at_k(store, cases, KS, mode="hybrid", id_map=ids)
                below = any(report.recall[k] < keyword.recall[k] for k in KS)
                recall = "/".join(f"{report.recall[k]:.3f}" for k in KS)
                cells.append(f"{name} {recall} {report.mrr:.3f}{' BELOW' if below else ''}")
            print(f"w={weight} e={exponent}: " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
