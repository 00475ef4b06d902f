"""anamnesis.dashboard: a local web page over an Anamnesis store.

Started as its own process (``python -m anamnesis.dashboard``, which ``anamnesis dashboard``
runs); nothing imports this package. It reads and writes through the store's API, keeps a
derived cache of each note's git history, and runs the ``anamnesis`` command for a sync or
doctor's checks.
"""

from __future__ import annotations

__version__ = "0.1.2"
