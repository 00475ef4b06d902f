"""Anamnesis's benchmarks, a package run from the checkout's root as ``python -m bench...``.

``common`` holds what the programs share (the corpus, the drivers run as child processes,
process timing); ``suites`` are the benchmarks `nox -s bench` runs; ``studies`` are the runs
that are the evidence for one constant; ``scale`` are the runs at scale (minutes to an hour).
The programs import only ``bench.common``, never each other. See README.md.
"""
