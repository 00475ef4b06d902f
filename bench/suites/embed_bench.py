"""Embedding at scale (issue 29): how fast the vectors extra embeds the store bench's notes,
what memory it takes as the store grows, and how much it slows a search meanwhile, side by
side with another checkout of the code (say, the commit before).

    uv run python -m bench.suites.embed_bench [--sizes 500,5000] [--seconds 45] [--full 150]
        [--baseline DIR]

Needs the shared offline model (``../shared/models/all-MiniLM-L6-v2-onnx-int8``) and a
Python whose sqlite3 loads extensions. Notes are the store bench's corpus
(``corpus.generate``: about 4 KB, five passages of about 270 tokens each). For each checkout
(its ``packages/*/src`` first on the path), each step is its own process on its own copy of
the store, the index built before the clock starts:

* ``size N``: a store of N notes, none embedded; ``embed_missing`` runs for ``--seconds``
  (stopped between groups). Reported: notes with a vector (found by meaning) per second,
  notes with all their passages per second, passages and tokens per second, and the
  process's peak RSS: the same at two sizes means memory does not grow with the store.
* ``full``: ``--full`` notes embedded to the end: whole-note throughput, start to finish.
* ``search``: hybrid searches (k=8, the devmemory queries) on the first store, first with
  nothing else running, then while the MCP server's way of embedding runs on a thread
  (``background=True`` where the checkout has it): median and p95 latency.

JSON lines, then a table. `nox -s bench` runs it too (about 7 minutes; ``--quick``: one
minute); without the model it says so and exits.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from bench.common import corpus
from bench.common.places import OFFLINE_MODEL, REPO
from bench.common.processes import running
from bench.common.store_driver import materialize_notes

CHILD = r"""
import inspect, json, resource, statistics, subprocess, sys, threading, time, warnings
warnings.simplefilter("ignore")
from anamnesis.store import MemoryStore

root, step, seconds, queries = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]


HOOK = (
    "import sys; from anamnesis.store import MemoryStore; "
    "s = MemoryStore(sys.argv[1]); s.search(sys.argv[2], k=8, mode='keyword'); s.close()"
)


class Stop(Exception):
    pass


def counts(store):
    conn = store._connection()
    total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    found = conn.execute("SELECT count(DISTINCT seq) FROM note_passages").fetchone()[0]
    heads = conn.execute("SELECT count(*) FROM note_passages WHERE passage < 0").fetchone()[0]
    rows = conn.execute("SELECT count(*) FROM note_passages WHERE passage >= 0").fetchone()[0]
    return total, found, found - heads, rows + heads


with MemoryStore(root) as store:
    store.search("warm up", mode="keyword")  # the index, built before the clock starts
    store._vectors().embedder().embed_query("load the model")  # as a running server has it
    background = "background" in inspect.signature(store.embed_missing).parameters
    out = {"step": step}
    if step == "search":
        store.search_embed_limit = 0  # as the MCP server: its thread embeds

        def latencies():
            times = []
            for query in queries:
                started = time.perf_counter()
                store.search(query, k=8, mode="hybrid")
                times.append((time.perf_counter() - started) * 1000)
            times.sort()
            return statistics.median(times), times[int(len(times) * 0.95) - 1]

        def hook():
            # Another process on the same store, as a hook runs: keyword search, imports
            # included (median of 5 runs).
            times = []
            for query in queries[:5]:
                started = time.perf_counter()
                subprocess.run([sys.executable, "-c", HOOK, root, query], check=True)
                times.append((time.perf_counter() - started) * 1000)
            return statistics.median(times)

        store.search(queries[0], mode="hybrid")
        out["idle_ms"] = latencies()
        out["hook_idle_ms"] = hook()
        stopping = threading.Event()

        def check(done, total):
            if stopping.is_set():
                raise Stop

        def embed():
            try:
                extra = {"background": True} if background else {}
                store.embed_missing(progress=check, **extra)
            except Stop:
                pass

        thread = threading.Thread(target=embed)
        thread.start()
        time.sleep(3.0)  # both sessions loaded and busy
        out["busy_ms"] = latencies()
        out["hook_busy_ms"] = hook()
        stopping.set()
        thread.join()
    else:
        started = time.perf_counter()
        cpu = time.process_time()

        def check(done, total):
            if seconds and time.perf_counter() - started > seconds:
                raise Stop

        try:
            store.embed_missing(progress=check)
        except Stop:
            pass
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu
        total, found, whole, passages = counts(store)
        out.update(notes=total, seconds=elapsed, cpu_s=cpu, found=found, whole=whole,
                   passages=passages)
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def _running(code: Path) -> dict[str, str]:
    """The environment of a child that runs the checkout at ``code``, on the offline model."""
    return {
        **running(code),
        "ANAMNESIS_EMBED_MODEL_PATH": str(OFFLINE_MODEL),
        "ANAMNESIS_SEARCH_MODE": "hybrid",
    }


