"""``python -m anamnesis.dashboard``: serve the dashboard until Ctrl-C, showing ops' checks
of the home in its status panel (``anamnesis dashboard`` calls :func:`run_dashboard` in its
own process instead, with the CLI's whole doctor). Prints one line with the address and
its one-time token."""

from __future__ import annotations

import sys

from anamnesis.dashboard.launch import main

if __name__ == "__main__":
    sys.exit(main())
