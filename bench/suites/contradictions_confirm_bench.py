"""The contradiction set through `anamnesis review --confirm --wide` with the configured
model: recall and false pairs once a model has read the candidates (issue 42, item 1's
batch command).

    uv run python -m bench.suites.contradictions_confirm_bench [--splits NAME,...]
        [--ids ID,...] [--limit N] [--quick] [--max-calls N] [--home DIR] [--json PATH]

The provider is the one `anamnesis review --confirm` would use: ``ANAMNESIS_LLM_*``
variables over the ``llm.*`` settings of the store at ``--home`` (default: the store's
usual home). With none configured (``llm.provider`` is ``heuristic``, the default) the
suite says so and exits 0, asking nothing: no test calls a real provider, and the machine
this was written on reaches none. Every labelled pair is sent to the model: about 110
calls for the whole set at the default input budget, so choose ``--splits`` (the unseen
ones: ``validation,test``) or ``--limit`` to spend less; ``--quick`` is the test splits
alone (520 pairs, about 18 calls).

Each pair is written into one store as its own project, so the review pairs nothing else
with it: the rules' candidates (``contradictions()``) and the wider net
(``wider_candidates()``) are sent to the model together, as `review --confirm --wide`
sends them. Three rows, per group of splits (tuning, validation, test, all):
* the rules: what `review` lists with no model;
* with the model: the rules' pairs it did not call compatible, and the wider net's pairs
  it said contradict: what `review --confirm --wide` lists first (the pairs it dismissed
  are still listed, last and marked: a person may disagree with a model);
* the ceiling: the rules' pairs and the whole wider net, what a model confirming exactly
  the contradicting pairs would list.
Targets as in ``contradictions_bench``: recall >= 0.85, false pairs <= 0.10.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis.reflect import (
    confirm_contradictions,
    load_settings,
    make_provider,
    verdicts_for,
)
from anamnesis.reflect.contradiction_verdicts import COMPATIBLE, CONTRADICTS
from anamnesis.store import Contradiction, MemoryStore
from bench.common.contradiction_pairs import (
    FALSE_PAIR_TARGET,
    RECALL_TARGET,
    TEST_SPLITS,
    TUNING_SPLITS,
    VALIDATION_SPLITS,
    Pair,
    load,
    write,
)

HEURISTIC = "heuristic"
# Far more calls than the whole set needs: --max-calls bounds a run that should cost less.
ALL_CALLS = 10_000
GROUPS: dict[str, Sequence[str]] = {
    "tuning": TUNING_SPLITS,
    "validation": VALIDATION_SPLITS,
    "test": TEST_SPLITS,
}
ROWS = ("the rules", "with the model", "the ceiling")


@dataclass(frozen=True)
class Listed:
    """One labelled pair: whether each row lists it."""

    pair: Pair
    rules: bool
    with_model: bool
    ceiling: bool

    def row(self, name: str) -> bool:
        return {ROWS[0]: self.rules, ROWS[1]: self.with_model, ROWS[2]: self.ceiling}[name]


def chosen_pairs(splits: str | None, limit: int | None, ids: str | None = None) -> list[Pair]:
    """The set's pairs of the named splits or groups (``validation``, ``test``, ``tuning``,
    or split names; None: all), or of the named ``ids``, at most ``limit``."""
    pairs = load()
    if ids:
        wanted = {part.strip() for part in ids.split(",") if part.strip()}
        unknown = wanted - {pair.id for pair in pairs}
        if unknown:
            raise SystemExit(f"no such pair: {', '.join(sorted(unknown))}")
        pairs = [pair for pair in pairs if pair.id in wanted]
    if splits:
        names: set[str] = set()
        for name in (part.strip() for part in splits.split(",") if part.strip()):
            names.update(GROUPS.get(name, (name,)))
        unknown = names - {pair.split for pair in pairs}
        if unknown:
            raise SystemExit(f"no such split: {', '.join(sorted(unknown))}")
        pairs = [pair for pair in pairs if pair.split in names]
    return pairs[:limit] if limit is not None else pairs


def judged(
    store: MemoryStore, pairs: Sequence[Pair], home: Path | None, max_calls: int
) -> tuple[list[Listed], dict[str, Any]]:
    """Write each pair as its own project, ask the configured model about the rules' and
    the wider net's pairs, and say which row lists each labelled pair."""
    settings = load_settings(home)
    provider = make_provider(settings)
    by_project = {}
    for number, pair in enumerate(pairs):
        project = f"bench/{number}-{pair.id}"
        write(store, pair.older, project)
        write(store, pair.newer, project)
        by_project[project] = pair
    rules = store.contradictions()
    wider = store.wider_candidates()
    print(f"asking {provider.name} about {len(rules)} + {len(wider)} pairs", file=sys.stderr)
    report = confirm_contradictions(
        store, provider, rules, settings, wider=wider, max_calls=max_calls
    )
    verdicts = {ids: v.verdict for ids, v in verdicts_for(store, [*rules, *wider]).items()}

    def project_of(found: list[Contradiction], keep: str | None, drop: str | None) -> set[str]:
        return {
            pair.older.project
            for pair in found
            if (keep is None or verdicts.get(pair.ids) == keep)
            and (drop is None or verdicts.get(pair.ids) != drop)
        }

    by_rules = project_of(rules, None, None)
    kept_rules = project_of(rules, None, COMPATIBLE)
    confirmed = project_of(wider, CONTRADICTS, None)
    netted = project_of(wider, None, None)
    listed = [
        Listed(
            pair,
            rules=project in by_rules,
            with_model=project in kept_rules | confirmed,
            ceiling=project in by_rules | netted,
        )
        for project, pair in by_project.items()
    ]
    return listed, report.to_dict()


