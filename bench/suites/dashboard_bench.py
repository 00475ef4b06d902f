"""Dashboard benchmark: a real dashboard process over a 2,000-note store with a git history.

    uv run python -m bench.suites.dashboard_bench [--notes 2000] [--commits 300] [--rounds N]
                                                  [--quick] [--mode keyword] [--json PATH]

Builds the store in a temp folder (corpus.py's notes, cut at a sentence to 1-4 KB) and a
history of ``--commits`` local commits made with the sync package by three machines in
turn, each changing a few notes (most of them from a small set of "hot" notes, so those have
several versions). Then, against ``python -m anamnesis.dashboard`` (started by the test
helper ``start_dashboard``):

* start to first answer: spawn -> the token exchange's 303, and spawn -> the first 200 of
  ``/``; fresh processes, median (with no history cache on disk, then with one);
* server time (the ``Server-Timing: app;dur`` header the app measures) and client round
  trip, median and p95, for the list (``/``, ``/?project=X``, page 3), search (two
  mid-frequency corpus words per query, a different pair each time), a note, its history,
  the edit form and a save (POST of the edit form with one line changed). A few warm-up
  requests per step are not counted. The first history request after a start with no cache
  on disk is reported alone: the process starts building the cache in a background thread
  as it starts, so that request waits for the rest of the build or finds it done (its row
  says when it was sent); the cache's full build timed in this process is the cold cost;
* page weight: each page's HTML plus every stylesheet and script it references;
* DOMContentLoaded in headless Chromium (Playwright driving Debian's ``chromium``), when
  both are installed;
* the history page's cost without the cache: dulwich's path-filtered walker over the whole
  history for one note, next to the warm cached page.

Targets (issue): server time p95 list <= 50 ms, search <= 30 ms, note <= 20 ms, history
(cache warm) <= 30 ms, save <= 100 ms; start to first answer <= 1.5 s; DOMContentLoaded
<= 300 ms; HTML+CSS+JS of any page <= 100 KB (1 KB = 1,000 bytes here).

Counts: 5 fresh processes per start measure (3 with ``--quick``); 200 requests per step
(``--quick``: 30; ``--rounds N``), 3 warm-up requests not counted; 20 navigations per page
type in Chromium (``--quick``: 5); the walk without the cache, median of 5. Prints one table,
step | median | p95 | target | ok?. About 3 minutes at the defaults on a 2-core machine,
most of it building the store and its 300 commits. Search runs in keyword mode unless
``--mode`` says otherwise, and the model path points at an empty folder, so nothing is
downloaded.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from anamnesis_testsupport.dashboard_server import csrf_of, start_dashboard

from anamnesis.store import MemoryStore
from anamnesis.sync import GitSyncBackend
from bench.common import corpus
from bench.common.dashboard_browser import browser_dcl
from bench.common.dashboard_requests import (
    WARMUP,
    Samples,
    cache_build_ms,
    clear_history_cache,
    measure,
    measure_saves,
    measure_starts,
    median,
    page_weight,
    server_ms,
    timed_get,
    walker_ms,
)
from bench.common.stats import p95

MACHINES = ("laptop", "desktop", "ci-runner")
SERVER_MACHINE = MACHINES[0]
WORD = re.compile(r"[a-z]{4,}")

TARGET_SERVER_P95_MS = {
    "list": 50.0,
    "list ?project": 50.0,
    "list page 3": 50.0,
    "search": 30.0,
    "note": 20.0,
    "history (warm)": 30.0,
    "save": 100.0,
}
TARGET_START_S = 1.5
TARGET_DCL_MS = 300.0
TARGET_WEIGHT_BYTES = 100_000


def log(message: str) -> None:
    print(f"[dashboard_bench] {message}", file=sys.stderr, flush=True)


# -- the store and its history ---------------------------------------------------------


@dataclass
class BuiltStore:
    home: Path
    ids: list[str]
    versions: dict[str, int]  # note id -> commits that wrote it (1 = only the first)
    paths: dict[str, str]  # note id -> its path in the repository (``<type>/<id>.md``)
    projects: Counter[str]
    query_words: list[str]
    build_s: float
    commit_s: float


def cut(body: str, rng: random.Random) -> str:
    """The body cut after a sentence near a random length of 1-4 KB."""
    target = rng.randint(1000, 4000)
    if len(body) <= target:
        return body
    end = body.rfind(". ", 0, target)
    return body[: end + 1] if end > 500 else body[:target]


def mid_frequency_words(texts: Sequence[str]) -> list[str]:
    """Words in 3-15 % of the notes (widened when too few): rarer than the prose every
    note shares, commoner than one note's identifiers."""
    df: Counter[str] = Counter()
    for text in texts:
        df.update(set(WORD.findall(text.lower())))
    count = len(texts)
    for low, high in ((0.03, 0.15), (0.01, 0.3), (0.0, 1.0)):
        words = sorted(w for w, n in df.items() if low * count <= n <= high * count and n > 1)
        if len(words) >= 10:
            return words
    return sorted(df) or ["notes", "config"]


