"""Runs that are the evidence for one constant (a floor, a weight, a budget): run by hand,
``python -m bench.studies.<name>``; their figures are in bench/results/."""
