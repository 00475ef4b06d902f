"""anamnesis.dashboard: a local web page over an Anamnesis store.

Run on its own (``python -m anamnesis.dashboard``: the status panel shows ops' checks of
the home) or by the CLI (``anamnesis dashboard`` calls :func:`run_dashboard` in its own
process and hands it the CLI's whole doctor as ``checks``); nothing else imports it. It
reads and writes through the store's API, keeps a derived cache of each note's git history,
and syncs through ops' one sync cycle, in this process: it never runs another program.

The public names are the re-exports below, declared once (the store's
:func:`~anamnesis.store.lazy_exports` derives ``__all__`` from them). They load with the
package: whoever imports it is about to serve the page.
"""

from typing import TYPE_CHECKING

from anamnesis.dashboard.launch import main as main
from anamnesis.dashboard.launch import run_dashboard as run_dashboard
from anamnesis.dashboard.views.status_checks import CheckRunner as CheckRunner
from anamnesis.store import lazy_exports

__version__ = "0.6.1"

if not TYPE_CHECKING:  # type checkers see only the names above, never a __getattr__
    __getattr__, __dir__ = lazy_exports(__name__)