def scores(listed: Sequence[Listed]) -> dict[str, dict[str, dict[str, float | int | None]]]:
    """Recall and false-pair rate of each row, per group of splits and over all."""
    out: dict[str, dict[str, dict[str, float | int | None]]] = {}
    groups = {**GROUPS, "all": tuple({item.pair.split for item in listed})}
    for group, splits in groups.items():
        chosen = [item for item in listed if item.pair.split in splits]
        contradicting = [item for item in chosen if item.pair.contradicts]
        compatible = [item for item in chosen if not item.pair.contradicts]
        for row in ROWS:
            found = sum(item.row(row) for item in contradicting)
            wrong = sum(item.row(row) for item in compatible)
            out.setdefault(group, {})[row] = {
                "recall": found / len(contradicting) if contradicting else None,
                "false_pairs": wrong / len(compatible) if compatible else None,
                "contradicting": len(contradicting),
                "compatible": len(compatible),
            }
    return out


def print_scores(got: dict[str, dict[str, dict[str, float | int | None]]]) -> None:
    def cell(value: float | int | None) -> str:
        return "   -" if value is None else f"{value:.2f}"

    print(f"{'group':<11} {'row':<15} {'recall':>6} {'false':>6}  pairs")
    for group, rows in got.items():
        for row, numbers in rows.items():
            print(
                f"{group:<11} {row:<15} {cell(numbers['recall']):>6}"
                f" {cell(numbers['false_pairs']):>6}  {numbers['contradicting']} contradicting,"
                f" {numbers['compatible']} compatible"
            )
    print(f"targets: recall >= {RECALL_TARGET}, false pairs <= {FALSE_PAIR_TARGET}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", help="validation, test, tuning, or split names, by commas")
    parser.add_argument("--ids", help="these pairs only, by id, by commas")
    parser.add_argument("--limit", type=int, help="at most this many pairs")
    parser.add_argument("--quick", action="store_true", help="the test splits alone")
    parser.add_argument("--max-calls", type=int, default=ALL_CALLS, help="calls to the model")
    parser.add_argument("--home", type=Path, help="the store whose llm.* settings to use")
    parser.add_argument("--json", type=Path, help="write the scores and the batch's report")
    args = parser.parse_args(argv)
    if load_settings(args.home).provider == HEURISTIC:
        print(
            "no LLM is configured (llm.provider is heuristic): nothing to measure. Set one as"
            " for `anamnesis review --confirm` (llm.provider, llm.model, a key) and run again."
        )
        return 0
    splits = args.splits or ("test" if args.quick else None)
    pairs = chosen_pairs(splits, args.limit, args.ids)
    with (
        tempfile.TemporaryDirectory(prefix="anamnesis-confirm-bench-") as folder,
        MemoryStore(Path(folder) / "store") as store,
    ):
        listed, report = judged(store, pairs, args.home, args.max_calls)
    got = scores(listed)
    print(
        f"\n== {len(pairs)} pairs through review --confirm --wide: {report['provider']}"
        f" {report['model']}, {report['calls']} calls, ~{report['input_tokens']} input tokens"
        f", {report['not_sent']} not sent, {report['unanswered']} unanswered =="
    )
    print_scores(got)
    if not report["ok"]:
        print(f"the batch did not end well: {report['error'] or report['failures']}")
    if args.json:
        summary = {"bench": "contradictions_confirm", "scores": got, "report": report}
        args.json.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
