"""Where the benchmarks find the checkout, the shared evaluation data and the model.

The data beside the checkout (``../shared``: devmemory, realmem, the transcripts, the
offline model) is not part of the repository; ``BENCH_SHARED`` names it for a checkout
elsewhere (a worktree in /tmp). Without it, the corpus falls back to a small built-in
vocabulary and the programs that need the model or the evaluation sets say so and skip.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# The checkout's root: the working directory every ``python -m bench...`` child is given,
# and "this" checkout in the side-by-side runs (``running(REPO)``).
REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("BENCH_SHARED") or REPO.parent / "shared")
DEVMEMORY = SHARED / "eval" / "devmemory"
REALMEM = SHARED / "eval" / "realmem"
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
OFFLINE_MODEL = SHARED / "models" / "all-MiniLM-L6-v2-onnx-int8"
# Corpora the benchmarks derive from ../shared on demand (never committed), one folder per
# source hash: ``BENCH_CACHE`` or a folder in the system's temporary directory.
BENCH_CACHE = Path(os.environ.get("BENCH_CACHE") or Path(tempfile.gettempdir()) / "anamnesis-bench")
# Ours, committed: notes told apart only by exact codes, keys, people, tickets and dates.
NAMESDATES = Path(__file__).resolve().parent / "corpora" / "namesdates"
# Ours, committed: labelled pairs of notes that contradict each other or only look alike
# (bench/contradictions/README.md), scored by ``suites.contradictions_bench``.
CONTRADICTIONS = REPO / "bench" / "contradictions" / "pairs.jsonl"
# The recall benchmark's evaluation sets (and the relevance floor study's): realmem is
# searched within each query's project.
EVALUATION_SETS = {"devmemory": DEVMEMORY, "names-and-dates": NAMESDATES, "realmem": REALMEM}
