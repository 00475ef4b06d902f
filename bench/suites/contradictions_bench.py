"""Contradiction candidates on the measured set, beside a "same title" baseline, and what
finding them costs at 2,000 notes (issue 42, items 1, 3 and 7).

    uv run python -m bench.suites.contradictions_bench [--quick] [--notes N] [--runs N]
        [--keyword-only | --vectors-only] [--root DIR] [--misses PATH] [--json PATH]
        [--costs-only]

The set is ``bench/contradictions/pairs.jsonl`` (its README says how it was written and
the label rules): pairs of notes of one project, each labelled ``contradicts`` or
``compatible`` (they only look alike), with a kind and a split (``dev``, which the finder
is tuned on; ``held_out``, written with dev; ``fresh``, written later and blind, tuned on
since issue 42's third session; ``fresh2`` to ``fresh8``, blind splits written the same
way by other helpers who never read the finder, each measured blind and then tuned on, on
2026-11-30; ``fresh9`` and ``fresh11``, measured blind twice, then read and tuned on from
2026-11-30's second session; ``fresh10`` and ``fresh12``, and from 2026-11-30's fifth
session ``fresh17`` and ``fresh18`` (written blind at its start), and from 2026-12-01
``fresh23`` and ``fresh24`` (counted blind once first), never read, whose counts chose
which rules stay (validation); ``fresh13`` and ``fresh14``, and from
2026-11-30's sixth session ``fresh19`` and ``fresh20``, never read nor used to choose
anything (test): the honest estimate of a stranger's notes; ``fresh15`` and ``fresh16``,
counted blind, then read and tuned on).

Each pair gets a fresh store: a copy of one store of N corpus notes (``corpus.generate``,
the notes the other suites use), the older note written into it, then the newer one.
* write time: ``MemoryStore.possible_contradictions(newer)`` right after the newer note
  is written; found when the older note is among the answers;
* review: ``MemoryStore.contradictions(project=...)`` of the pair's project (what the whole
  store's review lists for that project, without listing every other project's pairs again
  for each of the set's pairs); found when the pair is among them.
Both run keyword-only (no vectors in the index, ``ANAMNESIS_SEARCH_MODE=keyword``) and with
vectors (every note embedded by the offline model; the newer note only after the write-time
check, as a real write meets it), where the vectors extra and the model are here.
The baseline is ``contradiction_pairs.same_title``: the two titles share most words.
Beside them, a ceiling (:data:`WIDER`): the review's pairs and the store's wider net
(``MemoryStore.wider_candidates``), which `anamnesis review --confirm --wide` sends a model;
its recall is what a model confirming exactly the contradicting pairs would list, its false
pairs what such a model must dismiss. How many wider pairs the corpus alone holds is the
cost's line: a first `--wide` run's load.

Candidate recall is the share of ``contradicts`` pairs found; the false-pair rate is the
share of ``compatible`` pairs found; per split and per kind. Targets: recall >= 0.85,
false pairs <= 0.10. Then the cost, on one store of N corpus notes plus the set's notes:
``possible_contradictions`` for a note just written (median over the set's newer notes,
target <= 5 ms at 2,000 notes), ``contradictions()`` in process and ``anamnesis review
--json --limit 0`` as a process (medians, target < 2 s), and that process again on the N
corpus notes alone with its memo removed before each run: every pair compared, as a first
review on a machine, or the first after an upgrade changed the rules, meets it.
``--costs-only`` measures these alone, scoring no pair: at 2,000 notes, minutes where the
whole run takes over an hour.

``--root DIR`` keeps the stores there and reuses the corpus stores of an earlier run made
the same way (embedding 2,000 notes takes minutes). ``--misses PATH`` writes what was
missed and what was proposed wrongly, by kind, for the tuning splits (:data:`TUNING_SPLITS`:
dev, and fresh to fresh9, fresh11, fresh15 and fresh16 since they were tuned on); every
other split (held_out, and the blind fresh10, fresh12, fresh13, fresh14, fresh17 to
fresh20) is only counted there, so it stays held out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis.store import Contradiction, MemoryStore, vector_support
from anamnesis.store.review.pair_memo import MEMO_FILE
from anamnesis.store.vectors.embedding import MODEL_PATH_ENV
from bench.common import corpus
from bench.common.contradiction_pairs import (
    COMPATIBLE_KINDS,
    CONTRADICTING_KINDS,
    FALSE_PAIR_TARGET,
    RECALL_TARGET,
    SPLITS,
    TUNING_SPLITS,
    Pair,
    Side,
    Titled,
    load,
    same_title,
    same_title_pairs,
    write,
)
from bench.common.places import OFFLINE_MODEL
from bench.common.processes import BASE_ENV, Ran, run_measured
from bench.common.stats import p95

CHECK_TARGET_MS = 5.0
REVIEW_TARGET_S = 2.0
BASELINE = "same title"
SEARCH_MODE_ENV = "ANAMNESIS_SEARCH_MODE"
# The review's pairs and the store's wider net together (``wider_candidates``): what a
# reader who confirmed exactly the contradicting pairs would list, `review --confirm --wide`
# with a perfect model. A ceiling, not a finder: its false pairs are the look-alikes such a
# reader has to dismiss, so no target is checked on it.
WIDER = "+ wider, "


def vectors_here() -> str | None:
    """Why the vectors mode is skipped (None: it runs)."""
    support = vector_support()
    if not support.available:
        return f"vectors extra unavailable: {support.reason}"
    model = os.environ.get(MODEL_PATH_ENV)
    if not model or not Path(model).is_dir():
        return f"no offline model ({MODEL_PATH_ENV} unset and none at {OFFLINE_MODEL})"
    return None


@contextlib.contextmanager
def search_mode(mode: str) -> Iterator[None]:
    """Keyword mode: searches never reach for vectors, even where the extra could run."""
    before = os.environ.get(SEARCH_MODE_ENV)
    if mode == "keyword":
        os.environ[SEARCH_MODE_ENV] = "keyword"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SEARCH_MODE_ENV, None)
        else:
            os.environ[SEARCH_MODE_ENV] = before


def build_template(root: Path, count: int) -> None:
    with MemoryStore(root) as store:
        for note in corpus.generate(count):
            store.write(
                type=note.type, title=note.title, body=note.body, project=note.project,
                tags=note.tags, machine_id="bench",
            )  # fmt: skip


def embed_template(keyword: Path, root: Path) -> None:
    shutil.copytree(keyword, root)
    started = time.perf_counter()
    with MemoryStore(root) as store:
        count = store.embed_missing()
    took = time.perf_counter() - started
    print(f"vectors: embedded {count} corpus notes in {took:.0f} s", file=sys.stderr)


def template(path: Path, made: dict[str, Any], build: Callable[[Path], None]) -> Path:
    """The store of corpus notes at ``path``, built unless a kept one (``--root``) was made
    the same way (``made``, written beside it): embedding 2,000 notes takes minutes."""
    marker = path.with_name(path.name + ".json")
    if path.is_dir() and marker.is_file() and json.loads(marker.read_text()) == made:
        print(f"reusing {path}", file=sys.stderr)
        return path
    shutil.rmtree(path, ignore_errors=True)
    build(path)
    marker.write_text(json.dumps(made), encoding="utf-8")
    return path


@contextlib.contextmanager
def stores_root(kept: Path | None) -> Iterator[Path]:
    """``--root`` (kept, its templates reused by the next run), else a temporary folder."""
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
        yield kept
        return
    with tempfile.TemporaryDirectory(prefix="anamnesis-contradictions-") as tmp:
        yield Path(tmp)


# --- scoring ------------------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    """What each finder said about one pair: found or not, and the differences it gave."""

    pair: Pair
    found: dict[str, bool] = field(default_factory=dict)
    differs: dict[str, list[str]] = field(default_factory=dict)


def _same_pair(candidate: Contradiction, a: str, b: str) -> bool:
    return set(candidate.ids) == {a, b}


def _described(candidate: Contradiction) -> list[str]:
    return [f"{d.kind}: {d.old!r} -> {d.new!r}" for d in candidate.differs]


def score_all(store: Path, root: Path, outcomes: list[Outcome], mode: str) -> None:
    """Score every pair of the set in ``mode`` (:func:`score_pair`), saying how far it got."""
    started = time.perf_counter()
    for number, outcome in enumerate(outcomes, 1):
        score_pair(store, root / "pair", outcome, mode)
        if number % 25 == 0:
            print(f"{mode}: {number} pairs scored", file=sys.stderr, flush=True)
    took = time.perf_counter() - started
    print(f"{mode}: scored {len(outcomes)} pairs in {took:.0f} s", file=sys.stderr)


def score_pair(template: Path, work: Path, outcome: Outcome, mode: str) -> None:
    pair = outcome.pair
    shutil.rmtree(work, ignore_errors=True)  # a run stopped halfway leaves its last pair
    shutil.copytree(template, work)
    try:
        with MemoryStore(work) as store:
            older = write(store, pair.older, pair.project)
            if mode == "vectors":
                store.embed_missing()
            newer = write(store, pair.newer, pair.project)
            at_write = [c for c in store.possible_contradictions(newer) if older.id in c.ids]
            if mode == "vectors":
                store.embed_missing()
            listed = store.contradictions(project=pair.project)
            at_review = [c for c in listed if _same_pair(c, older.id, newer.id)]
            wider = store.wider_candidates(project=pair.project)
            at_wider = at_review or [c for c in wider if _same_pair(c, older.id, newer.id)]
    finally:
        shutil.rmtree(work)
    found = ((f"write, {mode}", at_write), (f"review, {mode}", at_review),
             (f"{WIDER}{mode}", at_wider))  # fmt: skip
    for name, hits in found:
        outcome.found[name] = bool(hits)
        outcome.differs[name] = _described(hits[0]) if hits else []


def rates(outcomes: Sequence[Outcome], finder: str) -> dict[str, float | None]:
    contradicting = [o.found[finder] for o in outcomes if o.pair.contradicts]
    compatible = [o.found[finder] for o in outcomes if not o.pair.contradicts]
    return {
        "recall": sum(contradicting) / len(contradicting) if contradicting else None,
        "false_pairs": sum(compatible) / len(compatible) if compatible else None,
    }


def _cell(value: float | None) -> str:
    return "   -" if value is None else f"{value:.2f}"


def print_scores(outcomes: list[Outcome], finders: list[str], notes: int) -> dict[str, Any]:
    contradicting = sum(o.pair.contradicts for o in outcomes)
    print(
        f"\n== contradiction candidates: {len(outcomes)} pairs ({contradicting} contradicting,"
        f" {len(outcomes) - contradicting} compatible), each among {notes} corpus notes =="
    )
    print("recall: contradicting pairs found; false: compatible pairs found")
    groups: dict[str, str | None] = {split: split for split in SPLITS}
    groups["all"] = None
    print(f"{'finder':<18} | " + " | ".join(f"{name:^13}" for name in groups))
    print(f"{'':<18} | " + " | ".join(f"{'recall':>6} {'false':>6}" for _ in groups))
    scores: dict[str, Any] = {}
    for finder in finders:
        cells = []
        for name, split in groups.items():
            chosen = [o for o in outcomes if split is None or o.pair.split == split]
            scores.setdefault(name, {})[finder] = got = rates(chosen, finder)
            cells.append(f"{_cell(got['recall']):>6} {_cell(got['false_pairs']):>6}")
        print(f"{finder:<18} | " + " | ".join(cells))
    print(f"targets: recall >= {RECALL_TARGET}, false pairs <= {FALSE_PAIR_TARGET}")
    if any(finder.startswith(WIDER) for finder in finders):
        print(
            f"{WIDER.strip(', ')}: the review and the wider net, a ceiling for review --confirm"
            " --wide (recall if a model confirmed exactly the contradicting pairs; false: the"
            " look-alikes it must dismiss); no target is checked on it"
        )
    for finder in finders:
        if finder == BASELINE or finder.startswith(WIDER):
            continue
        for split in SPLITS:
            got = scores[split][finder]
            if got["recall"] is None or got["false_pairs"] is None:
                print(f"  {finder:<18} {split:<8}: no pairs of both labels")
                continue
            ok = got["recall"] >= RECALL_TARGET and got["false_pairs"] <= FALSE_PAIR_TARGET
            print(f"  {finder:<18} {split:<8}: {'OK' if ok else 'MISSED'}")
    return scores


_SHORTER = {"same title": "title", "write, ": "write ", "review, ": "rev ", WIDER: "+wide ",
            "keyword": "kw", "vectors": "vec"}  # fmt: skip


def _short(finder: str) -> str:
    """A finder's name in a 9-character column."""
    for word, abbreviation in _SHORTER.items():
        finder = finder.replace(word, abbreviation)
    return finder


