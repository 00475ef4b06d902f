"""Tests of the benchmarks' own generators (run: ``uv run pytest bench/tests -q``)."""
