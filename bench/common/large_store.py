"""A large store of the topical corpus, built once and reused by the diagnostic scripts."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from anamnesis.store import MemoryStore
from bench.common import corpus
from bench.common.store_driver import materialize_notes


def ensure_store(root: Path, notes: int) -> Path:
    """Fill ``root`` with ``notes`` notes of the topical corpus unless it already holds
    notes, build its index, and return the index's path."""
    if not (root / "memory").is_dir():
        materialize_notes(root, [asdict(note) for note in corpus.generate(notes)])
    with MemoryStore(root) as store:
        store.search("warm up")  # builds the index when the folder is new
    return root / "index.db"


def store_arguments(description: str | None) -> argparse.Namespace:
    """``--notes`` (how many to build) and ``--root`` (a store folder to build or reuse)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--root", type=Path, help="store folder, reused when it has notes")
    return parser.parse_args()
