"""What the session-start block and prompt-time recall actually answer, and what they cost.

    uv run python -m bench.studies.inject_quality [--corpus devmemory,realmem] [--ks 4,8,12]
                                                  [--budgets 1000,2000,4000]

For each evaluation corpus (../shared/eval: devmemory, realmem), every query is a later
look-up in its project. A session in that project starts with the SessionStart block
(``select_inject`` at k notes per project, inject's default character budget); then the
query is the prompt, and prompt-time recall adds its notes (``select_recall`` within a
budget, never a note the block already showed). Reported per setting:

* **start**: the share of look-ups whose relevant note (any of them) was already in the
  session-start block;
* **start + prompt**: the share with a relevant note in the block or added for the prompt;
* **prompt added**: the share of prompts that got any note, and that got a relevant one;
* the characters spent (and tokens, estimated at 4 characters each): the block's median per
  project, and what the prompt added per prompt (mean over all prompts).

Queries without a project (devmemory has some) start sessions in the "global" project.
The store is searched by keywords (no model), as the hooks search.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass

from anamnesis.hooks.recall import recall_terms, render_recall, select_recall
from anamnesis.ops import INJECT_BUDGET, injected_ids, render_inject, select_inject
from anamnesis.store import EvalCase, MemoryStore, load_cases, sandbox
from bench.common.places import DEVMEMORY, REALMEM

CORPORA = {
    "devmemory": DEVMEMORY,
    "realmem": REALMEM,
}
GLOBAL = "global"
CHARS_PER_TOKEN = 4


@dataclass
class Outcome:
    k: int
    budget: int
    queries: int = 0
    in_start: int = 0
    in_either: int = 0
    prompts_added: int = 0
    prompts_relevant: int = 0
    prompt_chars: int = 0
    start_chars: tuple[int, ...] = ()

    def row(self) -> dict[str, float]:
        n = max(self.queries, 1)
        return {
            "k": self.k,
            "prompt_budget": self.budget,
            "start": self.in_start / n,
            "start_plus_prompt": self.in_either / n,
            "prompt_got_notes": self.prompts_added / n,
            "prompt_got_relevant": self.prompts_relevant / n,
            "start_chars_median": statistics.median(self.start_chars) if self.start_chars else 0,
            "prompt_chars_mean": self.prompt_chars / n,
        }


def measure(store: MemoryStore, ids: dict[str, str], cases: list[EvalCase], k: int,
            budget: int) -> Outcome:  # fmt: skip
    outcome = Outcome(k, budget)
    by_project: dict[str, list[EvalCase]] = defaultdict(list)
    for case in cases:
        by_project[case.project or GLOBAL].append(case)
    sizes = []
    for project, group in sorted(by_project.items()):
        block = select_inject(store, project=project, k=k, budget=INJECT_BUDGET)
        shown = set(injected_ids(block))
        sizes.append(len(render_inject(block)))
        for case in group:
            relevant = {ids.get(item, item) for item in case.relevant}
            added = select_recall(
                store, project=project, terms=recall_terms(case.query), shown=shown, budget=budget
            )
            added_ids = set(injected_ids(added))
            outcome.queries += 1
            outcome.in_start += bool(relevant & shown)
            outcome.in_either += bool(relevant & (shown | added_ids))
            outcome.prompts_added += bool(added_ids)
            outcome.prompts_relevant += bool(relevant & added_ids)
            outcome.prompt_chars += len(render_recall(added, shown))
    outcome.start_chars = tuple(sizes)
    return outcome


def print_table(name: str, rows: list[dict[str, float]]) -> None:
    print(f"\n== {name} ==")
    print("k  | prompt budget | start | start+prompt | prompt: any / relevant | "
          "block chars (tokens) | prompt chars (tokens)")  # fmt: skip
    for row in rows:
        block, prompt = row["start_chars_median"], row["prompt_chars_mean"]
        print(
            f"{row['k']:<2} | {row['prompt_budget']:>13} | {row['start']:.3f} | "
            f"{row['start_plus_prompt']:>12.3f} | "
            f"{row['prompt_got_notes']:.3f} / {row['prompt_got_relevant']:.3f}          | "
            f"{block:>7.0f} ({block / CHARS_PER_TOKEN:>5.0f})    | "
            f"{prompt:>6.0f} ({prompt / CHARS_PER_TOKEN:>4.0f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="devmemory,realmem")
    parser.add_argument("--ks", default="4,8,12")
    parser.add_argument("--budgets", default="1000,2000,4000")
    args = parser.parse_args()
    os.environ.setdefault("ANAMNESIS_SEARCH_MODE", "keyword")
    ks = [int(k) for k in args.ks.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    for name in args.corpus.split(","):
        folder = CORPORA[name]
        if not (folder / "queries.jsonl").is_file():
            print(f"{name}: {folder} not found, skipped", file=sys.stderr)
            continue
        rows = []
        with sandbox(folder / "notes.jsonl") as (store, ids):
            cases = load_cases(folder / "queries.jsonl")
            for k in ks:
                for budget in budgets:
                    rows.append(measure(store, ids, cases, k, budget).row())
        print_table(name, rows)
        print(json.dumps({"bench": "inject-quality", "corpus": name, "rows": rows}))


if __name__ == "__main__":
    main()
