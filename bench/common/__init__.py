"""What the benchmarks share: the corpus, the drivers they run as child processes
(``python -m bench.common.<driver>``, started with the checkout's root as their working
directory), and how a child is timed.

Nothing is imported here: a driver runs under other Pythons too (the published release's
venv), where only its own imports must resolve.
"""
