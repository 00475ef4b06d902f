"""`anamnesis search` offline with no model downloaded, against `--mode keyword` (issue 40).

    uv run python -m bench.suites.offline_bench [--quick]

An offline machine that never downloaded the embedding model used to spend 2-4 s of every
search trying to reach the model's host (and importing fastembed) before searching by
keywords anyway. Now the first search remembers that the host cannot be reached, and the
searches after it, until the retry time, skip the model: each should cost what a keyword
search costs. Target: median (offline, no model, default mode) <= 1.5x median (--mode
keyword).

One store of 2,000 generated notes (500 with --quick); the vectors extra must be able to
run here (otherwise every search is a keyword search and there is nothing to compare).
"Offline" is deterministic: the model host (``HF_ENDPOINT``) is a port of 127.0.0.1 that
refuses connections. Each run is a whole `anamnesis search` process (the `anamnesis`
command users run), timed by ``bench.common.processes``; the modes alternate, query by
query, so machine noise hits both alike. Also shown, for reference: a search that finds
nothing remembered (the memo removed before each run), which is what a retry costs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from anamnesis_testsupport.offline import ENDPOINT_ENV, refused_endpoint

from anamnesis.store import StoreLayout, vector_support
from bench.common import corpus
from bench.common.hook_runs import build_store
from bench.common.processes import BASE_ENV, run_measured

TARGET_RATIO = 1.5
CONTENDERS = ("offline-no-model", "keyword", "not-remembered")


def search_command(query: str, contender: str) -> list[str]:
    cli = Path(sys.executable).parent / "anamnesis"
    command = [str(cli)] if cli.exists() else [sys.executable, "-m", "anamnesis.cli"]
    mode = ["--mode", "keyword"] if contender == "keyword" else []
    return [*command, "search", query, "-k", "8", "--json", *mode]


def environment(home: Path, endpoint: str) -> dict[str, str]:
    """The store's own defaults (hybrid where the extra runs), no local model (it would be
    downloaded), and a model host that refuses connections."""
    env = {k: v for k, v in BASE_ENV.items() if not k.startswith("ANAMNESIS_")}
    return {**env, "ANAMNESIS_HOME": str(home), ENDPOINT_ENV: endpoint}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    support = vector_support()
    if not support.available:
        print(f"skipped: the vectors extra cannot run here ({support.reason})")
        return
    count, rounds = (500, 3) if args.quick else (2000, 5)
    queries = corpus.queries()[:8]
    with tempfile.TemporaryDirectory(prefix="anamnesis-offline-bench-") as tmp:
        root = Path(tmp)
        home = root / "store"
        notes = corpus.write_jsonl(corpus.generate(count), root / "notes.jsonl")
        build_store(sys.executable, home, notes)
        memo = StoreLayout(home).model_download_state
        with refused_endpoint() as endpoint:
            env = environment(home, endpoint)
            first = run_measured(search_command(queries[0], "offline-no-model"), env)
            assert first.code == 0, first.err
            assert memo.is_file(), "the first search did not remember the host"
            print(f"first search (finds the host unreachable): {first.seconds * 1000:.0f} ms")
            print(f"  {first.err.strip()}")
            for contender in CONTENDERS:  # warm bytecode and the page cache
                run_measured(search_command(queries[0], contender), env)
            samples: dict[str, list[float]] = {name: [] for name in CONTENDERS}
            for _round in range(rounds):
                for query in queries:
                    for contender in CONTENDERS:
                        if contender == "not-remembered":
                            memo.unlink(missing_ok=True)
                        ran = run_measured(search_command(query, contender), env)
                        assert ran.code == 0, ran.err
                        samples[contender].append(ran.seconds)
                        if contender != "keyword":
                            modes = {hit["mode"] for hit in json.loads(ran.out)}
                            assert modes <= {"keyword"}, (contender, modes)
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    ratio = medians["offline-no-model"] / medians["keyword"]
    runs = rounds * len(queries)
    print(f"\n== `anamnesis search` as a process, {count} notes, {runs} runs each (medians) ==")
    for name, ms in medians.items():
        print(f"{name:>17}: {ms:7.1f} ms")
    print(f"{'ratio':>17}: offline-no-model / keyword = {ratio:.2f}")
    print(f"target <= {TARGET_RATIO}x: {'OK' if ratio <= TARGET_RATIO else 'MISSED'}")
    print(
        json.dumps(
            {
                "bench": "offline",
                "notes": count,
                "runs": runs,
                "median_ms": medians,
                "ratio": round(ratio, 3),
                "cpus": os.cpu_count(),
            }
        )
    )


if __name__ == "__main__":
    main()
