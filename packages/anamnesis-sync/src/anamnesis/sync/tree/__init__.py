"""The notes folder on disk and git's index of it: the repository opened or created
(``folder.py``), files staged and applied, plain files only (``worktree.py``; the rest
reported by ``unsynced.py``), pulled files written crash-safe in rounds
(``durable_writes.py``), a full disk said as such (``full_disk.py``), the index spliced
rather than rewritten (``index_splice.py``), and a no-op sync that skips the index
(``clean_tree.py``, ``drift_staging.py``).

Beside the remote (neither imports the other), over the objects and the model.
"""
