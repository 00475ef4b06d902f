"""Prompt-time recall (UserPromptSubmit) as a whole process, next to SessionStart inject.

    uv run python -m bench.suites.prompt_bench [--quick]  # speed: prompt vs inject, 2,000 notes
    uv run python -m bench.suites.prompt_bench --floor    # the relevance floor, ../shared data

Speed: one store of 2,000 generated notes (inject_bench's corpus, store and checkout); each
run is a session as Claude Code runs it: inject at session start, then one prompt (the
devmemory queries of the checkout's project, in turn) in the same session, so the prompt
hook reads the session's record and leaves out what inject showed. Both go through the
hook entry point and the `anamnesis` command. Target: prompt median <= 1.5x inject's.

Floor (the evidence for ``MIN_SHARED`` in anamnesis.hooks.recall, and for leaving out a
floor relative to the best hit's score): each prompt with a project in devmemory and realmem
(../shared/eval; skipped when absent) is searched in its own project, and in three other
projects, where whatever is added is noise. For each floor: the share of prompts that get
notes, that get a relevant one, the share of added notes that are relevant, notes per
prompt, and how often a prompt in a wrong project gets anything.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from bench.common import corpus
from bench.common.hook_runs import build_store, checkout, ours_command, timed_run
from bench.common.places import DEVMEMORY, SHARED

PROJECT = "github.com/acme/payments-api"
TARGET_RATIO = 1.5


def prompts() -> list[str]:
    """The devmemory look-ups of the checkout's project (the corpus's queries without it)."""
    path = DEVMEMORY / "queries.jsonl"
    if path.is_file():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        mine = [str(row["query"]) for row in rows if row.get("project") == PROJECT]
        if mine:
            return mine
    return corpus.queries()


def commands() -> dict[str, list[str]]:
    """Each hook through the entry point, and through `anamnesis` when it is installed."""
    hook = ours_command()[:-1]  # without "inject"
    out = {"inject": [*hook, "inject"], "prompt": [*hook, "prompt"]}
    cli = Path(sys.executable).parent / "anamnesis"
    if cli.exists():
        out["inject-cli"] = [str(cli), "inject"]
        out["prompt-cli"] = [str(cli), "prompt"]
    return out


def speed(count: int, runs: int) -> None:
    texts = prompts()
    with tempfile.TemporaryDirectory(prefix="anamnesis-prompt-bench-") as tmp:
        root = Path(tmp)
        notes = corpus.write_jsonl(corpus.generate(count), root / "notes.jsonl")
        work = checkout(root)
        home = root / "home"
        build_store(sys.executable, home, notes)
        contenders = commands()
        samples: dict[str, list[float]] = {name: [] for name in contenders}
        added: list[int] = []
        sizes: list[int] = []

        def session(number: int, record: bool) -> None:
            for form in ("", "-cli"):
                if f"inject{form}" not in contenders:
                    continue
                sid = f"bench-{number}{form}"
                start = {"hook_event_name": "SessionStart", "source": "startup",
                         "session_id": sid, "cwd": str(work)}  # fmt: skip
                prompt = {"hook_event_name": "UserPromptSubmit", "session_id": sid,
                          "cwd": str(work), "prompt": texts[number % len(texts)]}  # fmt: skip
                for name, payload in ((f"inject{form}", start), (f"prompt{form}", prompt)):
                    elapsed, _rss, out = timed_run(
                        contenders[name], home, json.dumps(payload).encode()
                    )
                    if record:
                        samples[name].append(elapsed)
                        if name == "prompt":
                            added.append(out.count(b"\n## ["))
                            sizes.append(len(out))

        for number in range(3):  # warm caches and bytecode
            session(-1 - number, record=False)
        for number in range(runs):
            session(number, record=True)
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    print(f"\n== prompt recall vs inject as processes, {count} notes, {runs} sessions (medians) ==")
    for name, ms in medians.items():
        print(f"{name:>11}: {ms:7.1f} ms")
    ratios = {
        form or "hook": medians[f"prompt{form}"] / medians[f"inject{form}"]
        for form in ("", "-cli")
        if f"inject{form}" in medians
    }
    for form, ratio in ratios.items():
        verdict = "OK" if ratio <= TARGET_RATIO else "MISSED"
        print(
            f"{'ratio':>11}: prompt / inject ({form}) = x{ratio:.2f} "
            f"(target <= {TARGET_RATIO}: {verdict})"
        )
    print(
        f"{'added':>11}: {statistics.mean(added):.2f} notes per prompt "
        f"({sum(1 for n in added if n)} of {len(added)} prompts got notes; "
        f"median output {statistics.median(sizes):.0f} chars)"
    )
    print(json.dumps({"bench": "prompt", "notes": count, "median_ms": medians, "ratio": ratios}))


# -- the relevance floor -------------------------------------------------------------------

# A floor: the distinct prompt words a note must share, and the share of the best hit's
# score it must reach (0: no such rule).
FLOORS = ((0, 0.0), (2, 0.0), (3, 0.0), (0, 0.5), (0, 0.7), (2, 0.3), (2, 0.5), (3, 0.5))


def floor_label(least: int, share: float) -> str:
    parts = [f"shared >= {least}"] if least else []
    parts += [f"score >= {share} x best"] if share else []
    return " and ".join(parts) or "none"


def floor_study() -> None:
    from anamnesis.hooks.recall import (
        MAX_CHECKED,
        MAX_DEPTH,
        MAX_NOTES,
        recall_terms,
        shared_terms,
    )
    from anamnesis.ops import injectable
    from anamnesis.store import load_cases, sandbox

    for name in ("devmemory", "realmem"):
        folder = SHARED / "eval" / name
        if not (folder / "notes.jsonl").is_file() or not (folder / "queries.jsonl").is_file():
            print(f"{name}: not found at {folder}; skipped")
            continue
        cases = [case for case in load_cases(folder / "queries.jsonl") if case.project]
        projects = sorted({str(case.project) for case in cases})
        # (right project?, prompt words, [(score, shared words, relevant?)] best first)
        rows: list[tuple[bool, int, list[tuple[float, int, bool]]]] = []
        with sandbox(folder / "notes.jsonl") as (store, ids):
            superseders = store.superseders()
            for case in cases:
                relevant = {ids[item] for item in case.relevant}
                for item in list(relevant):
                    relevant.update(superseders.get(item, ()))
                terms = recall_terms(case.query)
                others = [p for p in projects if p != case.project][:3]
                for project in [str(case.project), *others]:
                    hits = []
                    if terms:
                        found = store.search_scored(
                            " ".join(terms), project=project, k=MAX_DEPTH, mode="keyword"
                        ).hits
                        hits = [hit for hit in found if injectable(hit.note)]
                    counts = shared_terms([hit.note for hit in hits], terms)
                    scored = [
                        (hit.score, count, hit.note.id in relevant)
                        for hit, count in zip(hits, counts, strict=True)
                    ]
                    rows.append((project == case.project, len(terms), scored))
        right = sum(1 for row in rows if row[0])
        wrong = len(rows) - right
        print(f"\n== {name}: {right} prompts in their project, {wrong} in another project ==")
        print(f"{'floor':>34} | {'got notes':>9} {'relevant':>8} {'precision':>9} {'notes':>5} "
              f"| {'wrong project: got notes':>24} {'notes':>5}")  # fmt: skip
        for least, share in FLOORS:  # as select_recall applies them
            got = hit = relevant_added = added = wrong_got = wrong_added = 0
            for own, _words, scored in rows:
                best = scored[0][0] if scored else 0.0
                strong = [s for s in scored if not share or s[0] >= share * best]
                strong = strong[:MAX_CHECKED]
                chosen = [s for s in strong if s[1] >= least][:MAX_NOTES]
                if own:
                    got += bool(chosen)
                    hit += any(s[2] for s in chosen)
                    relevant_added += sum(s[2] for s in chosen)
                    added += len(chosen)
                else:
                    wrong_got += bool(chosen)
                    wrong_added += len(chosen)
            print(
                f"{floor_label(least, share):>34} | {got / right:9.3f} {hit / right:8.3f} "
                f"{relevant_added / max(added, 1):9.3f} {added / right:5.2f} "
                f"| {wrong_got / wrong:24.3f} {wrong_added / wrong:5.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="500 notes, 11 sessions")
    parser.add_argument("--floor", action="store_true", help="measure the relevance floor")
    args = parser.parse_args()
    if args.floor:
        floor_study()
        return
    count, runs = (500, 11) if args.quick else (2000, 31)
    speed(count, runs)


if __name__ == "__main__":
    main()