def print_kinds(outcomes: list[Outcome], finders: list[str]) -> dict[str, Any]:
    """Found / pairs of each kind, one table per tuning split (:data:`TUNING_SPLITS`). A
    blind split's counts by kind would say which kinds to tune for on it: it is counted
    whole only, in the table of splits."""
    per_kind: dict[str, Any] = {}
    for split in TUNING_SPLITS:
        print(f"\n== per kind, {split} (found / pairs) ==")
        print(f"{'kind':<17} | " + " | ".join(f"{_short(f):>9}" for f in finders))
        for kinds in (CONTRADICTING_KINDS, COMPATIBLE_KINDS):
            if kinds is COMPATIBLE_KINDS:
                print("-- compatible --")
            for kind in kinds:
                chosen = [o for o in outcomes if o.pair.split == split and o.pair.kind == kind]
                counts = {f: [sum(o.found[f] for o in chosen), len(chosen)] for f in finders}
                per_kind.setdefault(split, {})[kind] = counts
                cells = " | ".join(f"{f'{n}/{total}':>9}" for n, total in counts.values())
                print(f"{kind:<17} | {cells}")
    return per_kind


def write_misses(path: Path, outcomes: list[Outcome], finders: list[str], header: str) -> None:
    """The tuning splits' misses and false pairs (:data:`TUNING_SPLITS`), by kind, for
    whoever tunes the finder; every other split only as counts, so that it stays held out."""
    lines = ["# Contradiction bench: misses and false pairs", "", header]
    for split in TUNING_SPLITS:
        tuned = [o for o in outcomes if o.pair.split == split]
        for finder in finders:
            if finder != BASELINE and not finder.startswith(WIDER):  # a ceiling: counted
                lines += _named_misses(tuned, finder, split)
    for split in sorted({o.pair.split for o in outcomes} - set(TUNING_SPLITS)):
        held = [o for o in outcomes if o.pair.split == split]
        contradicting = sum(o.pair.contradicts for o in held)
        compatible = len(held) - contradicting
        lines += [
            "",
            f"## {split}: counts only",
            "",
            "| finder | missed | false pairs |",
            "|---|---|---|",
        ]
        for finder in finders:
            missed_n = sum(o.pair.contradicts and not o.found[finder] for o in held)
            wrong_n = sum(not o.pair.contradicts and o.found[finder] for o in held)
            lines.append(
                f"| {finder} | {missed_n} of {contradicting} | {wrong_n} of {compatible} |"
            )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\nmisses written to {path}")


