"""Store benchmark: ours against the published release (0.1.3), same corpus, same run.

    uv run nox -s bench      # or, inside the dev venv, from the checkout's root:
    ANAMNESIS_PUBLISHED_PYTHON=/path/to/0.1.3/bin/python python -m bench.suites.store_bench

Against an older commit of this store, side by side in the same run (a refactor must not
slow it down): check the commit out somewhere and point --baseline at its store sources:

    git worktree add /tmp/anamnesis-base <commit>
    python -m bench.suites.store_bench --big 0 --baseline BASE

with BASE=/tmp/anamnesis-base/packages/anamnesis-store/src. ``--quick``: 500 notes, no 100k run.

Each corpus style at --notes (topical, mixed, zipf: see corpus.py) is searched with its
own queries: the devmemory look-ups for topical and mixed, mid-frequency words for zipf.

Targets at 2,000 notes of ~4 KB: write <= 1 ms/note, search k=8 <= 1.5 ms median, list all
<= 100 ms, full reindex <= 0.6 s. At 100,000 notes: search p95 <= 20 ms, reindex <= 60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import corpus
from bench.common.places import REPO
from bench.common.processes import driver
from bench.common.stats import p95
from bench.common.store_targets import BIG_TARGETS, TARGETS


def run_driver(
    python: str, notes: Path, queries: Path, *extra: str, store_src: Path | None = None
) -> dict[str, Any]:
    """Run the driver in a fresh process; ``store_src`` puts another copy of the store's
    sources first on its path (the baseline of a side-by-side run)."""
    # Flush what the previous run left to write back (its notes, its index, the removal
    # of its folder): otherwise that I/O lands in this run's fsyncs, and whichever release
    # runs second is measured on a busier disk.
    os.sync()
    with tempfile.TemporaryDirectory(prefix="anamnesis-bench-") as root:
        result = subprocess.run(
            [*driver("store_driver", python=python), "--root", root, "--corpus", str(notes),
             "--queries", str(queries), *extra],
            cwd=REPO, capture_output=True, text=True, check=False,
            # Keyword search, like the published release: no embedding model in the way.
            env={**os.environ, "ANAMNESIS_HOME": root, "ANAMNESIS_SEARCH_MODE": "keyword",
                 **({"PYTHONPATH": str(store_src)} if store_src else {})},
        )  # fmt: skip
    if result.returncode != 0:
        raise SystemExit(f"driver failed under {python}:\n{result.stderr}")
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return data


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p95_ms(samples: list[float]) -> float:
    return p95(samples) * 1000


def summarize(data: dict[str, Any]) -> dict[str, float]:
    out = {
        "search_median_ms": median_ms(data["search_s"]),
        "search_p95_ms": p95_ms(data["search_s"]),
        "list_median_ms": median_ms(data["list_s"]),
        "reindex_median_s": statistics.median(data["reindex_s"]),
        "notes": float(data["count"]),
        "index_mb": data["index_bytes"] / 1e6,
    }
    if "write_s" in data:
        out["write_median_ms"] = median_ms(data["write_s"])
        out["write_mean_ms"] = statistics.fmean(data["write_s"]) * 1000
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="500 notes, no 100k run")
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--big", type=int, default=100_000, help="0 to skip the large run")
    parser.add_argument(
        "--styles",
        default="topical,mixed,zipf",
        help="corpus styles at --notes, each with its own queries (see corpus.py)",
    )
    parser.add_argument(
        "--baseline", type=Path, help="another checkout's packages/anamnesis-store/src"
    )
    args = parser.parse_args()
    if args.baseline and not (args.baseline / "anamnesis" / "store" / "store.py").is_file():
        parser.error(f"--baseline {args.baseline}: no anamnesis/store/store.py there")
    count = 500 if args.quick else args.notes
    big = 0 if args.quick else args.big
    published = os.environ.get("ANAMNESIS_PUBLISHED_PYTHON")

    with tempfile.TemporaryDirectory(prefix="anamnesis-corpus-") as tmp:
        for style in args.styles.split(","):
            queries = _queries_file(Path(tmp), style)  # each style its own look-ups
            notes = corpus.write_jsonl(
                corpus.generate(count, style=style), Path(tmp) / f"notes-{style}.jsonl"
            )
            results = {}
            if args.baseline:
                base = run_driver(sys.executable, notes, queries, store_src=args.baseline)
                results["baseline"] = summarize(base)
            results["ours"] = summarize(run_driver(sys.executable, notes, queries))
            if published:
                results["published"] = summarize(run_driver(published, notes, queries))
            else:
                print("ANAMNESIS_PUBLISHED_PYTHON not set: measuring ours only", file=sys.stderr)
            report(f"{count} notes, {style} corpus", results)
        if big:
            queries = _queries_file(Path(tmp), "topical")
            big_notes = corpus.write_jsonl(corpus.generate(big), Path(tmp) / "big.jsonl")
            data = run_driver(sys.executable, big_notes, queries, "--materialize",
                              "--search-rounds", "1", "--list-rounds", "1",
                              "--reindex-rounds", "1")  # fmt: skip
            report(f"{big} notes, topical corpus", {"ours": summarize(data)})


def _queries_file(folder: Path, style: str) -> Path:
    path = folder / f"queries-{style}.txt"
    path.write_text("\n".join(corpus.queries(style)) + "\n", encoding="utf-8")
    return path


def report(label: str, results: dict[str, dict[str, float]]) -> None:
    ours = results["ours"]
    others = {name: values for name, values in results.items() if name != "ours"}
    targets = BIG_TARGETS if ours["notes"] >= 10_000 else TARGETS
    print(f"\n== store, {label} (medians; ratio = other / ours) ==")
    for key, value in ours.items():
        line = f"{key:>20}: ours {value:10.3f}"
        for name, theirs in others.items():
            if key in theirs:
                ratio = theirs[key] / value if value else float("inf")
                line += f" | {name} {theirs[key]:10.3f} | x{ratio:5.2f}"
        if key in targets:
            line += f" | target <= {targets[key]} {'OK' if value <= targets[key] else 'MISSED'}"
        print(line)
    print(json.dumps({"bench": "store", "label": label, **results}))


if __name__ == "__main__":
    main()