def child(
    code: Path, store: Path, step: str, seconds: float, queries: list[str]
) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(store), step, str(seconds), *queries],
        env={**_running(code), "ANAMNESIS_HOME": str(store)},
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode:
        raise SystemExit(f"{step} failed for {code}:\n{result.stderr[-3000:]}")
    data: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return data


def tokens_per_passage(count: int = 200) -> float:
    """Mean tokens of the corpus's passages, by the model's own tokenizer."""
    from tokenizers import Tokenizer

    from anamnesis.store.vectors.passages import passages

    tokenizer = Tokenizer.from_file(str(OFFLINE_MODEL / "tokenizer.json"))
    tokenizer.no_truncation()
    texts = [t for note in corpus.generate(count, seed=11) for t in passages(note.title, note.body)]
    return statistics.mean(len(e.ids) for e in tokenizer.encode_batch(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="500,5000")
    parser.add_argument("--seconds", type=float, default=45.0)
    parser.add_argument("--full", type=int, default=150)
    parser.add_argument("--baseline", type=Path, help="another checkout, run side by side")
    parser.add_argument("--quick", action="store_true", help="60 and 120 notes, 8 s each")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.seconds, args.full = "60,120", 8.0, 20
    if not (OFFLINE_MODEL / "model.onnx").is_file():
        print(f"embed_bench: skipped, no model at {OFFLINE_MODEL}")
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    codes = {"this": REPO, **({"baseline": args.baseline} if args.baseline else {})}
    queries = corpus.queries()[:40]
    per_passage = tokens_per_passage()
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="embed-bench-") as tmp:
        made: dict[int, Path] = {}
        for size in [*sizes, args.full]:
            made[size] = Path(tmp) / f"notes-{size}"
            notes = [asdict(note) for note in corpus.generate(size, seed=11)]
            materialize_notes(made[size], notes)
        plan = [*((f"size {n}", n, args.seconds) for n in sizes), ("full", args.full, 0.0)]
        for step, size, seconds in [*plan, ("search", sizes[0], 0.0)]:
            for name, code in codes.items():
                store = Path(tmp) / f"{name}-{step.replace(' ', '-')}"
                shutil.copytree(made[size], store)
                kind = "search" if step == "search" else "embed"
                row = {"code": name, "what": step, **child(code, store, kind, seconds, queries)}
                print(json.dumps(row), flush=True)
                rows.append(row)
                shutil.rmtree(store)
    print(f"\ntokens per passage: {per_passage:.0f}\n")
    print("| checkout | step | found notes/s | whole notes/s | passages/s | tokens/s"
          " | passages per CPU-s | RSS MB |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        if row["what"] == "search":
            continue
        s = float(row["seconds"])  # type: ignore[arg-type]
        p = float(row["passages"])  # type: ignore[arg-type]
        print(
            f"| {row['code']} | {row['what']} | {float(row['found']) / s:.1f} "  # type: ignore[arg-type]
            f"| {float(row['whole']) / s:.1f} | {p / s:.1f} | {p * per_passage / s:.0f} "  # type: ignore[arg-type]
            f"| {p / float(row['cpu_s']):.1f} | {float(row['rss_mb']):.0f} |"  # type: ignore[arg-type]
        )
    print("\n| checkout | hybrid search ms, idle median / p95 | while embedding"
          " | hook process ms, idle / while embedding | RSS MB |")  # fmt: skip
    print("|---|---|---|---|---|")
    for row in rows:
        if row["what"] == "search":
            idle, busy = row["idle_ms"], row["busy_ms"]
            print(
                f"| {row['code']} | {idle[0]:.1f} / {idle[1]:.1f} "  # type: ignore[index]
                f"| {busy[0]:.1f} / {busy[1]:.1f} "  # type: ignore[index]
                f"| {row['hook_idle_ms']:.0f} / {row['hook_busy_ms']:.0f} "
                f"| {float(row['rss_mb']):.0f} |"  # type: ignore[arg-type]
            )


if __name__ == "__main__":
    main()