def _named_misses(tuned: list[Outcome], finder: str, split: str) -> list[str]:
    """One tuning split's misses and false pairs under one finder, each by id and titles."""
    got = rates(tuned, finder)
    missed = [o for o in tuned if o.pair.contradicts and not o.found[finder]]
    wrong = [o for o in tuned if not o.pair.contradicts and o.found[finder]]
    lines = [
        "", f"## {finder} ({split}): recall {_cell(got['recall'])},"
        f" false pairs {_cell(got['false_pairs'])}",
        "", f"### Missed contradictions ({len(missed)})", "",
    ]  # fmt: skip
    for o in sorted(missed, key=lambda o: (CONTRADICTING_KINDS.index(o.pair.kind), o.pair.id)):
        lines.append(
            f'- `{o.pair.id}` ({o.pair.kind}): "{o.pair.older.title}" / "{o.pair.newer.title}"'
        )
    lines += ["", f"### False pairs: compatible pairs proposed ({len(wrong)})", ""]
    for o in sorted(wrong, key=lambda o: (COMPATIBLE_KINDS.index(o.pair.kind), o.pair.id)):
        said = "; ".join(o.differs[finder]) or "no difference given"
        lines.append(
            f'- `{o.pair.id}` ({o.pair.kind}): "{o.pair.older.title}" /'
            f' "{o.pair.newer.title}": {said}'
        )
    return lines


