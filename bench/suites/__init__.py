"""The benchmarks `nox -s bench` runs (every ``*_bench.py`` here), each against the published
release where it has the feature: ``python -m bench.suites.<name> [--quick]``."""
