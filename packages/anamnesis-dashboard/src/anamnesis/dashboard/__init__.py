"""anamnesis.dashboard: a local web page over an Anamnesis store.

Run on its own (``python -m anamnesis.dashboard``: the status panel shows ops' checks of
the home) or by the CLI (``anamnesis dashboard`` calls :func:`run_dashboard` in its own
process and hands it the CLI's whole doctor as ``checks``); nothing else imports it. It
reads and writes through the store's API, keeps a derived cache of each note's git history,
and syncs through ops' one sync cycle, in this process: it never runs another program.
"""

from __future__ import annotations

from anamnesis.dashboard.launch import main, run_dashboard
from anamnesis.dashboard.status_checks import CheckRunner

__version__ = "0.1.2"

__all__ = ["CheckRunner", "__version__", "main", "run_dashboard"]
