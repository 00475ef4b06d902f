"""Reflect and merge benchmark: what the runs cost outside the provider.

    uv run python -m bench.suites.reflect_bench [--quick] [--runs N]

The provider is scripted and answers at once, so the times are Anamnesis's own work on a
50-note store: for reflect, planning, checking the reply and the all-or-nothing write
(``run_reflection(apply=True)``); for merge, candidates, prompt, reply check, the recall
gate on its sandbox copy, and the write (``run_merge(apply=True)``), plus a dry run.
Keyword mode, no embedding model. Each sample runs on a fresh store (set up outside the
timing). Prints one JSON line per measurement with the median; target <= 200 ms each.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_MS = 200.0
PROJECT = "github.com/acme/app"
WORDS = 1500  # the pseudo-vocabulary notes draw from


class InstantProvider:
    """A provider that answers every call at once with ``answer(user text)``."""

    name = "scripted"
    model = "bench-model"

    def __init__(self, answer: Callable[[str], str]) -> None:
        self.answer = answer

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> str:
        return self.answer(user)


def vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(4, 10))) for _ in range(WORDS)]


def text(rng: random.Random, words: list[str], count: int) -> str:
    return " ".join(rng.choices(words, k=count)) + "."


def merge_store(root: Path, seed: int) -> tuple[Any, list[tuple[str, str]]]:
    """50 durable notes, 10 of them restatements of others; returns the store and the
    (original, restatement) id pairs."""
    from anamnesis.store import MemoryStore

    rng = random.Random(seed)
    words = vocabulary(rng)
    store = MemoryStore(root)
    pairs: list[tuple[str, str]] = []
    for index in range(40):
        title, body = text(rng, words, 5), text(rng, words, 80)
        note = store.write(type="procedural", title=title, body=body, project=PROJECT)
        if index < 10:  # a restatement: the same note less its last few words
            again = store.write(
                type="procedural", title=title, body=body[: len(body) * 9 // 10], project=PROJECT
            )
            pairs.append((note.id, again.id))
    return store, pairs


def reflect_store(root: Path, seed: int) -> tuple[Any, list[str]]:
    """30 durable notes and 20 unreflected episodes in one project; returns the store and
    the episodes' ids."""
    from anamnesis.store import MemoryStore

    rng = random.Random(seed)
    words = vocabulary(rng)
    store = MemoryStore(root)
    for _ in range(30):
        store.write(
            type="semantic", title=text(rng, words, 5), body=text(rng, words, 60), project=PROJECT
        )
    episodes = [
        store.write(
            type="episodic", title=text(rng, words, 5), body=text(rng, words, 60), project=PROJECT
        ).id
        for _ in range(20)
    ]
    return store, episodes


def keep_all(pairs: list[tuple[str, str]]) -> Callable[[str], str]:
    groups = [{"ids": [a, b], "action": "keep", "keep": a} for a, b in pairs]
    return lambda _user: json.dumps({"groups": groups})


def reflect_reply(episodes: list[str]) -> Callable[[str], str]:
    notes = [
        {
            "type": "procedural",
            "title": f"Lesson {n}",
            "body": f"What sessions {n} and {n + 1} taught.",
            "tags": ["bench"],
            "sources": episodes[n : n + 2],
            "supersedes": [],
        }
        for n in range(0, len(episodes), 4)
    ]
    return lambda _user: json.dumps({"notes": notes})


def sample(setup: Callable[[Path], Callable[[], Any]], check: Callable[[Any], None]) -> float:
    """Seconds one run takes on a fresh store (setup and checks not timed)."""
    with tempfile.TemporaryDirectory(prefix="anamnesis-reflect-bench-") as folder:
        run = setup(Path(folder) / "store")
        started = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - started
        check(result)
        return elapsed


def measure(runs: int) -> list[dict[str, Any]]:
    from anamnesis.reflect import LlmSettings, run_merge
    from anamnesis.reflect.reflection import run_reflection

    settings = LlmSettings()

    def merge_apply(root: Path) -> Callable[[], Any]:
        store, pairs = merge_store(root, 1)
        provider = InstantProvider(keep_all(pairs))
        return lambda: run_merge(store, provider, settings, apply=True)

    def merge_dry(root: Path) -> Callable[[], Any]:
        store, pairs = merge_store(root, 1)
        return lambda: run_merge(store, InstantProvider(keep_all(pairs)), settings)

    def reflect_apply(root: Path) -> Callable[[], Any]:
        store, episodes = reflect_store(root, 2)
        provider = InstantProvider(reflect_reply(episodes))
        return lambda: run_reflection(store, provider, settings, project=PROJECT, apply=True)

    def merged_ten(report: Any) -> None:
        assert len(report.candidates) == 10, report.to_dict()
        assert len(report.written) == 10, report.to_dict()

    def planned(report: Any) -> None:
        assert len(report.candidates) == 10, report.to_dict()
        assert report.written == [], report.to_dict()

    def reflected(report: Any) -> None:
        assert report.ok, report.to_dict()

    cases: list[tuple[str, Callable[[Path], Callable[[], Any]], Callable[[Any], None]]] = [
        ("merge apply (candidates, gate, write), 50 notes", merge_apply, merged_ten),
        ("merge dry run, 50 notes", merge_dry, planned),
        ("reflect apply (plan, check, write), 50 notes", reflect_apply, reflected),
    ]
    results = []
    for name, setup, check in cases:
        samples = [sample(setup, check) for _ in range(runs)]
        median_ms = statistics.median(samples) * 1000
        results.append(
            {
                "bench": name,
                "median_ms": round(median_ms, 1),
                "min_ms": round(min(samples) * 1000, 1),
                "runs": runs,
                "target_ms": TARGET_MS,
                "ok": median_ms <= TARGET_MS,
            }
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="3 runs instead of 7")
    parser.add_argument("--runs", type=int, default=None)
    args = parser.parse_args(argv)
    runs = args.runs or (3 if args.quick else 7)
    with tempfile.TemporaryDirectory(prefix="anamnesis-reflect-bench-home-") as home:
        # Keyword mode and no model: the benchmark measures Anamnesis, not an embedder.
        os.environ.update(
            ANAMNESIS_HOME=home,
            ANAMNESIS_SEARCH_MODE="keyword",
            ANAMNESIS_EMBED_MODEL_PATH=str(Path(home) / "no-model"),
            ANAMNESIS_MACHINE_ID="bench",
        )
        results = measure(runs)
    for result in results:
        print(json.dumps(result))
    return 0 if all(result["ok"] for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
