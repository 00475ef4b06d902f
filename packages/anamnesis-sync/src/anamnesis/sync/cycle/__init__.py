"""One sync: :class:`~anamnesis.sync.cycle.git.GitSyncBackend` commits, fetches,
integrates and pushes (``git.py``), committing local changes (``local_commits.py``)
through the configured remote (``origin.py``); conflicts settled (``resolution.py``),
every result worded (``results.py``), the offline state (``status.py``), our lock
(``lock.py``) and git's stale ones (``locks.py``).

The top floor: it uses every other room, and none of them imports it.
"""
