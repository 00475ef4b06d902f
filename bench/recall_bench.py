"""The recall suite run by its path: ``uv run python bench/recall_bench.py [options]``.

The command issue 44's "Done when" names; the same as ``uv run python -m
bench.suites.recall_bench [options]`` (its options: ``--quick``, ``--no-realmem``,
``--recall-only``, ``--corpus NAME``). Run as a path, Python puts ``bench/`` first on
``sys.path``, where ``import bench`` finds nothing: the checkout's root takes its place.
The one bench program that edits ``sys.path``; the others run with ``-m``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    from bench.suites.recall_bench import main

    main()