# --- cost -----------------------------------------------------------------------------------


def review_command() -> list[str]:
    cli = Path(sys.executable).parent / "anamnesis"
    command = [str(cli)] if cli.exists() else [sys.executable, "-m", "anamnesis.cli"]
    return [*command, "review", "--json", "--limit", "0"]  # every pair, as in process


def cli_review(home: Path, mode: str, runs: int, *, forget: Path | None = None) -> dict[str, Any]:
    """``anamnesis review --json --limit 0`` (every pair) as a process: the median of
    ``runs`` after a warm-up. ``forget``: the review memo, removed before each run, so
    that every pair is compared as on a review's first run on a machine or after an
    upgrade changed the finder's rules (a memo made by other rules is not used)."""
    env = {**BASE_ENV, "ANAMNESIS_HOME": str(home)}
    if mode == "keyword":
        env[SEARCH_MODE_ENV] = "keyword"
    elif os.environ.get(MODEL_PATH_ENV):
        # the offline model the in-process review embeds with (set after BASE_ENV was
        # taken): without it the process would look for candidates by keyword alone
        env[MODEL_PATH_ENV] = os.environ[MODEL_PATH_ENV]

    def once() -> Ran:
        if forget is not None:
            forget.unlink(missing_ok=True)
        return run_measured(review_command(), env)

    first = once()
    if first.code != 0:
        said = first.last_error_line() or f"exit {first.code}"
        return {"skipped": "no review command here" if "No such command" in said else said}
    try:
        found = len(json.loads(first.out)["contradictions"])
    except (ValueError, KeyError, TypeError):
        return {"skipped": "its output is not review's JSON"}
    samples = [once().seconds for _ in range(runs)]
    return {"median_s": statistics.median(samples), "candidates": found}


