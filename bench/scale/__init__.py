"""Runs at scale (minutes to an hour: 20,000-100,000 notes, fleets of machines, 20 sessions
at once), by hand and side by side with another checkout: ``python -m bench.scale.<name>``."""
