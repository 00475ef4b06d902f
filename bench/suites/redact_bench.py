"""Secret redaction: the median time a note takes, and throughput on session transcripts.

    python -m bench.suites.redact_bench [--quick]        # or with the others: uv run nox -s bench

Every note write runs redact_secrets (the write target is 1 ms a note, everything
included), and session capture runs it over whole transcripts. Prints one JSON line each:
the median µs a note of find_secrets, redact_secrets and count_secrets over 2,000 generated
~4 KB notes (300 with --quick), then MB/s of redact_secrets over the transcript fixtures in
../shared, when they are there. Ours only: the published release has no redactor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from anamnesis.store.secrets.redact import count_secrets, find_secrets, redact_secrets
from bench.common import corpus
from bench.common.places import TRANSCRIPTS

FIXTURES = TRANSCRIPTS


def median_us(function: Callable[[str], object], texts: list[str]) -> float:
    """The median over ``texts`` of one call each, after a pass that warms the caches."""
    for text in texts:
        function(text)
    samples: list[float] = []
    for text in texts:
        started = time.perf_counter()
        function(text)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def transcripts_mb_per_s(paths: list[Path], runs: int) -> float:
    """Megabytes of transcript a second, each file redacted whole (best of ``runs``)."""
    texts = [path.read_text(encoding="utf-8") for path in paths]
    size = sum(len(text.encode("utf-8")) for text in texts)
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        for text in texts:
            redact_secrets(text)
        best = min(best, time.perf_counter() - started)
    return size / best / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count, runs = (300, 3) if args.quick else (2000, 7)
    notes = [note.body for note in corpus.generate(count)]
    for name, function in (
        ("find_secrets", find_secrets),
        ("redact_secrets", redact_secrets),
        ("count_secrets", count_secrets),
    ):
        result = {"bench": "redact", "measure": f"{name} median us/note", "notes": count}
        print(json.dumps({**result, "value": round(median_us(function, notes), 1)}))
    paths = sorted(FIXTURES.glob("*.jsonl")) if FIXTURES.is_dir() else []
    if not paths:
        print(json.dumps({"bench": "redact", "skipped": f"no transcripts in {FIXTURES}"}))
        return
    throughput = transcripts_mb_per_s(paths, runs)
    result = {"bench": "redact", "measure": "redact_secrets MB/s on transcripts"}
    print(json.dumps({**result, "files": len(paths), "value": round(throughput, 2)}))


if __name__ == "__main__":
    main()