def build_store(root: Path, notes: int, commits: int, seed: int) -> BuiltStore:
    rng = random.Random(seed)
    home = root / "home"
    started = time.perf_counter()
    texts: list[str] = []
    ids: list[str] = []
    projects: Counter[str] = Counter()
    with MemoryStore(home) as store:
        for index, note in enumerate(corpus.generate(notes)):
            body = cut(note.body, rng)
            written = store.write(
                type=note.type,
                title=note.title, body=body, project=note.project, tags=note.tags,
                machine_id=MACHINES[index % len(MACHINES)],
            )  # fmt: skip
            ids.append(written.id)
            texts.append(f"{note.title} {body}")
            projects[note.project] += 1
        built = time.perf_counter()
        backends = [
            GitSyncBackend(store.memory_dir, remote=None, machine_id=machine)
            for machine in MACHINES
        ]
        backends[0].commit_local(f"add {notes} notes")
        versions = dict.fromkeys(ids, 1)
        hot = rng.sample(ids, min(len(ids), max(20, notes // 20)))
        for number in range(1, commits):
            machine = number % len(MACHINES)
            changed = {
                rng.choice(hot) if rng.random() < 0.75 else rng.choice(ids)
                for _ in range(rng.randint(1, 4))
            }
            for note_id in sorted(changed):
                current = store.get(note_id)
                store.update(
                    note_id,
                    body=f"{current.body}\nRevised on {MACHINES[machine]} (edit {number}).",
                )
                versions[note_id] += 1
            backends[machine].commit_local(f"edit {len(changed)} notes ({number})")
        paths = {
            note_id: store.file_of(note_id).relative_to(store.memory_dir).as_posix()
            for note_id in ids
        }
    return BuiltStore(
        home=home, ids=ids, versions=versions, paths=paths, projects=projects,
        query_words=mid_frequency_words(texts), build_s=built - started,
        commit_s=time.perf_counter() - built,
    )  # fmt: skip


def server_env(args: argparse.Namespace, model_dir: Path) -> dict[str, str]:
    return {
        "ANAMNESIS_SEARCH_MODE": args.mode,
        "ANAMNESIS_EMBED_MODEL_PATH": str(model_dir),
        "ANAMNESIS_MACHINE_ID": SERVER_MACHINE,
        "ANAMNESIS_GIT_REMOTE": "",
    }


# -- the run ---------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--rounds", type=int, help="requests per step (default 200; quick 30)")
    parser.add_argument("--quick", action="store_true", help="30 requests per step, fewer starts")
    parser.add_argument("--mode", default="keyword", help="ANAMNESIS_SEARCH_MODE for the server")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    if args.notes < 10 or args.commits < 2:
        parser.error("--notes must be >= 10 and --commits >= 2")
    if args.rounds is None:
        args.rounds = 30 if args.quick else 200
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    return args


@dataclass
class Row:
    step: str
    median: str
    p95: str
    target: str = ""
    ok: str = ""


def ms(value: float) -> str:
    return f"{value:.1f} ms"


def verdict(value: float, limit: float) -> str:
    return "OK" if value <= limit else "MISSED"


def main() -> None:
    args = parse_args()
    rng = random.Random(args.seed)
    starts = 3 if args.quick else 5
    navigations = 5 if args.quick else 20
    began = time.perf_counter()
    result: dict[str, Any] = {
        "bench": "dashboard",
        "notes": args.notes, "commits": args.commits, "rounds": args.rounds,
        "mode": args.mode, "warmup_per_step": WARMUP,
    }  # fmt: skip
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="anamnesis-dashboard-bench-") as tmp:
        root = Path(tmp)
        model_dir = root / "no-model-here"
        model_dir.mkdir()
        os.environ["ANAMNESIS_EMBED_MODEL_PATH"] = str(model_dir)  # this process's store too
        os.environ["ANAMNESIS_SEARCH_MODE"] = args.mode
        env = server_env(args, model_dir)

        log(f"building {args.notes} notes and {args.commits} commits")
        built = build_store(root, args.notes, args.commits, args.seed)
        home = built.home
        memory_dir = home / "memory"
        versioned = [i for i, n in built.versions.items() if n >= 3] or [
            i for i, n in built.versions.items() if n >= 2
        ]
        result["store"] = {
            "write_s": built.build_s, "commit_s": built.commit_s,
            "notes_with_3_or_more_versions": len(versioned),
            "max_versions": max(built.versions.values()),
            "query_words": len(built.query_words),
        }  # fmt: skip
        log(
            f"store: {built.build_s:.1f} s writing, {built.commit_s:.1f} s committing; "
            f"{len(versioned)} notes with 3+ versions"
        )

        # 2. start to first answer
        log(f"start to first answer: {starts} fresh processes without, then with, a cache")
        cold = measure_starts(home, env, starts, cold=True)
        warm = measure_starts(home, env, starts, cold=False)
        result["start"] = {
            "no_cache": {"link_s": cold.link_s, "redirect_s": cold.redirect_s,
                         "page_s": cold.page_s},
            "cache": {"link_s": warm.link_s, "redirect_s": warm.redirect_s,
                      "page_s": warm.page_s},
        }  # fmt: skip
        for label, times in (("no history cache", cold), ("history cache on disk", warm)):
            rows.append(
                Row(
                    f"start: spawn -> link printed ({label})",
                    f"{median(times.link_s):.2f} s",
                    f"{max(times.link_s):.2f} s max",
                )
            )
            for what, values in (("303 (token)", times.redirect_s),
                                 ("first 200 of /", times.page_s)):  # fmt: skip
                rows.append(Row(
                    f"start: spawn -> {what} ({label})",
                    f"{median(values):.2f} s", f"{max(values):.2f} s max",
                    f"<= {TARGET_START_S} s (median)", verdict(median(values), TARGET_START_S),
                ))  # fmt: skip

        # 3. server and client times, one server started without a history cache
        clear_history_cache(home)
        running = start_dashboard(home, env=env)
        spawned = time.perf_counter() - running.started_s
        steps: dict[str, Samples] = {}
        try:
            with httpx.Client(base_url=running.base, timeout=60) as client:
                opened = client.get(running.link, follow_redirects=True)
                if opened.status_code != 200:
                    raise SystemExit(f"opening the link: {opened.status_code}")
                csrf = csrf_of(opened.text)
                # The process starts building the cache in the background at start; this
                # request waits for that build, or finds it done (see the docstring).
                first_history = rng.choice(versioned)
                sent_s = time.perf_counter() - spawned
                answer, elapsed = timed_get(client, f"/notes/{first_history}/history")
                cold_history = {
                    "server_ms": server_ms(answer),
                    "client_ms": elapsed * 1000,
                    "sent_after_spawn_s": sent_s,
                }
                result["history_cold_first"] = cold_history
                count = args.rounds + WARMUP
                project = built.projects.most_common(1)[0][0]
                words = built.query_words
                queries = [" ".join(rng.sample(words, 2)) for _ in range(count)]
                plan: dict[str, list[str]] = {
                    "list": ["/"] * count,
                    "list ?project": ["/?" + urlencode({"project": project})] * count,
                    "list page 3": ["/?page=3"] * count,
                    "search": ["/search?" + urlencode({"q": q}) for q in queries],
                    "note": [f"/notes/{rng.choice(built.ids)}" for _ in range(count)],
                    "history (warm)": [
                        f"/notes/{rng.choice(versioned)}/history" for _ in range(count)
                    ],
                }
                for step, urls in plan.items():
                    log(f"{step}: {count} requests")
                    steps[step] = measure(client, urls)
                log(f"edit form and save: {count} each")
                saved_ids = [rng.choice(built.ids) for _ in range(count)]
                steps["edit form"], steps["save"] = measure_saves(
                    client, running.origin, csrf, saved_ids
                )

                # 4. page weight
                note_id = rng.choice(versioned)
                pages = {
                    "list": "/",
                    "list ?project": plan["list ?project"][0],
                    "search": plan["search"][0],
                    "note": f"/notes/{note_id}",
                    "edit form": f"/notes/{note_id}/edit",
                    "history": f"/notes/{note_id}/history",
                    "fleet": "/fleet",
                    "status": "/status",
                }
                weights = {kind: page_weight(client, url) for kind, url in pages.items()}
        finally:
            running.stop()
        result["steps"] = {step: samples.summary() for step, samples in steps.items()}
        result["page_weight_bytes"] = weights

        sent = f"sent {cold_history['sent_after_spawn_s']:.2f} s after spawn, no cache on disk"
        rows.append(Row(
            f"history, first request ({sent}): server",
            ms(cold_history["server_ms"]), "-", "(reported alone)",
        ))  # fmt: skip
        rows.append(Row(
            "history, first request: client", ms(cold_history["client_ms"]), "-",
        ))  # fmt: skip
        for step, samples in steps.items():
            summary = samples.summary()
            limit = TARGET_SERVER_P95_MS.get(step)
            rows.append(Row(
                f"{step}: server", ms(summary["server_median_ms"]), ms(summary["server_p95_ms"]),
                f"p95 <= {limit:.0f} ms" if limit else "",
                verdict(summary["server_p95_ms"], limit) if limit else "",
            ))  # fmt: skip
            rows.append(Row(
                f"{step}: client round trip",
                ms(summary["client_median_ms"]), ms(summary["client_p95_ms"]),
            ))  # fmt: skip
        totals = {kind: sum(parts.values()) for kind, parts in weights.items()}
        for kind, total in totals.items():
            rows.append(Row(f"page weight: {kind} (HTML {weights[kind]['html']:,} B)",
                            f"{total:,} B", "-"))  # fmt: skip
        heaviest = max(totals.values())
        rows.append(Row(
            "page weight: HTML+CSS+JS, heaviest page", f"{heaviest / 1000:.1f} KB", "-",
            f"<= {TARGET_WEIGHT_BYTES // 1000} KB", verdict(heaviest, TARGET_WEIGHT_BYTES),
        ))  # fmt: skip

        # 5. DOMContentLoaded in Chromium, from a fresh server (the link works once)
        log(f"DOMContentLoaded: {navigations} navigations per page type")
        browse = {
            "list": ["/"] * navigations,
            "search": plan["search"][:navigations],
            "note": plan["note"][:navigations],
            "edit form": [f"{url}/edit" for url in plan["note"][:navigations]],
            "history": plan["history (warm)"][:navigations],
        }
        running = start_dashboard(home, env=env)
        try:
            dcl: dict[str, list[float]] | None = browser_dcl(running, browse)
            skipped = ""
        except RuntimeError as exc:
            dcl, skipped = None, str(exc)
        finally:
            running.stop()
        if dcl is None:
            log(f"DOMContentLoaded skipped: {skipped}")
            result["dom_content_loaded"] = {"skipped": skipped}
            rows.append(Row("DOMContentLoaded", "skipped", "-", f"<= {TARGET_DCL_MS:.0f} ms",
                            skipped))  # fmt: skip
        else:
            result["dom_content_loaded"] = {
                kind: {"median_ms": median(v), "p95_ms": p95(v), "samples_ms": v}
                for kind, v in dcl.items()
            }
            for kind, values in dcl.items():
                rows.append(Row(
                    f"DOMContentLoaded: {kind}", ms(median(values)), ms(p95(values)),
                    f"<= {TARGET_DCL_MS:.0f} ms (median)", verdict(median(values), TARGET_DCL_MS),
                ))  # fmt: skip

        # 7. the history without the cache
        log("history without the cache: dulwich's path walker over 5 notes")
        sample = rng.sample(versioned, min(5, len(versioned)))
        walks = [walker_ms(memory_dir, built.paths[note_id]) for note_id in sample]
        walk_median = median([w[0] for w in walks])
        build_ms, lookup_ms = cache_build_ms(memory_dir, root, sample[0])
        warm_history = steps["history (warm)"].summary()["server_median_ms"]
        result["history_without_cache"] = {
            "walker_ms": [w[0] for w in walks], "walker_commits_found": [w[1] for w in walks],
            "walker_median_ms": walk_median, "warm_page_server_median_ms": warm_history,
            "ratio": walk_median / warm_history,
            "cache_full_build_ms": build_ms, "cache_refresh_and_versions_ms": lookup_ms,
        }  # fmt: skip
        rows.append(Row("history without cache: dulwich path walker, one note",
                        ms(walk_median), f"{max(w[0] for w in walks):.1f} ms max"))  # fmt: skip
        rows.append(Row(
            "  vs history page, cache warm (server median)", ms(warm_history), "-",
            f"walker x{walk_median / warm_history:.0f}",
        ))  # fmt: skip
        rows.append(Row("history cache: full build in-process (no server)", ms(build_ms), "-"))
        rows.append(Row("history cache: refresh + versions, warm, in-process", ms(lookup_ms), "-"))

    result["wall_s"] = time.perf_counter() - began
    print_table(rows, args, result["wall_s"])
    gap = median([s.summary()["client_median_ms"] - s.summary()["server_median_ms"]
                  for name, s in steps.items() if name != "save"])  # fmt: skip
    if gap > 30:
        print(
            f"note: GET round trips take {gap:.0f} ms more than the server's time (median): "
            "the size of a Nagle / delayed-ACK stall (TCP_NODELAY not set on the accepted "
            "sockets?)"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result))


def print_table(rows: Sequence[Row], args: argparse.Namespace, wall_s: float) -> None:
    header = Row("step", "median", "p95", "target", "ok?")
    columns: list[Callable[[Row], str]] = [
        lambda r: r.step, lambda r: r.median, lambda r: r.p95, lambda r: r.target,
        lambda r: r.ok,
    ]  # fmt: skip
    widths = [max(len(get(r)) for r in (header, *rows)) for get in columns]
    print(
        f"\n== dashboard, {args.notes} notes, {args.commits} commits, {args.rounds} requests "
        f"per step, search mode {args.mode} ({wall_s:.0f} s) =="
    )
    for row in (header, *rows):
        print(" | ".join(get(row).ljust(width) for get, width in zip(columns, widths, strict=True)))
    missed = [row.step for row in rows if row.ok == "MISSED"]
    print("targets missed: " + ("; ".join(missed) if missed else "none"))


if __name__ == "__main__":
    main()