def costs(template: Path, root: Path, pairs: list[Pair], mode: str, runs: int) -> dict[str, Any]:
    """The write-time check for each of the set's newer notes written into the corpus
    store (the older notes already there), then review over everything."""
    home = root / f"cost-{mode}"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(template, home)
    with MemoryStore(home) as store:
        memo = store.layout.cache_dir / MEMO_FILE
        corpus_notes = store.count()
        # What review lists among the corpus alone: no pair of it is labelled, so every one
        # is a pair a user would read; a rule that adds many here adds noise.
        corpus_candidates = len(store.contradictions())
        # What `review --confirm --wide` sends a model on its first run over the corpus.
        corpus_wider = len(store.wider_candidates())
    # The corpus alone (N notes), every pair compared: the review nothing is remembered for
    review_cold = cli_review(home, mode, runs, forget=memo)
    with MemoryStore(home) as store:
        for pair in pairs:
            write(store, pair.older, pair.project)
        if mode == "vectors":
            store.embed_missing()
        warm = write(store, Side("semantic", "Warm-up", "Warm the finder's caches.", ()), "global")
        store.possible_contradictions(warm)
        check_ms: list[float] = []
        check_cpu_ms: list[float] = []
        write_ms: list[float] = []
        for pair in pairs:
            started = time.perf_counter()
            newer = write(store, pair.newer, pair.project)
            written, cpu = time.perf_counter(), time.process_time()
            store.possible_contradictions(newer)
            check_cpu_ms.append((time.process_time() - cpu) * 1000)
            write_ms.append((written - started) * 1000)
            check_ms.append((time.perf_counter() - written) * 1000)
        if mode == "vectors":
            store.embed_missing()
        notes = store.count()
        review_s: list[float] = []
        review_cpu_s: list[float] = []
        candidates = 0
        for _ in range(runs):
            started, cpu = time.perf_counter(), time.process_time()
            candidates = len(store.contradictions())
            review_cpu_s.append(time.process_time() - cpu)
            review_s.append(time.perf_counter() - started)
        # Baseline noise for comparison: what the same-title finder proposes over the store.
        live = store.list(include_superseded=False, include_body=False)
        titled = [Titled(m.id, m.type, m.project, m.title) for m in live]
        baseline_pairs = sum(1 for _ in same_title_pairs(titled))
    review_cli = cli_review(home, mode, runs)
    return {
        "notes": notes,
        "check_median_ms": statistics.median(check_ms),
        "check_p95_ms": p95(check_ms),
        "check_cpu_median_ms": statistics.median(check_cpu_ms),
        "write_median_ms": statistics.median(write_ms),
        "review_median_s": statistics.median(review_s),
        "review_cpu_median_s": statistics.median(review_cpu_s),
        "review_candidates": candidates,
        "corpus_candidates": corpus_candidates,
        "corpus_wider": corpus_wider,
        "corpus_notes": corpus_notes,
        "baseline_candidates": baseline_pairs,
        "review_cli": review_cli,
        "review_cli_no_memo": review_cold,
    }


def print_costs(mode: str, got: dict[str, Any]) -> None:
    print(f"\n== cost, {mode}: {got['notes']} notes (corpus + the set's), medians ==")
    check = got["check_median_ms"]
    print(
        f"write-time check  {check:8.2f} ms  CPU {got['check_cpu_median_ms']:.2f} ms,"
        f" p95 {got['check_p95_ms']:.2f} ms (the write: {got['write_median_ms']:.2f} ms)"
    )
    print(
        f"{'':18}target <= {CHECK_TARGET_MS} ms: {'OK' if check <= CHECK_TARGET_MS else 'MISSED'}"
    )
    review = got["review_median_s"]
    print(
        f"review in process {review:8.3f} s   CPU {got['review_cpu_median_s']:.3f} s,"
        f" {got['review_candidates']} pairs (same title: {got['baseline_candidates']});"
        f" among the corpus alone, before the set's notes: {got['corpus_candidates']} pairs"
        f" (and {got['corpus_wider']} in the wider net, for --confirm --wide)"
    )
    print(f"{'':18}target < {REVIEW_TARGET_S} s: {'OK' if review < REVIEW_TARGET_S else 'MISSED'}")
    cli = got["review_cli"]
    if "skipped" in cli:
        print(f"anamnesis review --json: skipped ({cli['skipped']})")
        return
    print(f"anamnesis review  {cli['median_s']:8.3f} s   a process, {cli['candidates']} pairs")
    verdict = "OK" if cli["median_s"] < REVIEW_TARGET_S else "MISSED"
    print(f"{'':18}target < {REVIEW_TARGET_S} s: {verdict}")
    cold = got["review_cli_no_memo"]
    if "skipped" in cold:
        return
    print(
        f"  with no memo    {cold['median_s']:8.3f} s   a process, the corpus's"
        f" {got['corpus_notes']} notes alone, every pair compared (a first review,"
        " or the first after an upgrade)"
    )
    verdict = "OK" if cold["median_s"] < REVIEW_TARGET_S else "MISSED"
    print(f"{'':18}target < {REVIEW_TARGET_S} s: {verdict}")


# --- the run --------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="300 corpus notes, 3 runs")
    parser.add_argument("--notes", type=int, help="corpus notes in each store (default 2000)")
    parser.add_argument("--runs", type=int, help="timed runs of review (default 7)")
    parser.add_argument("--keyword-only", action="store_true", help="no vectors mode")
    parser.add_argument("--vectors-only", action="store_true", help="no keyword-only mode")
    parser.add_argument("--root", type=Path, help="keep the stores here; reuse its templates")
    parser.add_argument("--misses", type=Path, help="write the tuning splits' misses here")
    parser.add_argument("--json", type=Path, help="write every pair's outcome here")
    parser.add_argument(
        "--costs-only",
        action="store_true",
        help="measure the costs alone, scoring no pair (most of a run: each pair is scored"
        " in its own copy of the corpus store)",
    )
    args = parser.parse_args()
    if args.costs_only and (args.misses or args.json):
        parser.error("--misses and --json need the pairs scored: not with --costs-only")
    count = args.notes or (300 if args.quick else 2000)
    runs = args.runs or (3 if args.quick else 7)
    if not os.environ.get(MODEL_PATH_ENV) and OFFLINE_MODEL.is_dir():
        os.environ[MODEL_PATH_ENV] = str(OFFLINE_MODEL)
    pairs = load()
    outcomes = [Outcome(pair) for pair in pairs]
    for outcome in outcomes:
        outcome.found[BASELINE] = same_title(outcome.pair.older.title, outcome.pair.newer.title)
        outcome.differs[BASELINE] = []
    finders = [BASELINE]
    modes = [] if args.vectors_only else ["keyword"]
    vectors_missing = "--keyword-only" if args.keyword_only else vectors_here()
    if vectors_missing:
        print(f"vectors: skipped ({vectors_missing})", file=sys.stderr)
    else:
        modes.append("vectors")
    cost: dict[str, Any] = {}
    made = {"corpus": "topical", "notes": count}
    with stores_root(args.root) as root:
        keyword = template(root / "template-keyword", made, lambda at: build_template(at, count))
        for mode in modes:
            with search_mode(mode):
                store = keyword
                if mode == "vectors":
                    model = os.environ[MODEL_PATH_ENV]
                    store = template(
                        root / "template-vectors", {**made, "model": model},
                        lambda at: embed_template(keyword, at),
                    )  # fmt: skip
                if not args.costs_only:
                    score_all(store, root, outcomes, mode)
                    finders += [f"write, {mode}", f"review, {mode}", f"{WIDER}{mode}"]
                cost[mode] = costs(store, root, pairs, mode, runs)
    scores = {} if args.costs_only else print_scores(outcomes, finders, count)
    per_kind = {} if args.costs_only else print_kinds(outcomes, finders)
    for mode, got in cost.items():
        print_costs(mode, got)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime())
    header = (
        f"Run {when}: `python -m bench.suites.contradictions_bench {' '.join(sys.argv[1:])}`,"
        f" {len(pairs)} pairs, each among {count} corpus notes."
    )
    if args.misses:
        write_misses(args.misses, outcomes, finders, header)
    if args.json:
        rows = [
            {"id": o.pair.id, "split": o.pair.split, "label": o.pair.label, "kind": o.pair.kind,
             "found": o.found, "differs": o.differs}
            for o in outcomes
        ]  # fmt: skip
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    summary = {"bench": "contradictions", "notes": count, "pairs": len(pairs), "scores": scores,
               "per_kind": per_kind, "costs": cost}  # fmt: skip
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
